package sessions

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"spillscope/internal/jsontext"
	"spillscope/retention"
)

func lineSeeds(f *testing.F, extra ...string) {
	for _, s := range extra {
		f.Add([]byte(s))
	}
	for _, s := range []string{"", "{}", "[]", "//x", `{"type":"user"`, `{"a":"\"}`, `{"a":[}`, "null", `{"type":1}`} {
		f.Add([]byte(s))
	}
}

// checkLine holds for every reader: no panic, results point at the line,
// and a line encoding/json calls a valid object is never reported as
// malformed (the scanner must not be stricter than JSON).
func checkLine(t *testing.T, data []byte, read func(Line, *Parsed)) {
	p := &Parsed{}
	l := Line{Bytes: data, Offset: 10, Length: int64(len(data)) + 1, Number: 3, Complete: true}
	read(l, p)
	for _, r := range p.Results {
		if r.Offset != 10 || r.Line != 3 {
			t.Fatalf("result points at %d line %d", r.Offset, r.Line)
		}
		if r.TextBytes < 0 || r.Images < 0 {
			t.Fatalf("negative sizes %+v", r)
		}
	}
	var obj map[string]any
	if json.Unmarshal(data, &obj) == nil && obj != nil {
		for _, d := range p.Diags {
			if strings.HasPrefix(d.Message, "not a JSON object") {
				t.Fatalf("valid JSON object reported malformed: %q", data)
			}
		}
	}
}

func FuzzClaudeLine(f *testing.F) {
	lineSeeds(f, cAssistant("s", "m", "r", "t1", "Bash", 1), cResult("s", "t1", "x"),
		cResult("s", "t1", []any{map[string]any{"type": "text", "text": "a"}, map[string]any{"type": "image", "source": map[string]any{"data": "AAAA", "media_type": "image/png"}}}),
		cProgressCopy("s", "t1"),
		`{"type":"system","subtype":"compact_boundary","sessionId":"s","compactMetadata":{"trigger":"auto","preTokens":5}}`,
		`{"type":"system","subtype":"api_error","sessionId":"s","error":{"status":529}}`,
		`{"type":"custom-title","customTitle":"x","sessionId":"s"}`, `{"type":"ai-title","aiTitle":"y","sessionId":"s"}`,
		`{"type":"user","sessionId":"s","isCompactSummary":true,"message":{"role":"user","content":"s"}}`,
		cResult("s", "t1", []any{map[string]any{"type": "tool_reference", "tool_name": "x"}, map[string]any{"type": "hologram"}}))
	f.Fuzz(func(t *testing.T, data []byte) {
		c := &ClaudeReader{}
		checkLine(t, data, c.ReadLine)
		checkCalls(t, data, c.ReadLine)
	})
}

// checkCalls holds for every line reader: calls, compactions and events
// point at the line they were read from.
func checkCalls(t *testing.T, data []byte, read func(Line, *Parsed)) {
	p := &Parsed{}
	read(Line{Bytes: data, Offset: 0, Length: int64(len(data)) + 1, Number: 4, Complete: true}, p)
	for _, c := range p.ModelCalls {
		if c.Line != 4 || c.Key == "" {
			t.Fatalf("call %+v", c)
		}
	}
	for _, c := range p.Compactions {
		if c.Line != 4 || (c.EndLine != 0 && c.EndLine != 4) {
			t.Fatalf("compaction %+v", c)
		}
	}
	for _, e := range p.Events {
		if e.Line != 4 || e.Kind == "" {
			t.Fatalf("event %+v", e)
		}
	}
}

