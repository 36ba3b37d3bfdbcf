package retention

import (
	"fmt"
	"strconv"
	"strings"
)

// dsh's token-era spill policy (@deepseek-ai/dsh-spill-policy 0.1.7+, config
// maxInlineTokens, shipped 12,500), as knyazev741/deepseek-harness @ 8173fb8d
// implements it in packages/spill/spill-policy/src/{index,retention,notice}.ts
// (spec/policies/dsh.md, "Token era"): text and whole images share one
// budget, images stay at their positions, the gap joins the tail's text, and
// the notice counts omitted images.

// DshGap is the token era's gap block between head and tail.
const DshGap = "\n\n[...]\n\n"

// DshTokensDefault is the shipped maxInlineTokens.
const DshTokensDefault = 12500

type dshTokens struct{}

func init() { RegisterPolicy(dshTokens{}) }

// sketchable: dshTokensCut prices its cut from a summary's tables.
func (dshTokens) sketchable() {}

// monotone: a result within budget (its whole price at most the budget,
// every status before that test independent of the budget) stays within
// any larger one.
func (dshTokens) monotone() {}

// dshTokensInfo is built once: a sweep asks for it at every decision.
var dshTokensInfo = PolicyInfo{
	Name: "dsh-tokens", Harness: "dsh", Version: "0.1.7+",
	Summary:   "text and whole images share a token budget; head and tail around a [...] gap; the complete result (images as readable paths) in a spill file the notice names",
	Source:    "knyazev741/deepseek-harness @ 8173fb8d: packages/spill/spill-policy/src/{index,retention,notice}.ts",
	Estimator: EstimatorMeter, Budget: "maxInlineTokens", Unit: "tokens",
	Params: []Param{{
		Name: "maxInlineTokens", Kind: ParamInt, Unit: "tokens", Default: strconv.Itoa(DshTokensDefault),
		Min: 0, Max: MaxBudget, Off: true,
		Doc: "estimated token cap for retained text, images, image handle texts and notices; off disables retention",
	}},
	Recoverable: RecoverFile,
}

func (dshTokens) Info() PolicyInfo {
	info := dshTokensInfo
	info.Params = append([]Param(nil), dshTokensInfo.Params...)
	return info
}

func (dshTokens) nameAndUnit() (name, unit string) { return dshTokensInfo.Name, dshTokensInfo.Unit }

func (dshTokens) Decide(a *Analysis, s Settings) Outcome {
	b, on := s.Budget()
	if !on {
		return a.keep(StatusDisabled, nil)
	}
	bp := &b
	B := int(b)
	if msg, ok := a.passThrough(); ok {
		return a.keep(StatusPassThrough, bp, msg)
	}
	if len(a.unsupported) > 0 {
		return a.keep(StatusUnsupported, bp, a.unsupported...)
	}
	// Pricing comes before the cap check: an image the route cannot price
	// keeps the result whole even when it is small.
	if len(a.unpriced) > 0 {
		return a.keep(StatusPreserved, bp, a.unpriced...)
	}
	if orig, exact := a.original(B); exact && orig.Total <= B {
		return a.keep(StatusWithinBudget, bp)
	}
	if len(a.unreadable) > 0 {
		return a.keep(StatusPreserved, bp, a.unreadable...)
	}
	est := a.est
	ref := a.call.Spill.withDefaults()
	// The longest notice and what it reserves depend on the result alone,
	// so a sweep counts them once.
	res := a.derive("dsh/reserve", func() any {
		worst := FormatSpillNotice(ExactOmission(a.textBytes), ref, a.images)
		c := a.noticeTokens(worst, a.textBytes, a.images)
		return [2]int{c, est.Count(DshGap) + countSep(est, noticeSep, worst, c)}
	}).([2]int)
	if c := res[0]; c > B {
		return a.keep(StatusPreserved, bp, fmt.Sprintf("notice exceeds budget: the notice at its longest costs %d tokens on %s, the budget is %d", c, est.Name(), B))
	}
	reserved := res[1]
	items := a.items()
	orig, exact := a.original(B)
	var o Outcome
	// dsh prices the parts apart and merges adjacent text after; on its
	// meter merging never costs more. A tokenizer may count joined text a
	// token or two above its parts, so then the cut is redone with the
	// overshoot taken off the content budget.
	for slack, try := 0, 0; ; try++ {
		o = a.dshTokensCut(items, max(0, B-reserved-slack), ref)
		if o.Tokens.Total <= B {
			break
		}
		if try == 3 {
			return a.keep(StatusPreserved, bp, fmt.Sprintf("the replacement would cost %d tokens on %s, over the budget %d; original kept", o.Tokens.Total, est.Name(), B))
		}
		slack += o.Tokens.Total - B
	}
	o.Budget = bp
	o.OriginalTokens, o.OriginalTokensExact = orig.Total, exact
	return o
}

