package retention

import (
	"strconv"
	"strings"
)

// Recognisers of the texts Claude Code puts in place of an oversized tool
// result, for the indexer: one per convention, each reporting where the
// text sits and what it records, never rewriting it. A match is a text
// convention, not proof that Claude Code wrote it.

// Kinds of <persisted-output> wrapper.
const (
	// ClaudePersistedPreview: 2.1.x's "Output too large (SIZE). Full
	// output saved to: PATH" with a preview.
	ClaudePersistedPreview = "preview"
	// ClaudePersistedLegacy: the earlier "Tool result saved to: PATH" with
	// "Use Read to view".
	ClaudePersistedLegacy = "legacy"
)

// ClaudePersisted is a recognised <persisted-output> wrapper.
type ClaudePersisted struct {
	Kind string `json:"kind"`
	// Start and End span the wrapper, tags included, in bytes.
	Start int `json:"start"`
	End   int `json:"end"`
	// Size is the recorded size text ("141KB"); SizeMin and SizeMax bound
	// the original's length in UTF-16 units that prints as it (both -1 for
	// the legacy form, or a size text ClaudeFormatSize never writes).
	Size    string `json:"size,omitempty"`
	SizeMin int64  `json:"sizeMin"`
	SizeMax int64  `json:"sizeMax"`
	Path    string `json:"path"`
	// PreviewStart and PreviewEnd span the preview (both 0 for the legacy
	// form); More says "\n...\n" followed it.
	PreviewStart int  `json:"previewStart"`
	PreviewEnd   int  `json:"previewEnd"`
	More         bool `json:"more"`
}

// RecogniseClaudePersistedOutput finds a <persisted-output> wrapper in text
// (a tool_result's content): the first one, of either form.
func RecogniseClaudePersistedOutput(text string) (ClaudePersisted, bool) {
	start := strings.Index(text, ClaudePersistedOpen)
	if start < 0 {
		return ClaudePersisted{}, false
	}
	body := text[start+len(ClaudePersistedOpen):]
	at := start + len(ClaudePersistedOpen)
	if rest, ok := strings.CutPrefix(body, "Tool result saved to: "); ok {
		path, tail, ok := strings.Cut(rest, "\n\nUse Read to view"+ClaudePersistedClose)
		if !ok || strings.Contains(path, "\n") {
			return ClaudePersisted{}, false
		}
		return ClaudePersisted{Kind: ClaudePersistedLegacy, Start: start, End: len(text) - len(tail), SizeMin: -1, SizeMax: -1, Path: path}, true
	}
	rest, ok := strings.CutPrefix(body, "\n"+claudeTooLarge)
	if !ok {
		return ClaudePersisted{}, false
	}
	at += 1 + len(claudeTooLarge)
	size, rest, ok := strings.Cut(rest, claudeSavedTo)
	if !ok || strings.Contains(size, "\n") {
		return ClaudePersisted{}, false
	}
	at += len(size) + len(claudeSavedTo)
	path, after, ok := strings.Cut(rest, claudePreviewLine)
	if !ok || strings.Contains(path, "\n") {
		// No preview section: the path's line closes the wrapper (as a
		// relay or an abbreviated copy may write it).
		path, tail, ok := strings.Cut(rest, "\n"+ClaudePersistedClose)
		if !ok || path == "" || strings.Contains(path, "\n") {
			return ClaudePersisted{}, false
		}
		end := len(text) - len(tail)
		p := ClaudePersisted{Kind: ClaudePersistedPreview, Start: start, End: end, Size: size, Path: path, PreviewStart: at + len(path), PreviewEnd: at + len(path)}
		p.SizeMin, p.SizeMax = ParseClaudeSize(size)
		return p, true
	}
	rest = after
	at += len(path) + len(claudePreviewLine)
	label, rest, ok := strings.Cut(rest, "):\n")
	if !ok || strings.Contains(label, "\n") {
		return ClaudePersisted{}, false
	}
	at += len(label) + len("):\n")
	// The preview is everything up to the last closing tag: preview text
	// may itself hold the tag's characters, the closing tag ends the
	// wrapper only where nothing but the tool's own trailer follows.
	end := strings.LastIndex(rest, ClaudePersistedClose)
	if end < 0 {
		return ClaudePersisted{}, false
	}
	inner := rest[:end]
	p := ClaudePersisted{Kind: ClaudePersistedPreview, Start: start, End: at + end + len(ClaudePersistedClose), Size: size, Path: path, PreviewStart: at}
	switch {
	case strings.HasSuffix(inner, claudeMore):
		p.More, p.PreviewEnd = true, at+len(inner)-len(claudeMore)
	case strings.HasSuffix(inner, "\n"):
		p.PreviewEnd = at + len(inner) - 1
	default:
		return ClaudePersisted{}, false
	}
	p.SizeMin, p.SizeMax = ParseClaudeSize(size)
	return p, true
}

