package retention

import (
	"math/rand"
	"strconv"
	"strings"
	"testing"
)

// Text that sanitize changes: each piece holds bytes that are not UTF-8,
// which Analyse and every estimator read as one U+FFFD per byte.
var unsanitized = []struct{ name, text string }{
	{"invalid byte", "abc\xffdef"},
	{"truncated sequence", "price \xe2\x82 end"},
	{"lone surrogate", "a\xed\xa0\x80b"}, // U+D800 in CESU-8: three bytes Go does not decode
	{"overlong", "\xc0\xafpath"},
	{"above U+10FFFF", "x\xf5\x80\x80\x80y"},
	{"control characters", "\x00\x1b[31m\x7f\xfe\r\n\t\x08"},
	{"split emoji", "ok \xf0\x9f\x98 then 😀"},
}

// TestEstimatorCountReadsInvalidAsSanitized pins what writtenCount relies
// on when it hands a block to the estimator as it is: every registered
// estimator counts a text as it counts its sanitized form, the form
// Analyse prepares the tables from.
func TestEstimatorCountReadsInvalidAsSanitized(t *testing.T) {
	for _, name := range EstimatorNames() {
		est, err := LookupEstimator(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, tc := range unsanitized {
			t.Run(name+"/"+tc.name, func(t *testing.T) {
				if sanitize(tc.text) == tc.text {
					t.Fatalf("sanitize leaves %q as it is: the case checks nothing", tc.text)
				}
				long := strings.Repeat(tc.text+" and more words ", 400)
				for _, s := range []string{tc.text, long} {
					if got, want := est.Count(s), est.Count(sanitize(s)); got != want {
						t.Fatalf("%d bytes: Count %d, Count(sanitize) %d", len(s), got, want)
					}
				}
			})
		}
	}
}

// TestWrittenCountAgreesAcrossPaths decides every policy on several
// estimators over text holding invalid UTF-8, at budgets that keep it, cut
// it and leave a notice, and prices the outcome three ways: the decision's
// own figure (priceBuilt), Reprice on its own Analysis, Reprice on an
// Analysis of a copy of the result (so a kept original is counted whole,
// not read from the tables) and each text block counted whole after
// sanitize. All of them must agree.
func TestWrittenCountAgreesAcrossPaths(t *testing.T) {
	r := rand.New(rand.NewSource(5))
	var big strings.Builder
	for big.Len() < 60_000 {
		big.WriteString(joinText(r, 900))
		big.WriteString(unsanitized[r.Intn(len(unsanitized))].text)
	}
	res := Result{Content: []Block{textBlock(big.String()), textBlock("tail \xff block \xed\xa0\x80 " + joinText(r, 3000))}}
	copied := Result{Content: append([]Block(nil), res.Content...)}
	estimators := []string{EstimatorMeter, EncodingO200k, EncodingCL100k, EstimatorBytes4, EstimatorUTF16Units, EstimatorCodePoints}
	for _, en := range estimators {
		est, err := LookupEstimator(en)
		if err != nil {
			t.Fatal(err)
		}
		opts := AnalyseOptions{Call: Call{ToolName: "run_shell_command", Spill: SpillRef{Locator: "/spill/written.txt"}}}
		a, err := Analyse(res, est, "", opts)
		if err != nil {
			t.Fatal(err)
		}
		y, err := Analyse(copied, est, "", opts)
		if err != nil {
			t.Fatal(err)
		}
		statuses := map[string]int{}
		for _, info := range Policies() {
			t.Run(en+"/"+info.Name, func(t *testing.T) {
				pol := mustPolicy(t, info.Name)
				for _, b := range []int{400, 3000, 20_000, 1_000_000} {
					s, err := info.Resolve(Params{info.Budget: strconv.Itoa(b)})
					if err != nil {
						t.Logf("budget %d: %v", b, err)
						continue
					}
					o := a.Run(pol, s)
					statuses[o.Status]++
					whole := 0
					for i, blk := range o.Content {
						if blk.Type != TypeText {
							continue
						}
						n, want := a.writtenCount(o.Content, o.Spans, i), est.Count(sanitize(blk.Text))
						if n != want {
							t.Fatalf("budget %d (%s): block %d of %d bytes: writtenCount %d, counted whole %d", b, o.Status, i, len(blk.Text), n, want)
						}
						whole += want
					}
					if o.Status == StatusReplaced || o.Status == StatusNoticeOnly {
						if got := o.Tokens.Text + o.Tokens.Notice; got != whole {
							t.Fatalf("budget %d (%s): decision prices its text at %+v, counted whole %d", b, o.Status, o.Tokens, whole)
						}
						if got := a.Reprice(o); got != o.Tokens {
							t.Fatalf("budget %d (%s): repriced on its own Analysis %+v, decided %+v", b, o.Status, got, o.Tokens)
						}
					}
					// A kept original is read from a's tables and counted
					// whole, as it stands, on y.
					if got, want := y.Reprice(o), a.Reprice(o); got != want {
						t.Fatalf("budget %d (%s): repriced on a copy %+v, on its own Analysis %+v", b, o.Status, got, want)
					}
				}
			})
		}
		if statuses[StatusReplaced] == 0 || statuses[StatusWithinBudget]+statuses[StatusPassThrough] == 0 {
			t.Fatalf("%s: outcomes %v: the test needs both written and kept content", en, statuses)
		}
	}
}
