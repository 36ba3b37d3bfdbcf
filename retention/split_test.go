package retention

import (
	"io/fs"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/dlclark/regexp2"
)

var (
	refMu      sync.Mutex
	refRegexps = map[string]*regexp2.Regexp{}
)

// refSplit is the reference the hand-written split must equal: the encoding's
// pattern run by regexp2, the engine tiktoken-go splits with, over
// runes[:end] from start. It returns the piece ends.
func refSplit(t testing.TB, encoding string, runes []rune, start, end int) []int {
	t.Helper()
	refMu.Lock()
	re, ok := refRegexps[encoding]
	if !ok {
		var err error
		re, err = regexp2.Compile(patterns[encoding], regexp2.None)
		if err != nil {
			refMu.Unlock()
			t.Fatal(err)
		}
		refRegexps[encoding] = re
	}
	refMu.Unlock()
	var ends []int
	if start >= end {
		return ends
	}
	mt, err := re.FindRunesMatchStartingAt(runes[:end], start)
	pos := start
	for err == nil && mt != nil {
		if mt.Index > pos {
			ends = append(ends, mt.Index)
		}
		ends = append(ends, mt.Index+mt.Length)
		pos = mt.Index + mt.Length
		mt, err = re.FindNextMatch(mt)
	}
	if err != nil {
		t.Fatal(err)
	}
	if pos < end {
		ends = append(ends, end)
	}
	return ends
}

func gotSplit(m *model, runes []rune, start, end int) []int {
	var ends []int
	pos := start
	m.split(runes, start, end, func(ps, pe int) bool {
		if ps != pos {
			ends = append(ends, -1) // a gap or overlap: never equal to the reference
		}
		ends = append(ends, pe)
		pos = pe
		return true
	})
	return ends
}

// trickyAtoms are the pieces random texts are built from: every class the
// patterns tell apart, contractions in both cases, line-break and space mixes,
// letters outside Lu/Ll (Lt, Lm, Lo), marks, numbers outside Nd, runes whose
// lower case is ASCII, emoji with ZWJ, and invalid UTF-8.
var trickyAtoms = []string{
	"a", "b", "z", "A", "Q", "Z", "e", "E", "l", "L", "r", "R", "v", "V", "s", "S", "t", "T", "m", "M", "d", "D",
	"0", "1", "9", "'", "'s", "'S", "'t", "'T", "'re", "'RE", "'rE", "'ve", "'Ve", "'m", "'M", "'ll", "'LL", "'lL", "'d", "'D", "'x",
	" ", " ", "  ", "\t", "\r", "\n", "\r\n", " \n", "\n ", "\u00a0", "\u3000", "\u2028", "\v", "\f", "\u0085",
	".", ",", "!", "?", "-", "_", "(", ")", "{", "}", "\"", ":", ";", "/", "//", "\\", "#", "@", "$", "%", "+", "=", "<", ">", "|", "~", "`",
	"中", "文", "処理", "한", "국어", "\u0301", "\u0300", "\u20dd", "e\u0301", "\u0301a",
	"😀", "👍🏽", "👨\u200d👩\u200d👧", "\u200d", "\ufe0f", "🇺🇸",
	"ǅ", "ǈ", "ʰ", "ˇ", "ª", "º", "ß", "ſ", "K", "İ", "ı", "Σ", "σ", "ς", "Ω",
	"²", "½", "Ⅻ", "٣", "०", "𝟘", "𐒠",
	"\xff", "\xc3", "\xe4\xb8", "\x80", "\uFFFD",
	"don't", "WE'LL", "I'M", "they're", "HELLO", "Hello", "hELLO", "iPhone", "x86_64", "2026-11-30", "12345678",
}

func trickyText(r *rand.Rand) string {
	var b strings.Builder
	n := 1 + r.Intn(40)
	for range n {
		b.WriteString(trickyAtoms[r.Intn(len(trickyAtoms))])
	}
	return b.String()
}

// checkSplit compares piece boundaries with the reference over the whole of
// s and over a window of it, as the text index splits sub-ranges.
func checkSplit(t *testing.T, m *model, s string, r *rand.Rand) {
	t.Helper()
	runes := []rune(sanitize(s))
	want := refSplit(t, m.name, runes, 0, len(runes))
	if got := gotSplit(m, runes, 0, len(runes)); !slices.Equal(got, want) {
		t.Fatalf("%s split of %q:\n got %v\nwant %v", m.name, s, got, want)
	}
	if r == nil || len(runes) == 0 {
		return
	}
	start := r.Intn(len(runes))
	end := start + r.Intn(len(runes)-start+1)
	want = refSplit(t, m.name, runes, start, end)
	if got := gotSplit(m, runes, start, end); !slices.Equal(got, want) {
		t.Fatalf("%s split of %q [%d:%d]:\n got %v\nwant %v", m.name, s, start, end, got, want)
	}
}

