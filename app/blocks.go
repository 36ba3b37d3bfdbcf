package app

import (
	"path/filepath"

	"spillscope/retention"
	"spillscope/retention/imagecost"
	"spillscope/retention/links"
)

// maxShownText bounds one text block sent to the window; the rest of a huge
// block is read from the source or spill file on demand.
const maxShownText = 256 << 10

// textPages says how blockViews shows text blocks. With pages set, block i
// is paged when pages(i) gives the masker of its text (found over the whole
// text, so the count of masked values covers what is not sent yet); with
// skip, text blocks are left empty for the caller to fill.
type textPages struct {
	pages func(i int) *links.Masker
	skip  bool
}

// blockViews maps a result's content to what a pane shows, through the one
// classification every view uses. attachDir decides which image paths the
// window may load (only files in the attachment store). Text and lines are
// masked unless reveal.
func blockViews(blocks []retention.Block, attachDir string, reveal bool, tp textPages) ([]BlockView, int) {
	views := links.Classify(blocks)
	out := make([]BlockView, 0, len(blocks))
	masked := 0
	for i, b := range blocks {
		v := BlockView{Index: i}
		var cls links.View
		if i < len(views) {
			cls = views[i]
		}
		switch {
		case b.Type == retention.TypeText:
			v.Kind = "text"
			v.TextBytes = int64(len(b.Text))
			if tp.skip {
				break
			}
			if tp.pages != nil {
				if m := tp.pages(i); m != nil {
					masked += pagedView(&v, b.Text, m, i, 0, int64(len(b.Text)), reveal)
					break
				}
			}
			st := show(b.Text, reveal)
			v.Text, v.ShownBytes, v.Truncated, v.Masks = st.text, st.shownBytes, st.truncated, st.masks
		case b.Type == retention.TypeImage && cls.Kind == links.KindItself:
			v.Kind = "image"
			v.MimeType, v.Path = b.MimeType, b.Path
			v.ImageURL = attachmentURL(b.Path, attachDir)
			if info, err := imageInfo(b); err == nil {
				v.Width, v.Height = info.Width, info.Height
				if v.MimeType == "" {
					v.MimeType = info.MediaType
				}
			} else {
				// Shown as recorded, with why the window cannot display it.
				v.Reason, v.Text = "image-unreadable", err.Error()
			}
		default:
			v.Kind = cls.Kind
			if v.Kind == "" || v.Kind == links.KindItself {
				v.Kind = links.KindMarker
			}
			// A link's line shows its URI only when CheckURI lets it; the
			// line is masked all the same, so no spelling the scrub knows
			// reaches the window either.
			st := show(cls.Line, reveal)
			v.Text, v.ShownBytes, v.Masks = st.text, st.shownBytes, st.masks
			v.TextBytes = int64(len(cls.Line))
		}
		masked += len(v.Masks)
		v.NotForModel = cls.NotForModel
		if v.Reason == "" {
			v.Reason, v.Parameter = cls.Reason, cls.Parameter
		}
		out = append(out, v)
	}
	return out, masked
}

// pagedView makes v show text[start:end] of block (-1: a complete file) by
// page, and returns how many values that masks.
func pagedView(v *BlockView, text string, m *links.Masker, block int, start, end int64, reveal bool) int {
	pg := textPage(text, m, start, reveal)
	v.Src, v.Page = &TextSpan{Block: block, Start: start, End: end}, &pg
	v.Text, v.Masks, v.Truncated, v.ShownBytes = "", nil, false, end-start
	if reveal {
		return 0
	}
	v.Masked = m.Count(int(start), int(end))
	return v.Masked
}

func imageInfo(b retention.Block) (imagecost.Info, error) {
	if b.Path != "" {
		return imagecost.SniffFile(b.Path)
	}
	return imagecost.SniffBase64(b.Data)
}

// attachmentURL is the window's URL for an image in the attachment store,
// or "" for a path elsewhere (which the window never loads).
func attachmentURL(path, attachDir string) string {
	if path == "" || attachDir == "" {
		return ""
	}
	dir, name := filepath.Split(path)
	if filepath.Clean(dir) != filepath.Clean(attachDir) || !attachmentName.MatchString(name) {
		return ""
	}
	return attachmentPrefix + name
}
