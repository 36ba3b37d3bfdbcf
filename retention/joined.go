package retention

import "strings"

// joinedText is a result's text blocks joined into the one string a harness
// truncates (OpenCode joins an MCP result's text items with "\n\n", Codex
// its tool output's with "\n"), with where each block and each separator
// sits in it, so kept ranges map back to the blocks and the separators show
// as the harness's framing.
type joinedText struct {
	text  string
	segs  []joinSeg
	lines int // "\n"-separated lines, as text.split("\n") counts them
}

// joinSeg is one part of the join: text[at:at+n] is block's text, or a
// separator for block -1.
type joinSeg struct {
	block int
	at, n int64
}

// Join rules: how a harness puts separators between text blocks.
const (
	// joinBetween puts the separator between every two text blocks, as
	// JavaScript's Array.join does.
	joinBetween = iota
	// joinAfterText puts it before a block only once the join so far is
	// non-empty, as Codex's push loop does: leading empty blocks add
	// nothing.
	joinAfterText
)

// joined returns the text blocks joined with sep by rule, built once per
// Analysis.
func (a *Analysis) joined(sep string, rule int) *joinedText {
	key := "joined:" + sep
	if rule == joinAfterText {
		key = "joined-after-text:" + sep
	}
	return a.derive(key, func() any {
		j := &joinedText{}
		var texts []int
		for i, bi := range a.blocks {
			if bi.kind == TypeText {
				texts = append(texts, i)
			}
		}
		if len(texts) == 1 {
			// No copy of a large single block.
			i := texts[0]
			j.text = a.blocks[i].text
			j.segs = []joinSeg{{block: i, n: int64(len(j.text))}}
		} else {
			var sb strings.Builder
			sb.Grow(int(a.textBytes) + len(sep)*len(texts))
			for k, i := range texts {
				if k > 0 && (rule == joinBetween || sb.Len() > 0) {
					j.segs = append(j.segs, joinSeg{block: -1, at: int64(sb.Len()), n: int64(len(sep))})
					sb.WriteString(sep)
				}
				t := a.blocks[i].text
				j.segs = append(j.segs, joinSeg{block: i, at: int64(sb.Len()), n: int64(len(t))})
				sb.WriteString(t)
			}
			j.text = sb.String()
		}
		j.lines = strings.Count(j.text, "\n") + 1
		return j
	}).(*joinedText)
}

// chars counts the join's code points from the blocks' (points, as
// Analysis.codePoints gives them) and the separators'.
func (j *joinedText) chars(points []int64) int64 {
	var n int64
	for _, sg := range j.segs {
		if sg.block < 0 {
			n += int64(len(j.text[sg.at : sg.at+sg.n]))
			continue
		}
		n += points[sg.block]
	}
	return n
}

// add appends text[lo:hi] to c, a kept span for each part of a block and a
// wrapper span for each part of a separator, and returns the original bytes
// it kept.
func (j *joinedText) add(c *contentBuilder, lo, hi int64) int64 {
	var kept int64
	for _, sg := range j.segs {
		s, e := max(lo, sg.at), min(hi, sg.at+sg.n)
		if s >= e {
			continue
		}
		if sg.block < 0 {
			c.text(SpanWrapper, -1, 0, j.text[s:e])
			continue
		}
		c.text(SpanKept, sg.block, s-sg.at, j.text[s:e])
		kept += e - s
	}
	return kept
}

// position maps an offset of text to a block and an offset in it. An
// offset at the end of a block or in a separator is the start of the next
// block, one at the end of the join the end of the content (nblocks is the
// result's block count), as the other policies place a boundary.
func (j *joinedText) position(off int64, nblocks int) Position {
	for _, sg := range j.segs {
		if sg.block < 0 {
			continue
		}
		if off < sg.at {
			return Position{Block: sg.block}
		}
		if off < sg.at+sg.n {
			return Position{Block: sg.block, Offset: off - sg.at}
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
			n += a.noticeCount(c.blocks, sp)
		}
	}
	return n
}
