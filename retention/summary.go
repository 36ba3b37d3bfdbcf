package retention

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"sync"
	"unicode/utf8"

	"github.com/klauspost/compress/zstd"
)

// Summaries: what a sweep needs of one result, computed once when the
// result is indexed and stored without any of its text, so a sweep decides
// every result at any budget without reopening its source.
//
// A summary holds numbers only: each text block's lengths in bytes, code
// points and UTF-16 units, where its multi-byte code points and line breaks
// are, and, on a tokenizer, the exact count of every prefix and suffix a cut
// search can reach plus the counts of the joins a cut writes (the prefix
// followed by "\n\n", the gap's "[...]\n\n" followed by the suffix, the
// suffix followed by the notice's "\n\n"), and for a text before a last
// text block the same joins of its suffixes followed by that block (a cut
// writes them as one text). Each image's price and whether it is readable. From these, Sketch builds an Analysis that runs the real
// policy code (the same cut searches and retention), so a sketched decision
// equals the decision on the text or reports that it cannot be made
// (Analysis.SketchFailed), and the caller decides on the text.

// SummaryVersion changes whenever what a summary holds or how it is counted
// changes; a stored summary of another version is stale.
const SummaryVersion = 2

// ErrNoSketch reports a summary that cannot stand for its result on the
// asked estimator or route.
var ErrNoSketch = errors.New("retention: no summary for this estimator")

// Summary is one result as a sweep needs it, on one route.
type Summary struct {
	// Route is the image route its prices are on; Estimator the estimator
	// whose tables it holds ("" when the route's estimator needs none).
	Route     string
	Estimator string
	// Total is the original result's exact price on Estimator (on the
	// route's estimator when Estimator is "").
	Total     int
	TextBytes int64
	blocks    []sumBlock
	// content is the placeholder content every sketch of this summary
	// shares, so outcomes that keep the original compare as one content.
	content []Block
	// tables is the encoded part only a cut reads (widths, line breaks,
	// token tables), decoded on first use (load): most results are kept
	// whole at most budgets and never need it.
	tables  []byte
	loaded  bool
	loadErr error
	buf     *SummaryBuffers
}

// Kinds of summarised blocks.
const (
	sumText  = 1
	sumImage = 2
	sumOther = 3
)

type sumBlock struct {
	kind uint8
	// Text blocks: lengths, code-point widths and line breaks.
	bytes, runes, units int64
	// hasTokens says the block has token tables on Estimator, and
	// tokenTotal is its count there.
	hasTokens  bool
	tokenTotal int
	widths     widthRuns
	newlines   []int64
	tokens     *tokenTable
	// joined, on the next-to-last block when the last is text too, is
	// the tail table of this block's text followed by the last block's
	// (buildJoinedTail): a tail starting here is written joined to it.
	joined *tokenTable
	// Images: whether they are priced and readable, the route's visual
	// tokens, the handle text's price on Estimator and its lengths.
	priced, readable         bool
	visual, handleTokens     int
	handleBytes, handleUnits int
	mediaType                string
	imageWidth, imageHeight  int
	// Other blocks: their structural prices on the meter and on Estimator.
	meterStructural   int
	meterStructuralOK bool
	tokenStructural   int
	tokenStructuralOK bool
}

// widthRuns are a text's code points as runs of one UTF-8 width: counts[i]
// code points of widths[i] bytes each, with the bytes, code points and
// UTF-16 units before each run.
type widthRuns struct {
	counts []int64
	widths []uint8
	cb     []int64
	cr     []int64
	cu     []int64
}

func newWidthRuns(text string) widthRuns {
	var w widthRuns
	var last uint8
	for i := 0; i < len(text); {
		c := text[i]
		var width uint8 = 1
		if c >= utf8.RuneSelf {
			_, size := utf8.DecodeRuneInString(text[i:])
			width = uint8(size)
		}
		if width != last || len(w.counts) == 0 {
			w.counts = append(w.counts, 0)
			w.widths = append(w.widths, width)
			last = width
		}
		w.counts[len(w.counts)-1]++
		i += int(width)
	}
	w.index()
	return w
}

func unitsOf(width uint8) int64 {
	if width == 4 {
		return 2
	}
	return 1
}

// index fills the cumulative arrays from counts and widths.
func (w *widthRuns) index() { w.indexInto(nil) }

func (w *widthRuns) indexInto(a *arena[int64]) {
	n := len(w.counts)
	w.cb, w.cr, w.cu = a.take(n+1), a.take(n+1), a.take(n+1)
	for i := range n {
		w.cb[i+1] = w.cb[i] + w.counts[i]*int64(w.widths[i])
		w.cr[i+1] = w.cr[i] + w.counts[i]
		w.cu[i+1] = w.cu[i] + w.counts[i]*unitsOf(w.widths[i])
	}
}

