package app

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"spillscope/sessions"
	"spillscope/sessions/samplegen"
)

// fakeOpener records what would have been handed to the desktop.
type fakeOpener struct {
	opened, revealed []string
	fail             error
}

func (f *fakeOpener) Open(p string) error   { f.opened = append(f.opened, p); return f.fail }
func (f *fakeOpener) Reveal(p string) error { f.revealed = append(f.revealed, p); return f.fail }

// Opening and revealing go through the index and the file rule: a result's
// own spill file and its stored images are handed to the desktop by their
// real paths; a forged notice's file (/etc/shadow, the environment, another
// session's spill folder, ../ paths), an attachment swapped for a link out
// of the store, a text block and a result without a notice are never
// handed over.
func TestDesktopOpensOnlyWhatTheFileRuleAllows(t *testing.T) {
	root := t.TempDir()
	corpus := filepath.Join(root, "corpus")
	_, err := samplegen.GenerateHostile(corpus, samplegen.HostileOptions{Seed: 5, HugeLineBytes: 1 << 20, SparseBytes: 3 << 20, Images: 4})
	if err != nil {
		t.Fatal(err)
	}
	store := NewStore(Config{DataDir: filepath.Join(root, "data"), Roots: []string{corpus}, Home: root}, nil)
	t.Cleanup(func() { store.Close() })
	s := indexAll(t, store, 2*time.Minute)
	fake := &fakeOpener{}
	d := NewDesktop(store, fake)
	rows, err := s.ResultList(ResultListQuery{})
	if err != nil {
		t.Fatal(err)
	}
	sessionDir := map[string]bool{}
	for _, r := range rows {
		if r.NoticeKind == "" {
			continue
		}
		for _, do := range []func(FileTarget) (FileAction, error){d.Open, d.Reveal} {
			before := len(fake.opened) + len(fake.revealed)
			a, err := do(FileTarget{ResultID: r.ID, Kind: FileSpill})
			if err != nil {
				t.Fatalf("%s: %v", r.Tool, err)
			}
			handed := len(fake.opened)+len(fake.revealed) > before
			switch {
			case strings.HasPrefix(r.Tool, samplegen.HostileToolForged):
				if a.State != sessions.FileOutside || a.Done || handed {
					t.Errorf("%s (%s): state %q, handed over %v", r.Tool, r.NoticePath, a.State, handed)
				}
			case a.State == sessions.FileExists:
				if !a.Done || !handed || !filepath.IsAbs(a.Path) {
					t.Errorf("%s: state exists but not handed over (%+v)", r.Tool, a)
				}
				// Only the session's own spill folder, never another's.
				detail, err := s.Result(ResultQuery{ID: r.ID})
				if err != nil {
					t.Fatal(err)
				}
				real := mustReal(t, corpus)
				if !strings.HasPrefix(a.Path, real+string(filepath.Separator)) || !strings.Contains(a.Path, "/"+detail.Session.SessionID+"/tool-results/") {
					t.Errorf("%s: handed %s, outside its session's spill folder", r.Tool, a.Path)
				}
				sessionDir[filepath.Dir(a.Path)] = true
			default:
				if a.Done || handed {
					t.Errorf("%s: state %q handed over", r.Tool, a.State)
				}
			}
		}
	}
	if len(sessionDir) == 0 {
		t.Fatal("no spill file was opened: the corpus proves nothing")
	}
	var images ResultRow
	for _, r := range rows {
		if r.Images > 0 {
			images = r
		}
	}
	detail, err := s.Result(ResultQuery{ID: images.ID})
	if err != nil {
		t.Fatal(err)
	}
	att := -1
	for _, b := range detail.Blocks {
		if b.Kind == "image" {
			att = b.Index
			break
		}
	}
	fake.opened = nil
	a, err := d.Open(FileTarget{ResultID: images.ID, Kind: FileAttachment, Block: att})
	attDir := filepath.Join(root, "data", "attachments")
	if err != nil || !a.Done || len(fake.opened) != 1 || filepath.Dir(fake.opened[0]) != mustReal(t, attDir) {
		t.Fatalf("attachment: %+v %v, opened %v", a, err, fake.opened)
	}
	if a, err := d.Reveal(FileTarget{ResultID: images.ID, Kind: FileAttachment, Block: att}); err != nil || !a.Done || fake.revealed[len(fake.revealed)-1] != fake.opened[0] {
		t.Errorf("reveal attachment: %+v %v", a, err)
	}
	// An attachment swapped for a link out of the store is refused.
	secret := filepath.Join(root, "secret.txt")
	if err := os.WriteFile(secret, []byte("NOT-AN-IMAGE"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(fake.opened[0]); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, fake.opened[0]); err != nil {
		t.Fatal(err)
	}
	fake.opened = nil
	if a, err := d.Open(FileTarget{ResultID: images.ID, Kind: FileAttachment, Block: att}); err != nil || a.Done || a.State != sessions.FileOutside || len(fake.opened) != 0 {
		t.Errorf("linked attachment: %+v %v, opened %v", a, err, fake.opened)
	}

	for _, bad := range []FileTarget{
		{ResultID: images.ID, Kind: FileAttachment, Block: 0}, // a text block
		{ResultID: images.ID, Kind: FileAttachment, Block: -1},
		{ResultID: images.ID, Kind: FileSpill},          // names no spill file
		{ResultID: 987654, Kind: FileSpill},             // no such result
		{ResultID: images.ID, Kind: "../../etc/shadow"}, // no such kind
		{ResultID: 0, Kind: FileSpill},
	} {
		if a, err := d.Open(bad); err == nil || a.Done || len(fake.opened) != 0 {
			t.Errorf("%+v: %+v, %v, opened %v", bad, a, err, fake.opened)
		}
	}
	fake.fail = errors.New("no viewer")
	for _, r := range rows {
		if r.NoticeFileState == sessions.FileExists {
			if _, err := d.Open(FileTarget{ResultID: r.ID, Kind: FileSpill}); err == nil || !strings.Contains(err.Error(), "no viewer") {
				t.Errorf("a failing viewer is not reported: %v", err)
			}
			break
		}
	}
}

func mustReal(t *testing.T, p string) string {
	t.Helper()
	r, err := filepath.EvalSymlinks(p)
	if err != nil {
		t.Fatal(err)
	}
	return r
}