func TestSplitMatchesRegexp(t *testing.T) {
	skipUnderRace(t)
	for _, encoding := range []string{EncodingO200k, EncodingCL100k} {
		t.Run(encoding, func(t *testing.T) {
			m, err := getModel(encoding)
			if err != nil {
				t.Fatal(err)
			}
			fixed := []string{
				"", " ", "  ", "\n", " \n ", "a  b", "a \t\nb", "x   ", "   x", "\r\n\r\n  \t", "don't", "DON'T",
				"Hello World", "HELLOworld", "ǅemal", "ʰa", "e\u0301\u0301", "\u0301", " \u0301", "a'", "'", "''s",
				"123456789", "1½²", "!!!\n\n/", " !/\n/x", "a/b//c", "中文 text", "😀😀 ok", "\xff\xfeab",
				"foo'sBar'LL", "A'S", "ſ'ſ", "K'K", "x'Re", "abc\u00a0\u00a0def",
			}
			for _, s := range fixed {
				checkSplit(t, m, s, nil)
			}
			r := rand.New(rand.NewSource(1))
			for range 20000 {
				checkSplit(t, m, trickyText(r), r)
			}
		})
	}
}

// TestCountMatchesTokenizer compares whole-text counts and tokens with
// tiktoken-go's own encoding of the same text.
func TestCountMatchesTokenizer(t *testing.T) {
	skipUnderRace(t)
	for _, encoding := range []string{EncodingO200k, EncodingCL100k} {
		t.Run(encoding, func(t *testing.T) {
			m, err := getModel(encoding)
			if err != nil {
				t.Fatal(err)
			}
			r := rand.New(rand.NewSource(2))
			for range 5000 {
				checkTiktoken(t, m, trickyText(r))
			}
		})
	}
}

func TestSplitMatchesRegexpOnRealLogs(t *testing.T) {
	skipUnderRace(t)
	root := realFixtures(t)
	var texts []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		texts = append(texts, string(b))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(texts) == 0 {
		t.Skip("no files under the real fixtures")
	}
	for _, encoding := range []string{EncodingO200k, EncodingCL100k} {
		t.Run(encoding, func(t *testing.T) {
			t.Parallel() // the slowest check of the package (regexp2 is the reference): one core per encoding
			m, err := getModel(encoding)
			if err != nil {
				t.Fatal(err)
			}
			r := rand.New(rand.NewSource(3))
			for _, s := range texts {
				checkSplit(t, m, s, r)
				for line := range strings.Lines(s) {
					if len(line) > 4096 {
						continue // EncodeOrdinary is quadratic on long pieces
					}
					checkTiktoken(t, m, line)
				}
			}
		})
	}
}

func FuzzSplit(f *testing.F) {
	r := rand.New(rand.NewSource(4))
	for range 40 {
		f.Add(trickyText(r), uint16(r.Intn(64)), uint16(r.Intn(64)))
	}
	f.Add("don't STOP'LL \n\n  x", uint16(0), uint16(100))
	models := map[string]*model{}
	for _, encoding := range []string{EncodingO200k, EncodingCL100k} {
		m, err := getModel(encoding)
		if err != nil {
			f.Fatal(err)
		}
		models[encoding] = m
	}
	f.Fuzz(func(t *testing.T, s string, a, b uint16) {
		runes := []rune(sanitize(s))
		start, end := 0, len(runes)
		if len(runes) > 0 {
			start = int(a) % (len(runes) + 1)
			end = start + int(b)%(len(runes)-start+1)
		}
		for _, m := range models {
			for _, w := range [][2]int{{0, len(runes)}, {start, end}} {
				want := refSplit(t, m.name, runes, w[0], w[1])
				if got := gotSplit(m, runes, w[0], w[1]); !slices.Equal(got, want) {
					t.Fatalf("%s split of %q [%d:%d]:\n got %v\nwant %v", m.name, s, w[0], w[1], got, want)
				}
			}
			if len(s) <= 256 { // EncodeOrdinary is quadratic in a piece's length
				checkTiktoken(t, m, s)
			}
		}
	})
}

// BenchmarkCountTokens10MB is the core's own full count of the 10 MB text:
// split, piece cache and merges (BenchmarkFullTokenization10MB is
// tiktoken-go's encoder on the same text).
func BenchmarkCountTokens10MB(b *testing.B) {
	text := benchText(10 << 20)
	warmCount(b)
	b.ReportAllocs()
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		if n, err := CountTokens(EncodingO200k, text); err != nil || n == 0 {
			b.Fatal(n, err)
		}
	}
}
