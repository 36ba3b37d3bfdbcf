package retention

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"spillscope/internal/fixtures"
)

// realFixtures finds ../shared/fixtures/real beside the repository or skips
// the test.
var realFixtures = fixtures.RealRoot

// claudeToolResults reads every tool_result of Claude Code session logs as a
// Result; inline images are stored as attachment files under attach, as the
// CLI's --spill-dir does, so they have readable paths.
func claudeToolResults(t *testing.T, root, attach string) []Result {
	t.Helper()
	var out []Result
	n := 0
	filepath.WalkDir(filepath.Join(root, "claude"), func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".jsonl") {
			return nil
		}
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		for sc.Scan() {
			var line struct {
				Message struct {
					Content json.RawMessage `json:"content"`
				} `json:"message"`
			}
			if json.Unmarshal(sc.Bytes(), &line) != nil {
				continue
			}
			var parts []struct {
				Type    string          `json:"type"`
				Content json.RawMessage `json:"content"`
			}
			if json.Unmarshal(line.Message.Content, &parts) != nil {
				continue
			}
			for _, p := range parts {
				if p.Type != "tool_result" {
					continue
				}
				var s string
				if json.Unmarshal(p.Content, &s) == nil {
					out = append(out, Result{Content: []Block{textBlock(s)}})
					continue
				}
				var blocks []struct {
					Type   string `json:"type"`
					Text   string `json:"text"`
					Source struct {
						MediaType string `json:"media_type"`
						Data      string `json:"data"`
					} `json:"source"`
				}
				if json.Unmarshal(p.Content, &blocks) != nil {
					continue
				}
				var res Result
				for _, b := range blocks {
					switch b.Type {
					case TypeText:
						res.Content = append(res.Content, textBlock(b.Text))
					case TypeImage:
						raw, err := base64.StdEncoding.DecodeString(b.Source.Data)
						if err != nil {
							res.Content = append(res.Content, Block{Type: TypeImage, MimeType: b.Source.MediaType, Data: b.Source.Data})
							continue
						}
						n++
						p := filepath.Join(attach, "img"+itoa(n))
						if err := os.WriteFile(p, raw, 0o600); err != nil {
							t.Fatal(err)
						}
						res.Content = append(res.Content, Block{Type: TypeImage, MimeType: b.Source.MediaType, Path: p})
					default:
						res.Content = append(res.Content, Block{Type: b.Type})
					}
				}
				out = append(out, res)
			}
		}
		return nil
	})
	return out
}

func resultSize(r Result) int {
	n := 0
	for _, b := range r.Content {
		n += len(b.Text) + 1000*boolInt(b.Type == TypeImage)
	}
	return n
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Real tool results from recorded sessions, at several budgets: every
// replacement keeps the invariants and a sweep matches single runs.
func TestRetainRealToolResults(t *testing.T) {
	root := realFixtures(t)
	results := claudeToolResults(t, root, t.TempDir())
	if len(results) == 0 {
		t.Skip("no Claude tool results in the fixtures")
	}
	// The largest results and every one with an image exercise the cuts.
	sort.SliceStable(results, func(i, j int) bool { return resultSize(results[i]) > resultSize(results[j]) })
	if len(results) > 25 {
		keep := results[:25]
		for _, r := range results[25:] {
			for _, b := range r.Content {
				if b.Type == TypeImage {
					keep = append(keep, r)
					break
				}
			}
		}
		results = keep
	}
	budgets := []int64{0, 60, 400, 2000, 12500}
	statuses := map[string]int{}
	for i, res := range results {
		opts := Options{SpillPath: "/spill/real.txt"}
		outs, err := Sweep(res, budgets, opts)
		if err != nil {
			t.Fatal(err)
		}
		for j, o := range outs {
			statuses[o.Status]++
			op := opts
			op.Budget = &budgets[j]
			checkReplacement(t, res, op, o)
			if j == 2 {
				if single := mustRetain(t, res, op); single.Status != o.Status || single.Tokens != o.Tokens {
					t.Fatalf("result %d: sweep and single run differ", i)
				}
			}
		}
	}
	t.Logf("%d real tool results x %d budgets: %v", len(results), len(budgets), statuses)
	if statuses[StatusReplaced] == 0 {
		t.Error("no real result was cut at any budget")
	}
}

// Every text of the real tool results counts and tokenizes as tiktoken-go
// does, in both encodings.
func TestRealToolResultsMatchTiktoken(t *testing.T) {
	skipUnderRace(t)
	root := realFixtures(t)
	results := claudeToolResults(t, root, t.TempDir())
	if len(results) == 0 {
		t.Skip("no Claude tool results in the fixtures")
	}
	for _, enc := range []string{EncodingO200k, EncodingCL100k} {
		t.Run(enc, func(t *testing.T) {
			m := mustModel(t, enc)
			texts := 0
			for _, res := range results {
				for _, b := range res.Content {
					if b.Type == TypeText {
						checkTiktoken(t, m, b.Text)
						texts++
					}
				}
			}
			t.Logf("%d texts of %d real tool results", texts, len(results))
		})
	}
}
