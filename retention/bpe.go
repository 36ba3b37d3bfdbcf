package retention

import (
	"sync"
)

// Byte-pair merging, as tiktoken does it within one pre-tokenisation piece:
// start from single bytes and repeatedly join the adjacent pair whose
// concatenation is the token of lowest rank, the leftmost on ties, until no
// adjacent pair is a token. A piece's token count is the number of parts
// left. Three implementations of that one rule, by piece length:
//
//   - shortCount: tiktoken's own loop (find the lowest pair by a scan), on
//     arrays on the stack; quadratic, fastest for a word.
//   - mergeBounds: a heap of pairs over a linked list, O(n log n).
//   - longCount: mergeBounds over overlapping windows, chained where the two
//     windows share a token (see longCount for why that is exact), so a piece
//     of any length costs linear time and a window's memory.

// shortPiece is the longest piece shortCount takes.
const shortPiece = 64

// noRank marks a pair that is not a token; ranks are far below it.
const noRank = int32(1<<31 - 1)

// pairRank is the rank of the token p[a:b], or noRank.
func (m *model) pairRank(p string, a, b int32) int32 {
	if r, ok := m.vocab.Rank(p[a:b]); ok {
		return int32(r)
	}
	return noRank
}

// shortCount merges a piece of at most shortPiece bytes.
func (m *model) shortCount(p string) int {
	var start [shortPiece + 1]int32 // part i is p[start[i]:start[i+1]]
	var rank [shortPiece]int32      // rank of part i joined with part i+1
	parts := len(p)
	for i := range parts + 1 {
		start[i] = int32(i)
	}
	for i := 0; i < parts-1; i++ {
		rank[i] = m.pairRank(p, start[i], start[i+2])
	}
	for parts > 1 {
		best, bi := noRank, -1
		for i := 0; i < parts-1; i++ {
			if rank[i] < best {
				best, bi = rank[i], i
			}
		}
		if bi < 0 {
			break
		}
		copy(start[bi+1:parts], start[bi+2:parts+1])
		copy(rank[bi+1:parts-1], rank[bi+2:parts])
		parts--
		if bi+1 < parts {
			rank[bi] = m.pairRank(p, start[bi], start[bi+2])
		}
		if bi > 0 {
			rank[bi-1] = m.pairRank(p, start[bi-1], start[bi+1])
		}
	}
	return parts
}

// mergeBuf holds mergeBounds' working arrays, reused through mergePool.
type mergeBuf struct {
	next, prev, cur []int32
	heap            []uint64
	bounds          []int32
}

var mergePool = sync.Pool{New: func() any { return new(mergeBuf) }}

// dead marks a part merged into its left neighbour.
const dead = int32(-1)

// mergeBounds merges s and returns the start of each final part followed by
// len(s), in buf.bounds (valid until buf is reused). s is at most
// maxMergeLen bytes.
//
// The heap holds (rank, position) of candidate pairs packed so that integer
// order is tiktoken's order: lowest rank, then leftmost. An entry is current
// while the pair at its position still has its rank: a pair at position i
// with rank r always spans the token r from i, so an older entry with the
// same rank stands for the same merge.
func (m *model) mergeBounds(s string, buf *mergeBuf) []int32 {
	n := int32(len(s))
	grow := func(a []int32) []int32 {
		if cap(a) < int(n) {
			return make([]int32, n)
		}
		return a[:n]
	}
	buf.next, buf.prev, buf.cur = grow(buf.next), grow(buf.prev), grow(buf.cur)
	next, prev, cur := buf.next, buf.prev, buf.cur
	h := buf.heap[:0]
	for i := range n {
		next[i], prev[i] = i+1, i-1
		cur[i] = noRank
		if i+2 <= n {
			if r := m.pairRank(s, i, i+2); r != noRank {
				cur[i] = r
				h = append(h, uint64(r)<<32|uint64(i))
			}
		}
	}
	heapify(h)
	// rankAt is the rank of part i joined with the part after it.
	rankAt := func(i int32) int32 {
		j := next[i]
		if j >= n {
			return noRank
		}
		return m.pairRank(s, i, next[j]) // next[j] is n for the last part
	}
	for len(h) > 0 {
		top := h[0]
		h = heapPop(h)
		i, r := int32(uint32(top)), int32(top>>32)
		if cur[i] != r {
			continue
		}
		j := next[i]
		next[i] = next[j]
		if next[j] < n {
			prev[next[j]] = i
		}
		cur[j] = dead
		if cur[i] = rankAt(i); cur[i] != noRank {
			h = heapPush(h, uint64(cur[i])<<32|uint64(i))
		}
		if p := prev[i]; p >= 0 {
			if cur[p] = rankAt(p); cur[p] != noRank {
				h = heapPush(h, uint64(cur[p])<<32|uint64(p))
			}
		}
	}
	buf.heap = h
	b := buf.bounds[:0]
	for i := int32(0); i < n; i = next[i] {
		b = append(b, i)
	}
	buf.bounds = append(b, n)
	return buf.bounds
}

// maxMergeLen bounds the pieces and windows mergeBounds takes (positions and
// ranks share a uint64 heap entry).
const maxMergeLen = 1 << 30

func heapify(h []uint64) {
	for i := len(h)/2 - 1; i >= 0; i-- {
		siftDown(h, i)
	}
}

func siftDown(h []uint64, i int) {
	n := len(h)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		s := l
		if r := l + 1; r < n && h[r] < h[l] {
			s = r
		}
		if h[i] <= h[s] {
			return
		}
		h[i], h[s] = h[s], h[i]
		i = s
	}
}

