package retention

import (
	"fmt"
	"strconv"
	"strings"
)

// dsh's byte-era spill policy (@deepseek-ai/dsh-spill-policy up to 0.1.5,
// config maxInlineBytes, shipped 50,000), as deepseek-ai/deepseek-harness @
// b150a551 implements it (packages/spill/spill-policy/src/index.ts with
// TextRetainer from packages/util/output-retention/src/index.ts; the forks'
// notice.ts from tenyi/deepseek-harness @ 77afa343 spells the same notice):
// all-text results only, head and tail bytes joined with no marker.

// DshBytesDefault is the shipped maxInlineBytes.
const DshBytesDefault = 50000

type dshBytes struct{}

func init() { RegisterPolicy(dshBytes{}) }

func (dshBytes) Info() PolicyInfo {
	return PolicyInfo{
		Name: "dsh-bytes", Harness: "dsh", Version: "up to 0.1.5",
		Summary:   "all-text results over a UTF-8 byte cap keep ceil/floor halves of the rest after the notice, joined with no marker; the full text in a spill file the notice names",
		Source:    "deepseek-ai/deepseek-harness @ b150a551: packages/spill/spill-policy/src/index.ts, packages/util/output-retention/src/index.ts",
		Estimator: EstimatorMeter, Budget: "maxInlineBytes", Unit: "bytes",
		Params: []Param{{
			Name: "maxInlineBytes", Kind: ParamInt, Unit: "bytes", Default: strconv.Itoa(DshBytesDefault),
			Min: 0, Max: MaxBudget, Off: true,
			Doc: "model-facing cap of a plain-text result in UTF-8 bytes; off disables the policy",
		}},
		Recoverable: RecoverFile,
	}
}

func (dshBytes) Decide(a *Analysis, s Settings) Outcome {
	b, on := s.Budget()
	if !on {
		return a.keep(StatusDisabled, nil)
	}
	bp := &b
	if msg, ok := a.passThrough(); ok {
		return a.keep(StatusPassThrough, bp, msg)
	}
	var nonText []string
	for i, bi := range a.blocks {
		if bi.kind != TypeText {
			nonText = append(nonText, fmt.Sprintf("block %d has type %q; the byte era spills only all-text results", i, a.res.Content[i].Type))
		}
	}
	if len(nonText) > 0 {
		return a.keep(StatusUnsupported, bp, nonText...)
	}
	text := a.flatText()
	total := int64(len(text))
	if total <= b {
		return a.keep(StatusWithinBudget, bp)
	}
	ref := a.call.Spill.withDefaults()
	reserve := int64(len(FormatSpillNotice(ExactOmission(total), ref, 0))) + int64(len(noticeSep))
	pb := max(0, b-reserve)
	prefixLen := min(total, (pb+1)/2)
	suffixLen := min(total-prefixLen, pb/2)
	head, tail := text[:prefixLen], text[total-suffixLen:]
	if total-prefixLen-suffixLen > 0 {
		head, tail = trimTrailingPartialUTF8(head), trimLeadingContinuationUTF8(tail)
	}
	omitted := total - int64(len(head)) - int64(len(tail))
	omission := Omission{Kind: OmittedNone}
	if omitted > 0 {
		omission = ExactOmission(omitted)
	}
	notice := FormatSpillNotice(omission, ref, 0)
	preview := len(head)+len(tail) > 0
	size := int64(len(notice))
	if preview {
		size += int64(len(head)+len(tail)) + int64(len(noticeSep))
	}
	if size > b {
		return a.keep(StatusPreserved, bp, fmt.Sprintf("notice exceeds budget: the replacement would be %d bytes, maxInlineBytes is %d", size, b))
	}
	var c contentBuilder
	headEnd := a.flatPosition(int64(len(head)))
	tailStart := a.flatPosition(total - int64(len(tail)))
	if preview {
		a.addFlat(&c, 0, head)
		a.addFlat(&c, total-int64(len(tail)), tail)
		c.text(SpanNotice, -1, 0, noticeSep+notice)
	} else {
		c.text(SpanNotice, -1, 0, notice)
	}
	o := Outcome{
		Status: StatusReplaced, Content: c.blocks, Spans: c.spans, Notice: notice, OmittedBytes: omitted,
		Recovery: Recovery{Kind: RecoverFile, Locator: ref.Locator}, Budget: bp, CompleteFile: text,
		Diagnostics: append([]string{}, a.notes...), HeadEnd: &headEnd, TailStart: &tailStart,
		Route: a.route.Name, Estimator: a.est.Name(),
	}
	if !preview {
		o.Status = StatusNoticeOnly
	}
	// The byte cap bounds how far the original is counted: past it, the
	// figure is a lower bound (see Outcome.OriginalTokens).
	orig, exact := a.original(int(b))
	o.OriginalTokens, o.OriginalTokensExact = orig.Total, exact
	o.Tokens = a.priceBuilt(c)
	return o
}

// flatText is every text block joined with no separator, as the byte era
// flattens a result.
func (a *Analysis) flatText() string {
	if a.flat != nil {
		return *a.flat
	}
	var sb strings.Builder
	sb.Grow(int(a.textBytes))
	for _, bi := range a.blocks {
		sb.WriteString(bi.text)
	}
	flat := sb.String()
	a.flat = &flat
	return flat
}

// flatPosition maps an offset in flatText to a block and an offset in it.
func (a *Analysis) flatPosition(off int64) Position {
	var at int64
	for i, bi := range a.blocks {
		n := int64(len(bi.text))
		if off < at+n || (off == at+n && i == len(a.blocks)-1) {
			return Position{Block: i, Offset: off - at}
		}
		at += n
	}
	return Position{Block: len(a.blocks)}
}

// addFlat adds kept text s, found at offset off of flatText, with one kept
// span per original block it comes from.
func (a *Analysis) addFlat(c *contentBuilder, off int64, s string) {
	var at int64
	for i, bi := range a.blocks {
		n := int64(len(bi.text))
		lo, hi := max(off, at), min(off+int64(len(s)), at+n)
		if lo < hi {
			c.text(SpanKept, i, lo-at, s[lo-off:hi-off])
		}
		at += n
	}
}

// trimTrailingPartialUTF8 is TextRetainer's trimTrailingPartialUtf8: drop a
// trailing incomplete UTF-8 sequence, walking back over at most three
// continuation bytes to its lead; anything else is left alone.
func trimTrailingPartialUTF8(s string) string {
	i := len(s) - 1
	for i >= 0 && s[i]&0xC0 == 0x80 && len(s)-i <= 3 {
		i--
	}
	if i < 0 {
		return s
	}
	expected := 0
	switch lead := s[i]; {
	case lead < 0x80:
		expected = 1
	case lead < 0xE0:
		expected = 2
	case lead < 0xF0:
		expected = 3
	case lead < 0xF8:
		expected = 4
	}
	if expected == 0 || len(s)-i >= expected {
		return s
	}
	return s[:i]
}

// trimLeadingContinuationUTF8 drops leading continuation bytes, so a suffix
// starts on a code point.
func trimLeadingContinuationUTF8(s string) string {
	i := 0
	for i < len(s) && s[i]&0xC0 == 0x80 {
		i++
	}
	return s[i:]
}
