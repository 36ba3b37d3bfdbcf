package links

import (
	"slices"
	"strings"
	"unicode/utf8"
)

// Masked is what a masked credential shows as on screen.
const Masked = "[redacted]"

// Kinds of MaskSpan.
const (
	// MaskParameter: the value of a listed parameter (name=value in a URL's
	// query, fragment or path parameters, or anywhere in text).
	MaskParameter = "parameter"
	// MaskUserinfo: a URL's user name and password (user:pass@host).
	MaskUserinfo = "userinfo"
	// MaskUnread: text that continues a run begun (or ending) beyond what the
	// caller read, so what it holds cannot be told; see Window.
	MaskUnread = "unread"
)

// MaskSpan is one masked credential. Start and End are its byte range in
// the real text (what figures, cuts and links count in); At is where its
// Masked placeholder begins in the masked text. Parameter is the list's
// spelling of the matched name, never the value.
type MaskSpan struct {
	Start     int    `json:"start"`
	End       int    `json:"end"`
	At        int    `json:"at"`
	Kind      string `json:"kind"`
	Parameter string `json:"parameter,omitempty"`
}

// Mask returns text with every credential the link rules recognise replaced
// by Masked, and where each was. It masks:
//   - in each URL the scanner finds (as ScanText finds them), the userinfo
//     (https://[redacted]@host/) and the value of every listed parameter
//     with a value, read as CheckURI reads a URI: path parameters, query and
//     fragment (#access_token=…, #/reset?token=…), with & alone and with &,
//     ?, ; and # as separators, percent-decoded, through JSON and shell
//     escapes (\/ \u0026 \&);
//   - every listed name=value anywhere else, in each spelling ScrubValues
//     knows (doubly JSON-escaped, percent-encoded, "=" as %3D or \u003d).
//
// The name stays, the value goes: X-Amz-Signature=[redacted]. Masking is
// idempotent (masked text masks to itself with no spans) and linear in the
// text's length. Text with nothing to mask is returned as it is.
func Mask(text string) (string, []MaskSpan) {
	return apply(text, 0, len(text), textSecrets(text))
}

// MaskRange masks text[start:end] as it reads within the whole of text: a
// credential that begins before start or ends after end (a value cut by a
// page or by a retention cut) is recognised from the text around it and
// masked on both sides. Spans are relative to start. Only the runs of text
// around the range are read, so masking a small range of a large text costs
// the range, not the text.
func MaskRange(text string, start, end int) (string, []MaskSpan) {
	return MaskWindow(Window{Text: text, Start: start, End: end})
}

// Window is part of a longer text that was read around a range to show,
// such as a page of a file with some bytes before and after it. Before and
// After say the longer text goes on before Text begins or after it ends.
// Read back and forth to a hard stop (see RunStart) and the window masks
// exactly as the whole text would; where the reader gave up first, the run
// it cut is masked whole (MaskUnread), since a credential could begin or end
// out of sight.
type Window struct {
	Text          string
	Start, End    int
	Before, After bool
}

// MaskWindow masks w.Text[w.Start:w.End] as MaskRange does, within a window
// of a longer text. Spans are relative to w.Start.
func MaskWindow(w Window) (string, []MaskSpan) {
	start := min(max(w.Start, 0), len(w.Text))
	end := min(max(w.End, start), len(w.Text))
	lo, loOK := RunStart(w.Text, start)
	hi, hiOK := RunEnd(w.Text, end)
	var open []secret
	if w.Before && !loOK {
		// The run at start began before the window; nothing in it can be
		// read, up to its first hard stop.
		e, _ := RunEnd(w.Text, start)
		open = append(open, secret{start: start, end: e, kind: MaskUnread})
		lo = e
	}
	if w.After && !hiOK {
		s, _ := RunStart(w.Text, end)
		open = append(open, secret{start: max(s, lo), end: end, kind: MaskUnread})
		hi = max(s, lo)
	}
	var found []secret
	if hi > lo {
		found = textSecrets(w.Text[lo:hi])
		for i := range found {
			found[i].start += lo
			found[i].end += lo
		}
	}
	return apply(w.Text, start, end, merge(append(found, open...)))
}

