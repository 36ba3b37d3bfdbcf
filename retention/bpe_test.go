package retention

import (
	"fmt"
	"math/rand"
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

// Long pieces against tiktoken-go itself: whole counts (the window merge
// from longWindow on) and the window merge with small windows, on pieces
// tiktoken-go's quadratic merge still finishes.
func TestLongPiecesMatchTiktoken(t *testing.T) {
	skipUnderRace(t)
	for _, enc := range []string{EncodingO200k, EncodingCL100k} {
		m := mustModel(t, enc)
		tk := tiktokenOf(t, enc)
		for _, g := range pieceGens {
			t.Run(enc+"/"+g.name, func(t *testing.T) {
				r := rand.New(rand.NewSource(5))
				sizes := []int{129, 1000, 4000}
				if !testing.Short() {
					sizes = append(sizes, longWindow+1+r.Intn(4000))
				}
				for _, n := range sizes {
					p := g.gen(r, n)
					if pieces := countPieces(m, p); pieces != 1 {
						t.Fatalf("generator %s made %d pieces, want 1", g.name, pieces)
					}
					want := len(tk.EncodeOrdinary(p))
					if got := m.count(p); got != want {
						t.Fatalf("count(%.40q… %d bytes) = %d, tiktoken %d", p, len(p), got, want)
					}
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
	size := 1 << 20
	if testing.Short() {
		size = 128 << 10
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
