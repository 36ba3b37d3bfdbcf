package retention

import (
	"math"
	"sort"
	"strconv"
	"strings"

	"spillscope/retention/imagecost"
)

// A sketch is an Analysis built from a Summary instead of the text. Its
// text blocks price prefixes and suffixes from the summary's tables, so the
// policies that opt in (sketchPolicy) run their own code unchanged up to the
// point where they would write content; there they price what they would
// write from the same tables (sketchPrice). Whatever the tables do not
// cover (a cut beyond the counted regions, two text blocks side by side, a
// policy that writes content it cannot price) marks the sketch failed, and
// the caller decides on the text instead.

// sketchState is what a sketch carries besides the Analysis fields.
type sketchState struct {
	sum    *Summary
	failed bool
}

// sketchPolicy marks a policy that decides correctly on a sketch.
type sketchPolicy interface{ sketchable() }

// sketchPlan is what a sketched cut kept: enough to price it on any sketch
// of the same summary and to count the lines it leaves out.
type sketchPlan struct {
	r          retained
	footer     string
	noticeOnly bool
}

// Sketch returns an Analysis of the summarised result on est and the
// summary's route, with the host's context call. It supports the summary's
// own tokenizer and dsh's meter; another estimator is ErrNoSketch.
func (s *Summary) Sketch(est Estimator, call Call) (*Analysis, error) {
	rt, err := imagecost.Lookup(s.Route)
	if err != nil {
		return nil, err
	}
	name := est.Name()
	tables := name == s.Estimator && s.Estimator != ""
	if !tables && name != EstimatorMeter {
		return nil, ErrNoSketch
	}
	if s.content == nil {
		s.content = make([]Block, len(s.blocks))
		for i, b := range s.blocks {
			switch b.kind {
			case sumText:
				s.content[i].Type = TypeText
			case sumImage:
				s.content[i].Type = TypeImage
			default:
				s.content[i].Type = "other"
			}
		}
	}
	st := &sketchState{sum: s}
	a := &Analysis{res: Result{Content: s.content}, est: est, route: rt, call: call, handle: DshHandleText, sketch: st, textBytes: s.TextBytes}
	a.blocks = make([]blockInfo, len(s.blocks))
	for i := range s.blocks {
		sb := &s.blocks[i]
		bi := &a.blocks[i]
		switch sb.kind {
		case sumText:
			bi.kind, bi.n = TypeText, int(sb.bytes)
			if tables {
				if !sb.hasTokens {
					return nil, ErrNoSketch
				}
				bi.cost = &sketchTokens{st: st, b: sb}
			} else {
				bi.cost = &sketchMeter{st: st, b: sb}
			}
		case sumImage:
			a.images++
			bi.kind = TypeImage
			bi.readable = sb.readable
			bi.img = ImageFacts{MediaType: sb.mediaType, Width: sb.imageWidth, Height: sb.imageHeight}
			if !sb.readable {
				a.unreadable = append(a.unreadable, "image block has no readable attachment path")
			}
			if sb.priced {
				bi.priced = true
				bi.price = ImagePrice{Visual: sb.visual, HandleTokens: sb.handleTokens}
				if !tables {
					bi.price.HandleTokens = meterPrice(sb.handleUnits)
				}
			} else {
				a.unpriced = append(a.unpriced, "image block cannot be priced")
			}
		default:
			if tables {
				bi.structural, bi.structuralOK = sb.tokenStructural, sb.tokenStructuralOK
			} else {
				bi.structural, bi.structuralOK = sb.meterStructural, sb.meterStructuralOK
			}
			a.unsupported = append(a.unsupported, "block of another type")
		}
	}
	return a, nil
}

// SketchFailed reports whether a decision on this sketch needed what its
// summary does not hold; its outcomes are then not to be used.
func (a *Analysis) SketchFailed() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.sketch != nil && a.sketch.failed
}

// IsSketch reports whether a was built from a summary.
func (a *Analysis) IsSketch() bool { return a.sketch != nil }

