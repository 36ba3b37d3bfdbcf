package app

import (
	"strings"
	"testing"
	"unicode/utf8"

	"spillscope/sessions/samplegen"
)

func TestPageBounds(t *testing.T) {
	tests := []struct {
		name string
		text string
	}{
		{"empty", ""},
		{"short", "one line\n"},
		{"ascii pages", strings.Repeat("0123456789abcdef", 3*pageBytes/16+5)},
		{"code points across cuts", strings.Repeat("世界🙂é", pageBytes/3)},
		{"invalid utf-8", strings.Repeat("\x80\x80\x80\x80\xff", pageBytes/2)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Walking the pages from 0 tiles the text; the page holding any
			// offset is one of them.
			var cuts []int
			for at := 0; ; {
				start, end := pageBounds(tt.text, at)
				if start != at || (end <= start && end < len(tt.text)) {
					t.Fatalf("page at %d is [%d,%d)", at, start, end)
				}
				if end-start > pageBytes+utf8.UTFMax-1 {
					t.Fatalf("page [%d,%d) holds more than %d bytes", start, end, pageBytes)
				}
				if utf8.ValidString(tt.text) && !utf8.ValidString(tt.text[start:end]) {
					t.Fatalf("page [%d,%d) cuts a code point", start, end)
				}
				cuts = append(cuts, start)
				if end >= len(tt.text) {
					break
				}
				at = end
			}
			for off := 0; off <= len(tt.text); off += 97 {
				start, end := pageBounds(tt.text, off)
				if off < start || (off >= end && end < len(tt.text)) {
					t.Fatalf("page of %d is [%d,%d)", off, start, end)
				}
				found := false
				for _, c := range cuts {
					found = found || c == start
				}
				if !found {
					t.Fatalf("page of %d starts at %d, not at a cut of the walk %v", off, start, cuts)
				}
			}
		})
	}
}

