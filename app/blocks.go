package app

import (
	"path/filepath"
	"unicode/utf8"

	"spillscope/retention"
	"spillscope/retention/imagecost"
	"spillscope/retention/links"
)

// maxShownText bounds one text block sent to the window; the rest of a huge
// block is read from the source or spill file on demand.
const maxShownText = 256 << 10

// blockViews maps a result's content to what a pane shows, through the one
// classification every view uses. attachDir decides which image paths the
// window may load (only files in the attachment store).
func blockViews(blocks []retention.Block, attachDir string) []BlockView {
	views := links.Classify(blocks)
	out := make([]BlockView, 0, len(blocks))
	for i, b := range blocks {
		v := BlockView{Index: i}
		var cls links.View
		if i < len(views) {
			cls = views[i]
		}
		switch {
		case b.Type == retention.TypeText:
			v.Kind = "text"
			v.Text, v.TextBytes, v.Truncated = shownText(b.Text)
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
			v.Text = cls.Line
			v.TextBytes = int64(len(cls.Line))
		}
		v.NotForModel = cls.NotForModel
		if v.Reason == "" {
			v.Reason, v.Parameter = cls.Reason, cls.Parameter
		}
		out = append(out, v)
	}
	return out
}

func imageInfo(b retention.Block) (imagecost.Info, error) {
	if b.Path != "" {
		return imagecost.SniffFile(b.Path)
	}
	return imagecost.SniffBase64(b.Data)
}

// shownText shortens s to maxShownText bytes on a code-point boundary.
func shownText(s string) (string, int64, bool) {
	if len(s) <= maxShownText {
		return s, int64(len(s)), false
	}
	cut := maxShownText
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut], int64(len(s)), true
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
