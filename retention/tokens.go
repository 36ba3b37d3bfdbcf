package retention

import (
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"unicode"
	"unicode/utf8"

	"github.com/pkoukk/tiktoken-go"
	tiktoken_loader "github.com/pkoukk/tiktoken-go-loader"

	"spillscope/retention/internal/vocab"
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

// Encoder returns tiktoken-go's tokenizer for an encoding, for callers that
// need token ids, loading its vocabulary from the offline copy compiled into
// the binary on first use (a fifth of a second: it parses the base64
// vocabulary). It never reaches the network. Counting does not use it (see
// CountTokens). The returned tokenizer is safe for concurrent use.
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

// ValidEncoding reports whether an encoding name ("" for the default) is one
// the text estimator accepts, without loading anything.
func ValidEncoding(encoding string) error {
	_, err := checkEncoding(encoding)
	return err
}

// CountTokens is the text estimate of s under an encoding. Invalid UTF-8 is
// counted as one U+FFFD per invalid byte, as the tokenizer sees it. It reads
// the vocabulary tables prepared at build time (retention/internal/vocab) in
// place, so the first call costs nothing extra, and it counts exactly as
// tiktoken-go's EncodeOrdinary would (the package tests compare the two).
func CountTokens(encoding, s string) (int, error) {
	m, err := getModel(encoding)
	if err != nil {
		return 0, err
	}
	return m.count(s), nil
}

// model is one encoding's estimator as the retention core uses it: the
// vocabulary, its pre-tokenisation split and the longest token in bytes (for
// lower bounds that avoid tokenizing huge texts).
type model struct {
	name   string
	vocab  *vocab.Table
	maxTok int
	next   func(t *src, i int) int // the end of the piece starting at i

	// digitGroups are the counts of every run of one to three digits
	// (digitGroup), made on first use: a sweep prices a notice's byte
	// count at every cut.
	digitsOnce  sync.Once
	digitGroups [1110]int32
}

// digitGroup is pieceTokens of g, one to three ASCII digits.
func (m *model) digitGroup(g string) int {
	m.digitsOnce.Do(func() {
		var b [3]byte
		for n, at := 1, 0; n <= 3; n++ {
			lim := 1
			for range n {
				lim *= 10
			}
			for v := range lim {
				for i, x := n-1, v; i >= 0; i, x = i-1, x/10 {
					b[i] = byte('0' + x%10)
				}
				m.digitGroups[at+v] = int32(m.pieceTokens(string(b[:n])))
			}
			at += lim
		}
	})
	at, v := 0, 0
	for i := 0; i < len(g); i++ {
		v = v*10 + int(g[i]-'0')
	}
	switch len(g) {
	case 2:
		at = 10
	case 3:
		at = 110
	}
	return int(m.digitGroups[at+v])
}

func getModel(encoding string) (*model, error) {
	encoding, err := checkEncoding(encoding)
	if err != nil {
		return nil, err
	}
	encMu.Lock()
	defer encMu.Unlock()
	if m, ok := modelCache[encoding]; ok {
		return m, nil
	}
	m, err := newModel(encoding)
	if err != nil {
		return nil, err
	}
	modelCache[encoding] = m
	return m, nil
}

func newModel(name string) (*model, error) {
	tab, err := vocab.Load(name)
	if err != nil {
		return nil, fmt.Errorf("retention: load %s: %w", name, err)
	}
	next := nextO200k
	if name == EncodingCL100k {
		next = nextCL100k
	}
	return &model{name: name, vocab: tab, maxTok: tab.MaxLen(), next: next}, nil
}

// pieceTokens is the token count of one pre-tokenisation piece. Encoding a
// piece on its own gives the same tokens as encoding it inside its text: the
// split of a piece is the piece itself.
func (m *model) pieceTokens(p string) int {
	switch {
	case len(p) <= 1:
		return len(p) // every byte is a token
	case len(p) <= m.maxTok:
		// A piece that is a token is one (tiktoken checks this first too).
		if _, ok := m.vocab.Rank(p); ok {
			return 1
		}
		if len(p) <= shortPiece {
			return m.shortCount(p)
		}
	}
	if len(p) <= longWindow {
		return m.mergeCount(p)
	}
	return m.longCount(p)
}

// split calls fn for each piece of runes[:end] that starts at or after
// start, in order, with rune indices; fn returns false to stop. The pieces are
// those of the encoding's pattern (see patterns), found by a hand-written
// matcher: the pattern run by a backtracking regexp engine was most of the
// cost of counting. Every rune is covered by some alternative of both
// patterns, so pieces are contiguous.
func (m *model) split(runes []rune, start, end int, fn func(ps, pe int) bool) {
	t := src{r: runes[:end], n: end}
	m.splitSrc(&t, start, fn)
}

// splitString is split over a string, with byte offsets: the same matcher
// reading the text in place, so counting never holds the text as runes.
func (m *model) splitString(s string, fn func(ps, pe int) bool) {
	t := src{s: s, n: len(s), bytes: true}
	m.splitSrc(&t, 0, fn)
}

func (m *model) splitSrc(t *src, start int, fn func(ps, pe int) bool) {
	for pos := start; pos < t.n; {
		e := m.next(t, pos)
		if e <= pos { // not expected; never loop or skip text
			_, e = t.at(pos)
		}
		if !fn(pos, e) {
			return
		}
		pos = e
	}
}

// src is the text the matcher reads: runes indexed by rune, or a string
// indexed by byte (valid UTF-8: count sanitizes first). Positions are
// indices of either kind; the matcher only moves forward from one to the
// next with at.
type src struct {
	r     []rune
	s     string
	n     int // the end
	bytes bool
}

// at is the rune at position i < n and the position after it.
func (t *src) at(i int) (rune, int) {
	if !t.bytes {
		return t.r[i], i + 1
	}
	if c := t.s[i]; c < utf8.RuneSelf {
		return rune(c), i + 1
	}
	r, size := utf8.DecodeRuneInString(t.s[i:t.n])
	return r, i + size
}

// classAt is the class of the rune at position i < n and the position after
// it; ASCII takes the inlined path.
func (t *src) classAt(i int) (uint16, int) {
	if t.bytes {
		if c := t.s[i]; c < utf8.RuneSelf {
			return asciiClasses[c], i + 1
		}
	} else if r := t.r[i]; uint32(r) < utf8.RuneSelf {
		return asciiClasses[r], i + 1
	}
	return t.classAtSlow(i)
}

func (t *src) classAtSlow(i int) (uint16, int) {
	r, j := t.at(i)
	return classSlow(r), j
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

// asciiClasses is classOf of the ASCII runes.
var asciiClasses = func() (c [utf8.RuneSelf]uint16) {
	for r := range c {
		c[r] = classOf(rune(r))
	}
	return c
}()

// classBlocks caches classOf by blocks of 256 code points, each filled on
// first use (a few microseconds): filling all of them up front took
// milliseconds at every start, and most texts touch a handful of blocks.
// Two goroutines may fill a block at once; they store the same values.
var classBlocks [(unicode.MaxRune + 1) >> 8]atomic.Pointer[[256]uint16]

func class(r rune) uint16 {
	if uint32(r) < utf8.RuneSelf {
		return asciiClasses[r]
	}
	return classSlow(r)
}

func classSlow(r rune) uint16 {
	if uint32(r) > unicode.MaxRune {
		return classOf(r)
	}
	b := classBlocks[r>>8].Load()
	if b == nil {
		b = fillClasses(r >> 8)
	}
	return b[r&0xff]
}

func fillClasses(block rune) *[256]uint16 {
	b := new([256]uint16)
	for i := range b {
		b[i] = classOf(block<<8 | rune(i))
	}
	classBlocks[block].Store(b)
	return b
}

// run is the end of the run of runes in class c that starts at i.
func run(t *src, i int, c uint16) int {
	if t.bytes { // ASCII bytes, without decoding
		for i < t.n {
			b := t.s[i]
			if b >= utf8.RuneSelf {
				break
			}
			if asciiClasses[b]&c == 0 {
				return i
			}
			i++
		}
	} else {
		for i < t.n && class(t.r[i])&c != 0 {
			i++
		}
		return i
	}
	for i < t.n {
		k, j := t.classAt(i)
		if k&c == 0 {
			break
		}
		i = j
	}
	return i
}

// prefixOK is [^\r\n\p{L}\p{N}].
func prefixOK(c uint16) bool { return c&(cNL|cL|cN) == 0 }

// punctOK is [^\s\p{L}\p{N}].
func punctOK(c uint16) bool { return c&(cSpace|cL|cN) == 0 }

// contraction is the end of (?i:'s|'t|'re|'ve|'m|'ll|'d)? at i; the engine
// compares unicode.ToLower of the text with the pattern.
func contraction(t *src, i int) int {
	if i >= t.n {
		return i
	}
	r, j := t.at(i)
	if r != '\'' || j >= t.n {
		return i
	}
	r, k := t.at(j)
	var want rune
	switch unicode.ToLower(r) {
	case 's', 't', 'm', 'd':
		return k
	case 'r', 'v':
		want = 'e'
	case 'l':
		want = 'l'
	default:
		return i
	}
	if k < t.n {
		if r, l := t.at(k); unicode.ToLower(r) == want {
			return l
		}
	}
	return i
}

// spaces matches \s*[\r\n]+|\s+(?!\S)|\s+ at i, the tail both patterns
// share; it returns i when the rune at i is not white space.
func spaces(t *src, i int) int {
	k, last, nl := i, i, -1 // run end, start of its last rune, end of its last line break
	for k < t.n {
		r, j := t.at(k)
		if class(r)&cSpace == 0 {
			break
		}
		if r == '\r' || r == '\n' {
			nl = j
		}
		last, k = k, j
	}
	if k == i {
		return i
	}
	// \s*[\r\n]+: the greedy \s* backs off to the last line break of
	// the run, which [\r\n]+ then takes alone.
	if nl >= 0 {
		return nl
	}
	// \s+(?!\S): the whole run at the end of the text, else all but its
	// last rune when that leaves at least one.
	if k == t.n {
		return k
	}
	if last > i {
		return last
	}
	return k
}

// punct matches ` ?[^\s\p{L}\p{N}]+` followed by the run of tail runes
// (\r, \n and, for o200k, '/') at i; it returns i on no match.
func punct(t *src, i int, slash bool) int {
	r, e := t.at(i)
	if !punctOK(class(r)) {
		if r != ' ' || e >= t.n {
			return i
		}
		r2, e2 := t.at(e)
		if !punctOK(class(r2)) {
			return i
		}
		e = e2
	}
	for e < t.n {
		c, j := t.classAt(e)
		if !punctOK(c) {
			break
		}
		e = j
	}
	for e < t.n {
		r, j := t.at(e)
		if r != '\r' && r != '\n' && (!slash || r != '/') {
			break
		}
		e = j
	}
	return e
}

// numbers matches \p{N}{1,3} at i.
func numbers(t *src, i int) int {
	e := i
	for k := 0; k < 3 && e < t.n; k++ {
		c, j := t.classAt(e)
		if c&cN == 0 {
			break
		}
		e = j
	}
	return e
}

// lowerWord matches [upper]*[lower]+contraction? at p (o200k's first
// alternative without its prefix); ok is false on no match. The greedy
// [upper]* backs off until [lower]+ can start: to the rune after the run if
// it is lower, else to the run's last rune that is lower too.
func lowerWord(t *src, p int) (int, bool) {
	k, lastLower := p, -1
	after := uint16(0) // class of the rune that ends the run
	for k < t.n {
		c, j := t.classAt(k)
		if c&cUpper == 0 {
			after = c
			break
		}
		if c&cLower != 0 {
			lastLower = k
		}
		k = j
	}
	u := k
	if k >= t.n || after&cLower == 0 {
		if lastLower < 0 {
			return p, false
		}
		u = lastLower
	}
	return contraction(t, run(t, u, cLower)), true
}

// upperWord matches [upper]+[lower]*contraction? at p (o200k's second
// alternative without its prefix).
func upperWord(t *src, p int) (int, bool) {
	e := run(t, p, cUpper)
	if e == p {
		return p, false
	}
	return contraction(t, run(t, e, cLower)), true
}

// nextO200k is the end of the o200k_base piece that starts at i < t.n.
func nextO200k(t *src, i int) int {
	c, j := t.classAt(i)
	pre := prefixOK(c) && j < t.n
	if pre {
		if e, ok := lowerWord(t, j); ok {
			return e
		}
	}
	if e, ok := lowerWord(t, i); ok {
		return e
	}
	if pre {
		if e, ok := upperWord(t, j); ok {
			return e
		}
	}
	if e, ok := upperWord(t, i); ok {
		return e
	}
	if e := numbers(t, i); e > i {
		return e
	}
	if e := punct(t, i, true); e > i {
		return e
	}
	return spaces(t, i)
}

// nextCL100k is the end of the cl100k_base piece that starts at i < t.n.
func nextCL100k(t *src, i int) int {
	if e := contraction(t, i); e > i {
		return e
	}
	c, j := t.classAt(i)
	if prefixOK(c) && j < t.n {
		if c2, _ := t.classAt(j); c2&cL != 0 {
			return run(t, j, cL)
		}
	}
	if c&cL != 0 {
		return run(t, i, cL)
	}
	if e := numbers(t, i); e > i {
		return e
	}
	if e := punct(t, i, false); e > i {
		return e
	}
	return spaces(t, i)
}

// count is the token count of s (invalid UTF-8 read as U+FFFD per byte). It
// splits the text in place and merges piece by piece, so its memory does not
// grow with the text (longCount bounds even a piece of any length).
func (m *model) count(s string) int {
	s = sanitize(s)
	total := 0
	m.splitString(s, func(ps, pe int) bool {
		total += m.pieceTokens(s[ps:pe])
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
