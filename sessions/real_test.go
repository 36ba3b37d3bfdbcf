package sessions

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// expected is what the test counts from the raw JSON with encoding/json and
// none of the package's code.
type expected struct {
	files, sessions, results, images, notices, badLines int
	usage                                               Usage
}

func countReal(t *testing.T, root string) expected {
	var e expected
	sessions := map[string]bool{}
	err := filepath.WalkDir(root, func(path string, de os.DirEntry, err error) error {
		if err != nil || de.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		switch {
		case strings.HasPrefix(rel, "claude/") && strings.HasSuffix(path, ".jsonl") && !strings.Contains(rel, "/tool-results/"):
			e.files++
			countClaude(t, path, &e, sessions)
		case strings.HasPrefix(rel, "codex/") && strings.HasSuffix(path, ".jsonl"):
			e.files++
			countCodex(t, path, &e, sessions)
		case strings.HasPrefix(rel, "gemini/") && strings.HasSuffix(path, ".json"):
			e.files++
			countGemini(t, path, &e, sessions)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	e.sessions = len(sessions)
	return e
}

func eachJSONLine(t *testing.T, path string, e *expected, fn func(map[string]any)) {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 1<<20)
	for {
		line, err := r.ReadBytes('\n')
		if len(strings.TrimSpace(string(line))) > 0 {
			var m map[string]any
			if json.Unmarshal(line, &m) != nil {
				e.badLines++
			} else {
				fn(m)
			}
		}
		if err != nil {
			return
		}
	}
}

func validImage(data string) bool {
	_, err := base64.StdEncoding.DecodeString(data)
	return err == nil && data != ""
}

func countClaude(t *testing.T, path string, e *expected, sessions map[string]bool) {
	type key struct{ msg, req string }
	last := map[key]map[string]any{}
	eachJSONLine(t, path, e, func(m map[string]any) {
		if id, _ := m["sessionId"].(string); id != "" {
			sessions["claude/"+id] = true
		}
		msg, _ := m["message"].(map[string]any)
		switch m["type"] {
		case "assistant":
			if u, ok := msg["usage"].(map[string]any); ok {
				id, _ := msg["id"].(string)
				req, _ := m["requestId"].(string)
				last[key{id, req}] = u
			}
		case "user":
			content, _ := msg["content"].([]any)
			for _, c := range content {
				b, _ := c.(map[string]any)
				if b["type"] != "tool_result" {
					continue
				}
				e.results++
				switch inner := b["content"].(type) {
				case string:
					if strings.Contains(inner, "<persisted-output>") {
						e.notices++
					}
				case []any:
					noticed := false
					for _, x := range inner {
						blk, _ := x.(map[string]any)
						if blk["type"] == "image" {
							src, _ := blk["source"].(map[string]any)
							if d, _ := src["data"].(string); validImage(d) {
								e.images++
							}
						}
						if tx, _ := blk["text"].(string); !noticed && strings.Contains(tx, "<persisted-output>") {
							e.notices++
							noticed = true
						}
					}
				}
			}
		}
	})
	for _, u := range last {
		n := func(k string) int64 { f, _ := u[k].(float64); return int64(f) }
		e.usage.Input += n("input_tokens")
		e.usage.Output += n("output_tokens")
		e.usage.CacheRead += n("cache_read_input_tokens")
		e.usage.CacheWrite += n("cache_creation_input_tokens")
	}
}

func countCodex(t *testing.T, path string, e *expected, sessions map[string]bool) {
	var total map[string]any
	eachJSONLine(t, path, e, func(m map[string]any) {
		p, _ := m["payload"].(map[string]any)
		switch m["type"] {
		case "session_meta":
			if id, _ := p["id"].(string); id != "" {
				sessions["codex/"+id] = true
			}
		case "response_item":
			if p["type"] == "function_call_output" || p["type"] == "custom_tool_call_output" {
				e.results++
				if arr, ok := p["output"].([]any); ok {
					for _, x := range arr {
						it, _ := x.(map[string]any)
						if it["type"] == "input_image" {
							u, _ := it["image_url"].(string)
							if _, d, ok := strings.Cut(u, ";base64,"); ok && validImage(d) {
								e.images++
							}
						}
					}
				}
			}
		case "event_msg":
			if p["type"] == "token_count" {
				if info, ok := p["info"].(map[string]any); ok {
					total, _ = info["total_token_usage"].(map[string]any)
				}
			}
		}
	})
	if total != nil {
		n := func(k string) int64 { f, _ := total[k].(float64); return int64(f) }
		e.usage.Input += n("input_tokens") - n("cached_input_tokens")
		e.usage.CacheRead += n("cached_input_tokens")
		e.usage.Output += n("output_tokens")
		e.usage.Reasoning += n("reasoning_output_tokens")
	}
}

func countGemini(t *testing.T, path string, e *expected, sessions map[string]bool) {
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		SessionID string `json:"sessionId"`
		Messages  []struct {
			Tokens *struct {
				Input, Output, Cached, Thoughts int64
			} `json:"tokens"`
			ToolCalls []json.RawMessage `json:"toolCalls"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	sessions["gemini/"+doc.SessionID] = true
	for _, m := range doc.Messages {
		e.results += len(m.ToolCalls)
		if m.Tokens != nil {
			e.usage.Input += m.Tokens.Input - m.Tokens.Cached
			e.usage.CacheRead += m.Tokens.Cached
			e.usage.Output += m.Tokens.Output
			e.usage.Reasoning += m.Tokens.Thoughts
		}
	}
}

func TestIndexRealFixtures(t *testing.T) {
	root := realRoot(t)
	want := countReal(t, root)
	if want.results == 0 || want.images == 0 || want.notices == 0 {
		t.Fatalf("fixture counts look wrong: %+v", want)
	}
	d := openTemp(t)
	got := index(t, d, root)
	checks := []struct {
		name      string
		got, want int
	}{
		{"files", got.Files, want.files},
		{"sessions", got.Sessions, want.sessions},
		{"tool results", got.ToolResults, want.results},
		{"images in tool results", got.ToolResultImages, want.images},
		{"spill notices", got.SpillNotices, want.notices},
		{"diagnostics (bad lines)", got.Diagnostics, want.badLines},
		{"changed files", got.ChangedFiles, want.files},
	}
	for _, c := range checks {
		t.Run(c.name, func(t *testing.T) {
			if c.got != c.want {
				t.Errorf("got %d, want %d", c.got, c.want)
			}
		})
	}
	t.Run("usage", func(t *testing.T) {
		if want.usage.Output == 0 {
			t.Fatal("fixtures record no usage")
		}
		if u := usageTotals(t, d); u != want.usage {
			t.Errorf("got %+v, want %+v", u, want.usage)
		}
	})
	t.Run("second pass changes nothing", func(t *testing.T) {
		again := index(t, d, root)
		got.ChangedFiles, again.ChangedFiles = 0, 0
		got.Seconds, again.Seconds = 0, 0
		if again != got {
			t.Errorf("second pass %+v, first %+v", again, got)
		}
	})
	t.Run("results read back", func(t *testing.T) {
		rows, err := d.Results(t.Context(), ResultFilter{})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rows {
			_, res, err := d.LoadResult(t.Context(), r.ID)
			if err != nil {
				t.Fatalf("result %d (%s line %d): %v", r.ID, r.Path, r.Line, err)
			}
			var n int64
			imgs := 0
			for _, b := range res.Content {
				switch b.Type {
				case "text":
					n += int64(len(b.Text))
				case "image":
					imgs++
					if b.Path == "" || b.Data != "" {
						t.Errorf("result %d image not replaced by its attachment path", r.ID)
					} else if _, err := os.Stat(b.Path); err != nil {
						t.Errorf("attachment: %v", err)
					}
				}
			}
			if n != r.TextBytes || imgs != r.Images {
				t.Errorf("result %d: read back %d bytes %d images, indexed %d bytes %d images", r.ID, n, imgs, r.TextBytes, r.Images)
			}
		}
	})
	t.Run("persisted-output notice is linked, file missing", func(t *testing.T) {
		rows, _ := d.Results(t.Context(), ResultFilter{})
		found := 0
		for _, r := range rows {
			if r.Spill == nil {
				continue
			}
			found++
			if r.Spill.Kind != NoticeClaudePersisted || !strings.HasSuffix(r.Spill.Path, "/tool-results/toolu_019CpL49DWBenUxVVCWEXz3L.txt") {
				t.Errorf("notice %+v", r.Spill)
			}
			if r.SpillExists {
				t.Errorf("spill file reported present: %s", r.SpillResolved)
			}
		}
		if found != want.notices {
			t.Errorf("found %d notices, want %d", found, want.notices)
		}
	})
}
