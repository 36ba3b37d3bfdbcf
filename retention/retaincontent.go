package retention

// retainContent is dsh's ordered head/tail retention of text and whole
// images (deepseek-harness packages/spill/spill-policy/src/retention.ts,
// knyazev741/deepseek-harness @ 8173fb8d), over TextCost tables instead of a
// price callback, so a cut is found without re-pricing every candidate.
//
// Each end gets half the budget (head ceil, tail floor) and unused head
// budget does not move to the tail. The head takes whole blocks while they
// fit; the first that does not ends it, keeping its longest fitting prefix if
// it is text. The tail does the same from the end, down to the block where
// the head stopped, which it sees without the head's part. Everything
// between is omitted, images included.

// retainItem is one block as retention sees it.
type retainItem struct {
	block int
	image bool
	cost  int      // an image's whole price
	text  TextCost // a text block's price tables
	size  int      // a text block's length in bytes
	empty int      // the price of an empty text block (dsh prices "" too)
}

// piece is a kept block or part of one: bytes [start, end) of a text block,
// or a whole image.
type piece struct {
	block      int
	image      bool
	start, end int
	tokens     int
}

type retained struct {
	head, tail         []piece
	omittedBytes       int64
	omittedImages      int
	headEnd, tailStart Position
}

func retainContent(items []retainItem, budget int) retained {
	var r retained
	n := len(items)
	first, headChars := 0, 0
	rem := (budget + 1) / 2
	for first < n {
		it := items[first]
		if it.image {
			if it.cost <= rem {
				r.head = append(r.head, piece{block: it.block, image: true, tokens: it.cost})
				rem -= it.cost
				first++
				continue
			}
			break
		}
		if c, exact := it.text.AtMost(rem); exact && c <= rem {
			r.head = append(r.head, piece{block: it.block, end: it.size, tokens: c})
			rem -= c
			first++
			continue
		}
		end, c := it.text.Prefix(rem)
		headChars = end
		if end > 0 {
			r.head = append(r.head, piece{block: it.block, end: end, tokens: c})
		}
		break
	}
	if first < n {
		r.headEnd = Position{Block: items[first].block, Offset: int64(headChars)}
	} else {
		r.headEnd = Position{Block: blockAfter(items)}
	}

	rem = budget / 2
	last := n - 1
	for last >= first {
		it := items[last]
		if it.image {
			if it.cost <= rem {
				r.tail = append(r.tail, piece{block: it.block, image: true, tokens: it.cost})
				rem -= it.cost
				last--
				continue
			}
			break
		}
		from := 0
		if last == first {
			from = headChars
		}
		if from >= it.size {
			// What the head left of this block is empty; dsh still prices
			// (and keeps) the empty text.
			if it.empty <= rem {
				r.tail = append(r.tail, piece{block: it.block, start: it.size, end: it.size, tokens: it.empty})
				rem -= it.empty
				last--
				continue
			}
			break
		}
		start, c := it.text.Suffix(rem, from)
		if start == from {
			r.tail = append(r.tail, piece{block: it.block, start: from, end: it.size, tokens: c})
			rem -= c
			last--
			continue
		}
		if start < it.size {
			r.tail = append(r.tail, piece{block: it.block, start: start, end: it.size, tokens: c})
		}
		break
	}
	for i, j := 0, len(r.tail)-1; i < j; i, j = i+1, j-1 {
		r.tail[i], r.tail[j] = r.tail[j], r.tail[i]
	}
	if len(r.tail) > 0 {
		r.tailStart = Position{Block: r.tail[0].block, Offset: int64(r.tail[0].start)}
	} else {
		r.tailStart = Position{Block: blockAfter(items)}
	}

	var keptBytes int64
	keptImages := 0
	var total int64
	images := 0
	for _, it := range items {
		if it.image {
			images++
		} else {
			total += int64(it.size)
		}
	}
	for _, p := range append(append([]piece{}, r.head...), r.tail...) {
		if p.image {
			keptImages++
		} else {
			keptBytes += int64(p.end - p.start)
		}
	}
	r.omittedBytes = total - keptBytes
	r.omittedImages = images - keptImages
	return r
}

// blockAfter is the index past the last item's block.
func blockAfter(items []retainItem) int {
	if len(items) == 0 {
		return 0
	}
	return items[len(items)-1].block + 1
}
