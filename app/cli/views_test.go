package cli

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"spillscope/app"
	"spillscope/sessions/samplegen"
)

// viewCorpus is a small hostile corpus indexed by `spillscope index`, with
// the environment the view subcommands read (the window's configuration:
// its roots are the corpus) and the window's own services over the same
// index, to compare with.
type viewCorpus struct {
	env      Env
	out, err *bytes.Buffer
	db       string
	man      samplegen.HostileManifest
	sessions *app.Sessions
	retain   *app.Retention
}

func newViewCorpus(t *testing.T) *viewCorpus {
	t.Helper()
	base := t.TempDir()
	corpus := filepath.Join(base, "corpus")
	man, err := samplegen.GenerateHostile(corpus, samplegen.HostileOptions{Seed: 4, HugeLineBytes: 1 << 20, SparseBytes: 3 << 20, Images: 6, Sessions: 3})
	if err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(base, "data", "index.db")
	env, out, errb := envFor(t, map[string]string{"HOME": base, "SPILLSCOPE_ROOTS": corpus, "SPILLSCOPE_DATA_DIR": filepath.Join(base, "data")})
	runIndexJSON(t, env, out, "--db", db, corpus)
	store := app.NewStore(app.Config{DataDir: filepath.Join(base, "data"), DBPath: db, Roots: []string{corpus}, Home: base}, nil)
	t.Cleanup(func() { store.Close() })
	return &viewCorpus{env: env, out: out, err: errb, db: db, man: man, sessions: app.NewSessions(store), retain: app.NewRetention(store)}
}

// run runs a subcommand and returns its exit code, stdout and stderr.
func (v *viewCorpus) run(args ...string) (int, string, string) {
	v.out.Reset()
	v.err.Reset()
	code := Run(v.env, args)
	return code, v.out.String(), v.err.String()
}

// lines runs a subcommand that must succeed and returns its JSON lines.
func (v *viewCorpus) lines(t *testing.T, args ...string) []string {
	t.Helper()
	code, out, errs := v.run(args...)
	if code != exitOK {
		t.Fatalf("%v exited %d: %s", args, code, errs)
	}
	if out == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(out, "\n"), "\n")
}

// jsonOf is v as the CLI prints it.
func jsonOf(t *testing.T, v any) string {
	t.Helper()
	var b bytes.Buffer
	if err := writeJSON(&b, v); err != nil {
		t.Fatal(err)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func sameLines[T any](t *testing.T, what string, got []string, want []T) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d lines, the window has %d rows", what, len(got), len(want))
	}
	for i := range want {
		if w := jsonOf(t, want[i]); got[i] != w {
			t.Errorf("%s line %d:\n got %s\nwant %s", what, i, got[i], w)
		}
	}
}

// `sessions` and `results` print every row the window's lists have, as
// the window has them, in its orders; each result row carries its id, its
// tokens and whether they are exact.
func TestListsAreTheWindowsRows(t *testing.T) {
	v := newViewCorpus(t)
	page, err := v.sessions.List(app.SessionQuery{Limit: app.MaxPage})
	if err != nil || page.Total > app.MaxPage {
		t.Fatal(page.Total, err)
	}
	wantSessions := page.Rows
	sameLines(t, "sessions", v.lines(t, "sessions", "--db", v.db), wantSessions)
	byTokens, _ := v.sessions.List(app.SessionQuery{Limit: app.MaxPage, Order: "tokens"})
	sameLines(t, "sessions --order tokens", v.lines(t, "sessions", "--db", v.db, "--order", "tokens"), byTokens.Rows)
	if len(wantSessions) != v.man.Sessions {
		t.Errorf("%d sessions listed, the corpus has %d", len(wantSessions), v.man.Sessions)
	}

	all, err := v.sessions.ResultList(app.ResultListQuery{})
	if err != nil {
		t.Fatal(err)
	}
	sameLines(t, "results", v.lines(t, "results", "--db", v.db), all)
	if len(all) != v.man.ToolResults {
		t.Errorf("%d results listed, the corpus has %d", len(all), v.man.ToolResults)
	}
	tokens := v.lines(t, "results", "--db", v.db, "--order", "tokens")
	last := int64(1 << 62)
	for i, l := range tokens {
		var r struct {
			ID          int64 `json:"id"`
			Tokens      *int64
			TokensExact *bool `json:"tokensExact"`
		}
		if err := json.Unmarshal([]byte(l), &r); err != nil || r.ID <= 0 || r.Tokens == nil || r.TokensExact == nil {
			t.Fatalf("line %d lacks id, tokens or tokensExact: %s", i, l)
		}
		if *r.Tokens > last {
			t.Errorf("line %d: %d tokens after %d", i, *r.Tokens, last)
		}
		last = *r.Tokens
		if !*r.TokensExact {
			t.Errorf("line %d: not counted after a full index", i)
		}
	}
	for _, s := range wantSessions {
		one, err := v.sessions.ResultList(app.ResultListQuery{SessionID: s.ID})
		if err != nil {
			t.Fatal(err)
		}
		sameLines(t, "results --session "+strconv.FormatInt(s.ID, 10), v.lines(t, "results", "--db", v.db, "--session", strconv.FormatInt(s.ID, 10)), one)
		harness, _ := v.sessions.ResultList(app.ResultListQuery{HarnessSessionID: s.SessionID})
		sameLines(t, "results --session "+s.SessionID, v.lines(t, "results", "--session", s.SessionID, "--db", v.db), harness)
	}
}

