package retention

import (
	"slices"
	"sort"
	"unicode/utf8"
)

// Counting prefixes and suffixes of one text block without tokenizing it all.
//
// tiktoken splits text into pieces with a regular expression and encodes each
// piece on its own, so a text's token count is the sum over its pieces. A
// piece boundary found in a window of the text is a boundary of the whole text
// (and of every longer prefix) once a few runes follow it: the split looks at
// most one rune past a piece (the whitespace rule "\s+(?!\S)") and otherwise
// only inside the piece. A prefix text[:k] therefore counts exactly as
// cum(s) + count(split of text[s:k]) for the last such boundary s at least
// stableMargin runes before k: a table lookup plus the encoding of a piece or
// two.
//
// Suffixes are simpler: the split has no look-behind, so the split of
// text[j:] is the split of a window starting at w0 <= j as soon as the two
// meet at a common boundary, usually after one piece. A table of suffix sums
// over the window's boundaries then counts any suffix exactly.
//
// Windows grow on a fixed schedule (windowBytes), so which parts get
// tokenized, and therefore every figure, depends only on the text and the
// budget: a sweep that grew the tables for a larger budget reproduces a
// single run at a smaller one.

// stableMargin is how many runes must follow a piece boundary before it is
// final; 2 is the proven need (one rune of look-ahead plus the rune it
// inspects), the rest is slack.
const stableMargin = 4

// marginBytes bounds stableMargin runes in bytes.
const marginBytes = stableMargin * utf8.UTFMax

// windowBytes is the size of window level l, in bytes: 4 KiB doubling, plus
// room for the margin so a probe at a power of two fits its level.
func windowBytes(l int) int {
	if l > 40 {
		l = 40
	}
	return 4096<<l + 2*marginBytes
}

// gallopStart is the first probe distance of the exponential searches.
const gallopStart = 64

type textIndex struct {
	m    *model
	text string // valid UTF-8
	// pieces remembers counts of short pieces for the summary tables
	// (pieceCount).
	pieces map[string]int32

	// Prefix table over text[:len(hoff)-1 runes].
	hrunes  []rune
	hoff    []int // byte offset of each rune and of the window end
	hfull   bool  // the window is the whole text
	hbounds []int // stable piece boundaries (rune indices), hbounds[0] == 0
	hcum    []int // tokens before hbounds[i]

	// Suffix table over text[tbase:].
	tbase   int
	trunes  []rune
	toff    []int
	tbound  []int32 // for each rune index: index into tsuf, or -1
	tsuf    []int   // tokens from a boundary to the end
	tbuilt  bool
	tstarts []int // boundary rune indices, ascending (parallel to tsuf)

	// The whole text's count and the bounds of window levels past
	// maxTableBytes, counted streaming (no tables) when first asked for.
	totalN  int
	counted bool
	sbounds map[int]int
}

// maxTableBytes is the largest window the prefix table is grown to for a
// bound: the tables take some 16 bytes per byte of text, so the bound of a
// wider window, and the whole text's count, are counted streaming
// instead, and tables are only ever as wide as a cut of the budget needs.
// A 50 MB text then costs its count's time, never gigabytes of tables.
const maxTableBytes = 1 << 20

func newTextIndex(m *model, text string) *textIndex {
	return &textIndex{m: m, text: text, hoff: []int{0}, hbounds: []int{0}, hcum: []int{0}}
}

// byteLowerBound is the fewest tokens text can take, from its length alone.
func (x *textIndex) byteLowerBound() int {
	return ceilDiv(len(x.text), x.m.maxTok)
}

func ceilDiv(a, b int) int { return (a + b - 1) / b }

// growHead extends the prefix window to at least need bytes (on the level
// schedule), or to the whole text.
func (x *textIndex) growHead(need int) {
	if x.hfull || need <= x.hoff[len(x.hoff)-1] {
		return
	}
	l := 0
	for windowBytes(l) < need {
		l++
	}
	x.growHeadTo(windowBytes(l))
}

