package sessions

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// A pass writes its files several to a transaction. A file another pass
// stored since this one listed it (its row is there, this pass saw none)
// is retried and changes nothing, while the files beside it in the same
// batch are written and reported, in order, once committed.
func TestBatchRacedFileLeavesOthers(t *testing.T) {
	root := t.TempDir()
	d := openTemp(t)
	var cands []candidate
	for _, name := range []string{"a", "b", "c"} {
		path := filepath.Join(root, "p", name+".jsonl")
		writeFile(t, path, cAssistant(name, "m1", "r1", "toolu_"+name, "Bash", 1)+cResult(name, "toolu_"+name, "output of "+name))
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		cands = append(cands, candidate{path: path, root: root, harness: HarnessClaude, size: fi.Size(), mtime: fi.ModTime().UnixNano()})
	}
	// "Another pass" stores b first.
	if n, err := d.IndexFiles(t.Context(), []string{root}, []string{cands[1].path}, IndexOptions{}); err != nil || n != 1 {
		t.Fatalf("IndexFiles(b) = %d, %v", n, err)
	}

	var got []FileChange
	opts := IndexOptions{OnChange: func(c FileChange) {
		// Reported only after the commit: the file's rows are readable.
		s, err := d.Totals(t.Context(), []string{root})
		if err != nil {
			t.Error(err)
		}
		if !c.Retry && s.Files < 2 {
			t.Errorf("change for %s reported before its rows were committed (%d files)", c.Path, s.Files)
		}
		got = append(got, c)
	}}
	changed, err := d.indexCandidates(t.Context(), cands, map[string]fileRow{}, []string{root}, 0, time.Now(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if changed != 2 {
		t.Errorf("changed = %d, want 2 (a and c)", changed)
	}
	if len(got) != 3 || got[0].Path != cands[0].path || got[1].Path != cands[1].path || got[2].Path != cands[2].path {
		t.Fatalf("changes %+v, want a, b, c in order", got)
	}
	if got[0].Retry || !got[1].Retry || got[2].Retry || len(got[0].Sessions) == 0 || len(got[2].Results) != 1 || len(got[1].Results) != 0 {
		t.Errorf("changes %+v: want a and c written (a session, a result each), b retried with nothing", got)
	}
	s, err := d.Totals(t.Context(), []string{root})
	if err != nil {
		t.Fatal(err)
	}
	if s.Files != 3 || s.Sessions != 3 || s.ToolResults != 3 {
		t.Errorf("totals %+v, want 3 files, 3 sessions, 3 results (b once)", s)
	}
}
