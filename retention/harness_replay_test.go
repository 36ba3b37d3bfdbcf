package retention

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Replays of the shared real logs. The recorded tool outputs are what the
// model saw; for each, the harness's own policy at its shipped settings must
// say what the harness did: leave it whole (none of these logs holds an
// output the harness cut, so the policy must leave every one as recorded),
// pass the self-truncating tools through, and a recogniser must find a
// notice exactly where the harness wrote one.

// openCodePart is a tool part of an `opencode export` document.
type openCodePart struct {
	Type  string `json:"type"`
	Tool  string `json:"tool"`
	State struct {
		Status   string         `json:"status"`
		Output   string         `json:"output"`
		Metadata map[string]any `json:"metadata"`
	} `json:"state"`
}

// openCodeParts reads the tool parts of an `opencode export` document.
func openCodeParts(t *testing.T, path string) []openCodePart {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Messages []struct {
			Parts []openCodePart `json:"parts"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	var out []openCodePart
	for _, m := range doc.Messages {
		for _, p := range m.Parts {
			if p.Type == "tool" {
				out = append(out, p)
			}
		}
	}
	return out
}

func TestReplayOpenCodeExport(t *testing.T) {
	root := realFixtures(t)
	files, _ := filepath.Glob(filepath.Join(root, "opencode", "export", "*.json"))
	if len(files) == 0 {
		t.Skip("no opencode export fixture")
	}
	seen := map[string]int{}
	for _, f := range files {
		for i, p := range openCodeParts(t, f) {
			if p.State.Status != "completed" {
				continue
			}
			out := p.State.Output
			truncated, _ := p.State.Metadata["truncated"].(bool)
			o := decideOwn(t, "opencode", nil, p.Tool, "", textBlock(out))
			r, recognised := RecogniseOpenCodeTruncation(out)
			switch {
			case recognised:
				// A recorded cut: the metadata names the same file and the
				// kept part is within the shipped limits.
				if path, _ := p.State.Metadata["outputPath"].(string); path != r.Path || !truncated {
					t.Errorf("%s part %d: notice names %q, metadata %v", filepath.Base(f), i, r.Path, p.State.Metadata)
				}
				if len(r.Preview) > OpenCodeMaxBytes || strings.Count(r.Preview, "\n")+1 > OpenCodeMaxLines {
					t.Errorf("%s part %d: a recorded preview over the limits", filepath.Base(f), i)
				}
				seen["recognised"]++
			case p.Tool == "read":
				// read pages itself (metadata.truncated set either way) and
				// skips the generic truncation: the policy passes it.
				if o.Status != StatusPassThrough || textOf(o.Content) != out {
					t.Errorf("%s part %d: read output %s", filepath.Base(f), i, o.Status)
				}
				if truncated && !strings.Contains(out, "Use offset=") {
					t.Errorf("%s part %d: a truncated read without its own paging note", filepath.Base(f), i)
				}
				seen["read"]++
			default:
				// Recorded whole: the policy at shipped limits keeps it whole.
				if o.Status != StatusWithinBudget && o.Status != StatusPassThrough || textOf(o.Content) != out {
					t.Errorf("%s part %d (%s, %d bytes): the policy %s what OpenCode left whole", filepath.Base(f), i, p.Tool, len(out), o.Status)
				}
				seen["whole"]++
			}
		}
	}
	t.Logf("opencode tool outputs: %v", seen)
	if seen["read"] == 0 || seen["whole"] == 0 {
		t.Fatalf("the fixture no longer has both kinds of output: %v", seen)
	}
}

// geminiOutputs reads every tool output of Gemini CLI chat files: the
// session JSON's messages and the JSONL recording's (the last line of a
// message id wins).
func geminiOutputs(t *testing.T, root string) []struct{ tool, output string } {
	t.Helper()
	type call struct {
		Name   string `json:"name"`
		Result []struct {
			FunctionResponse struct {
				Response map[string]any `json:"response"`
			} `json:"functionResponse"`
		} `json:"result"`
	}
	type message struct {
		ID        string `json:"id"`
		ToolCalls []call `json:"toolCalls"`
	}
	var out []struct{ tool, output string }
	add := func(msgs []message) {
		for _, m := range msgs {
			for _, c := range m.ToolCalls {
				for _, r := range c.Result {
					if s, ok := r.FunctionResponse.Response["output"].(string); ok {
						out = append(out, struct{ tool, output string }{c.Name, s})
					}
				}
			}
		}
	}
	filepath.WalkDir(filepath.Join(root, "gemini"), func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		switch {
		case strings.HasSuffix(path, ".json"):
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			var doc struct {
				Messages []message `json:"messages"`
			}
			if err := json.Unmarshal(data, &doc); err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			add(doc.Messages)
		case strings.HasSuffix(path, ".jsonl"):
			f, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			byID := map[string]message{}
			var order []string
			sc := bufio.NewScanner(f)
			sc.Buffer(make([]byte, 1<<20), 64<<20)
			for sc.Scan() {
				var m message
				if json.Unmarshal(sc.Bytes(), &m) != nil || m.ID == "" {
					continue
				}
				if _, ok := byID[m.ID]; !ok {
					order = append(order, m.ID)
				}
				byID[m.ID] = m
			}
			var msgs []message
			for _, id := range order {
				msgs = append(msgs, byID[id])
			}
			add(msgs)
		}
		return nil
	})
	return out
}

func TestReplayGeminiChats(t *testing.T) {
	outs := geminiOutputs(t, realFixtures(t))
	if len(outs) == 0 {
		t.Skip("no Gemini CLI chat fixtures")
	}
	whole := 0
	for i, r := range outs {
		o := decideOwn(t, "gemini-cli", nil, r.tool, "", textBlock(r.output))
		if g, ok := RecogniseGeminiTruncation(r.output); ok {
			// A recorded cut: its figures are the threshold it was cut at.
			if g.First+g.Last > GeminiThreshold {
				t.Errorf("output %d (%s): a notice over the shipped threshold: %+v", i, r.tool, g)
			}
			continue
		}
		if o.Status != StatusWithinBudget && o.Status != StatusPassThrough || textOf(o.Content) != r.output {
			t.Errorf("output %d (%s, %d characters): the policy %s what Gemini CLI left whole", i, r.tool, utf16Len(r.output), o.Status)
		}
		whole++
	}
	t.Logf("%d Gemini CLI tool outputs, %d left whole", len(outs), whole)
}
