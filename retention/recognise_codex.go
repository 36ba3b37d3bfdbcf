package retention

import (
	"strconv"
	"strings"
)

// Recognisers of the texts Codex CLI writes when it cuts a tool output, for
// the indexer: one per convention, each reporting the recorded figures and
// where the texts sit, never rewriting them. A match is a text convention,
// not proof that Codex wrote it.

// CodexMarker is one "…N tokens truncated…" or "…N chars truncated…"
// marker: its byte span, count and unit ("tokens" or "chars").
type CodexMarker struct {
	Start int    `json:"start"`
	End   int    `json:"end"`
	Count int64  `json:"count"`
	Unit  string `json:"unit"`
}

// CodexNotice is what RecogniseCodexTruncation found in one tool output.
type CodexNotice struct {
	// ExecOriginalTokens is the unified exec wrapper's "Original token
	// count: N" line (0.125+: "Chunk ID: …\nWall time: …\n…\nOriginal
	// token count: N\nOutput:\n"), -1 when there is none.
	ExecOriginalTokens int64 `json:"execOriginalTokens"`
	// HeaderStart and HeaderEnd span formatted_truncate_text's header, its
	// blank line included (both -1 without one). Warning says whether it
	// has the "Warning: truncated output (original token count: N)" line
	// (0.142 and later); OriginalTokens is that N (-1 without it) and Lines
	// the "Total output lines: L" figure.
	HeaderStart    int   `json:"headerStart"`
	HeaderEnd      int   `json:"headerEnd"`
	Warning        bool  `json:"warning"`
	OriginalTokens int64 `json:"originalTokens"`
	Lines          int64 `json:"lines"`
	// Markers are the truncation markers after the header (or anywhere,
	// without one), in order.
	Markers []CodexMarker `json:"markers"`
}

// RecogniseCodexTruncation finds Codex's truncation header and markers in
// text: a header at the start of the text or of the exec wrapper's output,
// and every marker after it. ok is false when there is neither.
func RecogniseCodexTruncation(text string) (CodexNotice, bool) {
	n := CodexNotice{ExecOriginalTokens: -1, HeaderStart: -1, HeaderEnd: -1, OriginalTokens: -1, Lines: -1}
	body := 0
	if i := strings.Index(text, "\nOriginal token count: "); i >= 0 {
		rest := text[i+len("\nOriginal token count: "):]
		if v, w, ok := leadingInt(rest); ok && strings.HasPrefix(rest[w:], "\nOutput:\n") {
			n.ExecOriginalTokens = v
			body = i + len("\nOriginal token count: ") + w + len("\nOutput:\n")
		}
	}
	if end, warn, orig, lines, ok := codexHeader(text[body:]); ok {
		n.HeaderStart, n.HeaderEnd = body, body+end
		n.Warning, n.OriginalTokens, n.Lines = warn, orig, lines
		body += end
	} else {
		body = 0
	}
	n.Markers = codexMarkers(text, body)
	return n, n.HeaderStart >= 0 || len(n.Markers) > 0
}

// codexHeader parses a header at the start of s: its length with the blank
// line, whether it has the Warning line, and its figures.
func codexHeader(s string) (end int, warning bool, original, lines int64, ok bool) {
	original = -1
	at := 0
	if strings.HasPrefix(s, codexWarning) {
		v, w, ok := leadingInt(s[len(codexWarning):])
		if !ok || !strings.HasPrefix(s[len(codexWarning)+w:], ")\n") {
			return 0, false, -1, -1, false
		}
		warning, original = true, v
		at = len(codexWarning) + w + 2
	}
	if !strings.HasPrefix(s[at:], codexLines) {
		return 0, false, -1, -1, false
	}
	at += len(codexLines)
	v, w, ok := leadingInt(s[at:])
	if !ok || !strings.HasPrefix(s[at+w:], "\n\n") {
		return 0, false, -1, -1, false
	}
	return at + w + 2, warning, original, v, true
}

// codexMarkers finds every marker in text from offset from.
func codexMarkers(text string, from int) []CodexMarker {
	var out []CodexMarker
	for i := from; i < len(text); {
		j := strings.Index(text[i:], "…")
		if j < 0 {
			break
		}
		start := i + j
		i = start + len("…")
		if m, ok := codexMarkerAt(text, start); ok {
			out = append(out, m)
			i = m.End
		}
	}
	return out
}

// codexMarkerAt reads a marker starting at text[start:].
func codexMarkerAt(text string, start int) (CodexMarker, bool) {
	rest := text[start+len("…"):]
	v, w, ok := leadingInt(rest)
	if !ok {
		return CodexMarker{}, false
	}
	for _, unit := range []string{"tokens", "chars"} {
		tail := " " + unit + " truncated…"
		if strings.HasPrefix(rest[w:], tail) {
			return CodexMarker{Start: start, End: start + len("…") + w + len(tail), Count: v, Unit: unit}, true
		}
	}
	return CodexMarker{}, false
}

// leadingInt reads the decimal digits at the start of s: the value, how
// many bytes they take, and false when there are none or they overflow.
func leadingInt(s string) (int64, int, bool) {
	w := 0
	for w < len(s) && s[w] >= '0' && s[w] <= '9' {
		w++
	}
	if w == 0 {
		return 0, 0, false
	}
	v, err := strconv.ParseInt(s[:w], 10, 64)
	return v, w, err == nil
}

// CodexPersistenceMarker is what a paginated rollout puts where it cut a
// command's aggregated output down to 64 KiB for storage
// (PERSISTED_COMMAND_OUTPUT_TRUNCATION_MARKER, codex-rs/rollout/src/policy.rs).
const CodexPersistenceMarker = "\n... command output truncated for persistence ...\n"

// RecogniseCodexPersistenceCut finds CodexPersistenceMarker in a rollout's
// recorded aggregated output: its byte offset, and false when it is absent.
// Text so cut is no longer the complete output, so it cannot serve as the
// original of a replay.
func RecogniseCodexPersistenceCut(text string) (int, bool) {
	i := strings.Index(text, CodexPersistenceMarker)
	return i, i >= 0
}
