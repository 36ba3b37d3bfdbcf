package dsh

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"spillscope/internal/fixtures"
)

// snapshotLogs lists every log under the dsh snapshot fixtures.
func snapshotLogs(t *testing.T) []string {
	t.Helper()
	root := filepath.Join(fixtures.RealRoot(t), "dsh", "snapshots")
	var out []string
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(p, ".jsonl") {
			out = append(out, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(out) == 0 {
		t.Skipf("no dsh snapshot logs under %s", root)
	}
	sort.Strings(out)
	return out
}

// rawCounts is what a log holds, counted straight from its JSON with
// encoding/json and none of the reader's code.
type rawCounts struct {
	id          string
	results     int
	tools       map[string]string // call id -> tool/call name
	images      int
	notices     int
	usage       int
	links       int
	compactions int
	dispatches  int
	inherited   int // results before the header's seedLength
}

func countRaw(t *testing.T, path string) rawCounts {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	c := rawCounts{tools: map[string]string{}}
	seen := map[string]bool{}
	subs := map[string]bool{}
	type ts struct{ turn, step float64 }
	chunked := map[ts]bool{}
	summarised := map[string]bool{}
	seedLength, seq := -1.0, 0.0
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	first := true
	for sc.Scan() {
		var o map[string]any
		if err := json.Unmarshal(sc.Bytes(), &o); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if first {
			first = false
			c.id, _ = o["id"].(string)
			if _, ok := o["parentSession"]; ok {
				c.links++
			}
			if n, ok := o["seedLength"].(float64); ok {
				seedLength = n
			}
			continue
		}
		d, _ := o["data"].(map[string]any)
		at := seq
		seq++
		if texts, ok := d["texts"].([]any); ok {
			seq += float64(len(texts) - 1)
		} else if args, ok := d["args"].([]any); ok {
			seq += float64(len(args) - 1)
		}
		switch o["type"] {
		case "tool/call":
			c.tools[d["callId"].(string)] = d["name"].(string)
		case "tool/result":
			m := d["message"].(map[string]any)
			call, _ := m["source"].(map[string]any)["callId"].(string)
			content := m["content"].([]any)
			if w, ok := content[0].(map[string]any); ok && w["type"] == "tool-result" {
				content = w["content"].([]any)
				if call == "" {
					call = w["toolCallId"].(string)
				}
			}
			if seen[call] {
				continue
			}
			seen[call] = true
			c.results++
			if at < seedLength {
				c.inherited++
			}
			for _, b := range content {
				if b.(map[string]any)["type"] == "image" {
					c.images++
				}
			}
			if last, ok := content[len(content)-1].(map[string]any); ok && last["type"] == "text" {
				s := last["text"].(string)
				if i := strings.LastIndex(s, "(Omitted "); i >= 0 && strings.Contains(s[i:], " Full formatted result stored at: ") && strings.HasSuffix(s, ")") {
					c.notices++
				}
			}
		case "tool/code-dispatch", "tool/ptc-dispatch":
			if id := d["subCallId"].(string); !subs[id] {
				subs[id] = true
				c.dispatches++
			}
		case "assistant/chunk":
			ch := d["chunk"].(map[string]any)
			if ch["type"] == "usage" {
				c.usage++
				chunked[ts{d["turn"].(float64), d["step"].(float64)}] = true
			}
		case "assistant/message":
			k := ts{d["turn"].(float64), d["step"].(float64)}
			if _, ok := d["usage"]; ok && !chunked[k] {
				c.usage++
			}
			delete(chunked, k)
		case "compaction/summary":
			summarised[d["compactionId"].(string)] = true
			c.compactions++
			if _, ok := d["usage"]; ok {
				c.usage++
			}
		case "compaction/prune":
			c.compactions++
		case "compaction/end":
			if !summarised[d["compactionId"].(string)] {
				c.compactions++
			}
		case "subagent/catalog":
			c.links++
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return c
}

func TestSnapshotFixtures(t *testing.T) {
	var totals rawCounts
	for _, path := range snapshotLogs(t) {
		name := strings.TrimPrefix(path, filepath.Dir(filepath.Dir(filepath.Dir(path)))+"/")
		t.Run(name, func(t *testing.T) {
			want := countRaw(t, path)
			log, err := ReadAll(path, Options{Home: "/dsh-home"})
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range log.Diagnostics {
				t.Errorf("diagnostic: %s", d)
			}
			var got rawCounts
			for _, r := range log.Results {
				if r.Dispatch {
					got.dispatches++
					continue
				}
				got.results++
				if r.Inherited {
					got.inherited++
				}
				got.images += len(r.Images)
				if r.Notice != nil {
					got.notices++
					sum := sha256.Sum256([]byte(want.id))
					owner := SpillOtherSession
					if strings.Contains(r.Notice.Path, "/session-"+hex.EncodeToString(sum[:])[:12]+"/") {
						owner = SpillOwnSession
					}
					// The snapshots come from the byte era (format v0).
					if r.Notice.Policy != PolicyBytes {
						t.Errorf("%s: notice policy %q, want %s", r.CallID, r.Notice.Policy, PolicyBytes)
					}
					if r.Notice.Spill.Owner != owner {
						t.Errorf("%s: notice owner %s, want %s (%s)", r.CallID, r.Notice.Spill.Owner, owner, r.Notice.Path)
					}
				}
				if name, ok := want.tools[r.CallID]; ok {
					if r.Tool != name {
						t.Errorf("%s: tool %q, want %q", r.CallID, r.Tool, name)
					}
					// Seqs are numbered from the expanded event order; the
					// result cites its tool/call by that number.
					if len(r.Sources) == 0 || r.Sources[0] != r.CallSeq {
						t.Errorf("%s: sourceEventSeqs %v do not cite the tool/call at seq %d", r.CallID, r.Sources, r.CallSeq)
					}
				}
				for _, im := range r.Images {
					if !strings.HasPrefix(im.Path, "/dsh-home/attachments/v1/objects/") || im.Width == 0 {
						t.Errorf("%s: image %+v", r.CallID, im)
					}
				}
			}
			got.usage = len(log.Usage)
			got.links = len(log.Subagents)
			got.compactions = len(log.Compactions)
			for _, c := range []struct {
				what      string
				got, want int
			}{
				{"results", got.results, want.results},
				{"images", got.images, want.images},
				{"spill notices", got.notices, want.notices},
				{"usage records", got.usage, want.usage},
				{"subagent links", got.links, want.links},
				{"compactions", got.compactions, want.compactions},
				{"dispatch copies", got.dispatches, want.dispatches},
				{"inherited results", got.inherited, want.inherited},
			} {
				if c.got != c.want {
					t.Errorf("%s: got %d, want %d", c.what, c.got, c.want)
				}
			}
			if log.Session.ID != want.id {
				t.Errorf("session id %q, want %q", log.Session.ID, want.id)
			}
			totals.results += want.results
			totals.images += want.images
			totals.notices += want.notices
			totals.usage += want.usage
			totals.links += want.links
			totals.compactions += want.compactions
			totals.inherited += want.inherited
		})
	}
	t.Logf("snapshots: %d results (%d inherited), %d images, %d spill notices, %d usage records, %d subagent links, %d compactions",
		totals.results, totals.inherited, totals.images, totals.notices, totals.usage, totals.links, totals.compactions)
}
