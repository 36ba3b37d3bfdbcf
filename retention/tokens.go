package retention

import (
	"fmt"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/pkoukk/tiktoken-go"
	tiktoken_loader "github.com/pkoukk/tiktoken-go-loader"
)

// Encodings the text estimator accepts.
const (
	EncodingO200k  = "o200k_base"
	EncodingCL100k = "cl100k_base"
)

// DefaultEncoding is the estimator used unless a route says otherwise.
const DefaultEncoding = EncodingO200k

// Pre-tokenisation patterns of the two encodings, exactly as tiktoken (and
// tiktoken-go v0.1.8) split text before byte-pair encoding. The retention
// core runs the same split itself because it needs the piece boundaries,
// which tiktoken-go does not expose: token counts are additive over pieces,
// so a table of piece boundaries lets a prefix or suffix be counted without
// re-encoding everything before it.
var patterns = map[string]string{
	EncodingO200k: strings.Join([]string{
		`[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?`,
		`[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?`,
		`\p{N}{1,3}`,
		` ?[^\s\p{L}\p{N}]+[\r\n/]*`,
		`\s*[\r\n]+`,
		`\s+(?!\S)`,
		`\s+`,
	}, "|"),
	EncodingCL100k: `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`,
}

var (
	loaderOnce sync.Once
	encMu      sync.Mutex
	encCache   = map[string]*tiktoken.Tiktoken{}
	modelCache = map[string]*model{}
)

// ErrEncoding reports an encoding name other than o200k_base or cl100k_base.
var ErrEncoding = fmt.Errorf("retention: unknown encoding (want %s or %s)", EncodingO200k, EncodingCL100k)

func checkEncoding(encoding string) (string, error) {
	if encoding == "" {
		encoding = DefaultEncoding
	}
	if encoding != EncodingO200k && encoding != EncodingCL100k {
		return "", fmt.Errorf("%w: %q", ErrEncoding, encoding)
	}
	return encoding, nil
}

// Encoder returns the shared tokenizer for an encoding, loading its
// vocabulary from the offline copy compiled into the binary on first use. It
// never reaches the network. The returned tokenizer is safe for concurrent use.
func Encoder(encoding string) (*tiktoken.Tiktoken, error) {
	encoding, err := checkEncoding(encoding)
	if err != nil {
		return nil, err
	}
	loaderOnce.Do(func() { tiktoken.SetBpeLoader(tiktoken_loader.NewOfflineLoader()) })
	encMu.Lock()
	defer encMu.Unlock()
	return encoderLocked(encoding)
}

func encoderLocked(encoding string) (*tiktoken.Tiktoken, error) {
	if enc, ok := encCache[encoding]; ok {
		return enc, nil
	}
	enc, err := tiktoken.GetEncoding(encoding)
	if err != nil {
		return nil, fmt.Errorf("retention: load %s: %w", encoding, err)
	}
	encCache[encoding] = enc
	return enc, nil
}

// CountTokens is the text estimate of s under an encoding. Invalid UTF-8 is
// counted as one U+FFFD per invalid byte, as the tokenizer sees it.
func CountTokens(encoding, s string) (int, error) {
	m, err := getModel(encoding)
	if err != nil {
		return 0, err
	}
	return m.count(sanitize(s)), nil
}

// model is one encoding's estimator as the retention core uses it: the
// tokenizer, its pre-tokenisation split, the longest token in bytes (for
// lower bounds that avoid tokenizing huge texts) and a cache of piece counts.
type model struct {
	name   string
	enc    *tiktoken.Tiktoken
	maxTok int

	mu    sync.Mutex
	cache map[string]int

	// ranks is the vocabulary as byte string -> rank, built on the first
	// long piece (see bpeCount).
	ranksOnce sync.Once
	ranks     map[string]int
}

// longPiece is the piece length from which the core runs its own byte-pair
// merge instead of tiktoken-go's, whose merge loop is quadratic in the piece
// length: a 100 KB run of spaces or of one letter would take minutes there.
const longPiece = 512

// specialTokens are the special tokens' texts; EncodeOrdinary never emits
// them, so they are not merge ranks.
var specialTokens = map[string]bool{
	"<|endoftext|>": true, "<|endofprompt|>": true,
	"<|fim_prefix|>": true, "<|fim_middle|>": true, "<|fim_suffix|>": true,
}

// Piece counts are cached only for short pieces (words, numbers, runs of
// punctuation), which repeat; the cache is dropped when it grows too large.
const (
	cachePieceMax = 48
	cacheEntries  = 1 << 16
)

