package app

import (
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"

	"spillscope/retention"
)

// Snippet bounds: a few words either side of the match, and the results one
// call reads back (a page of search hits).
const (
	snippetContext = 90
	maxSnippetIDs  = 200
	// maxSnippetSource skips reading back results too large to be worth a
	// preview line; their row says how large they are.
	maxSnippetSource = 16 << 20
)

// Snippets reads each result back and returns a few words of its text
// around the first word of q.Query it holds (or its opening words), always
// masked: search hits are listed by many at a time and never revealed. The
// index holds no text (it is contentless), so snippets come from the source.
func (s *Sessions) Snippets(q SnippetQuery) ([]Snippet, error) {
	if len(q.IDs) > maxSnippetIDs {
		return nil, fmt.Errorf("app: %d snippets asked for, more than %d", len(q.IDs), maxSnippetIDs)
	}
	if len(q.Query) > maxSearchQuery {
		return nil, fmt.Errorf("app: search is %d bytes, more than %d", len(q.Query), maxSearchQuery)
	}
	words := wordPatterns(q.Query)
	db, err := s.store.DB()
	if err != nil {
		return nil, err
	}
	out := make([]Snippet, 0, len(q.IDs))
	for _, id := range q.IDs {
		row, err := db.Result(s.ctx, id)
		if err != nil {
			return nil, err
		}
		sn := Snippet{ID: id}
		if row.TextBytes > maxSnippetSource {
			out = append(out, sn)
			continue
		}
		_, res, err := db.LoadResult(s.ctx, id)
		if err != nil {
			out = append(out, sn) // the row says why when it is opened
			continue
		}
		sn.Text, sn.Masks = snippet(res.Content, words)
		out = append(out, sn)
	}
	return out, nil
}

// wordPatterns matches each word of a query case-insensitively, as the
// full-text index does.
func wordPatterns(query string) []*regexp.Regexp {
	var out []*regexp.Regexp
	for _, w := range strings.Fields(query) {
		out = append(out, regexp.MustCompile("(?i)"+regexp.QuoteMeta(w)))
	}
	return out
}

// snippet finds the first match of any word in the result's text blocks
// and shows the words around it on one line, masked.
func snippet(blocks []retention.Block, words []*regexp.Regexp) (string, []MaskSpan) {
	var first string
	for _, b := range blocks {
		if b.Type != retention.TypeText || b.Text == "" {
			continue
		}
		if first == "" {
			first = b.Text
		}
		for _, w := range words {
			if m := w.FindStringIndex(b.Text); m != nil {
				return around(b.Text, m[0], m[1])
			}
		}
	}
	if first == "" {
		return "", nil
	}
	return around(first, 0, 0)
}

// around shows text[start:end] with snippetContext bytes either side, cut
// on code points, line breaks shown as spaces.
func around(text string, start, end int) (string, []MaskSpan) {
	lo, hi := max(0, start-snippetContext), min(len(text), end+snippetContext)
	for lo > 0 && !utf8.RuneStart(text[lo]) {
		lo++
	}
	for hi < len(text) && !utf8.RuneStart(text[hi]) {
		hi--
	}
	st := showRange(text, lo, hi, false)
	line := strings.Map(func(r rune) rune {
		if r == '\n' || r == '\r' || r == '\t' {
			return ' '
		}
		return r
	}, st.text)
	if lo > 0 {
		line = "…" + line
		for i := range st.masks {
			st.masks[i].At += len("…")
		}
	}
	if hi < len(text) {
		line += "…"
	}
	return line, st.masks
}
