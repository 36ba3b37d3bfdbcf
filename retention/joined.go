package retention

import "strings"

// joinedText is a result's text blocks joined into the one string a harness
// truncates (OpenCode joins an MCP result's text items with "\n\n"), with
// where each block sits in it, so kept ranges map back to the blocks and the
// separators show as the harness's framing.
type joinedText struct {
	text   string
	sep    string
	blocks []int   // original block index of each joined part
	starts []int64 // offset of each part in text
	lines  int     // "\n"-separated lines, as text.split("\n") counts them
}

// joined returns the text blocks joined with sep, built once per Analysis.
func (a *Analysis) joined(sep string) *joinedText {
	return a.derive("joined:"+sep, func() any {
		j := &joinedText{sep: sep}
		var parts []string
		var at int64
		for i, bi := range a.blocks {
			if bi.kind != TypeText {
				continue
			}
			if len(parts) > 0 {
				at += int64(len(sep))
			}
			j.blocks = append(j.blocks, i)
			j.starts = append(j.starts, at)
			parts = append(parts, bi.text)
			at += int64(len(bi.text))
		}
		if len(parts) == 1 {
			j.text = parts[0] // no copy of a large single block
		} else {
			j.text = strings.Join(parts, sep)
		}
		j.lines = strings.Count(j.text, "\n") + 1
		return j
	}).(*joinedText)
}

// add appends text[lo:hi] to c: kept spans for the parts of blocks, wrapper
// spans for the separators between them.
func (j *joinedText) add(c *contentBuilder, lo, hi int64) {
	for k, b := range j.blocks {
		start := j.starts[k]
		end := start + j.blockLen(k)
		if k > 0 {
			sepStart := start - int64(len(j.sep))
			if s, e := max(lo, sepStart), min(hi, start); s < e {
				c.text(SpanWrapper, -1, 0, j.text[s:e])
			}
		}
		if s, e := max(lo, start), min(hi, end); s < e {
			c.text(SpanKept, b, s-start, j.text[s:e])
		}
	}
}

func (j *joinedText) blockLen(k int) int64 {
	if k+1 < len(j.starts) {
		return j.starts[k+1] - int64(len(j.sep)) - j.starts[k]
	}
	return int64(len(j.text)) - j.starts[k]
}

// keptBytes counts the original blocks' bytes within text[lo:hi].
func (j *joinedText) keptBytes(lo, hi int64) int64 {
	var n int64
	for k := range j.blocks {
		start := j.starts[k]
		if s, e := max(lo, start), min(hi, start+j.blockLen(k)); s < e {
			n += e - s
		}
	}
	return n
}

// position maps an offset of text to a block and an offset in it; one in a
// separator is the start of the next block, one past the end the end of the
// content (nblocks is the result's block count).
func (j *joinedText) position(off int64, nblocks int) Position {
	for k, b := range j.blocks {
		start := j.starts[k]
		end := start + j.blockLen(k)
		if off < start {
			return Position{Block: b}
		}
		if off < end {
			return Position{Block: b, Offset: off - start}
		}
	}
	return Position{Block: nblocks}
}

// noticeCost prices the notice spans of built content on the Analysis's
// estimator, each as Reprice prices it, so an outcome repriced on its own
// estimator gives its own figures.
func (a *Analysis) noticeCost(c contentBuilder) int {
	n := 0
	for _, sp := range c.spans {
		if sp.Kind == SpanNotice {
			n += a.est.Count(c.blocks[sp.Out].Text[sp.OutStart:sp.OutEnd])
		}
	}
	return n
}
