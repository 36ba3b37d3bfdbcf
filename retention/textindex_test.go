package retention

import (
	"math/rand"
	"strings"
	"testing"
	"unicode/utf8"
)

// trickyAlphabet mixes everything the pre-tokenisation split treats
// differently: runs of spaces and newlines (look-ahead), contractions,
// digits in groups, punctuation with trailing newlines or slashes, CJK,
// combining marks, emoji and other 4-byte sequences.
var trickyAlphabet = []string{
	" ", "  ", "   ", "\n", "\r\n", "\t", " \n ", "\n\n",
	"a", "the", "The", "HTTP", "don", "'t", "'ll", "'S", "'", "x'",
	"0", "12", "3456", "7",
	".", ",", "{\"k\":", "}", "//", "/", "-->", "!?\n",
	"日本語", "テスト", "中", "한국어",
	"e\u0301", "\u0301", "n\u0303o",
	"🙂", "👩\u200d💻", "𝔘𝔫𝔦", "\U00010348",
	"\uFFFD",
}

func randomText(r *rand.Rand, n int) string {
	var b strings.Builder
	for b.Len() < n {
		b.WriteString(trickyAlphabet[r.Intn(len(trickyAlphabet))])
	}
	return b.String()
}

func mustModel(t testing.TB, enc string) *model {
	t.Helper()
	m, err := getModel(enc)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestModelCountMatchesTiktoken(t *testing.T) {
	skipUnderRace(t)
	for _, enc := range []string{EncodingO200k, EncodingCL100k} {
		t.Run(enc, func(t *testing.T) {
			m := mustModel(t, enc)
			r := rand.New(rand.NewSource(7))
			for i := 0; i < 200; i++ {
				checkTiktoken(t, m, randomText(r, r.Intn(400)))
			}
		})
	}
}

// The tables must count every prefix and suffix exactly as encoding that
// exact string does; this is what makes the windowed search trustworthy.
func TestTablesCountExactStrings(t *testing.T) {
	skipUnderRace(t)
	for _, enc := range []string{EncodingO200k, EncodingCL100k} {
		t.Run(enc, func(t *testing.T) {
			m := mustModel(t, enc)
			r := rand.New(rand.NewSource(11))
			for trial := 0; trial < 12; trial++ {
				text := randomText(r, 200+r.Intn(7000))
				x := newTextIndex(m, text)
				for probe := 0; probe < 12; probe++ {
					pos := r.Intn(len(text) + 1)
					for pos < len(text) && !utf8.RuneStart(text[pos]) {
						pos++
					}
					k := x.headRune(pos)
					if got, want := x.prefixCount(k), len(tiktokenOf(t, m.name).EncodeOrdinary(text[:pos])); got != want {
						t.Fatalf("trial %d: prefix %d bytes: table %d, tiktoken %d", trial, pos, got, want)
					}
					j := x.tailRune(pos)
					if got, want := x.suffixCount(j), len(tiktokenOf(t, m.name).EncodeOrdinary(text[pos:])); got != want {
						t.Fatalf("trial %d: suffix from %d: table %d, tiktoken %d", trial, pos, got, want)
					}
				}
				if got, want := x.total(), len(tiktokenOf(t, m.name).EncodeOrdinary(text)); got != want {
					t.Fatalf("trial %d: total %d, tiktoken %d", trial, got, want)
				}
			}
		})
	}
}

func TestCutsFitAndAreMaximal(t *testing.T) {
	m := mustModel(t, EncodingO200k)
	r := rand.New(rand.NewSource(3))
	for trial := 0; trial < 20; trial++ {
		text := randomText(r, 500+r.Intn(12000))
		total := m.count(text)
		rem := r.Intn(total)
		x := newTextIndex(m, text)
		k, c := x.headCut(rem)
		if got := m.count(text[:k]); got != c || c > rem {
			t.Fatalf("headCut(%d) = %d bytes claiming %d tokens; exact %d", rem, k, c, got)
		}
		if !utf8.ValidString(text[:k]) {
			t.Fatalf("headCut split a code point at %d", k)
		}
		if _, size := utf8.DecodeRuneInString(text[k:]); k < len(text) && m.count(text[:k+size]) <= rem {
			t.Fatalf("headCut(%d) = %d is not maximal: one more code point still fits", rem, k)
		}
		j, c2 := x.tailCut(rem, 0)
		if got := m.count(text[j:]); got != c2 || c2 > rem {
			t.Fatalf("tailCut(%d) = %d claiming %d tokens; exact %d", rem, j, c2, got)
		}
		if !utf8.ValidString(text[j:]) {
			t.Fatalf("tailCut split a code point at %d", j)
		}
		if _, size := utf8.DecodeLastRuneInString(text[:j]); j > 0 && m.count(text[j-size:]) <= rem {
			t.Fatalf("tailCut(%d) = %d is not maximal", rem, j)
		}
	}
}

func TestSanitize(t *testing.T) {
	tests := []struct {
		name, in, want string
		bad            int
	}{
		{"valid", "héllo", "héllo", 0},
		{"lone byte", "a\xffb", "a\uFFFDb", 1},
		{"truncated sequence", "日\xe6\x97", "日\uFFFD\uFFFD", 2},
		{"surrogate encoding", "\xed\xa0\x80", "\uFFFD\uFFFD\uFFFD", 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := sanitize(tt.in); got != tt.want {
				t.Errorf("sanitize = %q, want %q", got, tt.want)
			}
			if got := invalidBytes(tt.in); got != tt.bad {
				t.Errorf("invalidBytes = %d, want %d", got, tt.bad)
			}
			// The tokenizer reads invalid bytes exactly as sanitize writes them.
			n, _ := CountTokens("", tt.in)
			enc, _ := Encoder("")
			if want := len(enc.EncodeOrdinary(tt.in)); n != want {
				t.Errorf("CountTokens = %d, tiktoken %d", n, want)
			}
		})
	}
}

