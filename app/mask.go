package app

import (
	"unicode/utf8"

	"spillscope/retention/links"
)

// What the window receives is masked here, in Go, before it crosses to the
// window: the DOM never holds a credential value unless the user asked to
// reveal the result's credentials. Figures (bytes, tokens, cut positions)
// are always those of the real text; masks say where the two differ.

// MaskSpan is one masked credential in a shown text: its byte range in the
// real text (relative to what is shown) and where its [redacted]
// placeholder stands in the shown text.
type MaskSpan struct {
	Start     int    `json:"start"`
	End       int    `json:"end"`
	At        int    `json:"at"`
	Kind      string `json:"kind"`
	Parameter string `json:"parameter"`
}

func maskSpans(in []links.MaskSpan) []MaskSpan {
	if len(in) == 0 {
		return nil
	}
	out := make([]MaskSpan, len(in))
	for i, s := range in {
		out[i] = MaskSpan{Start: s.Start, End: s.End, At: s.At, Kind: s.Kind, Parameter: s.Parameter}
	}
	return out
}

// shownText is what a pane shows of text[start:end]: at most maxShownText
// bytes of it, cut on a code point, masked as it reads within the whole of
// text (so a credential cut at start, at end or at the display cut is still
// masked) unless reveal is set. shownBytes counts the real bytes shown.
type shownText struct {
	text       string
	shownBytes int64
	truncated  bool
	masks      []MaskSpan
}

func showRange(text string, start, end int, reveal bool) shownText {
	cut := end
	if end-start > maxShownText {
		cut = start + maxShownText
		for cut > start && !utf8.RuneStart(text[cut]) {
			cut--
		}
	}
	st := shownText{shownBytes: int64(cut - start), truncated: cut < end}
	if reveal {
		st.text = text[start:cut]
		return st
	}
	masked, spans := links.MaskRange(text, start, cut)
	st.text, st.masks = masked, maskSpans(spans)
	return st
}

// show is showRange over the whole of s.
func show(s string, reveal bool) shownText { return showRange(s, 0, len(s), reveal) }
