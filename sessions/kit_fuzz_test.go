package sessions

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// FuzzKitAdapters feeds arbitrary bytes, as a file in each of the OpenCode,
// Copilot CLI and goose layouts and with an arbitrary stored cursor and
// locator, through detection, Read and ReadResult of the adapters: nothing
// panics, every diagnostic has a code the window words, and a source no
// harness claims is not read.
func FuzzKitAdapters(f *testing.F) {
	f.Add([]byte(cpStart("u")+cpCall("c1", "bash")+cpDone("c1", "Output too large to read at once (1 KB). Saved to: /tmp/1-copilot-tool-output-a.txt\n")), `{"offset":10,"fp":"x","sub":{}}`, `{"offset":0,"length":40}`)
	f.Add([]byte(`{"info":{"id":"ses_1","directory":"/w","version":"1"},"messages":[{"info":{"id":"m","role":"assistant"},"parts":[{"type":"tool","callID":"c","tool":"bash","state":{"status":"completed","output":"x"}}]}]}`), "", `{"source":"export","offset":1,"length":2}`)
	f.Add([]byte(`{"working_dir":"/w"}`+"\n"+`{"role":"user","created":1,"content":[{"type":"toolResponse","id":"c","toolResult":{"status":"success","value":[{"type":"text","text":"x"}]}}]}`+"\n"), `{"sub":{"offset":-5}}`, `{"source":"jsonl","offset":-1,"length":9}`)
	f.Add([]byte("SQLite format 3\x00junk"), `{"db":{"part":1}}`, `{"source":"db","partId":"p"}`)
	f.Fuzz(func(t *testing.T, data []byte, cursor, key string) {
		dir := t.TempDir()
		for _, rel := range []string{"session-state/u/events.jsonl", "export/ses_1.json", "sessions/20250101_1.jsonl", "sessions/sessions.db", "opencode.db"} {
			path := filepath.Join(dir, filepath.FromSlash(rel))
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, data, 0o644); err != nil {
				t.Fatal(err)
			}
			name := detect(&Probe{Path: path})
			for _, h := range []string{HarnessCopilot, HarnessOpenCode, HarnessGoose} {
				if name != "" && name != h {
					continue
				}
				hr, _ := LookupHarness(h)
				p := &Parsed{}
				src := Source{Path: path, Root: dir, Size: int64(len(data)), Cursor: cursor}
				if name == "" {
					// Never claimed, never read by the indexer; its reader
					// still must not fail on it.
					src.Cursor = ""
				}
				if _, err := hr.Read(context.Background(), src, p); err != nil {
					t.Fatalf("%s read %s: %v", h, rel, err)
				}
				for _, dg := range p.Diags {
					if !slices.Contains(DiagCodes, dg.Code) {
						t.Fatalf("%s: diagnostic code %q is not one the window words", h, dg.Code)
					}
				}
				for _, r := range p.Results {
					if _, err := hr.ReadResult(path, r.Locator, r.CallID); err != nil && name == h {
						t.Fatalf("%s: result %q read in this pass does not read back: %v", h, r.CallID, err)
					}
				}
				hr.ReadResult(path, Locator{Key: key}, "c")
			}
		}
	})
}