func (a *Analysis) sketchFail() {
	if a.sketch != nil {
		a.sketch.failed = true
	}
}

// load decodes the summary's tables for a cut; on failure the sketch is
// failed and load reports false.
func (st *sketchState) load() bool {
	if err := st.sum.load(); err != nil {
		st.failed = true
		return false
	}
	return true
}

// sketchTokens is a text block's TextCost from its token table.
type sketchTokens struct {
	st *sketchState
	b  *sumBlock
}

func (c *sketchTokens) Total() int             { return c.b.tokenTotal }
func (c *sketchTokens) AtMost(int) (int, bool) { return c.b.tokenTotal, true }

func (c *sketchTokens) Prefix(budget int) (int, int) {
	if c.b.tokenTotal <= budget {
		return int(c.b.bytes), c.b.tokenTotal
	}
	if !c.st.load() {
		return 0, 0
	}
	return cutHead(c, budget)
}

func (c *sketchTokens) Suffix(budget, from int) (int, int) {
	if !c.st.load() {
		return int(c.b.bytes), 0
	}
	return cutTail(c, budget, from)
}

func (c *sketchTokens) size() int              { return int(c.b.bytes) }
func (c *sketchTokens) runeStart(pos int) bool { return c.b.widths.runeStart(int64(pos)) }
func (c *sketchTokens) headRune(pos int) int   { return int(c.b.widths.runeIndex(int64(pos))) }
func (c *sketchTokens) headOffset(k int) int   { return int(c.b.widths.offset(int64(k))) }
func (c *sketchTokens) tailRune(pos int) int   { return c.headRune(pos) }
func (c *sketchTokens) tailOffset(j int) int   { return c.headOffset(j) }

func (c *sketchTokens) prefixCount(k int) int {
	t := c.b.tokens
	if int64(k) > t.kh || k < 0 || t.p[k] < 0 {
		c.st.failed = true
		return math.MaxInt32
	}
	return int(t.p[k])
}

func (c *sketchTokens) suffixCount(j int) int {
	t := c.b.tokens
	if int64(j) < t.jt || int64(j) > c.b.runes || t.s[int64(j)-t.jt] < 0 {
		c.st.failed = true
		return math.MaxInt32
	}
	return int(t.s[int64(j)-t.jt])
}

// sketchMeter is a text block's TextCost on dsh's meter, from its widths:
// meterText's walks over code points, done by arithmetic on the runs.
type sketchMeter struct {
	st *sketchState
	b  *sumBlock
}

func (c *sketchMeter) Total() int             { return meterPrice(int(c.b.units)) }
func (c *sketchMeter) AtMost(int) (int, bool) { return c.Total(), true }

func (c *sketchMeter) Prefix(budget int) (int, int) {
	limit := int64(budget-meterOverhead) * meterCharsPerToken
	if limit <= 0 || !c.st.load() {
		return 0, 0
	}
	w := &c.b.widths
	k := w.maxRunesWithin(limit)
	switch {
	case k == c.b.runes:
		if c.b.bytes == 0 {
			return 0, 0
		}
		return int(c.b.bytes), meterPrice(int(c.b.units))
	case k == 0:
		return 0, 0
	}
	return int(w.offset(k)), meterPrice(int(w.unitsBefore(k)))
}

func (c *sketchMeter) Suffix(budget, from int) (int, int) {
	limit := int64(budget-meterOverhead) * meterCharsPerToken
	n := int(c.b.bytes)
	if limit <= 0 || from >= n || !c.st.load() {
		return n, 0
	}
	w := &c.b.widths
	j := max(w.runeIndex(int64(from)), w.minRuneWithinSuffix(limit))
	if j >= c.b.runes {
		return n, 0
	}
	return int(w.offset(j)), meterPrice(int(c.b.units - w.unitsBefore(j)))
}