func (x *textIndex) growHeadTo(wb int) {
	n := len(x.text)
	if wb >= n {
		wb = n
	}
	for wb < n && !utf8.RuneStart(x.text[wb]) {
		wb--
	}
	cur := x.hoff[len(x.hoff)-1]
	if wb <= cur && !(wb == n && !x.hfull) {
		return
	}
	// Sized once per growth, so the tables are not copied again each time
	// appends outgrow them (a piece is some 4 runes).
	add := utf8.RuneCountInString(x.text[cur:wb])
	x.hrunes = slices.Grow(x.hrunes, add)
	x.hoff = slices.Grow(x.hoff, add)
	x.hbounds = slices.Grow(x.hbounds, add/4)
	x.hcum = slices.Grow(x.hcum, add/4)
	for _, r := range x.text[cur:wb] {
		x.hrunes = append(x.hrunes, r)
		cur += utf8.RuneLen(r)
		x.hoff = append(x.hoff, cur)
	}
	x.hfull = wb == n
	end := len(x.hrunes)
	last := x.hbounds[len(x.hbounds)-1]
	tokens := x.hcum[len(x.hcum)-1]
	x.m.split(x.hrunes, last, end, func(ps, pe int) bool {
		if !x.hfull && pe+stableMargin > end {
			return false
		}
		tokens += x.m.pieceTokens(x.text[x.hoff[ps]:x.hoff[pe]])
		x.hbounds = append(x.hbounds, pe)
		x.hcum = append(x.hcum, tokens)
		return true
	})
}

// total is the exact token count of the whole text: from the prefix table
// when it covers the text, else counted once without one.
func (x *textIndex) total() int {
	if x.hfull {
		return x.hcum[len(x.hcum)-1]
	}
	if !x.counted {
		x.totalN, x.counted = x.m.count(x.text), true
	}
	return x.totalN
}

// streamBound is levelBound's figure for a window of wb bytes (a rune
// start inside the text) without the prefix table: the text's first wb
// bytes are split in place, and the tokens before the last piece boundary
// with stableMargin runes after it in the window (a boundary of the whole
// text, as the table's search finds it) are added to the byte bound of
// the rest. The same boundary as the table's, so the same figure.
func (x *textIndex) streamBound(wb int) int {
	if b, ok := x.sbounds[wb]; ok {
		return b
	}
	cutoff := wb
	for range stableMargin {
		_, n := utf8.DecodeLastRuneInString(x.text[:cutoff])
		cutoff -= n
	}
	last, tokens, acc := 0, 0, 0
	window := x.text[:wb]
	x.m.splitString(window, func(ps, pe int) bool {
		if pe > cutoff {
			return false
		}
		acc += x.m.pieceTokens(window[ps:pe])
		last, tokens = pe, acc
		return true
	})
	b := tokens + ceilDiv(len(x.text)-last, x.m.maxTok)
	if x.sbounds == nil {
		x.sbounds = map[int]int{}
	}
	x.sbounds[wb] = b
	return b
}

// levelBound is the lower bound on the whole text's tokens after tokenizing
// window level l: exact tokens up to the last boundary that is final in that
// window plus the byte bound of the rest. ok is true when the level covers
// the whole text (the bound is the exact total).
func (x *textIndex) levelBound(l int) (bound int, exact bool) {
	wb := windowBytes(l)
	if wb >= len(x.text) {
		return x.total(), true
	}
	for wb > 0 && !utf8.RuneStart(x.text[wb]) {
		wb--
	}
	if wb > maxTableBytes && x.hoff[len(x.hoff)-1] < wb {
		return x.streamBound(wb), false
	}
	x.growHeadTo(windowBytes(l))
	// Runes in the level-l window, and the last boundary final within it.
	rl := sort.SearchInts(x.hoff, wb)
	i := sort.SearchInts(x.hbounds, rl-stableMargin+1) - 1
	if i < 0 {
		i = 0
	}
	s := x.hbounds[i]
	return x.hcum[i] + ceilDiv(len(x.text)-x.hoff[s], x.m.maxTok), false
}