func getModel(encoding string) (*model, error) {
	encoding, err := checkEncoding(encoding)
	if err != nil {
		return nil, err
	}
	loaderOnce.Do(func() { tiktoken.SetBpeLoader(tiktoken_loader.NewOfflineLoader()) })
	encMu.Lock()
	defer encMu.Unlock()
	if m, ok := modelCache[encoding]; ok {
		return m, nil
	}
	enc, err := encoderLocked(encoding)
	if err != nil {
		return nil, err
	}
	m, err := newModel(encoding, enc)
	if err != nil {
		return nil, err
	}
	modelCache[encoding] = m
	return m, nil
}

func newModel(name string, enc *tiktoken.Tiktoken) (*model, error) {
	bmpOnce.Do(buildClasses)
	// The longest token bounds how few tokens a text of n bytes can take.
	// Ids past the vocabulary decode to "", so scanning a generous range is
	// harmless.
	maxTok := 1
	for id := 0; id < 201000; id++ {
		if n := len(enc.Decode([]int{id})); n > maxTok {
			maxTok = n
		}
	}
	return &model{name: name, enc: enc, maxTok: maxTok, cache: make(map[string]int)}, nil
}

// pieceTokens is the token count of one pre-tokenisation piece. Encoding a
// piece on its own gives the same tokens as encoding it inside its text: the
// split of a piece is the piece itself.
func (m *model) pieceTokens(p string) int {
	if len(p) >= longPiece {
		return m.bpeCount(p)
	}
	if len(p) > cachePieceMax {
		return len(m.enc.EncodeOrdinary(p))
	}
	m.mu.Lock()
	n, ok := m.cache[p]
	m.mu.Unlock()
	if ok {
		return n
	}
	n = len(m.enc.EncodeOrdinary(p))
	m.mu.Lock()
	if len(m.cache) >= cacheEntries {
		clear(m.cache)
	}
	m.cache[p] = n
	m.mu.Unlock()
	return n
}

// split calls fn for each piece of runes[:end] that starts at or after
// start, in order, with rune indices; fn returns false to stop. The pieces are
// those of the encoding's pattern (see patterns), found by a hand-written
// matcher: the pattern run by a backtracking regexp engine was most of the
// cost of counting. Every rune is covered by some alternative of both
// patterns, so pieces are contiguous.
func (m *model) split(runes []rune, start, end int, fn func(ps, pe int) bool) {
	r := runes[:end]
	next := nextO200k
	if m.name == EncodingCL100k {
		next = nextCL100k
	}
	for pos := start; pos < end; {
		e := next(r, pos)
		if e <= pos { // not expected; never loop or skip text
			e = pos + 1
		}
		if !fn(pos, e) {
			return
		}
		pos = e
	}
}

// Rune classes of the split patterns, as the regexp engine tiktoken-go uses
// (github.com/dlclark/regexp2) defines them: \p{..} is Go's unicode table of
// that category and \s is unicode.IsSpace.
const (
	cLu uint16 = 1 << iota
	cLl
	cLt
	cLm
	cLo
	cM
	cN
	cSpace
	cNL // \r or \n

	cL     = cLu | cLl | cLt | cLm | cLo
	cUpper = cLu | cLt | cLm | cLo | cM // [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]
	cLower = cLl | cLm | cLo | cM       // [\p{Ll}\p{Lm}\p{Lo}\p{M}]
)

var (
	bmpOnce    sync.Once
	bmpClasses []uint16 // class of every rune below 0x10000
)

func classOf(r rune) uint16 {
	var c uint16
	if unicode.Is(unicode.Lu, r) {
		c |= cLu
	}
	if unicode.Is(unicode.Ll, r) {
		c |= cLl
	}
	if unicode.Is(unicode.Lt, r) {
		c |= cLt
	}
	if unicode.Is(unicode.Lm, r) {
		c |= cLm
	}
	if unicode.Is(unicode.Lo, r) {
		c |= cLo
	}
	if unicode.Is(unicode.L, r) && c&cL == 0 {
		c |= cLo // not expected: L is the union of its parts
	}
	if unicode.Is(unicode.M, r) {
		c |= cM
	}
	if unicode.Is(unicode.N, r) {
		c |= cN
	}
	if unicode.IsSpace(r) {
		c |= cSpace
	}
	if r == '\r' || r == '\n' {
		c |= cNL
	}
	return c
}

func buildClasses() {
	bmpClasses = make([]uint16, 0x10000)
	for r := range bmpClasses {
		bmpClasses[r] = classOf(rune(r))
	}
}

func class(r rune) uint16 {
	if r >= 0 && r < 0x10000 {
		return bmpClasses[r]
	}
	return classOf(r)
}

// run is the end of the run of runes in class c that starts at i.
func run(r []rune, i int, c uint16) int {
	for i < len(r) && class(r[i])&c != 0 {
		i++
	}
	return i
}

// prefixOK is [^\r\n\p{L}\p{N}].
func prefixOK(c uint16) bool { return c&(cNL|cL|cN) == 0 }