func FuzzCodexLine(f *testing.F) {
	lineSeeds(f,
		`{"timestamp":"t","type":"response_item","payload":{"type":"function_call_output","call_id":"c","output":"ok"}}`,
		`{"timestamp":"t","type":"response_item","payload":{"type":"function_call_output","call_id":"c","output":[{"type":"input_image","image_url":"data:image/png;base64,AAAA"}]}}`,
		`{"timestamp":"t","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":5,"cached_input_tokens":9}}}}`,
		`{"timestamp":"t","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":5},"last_token_usage":{"input_tokens":5},"model_context_window":9}}}`,
		`{"timestamp":"t","type":"compacted","payload":{"message":"","replacement_history":[]}}`,
		`{"timestamp":"t","type":"event_msg","payload":{"type":"context_compacted"}}`,
		`{"timestamp":"t","type":"event_msg","payload":{"type":"turn_aborted","reason":"interrupted"}}`,
		`{"timestamp":"t","type":"event_msg","payload":{"type":"exec_command_end","call_id":"c","aggregated_output":"x"}}`,
		`{"timestamp":"t","type":"response_item","payload":{"type":"holo"}}`)
	f.Fuzz(func(t *testing.T, data []byte) {
		c := &CodexReader{}
		checkLine(t, data, c.ReadLine)
		checkCalls(t, data, c.ReadLine)
	})
}

// FuzzGeminiLines: a JSONL recording of any bytes never panics; every
// result's span reads back as its call, every record's line is a line of
// the file.
func FuzzGeminiLines(f *testing.F) {
	f.Add([]byte(gHeader("g", "main") + gUser("u", "a") + gModel("m", "t", 3, 1, 1, 1) + gModel("m", "t", 3, 1, 1, 1, "c1")))
	f.Add([]byte(gHeader("g", "main") + gModel("m", "t", 3, 1, 1, 1, "c1") + `{"$rewindTo":"m"}` + "\n"))
	f.Add([]byte(gSet(map[string]any{"messages": []any{map[string]any{"id": "m", "toolCalls": gCalls("c")}}})))
	f.Add([]byte(`{"$set":[]}` + "\n" + `{"id":1}` + "\n{\n"))
	f.Fuzz(func(t *testing.T, doc []byte) {
		p := &Parsed{}
		ReadGeminiLines(doc, p)
		lines := int64(bytes.Count(doc, []byte("\n")) + 1)
		for _, r := range p.Results {
			if r.Offset < 0 || r.Offset+r.Length > int64(len(doc)) || r.Line < 1 || r.Line > lines {
				t.Fatalf("result span %d+%d line %d outside a %d-byte doc", r.Offset, r.Length, r.Line, len(doc))
			}
			back, _, _, _ := geminiCall(doc[r.Offset : r.Offset+r.Length])
			if back.CallID != r.CallID {
				t.Fatalf("span does not read back: %+v vs %+v", back, r)
			}
		}
		for _, c := range p.ModelCalls {
			if c.Line < 1 || c.Line > lines {
				t.Fatalf("call %+v outside %d lines", c, lines)
			}
		}
	})
}

func FuzzGeminiDoc(f *testing.F) {
	f.Add([]byte(`{"sessionId":"s","messages":[{"id":"m","tokens":{"input":3,"cached":1},"toolCalls":[{"id":"c","name":"n","status":"error","result":[{"functionResponse":{"response":{"output":"x"}}}]}]}]}`))
	f.Add([]byte(`{"messages":[{"toolCalls":[{"id":"c","result":[{"inlineData":{"mimeType":"image/png","data":"AA"}}]}]}]}`))
	f.Add([]byte(`{"messages":`))
	f.Fuzz(func(t *testing.T, doc []byte) {
		p := &Parsed{}
		ReadGeminiDoc(doc, p)
		for _, r := range p.Results {
			if r.Offset < 0 || r.Offset+r.Length > int64(len(doc)) || r.Line < 1 {
				t.Fatalf("result span %d+%d line %d outside a %d-byte doc", r.Offset, r.Length, r.Line, len(doc))
			}
			back, _, _, _ := geminiCall(doc[r.Offset : r.Offset+r.Length])
			if back.CallID != r.CallID || len(back.Blocks) != len(r.Blocks) {
				t.Fatalf("span does not read back: %+v vs %+v", back, r)
			}
		}
	})
}

