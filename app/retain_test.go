package app

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"spillscope/retention"
)

func pngBase64(t *testing.T, w, h int) string {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for x := 0; x < w; x++ {
		img.Set(x, x%h, color.RGBA{R: 200, A: 255})
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return base64.StdEncoding.EncodeToString(buf.Bytes())
}

func pastedResult(t *testing.T) string {
	t.Helper()
	content := []map[string]any{
		{"type": "text", "text": strings.Repeat("head line of output with words\n", 400)},
		{"type": "image", "mimeType": "image/png", "data": pngBase64(t, 64, 48)},
		{"type": "text", "text": strings.Repeat("tail line 世界 🙂\n", 400)},
	}
	data, err := json.Marshal(map[string]any{"content": content})
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func budget(n int64) *int64 { return &n }

func TestRetainPasted(t *testing.T) {
	r := NewRetention(NewStore(Config{DataDir: t.TempDir()}, nil))
	js := pastedResult(t)
	tests := []struct {
		name       string
		budget     *int64
		wantStatus string
	}{
		{"disabled", nil, "disabled"},
		{"large budget", budget(1 << 20), "within_budget"},
		{"cut", budget(2000), "replaced"},
		{"tiny", budget(5), "preserved"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := r.Retain(RetainRequest{JSON: js, Budget: tt.budget, Route: "anthropic"})
			if err != nil {
				t.Fatal(err)
			}
			if p.Status != tt.wantStatus {
				t.Fatalf("status %q, want %q (diagnostics %v)", p.Status, tt.wantStatus, p.Diagnostics)
			}
			if tt.budget != nil && (p.Status == "replaced" || p.Status == "notice_only") && int64(p.Tokens.Total) > *tt.budget {
				t.Errorf("replaced result costs %d > budget %d", p.Tokens.Total, *tt.budget)
			}
			if p.Status == "replaced" {
				kinds := []string{}
				for _, b := range p.Blocks {
					kinds = append(kinds, b.Kind)
				}
				if kinds[len(kinds)-1] != "notice" || !strings.Contains(strings.Join(kinds, ","), "omitted") {
					t.Errorf("projection kinds %v: want an omitted marker and the notice last", kinds)
				}
				if p.Blocks[0].Cut != "head" && p.Blocks[0].Cut != "" {
					t.Errorf("first block cut %q", p.Blocks[0].Cut)
				}
				if p.CompleteFile == "" || strings.Contains(p.CompleteFile, "iVBOR") {
					t.Errorf("complete file missing or holds base64")
				}
			}
		})
	}
	if _, err := r.Retain(RetainRequest{JSON: "{not json", Budget: budget(10)}); err == nil {
		t.Error("bad JSON accepted")
	}
	if _, err := r.Retain(RetainRequest{JSON: js, Budget: budget(-1)}); err == nil || !strings.Contains(err.Error(), "maxInlineTokens") {
		t.Errorf("negative budget: %v", err)
	}
	if _, err := r.Retain(RetainRequest{JSON: js, Budget: budget(100), Route: "nope"}); err == nil {
		t.Error("unknown route accepted")
	}
}

func TestSweepMatchesRetain(t *testing.T) {
	_, r, _, _, _ := newIndexedApp(t)
	s := NewSessions(r.store)
	sessions, err := listAll(s, SessionQuery{})
	if err != nil {
		t.Fatal(err)
	}
	budgets := []int64{0, 2000, 100000}
	checked, compared := 0, 0
	for _, sess := range sessions {
		results, err := resultsAll(s, sess.ID)
		if err != nil {
			t.Fatal(err)
		}
		for _, res := range results {
			checked++
			// Comparing every result at every budget is slow under -race;
			// a spread of them (every harness appears early) is enough.
			if compared >= 10 {
				continue
			}
			compared++
			rows, err := r.Sweep(SweepRequest{ResultID: res.ID, Budgets: budgets})
			if err != nil {
				t.Fatal(err)
			}
			for i, b := range budgets {
				p, err := r.Retain(RetainRequest{ResultID: res.ID, Budget: budget(b)})
				if err != nil {
					t.Fatal(err)
				}
				if rows[i].InlineTokens != int64(p.Tokens.Total) || rows[i].OmittedImages != p.OmittedImages || rows[i].OmittedBytes != p.OmittedBytes {
					t.Errorf("result %d budget %d: sweep %+v, retain %+v", res.ID, b, rows[i], p)
				}
			}
		}
	}
	if checked == 0 {
		t.Fatal("no results swept")
	}
	all, err := r.Sweep(SweepRequest{Budgets: budgets})
	if err != nil {
		t.Fatal(err)
	}
	if all[0].Results != checked {
		t.Errorf("index sweep considered %d results, want %d", all[0].Results, checked)
	}
	if _, err := r.Sweep(SweepRequest{Budgets: []int64{-5}}); err == nil {
		t.Error("negative budget accepted")
	}
}

func TestStorePastedImages(t *testing.T) {
	pngB64 := pngBase64(t, 64, 48)
	pngRaw, _ := base64.StdEncoding.DecodeString(pngB64)
	var jb bytes.Buffer
	if err := jpeg.Encode(&jb, image.NewRGBA(image.Rect(0, 0, 8, 8)), nil); err != nil {
		t.Fatal(err)
	}
	jpegRaw := jb.Bytes()
	name := func(raw []byte, ext string) string {
		sum := sha256.Sum256(raw)
		return hex.EncodeToString(sum[:]) + "." + ext
	}
	img := func(mime, data string) retention.Block {
		return retention.Block{Type: retention.TypeImage, MimeType: mime, Data: data}
	}
	tests := []struct {
		name     string
		blocks   []retention.Block
		wantFile []string // per block: the stored file's name, "" = left as pasted
		wantDir  int      // files in the store afterwards
	}{
		{"png", []retention.Block{img("image/png", pngB64)}, []string{name(pngRaw, "png")}, 1},
		// The indexer's name, so a pasted copy of a recorded image is the same file.
		{"jpeg named as the indexer names it", []retention.Block{img("image/jpeg", base64.StdEncoding.EncodeToString(jpegRaw))}, []string{name(jpegRaw, "jpeg")}, 1},
		{"same image twice is one file", []retention.Block{img("image/png", pngB64), img("image/png", pngB64)}, []string{name(pngRaw, "png"), name(pngRaw, "png")}, 1},
		{"wrapped base64", []retention.Block{img("image/png", pngB64[:40]+"\n"+pngB64[40:])}, []string{name(pngRaw, "png")}, 1},
		{"not an image stays pasted", []retention.Block{img("image/png", base64.StdEncoding.EncodeToString([]byte("hello")))}, []string{""}, 0},
		{"invalid base64 stays pasted", []retention.Block{img("image/png", "@@@@")}, []string{""}, 0},
		{"text untouched", []retention.Block{{Type: retention.TypeText, Text: "hi"}}, []string{""}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "attachments")
			res := retention.Result{Content: append([]retention.Block(nil), tt.blocks...)}
			storePastedImages(&res, dir)
			for i, b := range res.Content {
				if tt.wantFile[i] == "" {
					if b.Path != "" || b.Data != tt.blocks[i].Data {
						t.Errorf("block %d: path %q, data changed; want it left as pasted", i, b.Path)
					}
					continue
				}
				if want := filepath.Join(dir, tt.wantFile[i]); b.Path != want || b.Data != "" {
					t.Errorf("block %d: path %q (data %d bytes), want %q and no data", i, b.Path, len(b.Data), want)
				}
			}
			ents, _ := os.ReadDir(dir)
			if len(ents) != tt.wantDir {
				t.Errorf("store holds %d files, want %d", len(ents), tt.wantDir)
			}
		})
	}
}

