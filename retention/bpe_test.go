package retention

import (
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"testing"
)

// pieceGens make single pieces of the shapes long pieces take: runs of one
// character, short repeated patterns, random text over small alphabets
// (where merges overlap the most) and over the lowercase letters, in ASCII
// and in multi-byte runes.
var pieceGens = []struct {
	name string
	gen  func(r *rand.Rand, n int) string
}{
	{"a", func(_ *rand.Rand, n int) string { return strings.Repeat("a", n) }},
	{"equals", func(_ *rand.Rand, n int) string { return strings.Repeat("=", n) }},
	{"dash-equals", func(_ *rand.Rand, n int) string { return strings.Repeat("-=", n/2+1) }},
	{"cjk", func(_ *rand.Rand, n int) string { return strings.Repeat("中文", n/6+1) }},
	{"emoji", func(_ *rand.Rand, n int) string { return strings.Repeat("😀", n/4+1) }},
	{"pattern", func(r *rand.Rand, n int) string {
		return strings.Repeat(randomLetters(r, 1+r.Intn(7), "abcdefghijklmnopqrstuvwxyz"), n)[:n]
	}},
	{"ab", func(r *rand.Rand, n int) string { return randomLetters(r, n, "ab") }},
	{"aab", func(r *rand.Rand, n int) string { return randomLetters(r, n, "aaab") }},
	{"lower", func(r *rand.Rand, n int) string { return randomLetters(r, n, "abcdefghijklmnopqrstuvwxyz") }},
	{"space-lower", func(r *rand.Rand, n int) string {
		return " " + randomLetters(r, n, "abcdefghijklmnopqrstuvwxyz")
	}},
	{"punct", func(r *rand.Rand, n int) string { return randomLetters(r, n, "=-*#_.") }},
}

func randomLetters(r *rand.Rand, n int, alphabet string) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[r.Intn(len(alphabet))]
	}
	return string(b)
}

// The three merge implementations are one rule: the stack merge and the
// windowed merge (with windows small enough to chain hundreds of times, and
// smaller than the longest tokens) equal the heap merge of the whole piece.
func TestMergesAgree(t *testing.T) {
	skipUnderRace(t)
	for _, enc := range []string{EncodingO200k, EncodingCL100k} {
		m := mustModel(t, enc)
		for _, g := range pieceGens {
			t.Run(enc+"/"+g.name, func(t *testing.T) {
				r := rand.New(rand.NewSource(int64(len(g.name))))
				for trial := range 30 {
					n := 1 + r.Intn(3000)
					if trial < 10 {
						n = 1 + r.Intn(2*shortPiece)
					}
					p := g.gen(r, n)
					want := m.mergeCount(p)
					if len(p) <= shortPiece {
						if got := m.shortCount(p); got != want {
							t.Fatalf("shortCount(%q) = %d, heap merge %d", p, got, want)
						}
					}
					for _, w := range [][2]int{{48, 8}, {200, 16}, {700, 100}} {
						if len(p) <= w[0] {
							continue
						}
						got, ok := m.windowedCount(p, w[0], w[1])
						if ok && got != want {
							t.Fatalf("windowedCount(%.40q… %d bytes, window %d) = %d, heap merge %d", p, len(p), w[0], got, want)
						}
						if !ok && w[0] >= 200 {
							t.Errorf("windows of %d bytes over %.40q… shared no token", w[0], p)
						}
					}
				}
			})
		}
	}
}

// Windows shorter than the longest tokens of a run can share no token (a
// run of '=' in 48-byte windows): the count then retries with larger windows
// and stays exact.
func TestLongCountRetriesLargerWindows(t *testing.T) {
	m := mustModel(t, EncodingO200k)
	p := strings.Repeat("=", 5000)
	if _, ok := m.windowedCount(p, 48, 8); ok {
		t.Fatal("48-byte windows chained over a run of '='; pick a case where they cannot")
	}
	if got, want := m.longCountFrom(p, 48, 8), m.mergeCount(p); got != want {
		t.Fatalf("longCountFrom = %d, heap merge %d", got, want)
	}
}

// Long pieces against tiktoken-go itself: tokens, and the window merge with
// small windows (the production windows are checked on pieces past one in
// TestLongRunsMatchWholeMerge and TestPathologicalShapesMatchTiktoken), on
// pieces tiktoken-go's quadratic merge still finishes.
func TestLongPiecesMatchTiktoken(t *testing.T) {
	skipUnderRace(t)
	for _, enc := range []string{EncodingO200k, EncodingCL100k} {
		m := mustModel(t, enc)
		tk := tiktokenOf(t, enc)
		for _, g := range pieceGens {
			t.Run(enc+"/"+g.name, func(t *testing.T) {
				r := rand.New(rand.NewSource(5))
				for _, n := range []int{129, 1000, 4000} {
					p := g.gen(r, n)
					if pieces := countPieces(m, p); pieces != 1 {
						t.Fatalf("generator %s made %d pieces, want 1", g.name, pieces)
					}
					checkTiktoken(t, m, p)
					want := len(tk.EncodeOrdinary(p))
					if got, ok := m.windowedCount(p, 256, 32); ok && got != want {
						t.Fatalf("windowedCount(%.40q… %d bytes) = %d, tiktoken %d", p, len(p), got, want)
					}
				}
			})
		}
	}
}