// punctOK is [^\s\p{L}\p{N}].
func punctOK(c uint16) bool { return c&(cSpace|cL|cN) == 0 }

// contraction is the end of (?i:'s|'t|'re|'ve|'m|'ll|'d)? at i; the engine
// compares unicode.ToLower of the text with the pattern.
func contraction(r []rune, i int) int {
	if i+1 >= len(r) || r[i] != '\'' {
		return i
	}
	switch unicode.ToLower(r[i+1]) {
	case 's', 't', 'm', 'd':
		return i + 2
	case 'r', 'v':
		if i+2 < len(r) && unicode.ToLower(r[i+2]) == 'e' {
			return i + 3
		}
	case 'l':
		if i+2 < len(r) && unicode.ToLower(r[i+2]) == 'l' {
			return i + 3
		}
	}
	return i
}

// spaces matches \s*[\r\n]+|\s+(?!\S)|\s+ at i, the tail both patterns
// share; it returns i when r[i] is not white space.
func spaces(r []rune, i int) int {
	k := run(r, i, cSpace)
	if k == i {
		return i
	}
	// \s*[\r\n]+: the greedy \s* backs off to the last line break of
	// the run, which [\r\n]+ then takes alone.
	for j := k - 1; j >= i; j-- {
		if r[j] == '\r' || r[j] == '\n' {
			return j + 1
		}
	}
	// \s+(?!\S): the whole run at the end of the text, else all but its
	// last rune when that leaves at least one.
	if k == len(r) {
		return k
	}
	if k-i >= 2 {
		return k - 1
	}
	return k
}

// punct matches ` ?[^\s\p{L}\p{N}]+` followed by the run of tail runes
// (\r, \n and, for o200k, '/') at i; it returns i on no match.
func punct(r []rune, i int, slash bool) int {
	p := i
	if r[i] == ' ' && i+1 < len(r) && punctOK(class(r[i+1])) {
		p = i + 1
	} else if !punctOK(class(r[i])) {
		return i
	}
	e := p + 1
	for e < len(r) && punctOK(class(r[e])) {
		e++
	}
	for e < len(r) && (r[e] == '\r' || r[e] == '\n' || (slash && r[e] == '/')) {
		e++
	}
	return e
}

// numbers matches \p{N}{1,3} at i.
func numbers(r []rune, i int) int {
	e := i
	for e < len(r) && e-i < 3 && class(r[e])&cN != 0 {
		e++
	}
	return e
}

// lowerWord matches [upper]*[lower]+contraction? at p (o200k's first
// alternative without its prefix); ok is false on no match. The greedy
// [upper]* backs off until [lower]+ can start.
func lowerWord(r []rune, p int) (int, bool) {
	k := run(r, p, cUpper)
	u := k
	if k >= len(r) || class(r[k])&cLower == 0 {
		u = -1
		for j := k - 1; j >= p; j-- {
			if class(r[j])&cLower != 0 {
				u = j
				break
			}
		}
		if u < 0 {
			return p, false
		}
	}
	return contraction(r, run(r, u, cLower)), true
}

// upperWord matches [upper]+[lower]*contraction? at p (o200k's second
// alternative without its prefix).
func upperWord(r []rune, p int) (int, bool) {
	if p >= len(r) || class(r[p])&cUpper == 0 {
		return p, false
	}
	return contraction(r, run(r, run(r, p, cUpper), cLower)), true
}

// nextO200k is the end of the o200k_base piece that starts at i < len(r).
func nextO200k(r []rune, i int) int {
	pre := prefixOK(class(r[i])) && i+1 < len(r)
	if pre {
		if e, ok := lowerWord(r, i+1); ok {
			return e
		}
	}
	if e, ok := lowerWord(r, i); ok {
		return e
	}
	if pre {
		if e, ok := upperWord(r, i+1); ok {
			return e
		}
	}
	if e, ok := upperWord(r, i); ok {
		return e
	}
	if e := numbers(r, i); e > i {
		return e
	}
	if e := punct(r, i, true); e > i {
		return e
	}
	return spaces(r, i)
}

// nextCL100k is the end of the cl100k_base piece that starts at i < len(r).
func nextCL100k(r []rune, i int) int {
	if e := contraction(r, i); e > i {
		return e
	}
	if prefixOK(class(r[i])) && i+1 < len(r) && class(r[i+1])&cL != 0 {
		return run(r, i+1, cL)
	}
	if class(r[i])&cL != 0 {
		return run(r, i, cL)
	}
	if e := numbers(r, i); e > i {
		return e
	}
	if e := punct(r, i, false); e > i {
		return e
	}
	return spaces(r, i)
}