// A kept piece of a cut text block says where it begins in its source
// block, so a byte range of the source (a link the audit opened the result
// at) is found in the piece: revealed, the piece is the source's bytes from
// there.
func TestProjectionPiecesSayWhereTheyBegin(t *testing.T) {
	s, r, _, _, _ := newIndexedApp(t)
	page, err := s.Largest(PageQuery{Limit: 5})
	if err != nil {
		t.Fatal(err)
	}
	tails := 0
	for _, row := range page.Rows {
		d, err := s.Result(ResultQuery{ID: row.ID, Reveal: true})
		if err != nil {
			t.Fatal(err)
		}
		p, err := r.Retain(RetainRequest{ResultID: row.ID, Budget: budget(500), Reveal: true})
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range p.Blocks {
			if b.Kind != "text" || b.Cut == "" || b.Truncated || b.Index >= len(d.Blocks) || d.Blocks[b.Index].Truncated {
				continue
			}
			src := d.Blocks[b.Index].Text
			if end := b.SourceStart + int64(len(b.Text)); b.SourceStart < 0 || end > int64(len(src)) || src[b.SourceStart:end] != b.Text {
				t.Errorf("result %d block %d: the %s piece is not the source's bytes from %d", row.ID, b.Index, b.Cut, b.SourceStart)
			}
			if b.Cut == "tail" {
				tails++
				if b.SourceStart == 0 {
					t.Errorf("result %d: a tail piece begins at 0", row.ID)
				}
			}
		}
	}
	if tails == 0 {
		t.Fatal("no tail piece among the largest results at 500 tokens: the test checks nothing")
	}
}