// dshTokensCut is steps 9 to 12 of dsh's bound(): retain, write the footer,
// and join head, gap, tail and footer, merging adjacent text.
func (a *Analysis) dshTokensCut(items []retainItem, budget int, ref SpillRef) Outcome {
	r := retainContent(items, budget)
	footer := FormatSpillNotice(ExactOmission(r.omittedBytes), ref, r.omittedImages)
	if a.sketch != nil {
		return a.sketchDshCut(r, footer, ref)
	}
	var c contentBuilder
	if len(r.head)+len(r.tail) == 0 {
		c.text(SpanNotice, -1, 0, footer)
	} else {
		a.addPieces(&c, r.head)
		c.text(SpanMarker, -1, 0, DshGap)
		a.addPieces(&c, r.tail)
		c.text(SpanNotice, -1, 0, noticeSep+footer)
	}
	o := Outcome{
		Status: StatusReplaced, Content: c.blocks, Spans: c.spans, Notice: footer,
		OmittedBytes: r.omittedBytes, OmittedImages: r.omittedImages,
		Recovery:     Recovery{Kind: RecoverFile, Locator: ref.Locator},
		CompleteFile: a.dshComplete(),
		Diagnostics:  append([]string{}, a.notes...),
		HeadEnd:      &r.headEnd, TailStart: &r.tailStart,
		Route: a.route.Name, Estimator: a.est.Name(),
	}
	if len(r.head)+len(r.tail) == 0 {
		o.Status = StatusNoticeOnly
	}
	o.Tokens = a.priceBuilt(c)
	return o
}

// sketchDshCut is dshTokensCut on a sketch: the same retention, priced from
// the summary's tables, with the plan in place of the content.
func (a *Analysis) sketchDshCut(r retained, footer string, ref SpillRef) Outcome {
	pl := &sketchPlan{r: r, footer: footer, noticeOnly: len(r.head)+len(r.tail) == 0}
	o := Outcome{
		Status: StatusReplaced, Notice: footer,
		OmittedBytes: r.omittedBytes, OmittedImages: r.omittedImages,
		Recovery:    Recovery{Kind: RecoverFile, Locator: ref.Locator},
		Diagnostics: append([]string{}, a.notes...),
		HeadEnd:     &r.headEnd, TailStart: &r.tailStart,
		Route: a.route.Name, Estimator: a.est.Name(), plan: pl,
	}
	if pl.noticeOnly {
		o.Status = StatusNoticeOnly
	}
	o.Tokens, _, _ = a.sketchPrice(pl)
	return o
}

// items is the content as retention sees it (text and images only).
func (a *Analysis) items() []retainItem {
	out := make([]retainItem, 0, len(a.blocks))
	empty := a.est.Count("")
	for i, bi := range a.blocks {
		switch bi.kind {
		case TypeText:
			out = append(out, retainItem{block: i, text: bi.cost, size: bi.n, empty: empty})
		case TypeImage:
			out = append(out, retainItem{block: i, image: true, cost: bi.price.Total()})
		}
	}
	return out
}

func (a *Analysis) addPieces(c *contentBuilder, ps []piece) {
	for _, p := range ps {
		if p.image {
			c.image(p.block, a.imageBlock(p.block))
			continue
		}
		c.text(SpanKept, p.block, int64(p.start), a.blocks[p.block].text[p.start:p.end])
	}
}

// priceBuilt prices built content: each text block on the estimator, each
// image at its price, and the notice spans reported as their own price
// (noticeCost), as Reprice reports them.
func (a *Analysis) priceBuilt(c contentBuilder) Tokens {
	t := Tokens{Estimator: a.est.Name()}
	for i, b := range c.blocks {
		switch {
		case b.Type == TypeImage:
			t.Images += a.blocks[c.src[i]].price.Total()
		case b.Type == TypeText:
			t.Total += a.writtenCount(c.blocks, c.spans, i)
		default:
			n, _ := a.est.Structural(b.Raw)
			t.Total += n
		}
	}
	t.Total += t.Images
	t.Notice = min(a.noticeCost(c), t.Total-t.Images)
	t.Text = t.Total - t.Images - t.Notice
	return t
}

// dshComplete is the token era's complete result file: every text block as
// it is and, at each image's position, a line naming its readable path.
func (a *Analysis) dshComplete() string {
	if a.complete != nil {
		return *a.complete
	}
	// One text block and no image: the file is that text, not a copy of it.
	texts, last := 0, -1
	for i, bi := range a.blocks {
		if bi.kind == TypeText {
			texts, last = texts+1, i
		}
	}
	if texts == 1 && a.images == 0 {
		complete := a.blocks[last].text
		a.complete = &complete
		return complete
	}
	var sb strings.Builder
	sb.Grow(int(a.textBytes) + 160*a.images)
	for _, bi := range a.blocks {
		switch bi.kind {
		case TypeText:
			sb.WriteString(bi.text)
		case TypeImage:
			sb.WriteString(DshImageLine(bi.path, bi.img.MediaType, bi.img.Width, bi.img.Height))
		}
	}
	complete := sb.String()
	a.complete = &complete
	return complete
}

// DshImageLine is the line that stands for an image in the token era's
// complete result file, newlines included.
func DshImageLine(path, mediaType string, width, height int) string {
	return "\n[Image: " + jsString(path) + "; " + mediaType + "; " + strconv.Itoa(width) + "x" + strconv.Itoa(height) + ". Use read_image to view it.]\n"
}