// An atom is part of a built text block: kept text of a block, bytes
// [start, end), the gap, or the notice (after its "\n\n" when sep).
type atom struct {
	kind       uint8
	block      int
	start, end int
	sep        bool
}

const (
	atomText = iota
	atomGap
	atomNotice
)

// sketchRuns lays a plan out as dshTokensCut lays out content: head, gap,
// tail and notice, text merged until an image breaks it. It returns the
// text runs and the images kept; the notice closes the last run.
func (a *Analysis) sketchRuns(pl *sketchPlan) (runs [][]atom, images []int) {
	var cur []atom
	add := func(ps []piece) {
		for _, p := range ps {
			if p.image {
				if cur != nil {
					runs = append(runs, cur)
					cur = nil
				}
				images = append(images, p.block)
				continue
			}
			if p.start == p.end {
				// An empty kept piece adds no text (dsh keeps "" too).
				if cur == nil {
					cur = []atom{}
				}
				continue
			}
			cur = append(cur, atom{kind: atomText, block: p.block, start: p.start, end: p.end})
		}
	}
	if pl.noticeOnly {
		return [][]atom{{{kind: atomNotice}}}, nil
	}
	add(pl.r.head)
	cur = append(cur, atom{kind: atomGap})
	add(pl.r.tail)
	cur = append(cur, atom{kind: atomNotice, sep: true})
	runs = append(runs, cur)
	return runs, images
}

// sketchPrice prices a plan as priceBuilt prices the content it stands
// for; lastRun is the price of the block that holds the notice.
func (a *Analysis) sketchPrice(pl *sketchPlan) (t Tokens, lastRun, notice int) {
	a.sketch.load()
	runs, images := a.sketchRuns(pl)
	t.Estimator = a.est.Name()
	for _, i := range images {
		t.Images += a.blocks[i].price.Total()
	}
	footer := a.footerTokens(pl)
	for _, run := range runs {
		lastRun = a.sketchRunTokens(pl, run, footer)
		t.Total += lastRun
	}
	t.Total += t.Images
	notice = footer
	if !pl.noticeOnly {
		notice = a.sepTokens(noticeSep, pl)
	}
	t.Notice = min(notice, t.Total-t.Images)
	t.Text = t.Total - t.Images - t.Notice
	return t, lastRun, notice
}

// sepTokens prices lead followed by the plan's notice: on a tokenizer a
// piece boundary falls before the notice's "(", so the two add up.
func (a *Analysis) sepTokens(lead string, pl *sketchPlan) int {
	if _, ok := a.est.(tiktokenEstimator); ok {
		return countSep(a.est, lead, pl.footer, a.footerTokens(pl))
	}
	return a.est.Count(lead + pl.footer)
}

// countSep prices lead followed by a notice whose own price is n: on a
// tokenizer a piece boundary falls before the notice's "(", so the two add
// up (TestFooterTokens); elsewhere the two are counted together.
func countSep(est Estimator, lead, notice string, n int) int {
	if _, ok := est.(tiktokenEstimator); ok {
		return est.Count(lead) + n
	}
	return est.Count(lead + notice)
}

// footerTokens prices the plan's notice. On a tokenizer it is counted in
// parts that always end pieces, "(Omitted ", the byte count's digits (in
// groups of three, a piece each), and the rest, which depends only on the
// image count and the spill reference, so a sweep counts the notice's text
// once per result (TestFooterTokens compares it with counting the notice).
func (a *Analysis) footerTokens(pl *sketchPlan) int {
	return a.noticeTokens(pl.footer, pl.r.omittedBytes, pl.r.omittedImages)
}