// `show` prints the result view: the window's detail and its spill pane's
// first page, credentials masked unless --reveal; a forged notice's file
// is "outside" and never read.
func TestShowIsTheResultView(t *testing.T) {
	v := newViewCorpus(t)
	rows, err := v.sessions.ResultList(app.ResultListQuery{})
	if err != nil {
		t.Fatal(err)
	}
	forged, spilled := 0, 0
	for _, r := range rows {
		id := strconv.FormatInt(r.ID, 10)
		for _, reveal := range []bool{false, true} {
			args := []string{"show", id, "--db", v.db}
			if reveal {
				args = append(args, "--reveal")
			}
			got := v.lines(t, args...)
			d, err := v.sessions.Result(app.ResultQuery{ID: r.ID, Reveal: reveal})
			if err != nil {
				t.Fatal(err)
			}
			want := showOutput{ResultDetail: d}
			if r.NoticeKind != "" {
				sl, err := v.sessions.SpillFile(app.SpillQuery{ResultID: r.ID, Limit: firstPage, Reveal: reveal})
				if err != nil {
					t.Fatal(err)
				}
				want.Spill = &sl
			}
			sameLines(t, "show "+id, got, []showOutput{want})
			if !reveal {
				for _, s := range v.man.Secrets {
					if strings.Contains(got[0], s) {
						t.Errorf("show %s (%s) prints %s unrevealed", id, r.Tool, s)
					}
				}
			}
			if want.Spill != nil && want.Spill.State == "outside" {
				forged++
				if want.Spill.Text != "" || want.Spill.Size != 0 {
					t.Errorf("show %s read the file a forged notice names", id)
				}
			}
			if want.Spill != nil && want.Spill.State == "exists" {
				spilled++
				// A page ends at the first safe place past its size (no
				// credential is cut), or at the end of the file.
				if want.Spill.Text == "" || want.Spill.Offset != 0 || want.Spill.Next < firstPage && !want.Spill.EOF {
					t.Errorf("show %s: first page of %d bytes, next %d", id, len(want.Spill.Text), want.Spill.Next)
				}
			}
		}
	}
	if forged == 0 || spilled == 0 {
		t.Errorf("%d forged and %d real spill files shown: the corpus proves nothing", forged, spilled)
	}
	revealedAny := false
	for _, r := range rows {
		if strings.Contains(r.Tool, "credentials_plain") {
			got := v.lines(t, "show", strconv.FormatInt(r.ID, 10), "--reveal", "--db", v.db)
			for _, s := range v.man.Secrets {
				revealedAny = revealedAny || strings.Contains(got[0], s)
			}
		}
	}
	if !revealedAny {
		t.Error("--reveal shows no planted value of the credentials result")
	}
}

