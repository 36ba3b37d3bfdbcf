package links

import (
	"fmt"
	"math/rand/v2"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"spillscope/retention"
)

// benchURIs is one million URIs of the shapes tool results carry: plain
// links, links with ordinary queries, presigned URLs, OAuth redirects,
// userinfo, fragments and the odd unparseable one.
var benchURIs = sync.OnceValue(func() []string {
	r := rand.New(rand.NewPCG(1, 2))
	out := make([]string, 1_000_000)
	for i := range out {
		out[i] = benchURI(r)
	}
	return out
})

func benchURI(r *rand.Rand) string {
	id := r.Uint64()
	switch r.IntN(10) {
	case 0:
		return fmt.Sprintf("https://bucket-%d.s3.amazonaws.com/k/%x.png?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIA%X%%2F20250101%%2Fus-east-1%%2Fs3%%2Faws4_request&X-Amz-Date=20250101T000000Z&X-Amz-Expires=900&X-Amz-SignedHeaders=host&X-Amz-Signature=%x%x", id%97, id, id, id, ^id)
	case 1:
		return fmt.Sprintf("https://www.youtube.com/watch?v=%x&t=%ds", id, id%600)
	case 2:
		return fmt.Sprintf("https://docs.example.com/guide/section-%d#heading-%d", id%50, id%9)
	case 3:
		return fmt.Sprintf("https://example.com/search?q=term%d&page=%d&utm_source=news", id%1000, id%20)
	case 4:
		return fmt.Sprintf("https://app.example.com/cb#access_token=%x&state=%x", id, ^id)
	case 5:
		return fmt.Sprintf("https://user%d:pw%x@git.example.com/repo.git", id%10, id)
	case 6:
		return fmt.Sprintf("file:///home/dev/project/out/report-%d.csv", id%1000)
	case 7:
		return fmt.Sprintf("https://github.com/org/repo/blob/main/src/file%d.go#L%d", id%300, id%900)
	case 8:
		return fmt.Sprintf("https://api.example.com/v2/items/%d?fields=name,price&sort=-created", id)
	}
	return fmt.Sprintf("https://example.com/%d/%%zz", id%100)
}

// BenchmarkClassifyURIs runs LinkLine (the credential test and the line) over
// one million URIs per iteration and reports ns/URI.
func BenchmarkClassifyURIs(b *testing.B) {
	uris := benchURIs()
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	hidden := 0
	for b.Loop() {
		for _, u := range uris {
			if !LinkLine(retention.Block{Type: retention.TypeResourceLink, URI: u, Name: "x"}).Shown {
				hidden++
			}
		}
	}
	b.ReportMetric(float64(time.Since(start).Nanoseconds())/float64(b.N*len(uris)), "ns/URI")
	if hidden == 0 {
		b.Fatal("no URI hidden")
	}
}

// BenchmarkCheckURI is the credential test alone over the same URIs.
func BenchmarkCheckURI(b *testing.B) {
	uris := benchURIs()
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	for b.Loop() {
		for _, u := range uris {
			CheckURI(u)
		}
	}
	b.ReportMetric(float64(time.Since(start).Nanoseconds())/float64(b.N*len(uris)), "ns/URI")
}

// benchMB is the size of the scanning corpus: 10 MB by default, set
// SPILLSCOPE_BENCH_MB=100 for the full figure.
func benchMB() int {
	if n, err := strconv.Atoi(os.Getenv("SPILLSCOPE_BENCH_MB")); err == nil && n > 0 {
		return n
	}
	return 10
}

var benchText = sync.OnceValue(func() string { return makeCorpus(benchMB() << 20) })

