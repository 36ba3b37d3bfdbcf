package retention

import "strings"

// textWriter builds one text block of model-facing content from many parts
// with a span for each, copying the text once: contentBuilder grows its open
// block by concatenation, which is quadratic in the number of parts (a
// result of thousands of small text blocks joined into one).
type textWriter struct {
	sb    strings.Builder
	spans []Span
}

// text adds s. Kept parts record where they come from: block and start,
// or for block -1 an offset in the serialised form the policy cut.
func (w *textWriter) text(kind string, block int, start int64, s string) {
	at := int64(w.sb.Len())
	w.sb.WriteString(s)
	sp := Span{Kind: kind, OutStart: at, OutEnd: at + int64(len(s)), Block: block}
	if block >= 0 || kind == SpanKept {
		sp.Start, sp.End = start, start+int64(len(s))
	}
	w.spans = append(w.spans, sp)
}

// flush appends the block written so far to c, closed, and resets w.
func (w *textWriter) flush(c *contentBuilder) {
	if len(w.spans) == 0 {
		return
	}
	out := len(c.blocks)
	c.blocks = append(c.blocks, Block{Type: TypeText, Text: w.sb.String()})
	for _, sp := range w.spans {
		sp.Out = out
		c.spans = append(c.spans, sp)
	}
	c.open = false
	*w = textWriter{}
}