func FuzzNotice(f *testing.F) {
	for _, s := range []string{
		"<persisted-output>\nOutput too large (1KB). Full output saved to: /a/b.txt\n</persisted-output>",
		"(Omitted 5 bytes. Full formatted result stored at: /d/x.txt. Use read with offset/limit, or grep this path to search within it.)",
		"The tool call succeeded but the output was truncated. Full output saved to: /x",
		"For full output see: ", "is stored in the file which you can use other tools to examine or search in: /p",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		n, ok := RecogniseSpill(text)
		if !ok {
			return
		}
		if n.Path == "" || strings.ContainsAny(n.Path, "\n") || !strings.Contains(text, n.Path) {
			t.Fatalf("bad path %q from %q", n.Path, text)
		}
	})
}

func FuzzLineReader(f *testing.F) {
	f.Add([]byte("a\nb\r\n\nc"), uint8(3))
	f.Fuzz(func(t *testing.T, data []byte, chunk uint8) {
		lr := NewLineReader(&chunked{data: data, n: int(chunk%16) + 1}, 0, 1)
		var total int64
		for {
			l, err := lr.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			if l.Offset != total {
				t.Fatalf("offset %d, want %d", l.Offset, total)
			}
			total += l.Length
		}
		if total != int64(len(data)) {
			t.Fatalf("lines cover %d of %d bytes", total, len(data))
		}
	})
}

// chunked returns at most n bytes per Read, to exercise refills.
type chunked struct {
	data []byte
	n    int
}

func (c *chunked) Read(p []byte) (int, error) {
	if len(c.data) == 0 {
		return 0, io.EOF
	}
	k := min(len(p), c.n, len(c.data))
	copy(p, c.data[:k])
	c.data = c.data[k:]
	return k, nil
}

// FuzzDetect: detection reads the first bytes of any file under a root; it
// never panics, and a harness claims a .jsonl file only on its own shape.
func FuzzDetect(f *testing.F) {
	f.Add([]byte(cResult("s", "t", "x")))
	f.Add([]byte(`{"timestamp":"t","type":"session_meta","payload":{"id":"x"}}` + "\n"))
	f.Add([]byte(`{"type":"session","version":0,"id":"s","createdAt":1,"delegationDepth":0}` + "\n"))
	f.Add([]byte("// x\n{\"type\":\"user\"\n"))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(dir, "x.jsonl")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		h := detect(&Probe{Path: p})
		if h != "" && h != HarnessClaude && h != HarnessCodex {
			t.Fatalf("%q claimed a .jsonl file outside its layout", h)
		}
		if h == HarnessClaude && !strings.Contains(string(data), `"type"`) {
			t.Fatalf("claimed as Claude without a type: %q", data)
		}
	})
}