// Past maxTableBytes a window's bound and the whole text's count are
// counted without tables, and they are the figures the tables give: the
// same boundary, the same tokens. AtMost answers the same either way, at
// every limit, and counting a long text builds no table beyond the cap.
func TestStreamedBoundsMatchTables(t *testing.T) {
	skipUnderRace(t)
	r := rand.New(rand.NewSource(11))
	text := randomText(r, 2*maxTableBytes+50000) // one level past the cap
	for _, enc := range []string{EncodingO200k, EncodingCL100k} {
		t.Run(enc, func(t *testing.T) {
			m := mustModel(t, enc)
			tables := newTextIndex(m, text)
			tables.growHeadTo(len(text)) // every level answered from the table
			streamed := newTextIndex(m, text)
			if got, want := streamed.total(), tables.total(); got != want {
				t.Fatalf("streamed total %d, table total %d", got, want)
			}
			for l := 0; windowBytes(l) < len(text); l++ {
				gb, gex := streamed.levelBound(l)
				wb, wex := tables.levelBound(l)
				if gb != wb || gex != wex {
					t.Errorf("level %d (%d bytes): streamed %d %v, table %d %v", l, windowBytes(l), gb, gex, wb, wex)
				}
			}
			if n := len(streamed.hoff); n > maxTableBytes+2*marginBytes+2 {
				t.Errorf("the streamed index built a %d-rune table", n)
			}
			total := tables.total()
			for _, limit := range []int{0, total / 3, total - 1, total, total + 1, len(text), 1 << 40} {
				a, aex := (&tiktokenText{x: newTextIndex(m, text)}).AtMost(limit)
				b, bex := (&tiktokenText{x: tables}).AtMost(limit)
				if a != b || aex != bex {
					t.Errorf("AtMost(%d): streamed %d %v, tables %d %v", limit, a, aex, b, bex)
				}
			}
		})
	}
}
