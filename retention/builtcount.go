package retention

import (
	"sort"
	"unicode/utf8"
)

// Counting written content from the source blocks' tables.
//
// A re-run writes head, gap, tail and notice into one text block, and that
// block is priced as the model reads it: counted whole. On a tiktoken
// encoding the count of a 1 MB block took tens of milliseconds at every
// budget a slider passed, although nearly all of it is text the cut search
// has just counted in the source block's prefix and suffix tables.
//
// The split of a text from a piece boundary depends only on the text after
// it (the matcher has no look-behind), and a piece is final once stableMargin
// runes follow it (textindex.go). So where the written block's split lands on
// a boundary of a source table inside a kept range, the pieces from there to
// the table's last boundary stableMargin runes before the range ends are the
// table's pieces, and their tokens are a difference of its sums. Only the
// joins (the head's end, the gap, the tail's start, the notice) are split and
// counted: the figure is the whole count, exactly.

// keptRun is one kept range of a source block inside a written text block:
// the block's text[s:e] stands at o in the written text.
type keptRun struct {
	x       *textIndex
	o, s, e int
}

// writtenCount is the estimator's count of text block out of written
// content (content and spans as a policy built them): the one price of a
// written text block, for the decision (priceBuilt) and the yardstick
// (Reprice) alike. It reads the source blocks' tables where they cover the
// block, else counts the text whole. The text goes to the estimator as it
// is: Count reads invalid UTF-8 as Analyse does, one U+FFFD per byte.
func (a *Analysis) writtenCount(content []Block, spans []Span, out int) int {
	if n, ok := a.countWritten(content, spans, out); ok {
		return n
	}
	return a.est.Count(content[out].Text)
}

// noticeCount is the estimator's count of notice span sp of written
// content: what the notice is reported as, before its block caps it.
func (a *Analysis) noticeCount(content []Block, sp Span) int {
	return a.est.Count(content[sp.Out].Text[sp.OutStart:sp.OutEnd])
}

// countWritten is writtenCount read from the source blocks' tables where
// the block keeps long ranges of them. ok is false where there are no
// tables to read (another estimator, short or invalid text).
func (a *Analysis) countWritten(content []Block, spans []Span, out int) (int, bool) {
	text := content[out].Text
	est, ok := a.est.(tiktokenEstimator)
	if !ok || len(text) < minTableRun || !utf8.ValidString(text) {
		return 0, false
	}
	var runs []keptRun
	for _, sp := range spans {
		if sp.Out != out || sp.Kind != SpanKept || sp.Block < 0 || sp.Block >= len(a.blocks) || sp.End-sp.Start < minTableRun {
			continue
		}
		bi := a.blocks[sp.Block]
		tt, ok := bi.cost.(*tiktokenText)
		s, e, o := int(sp.Start), int(sp.End), int(sp.OutStart)
		if !ok || tt.x.m != est.m || s < 0 || e > len(bi.text) || o+e-s > len(text) || text[o:o+e-s] != bi.text[s:e] {
			continue
		}
		tt.x.cover(s, e)
		runs = append(runs, keptRun{x: tt.x, o: o, s: s, e: e})
	}
	if len(runs) == 0 {
		return 0, false
	}
	sort.Slice(runs, func(i, j int) bool { return runs[i].o < runs[j].o })
	return countRuns(est.m, text, runs), true
}

// minTableRun is the shortest kept range worth a table lookup: shorter
// ones are split with the text around them.
const minTableRun = 4096

// countRuns counts text, whose runs are kept ranges of indexed texts, split
// from its start with each run's tabled pieces taken from the table.
func countRuns(m *model, text string, runs []keptRun) int {
	t := src{s: text, n: len(text), bytes: true}
	tokens, p := 0, 0
	for _, r := range runs {
		end := r.o + r.e - r.s
		if p >= end {
			continue
		}
		if p >= r.o {
			if np, n, ok := r.jump(p); ok {
				tokens, p = tokens+n, np
				continue
			}
		}
		m.splitSrc(&t, p, func(ps, pe int) bool {
			tokens += m.pieceTokens(text[ps:pe])
			p = pe
			if pe < r.o {
				return true
			}
			if pe >= end {
				return false
			}
			if np, n, ok := r.jump(pe); ok {
				tokens, p = tokens+n, np
				return false
			}
			return true
		})
	}
	m.splitSrc(&t, p, func(ps, pe int) bool {
		tokens += m.pieceTokens(text[ps:pe])
		return true
	})
	return tokens
}

// jump is, for a piece boundary p of the written text inside the run, the
// written position of the run's last tabled boundary that is final within the
// run and the tokens up to it from p: ok is false when p is no boundary of a
// table or no such boundary follows it.
func (r keptRun) jump(p int) (int, int, bool) {
	x := r.x
	q := r.s + p - r.o
	if x.tbuilt && q >= x.tbase {
		j := sort.SearchInts(x.toff, q)
		if j < len(x.toff) && x.toff[j] == q && x.tbound[j] >= 0 {
			from := int(x.tbound[j])
			re := sort.SearchInts(x.toff, r.e)
			k := sort.SearchInts(x.tstarts, re-stableMargin+1) - 1
			if k > from {
				return r.o + x.toff[x.tstarts[k]] - r.s, x.tsuf[from] - x.tsuf[k], true
			}
		}
	}
	last := x.hoff[len(x.hoff)-1]
	if q > last {
		return 0, 0, false
	}
	j := sort.SearchInts(x.hoff, q)
	if x.hoff[j] != q {
		return 0, 0, false
	}
	from := sort.SearchInts(x.hbounds, j)
	if from >= len(x.hbounds) || x.hbounds[from] != j {
		return 0, 0, false
	}
	k := len(x.hbounds) - 1
	if r.e <= last {
		re := sort.SearchInts(x.hoff, r.e)
		k = sort.SearchInts(x.hbounds, re-stableMargin+1) - 1
	}
	if k > from {
		return r.o + x.hoff[x.hbounds[k]] - r.s, x.hcum[k] - x.hcum[from], true
	}
	return 0, 0, false
}

// cover grows the tables so a kept range text[s:e] can be read from them: a
// head from the prefix table, a tail from the suffix table, each within
// maxTableBytes (a range the tables do not reach is split whole, as before).
func (x *textIndex) cover(s, e int) {
	switch {
	case s == 0 && e <= maxTableBytes:
		x.growHead(e + marginBytes)
	case e == len(x.text) && e-s <= maxTableBytes:
		x.tailRune(s)
	}
}
