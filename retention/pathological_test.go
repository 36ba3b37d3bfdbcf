package retention

import (
	"encoding/base64"
	"fmt"
	"math/rand"
	"strings"
	"testing"
)

// Pathological one-line texts, n bytes each (about n for the generated
// code): what a tool result can be when it prints a blob.
var pathologicalShapes = []struct {
	name string
	gen  func(n int) string
}{
	{"base64", func(n int) string {
		raw := make([]byte, n/4*3)
		rand.New(rand.NewSource(1)).Read(raw)
		return base64.StdEncoding.EncodeToString(raw)
	}},
	{"repeated-char", func(n int) string { return strings.Repeat("a", n) }},
	{"minified-json", minifiedJSON},
	{"minified-js", minifiedJS},
}

func minifiedJSON(n int) string {
	r := rand.New(rand.NewSource(2))
	var b strings.Builder
	b.Grow(n + 256)
	b.WriteByte('[')
	for i := 0; b.Len() < n; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"id":%d,"name":"%s_%s","tags":["%s","%s"],"score":%.4f,"ok":%t,"ref":"%x","nested":{"k%d":[%d,%d,null]}}`,
			r.Intn(1e7), randomLetters(r, 1+r.Intn(9), "abcdefghijklmnopqrstuvwxyz"), randomLetters(r, 3, "abcdef"),
			randomLetters(r, 4, "xyz"), randomLetters(r, 2, "QRST"), r.Float64(), r.Intn(2) == 0, r.Int63(),
			r.Intn(100), r.Intn(1e4), -r.Intn(1e4))
	}
	b.WriteByte(']')
	return b.String()
}

func minifiedJS(n int) string {
	r := rand.New(rand.NewSource(3))
	id := func() string {
		return randomLetters(r, 1, "abcdefghijklmnopqrstuvwxyz_$") + randomLetters(r, r.Intn(3), "abcdefghijklmnopqrstuvwxyz0123456789")
	}
	var b strings.Builder
	b.Grow(n + 256)
	for b.Len() < n {
		a, c, d := id(), id(), id()
		fmt.Fprintf(&b, `function %s(%s,%s){var %s=%s+%s*%d;if(%s>%d){return %s.toString(16)}return[%s,%s].map(function(x){return x*2}).join(",")}`,
			id(), a, c, d, a, c, r.Intn(99), d, r.Intn(1e4), d, a, c)
		fmt.Fprintf(&b, `;var %s={%s:"%s",%s:%d,%s:[%d,%d]};%s.%s=!0;`, id(), id(), randomLetters(r, 6, "abcdefgh"), id(), r.Intn(1e6), id(), r.Intn(9), r.Intn(9), id(), id())
	}
	return b.String()
}

// The core counts and tokenizes the pathological shapes exactly as
// tiktoken-go does, at
// sizes tiktoken-go finishes (its merge is quadratic in a piece's length, so
// the run of one character stays short here; TestLongRunsMatchWholeMerge
// takes runs further).
func TestPathologicalShapesMatchTiktoken(t *testing.T) {
	skipUnderRace(t)
	size := 1 << 20
	if testing.Short() {
		size = 64 << 10
	}
	for _, enc := range []string{EncodingO200k, EncodingCL100k} {
		for _, sh := range pathologicalShapes {
			t.Run(enc+"/"+sh.name, func(t *testing.T) {
				n := size
				if sh.name == "repeated-char" {
					n = longWindow + 4000 // past one window
				}
				checkTiktoken(t, mustModel(t, enc), sh.gen(n))
			})
		}
	}
}

// One 50 MB line of each shape (5 MB with -short), counted whole: the cost
// must be linear in the length (tiktoken-go takes minutes or more on the run
// of one character), within a few seconds and a window's memory.
func BenchmarkCountPathological(b *testing.B) {
	size := 50 << 20
	if testing.Short() {
		size = 5 << 20
	}
	warmCount(b)
	for _, sh := range pathologicalShapes {
		b.Run(sh.name, func(b *testing.B) {
			s := sh.gen(size)
			b.ReportAllocs()
			b.SetBytes(int64(len(s)))
			for b.Loop() {
				if n, err := CountTokens(EncodingO200k, s); err != nil || n == 0 {
					b.Fatal(n, err)
				}
			}
		})
	}
}

// warmCount counts a text with a piece of two bytes, so what the first
// count of a process builds (the vocabulary's pages, the pair ranks) stays
// out of a benchmark's timed loop.
func warmCount(b *testing.B) {
	b.Helper()
	if _, err := CountTokens(EncodingO200k, "warm up\nab"); err != nil {
		b.Fatal(err)
	}
}
