package retention

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"strings"
	"sync"
	"testing"

	"github.com/pkoukk/tiktoken-go"
	tiktoken_loader "github.com/pkoukk/tiktoken-go-loader"

	"spillscope/retention/internal/vocab"
)

var (
	benchMu    sync.Mutex
	benchTexts = map[int]string{}
)

// benchText is a deterministic tool-output-like text of n bytes: log lines,
// JSON fragments, prose and a little CJK.
func benchText(n int) string {
	benchMu.Lock()
	defer benchMu.Unlock()
	if s, ok := benchTexts[n]; ok {
		return s
	}
	r := rand.New(rand.NewSource(int64(n)))
	words := strings.Fields("the request handler returned status for item user cache miss retry timeout connection pool worker queue")
	var b strings.Builder
	b.Grow(n + 256)
	for i := 0; b.Len() < n; i++ {
		switch r.Intn(5) {
		case 0, 1:
			fmt.Fprintf(&b, "2026-11-30T12:%02d:%02d.%03dZ INFO worker-%d processed item %d in %dms path=/var/lib/app/data/%x.json\n",
				r.Intn(60), r.Intn(60), r.Intn(1000), r.Intn(16), r.Intn(1e6), r.Intn(900), r.Int63())
		case 2:
			fmt.Fprintf(&b, `{"id": %d, "name": "%s_%s", "tags": ["%s", "%s"], "score": %.3f}`+"\n",
				r.Intn(1e5), words[r.Intn(len(words))], words[r.Intn(len(words))], words[r.Intn(len(words))], words[r.Intn(len(words))], r.Float64())
		case 3:
			for j := 0; j < 12; j++ {
				b.WriteString(words[r.Intn(len(words))])
				b.WriteByte(' ')
			}
			b.WriteString("done.\n")
		default:
			b.WriteString("    at com.example.Service.handle(Service.java:" + fmt.Sprint(r.Intn(900)) + ") 处理请求失败\n")
		}
	}
	s := b.String()[:n]
	s = strings.ToValidUTF8(s, "")
	benchTexts[n] = s
	return s
}

func benchRetain(b *testing.B, size int) {
	res := Result{Content: []Block{textBlock(benchText(size))}}
	bud := int64(12500)
	opts := Options{Budget: &bud, SpillPath: "/spill/bench.txt"}
	if _, err := Retain(res, opts); err != nil { // vocabulary load outside the timer
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.SetBytes(int64(size))
	b.ResetTimer()
	for b.Loop() {
		o, err := Retain(res, opts)
		if err != nil || o.Status != StatusReplaced {
			b.Fatalf("%v %s", err, o.Status)
		}
	}
}

// Retain at the shipped budget must cost about the same on 10 MB as on
// 100 KB: only the ends are tokenized.
func BenchmarkRetain10MB(b *testing.B)  { benchRetain(b, 10<<20) }
func BenchmarkRetain100KB(b *testing.B) { benchRetain(b, 100<<10) }

// One full tokenization of the 10 MB text, the yardstick for the sweep.
func BenchmarkFullTokenization10MB(b *testing.B) {
	text := benchText(10 << 20)
	enc, err := Encoder(EncodingO200k)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.SetBytes(int64(len(text)))
	b.ResetTimer()
	for b.Loop() {
		if len(enc.EncodeOrdinary(text)) == 0 {
			b.Fatal("no tokens")
		}
	}
}

// A 100-budget sweep (125, 250, ... 12,500 tokens) of a 10 MB result.
func BenchmarkSweep100Budgets10MB(b *testing.B) {
	res := Result{Content: []Block{textBlock(benchText(10 << 20))}}
	budgets := make([]int64, 100)
	for i := range budgets {
		budgets[i] = int64(125 * (i + 1))
	}
	opts := Options{SpillPath: "/spill/bench.txt"}
	if _, err := Sweep(res, budgets[:1], opts); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		outs, err := Sweep(res, budgets, opts)
		if err != nil || len(outs) != 100 {
			b.Fatal(err)
		}
	}
}

// The first use of an encoding by the core: opening its table prepared at
// build time and the model around it (what a process that counts once pays).
func BenchmarkVocabularyLoad(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		tab, err := vocab.Open(vocab.Embedded(EncodingO200k))
		if err != nil || tab.Ranks() == 0 {
			b.Fatal(err)
		}
		if _, err := newModel(EncodingO200k); err != nil {
			b.Fatal(err)
		}
	}
}

// tiktoken-go's own vocabulary load (what Encoder pays once, and what every
// count paid before the tables were prepared at build time), for comparison.
func BenchmarkTiktokenVocabularyLoad(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		ranks, err := tiktoken_loader.NewOfflineLoader().LoadTiktokenBpe("o200k_base.tiktoken")
		if err != nil {
			b.Fatal(err)
		}
		if _, err := tiktoken.NewCoreBPE(ranks, map[string]int{"<|endoftext|>": 199999}, patterns[EncodingO200k]); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEncoderCached(b *testing.B) {
	if _, err := getModel(EncodingO200k); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := getModel(EncodingO200k); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkRecogniseNotice(b *testing.B) {
	text := benchText(1<<20) + "\n\n" + FormatSpillNotice(ExactOmission(123456), SpillRef{Locator: "/spill/s/x.txt"}, 2)
	b.ReportAllocs()
	for b.Loop() {
		if _, ok := RecogniseNotice(text); !ok {
			b.Fatal("not recognised")
		}
	}
}

func TestEncoderLoadedOnce(t *testing.T) {
	a, err := Encoder("")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Encoder(EncodingO200k)
	m1, _ := getModel("")
	m2, _ := getModel(EncodingO200k)
	if a != b || m1 != m2 {
		t.Fatal("the tokenizer was loaded more than once")
	}
}

// benchParse reads a 10 MB text result as `spillscope retain` does (in
// place) and as the window does with pasted JSON (by copy), against
// encoding/json's path.
func benchParse(b *testing.B, parse func([]byte) (Result, error)) {
	in, err := json.Marshal(Result{Content: []Block{textBlock(benchText(10 << 20))}})
	if err != nil {
		b.Fatal(err)
	}
	buf := make([]byte, len(in))
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		copy(buf, in)
		res, err := parse(buf)
		if err != nil || len(res.Content) != 1 {
			b.Fatal(err)
		}
	}
}

func BenchmarkParseResultInPlace10MB(b *testing.B) { benchParse(b, ParseResultInPlace) }
func BenchmarkParseResult10MB(b *testing.B)        { benchParse(b, ParseResult) }
func BenchmarkParseResultEncodingJSON10MB(b *testing.B) {
	benchParse(b, parseSlow)
}