// ParseClaudeSize inverts ClaudeFormatSize: the least and greatest length
// that prints as s, or -1, -1 when ClaudeFormatSize never prints s.
func ParseClaudeSize(s string) (lo, hi int64) {
	if n, ok := strings.CutSuffix(s, " bytes"); ok {
		v, err := strconv.ParseInt(n, 10, 64)
		if err != nil || v < 0 || v >= 1024 || strconv.FormatInt(v, 10) != n {
			return -1, -1
		}
		return v, v
	}
	var div int64
	var num string
	for _, u := range []struct {
		unit string
		div  int64
	}{{"KB", 1 << 10}, {"MB", 1 << 20}, {"GB", 1 << 30}} {
		if n, ok := strings.CutSuffix(s, u.unit); ok {
			num, div = n, u.div
			break
		}
	}
	if div == 0 {
		return -1, -1
	}
	whole, frac, _ := strings.Cut(num, ".")
	w, err := strconv.ParseInt(whole, 10, 64)
	if err != nil || w < 0 || strconv.FormatInt(w, 10) != whole || len(frac) > 1 || frac == "0" {
		return -1, -1
	}
	tenths := w * 10
	if frac != "" {
		d, err := strconv.ParseInt(frac, 10, 64)
		if err != nil {
			return -1, -1
		}
		tenths += d
	}
	// Lengths whose rounded tenths are these: 20n + div in
	// [2 div tenths, 2 div (tenths+1)).
	lo = max((2*div*tenths-div+19)/20, div)
	hi = (2*div*(tenths+1) - div - 1) / 20
	if div < 1<<30 {
		hi = min(hi, div*1024-1)
	}
	if lo > hi || ClaudeFormatSize(lo) != s || ClaudeFormatSize(hi) != s {
		return -1, -1
	}
	return lo, hi
}

// Kinds of Claude Code token-limit refusal.
const (
	// ClaudeLimitRead: "File content (N tokens) exceeds maximum allowed
	// tokens (M)", the Read tool refusing a file or range.
	ClaudeLimitRead = "read"
	// ClaudeLimitMCP: `MCP tool "NAME" response (N tokens) exceeds
	// maximum allowed tokens (M)`, older builds' MCP failure.
	ClaudeLimitMCP = "mcp"
)

// ClaudeTokenLimit is a recognised token-limit refusal: nothing of the
// result reached the model.
type ClaudeTokenLimit struct {
	Kind   string `json:"kind"`
	Tool   string `json:"tool,omitempty"`
	Tokens int64  `json:"tokens"`
	Max    int64  `json:"max"`
	Start  int    `json:"start"`
	End    int    `json:"end"`
}