func heapPop(h []uint64) []uint64 {
	last := len(h) - 1
	h[0] = h[last]
	h = h[:last]
	siftDown(h, 0)
	return h
}

func heapPush(h []uint64, v uint64) []uint64 {
	h = append(h, v)
	for i := len(h) - 1; i > 0; {
		p := (i - 1) / 2
		if h[p] <= h[i] {
			break
		}
		h[i], h[p] = h[p], h[i]
		i = p
	}
	return h
}

// mergeCount is the token count of a piece by mergeBounds.
func (m *model) mergeCount(p string) int {
	buf := mergePool.Get().(*mergeBuf)
	n := len(m.mergeBounds(p, buf)) - 1
	mergePool.Put(buf)
	return n
}

// Window sizes of longCount: windows of longWindow bytes, each starting at a
// token of the one before, about windowOverlap bytes before its end.
const (
	longWindow    = 16 << 10
	windowOverlap = 1 << 10
)

// longCount is the token count of a piece longer than a window.
//
// Write M(x) for the merge of text x. Two facts about M, for any texts:
//
//  1. If M(x) has a part e ending at v, M(x[:v]) is M(x)'s parts up to e;
//     if it has a part starting at u, M(x[u:]) is its parts from there.
//  2. If M(x) ends with a part e and M(y) starts with the same e (x ends
//     and y begins with e's bytes), M of x joined with y at e is M(x)
//     without e followed by M(y).
//
// Both hold because a merge never crosses a final boundary: while no merge
// has crossed one, the regions on either side evolve exactly as they do
// alone (each takes its own lowest pair, and which region goes first
// depends only on their pairs' ranks), so a pair across e's boundaries that
// would be taken in the joined text would have been taken in x or in y.
//
// So with C = M(P[c0:c1]) whose parts from t on are known to be M(P[:c1])'s
// last parts, and N = M(P[s:d]) for a window s ≥ t starting at a boundary of
// C: a part e = P[u:v] found in both (u ≥ t) is a part of M(P[:c1]), fact 1
// makes M(P[:v]) end with e and M(P[u:d]) start with it, and fact 2 makes
// M(P[:d]) those joined. The count grows by C's parts from t through e,
// and N takes C's place with t = v. A window that shares no part with the one
// before (not seen with tiktoken's vocabularies) is retried with a larger
// overlap, then the whole piece with larger windows; at worst one window
// covers the piece, which is mergeBounds itself.
//
// A window equal in bytes to the one before (a run of one character or of a
// short pattern) reuses its merge: such runs cost a comparison per window.
func (m *model) longCount(p string) int {
	return m.longCountFrom(p, longWindow, windowOverlap)
}

// longCountFrom is longCount starting from windows of w bytes.
func (m *model) longCountFrom(p string, w, overlap int) int {
	for ; ; w *= 4 {
		if w >= len(p) || w > maxMergeLen {
			return m.mergeCount(p)
		}
		if n, ok := m.windowedCount(p, w, overlap); ok {
			return n
		}
	}
}

// windowedCount is longCount with windows of w bytes overlapping by about
// overlap; ok is false when two windows shared no part.
func (m *model) windowedCount(p string, w, overlap int) (int, bool) {
	cb, nb := mergePool.Get().(*mergeBuf), mergePool.Get().(*mergeBuf)
	defer mergePool.Put(cb)
	defer mergePool.Put(nb)
	n := len(p)
	// C is p[c0:c1] with part starts cs (relative to c0, ending with c1-c0).
	c0, c1 := 0, min(w, n)
	cs := m.mergeBounds(p[c0:c1], cb)
	t, count := 0, 0 // absolute; parts of C starting at >= t are uncounted
	for c1 < n {
		found := false
		for ov := overlap; !found; ov *= 2 {
			// The window starts at the first part of C at or after c1-ov,
			// and not before t.
			from := max(t, c1-ov)
			k := firstAtOrAfter(cs, int32(from-c0))
			if k >= len(cs)-1 { // no part starts there: only the last boundary
				k = len(cs) - 2
			}
			s := c0 + int(cs[k])
			if s < t {
				return 0, false
			}
			d := min(s+w, n)
			var ns []int32
			if d-s == c1-c0 && p[s:d] == p[c0:c1] {
				ns = append(nb.bounds[:0], cs...) // same bytes, same merge
				nb.bounds = ns
			} else {
				ns = m.mergeBounds(p[s:d], nb)
			}
			// A part in both: same start and end, starting at or after t.
			i, j := k, 0
			for i < len(cs)-1 && j < len(ns)-1 {
				a, b := c0+int(cs[i]), s+int(ns[j])
				switch {
				case a < b:
					i++
				case b < a:
					j++
				default:
					if c0+int(cs[i+1]) == s+int(ns[j+1]) && a >= t {
						// Count C's parts from t through this one.
						count += i + 1 - firstAtOrAfter(cs, int32(t-c0))
						t = c0 + int(cs[i+1])
						found = true
					}
					i++
					j++
				}
				if found {
					break
				}
			}
			if found {
				c0, c1 = s, d
				cs, ns = ns, cs
				cb, nb = nb, cb
				break
			}
			if from == t || ov > w {
				return 0, false
			}
		}
	}
	return count + len(cs) - 1 - firstAtOrAfter(cs, int32(t-c0)), true
}

// firstAtOrAfter is the index of the first element of the ascending bounds
// at or after v (len(bounds) if none).
func firstAtOrAfter(bounds []int32, v int32) int {
	lo, hi := 0, len(bounds)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if bounds[mid] < v {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo
}
