package sessions

import (
	"sort"
	"strings"
	"unicode/utf8"

	"spillscope/retention"
	"spillscope/retention/links"
)

// What the full-text index reads of a result: each text block with every
// credential-bearing URL replaced by a placeholder (links.Redact) and every
// listed credential value scrubbed (links.ScrubValues), one block a line.
// A result of a few MB is one row, as it always was. A larger one is
// indexed in parts of about searchPartBytes, each its own row, so neither
// the redacted copy nor the value SQLite binds ever grows with the result:
// part 0 has the result's id as its rowid, part k > 0 has partRowID(id, k).

// searchPartBytes is about the most text one full-text row holds.
const searchPartBytes = 2 << 20

// maxSearchParts bounds the parts of one result (the rowid encoding's 16
// bits): 128 GB of text at searchPartBytes.
const maxSearchParts = 1<<16 - 1

// partRowID is the full-text rowid of part k (1 <= k <= maxSearchParts) of
// result id: negative, so it never meets a result's own id.
func partRowID(id int64, k int) int64 { return -(id<<16 | int64(k)) }

// searchParts calls emit with a result's searchable text, part by part, and
// stops at the first error emit returns. The parts joined are exactly the
// text one row would hold: each part of a long text is cut where no URL,
// credential name or value runs across the cut (cutBefore), so redacting
// the parts finds what redacting the whole would.
func searchParts(blocks []retention.Block, emit func(part string) error) error {
	var sb strings.Builder
	parts := 0
	flush := func() error {
		if sb.Len() == 0 {
			return nil
		}
		part := sb.String()
		sb = strings.Builder{}
		if parts++; parts > maxSearchParts+1 {
			return nil // past the rowid encoding: not searchable
		}
		return emit(part)
	}
	for _, b := range blocks {
		if b.Type != retention.TypeText {
			continue
		}
		text := b.Text
		if len(text) <= searchPartBytes {
			sb.WriteString(links.ScrubValues(links.Redact(text)))
			sb.WriteByte('\n')
			if sb.Len() >= searchPartBytes {
				if err := flush(); err != nil {
					return err
				}
			}
			continue
		}
		if sb.Len() > searchPartBytes/2 {
			if err := flush(); err != nil {
				return err
			}
		}
		found := links.ScanText(text)
		for start := 0; start < len(text); {
			end := cutBefore(text, start, start+searchPartBytes-sb.Len(), found)
			sb.WriteString(links.ScrubValues(redactRange(text, start, end, found)))
			if start = end; start < len(text) {
				if err := flush(); err != nil {
					return err
				}
				continue
			}
			sb.WriteByte('\n')
			if sb.Len() >= searchPartBytes {
				if err := flush(); err != nil {
					return err
				}
			}
		}
	}
	return flush()
}

// redactRange is links.Redact of text[start:end], given the credential URLs
// found in the whole text (none runs across start or end).
func redactRange(text string, start, end int, found []links.Found) string {
	i := sort.Search(len(found), func(i int) bool { return found[i].End > start })
	if i == len(found) || found[i].Start >= end {
		return text[start:end]
	}
	var b strings.Builder
	b.Grow(end - start)
	last := start
	for ; i < len(found) && found[i].Start < end; i++ {
		f := found[i]
		b.WriteString(text[last:f.Start])
		b.WriteString(links.Placeholder(f.Reason, f.Parameter))
		last = f.End
	}
	b.WriteString(text[last:end])
	return b.String()
}

// cutWindow is how far back from a part's target end a cut is looked for
// at a character that ends every URL and credential value.
const cutWindow = 256 << 10

// cutBefore is where a part of text from start that should end near target
// ends (after start): just
// before the last character at most cutWindow before target that no URL,
// credential name or value holds (whitespace, a quote, a bracket, &, ;, #
// or a comma), outside every found URL; failing that, at target itself when
// the run of such characters around it holds no "=", "%" or "\" (so no
// name=value pair, in any spelling, meets it: base64, say); failing that,
// at the next such character after target (a part then grows past its
// size, for text written to defeat it). The end of the text when target
// passes it.
func cutBefore(text string, start, target int, found []links.Found) int {
	if target >= len(text) {
		return len(text)
	}
	target = max(target, start+1)
	for target > start+1 && !utf8.RuneStart(text[target]) {
		target--
	}
	inURL := func(c int) bool {
		i := sort.Search(len(found), func(i int) bool { return found[i].End > c })
		return i < len(found) && found[i].Start < c
	}
	lo := max(target-cutWindow, start+1)
	for c := target; c >= lo; c-- {
		if cutStop(text[c]) && !inURL(c) {
			return c
		}
	}
	// A long run without a stop character: cut inside it only where it
	// holds nothing a credential pair is written with.
	runStart := lo
	for runStart > 0 && !cutStop(text[runStart-1]) {
		runStart--
	}
	runEnd := target
	for runEnd < len(text) && !cutStop(text[runEnd]) {
		runEnd++
	}
	if !strings.ContainsAny(text[runStart:runEnd], `=%\`) && !inURL(target) {
		return target
	}
	for c := runEnd; c < len(text); c++ {
		if cutStop(text[c]) && !inURL(c) {
			return c
		}
	}
	return len(text)
}

// cutStop reports a byte that ends every URL the scanner reads and every
// credential value ScrubValues removes, and is part of no credential name:
// cutting just before it splits neither. A backslash is not one (it may
// open an escaped "=").
func cutStop(c byte) bool {
	switch c {
	case '"', '\'', '<', '>', '`', ')', '}', '&', ';', '#', ',':
		return true
	}
	return c <= ' ' || c == 0x7f
}