// run is the run holding byte pos (the last run for the end).
func (w *widthRuns) runAtByte(pos int64) int { return lastAtMost(w.cb, len(w.counts), pos) }

// runAtRune is the run holding code point k (the last run for the end).
func (w *widthRuns) runAtRune(k int64) int { return lastAtMost(w.cr, len(w.counts), k) }

// lastAtMost is the last i below n with c[i] <= v (0 when none): the run a
// position falls in, by the runs' cumulative starts c.
func lastAtMost(c []int64, n int, v int64) int {
	lo, hi := 0, n-1
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if c[mid] <= v {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return lo
}

// runeStart reports whether byte pos starts a code point.
func (w *widthRuns) runeStart(pos int64) bool {
	if len(w.counts) == 0 {
		return true
	}
	r := w.runAtByte(pos)
	return (pos-w.cb[r])%int64(w.widths[r]) == 0
}

// runeIndex is the code-point index of byte pos, a code-point start.
func (w *widthRuns) runeIndex(pos int64) int64 {
	if len(w.counts) == 0 {
		return 0
	}
	r := w.runAtByte(pos)
	return w.cr[r] + (pos-w.cb[r])/int64(w.widths[r])
}

// offset is the byte offset of code point k.
func (w *widthRuns) offset(k int64) int64 {
	if len(w.counts) == 0 {
		return 0
	}
	r := w.runAtRune(k)
	return w.cb[r] + (k-w.cr[r])*int64(w.widths[r])
}

// unitsBefore is the UTF-16 units of the first k code points.
func (w *widthRuns) unitsBefore(k int64) int64 {
	if len(w.counts) == 0 {
		return 0
	}
	r := w.runAtRune(k)
	return w.cu[r] + (k-w.cr[r])*unitsOf(w.widths[r])
}

// maxRunesWithin is the most leading code points holding at most limit
// UTF-16 units.
func (w *widthRuns) maxRunesWithin(limit int64) int64 {
	n := len(w.counts)
	if n == 0 || limit <= 0 {
		return 0
	}
	if w.cu[n] <= limit {
		return w.cr[n]
	}
	lo, hi := 0, n-1 // the run where the limit falls
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if w.cu[mid] <= limit {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return w.cr[lo] + (limit-w.cu[lo])/unitsOf(w.widths[lo])
}

// minRuneWithinSuffix is the first code point j such that code points
// [j, end) hold at most limit UTF-16 units.
func (w *widthRuns) minRuneWithinSuffix(limit int64) int64 {
	n := len(w.counts)
	if n == 0 {
		return 0
	}
	total := w.cu[n]
	// The most code points from the end within limit: the largest count c
	// with units(end-c, end) <= limit, found as the prefix of the reversed
	// text; units are additive, so search the prefix boundary instead.
	need := total - limit // units(0, j) must be at least this
	if need <= 0 {
		return 0
	}
	// The smallest j with unitsBefore(j) >= need.
	lo, hi := 0, n-1
	for lo < hi {
		mid := (lo + hi) / 2
		if w.cu[mid+1] >= need {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	per := unitsOf(w.widths[lo])
	k := (need - w.cu[lo] + per - 1) / per
	return w.cr[lo] + k
}

// tokenTable is one text block's exact counts on a tokenizer, over the
// code points a cut search can reach (see buildTokenTable). All indices are
// code points.
type tokenTable struct {
	total int
	// endNL is the count of the text followed by "\n\n".
	endNL int
	// Head: for k in [0, kh], p[k] is the count of the first k code points
	// and hc[k] that of the same prefix followed by "\n\n".
	kh    int64
	p, hc []int32
	// Tail: for j in [jt, runes], s[j-jt] is the count of the suffix from
	// code point j, tg[j-jt] that of "[...]\n\n" followed by it, and tge
	// those of "[...]\n\n" + suffix + "\n\n" that are not tg + endNL - total.
	jt    int64
	s, tg []int32
	tge   map[int64]int32
}

// dshGapRest is the part of the gap after its leading "\n\n": a piece
// boundary always falls before its "[" (no piece of either encoding holds a
// line break followed by "["), so a cut's head is counted with "\n\n" and
// the tail with this.
const dshGapRest = "[...]\n\n"

// buildTokenTable counts text's prefixes and suffixes on m as far as a cut
// search with a budget of at most limit tokens probes them: the searches
// gallop from each end by doubling byte distances and stop at the first
// probe over the budget, so every probe of a search within limit lies
// before the first gallop probe over limit.
//
// Every count is that of the exact string (TestTokenTableCountsExactStrings
// compares each with counting the string). They are found from the text's
// own pieces: a prefix is the pieces up to the last boundary final before
// its end plus the few after it split again, and only pieces that differ
// from the text's are merged anew; a suffix is split from its start until
// it meets the text's pieces. Two joins need no merging in the common case:
// "\n\n" after a letter or digit is a piece of its own, and the gap's
// "[...]\n\n" ends a piece unless the suffix starts with a character its
// punctuation piece absorbs (a line break, or "/" on o200k_base).
func buildTokenTable(x *textIndex, limit int) *tokenTable {
	m, text := x.m, x.text
	x.growHeadTo(len(text))
	x.buildTail(0)
	n := len(text)
	runes := len(x.hrunes)
	t := &tokenTable{total: x.total()}
	last := x.lastStable()
	t.endNL = x.hcum[sortSearch(x.hbounds, last)] + m.count(text[x.hoff[last]:]+"\n\n")
	nl := m.count("\n\n")
	// A punctuation piece followed by "\n\n" takes the line breaks in; its
	// count is kept by the piece, which repeats.
	punctNL := map[string]int{}

	// Head region: up to the first gallop probe over limit.
	kh := runes
	for d := gallopStart; ; d *= 2 {
		pos := min(d, n)
		for pos < n && !utf8.RuneStart(text[pos]) {
			pos--
		}
		if pos == n {
			break
		}
		if k := sortSearch(x.hoff, pos); x.prefixCount(k) > limit {
			kh = k
			break
		}
	}
	t.kh = int64(kh)
	t.p = make([]int32, kh+1)
	t.hc = make([]int32, kh+1)
	bi := 0
	ws := 0 // where the whitespace run ending at k starts
	var scratch src
	for k := 0; k <= kh; k++ {
		for bi+1 < len(x.hbounds) && x.hbounds[bi+1] <= k-stableMargin {
			bi++
		}
		var c uint16
		if k > 0 {
			c = class(x.hrunes[k-1])
		}
		if c&cSpace == 0 {
			ws = k
		}
		p, lastStart, lastTokens := unknownCount, 0, 0
		switch {
		case k == runes:
			p = t.total
		case k-x.hbounds[bi] <= tableSplitCap:
			p, lastStart, lastTokens = x.prefixFrom(&scratch, bi, k)
		}
		t.p[k] = int32(p)
		h := unknownCount
		switch {
		case k == 0:
			h = nl
		case k == runes:
			h = t.endNL
		case p == unknownCount:
		case c&(cL|cN) != 0:
			// A word or number ends where the line breaks begin, and they
			// are a piece of their own.
			h = p + nl
		case c&(cSpace|cM) == 0:
			// Punctuation: the last piece alone takes the line breaks in.
			piece := text[x.hoff[lastStart]:x.hoff[k]]
			v, ok := punctNL[piece]
			if !ok {
				v = m.pieceTokens(piece + "\n\n")
				punctNL[piece] = v
			}
			h = p - lastTokens + v
		default:
			// A mark, or white space, which the line breaks join from
			// its start: split again from a boundary final before it.
			i := sortSearch(x.hbounds, min(k, ws)-stableMargin+1) - 1
			if i < 0 {
				i = 0
			}
			if s := x.hbounds[i]; k-s <= tableSplitCap {
				h = x.hcum[i] + m.count(text[x.hoff[s]:x.hoff[k]]+"\n\n")
			}
		}
		t.hc[k] = int32(h)
	}

	// Tail region: back to the first gallop probe over limit.
	jt := 0
	for d := gallopStart; ; d *= 2 {
		pos := max(n-d, 0)
		for pos < n && !utf8.RuneStart(text[pos]) {
			pos++
		}
		if pos == 0 {
			break
		}
		if j := sortSearch(x.toff, pos); x.suffixCount(j) > limit {
			jt = j
			break
		}
	}
	t.jt = int64(jt)
	x.tailTable(t, jt, runes, last)
	x.pieces = nil // what the Analysis keeps need not hold the memo
	return t
}

// tailTable fills t's tail region for code points [jt, end] of x's text
// (end at most its length): s, tg and tge as buildTokenTable describes
// them, with t.total and t.endNL already x's; last is x.lastStable().
func (x *textIndex) tailTable(t *tokenTable, jt, end, last int) {
	m, text := x.m, x.text
	runes := len(x.hrunes)
	gap := m.count(dshGapRest)
	t.s = make([]int32, end-jt+1)
	t.tg = make([]int32, end-jt+1)
	absorbs := func(r rune) bool { return r == '\r' || r == '\n' || (r == '/' && m.name == EncodingO200k) }
	tail := &src{r: x.trunes, n: len(x.trunes)}
	for j := jt; j <= end; j++ {
		s, conv := x.suffixAt(tail, j)
		g := unknownCount
		switch {
		case s == unknownCount:
		case j == runes || !absorbs(x.hrunes[j]):
			// The gap's piece ends where the suffix starts, which then
			// splits as it does alone.
			g = gap + s
		default:
			g, conv = x.gapSuffix(j)
		}
		t.s[j-jt], t.tg[j-jt] = int32(s), int32(g)
		if g != unknownCount && conv > last {
			// The join reaches the text's last pieces, which the notice's
			// "\n\n" may change: count the whole join.
			e := unknownCount
			if runes-j <= tableSplitCap {
				e = m.count(dshGapRest + text[x.hoff[j]:] + "\n\n")
			}
			if e != g+t.endNL-t.total {
				if t.tge == nil {
					t.tge = map[int64]int32{}
				}
				t.tge[int64(j)] = int32(e)
			}
		}
	}
}

// buildJoinedTail is the tail table of a text block followed, in the same
// built block, by the rest of the result's text (joined: the block's text
// then the next blocks', all text): a cut whose tail starts in the block
// keeps the rest whole and writes "[...]\n\n" + tail + rest (+ "\n\n"),
// whose counts are joined's suffix counts from the same code points. It
// covers the block's own tail region, jt up to its runes.
func buildJoinedTail(m *model, joined string, jt, runes int) *tokenTable {
	x := newTextIndex(m, joined)
	x.growHeadTo(len(joined))
	x.buildTail(0)
	t := &tokenTable{total: x.total()}
	last := x.lastStable()
	t.endNL = x.hcum[sortSearch(x.hbounds, last)] + m.count(joined[x.hoff[last]:]+"\n\n")
	t.jt = int64(jt)
	x.tailTable(t, jt, runes, last)
	return t
}

// unknownCount marks a table entry left uncounted: one that would need
// splitting more than tableSplitCap runes again (a very long piece or run
// of white space). A search that reaches one is declined.
const unknownCount = -1

// tableSplitCap bounds how far back an entry is split again, so a text of
// one very long piece is summarised in linear time.
const tableSplitCap = 512

// pieceMemoMax bounds the pieces pieceCount remembers per text, and
// pieceMemoLen their length: the tables count the same short partial
// pieces (a word's first letters, its last) again and again.
const (
	pieceMemoMax = 1 << 15
	pieceMemoLen = 24
)

// pieceCount is x.m.pieceTokens(p), remembered for short pieces of x's
// text while the tables are built.
func (x *textIndex) pieceCount(p string) int {
	if len(p) > pieceMemoLen {
		return x.m.pieceTokens(p)
	}
	if n, ok := x.pieces[p]; ok {
		return int(n)
	}
	n := x.m.pieceTokens(p)
	if x.pieces == nil {
		x.pieces = map[string]int32{}
	}
	if len(x.pieces) < pieceMemoMax {
		x.pieces[p] = int32(n)
	}
	return n
}

// prefixFrom is prefixCount(k) with bi the index of the last boundary final
// before k (the text fully split): the pieces from there to k are split
// again, and those that are the text's own pieces take their known counts.
// It also returns where the prefix's last piece starts and its count.
func (x *textIndex) prefixFrom(t *src, bi, k int) (tokens, lastStart, lastTokens int) {
	tokens = x.hcum[bi]
	pos, fb := x.hbounds[bi], bi
	*t = src{r: x.hrunes[:k], n: k}
	for pos < k {
		e := x.m.next(t, pos)
		if e <= pos {
			_, e = t.at(pos)
		}
		if fb >= 0 && fb+1 < len(x.hbounds) && x.hbounds[fb+1] == e {
			lastTokens = x.hcum[fb+1] - x.hcum[fb]
			fb++
		} else {
			lastTokens = x.pieceCount(x.text[x.hoff[pos]:x.hoff[e]])
			fb = -1
		}
		tokens += lastTokens
		lastStart = pos
		pos = e
	}
	return tokens, lastStart, lastTokens
}

// suffixAt is suffixCount(j) for the table over the whole text, and the
// boundary where the suffix's pieces meet the text's.
func (x *textIndex) suffixAt(t *src, j int) (tokens, conv int) {
	if b := x.tbound[j]; b >= 0 {
		return x.tsuf[b], j
	}
	for pos := j; pos < t.n; {
		e := x.m.next(t, pos)
		if e <= pos {
			_, e = t.at(pos)
		}
		if e-j > tableSplitCap {
			return unknownCount, t.n
		}
		tokens += x.pieceCount(x.text[x.toff[pos]:x.toff[e]])
		if b := x.tbound[e]; b >= 0 {
			return tokens + x.tsuf[b], e
		}
		pos = e
	}
	return tokens, t.n
}

func sortSearch(a []int, v int) int {
	lo, hi := 0, len(a)
	for lo < hi {
		mid := (lo + hi) / 2
		if a[mid] < v {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo
}

// lastStable is the last piece boundary at least stableMargin runes before
// the end and before any white space that ends the text: text appended
// after the text does not move pieces before it.
func (x *textIndex) lastStable() int {
	// Line breaks appended to white space join it from its start, so the
	// boundary must come before a trailing run of it.
	end := len(x.hrunes)
	for end > 0 && class(x.hrunes[end-1])&cSpace != 0 {
		end--
	}
	i := sortSearch(x.hbounds, end-stableMargin+1) - 1
	if i < 0 {
		return 0
	}
	return x.hbounds[i]
}

// gapSuffix is the count of "[...]\n\n" followed by the suffix from rune j,
// and the rune where its pieces meet the text's own (from there on the
// count is the text's suffix count). The suffix table must cover the whole
// text.
func (x *textIndex) gapSuffix(j int) (tokens, conv int) {
	runes := len(x.trunes)
	for w := 64; ; w *= 4 {
		if w > 4*tableSplitCap {
			return unknownCount, runes
		}
		end := min(runes, j+w)
		s := dshGapRest + x.text[x.toff[j]:x.toff[end]]
		off := len(dshGapRest) - x.toff[j] // text offset = string offset - off
		tokens = 0
		found := -1
		done := false
		x.m.splitString(s, func(ps, pe int) bool {
			tokens += x.m.pieceTokens(s[ps:pe])
			if pe < len(dshGapRest) {
				return true
			}
			r := sortSearch(x.toff, pe-off)
			if x.toff[r] != pe-off {
				return true
			}
			if end != runes && end-r < stableMargin {
				return false
			}
			if r == runes || x.tbound[r] >= 0 {
				found = r
				done = true
				return false
			}
			return true
		})
		if done {
			return tokens + x.tsuf[x.tbound[found]], found
		}
		if end == runes {
			// The split reached the end without meeting the text's:
			// everything was counted.
			return tokens, runes
		}
	}
}

// BuildSummary summarises the result a was built from, for sweeps on a's
// route: a must be an Analysis on the route's estimator. The tables count
// prefixes and suffixes far enough for any budget below the whole result's
// price (a result within its budget is never cut).
func BuildSummary(a *Analysis) *Summary {
	a.mu.Lock()
	defer a.mu.Unlock()
	s := &Summary{Route: a.route.Name, TextBytes: a.textBytes}
	tokenizer := false
	if te, ok := a.est.(tiktokenEstimator); ok {
		s.Estimator, tokenizer = te.m.name, true
		// The text's own tables are grown whole once and shared by the
		// count below and the summary's.
		for i := range a.blocks {
			if x, ok := a.blocks[i].cost.(*tiktokenText); ok {
				x.x.growHeadTo(len(x.x.text))
			}
		}
	}
	orig, _ := a.original(int(^uint(0) >> 1))
	s.Total = orig.Total
	limit := s.Total/2 + 1
	s.blocks = make([]sumBlock, len(a.blocks))
	for i := range a.blocks {
		bi := &a.blocks[i]
		sb := &s.blocks[i]
		switch bi.kind {
		case TypeText:
			sb.kind = sumText
			sb.bytes = int64(len(bi.text))
			sb.widths = newWidthRuns(bi.text)
			n := len(sb.widths.counts)
			sb.runes, sb.units = sb.widths.cr[n], sb.widths.cu[n]
			for j := 0; j < len(bi.text); j++ {
				if bi.text[j] == '\n' {
					sb.newlines = append(sb.newlines, int64(j))
				}
			}
			if tokenizer {
				x := bi.cost.(*tiktokenText).x
				sb.tokens = buildTokenTable(x, limit)
				sb.hasTokens, sb.tokenTotal = true, sb.tokens.total
				if last := &a.blocks[len(a.blocks)-1]; i == len(a.blocks)-2 && last.kind == TypeText {
					sb.joined = buildJoinedTail(x.m, bi.text+last.text, int(sb.tokens.jt), len(x.hrunes))
				}
			}
		case TypeImage:
			sb.kind = sumImage
			sb.priced, sb.readable = bi.priced, bi.readable
			sb.visual, sb.handleTokens = bi.price.Visual, bi.price.HandleTokens
			sb.handleBytes, sb.handleUnits = len(bi.price.Handle), utf16Len(bi.price.Handle)
			sb.mediaType, sb.imageWidth, sb.imageHeight = bi.img.MediaType, bi.img.Width, bi.img.Height
		default:
			sb.kind = sumOther
			sb.tokenStructural, sb.tokenStructuralOK = bi.structural, bi.structuralOK
			raw := a.res.Content[i].Raw
			if len(raw) == 0 {
				raw = []byte(`{"type":` + jsString(a.res.Content[i].Type) + `}`)
			}
			sb.meterStructural, sb.meterStructuralOK = meter{}.Structural(raw)
		}
	}
	s.loaded = true
	return s
}

// Encoding: a version and a header of varints with what deciding a kept
// result needs, then the tables, compressed: code-point widths, line breaks
// and token tables, whose entries go as one-byte differences between
// neighbours (mostly 0 and 1; anything else after an escape byte).

var (
	zOnce sync.Once
	zEnc  *zstd.Encoder
	zDec  *zstd.Decoder
)

func zcodec() (*zstd.Encoder, *zstd.Decoder) {
	zOnce.Do(func() {
		// EncodeAll and DecodeAll run at most this many at once: one per
		// core, as many as the workers summarising or sweeping (with one,
		// a sweep's workers waited in turn for the decoder).
		n := runtime.GOMAXPROCS(0)
		zEnc, _ = zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(n))
		zDec, _ = zstd.NewReader(nil, zstd.WithDecoderConcurrency(n))
	})
	return zEnc, zDec
}

type sumWriter struct{ b []byte }

func (w *sumWriter) uint(v uint64) { w.b = binary.AppendUvarint(w.b, v) }
func (w *sumWriter) int(v int64)   { w.b = binary.AppendVarint(w.b, v) }
func (w *sumWriter) str(s string)  { w.uint(uint64(len(s))); w.b = append(w.b, s...) }
func (w *sumWriter) bool(v bool) {
	if v {
		w.b = append(w.b, 1)
	} else {
		w.b = append(w.b, 0)
	}
}

// escape marks a difference that does not fit one byte; a varint follows.
const escape = 0x80

func (w *sumWriter) small(d int64) {
	if d > -128 && d < 128 {
		w.b = append(w.b, byte(int8(d)))
		return
	}
	w.b = append(w.b, escape)
	w.int(d)
}

// deltas writes v as differences from the previous entry, diffs as
// differences from base's entries.
func (w *sumWriter) deltas(v []int32) {
	w.uint(uint64(len(v)))
	prev := int32(0)
	for _, x := range v {
		w.small(int64(x - prev))
		prev = x
	}
}

func (w *sumWriter) diffs(v, base []int32) {
	for i, x := range v {
		w.small(int64(x - base[i]))
	}
}

// Encode writes the summary as bytes for the index.
func (s *Summary) Encode() []byte {
	var w sumWriter
	w.uint(SummaryVersion)
	w.str(s.Route)
	w.str(s.Estimator)
	w.int(int64(s.Total))
	w.int(s.TextBytes)
	w.uint(uint64(len(s.blocks)))
	var t sumWriter
	for i := range s.blocks {
		b := &s.blocks[i]
		w.uint(uint64(b.kind))
		switch b.kind {
		case sumText:
			w.int(b.bytes)
			w.int(b.runes)
			w.int(b.units)
			w.bool(b.hasTokens)
			w.int(int64(b.tokenTotal))
			b.encodeTables(&t)
		case sumImage:
			w.bool(b.priced)
			w.bool(b.readable)
			w.int(int64(b.visual))
			w.int(int64(b.handleTokens))
			w.int(int64(b.handleBytes))
			w.int(int64(b.handleUnits))
			w.str(b.mediaType)
			w.int(int64(b.imageWidth))
			w.int(int64(b.imageHeight))
		case sumOther:
			w.bool(b.meterStructuralOK)
			w.int(int64(b.meterStructural))
			w.bool(b.tokenStructuralOK)
			w.int(int64(b.tokenStructural))
		}
	}
	enc, _ := zcodec()
	return enc.EncodeAll(t.b, w.b)
}

func (b *sumBlock) encodeTables(w *sumWriter) {
	w.uint(uint64(len(b.widths.counts)))
	for j, c := range b.widths.counts {
		w.uint(uint64(c))
		w.uint(uint64(b.widths.widths[j]))
	}
	w.uint(uint64(len(b.newlines)))
	prev := int64(0)
	for _, p := range b.newlines {
		w.uint(uint64(p - prev))
		prev = p
	}
	t := b.tokens
	if t == nil {
		return
	}
	w.int(int64(t.endNL))
	w.int(t.kh)
	w.deltas(t.p)
	w.diffs(t.hc, t.p)
	w.int(t.jt)
	w.deltas(t.s)
	w.diffs(t.tg, t.s)
	w.tailTable(t)
	w.bool(b.joined != nil)
	if j := b.joined; j != nil {
		w.int(int64(j.total))
		w.int(int64(j.endNL))
		w.int(j.jt)
		w.deltas(j.s)
		w.diffs(j.tg, j.s)
		w.tailTable(j)
	}
}

// tailTable writes t's tge entries, in code-point order.
func (w *sumWriter) tailTable(t *tokenTable) {
	w.uint(uint64(len(t.tge)))
	keys := make([]int64, 0, len(t.tge))
	for j := range t.tge {
		keys = append(keys, j)
	}
	slices.Sort(keys)
	for _, j := range keys {
		w.int(j)
		w.int(int64(t.tge[j]))
	}
}

// tge reads a table's tge entries (tailTable); limit bounds their count.
func (r *sumReader) tge(t *tokenTable, limit int) {
	if k := r.count(limit); k > 0 {
		t.tge = make(map[int64]int32, k)
		for range k {
			j := r.int()
			t.tge[j] = int32(r.int())
		}
	}
}

type sumReader struct {
	b   []byte
	err error
	i32 *arena[int32]
}

func (r *sumReader) uint() uint64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.err = io.ErrUnexpectedEOF
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *sumReader) int() int64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Varint(r.b)
	if n <= 0 {
		r.err = io.ErrUnexpectedEOF
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *sumReader) count(limit int) int {
	n := r.uint()
	if n > uint64(limit) {
		if r.err == nil {
			r.err = fmt.Errorf("count %d over %d", n, limit)
		}
		return 0
	}
	return int(n)
}

func (r *sumReader) str() string {
	n := r.count(len(r.b))
	if r.err != nil {
		return ""
	}
	s := string(r.b[:n])
	r.b = r.b[n:]
	return s
}

func (r *sumReader) bool() bool {
	if r.err != nil || len(r.b) == 0 {
		if r.err == nil {
			r.err = io.ErrUnexpectedEOF
		}
		return false
	}
	v := r.b[0] == 1
	r.b = r.b[1:]
	return v
}

// smalls reads n one-byte differences (escapes included), adding each to
// base's entry (diffs) or to the previous entry (base nil).
func (r *sumReader) smalls(n int, base []int32) []int32 {
	if r.err != nil {
		return nil
	}
	out := r.i32.take(n)
	b := r.b
	prev := int32(0)
	for i := range out {
		if len(b) == 0 {
			r.err = io.ErrUnexpectedEOF
			return nil
		}
		c := b[0]
		b = b[1:]
		d := int32(int8(c))
		if c == escape {
			v, k := binary.Varint(b)
			if k <= 0 {
				r.err = io.ErrUnexpectedEOF
				return nil
			}
			b = b[k:]
			d = int32(v)
		}
		if base != nil {
			out[i] = base[i] + d
		} else {
			prev += d
			out[i] = prev
		}
	}
	r.b = b
	return out
}

// SummaryBuffers are reusable memory for decoding summaries' tables, so a
// sweep that decodes thousands does not leave thousands of tables to the
// garbage collector. A summary decoded with them is valid until the next
// one decoded with the same buffers; they are not safe for concurrent use.
type SummaryBuffers struct {
	raw []byte
	i32 arena[int32]
	i64 arena[int64]
	u8  arena[uint8]
}

// arena hands out slices of one backing array, reset for each summary. A
// request that does not fit gets a new, larger array; slices already handed
// out keep the old one.
type arena[T any] struct {
	buf  []T
	used int
}

func (a *arena[T]) reset() { a.used = 0 }

func (a *arena[T]) take(n int) []T {
	if a == nil {
		return make([]T, n)
	}
	if a.used+n > len(a.buf) {
		a.buf = make([]T, max(2*len(a.buf), a.used+n, 1024))
		a.used = 0
	}
	out := a.buf[a.used : a.used+n : a.used+n]
	a.used += n
	clear(out)
	return out
}

// ErrSummary reports stored summary bytes that do not decode.
var ErrSummary = errors.New("retention: bad summary")

// DecodeSummary reads what Encode wrote: the header now, the tables when a
// cut first needs them. A summary of another version is ErrSummary too:
// the caller decides on the text instead.
func DecodeSummary(data []byte) (*Summary, error) {
	r := &sumReader{b: data}
	if v := r.uint(); v != SummaryVersion {
		return nil, fmt.Errorf("%w: version %d, want %d", ErrSummary, v, SummaryVersion)
	}
	s := &Summary{Route: r.str(), Estimator: r.str(), Total: int(r.int()), TextBytes: r.int()}
	s.blocks = make([]sumBlock, r.count(len(data)))
	for i := range s.blocks {
		b := &s.blocks[i]
		b.kind = uint8(r.uint())
		switch b.kind {
		case sumText:
			b.bytes, b.runes, b.units = r.int(), r.int(), r.int()
			b.hasTokens = r.bool()
			b.tokenTotal = int(r.int())
		case sumImage:
			b.priced, b.readable = r.bool(), r.bool()
			b.visual, b.handleTokens = int(r.int()), int(r.int())
			b.handleBytes, b.handleUnits = int(r.int()), int(r.int())
			b.mediaType = r.str()
			b.imageWidth, b.imageHeight = int(r.int()), int(r.int())
		case sumOther:
			b.meterStructuralOK = r.bool()
			b.meterStructural = int(r.int())
			b.tokenStructuralOK = r.bool()
			b.tokenStructural = int(r.int())
		default:
			r.err = fmt.Errorf("block %d: kind %d", i, b.kind)
		}
		if r.err != nil {
			break
		}
	}
	if r.err != nil {
		return nil, fmt.Errorf("%w: %w", ErrSummary, r.err)
	}
	s.tables = r.b
	return s, nil
}

// DecodeSummaryWith is DecodeSummary decoding the tables, when a cut needs
// them, into buf (see SummaryBuffers).
func DecodeSummaryWith(data []byte, buf *SummaryBuffers) (*Summary, error) {
	s, err := DecodeSummary(data)
	if err == nil {
		s.buf = buf
	}
	return s, err
}

// load decodes the tables once; an error makes every later use fail.
func (s *Summary) load() error {
	if s.loaded {
		return s.loadErr
	}
	s.loaded = true
	_, dec := zcodec()
	var into []byte
	var i32 *arena[int32]
	var i64 *arena[int64]
	var u8 *arena[uint8]
	if b := s.buf; b != nil {
		into = b.raw[:0]
		i32, i64, u8 = &b.i32, &b.i64, &b.u8
		i32.reset()
		i64.reset()
		u8.reset()
	}
	raw, err := dec.DecodeAll(s.tables, into)
	if s.buf != nil {
		s.buf.raw = raw
	}
	if err != nil {
		s.loadErr = fmt.Errorf("%w: %w", ErrSummary, err)
		return s.loadErr
	}
	r := &sumReader{b: raw, i32: i32}
	for i := range s.blocks {
		b := &s.blocks[i]
		if b.kind != sumText {
			continue
		}
		runs := r.count(len(raw))
		b.widths.counts = i64.take(runs)
		b.widths.widths = u8.take(runs)
		for j := range runs {
			b.widths.counts[j] = int64(r.uint())
			w := r.uint()
			if w < 1 || w > 4 {
				r.err = fmt.Errorf("width %d", w)
			}
			b.widths.widths[j] = uint8(w)
		}
		b.widths.indexInto(i64)
		if b.widths.cb[runs] != b.bytes || b.widths.cr[runs] != b.runes || b.widths.cu[runs] != b.units {
			r.err = fmt.Errorf("block %d: widths do not add up to its lengths", i)
		}
		b.newlines = i64.take(r.count(len(raw)))
		prev := int64(0)
		for j := range b.newlines {
			prev += int64(r.uint())
			b.newlines[j] = prev
		}
		if b.hasTokens && r.err == nil {
			t := &tokenTable{total: b.tokenTotal, endNL: int(r.int()), kh: r.int()}
			t.p = r.smalls(r.count(len(raw)), nil)
			t.hc = r.smalls(len(t.p), t.p)
			t.jt = r.int()
			t.s = r.smalls(r.count(len(raw)), nil)
			t.tg = r.smalls(len(t.s), t.s)
			r.tge(t, len(raw))
			if r.err == nil && (int64(len(t.p)) != t.kh+1 || int64(len(t.s)) != b.runes-t.jt+1) {
				r.err = fmt.Errorf("block %d: token tables do not cover their regions", i)
			}
			b.tokens = t
			b.joined = nil
			if r.bool() {
				j := &tokenTable{total: int(r.int()), endNL: int(r.int()), jt: r.int()}
				j.s = r.smalls(r.count(len(raw)), nil)
				j.tg = r.smalls(len(j.s), j.s)
				r.tge(j, len(raw))
				if r.err == nil && (i != len(s.blocks)-2 || j.jt != t.jt || int64(len(j.s)) != b.runes-j.jt+1) {
					r.err = fmt.Errorf("block %d: joined tail table does not cover its region", i)
				}
				b.joined = j
			}
		}
		if r.err != nil {
			break
		}
	}
	if r.err == nil && len(r.b) != 0 {
		r.err = fmt.Errorf("%d bytes left over", len(r.b))
	}
	if r.err != nil {
		s.loadErr = fmt.Errorf("%w: %w", ErrSummary, r.err)
	}
	return s.loadErr
}

// equalSummaries is for tests: whether two summaries hold the same figures.
func equalSummaries(x, y *Summary) bool {
	if x.load() != nil || y.load() != nil {
		return false
	}
	return bytes.Equal(x.Encode(), y.Encode())
}
