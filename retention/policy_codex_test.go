package retention

import (
	"encoding/json"
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"
)

// Cases transcribed from openai/codex's own tests (inputs and expected
// outputs as they are there):
//   - codex-rs/utils/output-truncation/src/truncate_tests.rs @ 820f85cf597b492adc6149759a22e71c72b01afa
//   - codex-rs/utils/string/src/truncate/tests.rs @ b24d7f3c9a1acadc145019747224f7312bc9b3b4

func bytesPolicy(n int64) CodexTruncation  { return CodexTruncation{Limit: n} }
func tokensPolicy(n int64) CodexTruncation { return CodexTruncation{Tokens: true, Limit: n} }

func codexAnalysis(t testing.TB, blocks ...Block) *Analysis {
	t.Helper()
	e, err := LookupEstimator(EstimatorBytes4)
	if err != nil {
		t.Fatal(err)
	}
	a, err := Analyse(Result{Content: blocks}, e, "", AnalyseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// items renders content as Codex's tests compare it: a text as itself,
// another item as "type:uri" of the original block it stands for.
func items(a *Analysis, o Outcome) []string {
	src := map[int]int{}
	for _, sp := range o.Spans {
		if sp.Block >= 0 {
			src[sp.Out] = sp.Block
		}
	}
	out := []string{}
	for i, b := range o.Content {
		if b.Type == TypeText {
			out = append(out, b.Text)
			continue
		}
		j, ok := src[i]
		if len(o.Spans) == 0 {
			j, ok = i, true
		}
		if !ok {
			out = append(out, b.Type+":?")
			continue
		}
		out = append(out, b.Type+":"+a.Result().Content[j].URI)
	}
	return out
}

func TestCodexFormattedTruncateText(t *testing.T) {
	long := "this is an example of a long output that should be truncated"
	two := long + "\nalso some other line"
	for _, tc := range []struct {
		name, in string
		p        CodexTruncation
		want     string
	}{
		{"bytes less than placeholder", "example output", bytesPolicy(1),
			"Warning: truncated output (original token count: 4)\nTotal output lines: 1\n\n…13 chars truncated…t"},
		{"tokens less than placeholder", "example output", tokensPolicy(1),
			"Warning: truncated output (original token count: 4)\nTotal output lines: 1\n\nex…3 tokens truncated…ut"},
		{"tokens under limit", "example output", tokensPolicy(10), "example output"},
		{"bytes under limit", "example output", bytesPolicy(20), "example output"},
		{"tokens over limit", long, tokensPolicy(5),
			"Warning: truncated output (original token count: 15)\nTotal output lines: 1\n\nthis is an…10 tokens truncated… truncated"},
		{"bytes over limit", long, bytesPolicy(30),
			"Warning: truncated output (original token count: 15)\nTotal output lines: 1\n\nthis is an exam…30 chars truncated…ld be truncated"},
		{"bytes line count", two, bytesPolicy(30),
			"Warning: truncated output (original token count: 21)\nTotal output lines: 2\n\nthis is an exam…51 chars truncated…some other line"},
		{"tokens line count", two, tokensPolicy(10),
			"Warning: truncated output (original token count: 21)\nTotal output lines: 2\n\nthis is an example o…11 tokens truncated…also some other line"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := CodexFormattedTruncateText(tc.in, tc.p); got != tc.want {
				t.Errorf("got  %q\nwant %q", got, tc.want)
			}
			// The policy on the same text gives the same content.
			o := codexAnalysis(t, textBlock(tc.in)).codexFormatted(tc.p)
			if got := items(nil, o); !reflect.DeepEqual(got, []string{tc.want}) {
				t.Errorf("policy gave %q", got)
			}
		})
	}
}

func TestCodexTruncateText(t *testing.T) {
	emoji := "😀😀😀😀😀😀😀😀😀😀\nsecond line with text\n"
	for _, tc := range []struct {
		name, in string
		p        CodexTruncation
		want     string
	}{
		{"bytes utf8", emoji, bytesPolicy(20), "😀😀…21 chars truncated…with text\n"},
		{"tokens utf8", emoji, tokensPolicy(8), "😀😀😀😀…8 tokens truncated… line with text\n"},
		{"tokens under limit", "short output", tokensPolicy(100), "short output"},
		{"tokens zero limit", "abcdef", tokensPolicy(0), "…2 tokens truncated…"},
		{"bytes one", "abcdefgh", bytesPolicy(1), "…7 chars truncated…h"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := CodexTruncateText(tc.in, tc.p); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestCodexSplitString(t *testing.T) {
	for _, tc := range []struct {
		s              string
		head, tail     int64
		removed        int64
		prefix, suffix string
	}{
		{"hello world", 5, 5, 1, "hello", "world"},
		{"abc", 0, 0, 3, "", ""},
		{"", 4, 4, 0, "", ""},
		{"abcdef", 3, 0, 3, "abc", ""},
		{"abcdef", 0, 3, 3, "", "def"},
		{"abcdef", 4, 4, 0, "abcd", "ef"},
		{"😀abc😀", 5, 5, 1, "😀a", "c😀"},
		{"😀😀😀😀😀", 1, 1, 5, "", ""},
		{"😀😀😀😀😀", 7, 7, 3, "😀", "😀"},
		{"😀😀😀😀😀", 8, 8, 1, "😀😀", "😀😀"},
	} {
		t.Run(tc.s, func(t *testing.T) {
			pe, ss, removed := codexSplit(tc.s, int64(len([]rune(tc.s))), tc.head, tc.tail)
			if removed != tc.removed || tc.s[:pe] != tc.prefix || tc.s[ss:] != tc.suffix {
				t.Errorf("got (%d, %q, %q), want (%d, %q, %q)", removed, tc.s[:pe], tc.s[ss:], tc.removed, tc.prefix, tc.suffix)
			}
		})
	}
}

func TestCodexContentItemsFormatted(t *testing.T) {
	img := func(uri string) Block { return Block{Type: TypeImage, URI: uri} }
	audio := Block{Type: TypeAudio, URI: "audio:one"}
	enc := Block{Type: "encrypted_content", URI: "enc_opaque"}
	for _, tc := range []struct {
		name   string
		blocks []Block
		p      CodexTruncation
		want   []string // nil: unchanged
	}{
		{"returns original under limit", []Block{textBlock("alpha"), textBlock(""), textBlock("beta")}, bytesPolicy(32), nil},
		{"empty leading text", []Block{textBlock(""), textBlock("abc")}, bytesPolicy(0),
			[]string{"Warning: truncated output (original token count: 1)\nTotal output lines: 1\n\n…3 chars truncated…"}},
		{"merges text and appends media", []Block{textBlock("abcd"), img("img:one"), textBlock("efgh"), audio, img("file_123"), textBlock("ijkl"), img("img:two")}, bytesPolicy(8),
			[]string{"Warning: truncated output (original token count: 4)\nTotal output lines: 3\n\nabcd…6 chars truncated…ijkl",
				"image:img:one", "audio:audio:one", "image:file_123", "image:img:two"}},
		{"preserves encrypted content", []Block{textBlock("abcdefgh"), enc}, bytesPolicy(2),
			[]string{"Warning: truncated output (original token count: 2)\nTotal output lines: 1\n\na…6 chars truncated…h", "encrypted_content:enc_opaque"}},
		{"merges all text for token budget", []Block{textBlock("abcdefgh"), textBlock("ijklmnop")}, tokensPolicy(2),
			[]string{"Warning: truncated output (original token count: 5)\nTotal output lines: 2\n\nabcd…3 tokens truncated…mnop"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := codexAnalysis(t, tc.blocks...)
			o := a.codexFormatted(tc.p)
			if tc.want == nil {
				if o.Status != StatusWithinBudget || !reflect.DeepEqual(o.Content, tc.blocks) {
					t.Fatalf("status %s, content %+v; want the items unchanged", o.Status, o.Content)
				}
				return
			}
			if got := items(a, o); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got  %q\nwant %q", got, tc.want)
			}
		})
	}
}

func TestCodexContentItemsHistory(t *testing.T) {
	chunk := "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho sigma tau upsilon phi chi psi omega.\n"
	one := func(Block) int64 { return 1 }
	zero := func(Block) int64 { return 0 }
	audio := Block{Type: TypeAudio, URI: "audio:one"}
	enc := Block{Type: "encrypted_content", URI: "enc_opaque"}
	t.Run("truncates across multiple under-limit texts", func(t *testing.T) {
		limit := int64(ceilDiv4(len(chunk))) * 3
		a := codexAnalysis(t, textBlock(chunk), textBlock(chunk), Block{Type: TypeImage, URI: "img:mid"},
			textBlock(strings.Repeat(chunk, 10)), textBlock(chunk), textBlock(chunk))
		got := items(a, a.codexItems(tokensPolicy(limit), zero))
		if len(got) != 5 || got[0] != chunk || got[1] != chunk || got[2] != "image:img:mid" ||
			!strings.Contains(got[3], "tokens truncated") || !strings.Contains(got[4], "omitted 2 text items") {
			t.Fatalf("got %q", got)
		}
	})
	t.Run("discards empty text", func(t *testing.T) {
		empties := make([]Block, 16384)
		for i := range empties {
			empties[i] = textBlock("")
		}
		for _, p := range []CodexTruncation{bytesPolicy(0), tokensPolicy(1)} {
			a := codexAnalysis(t, empties...)
			if got := items(a, a.codexItems(p, zero)); len(got) != 0 {
				t.Fatalf("%s: got %d items", p, len(got))
			}
		}
		content := []Block{textBlock("caption"), {Type: TypeImage, URI: "img:one"}, {Type: TypeImage, URI: "file_123"}, audio, enc}
		want := []string{"caption", "image:img:one", "image:file_123", "audio:audio:one", "encrypted_content:enc_opaque"}
		for _, p := range []CodexTruncation{bytesPolicy(16), tokensPolicy(4)} {
			a := codexAnalysis(t, append(append([]Block{}, empties...), content...)...)
			if got := items(a, a.codexItems(p, one)); !reflect.DeepEqual(got, want) {
				t.Fatalf("%s: got %q", p, got)
			}
		}
	})
	t.Run("omits audio over budget", func(t *testing.T) {
		a := codexAnalysis(t, textBlock("abcdefgh"), enc, audio)
		got := items(a, a.codexItems(bytesPolicy(2), one))
		want := []string{"a…6 chars truncated…h", "encrypted_content:enc_opaque", "[omitted 1 audio items ...]"}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("got %q, want %q", got, want)
		}
	})
	t.Run("charges audio against byte budget", func(t *testing.T) {
		a := codexAnalysis(t, audio, textBlock("abcdefgh"))
		got := items(a, a.codexItems(bytesPolicy(5), one))
		want := []string{"audio:audio:one", CodexTruncateText("abcdefgh", bytesPolicy(1))}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("got %q, want %q", got, want)
		}
	})
}

// truncate_mcp_tool_result's two tests. Spillscope's Result has no
// structuredContent or _meta (the second test's "meta-tail" check has no
// counterpart); the preview still ends with the serialisation's tail.
func TestCodexMCP(t *testing.T) {
	small := codexAnalysis(t, textBlock("hello"))
	if o := small.codexMCP(bytesPolicy(1024)); o.Status != StatusWithinBudget {
		t.Fatalf("small result: %s", o.Status)
	}
	res := Result{Content: []Block{mustBlock(t, `{"type":"text","text":"head\n`+strings.Repeat("x", 5000)+`\ntail"}`)}, IsError: true}
	e, _ := LookupEstimator(EstimatorBytes4)
	a, _ := Analyse(res, e, "", AnalyseOptions{})
	o := a.codexMCP(bytesPolicy(1024))
	if len(o.Content) != 1 || o.Content[0].Type != TypeText {
		t.Fatalf("content %+v", o.Content)
	}
	preview := o.Content[0].Text
	if len(preview) >= 2*1024 || !strings.HasPrefix(preview, `{"content":[{"type":"text","text":"head\n`) ||
		!strings.Contains(preview, "chars truncated") || !strings.HasSuffix(preview, `\ntail"}],"isError":true}`) {
		t.Fatalf("preview %q", preview)
	}
}

func mustBlock(t testing.TB, raw string) Block {
	t.Helper()
	b, err := ParseBlock(json.RawMessage(raw))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The serialisation allowance: ceil(n x 1.2) in f64, which for every n up to
// 200,000 is ceil(6n/5), as codex.md states.
func TestCodexSerializationAllowance(t *testing.T) {
	for n := int64(0); n <= 200000; n++ {
		got := tokensPolicy(n).WithSerializationAllowance().Limit
		if want := (6*n + 4) / 5; got != want {
			t.Fatalf("%d: %d, want %d", n, got, want)
		}
	}
	if got := tokensPolicy(10000).WithSerializationAllowance(); got != tokensPolicy(12000) {
		t.Fatalf("Tokens(10000) x 1.2 = %s", got)
	}
	if math.Ceil(float64(MaxBudget)*1.2) < float64(MaxBudget) {
		t.Fatal("overflow")
	}
}

// Parameters: the model picks the catalogue default, mode and limit
// override it, tool_output_token_limit follows the model's mode, history
// adds the allowance.
func TestCodexParams(t *testing.T) {
	info := mustPolicy(t, "codex").Info()
	for _, tc := range []struct {
		params Params
		want   CodexTruncation
	}{
		{Params{"limit": ParamOff}, tokensPolicy(10000)},
		{Params{"limit": ParamOff, "model": "gpt-5.2"}, bytesPolicy(10000)},
		{Params{"limit": ParamOff, "model": CodexOtherModel}, bytesPolicy(10000)},
		{Params{"limit": "4000", "mode": "bytes"}, bytesPolicy(4000)},
		{Params{"limit": ParamOff, "tool_output_token_limit": "123"}, tokensPolicy(123)},
		{Params{"limit": ParamOff, "model": "gpt-5.2", "tool_output_token_limit": "123"}, bytesPolicy(492)},
		{Params{"history": "true"}, tokensPolicy(12000)},
		{Params{"limit": "7", "mode": "bytes", "history": "true"}, bytesPolicy(9)},
	} {
		s, err := info.Resolve(tc.params)
		if err != nil {
			t.Fatalf("%v: %v", tc.params, err)
		}
		if got, how := CodexPolicyFor(s); got != tc.want {
			t.Errorf("%v: %s (%s), want %s", tc.params, got, how, tc.want)
		}
	}
	for _, bad := range []Params{
		{"limit": "-1"}, {"limit": "1.5"}, {"mode": "chars"}, {"model": "gpt-9"}, {"history": "yes"},
		{"limit": "10", "tool_output_token_limit": "10"}, {"max_bytes": "1"},
	} {
		if _, err := info.Resolve(bad); !errors.Is(err, ErrParam) {
			t.Errorf("%v: error %v, want ErrParam", bad, err)
		}
	}
}
