package app

import (
	"context"
	"hash/maphash"
	"strconv"
	"unicode/utf8"

	"spillscope/retention/links"
)

// The window reads long texts a page at a time: a view names the real bytes
// it shows (TextSpan) and carries the page holding their start, and the pane
// asks for the next pages as they scroll into sight. A page's bounds depend
// only on the text, so every view of one result shares its pages: a re-run's
// kept head is the pages the recorded pane already has, and an answer stays a
// few pages whatever the result's size.

// pageBytes is the size of one page of text.
const pageBytes = 8 << 10

// TextSpan says a view shows the real bytes [Start, End) of a longer text:
// block Block of the result's content, or its complete file (Block -1, the
// file the decision would write).
type TextSpan struct {
	Block int   `json:"block"`
	Start int64 `json:"start"`
	End   int64 `json:"end"`
}

// TextPage is the page of a longer text holding a given byte: its real
// bytes [Start, End) of Size, with each credential value replaced by
// [redacted] (Masks, relative to Start, say where) unless revealed.
type TextPage struct {
	Start int64      `json:"start"`
	End   int64      `json:"end"`
	Size  int64      `json:"size"`
	Text  string     `json:"text"`
	Masks []MaskSpan `json:"masks"`
}

// TextQuery asks for the page holding byte Offset of one of an indexed
// result's texts: block Block of its content, or with Block -1 the complete
// file of the decision Retain names (its ResultID and Reveal are this
// query's), which must still be the file FileKey names when it is set.
type TextQuery struct {
	ResultID int64          `json:"resultId"`
	Block    int            `json:"block"`
	Offset   int64          `json:"offset"`
	Reveal   bool           `json:"reveal"`
	Retain   *RetainRequest `json:"retain"`
	FileKey  string         `json:"fileKey"`
}

// pageBounds returns the page of text holding byte off. Pages are cut every
// pageBytes, each cut moved back to the start of its code point (at most
// three bytes), so the pages tile the text the same way from any offset.
func pageBounds(text string, off int) (int, int) {
	off = min(max(off, 0), len(text))
	k := off / pageBytes
	start, end := pageCut(text, k), pageCut(text, k+1)
	if off >= end && end < len(text) {
		start, end = end, pageCut(text, k+2)
	}
	return start, end
}

func pageCut(text string, k int) int {
	i := k * pageBytes
	if i >= len(text) {
		return len(text)
	}
	for j := 0; j < utf8.UTFMax-1 && i > 0 && !utf8.RuneStart(text[i]); j++ {
		i--
	}
	return i
}

// textPage is the page of text holding off, masked with m (found once for
// the whole text) unless reveal.
func textPage(text string, m *links.Masker, off int64, reveal bool) TextPage {
	start, end := pageBounds(text, int(off))
	p := TextPage{Start: int64(start), End: int64(end), Size: int64(len(text))}
	if reveal {
		p.Text = text[start:end]
		return p
	}
	var spans []links.MaskSpan
	p.Text, spans = m.Range(start, end)
	p.Masks = maskSpans(spans)
	return p
}

// Text reads one page of an indexed result's block, or of the complete file
// a decision on it would write, for a pane scrolling through it.
func (r *Retention) Text(q TextQuery) (TextPage, error) {
	defer startCall("Text").done()
	if q.ResultID <= 0 || q.Offset < 0 {
		return TextPage{}, coded("read-range-invalid", "offset", q.Offset, "limit", pageBytes)
	}
	db, err := r.store.DB()
	if err != nil {
		return TextPage{}, err
	}
	if q.Block < 0 {
		if q.Retain == nil {
			return TextPage{}, coded("retain-no-input")
		}
		req := *q.Retain
		req.ResultID, req.JSON, req.Reveal, req.Paged = q.ResultID, "", q.Reveal, true
		c, out, err := r.decide(db, req, nil)
		if err != nil {
			return TextPage{}, err
		}
		if q.FileKey != "" && fileKey(out.CompleteFile) != q.FileKey {
			return TextPage{}, coded("text-changed")
		}
		return textPage(out.CompleteFile, c.src.fileMasker(out.CompleteFile), q.Offset, q.Reveal), nil
	}
	l, err := r.store.results.load(context.Background(), db, q.ResultID)
	if err != nil {
		return TextPage{}, err
	}
	if q.Block >= len(l.res.Content) {
		return TextPage{}, coded("read-range-invalid", "offset", q.Offset, "limit", pageBytes)
	}
	text := l.res.Content[q.Block].Text
	return textPage(text, l.masker(q.Block), q.Offset, q.Reveal), nil
}

// fileSeed keys complete files within one run of the app.
var fileSeed = maphash.MakeSeed()

// fileKey names a complete file's text, so the window keeps the pages it
// read for as long as a decision writes the same file (a budget change
// rarely changes it).
func fileKey(text string) string {
	return strconv.FormatUint(maphash.String(fileSeed, text), 36) + "-" + strconv.Itoa(len(text))
}