// isHardStop reports the bytes no URL, parameter name or value holds: ASCII
// controls, space, and the delimiters " < > ` (the scanner's stop bytes).
func isHardStop(c byte) bool { return c < utf8.RuneSelf && stopASCII[c] }

// RunStart returns where the run holding position i of text begins: just
// after the last hard stop before i (an ASCII control or space, ", <, > or
// `). A credential never holds a hard stop, so one that covers i lies in
// text[RunStart:RunEnd]. ok is false when text holds no hard stop before i:
// the run may have begun before text did (0 is returned).
func RunStart(text string, i int) (int, bool) {
	for j := min(i, len(text)) - 1; j >= 0; j-- {
		if isHardStop(text[j]) {
			return j + 1, true
		}
	}
	return 0, false
}

// RunEnd returns where the run holding position i of text ends: at the
// first hard stop at or after i. ok is false when there is none (len(text)
// is returned).
func RunEnd(text string, i int) (int, bool) {
	for j := max(i, 0); j < len(text); j++ {
		if isHardStop(text[j]) {
			return j, true
		}
	}
	return len(text), false
}

// apply writes text[start:end] with each secret replaced by Masked; a
// secret cut by the range is masked in full on its side of the cut.
func apply(text string, start, end int, secrets []secret) (string, []MaskSpan) {
	var b strings.Builder
	var spans []MaskSpan
	last := start
	for _, s := range secrets {
		if s.end <= start || s.start >= end {
			continue
		}
		from, to := max(s.start, start), min(s.end, end)
		if from < last {
			from = last
		}
		if to <= from {
			continue
		}
		if spans == nil {
			b.Grow(end - start + 16)
		}
		b.WriteString(text[last:from])
		spans = append(spans, MaskSpan{Start: from - start, End: to - start, At: b.Len(), Kind: s.kind, Parameter: s.param})
		b.WriteString(Masked)
		last = to
	}
	if spans == nil {
		return text[start:end], nil
	}
	b.WriteString(text[last:end])
	return b.String(), spans
}

// MaskedOffset maps a byte offset in the real text to the masked text that
// spans describe: an offset inside a masked value maps to its placeholder's
// start. Views use it to find a link or a cut in what they show.
func MaskedOffset(spans []MaskSpan, off int) int {
	shift := 0
	for _, s := range spans {
		if off < s.Start {
			break
		}
		if off < s.End {
			return s.At
		}
		shift = s.At + len(Masked) - s.End
	}
	return off + shift
}

// Masker holds what Mask finds in one text, found once: any range of the text
// then masks (as MaskRange does) and counts its masked values without the
// text being read again, so a long text shown page by page is scanned once.
type Masker struct {
	text    string
	secrets []secret
}

// NewMasker scans text for every credential Mask masks.
func NewMasker(text string) Masker { return Masker{text: text, secrets: textSecrets(text)} }

// Range is MaskRange(text, start, end), from what NewMasker found.
func (f Masker) Range(start, end int) (string, []MaskSpan) {
	start = min(max(start, 0), len(f.text))
	end = min(max(end, start), len(f.text))
	return apply(f.text, start, end, f.secrets[f.first(start):])
}

// Count is how many masked values Range(start, end) shows.
func (f Masker) Count(start, end int) int {
	if start = max(start, 0); end <= start {
		return 0
	}
	n := 0
	for _, s := range f.secrets[f.first(start):] {
		if s.start >= end {
			break
		}
		if s.end > start && s.start < end {
			n++
		}
	}
	return n
}

// first is the index of the first secret ending after start (secrets are
// sorted and disjoint).
func (f Masker) first(start int) int {
	i, _ := slices.BinarySearchFunc(f.secrets, start, func(s secret, at int) int {
		if s.end <= at {
			return -1
		}
		return 1
	})
	return i
}
