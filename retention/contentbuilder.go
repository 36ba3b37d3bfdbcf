package retention

import "strings"

// contentBuilder assembles model-facing content for every policy, merging
// adjacent text into one block as dsh does ("adjacent text has one framing
// cost") and keeping a span for every part. The open text block is written
// through a strings.Builder, so content of thousands of small parts is
// built in linear time: the open block's Text is the builder's String(),
// which shares its bytes and stays valid as the builder grows.
type contentBuilder struct {
	blocks []Block
	spans  []Span
	src    map[int]int     // content image block -> original block
	open   bool            // the last block is text that may grow
	sb     strings.Builder // the open block's text
}

// text adds s to the open text block, opening one if there is none. A kept
// part records where it comes from: block and start, or for block -1 an
// offset in the serialised form the policy cut (Outcome.CompleteFile).
func (c *contentBuilder) text(kind string, block int, start int64, s string) {
	if !c.open {
		c.blocks = append(c.blocks, Block{Type: TypeText})
		c.open = true
		c.sb.Reset()
	}
	out := len(c.blocks) - 1
	at := int64(c.sb.Len())
	c.sb.WriteString(s)
	c.blocks[out].Text = c.sb.String()
	sp := Span{Kind: kind, Out: out, OutStart: at, OutEnd: at + int64(len(s)), Block: block}
	if block >= 0 || kind == SpanKept {
		sp.Start, sp.End = start, start+int64(len(s))
	}
	c.spans = append(c.spans, sp)
}

// other adds a block of another type as it is.
func (c *contentBuilder) other(block int, b Block) {
	c.blocks = append(c.blocks, b)
	c.open = false
	c.spans = append(c.spans, Span{Kind: SpanKept, Out: len(c.blocks) - 1, Block: block})
}

// end closes the current text block: the next text starts a new one.
func (c *contentBuilder) end() { c.open = false }

func (c *contentBuilder) image(block int, b Block) {
	if c.src == nil {
		c.src = map[int]int{}
	}
	c.blocks = append(c.blocks, b)
	c.open = false
	out := len(c.blocks) - 1
	c.src[out] = block
	c.spans = append(c.spans, Span{Kind: SpanKept, Out: out, Block: block})
}