// fits reports whether the whole text costs at most rem tokens, tokenizing
// only as much as the answer needs.
func (x *textIndex) fits(rem int) bool {
	if x.byteLowerBound() > rem {
		return false
	}
	for l := 0; ; l++ {
		b, exact := x.levelBound(l)
		if exact {
			return b <= rem
		}
		if b > rem {
			return false
		}
	}
}

// prefixCount is the exact token count of the text's first k runes; the
// prefix window must extend stableMargin runes past k or be the whole text.
func (x *textIndex) prefixCount(k int) int {
	if x.hfull && k == len(x.hrunes) {
		return x.hcum[len(x.hcum)-1]
	}
	i := sort.SearchInts(x.hbounds, k-stableMargin+1) - 1
	if i < 0 {
		i = 0
	}
	s := x.hbounds[i]
	tokens := x.hcum[i]
	x.m.split(x.hrunes, s, k, func(ps, pe int) bool {
		tokens += x.m.pieceTokens(x.text[x.hoff[ps]:x.hoff[pe]])
		return true
	})
	return tokens
}

// headRune returns the rune index of byte position pos (a rune start) in the
// prefix window, growing the window so the prefix can be counted.
func (x *textIndex) headRune(pos int) int {
	x.growHead(pos + marginBytes)
	return sort.SearchInts(x.hoff, pos)
}

// headCut finds a longest prefix costing at most rem tokens (see cutHead).
func (x *textIndex) headCut(rem int) (int, int) { return cutHead(x, rem) }

// cutTable is what the prefix and suffix searches read: the text's length
// and code-point starts, and exact prefix and suffix counts by rune index.
// A text's own tables (textIndex) and a summary's stored ones (summaryText)
// both implement it, so a sweep read from the index cuts exactly where a
// decision on the text cuts.
type cutTable interface {
	// size is the text's length in bytes.
	size() int
	// runeStart reports whether byte pos (< size) starts a code point.
	runeStart(pos int) bool
	// headRune is the rune index of byte position pos (a rune start) in the
	// prefix table, readying counts of prefixes up to it; headOffset maps a
	// rune index back to bytes; prefixCount is the exact count of the first
	// k runes.
	headRune(pos int) int
	headOffset(k int) int
	prefixCount(k int) int
	// tailRune, tailOffset and suffixCount are the same for suffixes: the
	// rune index of pos in the suffix table (any fixed origin), its byte
	// offset, and the exact count of the suffix starting at rune j.
	tailRune(pos int) int
	tailOffset(j int) int
	suffixCount(j int) int
}

// cutHead finds a longest prefix costing at most rem tokens: it returns the
// prefix's length in bytes and its exact token count. The text as a whole is
// known not to fit. The search gallops over byte distances 64, 128, ...
// (snapped back to code points) and then bisects over code points, with the
// invariant that the lower end fits and the upper end does not.
func cutHead(x cutTable, rem int) (int, int) {
	n := x.size()
	lo, loTok := 0, 0
	hi := -1
	for d := gallopStart; ; d *= 2 {
		pos := d
		if pos >= n {
			pos = n
		}
		for pos < n && !x.runeStart(pos) {
			pos--
		}
		k := x.headRune(pos)
		if k <= lo && pos != n {
			continue
		}
		c := x.prefixCount(k)
		if c > rem {
			hi = k
			break
		}
		lo, loTok = k, c
		if pos == n {
			// Defensive: the caller found the whole text too costly.
			return n, c
		}
	}
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		c := x.prefixCount(mid)
		if c <= rem {
			lo, loTok = mid, c
		} else {
			hi = mid
		}
	}
	return x.headOffset(lo), loTok
}

func (x *textIndex) size() int              { return len(x.text) }
func (x *textIndex) runeStart(pos int) bool { return utf8.RuneStart(x.text[pos]) }
func (x *textIndex) headOffset(k int) int   { return x.hoff[k] }
func (x *textIndex) tailOffset(j int) int   { return x.toff[j] }

