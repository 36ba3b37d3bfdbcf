// Package vocab holds the byte-pair vocabularies of the text estimator as
// tables prepared at build time: a token's bytes by rank and an open-addressed
// hash table from bytes to rank, both read in place from data compiled into
// the binary. Nothing is parsed or allocated when a table is first used, so a
// process that counts six bytes touches a few pages of it instead of decoding
// the 200,000 base64 lines the vocabularies ship as.
//
// The tables are built from tiktoken-go's own offline vocabularies
// (github.com/pkoukk/tiktoken-go-loader) by `go generate` (see gen/); the
// package tests fail when the committed files differ from what the generator
// would write today.
package vocab

import (
	_ "embed" // the tables
	"errors"
	"fmt"
	"math/bits"
	"sync"
)

//go:generate go run ./gen

// Table layout, all integers little-endian uint32 after an 8-byte magic:
//
//	magic "SSVOCAB1"
//	ranks       number of ranks (the largest rank + 1)
//	tableBits   the hash table has 1<<tableBits slots
//	maxLen      the longest token, in bytes
//	blobLen     bytes of token text
//	tokens      number of tokens (ranks without a token are empty)
//	reserved    0
//	offsets     ranks+1 entries: token r is blob[offsets[r]:offsets[r+1]]
//	slots       1<<tableBits entries: 0 for empty, else rank+1 in the low
//	            rankBits and the top bits of the token's hash above them
//	blob        the tokens' bytes in rank order
const (
	magic      = "SSVOCAB1"
	headerLen  = len(magic) + 6*4
	rankBits   = 18
	rankMask   = 1<<rankBits - 1
	tagShift   = 64 - (32 - rankBits) // the hash bits a slot keeps
	maxRanks   = rankMask - 1
	loadFactor = 2.5 // slots per token, at least
)

// Table is one vocabulary, read in place. Its methods are safe for
// concurrent use.
type Table struct {
	data    string
	ranks   int
	mask    uint64
	maxLen  int
	offsets int // byte offset of the offsets array in data
	slots   int
	blob    int

	// pairs is the rank+1 of every two-byte token by its bytes (0 for none),
	// built from the table on its first two-byte lookup: byte-pair merging
	// looks up each adjacent pair of a piece first, and on text such as
	// base64 those lookups were most of the hash table's cache misses. One
	// array of 256 KB answers them without a hash or a comparison.
	pairsOnce sync.Once
	pairs     *[1 << 16]int32
}

// ErrFormat reports table data that is not what Build writes.
var ErrFormat = errors.New("vocab: malformed table")

func u32(s string, p int) uint32 {
	return uint32(s[p]) | uint32(s[p+1])<<8 | uint32(s[p+2])<<16 | uint32(s[p+3])<<24
}

// Open reads a table built by Build. It checks the header and the sizes, not
// the contents (the package tests compare the contents with the source).
func Open(data string) (*Table, error) {
	if len(data) < headerLen || data[:len(magic)] != magic {
		return nil, fmt.Errorf("%w: bad header", ErrFormat)
	}
	h := func(i int) int { return int(u32(data, len(magic)+4*i)) }
	ranks, tableBits, maxLen, blobLen := h(0), h(1), h(2), h(3)
	if ranks > maxRanks || tableBits > 30 {
		return nil, fmt.Errorf("%w: %d ranks, %d table bits", ErrFormat, ranks, tableBits)
	}
	t := &Table{data: data, ranks: ranks, mask: 1<<tableBits - 1, maxLen: maxLen}
	t.offsets = headerLen
	t.slots = t.offsets + 4*(ranks+1)
	t.blob = t.slots + 4<<tableBits
	if t.blob+blobLen != len(data) || int(u32(data, t.slots-4)) != blobLen {
		return nil, fmt.Errorf("%w: sizes do not add up", ErrFormat)
	}
	return t, nil
}

// Ranks is the number of ranks: every token's rank is below it.
func (t *Table) Ranks() int { return t.ranks }

// MaxLen is the length of the longest token in bytes.
func (t *Table) MaxLen() int { return t.maxLen }

// Token is the text of the token with rank r ("" for a rank without one).
func (t *Table) Token(r int) string {
	p := t.offsets + 4*r
	return t.data[t.blob+int(u32(t.data, p)) : t.blob+int(u32(t.data, p+4))]
}

// Rank is the rank of the token whose bytes are s.
func (t *Table) Rank(s string) (int, bool) {
	if len(s) == 2 {
		t.pairsOnce.Do(t.buildPairs)
		if r := t.pairs[int(s[0])<<8|int(s[1])]; r != 0 {
			return int(r) - 1, true
		}
		return 0, false
	}
	return t.hashRank(s)
}

// buildPairs fills pairs from the tokens of two bytes.
func (t *Table) buildPairs() {
	t.pairs = new([1 << 16]int32)
	for r := range t.ranks {
		// The lowest rank first, as the hash table holds (ranks are unique).
		if tok := t.Token(r); len(tok) == 2 && t.pairs[int(tok[0])<<8|int(tok[1])] == 0 {
			t.pairs[int(tok[0])<<8|int(tok[1])] = int32(r) + 1
		}
	}
}