// The window reads the largest result page by page: the recorded pane's and
// the re-run's views name spans of the result, their pages join to its
// text, the masked values counted are those the pages show, and no answer
// carries more than a few pages.
func TestPagedViewsOnSample(t *testing.T) {
	s, r, _, _, _ := newIndexedApp(t)
	page, err := s.Largest(PageQuery{Limit: 1})
	if err != nil || len(page.Rows) == 0 {
		t.Fatalf("largest: %v", err)
	}
	id := page.Rows[0].ID
	whole, err := s.Result(ResultQuery{ID: id, Reveal: true})
	if err != nil {
		t.Fatal(err)
	}
	paged, err := s.Result(ResultQuery{ID: id, Paged: true})
	if err != nil {
		t.Fatal(err)
	}
	// read joins the pages of span sp, as the pane scrolls through them.
	read := func(t *testing.T, sp TextSpan, reveal bool, retain *RetainRequest) (string, int) {
		t.Helper()
		var sb strings.Builder
		masks := 0
		for off := sp.Start; off < sp.End; {
			pg, err := r.Text(TextQuery{ResultID: id, Block: sp.Block, Offset: off, Reveal: reveal, Retain: retain})
			if err != nil {
				t.Fatal(err)
			}
			if pg.Start > off || pg.End <= off || pg.End-pg.Start > pageBytes+utf8.UTFMax-1 {
				t.Fatalf("page of %d is [%d,%d)", off, pg.Start, pg.End)
			}
			// Revealed, a page's text is its bytes: cut it to the span (the
			// window cuts masked pages through their masks).
			if reveal && (pg.Start < sp.Start || pg.End > sp.End) {
				pg.Text = pg.Text[max(sp.Start-pg.Start, 0) : min(sp.End, pg.End)-pg.Start]
			}
			sb.WriteString(pg.Text)
			masks += len(pg.Masks)
			off = pg.End
		}
		return sb.String(), masks
	}
	if len(paged.Blocks) != len(whole.Blocks) {
		t.Fatalf("%d paged blocks, %d whole", len(paged.Blocks), len(whole.Blocks))
	}
	masked := 0
	for i, v := range paged.Blocks {
		if v.Kind != "text" {
			continue
		}
		if v.Src == nil || v.Page == nil || v.Text != "" || v.Src.Start != 0 || v.Src.End != v.TextBytes {
			t.Fatalf("block %d is not paged: src %+v page %v text %d bytes", i, v.Src, v.Page != nil, len(v.Text))
		}
		got, _ := read(t, *v.Src, true, nil)
		if int64(len(got)) != v.TextBytes || !strings.HasPrefix(got, whole.Blocks[i].Text) {
			t.Fatalf("block %d: the revealed pages join to %d bytes, not the block's %d", i, len(got), v.TextBytes)
		}
		shown, n := read(t, *v.Src, false, nil)
		for _, secret := range samplegen.Secrets {
			if strings.Contains(shown, secret) {
				t.Fatalf("block %d: a masked page shows the sample's credential %.8s…", i, secret)
			}
		}
		if n != v.Masked {
			t.Errorf("block %d: its pages mask %d values, the view counts %d", i, n, v.Masked)
		}
		masked += n
	}
	if masked != paged.Masked {
		t.Errorf("the pages mask %d values, the view counts %d", masked, paged.Masked)
	}

	for _, tt := range []struct {
		name   string
		policy string
		budget int64
	}{
		{"dsh tokens, tight", "dsh-tokens", 1000},
		{"dsh tokens, wide", "dsh-tokens", 200000},
		{"codex", "codex", 10000},
		{"claude code", "claude-code", 50000},
		{"opencode", "opencode", 2000},
	} {
		t.Run(tt.name, func(t *testing.T) {
			req := RetainRequest{ResultID: id, Policy: tt.policy, Budget: budget(tt.budget)}
			inline, err := r.Retain(req)
			if err != nil {
				t.Fatal(err)
			}
			req.Paged = true
			p, err := r.Retain(req)
			if err != nil {
				t.Fatal(err)
			}
			if p.Status != inline.Status || p.Tokens != inline.Tokens || len(p.Blocks) != len(inline.Blocks) {
				t.Fatalf("paged %s %+v (%d views), inline %s %+v (%d)", p.Status, p.Tokens, len(p.Blocks), inline.Status, inline.Tokens, len(inline.Blocks))
			}
			for i, v := range p.Blocks {
				w := inline.Blocks[i]
				if v.Kind != w.Kind || v.Index != w.Index || v.Cut != w.Cut || v.TextBytes != w.TextBytes {
					t.Fatalf("view %d: paged %s/%d/%s/%d, inline %s/%d/%s/%d", i, v.Kind, v.Index, v.Cut, v.TextBytes, w.Kind, w.Index, w.Cut, w.TextBytes)
				}
				if v.Src == nil {
					if v.Text != w.Text {
						t.Fatalf("view %d: unpaged text differs", i)
					}
					continue
				}
				got, _ := read(t, *v.Src, true, nil)
				if w.Truncated {
					if !strings.HasPrefix(got, w.Text[:len(w.Text)-64]) {
						t.Fatalf("view %d: the pages do not begin as the inline text", i)
					}
				} else if int64(len(got)) != v.Src.End-v.Src.Start || (len(w.Masks) == 0 && got != w.Text) {
					t.Fatalf("view %d: the pages read %d bytes, span %+v, inline %d bytes", i, len(got), *v.Src, len(w.Text))
				}
			}
			if inline.CompleteFile != "" {
				if p.CompleteFilePage == nil || p.CompleteFileKey == "" || p.CompleteFile != "" || p.CompleteFileBytes != inline.CompleteFileBytes {
					t.Fatalf("complete file not paged: page %v key %q", p.CompleteFilePage != nil, p.CompleteFileKey)
				}
				got, n := read(t, TextSpan{Block: -1, Start: 0, End: p.CompleteFileBytes}, false, &req)
				if n != p.CompleteFileMasked {
					t.Errorf("the complete file's pages mask %d values, the projection counts %d", n, p.CompleteFileMasked)
				}
				if !strings.HasPrefix(got, inline.CompleteFile[:len(inline.CompleteFile)-64]) {
					t.Fatal("the complete file's pages do not begin as the inline text")
				}
				again, err := r.Retain(RetainRequest{ResultID: id, Policy: tt.policy, Budget: budget(tt.budget + 1), Paged: true})
				if err != nil {
					t.Fatal(err)
				}
				if tt.policy == "dsh-tokens" && again.CompleteFileKey != p.CompleteFileKey {
					t.Errorf("the same complete file under another key at the next budget")
				}
			}
		})
	}
}