func countPieces(m *model, s string) int {
	n := 0
	m.splitString(s, func(_, _ int) bool { n++; return true })
	return n
}

// A run of one character far past tiktoken-go's reach, against the heap merge
// of the whole piece (exact, n log n): the windows chain on reused merges.
func TestLongRunsMatchWholeMerge(t *testing.T) {
	skipUnderRace(t)
	size := 16 * longWindow
	if testing.Short() {
		size = 3 * longWindow
	}
	for _, enc := range []string{EncodingO200k, EncodingCL100k} {
		m := mustModel(t, enc)
		for _, g := range pieceGens {
			t.Run(fmt.Sprintf("%s/%s", enc, g.name), func(t *testing.T) {
				p := g.gen(rand.New(rand.NewSource(6)), size)
				if got, want := m.pieceTokens(p), m.mergeCount(p); got != want {
					t.Fatalf("pieceTokens of %d bytes = %d, heap merge %d", len(p), got, want)
				}
			})
		}
	}
}

// coreTokens is the core's encoding of s as token ids: the split, each piece
// looked up whole, else the heap merge's parts looked up. It exists for the
// token-for-token comparison with tiktoken-go (the product only counts).
func coreTokens(t testing.TB, m *model, s string) []int {
	t.Helper()
	s = sanitize(s)
	var ids []int
	buf := new(mergeBuf)
	m.splitString(s, func(ps, pe int) bool {
		p := s[ps:pe]
		if r, ok := m.vocab.Rank(p); ok {
			ids = append(ids, r)
			return true
		}
		b := m.mergeBounds(p, buf)
		for i := 0; i+1 < len(b); i++ {
			r, ok := m.vocab.Rank(p[b[i]:b[i+1]])
			if !ok {
				t.Fatalf("merge part %q of %q is not a token", p[b[i]:b[i+1]], p)
			}
			ids = append(ids, r)
		}
		return true
	})
	return ids
}

// checkTiktoken compares the core with tiktoken-go on s: the count, and the
// tokens one by one.
func checkTiktoken(t testing.TB, m *model, s string) {
	t.Helper()
	want := tiktokenOf(t, m.name).EncodeOrdinary(sanitize(s))
	if got := m.count(s); got != len(want) {
		t.Fatalf("%s count of %.60q (%d bytes) = %d, tiktoken %d", m.name, s, len(s), got, len(want))
	}
	got := coreTokens(t, m, s)
	if !slices.Equal(got, want) {
		i := 0
		for i < len(got) && i < len(want) && got[i] == want[i] {
			i++
		}
		t.Fatalf("%s tokens of %.60q (%d bytes) differ from tiktoken at token %d: %v… vs %v…",
			m.name, s, len(s), i, got[i:min(i+5, len(got))], want[i:min(i+5, len(want))])
	}
}

// The split's rune classes are filled per block on first use and the merge
// buffers are pooled: counts from many goroutines at once, starting from
// empty class blocks, equal sequential counts.
func TestCountConcurrent(t *testing.T) {
	r := rand.New(rand.NewSource(8))
	texts := []string{
		randomText(r, 20000),
		strings.Repeat("=", 3*longWindow) + " x",
		strings.Repeat("Ωμέγα кириллица ٣٤ देवनागरी ", 500),
		pieceGens[8].gen(r, longWindow+5000),
	}
	m := mustModel(t, EncodingO200k)
	want := make([]int, len(texts))
	for i, s := range texts {
		want[i] = m.count(s)
	}
	for i := range classBlocks {
		classBlocks[i].Store(nil)
	}
	errs := make(chan error, 8)
	for g := range 8 {
		go func() {
			i := g % len(texts)
			if got := m.count(texts[i]); got != want[i] {
				errs <- fmt.Errorf("text %d: concurrent count %d, sequential %d", i, got, want[i])
				return
			}
			errs <- nil
		}()
	}
	for range 8 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
}

// FuzzMerges: on any bytes (merging is defined on any byte string, not only
// on pieces) the stack merge and the windowed merge, with windows small
// enough to chain, equal the heap merge.
func FuzzMerges(f *testing.F) {
	r := rand.New(rand.NewSource(9))
	for _, g := range pieceGens {
		f.Add(g.gen(r, 300), uint8(r.Intn(256)))
	}
	f.Add("\xff\xfe\x00abc", uint8(0))
	m := mustModel(f, EncodingO200k)
	f.Fuzz(func(t *testing.T, p string, w uint8) {
		want := m.mergeCount(p)
		if len(p) <= shortPiece {
			if got := m.shortCount(p); got != want {
				t.Fatalf("shortCount(%q) = %d, heap merge %d", p, got, want)
			}
		}
		win := 16 + int(w)
		if len(p) > win {
			if got, ok := m.windowedCount(p, win, 4+win/8); ok && got != want {
				t.Fatalf("windowedCount(%q, %d) = %d, heap merge %d", p, win, got, want)
			}
		}
	})
}