// RecogniseClaudeTokenLimit finds a Read or MCP token-limit refusal in
// text; End is the end of the "(M)" figure.
func RecogniseClaudeTokenLimit(text string) (ClaudeTokenLimit, bool) {
	const tail = " tokens) exceeds maximum allowed tokens ("
	for _, form := range []struct{ kind, prefix string }{
		{ClaudeLimitRead, "File content ("},
		{ClaudeLimitMCP, "MCP tool \""},
	} {
		start := strings.Index(text, form.prefix)
		if start < 0 {
			continue
		}
		rest := text[start+len(form.prefix):]
		at := start + len(form.prefix)
		r := ClaudeTokenLimit{Kind: form.kind, Start: start}
		if form.kind == ClaudeLimitMCP {
			name, after, ok := strings.Cut(rest, "\" response (")
			if !ok || strings.ContainsAny(name, "\"\n") {
				continue
			}
			r.Tool, rest = name, after
			at += len(name) + len("\" response (")
		}
		n, w, ok := leadingInt(rest)
		if !ok || !strings.HasPrefix(rest[w:], tail) {
			continue
		}
		rest = rest[w+len(tail):]
		at += w + len(tail)
		m, mw, ok := leadingInt(rest)
		if !ok || !strings.HasPrefix(rest[mw:], ")") {
			continue
		}
		r.Tokens, r.Max, r.End = n, m, at+mw+1
		return r, true
	}
	return ClaudeTokenLimit{}, false
}

// ClaudeMCPSaved is a recognised notice of newer builds that save an
// oversized MCP response to a file: "result (N characters[ across L
// line(s)]) exceeds maximum allowed tokens. Output has been saved to PATH."
type ClaudeMCPSaved struct {
	Characters int64  `json:"characters"`
	Lines      int64  `json:"lines"`
	Path       string `json:"path"`
	Start      int    `json:"start"`
	End        int    `json:"end"`
}

// RecogniseClaudeMCPSaved finds that notice; Characters is read with its
// thousands separators removed, Lines is -1 when the notice gives none.
func RecogniseClaudeMCPSaved(text string) (ClaudeMCPSaved, bool) {
	const open, mid, saved = "result (", " characters", ") exceeds maximum allowed tokens. Output has been saved to "
	for from := 0; ; {
		i := strings.Index(text[from:], open)
		if i < 0 {
			return ClaudeMCPSaved{}, false
		}
		start := from + i
		from = start + len(open)
		rest := text[from:]
		digits, after, ok := strings.Cut(rest, mid)
		if !ok || digits == "" || strings.Trim(digits, "0123456789,") != "" {
			continue
		}
		n, err := strconv.ParseInt(strings.ReplaceAll(digits, ",", ""), 10, 64)
		if err != nil {
			continue
		}
		s := ClaudeMCPSaved{Characters: n, Lines: -1, Start: start}
		if r, ok := strings.CutPrefix(after, " across "); ok {
			l, w, ok := leadingInt(r)
			if !ok || !(strings.HasPrefix(r[w:], " lines") || strings.HasPrefix(r[w:], " line")) {
				continue
			}
			s.Lines = l
			after = strings.TrimPrefix(strings.TrimPrefix(r[w:], " lines"), " line")
		}
		path, ok := strings.CutPrefix(after, saved)
		if !ok {
			continue
		}
		end := strings.IndexByte(path, '\n')
		if end < 0 {
			end = len(path)
		}
		p := strings.TrimSuffix(path[:end], ".")
		if p == "" {
			continue
		}
		s.Path = p
		s.End = len(text) - len(path) + len(p)
		return s, true
	}
}

// RecogniseClaudeMCPTruncated finds 2.1.x's truncation notice after an MCP response
// cut to 4 x max characters: the notice's span and its max.
func RecogniseClaudeMCPTruncated(text string) (start, end int, max int64, ok bool) {
	const open = "\n\n[OUTPUT TRUNCATED - exceeded "
	i := strings.Index(text, open)
	if i < 0 {
		return 0, 0, 0, false
	}
	v, w, ok := leadingInt(text[i+len(open):])
	if !ok {
		return 0, 0, 0, false
	}
	notice := ClaudeMCPTruncationNotice(v)
	if !strings.HasPrefix(text[i:], notice) || w == 0 {
		return 0, 0, 0, false
	}
	return i, i + len(notice), v, true
}