// A user or assistant message and a toolUseResult walked where the line's
// walk meets them (walkUserMessage, walkAssistantMessage,
// walkToolUseResult) give what reading the skipped value again gives
// (field, eachField, eachItem, claudeItemOf, claudeUseOf), and end where
// SkipValue ends, on any input.
func FuzzClaudeWalks(f *testing.F) {
	for _, s := range []string{
		`{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"a\"b","is_error":true}]}`,
		`{"content":"plain","content":[{"type":"tool_result"}]}`,
		`{"content":[{"type":"text","type":"tool_result","content":[{"type":"text","text":"x"}]},"s",{"a" 1}]}`,
		`{"content":[{"type":"tool_result"}],"x":{"a" 1}}`,
		`{"persistedOutputPath":"/tmp/a.txt","persistedOutputPath":"/b","stdout":"\"persistedOutputPath\""}`,
		`{"file":{"persistedOutputPath":"/x"}}`, `"\"persistedOutputPath\""`, `[1,2]`,
		`{"id":"m","model":"x","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"c":"a\"b"}},{"type":"text","text":"t"}],"usage":{"input_tokens":1}}`,
		`{"content":[{"type":"text","type":"tool_use","id":"a","id":"b"}],"content":"s"}`, `{"content":["s"]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) == 0 || jsontext.SkipSpace(b, 0) != 0 {
			// A member's value starts past the whitespace before it.
			return
		}
		se, sok := jsontext.SkipValue(b, 0)
		ve, items, walked, ok := walkUserMessage(b, 0, nil)
		if ok != sok || (ok && ve != se) {
			t.Fatalf("walkUserMessage(%q) ended at %d (%v), SkipValue at %d (%v)", b, ve, ok, se, sok)
		}
		if ok && walked {
			var want []claudeItem
			if content, fok := field(b[:ve], "content"); fok && len(content) > 0 && content[0] == '[' {
				if _, err := eachItem(content, 0, func(idx, vs, ve int) bool {
					want = append(want, claudeItemOf(content[vs:ve], idx))
					return true
				}); err != nil {
					t.Fatalf("walked %q whole, eachItem: %v", b, err)
				}
			}
			if len(items) != len(want) {
				t.Fatalf("%q: walked %d items, read %d", b, len(items), len(want))
			}
			for i := range want {
				g, w := items[i], want[i]
				if g.idx != w.idx || g.typ != w.typ || g.callID != w.callID || g.isErr != w.isErr || !bytes.Equal(g.inner, w.inner) ||
					(len(w.inner) > 0 && &g.inner[0] != &w.inner[0]) {
					t.Fatalf("%q item %d: walked %+v, read %+v", b, i, g, w)
				}
			}
		}
		ave, m, ok := walkAssistantMessage(b, 0, nil)
		if ok != sok || (ok && ave != se) {
			t.Fatalf("walkAssistantMessage(%q) ended at %d (%v), SkipValue at %d (%v)", b, ave, ok, se, sok)
		}
		if ok && m.walked {
			var w claudeReply
			if _, _, err := eachField(b[:ave], 0, func(k []byte, vs, ve int) bool {
				w.set(k, b[vs:ve])
				return true
			}); err != nil {
				t.Fatalf("walked %q whole, eachField: %v", b, err)
			}
			if m.id != w.id || m.model != w.model || !bytes.Equal(m.content, w.content) || !bytes.Equal(m.usage, w.usage) {
				t.Fatalf("%q: walked %+v, read %+v", b, m, w)
			}
			if len(w.content) > 0 && w.content[0] == '[' {
				if _, err := eachItem(w.content, 0, func(_, vs, ve int) bool {
					if u, ok := claudeUseOf(w.content[vs:ve]); ok {
						w.uses = append(w.uses, u)
					}
					return true
				}); err != nil {
					t.Fatalf("walked %q whole, eachItem: %v", b, err)
				}
				if len(m.uses) != len(w.uses) {
					t.Fatalf("%q: walked %v, read %v", b, m.uses, w.uses)
				}
				for i := range w.uses {
					if m.uses[i] != w.uses[i] {
						t.Fatalf("%q: walked %v, read %v", b, m.uses, w.uses)
					}
				}
			}
		}
		ve, path, has, walked, ok := walkToolUseResult(b, 0)
		if ok != sok || (ok && ve != se) {
			t.Fatalf("walkToolUseResult(%q) ended at %d (%v), SkipValue at %d (%v)", b, ve, ok, se, sok)
		}
		if ok && walked {
			var wpath []byte
			var whas bool
			if bytes.Contains(b[:ve], []byte(`"persistedOutputPath"`)) {
				wpath, whas = field(b[:ve], "persistedOutputPath")
			}
			if has != whas || !bytes.Equal(path, wpath) {
				t.Fatalf("%q: walked %q %v, read %q %v", b, path, has, wpath, whas)
			}
		}
	})
}

// claudeBlocksSkipping is claudeBlocks as it read a content array before
// its blocks were walked once: each block skipped whole, then walked for
// its members. FuzzClaudeBlocks holds the two equal.
func claudeBlocksSkipping(v []byte, owned bool, kept *[]checkedImage) (blocks []retention.Block, problems []string, imgs []badImage) {
	if len(v) == 0 || string(v) == "null" {
		return nil, nil, nil
	}
	if v[0] == '"' {
		s, ok := strIn(v, owned)
		if !ok {
			return nil, []string{"content string does not decode"}, nil
		}
		return []retention.Block{{Type: retention.TypeText, Text: s}}, nil, nil
	}
	if v[0] != '[' {
		return nil, []string{"content is neither a string nor an array"}, nil
	}
	_, err := eachItem(v, 0, func(i, vs, ve int) bool {
		it := v[vs:ve]
		var typ string
		var text, source []byte
		eachField(it, 0, func(k []byte, vs, ve int) bool {
			switch string(k) {
			case "type":
				typ, _ = str(it[vs:ve])
			case "text":
				text = it[vs:ve]
			case "source":
				source = it[vs:ve]
			}
			return true
		})
		switch typ {
		case "text":
			// Decoded once the type is known: another type's block is
			// parsed from its raw bytes below, which must stay intact.
			t, _ := strIn(text, owned)
			blocks = append(blocks, retention.Block{Type: retention.TypeText, Text: t})
		case "image":
			var mime, data string
			if source != nil {
				eachField(source, 0, func(k []byte, vs, ve int) bool {
					switch string(k) {
					case "media_type":
						mime, _ = str(source[vs:ve])
					case "data":
						data, _ = strIn(source[vs:ve], owned)
					}
					return true
				})
			}
			if data == "" {
				problems = append(problems, fmt.Sprintf("image block %d has no base64 data", i))
				blocks = append(blocks, retention.Block{Type: retention.TypeImage, MimeType: mime})
				return true
			}
			b, why, img := checkImage(mime, data)
			if why != "" {
				imgs = append(imgs, badImage{i, why})
			}
			if img.bp != nil {
				img.block = len(blocks)
				*kept = append(*kept, img)
			}
			blocks = append(blocks, b)
		default:
			b, err := retention.ParseBlock(json.RawMessage(it))
			if err != nil {
				problems = append(problems, fmt.Sprintf("block %d: %v", i, err))
				b = retention.Block{Type: "invalid", Raw: append(json.RawMessage(nil), it...)}
			}
			blocks = append(blocks, b)
		}
		return true
	})
	if err != nil {
		problems = append(problems, "content array is malformed")
	}
	return blocks, problems, imgs
}

// FuzzClaudeBlocks: claudeBlocks reads any content as it read it before its array's blocks
// were walked once (claudeBlocksSkipping), in place or not.
func FuzzClaudeBlocks(f *testing.F) {
	for _, s := range []string{`"x"`, `[{"type":"text","text":"a\"b"},{"type":"image","source":{"media_type":"image/png","data":"AAAA"}}]`,
		`[{"type":"text","text":"a","type":"hologram"},"s",{"a" 1},{"type":"tool_reference","tool_name":"x"}]`,
		`[{"type":"image","source":{"data":""}},{"type":"text"}]`, `[{"type":"text","text":"x"} {}]`, `{"a":1}`, `null`} {
		f.Add([]byte(s), false)
		f.Add([]byte(s), true)
	}
	f.Fuzz(func(t *testing.T, in []byte, owned bool) {
		if len(in) == 0 || jsontext.SkipSpace(in, 0) != 0 {
			return
		}
		var keptA, keptB []checkedImage
		a, pa, ia := claudeBlocks(bytes.Clone(in), owned, &keptA)
		b, pb, ib := claudeBlocksSkipping(bytes.Clone(in), owned, &keptB)
		if !reflect.DeepEqual(a, b) || !reflect.DeepEqual(pa, pb) || !reflect.DeepEqual(ia, ib) || len(keptA) != len(keptB) {
			t.Fatalf("%q: walked %+v %q %v (%d kept), skipped %+v %q %v (%d kept)", in, a, pa, ia, len(keptA), b, pb, ib, len(keptB))
		}
		for i := range keptA {
			if keptA[i].block != keptB[i].block || !bytes.Equal(keptA[i].bytes, keptB[i].bytes) {
				t.Fatalf("%q: kept image %d differs", in, i)
			}
			keptA[i].release()
			keptB[i].release()
		}
	})
}