// count is the token count of s (invalid UTF-8 read as U+FFFD per byte).
func (m *model) count(s string) int {
	if s == "" {
		return 0
	}
	s = sanitize(s)
	runes := []rune(s)
	off := runeOffsets(s, runes, 0)
	total := 0
	m.split(runes, 0, len(runes), func(ps, pe int) bool {
		total += m.pieceTokens(s[off[ps]:off[pe]])
		return true
	})
	return total
}

// runeOffsets returns the byte offset (plus base) of every rune of s and of
// its end.
func runeOffsets(s string, runes []rune, base int) []int {
	off := make([]int, len(runes)+1)
	b := base
	for i, r := range runes {
		off[i] = b
		b += utf8.RuneLen(r)
	}
	off[len(runes)] = b
	_ = s
	return off
}

// sanitize returns s with each byte of invalid UTF-8 replaced by U+FFFD, the
// way the tokenizer reads it. Valid text is returned as is, without a copy.
func sanitize(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b.WriteString("\uFFFD")
		} else {
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// invalidBytes counts the bytes of s that are not part of valid UTF-8.
func invalidBytes(s string) int {
	n := 0
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			n++
		}
		i += size
	}
	return n
}

func (m *model) buildRanks() {
	// A token's id is its merge rank in tiktoken vocabularies.
	m.ranks = make(map[string]int, 200000)
	for id := 0; id < 201000; id++ {
		if t := m.enc.Decode([]int{id}); t != "" && !specialTokens[t] {
			m.ranks[t] = id
		}
	}
}

// bpeCount is the number of tokens byte-pair encoding gives piece: the
// tiktoken merge (repeatedly join the adjacent pair whose concatenation has
// the lowest rank, leftmost first) run with a heap over a linked list, so it
// costs O(n log n) instead of O(n^2).
func (m *model) bpeCount(piece string) int {
	m.ranksOnce.Do(m.buildRanks)
	if _, ok := m.ranks[piece]; ok {
		return 1
	}
	n := len(piece)
	if n <= 1 {
		return n
	}
	// Part i spans piece[start[i]:start[next[i]]]; end of list is n.
	next := make([]int, n)
	prev := make([]int, n)
	ver := make([]int, n) // bumped whenever part i changes
	for i := range next {
		next[i], prev[i] = i+1, i-1
	}
	rankOf := func(i int) (int, bool) {
		j := next[i]
		if j >= n {
			return 0, false
		}
		end := n
		if next[j] < n {
			end = next[j]
		}
		r, ok := m.ranks[piece[i:end]]
		return r, ok
	}
	h := &mergeHeap{}
	for i := 0; i < n-1; i++ {
		if r, ok := rankOf(i); ok {
			h.push(mergeItem{rank: r, pos: i, ver: 0})
		}
	}
	parts := n
	alive := make([]bool, n)
	for i := range alive {
		alive[i] = true
	}
	for h.len() > 0 {
		it := h.pop()
		i := it.pos
		if !alive[i] || ver[i] != it.ver {
			continue
		}
		j := next[i]
		// Merge part j into part i.
		next[i] = next[j]
		if next[j] < n {
			prev[next[j]] = i
		}
		alive[j] = false
		parts--
		ver[i]++
		if r, ok := rankOf(i); ok {
			h.push(mergeItem{rank: r, pos: i, ver: ver[i]})
		}
		if p := prev[i]; p >= 0 {
			ver[p]++
			if r, ok := rankOf(p); ok {
				h.push(mergeItem{rank: r, pos: p, ver: ver[p]})
			}
		}
	}
	return parts
}

type mergeItem struct{ rank, pos, ver int }

// mergeHeap is a binary min-heap ordered by rank, then position, which is
// tiktoken's choice among equal ranks (the leftmost pair).
type mergeHeap struct{ items []mergeItem }

func (h *mergeHeap) len() int { return len(h.items) }

func (h *mergeHeap) less(a, b int) bool {
	x, y := h.items[a], h.items[b]
	return x.rank < y.rank || (x.rank == y.rank && x.pos < y.pos)
}

func (h *mergeHeap) push(it mergeItem) {
	h.items = append(h.items, it)
	for i := len(h.items) - 1; i > 0; {
		p := (i - 1) / 2
		if !h.less(i, p) {
			break
		}
		h.items[i], h.items[p] = h.items[p], h.items[i]
		i = p
	}
}

func (h *mergeHeap) pop() mergeItem {
	top := h.items[0]
	last := len(h.items) - 1
	h.items[0] = h.items[last]
	h.items = h.items[:last]
	for i := 0; ; {
		l, r, s := 2*i+1, 2*i+2, i
		if l < last && h.less(l, s) {
			s = l
		}
		if r < last && h.less(r, s) {
			s = r
		}
		if s == i {
			break
		}
		h.items[i], h.items[s] = h.items[s], h.items[i]
		i = s
	}
	return top
}
