package retention

import (
	"fmt"
	"unicode/utf8"
)

// dsh's compaction tool-result pruner, as knyazev741/deepseek-harness @
// 1376315f implements it in
// packages/compaction/compaction-tool-result-pruner/src/{index,config}.ts: a
// result whose text blocks hold more than thresholdChars code points keeps
// the first headChars and the last tailChars around one marker; non-text
// blocks stay in place. dsh logs it as compaction/prune followed by the
// replacing tool/result, so prunes found in logs replay here.

// DshPruneMarker replaces the pruned middle.
const DshPruneMarker = "\n\n[... tool result middle pruned ...]\n\n"

type dshPruner struct{}

func init() { RegisterPolicy(dshPruner{}) }

func (dshPruner) Info() PolicyInfo {
	return PolicyInfo{
		Name: "dsh-pruner", Harness: "dsh", Version: "compaction tool-result pruner",
		Summary:   "text over 8,192 code points keeps the first 4,096 and the last 1,024 around a pruned-middle marker; non-text blocks kept; nothing saved (the original stays only in the session log)",
		Source:    "knyazev741/deepseek-harness @ 1376315f: packages/compaction/compaction-tool-result-pruner/src/{index,config}.ts",
		Estimator: EstimatorMeter, Budget: "thresholdChars", Unit: "code points",
		Params: []Param{
			{Name: "thresholdChars", Kind: ParamInt, Unit: "code points", Default: "8192", Min: 1, Max: MaxBudget, Off: true,
				Doc: "results whose text holds more code points than this are pruned"},
			{Name: "headChars", Kind: ParamInt, Unit: "code points", Default: "4096", Min: 0, Max: MaxBudget,
				Doc: "code points kept from the start"},
			{Name: "tailChars", Kind: ParamInt, Unit: "code points", Default: "1024", Min: 0, Max: MaxBudget,
				Doc: "code points kept from the end"},
		},
		Recoverable: RecoverNone,
		Check: func(s Settings) error {
			if s.Off("thresholdChars") {
				return nil
			}
			emitted := s.Int("headChars") + int64(utf8.RuneCountInString(DshPruneMarker)) + s.Int("tailChars")
			if emitted > s.Int("thresholdChars") {
				return fmt.Errorf("headChars + marker + tailChars (%d) must be at most thresholdChars (%d)", emitted, s.Int("thresholdChars"))
			}
			return nil
		},
	}
}

func (dshPruner) Decide(a *Analysis, s Settings) Outcome {
	threshold, on := s.Budget()
	if !on {
		return a.keep(StatusDisabled, nil)
	}
	bp := &threshold
	points := a.codePoints()
	var total int64
	for _, n := range points {
		total += n
	}
	if total <= threshold {
		return a.keep(StatusWithinBudget, bp)
	}
	removedStart, removedEnd := s.Int("headChars"), total-s.Int("tailChars")
	var c contentBuilder
	var consumed, kept int64
	inserted := false
	headEnd, tailStart := Position{Block: len(a.blocks)}, Position{Block: len(a.blocks)}
	for i, bi := range a.blocks {
		if bi.kind != TypeText {
			if bi.kind == TypeImage {
				c.image(i, a.imageBlock(i))
			} else {
				c.other(i, a.res.Content[i])
			}
			continue
		}
		n := points[i]
		blockStart, blockEnd := consumed, consumed+n
		h := min(n, max(0, removedStart-blockStart))
		t := min(n, max(0, removedEnd-blockStart))
		hb, tb := runeOffset(bi.text, h), runeOffsetFromEnd(bi.text, n-t)
		marker := blockStart < removedEnd && blockEnd > removedStart && !inserted
		if marker {
			inserted = true
			headEnd = Position{Block: i, Offset: int64(hb)}
		}
		if t < n && tailStart.Block == len(a.blocks) && blockEnd > removedEnd {
			tailStart = Position{Block: i, Offset: int64(tb)}
		}
		if hb > 0 || marker || tb < len(bi.text) {
			if hb > 0 {
				c.text(SpanKept, i, 0, bi.text[:hb])
			}
			if marker {
				c.text(SpanMarker, -1, 0, DshPruneMarker)
			}
			if tb < len(bi.text) {
				c.text(SpanKept, i, int64(tb), bi.text[tb:])
			}
			c.end()
			kept += int64(hb + len(bi.text) - tb)
		}
		consumed = blockEnd
	}
	omitted := a.textBytes - kept
	o := Outcome{
		Status: StatusReplaced, Content: c.blocks, Spans: c.spans, OmittedBytes: omitted,
		Recovery: Recovery{Kind: RecoverNone, LostBytes: omitted}, Budget: bp,
		Diagnostics: append([]string{}, a.notes...), HeadEnd: &headEnd, TailStart: &tailStart,
		Route: a.route.Name, Estimator: a.est.Name(),
	}
	orig, exact := a.original(int(threshold))
	o.OriginalTokens, o.OriginalTokensExact = orig.Total, exact
	o.Tokens = a.priceBuilt(c)
	return o
}

// codePoints counts each text block's code points, once per Analysis.
func (a *Analysis) codePoints() []int64 {
	if a.points == nil {
		a.points = make([]int64, len(a.blocks))
		for i, bi := range a.blocks {
			if bi.kind == TypeText {
				a.points[i] = int64(utf8.RuneCountInString(bi.text))
			}
		}
	}
	return a.points
}

// runeOffsetFromEnd is the byte offset where the last n code points of s
// start, found walking back from the end (a pruned tail is short).
func runeOffsetFromEnd(s string, n int64) int {
	i := len(s)
	for ; n > 0 && i > 0; n-- {
		_, size := utf8.DecodeLastRuneInString(s[:i])
		i -= size
	}
	return i
}

// runeOffset is the byte offset of code point n of s (len(s) past the end).
func runeOffset(s string, n int64) int {
	if n <= 0 {
		return 0
	}
	var k int64
	for i := range s {
		if k == n {
			return i
		}
		k++
	}
	return len(s)
}
