package samplegen

import (
	"bufio"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"

	"spillscope/retention/links"
)

var smallHostile = HostileOptions{Seed: 5, HugeLineBytes: 1 << 20, SparseBytes: 64 << 20, Images: 5, Sessions: 40}

// toolTexts reads every tool_result's text from the Claude transcripts
// under dir, as the model saw it.
func toolTexts(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	paths, _ := filepath.Glob(filepath.Join(dir, "claude", "projects", "*", "*.jsonl"))
	if len(paths) == 0 {
		t.Fatal("no transcripts")
	}
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 64<<20)
		for sc.Scan() {
			var line struct {
				Message struct {
					Content json.RawMessage `json:"content"`
				} `json:"message"`
			}
			if json.Unmarshal(sc.Bytes(), &line) != nil {
				continue
			}
			var blocks []struct {
				Type    string          `json:"type"`
				Content json.RawMessage `json:"content"`
			}
			if json.Unmarshal(line.Message.Content, &blocks) != nil {
				continue
			}
			for _, b := range blocks {
				if b.Type != "tool_result" {
					continue
				}
				var s string
				if json.Unmarshal(b.Content, &s) == nil {
					out = append(out, s)
					continue
				}
				var inner []struct {
					Text string `json:"text"`
					URI  string `json:"uri"`
				}
				if json.Unmarshal(b.Content, &inner) == nil {
					for _, in := range inner {
						out = append(out, in.Text, in.URI)
					}
				}
			}
		}
		f.Close()
		if err := sc.Err(); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
	}
	return out
}

func TestGenerateHostile(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "hostile")
	m, err := GenerateHostile(dir, smallHostile)
	if err != nil {
		t.Fatal(err)
	}
	if want := len(hostileFamilies)*(len(hostileSpellings)+2) + 40; len(m.Secrets) < want {
		t.Errorf("%d secrets planted, want at least %d", len(m.Secrets), want)
	}
	if m.Sessions != 42 || m.Images != 5 || m.HugeLines != 2 || m.SparseBytes != 64<<20 {
		t.Errorf("manifest %+v", m)
	}
	seen := map[string]bool{}
	for _, s := range m.Secrets {
		if seen[s] {
			t.Errorf("secret %s planted twice", s)
		}
		seen[s] = true
	}

	// Every planted value is in the corpus as the model saw it (or in a
	// spill file), and the link rules mask every one of them there; the
	// known limits are left as they are.
	texts := toolTexts(t, dir)
	var spills []string
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".txt") && filepath.Base(filepath.Dir(p)) == "tool-results" {
			if fi, _ := d.Info(); fi.Size() < 8<<20 {
				b, _ := os.ReadFile(p)
				spills = append(spills, string(b))
			}
		}
		return nil
	})
	all := strings.Join(append(texts, spills...), "\n")
	masked, _ := links.Mask(all)
	for _, s := range m.Secrets {
		if s == m.PageCrossing || strings.Contains(strings.Join(m.SecretsBySpelling["sparse"], " "), s) {
			continue // in files checked below
		}
		if !strings.Contains(all, s) {
			t.Errorf("secret %s is not in the corpus", s)
		}
		if strings.Contains(masked, s) {
			t.Errorf("secret %s survives links.Mask: the corpus plants what the rules do not recognise", s)
		}
	}
	for _, s := range m.Unrecognised {
		if !strings.Contains(masked, s) {
			t.Errorf("known-limit value %s is masked: the corpus no longer shows the limit", s)
		}
	}
	for _, p := range m.ForgedPaths {
		if !strings.Contains(all, "Full output saved to: "+p+"\n") {
			t.Errorf("no forged notice names %s", p)
		}
	}
	if !strings.Contains(all, m.ForeignMarker) {
		t.Error("the other session's spill file lacks its marker")
	}
	for _, s := range m.ScriptMarkers {
		if !strings.Contains(all, s) {
			t.Errorf("script text %q not written", s)
		}
	}

	// The page-crossing value straddles the first 64 KiB page of its file.
	spill := ""
	for _, s := range spills {
		if strings.Contains(s, m.PageCrossing) {
			spill = s
		}
	}
	if at := strings.Index(spill, m.PageCrossing); at < 0 || at >= 64<<10 || at+len(m.PageCrossing) <= 64<<10 {
		t.Errorf("page-crossing value at %d (%d bytes), want it across %d", at, len(m.PageCrossing), 64<<10)
	}

	// The sparse file is as long as asked, with almost nothing written.
	sp := filepath.Join(dir, filepath.FromSlash(m.SparsePath))
	fi, err := os.Stat(sp)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Size() != 64<<20 {
		t.Errorf("sparse file is %d bytes", fi.Size())
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && st.Blocks*512 > 1<<20 {
		t.Errorf("sparse file uses %d bytes of disk", st.Blocks*512)
	}

	// The huge results are single lines of text on single transcript lines.
	huge := 0
	for _, s := range texts {
		if len(s) >= 1<<20-512 {
			huge++
			if strings.ContainsRune(s, '\n') {
				t.Error("a huge result holds a line break")
			}
		}
	}
	if huge != 2 {
		t.Errorf("%d huge single-line results, want 2", huge)
	}
}

func TestGenerateHostileIsDeterministic(t *testing.T) {
	base := t.TempDir()
	opts := HostileOptions{Seed: 9, HugeLineBytes: 64 << 10, SparseBytes: 1 << 20, Images: 3, Sessions: 5}
	a, err := GenerateHostile(filepath.Join(base, "a"), opts)
	if err != nil {
		t.Fatal(err)
	}
	b, err := GenerateHostile(filepath.Join(base, "b"), opts)
	if err != nil {
		t.Fatal(err)
	}
	// The forged notice naming the other session's spill file holds the
	// corpus's own path, which treeHashes replaces.
	for i := range a.ForgedPaths {
		a.ForgedPaths[i] = strings.ReplaceAll(a.ForgedPaths[i], filepath.Join(base, "a"), "$CORPUS")
		b.ForgedPaths[i] = strings.ReplaceAll(b.ForgedPaths[i], filepath.Join(base, "b"), "$CORPUS")
	}
	if !reflect.DeepEqual(a, b) {
		t.Error("same seed, different manifests")
	}
	if ha, hb := treeHashes(t, filepath.Join(base, "a")), treeHashes(t, filepath.Join(base, "b")); !reflect.DeepEqual(ha, hb) {
		t.Error("same seed, different files")
	}
	c, err := GenerateHostile(filepath.Join(base, "c"), HostileOptions{Seed: 10, HugeLineBytes: -1, SparseBytes: -1, Images: 3})
	if err != nil {
		t.Fatal(err)
	}
	if c.Secrets[0] == a.Secrets[0] || c.HugeLines != 0 || c.SparseBytes != 0 {
		t.Errorf("seed 10 without huge parts: %+v", c)
	}
	if _, err := GenerateHostile(filepath.Join(base, "a"), opts); !errors.Is(err, ErrNotEmpty) {
		t.Errorf("writing into a non-empty folder: %v", err)
	}
	if _, err := GenerateHostile(filepath.Join(base, "d"), HostileOptions{Sessions: -1}); !errors.Is(err, ErrOptions) {
		t.Errorf("negative sessions: %v", err)
	}
}
