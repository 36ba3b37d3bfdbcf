package retention

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// claudePersistedRecord is a tool_result of a Claude Code log whose content
// is a <persisted-output> wrapper, with what the log keeps beside it.
type claudePersistedRecord struct {
	where, version, sessionID, toolUseID, tool string
	content                                    string
	result                                     json.RawMessage // toolUseResult
}

func claudePersistedRecords(t *testing.T, root string) (out []claudePersistedRecord) {
	t.Helper()
	filepath.WalkDir(filepath.Join(root, "claude"), func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".jsonl") {
			return nil
		}
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		tools := map[string]string{}
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		for line := 1; sc.Scan(); line++ {
			var rec struct {
				Type      string `json:"type"`
				Version   string `json:"version"`
				SessionID string `json:"sessionId"`
				Message   struct {
					Content json.RawMessage `json:"content"`
				} `json:"message"`
				ToolUseResult json.RawMessage `json:"toolUseResult"`
			}
			if json.Unmarshal(sc.Bytes(), &rec) != nil {
				continue // the fixtures hold junk lines on purpose
			}
			var blocks []struct {
				Type      string          `json:"type"`
				ID        string          `json:"id"`
				Name      string          `json:"name"`
				ToolUseID string          `json:"tool_use_id"`
				Content   json.RawMessage `json:"content"`
			}
			if json.Unmarshal(rec.Message.Content, &blocks) != nil {
				continue
			}
			for _, b := range blocks {
				switch b.Type {
				case "tool_use":
					tools[b.ID] = b.Name
				case "tool_result":
					var s string
					if json.Unmarshal(b.Content, &s) == nil && strings.Contains(s, ClaudePersistedOpen) {
						out = append(out, claudePersistedRecord{
							where: filepath.Base(path) + ":" + itoa(line), version: rec.Version, sessionID: rec.SessionID,
							toolUseID: b.ToolUseID, tool: tools[b.ToolUseID], content: s, result: rec.ToolUseResult,
						})
					}
				}
			}
		}
		return nil
	})
	return out
}

// TestClaudeRealPersisted: every <persisted-output> of the shared fixtures
// whose full text is in the log is reproduced byte for byte by the
// claude-code policy, at the shipped settings, from the log alone.
//
//   - 2.1.39 (spotter): the Bash result's full stdout is in toolUseResult;
//     the policy on it, naming the recorded tool-results/<tool_use_id>.txt,
//     reproduces the content.
//   - 2.1.85 (entire-cli): Bash saved its output itself, to
//     /tmp/claude-tool-results/<9 characters>.txt (toolUseResult's
//     persistedOutputPath), and toolUseResult.stdout keeps only the first
//     30,000 characters of persistedOutputSize. The preview and the size
//     depend on nothing else, so the policy on those 30,000 characters and
//     a middle that brings them to persistedOutputSize (lost: the file is
//     not in the fixtures) reproduces the wrapper. The tool_result then
//     holds stderr after it, on its own line: Bash wraps stdout alone.
func TestClaudeRealPersisted(t *testing.T) {
	root := realFixtures(t)
	recs := claudePersistedRecords(t, root)
	replayed := 0
	for _, r := range recs {
		p, ok := RecogniseClaudePersistedOutput(r.content)
		if !ok || p.Kind != ClaudePersistedPreview {
			t.Fatalf("%s: not recognised", r.where)
		}
		var tur struct {
			Stdout              *string `json:"stdout"`
			Stderr              string  `json:"stderr"`
			PersistedOutputPath string  `json:"persistedOutputPath"`
			PersistedOutputSize int64   `json:"persistedOutputSize"`
		}
		if json.Unmarshal(r.result, &tur) != nil || tur.Stdout == nil || r.tool != "Bash" {
			t.Errorf("%s (%s, tool %q): the full text is not in the log; add this case", r.where, r.version, r.tool)
			continue
		}
		orig := *tur.Stdout
		if tur.PersistedOutputPath != "" {
			if p.Path != tur.PersistedOutputPath || !strings.HasPrefix(p.Path, "/tmp/claude-tool-results/") {
				t.Fatalf("%s: notice names %q, toolUseResult %q", r.where, p.Path, tur.PersistedOutputPath)
			}
			if n := utf16Len(orig); n != ClaudeBashResultChars || int64(n) >= tur.PersistedOutputSize {
				t.Fatalf("%s: stdout holds %d characters of %d", r.where, n, tur.PersistedOutputSize)
			}
			orig += strings.Repeat("x", int(tur.PersistedOutputSize)-utf16Len(orig))
		} else {
			want := "/" + r.sessionID + "/tool-results/" + r.toolUseID + ".txt"
			if !strings.HasSuffix(p.Path, want) {
				t.Fatalf("%s: notice names %q, not <project>%s", r.where, p.Path, want)
			}
			if tur.Stderr != "" {
				t.Fatalf("%s: stderr %q beside a generic persist; add the join rule", r.where, tur.Stderr)
			}
		}
		if p.SizeMin > int64(utf16Len(orig)) || p.SizeMax < int64(utf16Len(orig)) {
			t.Errorf("%s: recorded size %s does not cover %d characters", r.where, p.Size, utf16Len(orig))
		}
		o := mustRetain(t, Result{Content: []Block{textBlock(orig)}}, Options{Policy: "claude-code", ToolName: r.tool, SpillPath: p.Path})
		got := o.Content[0].Text
		if stderr := strings.TrimSpace(tur.Stderr); stderr != "" {
			got += "\n" + stderr
		}
		if o.Status != StatusReplaced || got != r.content {
			t.Errorf("%s (%s): not reproduced; first difference %+v", r.where, r.version, CompareContent([]Block{textBlock(r.content)}, []Block{textBlock(got)}))
			continue
		}
		if o.Recovery.Kind != RecoverFile || o.Recovery.Locator != p.Path {
			t.Errorf("%s: recovery %+v", r.where, o.Recovery)
		}
		replayed++
	}
	t.Logf("%d <persisted-output> notices, %d reproduced", len(recs), replayed)
	if len(recs) != 3 || replayed != len(recs) {
		t.Errorf("%d notices, %d reproduced; the fixtures hold 3", len(recs), replayed)
	}
}