// hashRank is Rank through the hash table.
func (t *Table) hashRank(s string) (int, bool) {
	h := Hash(s)
	tag := uint32(h >> tagShift)
	for i := h & t.mask; ; i = (i + 1) & t.mask {
		v := u32(t.data, t.slots+4*int(i))
		if v == 0 {
			return 0, false
		}
		if v>>rankBits == tag {
			if r := int(v&rankMask) - 1; t.Token(r) == s {
				return r, true
			}
		}
	}
}

// Hash is the table's hash of s: fixed (the tables are built with it ahead of
// time), cheap for the short strings byte-pair merging looks up, and mixing
// every input bit into the index and tag bits.
func Hash(s string) uint64 {
	const (
		k0 = 0x9e3779b97f4a7c15
		k1 = 0xbf58476d1ce4e5b9
		k2 = 0x94d049bb133111eb
	)
	h := uint64(len(s)) * k0
	for len(s) > 8 {
		v := uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
			uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
		h = bits.RotateLeft64((h^v)*k1, 31)
		s = s[8:]
	}
	var v uint64
	switch n := len(s); {
	case n >= 4: // two overlapping 4-byte loads cover 4 to 8 bytes
		v = uint64(u32(s, 0)) | uint64(u32(s, n-4))<<32
	case n > 0:
		v = uint64(s[0])<<16 | uint64(s[n>>1])<<8 | uint64(s[n-1])
	}
	h = (h ^ v) * k1
	h ^= h >> 31
	h *= k2
	h ^= h >> 29
	return h
}

// Build lays out a vocabulary (token bytes -> rank, as tiktoken-go's loader
// returns it) as a table. The result depends only on the vocabulary.
func Build(vocab map[string]int) ([]byte, error) {
	ranks := 0
	for tok, r := range vocab {
		if r < 0 || tok == "" {
			return nil, fmt.Errorf("vocab: token %q has rank %d", tok, r)
		}
		ranks = max(ranks, r+1)
	}
	if ranks > maxRanks {
		return nil, fmt.Errorf("vocab: %d ranks do not fit %d bits", ranks, rankBits)
	}
	byRank := make([]string, ranks)
	for tok, r := range vocab {
		if byRank[r] != "" {
			return nil, fmt.Errorf("vocab: rank %d held by %q and %q", r, byRank[r], tok)
		}
		byRank[r] = tok
	}
	tableBits := 1
	for float64(uint64(1)<<tableBits) < loadFactor*float64(len(vocab)) {
		tableBits++
	}
	maxLen, blobLen := 0, 0
	for _, tok := range byRank {
		maxLen = max(maxLen, len(tok))
		blobLen += len(tok)
	}
	out := make([]byte, 0, headerLen+4*(ranks+1)+4<<tableBits+blobLen)
	put := func(v int) { out = append(out, byte(v), byte(v>>8), byte(v>>16), byte(v>>24)) }
	out = append(out, magic...)
	for _, v := range []int{ranks, tableBits, maxLen, blobLen, len(vocab), 0} {
		put(v)
	}
	off := 0
	for _, tok := range byRank {
		put(off)
		off += len(tok)
	}
	put(off)
	slots := make([]uint32, 1<<tableBits)
	mask := uint64(len(slots) - 1)
	for r, tok := range byRank { // in rank order, so the layout is fixed
		if tok == "" {
			continue
		}
		h := Hash(tok)
		i := h & mask
		for slots[i] != 0 {
			i = (i + 1) & mask
		}
		slots[i] = uint32(h>>tagShift)<<rankBits | uint32(r+1)
	}
	for _, v := range slots {
		put(int(v))
	}
	for _, tok := range byRank {
		out = append(out, tok...)
	}
	return out, nil
}

// The tables of the two encodings the estimator supports, as generated.
var (
	//go:embed o200k_base.bin
	o200kData string
	//go:embed cl100k_base.bin
	cl100kData string
)

// Files maps each encoding to the file name its table is generated into
// and the tiktoken-go-loader vocabulary it is built from.
var Files = map[string][2]string{
	"o200k_base":  {"o200k_base.bin", "o200k_base.tiktoken"},
	"cl100k_base": {"cl100k_base.bin", "cl100k_base.tiktoken"},
}

var opened = map[string]func() (*Table, error){
	"o200k_base":  sync.OnceValues(func() (*Table, error) { return Open(o200kData) }),
	"cl100k_base": sync.OnceValues(func() (*Table, error) { return Open(cl100kData) }),
}

// ErrEncoding reports an encoding without a table.
var ErrEncoding = errors.New("vocab: no table for this encoding")

// Load returns the table of an encoding (o200k_base or cl100k_base). Opening
// reads the header only; every caller shares one Table.
func Load(encoding string) (*Table, error) {
	open, ok := opened[encoding]
	if !ok {
		return nil, fmt.Errorf("%w: %q", ErrEncoding, encoding)
	}
	return open()
}

// Embedded is the committed table data of an encoding ("" if none).
func Embedded(encoding string) string {
	switch encoding {
	case "o200k_base":
		return o200kData
	case "cl100k_base":
		return cl100kData
	}
	return ""
}