// noticeTokens prices notice, the call's notice for omitted bytes and k
// images (FormatSpillNotice(ExactOmission(omitted), ref, k)), in the parts
// footerTokens names on a tokenizer, and whole elsewhere.
func (a *Analysis) noticeTokens(notice string, omitted int64, k int) int {
	te, ok := a.est.(tiktokenEstimator)
	if !ok {
		return a.est.Count(notice)
	}
	m := te.m
	ref := a.call.Spill.withDefaults()
	parts := a.derive("sketch/footer", func() any { return map[int][2]int{} }).(map[int][2]int)
	c, ok := parts[k]
	if !ok {
		full := FormatSpillNotice(ExactOmission(0), ref, k)
		lead := "(Omitted "
		c = [2]int{m.count(lead), m.count(full[len(lead)+1:])}
		if k > 0 {
			// The image count's digits are priced apart too.
			digits := strconv.Itoa(k)
			rest := full[len(lead)+1:]
			i := strings.Index(rest, " Omitted "+digits+" images.")
			c[1] = m.count(rest[:i+len(" Omitted ")]) + m.count(rest[i+len(" Omitted ")+len(digits):])
		}
		parts[k] = c
	}
	n := c[0] + c[1] + digitTokens(m, strconv.FormatInt(omitted, 10))
	if k > 0 {
		n += digitTokens(m, strconv.Itoa(k))
	}
	return n
}

// digitTokens prices a run of digits as the split does: groups of three
// from the left, a piece each.
func digitTokens(m *model, digits string) int {
	n := 0
	for len(digits) > 3 {
		n += m.digitGroup(digits[:3])
		digits = digits[3:]
	}
	return n + m.digitGroup(digits)
}

// sketchRunTokens prices one built text block; footer is the notice's
// price.
func (a *Analysis) sketchRunTokens(pl *sketchPlan, run []atom, footer int) int {
	if _, ok := a.est.(tiktokenEstimator); !ok {
		// dsh's meter: one framing per block over its UTF-16 units.
		var units int64
		for _, at := range run {
			switch at.kind {
			case atomGap:
				units += int64(utf16Len(DshGap))
			case atomNotice:
				units += int64(utf16Len(pl.footer))
				if at.sep {
					units += int64(len(noticeSep))
				}
			default:
				w := &a.sketch.sum.blocks[at.block].widths
				units += w.unitsBefore(w.runeIndex(int64(at.end))) - w.unitsBefore(w.runeIndex(int64(at.start)))
			}
		}
		return meterPrice(int(units))
	}
	// A tokenizer: the join of a head and the gap, and of the gap and a
	// tail, each come from the tables; a piece boundary falls before the
	// gap's "[" and before the notice's "(".
	gap := -1
	for i, at := range run {
		if at.kind == atomGap {
			gap = i
		}
	}
	notice := func(at atom) bool { return at.kind == atomNotice && at.sep }
	if gap < 0 {
		switch {
		case len(run) == 1 && run[0].kind == atomNotice && !run[0].sep:
			return footer
		case len(run) == 1 && run[0].kind == atomNotice:
			return a.est.Count(noticeSep) + footer
		case len(run) == 1 && a.wholeText(run[0]):
			return a.sketch.sum.blocks[run[0].block].tokenTotal
		case len(run) == 2 && a.wholeText(run[0]) && notice(run[1]):
			return a.sumTokens(run[0].block).endNL + footer
		}
		a.sketchFail()
		return 0
	}
	n := 0
	switch left := run[:gap]; {
	case len(left) == 0:
		n = a.est.Count(noticeSep)
	case len(left) == 1 && left[0].kind == atomText && left[0].start == 0:
		n = a.headNL(left[0])
	default:
		a.sketchFail()
		return 0
	}
	tail := func(at atom) bool { return at.kind == atomText && at.end == a.blocks[at.block].n }
	switch right := run[gap+1:]; {
	case len(right) == 0:
		n += a.est.Count(dshGapRest)
	case len(right) == 1 && notice(right[0]):
		n += a.est.Count(dshGapRest+noticeSep) + footer
	case len(right) == 1 && tail(right[0]):
		n += a.gapTail(right[0], false)
	case len(right) == 2 && tail(right[0]) && notice(right[1]):
		n += a.gapTail(right[0], true) + footer
	case len(right) == 3 && tail(right[0]) && a.wholeText(right[1]) && right[1].block == right[0].block+1 && notice(right[2]) &&
		a.sketch.sum.blocks[right[0].block].joined != nil:
		// A tail in the next-to-last block, the last kept whole after it.
		n += a.joinedGapTail(right[0]) + footer
	default:
		a.sketchFail()
		return 0
	}
	return n
}