// buildTail (re)builds the suffix table over text[base:], base a rune start.
func (x *textIndex) buildTail(base int) {
	if x.tbuilt && base >= x.tbase {
		return
	}
	if base == 0 && !x.hfull && len(x.text) > 0 {
		x.growHeadTo(len(x.text))
	}
	x.tbuilt = true
	x.tbase = base
	if base == 0 {
		// The prefix table already split the whole text.
		x.trunes = x.hrunes
		x.toff = x.hoff
		x.tstarts = x.hbounds
		total := x.hcum[len(x.hcum)-1]
		x.tsuf = make([]int, len(x.hcum))
		for i, c := range x.hcum {
			x.tsuf[i] = total - c
		}
	} else {
		x.trunes = []rune(x.text[base:])
		x.toff = runeOffsets(x.text[base:], x.trunes, base)
		var starts, cum []int
		tokens := 0
		x.m.split(x.trunes, 0, len(x.trunes), func(ps, pe int) bool {
			starts = append(starts, ps)
			cum = append(cum, tokens)
			tokens += x.m.pieceTokens(x.text[x.toff[ps]:x.toff[pe]])
			return true
		})
		starts = append(starts, len(x.trunes))
		cum = append(cum, tokens)
		x.tstarts = starts
		x.tsuf = make([]int, len(cum))
		for i, c := range cum {
			x.tsuf[i] = tokens - c
		}
	}
	x.tbound = make([]int32, len(x.trunes)+1)
	for i := range x.tbound {
		x.tbound[i] = -1
	}
	for i, s := range x.tstarts {
		x.tbound[s] = int32(i)
	}
}

// tailRune returns the rune index of byte position pos (a rune start) in the
// suffix window, growing the window (on the level schedule) to reach it.
func (x *textIndex) tailRune(pos int) int {
	n := len(x.text)
	if !x.tbuilt || pos < x.tbase {
		l := 0
		for windowBytes(l) < n-pos {
			l++
		}
		base := n - windowBytes(l)
		if base <= 0 {
			base = 0
		}
		for base > 0 && !utf8.RuneStart(x.text[base]) {
			base--
		}
		x.buildTail(base)
	}
	return sort.SearchInts(x.toff, pos)
}

// suffixCount is the exact token count of the suffix starting at rune j of
// the suffix window: split from j until the split meets a window boundary.
func (x *textIndex) suffixCount(j int) int {
	if b := x.tbound[j]; b >= 0 {
		return x.tsuf[b]
	}
	tokens := 0
	end := len(x.trunes)
	x.m.split(x.trunes, j, end, func(ps, pe int) bool {
		tokens += x.m.pieceTokens(x.text[x.toff[ps]:x.toff[pe]])
		if b := x.tbound[pe]; b >= 0 {
			tokens += x.tsuf[b]
			return false
		}
		return true
	})
	return tokens
}

// tailCut finds a longest suffix of text[minStart:] costing at most rem
// tokens (see cutTail).
func (x *textIndex) tailCut(rem, minStart int) (int, int) { return cutTail(x, rem, minStart) }

// cutTail finds a longest suffix of text[minStart:] costing at most rem
// tokens; it returns the suffix's start byte and exact token count. A start
// equal to minStart means everything from minStart fits. Galloping from the
// end (64, 128, ... bytes, snapped forward to code points) then bisecting over
// code points, with the upper end fitting and the lower end not. Rune
// indices may count from any origin: the bisection's midpoints are the same
// code points whichever it is.
func cutTail(x cutTable, rem, minStart int) (int, int) {
	n := x.size()
	if minStart >= n {
		return n, 0
	}
	hiPos, hiTok := n, 0
	loPos := -1
	for d := gallopStart; ; d *= 2 {
		pos := n - d
		if pos <= minStart {
			pos = minStart
		}
		for pos < n && !x.runeStart(pos) {
			pos++
		}
		if pos >= hiPos && pos != minStart {
			continue
		}
		j := x.tailRune(pos)
		c := x.suffixCount(j)
		if c > rem {
			loPos = pos
			break
		}
		hiPos, hiTok = pos, c
		if pos == minStart {
			return pos, c
		}
	}
	lo := x.tailRune(loPos)
	hi := x.tailRune(hiPos)
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		c := x.suffixCount(mid)
		if c <= rem {
			hi, hiTok = mid, c
		} else {
			lo = mid
		}
	}
	return x.tailOffset(hi), hiTok
}
