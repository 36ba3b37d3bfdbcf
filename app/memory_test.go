package app

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"testing"

	"spillscope/sessions"
)

// maxPhaseRSS is the resident high-water mark allowed for any indexing
// phase, and for opening the result, over a session holding a 50 MB single
// line; holding the line, its decoded text and the search text at once
// would need well over it.
const maxPhaseRSS = 300 << 20

// maxIdleGrowth is how much above its size before a pass the process may
// stay once the pass is over.
const maxIdleGrowth = 64 << 20

// hugeSession writes a Claude Code session whose tool results are a 50 MB
// single line of log text (escaped newlines and tabs, a credential URL at
// both ends), the same as a content string, and a 12 MB inline image.
func hugeSession(t *testing.T, root string) {
	t.Helper()
	r := rand.New(rand.NewPCG(5, 8))
	words := strings.Fields("GET /api/v1/items status=200 bytes=1234 done region=eu-west-1 ok retry=0 é 中文")
	var b strings.Builder
	b.WriteString("fetched https://b.s3.amazonaws.com/k?X-Amz-Signature=HUGESECRETHEAD0001 ok\n")
	for b.Len() < 50<<20 {
		b.WriteString(words[r.IntN(len(words))])
		b.WriteByte(" \n\t"[r.IntN(3)])
	}
	b.WriteString("\nhttps://app.example/cb#access_token=HUGESECRETTAIL0001")
	text := b.String()
	img := make([]byte, 12<<20)
	for i := range img {
		img[i] = byte(r.Uint32())
	}
	sid := "9b2e61c4-3a55-4f0e-8d1c-7e5a4b3c2d10"
	line := func(v any) string {
		j, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return string(j) + "\n"
	}
	use := func(id string) string {
		return line(map[string]any{"type": "assistant", "sessionId": sid, "uuid": "u-" + id, "timestamp": "2026-03-02T09:00:00Z",
			"message": map[string]any{"id": "m-" + id, "model": "claude-sonnet-4-5", "role": "assistant",
				"content": []any{map[string]any{"type": "tool_use", "id": id, "name": "Bash", "input": map[string]any{}}}}})
	}
	result := func(id string, content any) string {
		return line(map[string]any{"type": "user", "sessionId": sid, "uuid": "r-" + id, "timestamp": "2026-03-02T09:00:01Z",
			"message": map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": id, "content": content}}}})
	}
	f, err := os.Create(filepath.Join(mkdir(t, filepath.Join(root, "-home-dev-huge")), sid+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{
		use("toolu_huge_blocks"), result("toolu_huge_blocks", []any{map[string]any{"type": "text", "text": text}}),
		use("toolu_huge_string"), result("toolu_huge_string", text),
		use("toolu_huge_image"), result("toolu_huge_image", []any{map[string]any{"type": "image",
			"source": map[string]any{"type": "base64", "media_type": "image/png", "data": base64.StdEncoding.EncodeToString(img)}}}),
	} {
		if _, err := f.WriteString(s); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

func mkdir(t *testing.T, dir string) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// procStatus reads a kB figure of /proc/self/status in bytes.
func procStatus(key string) uint64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, key+":"); ok {
			kb, _ := strconv.ParseUint(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// resetPeak sets the resident high-water mark to the current size.
func resetPeak() error { return os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) }

// Indexing a session with 50 MB single lines and a 12 MB inline image, and
// opening its largest result through the bound services, keeps every
// phase's resident peak under maxPhaseRSS, and the process returns to
// about its size before the pass once the pass is over. It writes 130 MB
// to a temporary folder, so it is skipped with -short and under -race.
func TestHugeLinesBoundedMemory(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("50 MB lines: skipped with -short and -race")
	}
	if procStatus("VmHWM") == 0 || resetPeak() != nil {
		t.Skip("no /proc/self/status or clear_refs to read the resident peak")
	}
	root := t.TempDir()
	corpus := filepath.Join(root, "projects")
	hugeSession(t, corpus)
	store := NewStore(Config{DataDir: filepath.Join(root, "data"), Roots: []string{corpus}, Home: root}, nil)
	t.Cleanup(func() { store.Close() })
	db, err := store.DB()
	if err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	debug.FreeOSMemory()
	idle := procStatus("VmRSS")

	var mu sync.Mutex
	peaks := map[string]uint64{}
	phase := ""
	endPhase := func() {
		if phase != "" {
			peaks[phase] = max(peaks[phase], procStatus("VmHWM"))
		}
	}
	resetPeak()
	err = runIndex(context.Background(), db, store.Roots(), func(p sessions.Progress) {
		mu.Lock()
		defer mu.Unlock()
		if p.Phase != phase {
			endPhase()
			phase = p.Phase
			resetPeak()
		}
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	endPhase()
	after := procStatus("VmRSS")

	s, r := NewSessions(store), NewRetention(store)
	page, err := s.Largest(PageQuery{Limit: 3})
	rows := page.Rows
	if err != nil || len(rows) != 3 {
		t.Fatalf("%d results (%v)", len(rows), err)
	}
	for _, row := range rows {
		if !row.TokensExact {
			t.Errorf("result %s was not counted", row.Tool)
		}
	}
	if hits, err := s.Search(SearchQuery{Query: "eu-west-1", Limit: MaxPage}); err != nil || hits.Total != 2 {
		t.Errorf("search found %d results (%v), want the two texts", hits.Total, err)
	}
	open := func(name string, fn func() error) {
		runtime.GC()
		debug.FreeOSMemory()
		resetPeak()
		if err := fn(); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		peaks[name] = procStatus("VmHWM")
	}
	open("open the result", func() error {
		d, err := s.Result(ResultQuery{ID: rows[0].ID})
		if err == nil && (len(d.Blocks) != 1 || !d.Blocks[0].Truncated) {
			err = fmt.Errorf("the view got %d blocks", len(d.Blocks))
		}
		return err
	})
	open("retain at 12,500", func() error {
		p, err := r.Retain(RetainRequest{ResultID: rows[0].ID, Budget: budget(12500)})
		if err == nil && p.OriginalTokens != int(rows[0].Tokens) {
			err = fmt.Errorf("originalTokens %d, the row says %d", p.OriginalTokens, rows[0].Tokens)
		}
		return err
	})
	open("keep it whole", func() error {
		p, err := r.Retain(RetainRequest{ResultID: rows[1].ID, Route: "openai-tile"})
		if err == nil && !p.OriginalTokensExact {
			err = fmt.Errorf("kept whole without an exact count")
		}
		return err
	})
	for name, peak := range peaks {
		t.Logf("%-18s peak RSS %4d MiB", name, peak>>20)
		if peak > maxPhaseRSS {
			t.Errorf("%s: peak RSS %d MiB, want at most %d MiB", name, peak>>20, maxPhaseRSS>>20)
		}
	}
	for _, p := range []string{sessions.PhaseStructure, sessions.PhaseTokens, sessions.PhaseSearch} {
		if _, ok := peaks[p]; !ok {
			t.Errorf("no %s phase was seen", p)
		}
	}
	t.Logf("RSS %d MiB before the pass, %d MiB after it", idle>>20, after>>20)
	if after > idle+maxIdleGrowth {
		t.Errorf("RSS %d MiB after the pass, %d MiB before it", after>>20, idle>>20)
	}
}