// makeCorpus writes text shaped like tool output: prose, Go code with //
// comments, JSON lines with escaped URLs, shell output and markdown, with a
// URL every few hundred bytes, some of them credential-bearing.
func makeCorpus(size int) string {
	r := rand.New(rand.NewPCG(3, 4))
	var b strings.Builder
	b.Grow(size + 4096)
	words := strings.Fields("the retention budget keeps a head and tail preview of each tool result and writes the complete output to a spill file so that the model sees only what fits while the reviewer can inspect everything that was omitted later")
	for b.Len() < size {
		u := benchURI(r)
		switch r.IntN(6) {
		case 0:
			for i := 0; i < 40; i++ {
				b.WriteString(words[r.IntN(len(words))])
				b.WriteByte(' ')
			}
			b.WriteString("See " + u + ".\n")
		case 1:
			b.WriteString("\tif err := f(ctx, x); err != nil { // handle the error path here\n\t\treturn fmt.Errorf(\"load: %w\", err)\n\t}\n")
			b.WriteString("\t// docs: " + u + "\n")
		case 2:
			esc := strings.NewReplacer("/", `\/`, "&", `\u0026`).Replace(u)
			fmt.Fprintf(&b, `{"id":%d,"name":"item-%d","url":"%s","tags":["a","b"],"ok":true}`+"\n", r.IntN(1e6), r.IntN(1e6), esc)
		case 3:
			fmt.Fprintf(&b, "$ curl -sS -o out.bin %s\n  %% Total    %% Received %% Xferd  Average Speed   Time\n100  %d  100  %d    0     0   %d      0 --:--:-- --:--:--\n", u, r.IntN(1e5), r.IntN(1e5), r.IntN(1e4))
		case 4:
			fmt.Fprintf(&b, "- [%s](%s) — %s %s %s\n", words[r.IntN(len(words))], u, words[r.IntN(len(words))], words[r.IntN(len(words))], words[r.IntN(len(words))])
		default:
			for i := 0; i < 12; i++ {
				fmt.Fprintf(&b, "2025-01-%02d 12:%02d:%02d INFO worker=%d processed batch %d in %dms\n", 1+r.IntN(28), r.IntN(60), r.IntN(60), r.IntN(8), r.IntN(1e5), r.IntN(900))
			}
		}
	}
	return b.String()
}

// BenchmarkScanText scans the corpus for credential-bearing URLs.
func BenchmarkScanText(b *testing.B) {
	text := benchText()
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	b.ResetTimer()
	n := 0
	for b.Loop() {
		n = len(ScanText(text))
	}
	if n == 0 {
		b.Fatal("nothing found")
	}
}

// BenchmarkRedact redacts the corpus, as the indexer does before full-text
// indexing.
func BenchmarkRedact(b *testing.B) {
	text := benchText()
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		Redact(text)
	}
}

// benchURLPattern is the plain regexp pass the scanner is held against: it
// finds http(s) URLs and nothing else, with no credential test at all.
var benchURLPattern = regexp.MustCompile(`https?://[^\s"'<>]+`)

// BenchmarkRegexpBaseline is that plain regexp pass over the same corpus.
// ScanText must stay within 2x of its time.
func BenchmarkRegexpBaseline(b *testing.B) {
	text := benchText()
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	b.ResetTimer()
	n := 0
	for b.Loop() {
		n = len(benchURLPattern.FindAllStringIndex(text, -1))
	}
	if n == 0 {
		b.Fatal("nothing found")
	}
}

// BenchmarkScanPathological runs the scanner over inputs built to make a
// careless scanner quadratic (runs of closers, separators, escapes, nested
// URLs). Its MB/s should stay near BenchmarkScanText's.
func BenchmarkScanPathological(b *testing.B) {
	inputs := []struct{ name, text string }{
		{"closers", "https://example.com/a" + strings.Repeat(")", 200000)},
		{"separators", strings.Repeat("https://", 100000)},
		{"slashes", strings.Repeat("/", 400000)},
		{"www", strings.Repeat("www.", 100000)},
		{"escapes", "https://example.com/" + strings.Repeat(`\u0026`, 100000)},
		{"nested", "https://a/?" + strings.Repeat("x=https://", 50000)},
		{"percent", "https://a/?" + strings.Repeat("%25", 100000)},
		{"params", "https://a/?" + strings.Repeat("a=1&", 100000)},
		{"colons", strings.Repeat("a://", 100000)},
		{"json escaped", strings.Repeat(`:\/\/`, 100000)},
	}
	for _, in := range inputs {
		b.Run(in.name, func(b *testing.B) {
			b.SetBytes(int64(len(in.text)))
			b.ReportAllocs()
			for b.Loop() {
				Redact(in.text)
				FindURLs(in.text)
			}
		})
	}
}