// `retain --result` is the window's re-run of an indexed result, and its
// originalTokens is the result row's tokens once counted, for every result
// at the shipped budget and with retention off.
func TestRetainResultOriginalIsTheRowsTokens(t *testing.T) {
	v := newViewCorpus(t)
	rows, err := v.sessions.ResultList(app.ResultListQuery{})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		id := strconv.FormatInt(r.ID, 10)
		for _, budget := range []string{"12500", ""} {
			args := []string{"retain", "--result", id, "--db", v.db}
			req := app.RetainRequest{ResultID: r.ID}
			if budget != "" {
				n, _ := strconv.ParseInt(budget, 10, 64)
				args, req.Budget = append(args, "--budget", budget), &n
			}
			got := v.lines(t, args...)
			p, err := v.retain.Retain(req)
			if err != nil {
				t.Fatal(err)
			}
			sameLines(t, strings.Join(args, " "), got, []retainResultOutput{{ResultID: r.ID, Projection: p}})
			var o struct {
				OriginalTokens      int64 `json:"originalTokens"`
				OriginalTokensExact bool  `json:"originalTokensExact"`
			}
			if err := json.Unmarshal([]byte(got[0]), &o); err != nil {
				t.Fatal(err)
			}
			if !r.TokensExact || o.OriginalTokens != r.Tokens || !o.OriginalTokensExact {
				t.Errorf("%s (%s): originalTokens %d (exact %v), the row's tokens %d (exact %v)", strings.Join(args, " "), r.Tool, o.OriginalTokens, o.OriginalTokensExact, r.Tokens, r.TokensExact)
			}
		}
	}
}

// Every view subcommand has -h, and a bad argument is an error naming it,
// with a non-zero exit and nothing on stdout.
func TestViewCommandErrors(t *testing.T) {
	v := newViewCorpus(t)
	missing := filepath.Join(t.TempDir(), "none.db")
	tests := []struct {
		args []string
		code int
		says string
	}{
		{[]string{"sessions", "--db", v.db, "extra"}, exitUsage, `"extra"`},
		{[]string{"sessions", "--db", v.db, "--order", "newest"}, exitUsage, "--order"},
		{[]string{"sessions", "--db", v.db, "--harness", "nope"}, exitUsage, "--harness"},
		{[]string{"sessions", "--db", missing}, exitFail, missing},
		{[]string{"results", "--db", v.db, "--order", "relevance"}, exitUsage, "--order"},
		{[]string{"results", "--db", v.db, "--session", "0"}, exitUsage, "--session"},
		{[]string{"results", "--db", v.db, "--session", "987654"}, exitFail, `--session "987654"`},
		{[]string{"results", "--db", v.db, "--session", "no-such-session"}, exitFail, "no-such-session"},
		{[]string{"show", "--db", v.db}, exitUsage, "one result ID"},
		{[]string{"show", "--db", v.db, "x1"}, exitUsage, `"x1"`},
		{[]string{"show", "--db", v.db, "1", "2"}, exitUsage, "one result ID"},
		{[]string{"show", "--db", v.db, "987654"}, exitFail, "987654"},
		{[]string{"show", "1", "--db", missing}, exitFail, missing},
		{[]string{"retain", "--result", "0", "--db", v.db}, exitUsage, "--result"},
		{[]string{"retain", "--result", "987654", "--db", v.db}, exitFail, "--result 987654"},
		{[]string{"retain", "--result", "1", "--db", v.db, "--spill-dir", t.TempDir()}, exitUsage, "--spill-dir"},
		{[]string{"retain", "--result", "1", "--db", v.db, "--budget", "-3"}, exitUsage, "--budget"},
		{[]string{"retain", "--result", "1", "--db", v.db, "--route", "nope"}, exitUsage, "--route"},
		{[]string{"retain", "--reveal"}, exitUsage, "--reveal"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			code, out, errs := v.run(tt.args...)
			if code != tt.code || out != "" || !strings.Contains(errs, tt.says) {
				t.Errorf("exit %d (want %d), stdout %q, stderr %q (want it to name %s)", code, tt.code, out, errs, tt.says)
			}
		})
	}
	for _, cmd := range []string{"sessions", "results", "show"} {
		if code, _, errs := v.run(cmd, "-h"); code != exitOK || !strings.Contains(errs, "usage: spillscope "+cmd) || !strings.Contains(errs, "-db") {
			t.Errorf("%s -h: exit %d, %q", cmd, code, errs)
		}
	}
	if code, out, _ := v.run("retain", "-h"); code != exitOK || !strings.Contains(out, "--result ID") || !strings.Contains(out, "-reveal") {
		t.Errorf("retain -h: exit %d, %q", code, out)
	}
}