func (a *Analysis) sumTokens(block int) *tokenTable { return a.sketch.sum.blocks[block].tokens }

func (a *Analysis) wholeText(at atom) bool {
	return at.kind == atomText && at.start == 0 && at.end == a.blocks[at.block].n
}

// headNL is the price of a head (a prefix of its block) followed by "\n\n".
func (a *Analysis) headNL(at atom) int {
	sb := &a.sketch.sum.blocks[at.block]
	t := sb.tokens
	if int64(at.end) == sb.bytes {
		return t.endNL
	}
	k := sb.widths.runeIndex(int64(at.end))
	if k > t.kh || t.hc[k] < 0 {
		a.sketchFail()
		return 0
	}
	return int(t.hc[k])
}

// gapTail is the price of "[...]\n\n" followed by a tail (a suffix of its
// block), and by the notice's "\n\n" when notice is set.
func (a *Analysis) gapTail(at atom, notice bool) int {
	return a.gapTailOn(at, a.sketch.sum.blocks[at.block].tokens, notice)
}

// joinedGapTail is the price of "[...]\n\n" followed by a tail of the
// next-to-last block, the whole last block and the notice's "\n\n".
func (a *Analysis) joinedGapTail(at atom) int {
	return a.gapTailOn(at, a.sketch.sum.blocks[at.block].joined, true)
}

// gapTailOn is gapTail from table t, whose code points start with the
// tail's block.
func (a *Analysis) gapTailOn(at atom, t *tokenTable, notice bool) int {
	sb := &a.sketch.sum.blocks[at.block]
	j := sb.widths.runeIndex(int64(at.start))
	if j < t.jt || t.tg[j-t.jt] < 0 {
		a.sketchFail()
		return 0
	}
	g := int(t.tg[j-t.jt])
	if !notice {
		return g
	}
	if e, ok := t.tge[j]; ok {
		if e < 0 {
			a.sketchFail()
			return 0
		}
		return int(e)
	}
	return g + t.endNL - t.total
}

// sketchReprice is Reprice of a sketched cut on this sketch: the plan
// priced from this sketch's tables, the notice reported as Reprice reports
// it (at most the price of the block that holds it).
func (a *Analysis) sketchReprice(pl *sketchPlan) Tokens {
	t, lastRun, notice := a.sketchPrice(pl)
	t.Notice = min(notice, lastRun)
	t.Text = t.Total - t.Images - t.Notice
	return t
}

// sketchOmittedLines is omittedLines of a sketched cut: the lines of each
// text block holding a byte outside what the plan kept.
func (a *Analysis) sketchOmittedLines(pl *sketchPlan) int64 {
	if !a.sketch.load() {
		return 0
	}
	kept := map[int][][2]int64{}
	for _, p := range append(append([]piece{}, pl.r.head...), pl.r.tail...) {
		if !p.image {
			kept[p.block] = append(kept[p.block], [2]int64{int64(p.start), int64(p.end)})
		}
	}
	var n int64
	for i := range a.sketch.sum.blocks {
		sb := &a.sketch.sum.blocks[i]
		if sb.kind != sumText || sb.bytes == 0 {
			continue
		}
		n += linesOutsideAt(sb.bytes, sb.newlines, kept[i])
	}
	return n
}

// linesOutsideAt is linesOutside on a text known by its length and the
// offsets of its line breaks.
func linesOutsideAt(size int64, newlines []int64, kept [][2]int64) int64 {
	return linesOutsideBy(size, kept, func(x int64) int64 { // line breaks before byte x
		return int64(sort.Search(len(newlines), func(i int) bool { return newlines[i] >= x }))
	})
}
