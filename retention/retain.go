package retention

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"spillscope/retention/imagecost"
)

// Options configure one retention decision.
type Options struct {
	// Budget is maxInlineTokens; nil disables retention (status "disabled").
	// Check values from configuration with ValidateBudget.
	Budget *int64
	// Route names the imagecost route; "" means "anthropic".
	Route string
	// Encoding is the text estimator; "" means the route's encoding.
	Encoding string
	// ToolName is the tool that produced the result.
	ToolName string
	// ReadTools are the tool names that count as the host's read tool; nil
	// means DefaultReadTools.
	ReadTools []string
	// SpillPath is the complete result file the notice names; "" names
	// UnsavedSpillPath.
	SpillPath string
	// Blocked and ValueReplaced record host decisions that make the result
	// pass through untouched (step 0 of the decision).
	Blocked       bool
	ValueReplaced bool
}

// DefaultReadTools are the tool names treated as the host's file-reading
// tool when Options.ReadTools is nil.
var DefaultReadTools = []string{"read", "Read", "read_file"}

// DefaultRoute is the image route used when Options.Route is empty.
const DefaultRoute = imagecost.RouteAnthropic

// Statuses of an Outcome.
const (
	StatusWithinBudget = "within_budget"
	StatusReplaced     = "replaced"
	StatusNoticeOnly   = "notice_only"
	StatusPreserved    = "preserved"
	StatusUnsupported  = "unsupported"
	StatusDisabled     = "disabled"
	StatusPassThrough  = "pass_through"
)

// MaxBudget is the largest accepted maxInlineTokens: 2^53-1, the largest
// integer a JSON number carries exactly.
const MaxBudget = 1<<53 - 1

// ErrBudget reports a maxInlineTokens value that is negative, fractional or
// above MaxBudget.
var ErrBudget = errors.New("retention: invalid maxInlineTokens")

// ErrOptions reports options naming an unknown route or encoding.
var ErrOptions = errors.New("retention: invalid options")

// ValidateBudget checks a configured maxInlineTokens value and returns it as
// an integer.
func ValidateBudget(v float64) (int64, error) {
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0):
		return 0, fmt.Errorf("%w: %v is not a number of tokens", ErrBudget, v)
	case v < 0:
		return 0, fmt.Errorf("%w: %v is negative", ErrBudget, v)
	case v != math.Trunc(v):
		return 0, fmt.Errorf("%w: %v is fractional", ErrBudget, v)
	case v > MaxBudget:
		return 0, fmt.Errorf("%w: %.0f is above the largest safe integer %d", ErrBudget, v, int64(MaxBudget))
	}
	return int64(v), nil
}

func checkBudget(b int64) error {
	if b < 0 {
		return fmt.Errorf("%w: %d is negative", ErrBudget, b)
	}
	if b > MaxBudget {
		return fmt.Errorf("%w: %d is above the largest safe integer %d", ErrBudget, b, int64(MaxBudget))
	}
	return nil
}

// Tokens is the estimate of what the model sees, by kind.
type Tokens struct {
	Total  int `json:"total"`
	Text   int `json:"text"`
	Images int `json:"images"`
	Notice int `json:"notice"`
}

// Position is a place in the original content: a block index and a byte
// offset inside a text block (0 for images).
type Position struct {
	Block  int   `json:"block"`
	Offset int64 `json:"offset"`
}

// Span ties one block of Outcome.Content to the original: the source block
// and the byte range kept from it. Block is -1 for the marker and the notice.
type Span struct {
	Block int   `json:"block"`
	Start int64 `json:"start"`
	End   int64 `json:"end"`
}

// Outcome is what one retention decision produced.
type Outcome struct {
	Status string `json:"status"`
	// Content is what the model sees: the original blocks unless the status is
	// replaced or notice_only.
	Content       []Block `json:"content"`
	Notice        string  `json:"notice"`
	OmittedBytes  int64   `json:"omittedBytes"`
	OmittedImages int     `json:"omittedImages"`
	// Tokens prices Content.
	Tokens Tokens `json:"tokens"`
	// OriginalTokens is the estimate of the original result. Counting a huge
	// result exactly would mean tokenizing all of it, which the decision does
	// not need once a lower bound already exceeds the budget; then this is
	// that lower bound (exact tokens of the part read, the rest at the
	// vocabulary's longest token) and OriginalTokensExact is false.
	// Unsupported and unpriced blocks are left out and also make it inexact.
	OriginalTokens      int  `json:"originalTokens"`
	OriginalTokensExact bool `json:"originalTokensExact"`
	// CompleteFile is the text of the complete result file, set when the
	// status is replaced or notice_only.
	CompleteFile string   `json:"-"`
	Diagnostics  []string `json:"diagnostics"`
	// HeadEnd is where the retained head stops and TailStart where the
	// retained tail begins (replaced and notice_only only).
	HeadEnd   *Position `json:"headEnd,omitempty"`
	TailStart *Position `json:"tailStart,omitempty"`
	// Spans maps each block of Content to the original (replaced only).
	Spans    []Span `json:"spans,omitempty"`
	Route    string `json:"route"`
	Encoding string `json:"encoding"`
}

// Retain runs the retention decision on one result. The error is only for
// invalid options (budget, route, encoding); everything about the content
// itself is a status and diagnostics, and the original is never lost.
func Retain(res Result, opts Options) (Outcome, error) {
	if opts.Budget != nil {
		if err := checkBudget(*opts.Budget); err != nil {
			return Outcome{}, err
		}
	}
	a, err := analyse(res, opts)
	if err != nil {
		return Outcome{}, err
	}
	return a.decide(opts.Budget), nil
}

// Sweep runs the decision at each budget and returns one outcome per budget,
// each identical to Retain at that budget. Images are read and text is
// tokenized once for all budgets.
func Sweep(res Result, budgets []int64, opts Options) ([]Outcome, error) {
	for i, b := range budgets {
		if err := checkBudget(b); err != nil {
			return nil, fmt.Errorf("budget %d: %w", i, err)
		}
	}
	a, err := analyse(res, opts)
	if err != nil {
		return nil, err
	}
	out := make([]Outcome, len(budgets))
	for i := range budgets {
		out[i] = a.decide(&budgets[i])
	}
	return out, nil
}

type blockInfo struct {
	kind string // TypeText, TypeImage or "" for anything else
	text *textIndex

	// images
	priced   bool
	cost     int // route price plus descriptor tokens
	desc     string
	readable bool
	media    string
}

type analysis struct {
	res      Result
	opts     Options
	route    imagecost.Route
	m        *model
	blocks   []blockInfo
	textLen  int64
	images   int
	notes    []string // always reported
	pricing  []string // images that cannot be priced (step 3)
	paths    []string // images without a readable path (step 3)
	unsupp   []string // blocks of other types (step 1)
	marker   int
	reserve  int
	path     string
	complete *string
}

func analyse(res Result, opts Options) (*analysis, error) {
	routeName := opts.Route
	if routeName == "" {
		routeName = DefaultRoute
	}
	route, err := imagecost.Lookup(routeName)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrOptions, err)
	}
	enc := opts.Encoding
	if enc == "" {
		enc = route.Encoding
	}
	m, err := getModel(enc)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrOptions, err)
	}
	a := &analysis{res: res, opts: opts, route: route, m: m, path: opts.SpillPath}
	if a.path == "" {
		a.path = UnsavedSpillPath
	}
	a.blocks = make([]blockInfo, len(res.Content))
	for i, b := range res.Content {
		switch b.Type {
		case TypeText:
			text := b.Text
			if bad := invalidBytes(text); bad > 0 {
				a.notes = append(a.notes, fmt.Sprintf("text block %d: %d bytes of invalid UTF-8 are counted and cut as U+FFFD replacement characters", i, bad))
				text = sanitize(text)
			}
			a.blocks[i] = blockInfo{kind: TypeText, text: newTextIndex(m, text)}
			a.textLen += int64(len(text))
		case TypeImage:
			a.images++
			a.blocks[i] = a.analyseImage(i, b)
		default:
			a.unsupp = append(a.unsupp, fmt.Sprintf("block %d has type %q; only text and image blocks are retained", i, b.Type))
		}
	}
	a.marker = m.count(Marker)
	// The notice at its longest for this result: every byte and every image
	// omitted (digit groups are one token each, so fewer digits never cost
	// more), in the singular and plural image forms and the byte-only form.
	a.reserve = m.count(FormatNotice(a.textLen, 0, a.path))
	if a.images > 0 {
		for _, k := range []int{1, a.images} {
			a.reserve = max(a.reserve, m.count(FormatNotice(a.textLen, k, a.path)))
		}
	}
	return a, nil
}

// Descriptor is the line that stands for an image in text form: in the
// complete result file, and (priced like text) as part of the image's cost.
func Descriptor(mediaType string, width, height int, path string) string {
	if path == "" {
		return fmt.Sprintf("[image %s %dx%d, no readable path]", mediaType, width, height)
	}
	return fmt.Sprintf("[image %s %dx%d: %s]", mediaType, width, height, path)
}

func (a *analysis) analyseImage(i int, b Block) blockInfo {
	bi := blockInfo{kind: TypeImage}
	var info imagecost.Info
	var err error
	have := false
	if b.Path != "" {
		info, err = imagecost.SniffFile(b.Path)
		if err == nil {
			have, bi.readable = true, true
		} else {
			a.paths = append(a.paths, fmt.Sprintf("image block %d: attachment path is not a readable image: %v", i, err))
		}
	} else {
		a.paths = append(a.paths, fmt.Sprintf("image block %d: no readable attachment path (inline data only); the complete result file could not name it", i))
	}
	if !have && b.Data != "" {
		info, err = imagecost.SniffBase64(b.Data)
		if err == nil {
			have = true
		}
	}
	if !have {
		if err == nil {
			err = errors.New("neither data nor path")
		}
		a.pricing = append(a.pricing, fmt.Sprintf("image block %d: dimensions unavailable: %v", i, err))
		return bi
	}
	bi.media = info.MediaType
	if imagecost.Contradicts(b.MimeType, info) {
		a.notes = append(a.notes, fmt.Sprintf("image block %d: declared media type %q contradicts the bytes, which are %s", i, b.MimeType, info.MediaType))
	}
	path := ""
	if bi.readable {
		path = b.Path
	}
	bi.desc = Descriptor(info.MediaType, info.Width, info.Height, path)
	if a.route.Calc == nil {
		a.pricing = append(a.pricing, fmt.Sprintf("image block %d: route %q has no image pricing", i, a.route.Name))
		return bi
	}
	price, err := a.route.Calc(info.Width, info.Height)
	if err != nil {
		a.pricing = append(a.pricing, fmt.Sprintf("image block %d: route %q cannot price %dx%d: %v", i, a.route.Name, info.Width, info.Height, err))
		return bi
	}
	bi.priced = true
	bi.cost = price + a.m.count(sanitize(bi.desc))
	return bi
}

// completeFile is the complete result file: every text block and, at each
// image's position, its descriptor line, joined by newlines. Never base64.
func (a *analysis) completeFile() string {
	if a.complete != nil {
		return *a.complete
	}
	var sb strings.Builder
	sb.Grow(int(a.textLen) + 128*a.images)
	for i, bi := range a.blocks {
		if i > 0 {
			sb.WriteByte('\n')
		}
		switch bi.kind {
		case TypeText:
			sb.WriteString(bi.text.text)
		case TypeImage:
			sb.WriteString(bi.desc)
		}
	}
	s := sb.String()
	a.complete = &s
	return s
}

// original prices the original content, stopping once a lower bound exceeds
// threshold (see Outcome.OriginalTokens).
func (a *analysis) original(threshold int) (Tokens, bool) {
	imgs := 0
	for _, bi := range a.blocks {
		if bi.kind == TypeImage && bi.priced {
			imgs += bi.cost
		}
	}
	lb := 0
	for _, bi := range a.blocks {
		if bi.kind == TypeText {
			lb += bi.text.byteLowerBound()
		}
	}
	if imgs+lb > threshold {
		return Tokens{Total: imgs + lb, Text: lb, Images: imgs}, false
	}
	for l := 0; ; l++ {
		sum, all := 0, true
		for _, bi := range a.blocks {
			if bi.kind == TypeText {
				b, ex := bi.text.levelBound(l)
				sum += b
				all = all && ex
			}
		}
		if all {
			return Tokens{Total: imgs + sum, Text: sum, Images: imgs}, true
		}
		if imgs+sum > threshold {
			return Tokens{Total: imgs + sum, Text: sum, Images: imgs}, false
		}
	}
}

func (a *analysis) isReadTool() bool {
	tools := a.opts.ReadTools
	if tools == nil {
		tools = DefaultReadTools
	}
	return a.opts.ToolName != "" && slices.Contains(tools, a.opts.ToolName)
}

// keep builds an outcome that leaves the original content in place.
func (a *analysis) keep(status string, threshold int, diags ...[]string) Outcome {
	t, exact := a.original(threshold)
	exact = exact && len(a.pricing) == 0 && len(a.unsupp) == 0
	o := Outcome{
		Status:              status,
		Content:             a.res.Content,
		Tokens:              t,
		OriginalTokens:      t.Total,
		OriginalTokensExact: exact,
		Diagnostics:         append([]string{}, a.notes...),
		Route:               a.route.Name,
		Encoding:            a.m.name,
	}
	for _, d := range diags {
		o.Diagnostics = append(o.Diagnostics, d...)
	}
	return o
}

type kept struct {
	block      int
	start, end int
	tokens     int
}

func (a *analysis) decide(budget *int64) Outcome {
	if budget == nil {
		return a.keep(StatusDisabled, math.MaxInt)
	}
	B := int(*budget)
	switch {
	case a.opts.Blocked:
		return a.keep(StatusPassThrough, B, []string{"the host blocked this result; it passes through"})
	case a.opts.ValueReplaced:
		return a.keep(StatusPassThrough, B, []string{"the host replaced this result's value; it passes through"})
	case a.isReadTool():
		return a.keep(StatusPassThrough, B, []string{fmt.Sprintf("%q is the host's read tool; its results pass through", a.opts.ToolName)})
	}
	if len(a.unsupp) > 0 {
		return a.keep(StatusUnsupported, B, a.unsupp)
	}
	if len(a.pricing) > 0 {
		return a.keep(StatusPreserved, B, a.pricing)
	}
	orig, exact := a.original(B)
	if exact && orig.Total <= B {
		return a.keep(StatusWithinBudget, B)
	}
	if len(a.paths) > 0 {
		return a.keep(StatusPreserved, B, a.paths)
	}
	if a.reserve > B {
		return a.keep(StatusPreserved, B, []string{fmt.Sprintf("notice exceeds budget: the omission notice needs %d tokens, the budget is %d", a.reserve, B)})
	}
	return a.cut(B, orig, exact)
}

func (a *analysis) cut(B int, orig Tokens, exact bool) Outcome {
	rest := max(B-a.reserve-a.marker, 0)
	h := rest / 2
	t := rest - h
	n := len(a.blocks)

	var head []kept
	headEnd := Position{Block: n}
	rem := h
	for i, bi := range a.blocks {
		if bi.kind == TypeText {
			x := bi.text
			if x.fits(rem) {
				c := x.total()
				head = append(head, kept{i, 0, len(x.text), c})
				rem -= c
				continue
			}
			k, c := x.headCut(rem)
			if k > 0 {
				head = append(head, kept{i, 0, k, c})
			}
			headEnd = Position{Block: i, Offset: int64(k)}
			break
		}
		if bi.cost <= rem {
			head = append(head, kept{i, -1, -1, bi.cost})
			rem -= bi.cost
			continue
		}
		headEnd = Position{Block: i}
		break
	}

	var tail []kept
	tailStart := Position{Block: n}
	rem = t
	for i := n - 1; i >= headEnd.Block && i >= 0; i-- {
		bi := a.blocks[i]
		if bi.kind == TypeText {
			x := bi.text
			minStart := 0
			if i == headEnd.Block {
				minStart = int(headEnd.Offset)
			}
			if minStart == 0 && x.fits(rem) {
				c := x.total()
				tail = append(tail, kept{i, 0, len(x.text), c})
				rem -= c
				tailStart = Position{Block: i}
				continue
			}
			j, c := x.tailCut(rem, minStart)
			if j < len(x.text) {
				tail = append(tail, kept{i, j, len(x.text), c})
			}
			tailStart = Position{Block: i, Offset: int64(j)}
			break
		}
		if bi.cost <= rem {
			tail = append(tail, kept{i, -1, -1, bi.cost})
			rem -= bi.cost
			tailStart = Position{Block: i}
			continue
		}
		tailStart = Position{Block: i + 1}
		break
	}
	slices.Reverse(tail)

	var keptBytes int64
	keptImages := 0
	var tok Tokens
	for _, k := range append(append([]kept{}, head...), tail...) {
		if k.start < 0 {
			keptImages++
			tok.Images += k.tokens
		} else {
			keptBytes += int64(k.end - k.start)
			tok.Text += k.tokens
		}
	}
	omittedBytes := a.textLen - keptBytes
	omittedImages := a.images - keptImages
	notice := FormatNotice(omittedBytes, omittedImages, a.opts.SpillPath)
	tok.Notice = a.m.count(sanitize(notice))

	o := Outcome{
		Notice:              notice,
		OmittedBytes:        omittedBytes,
		OmittedImages:       omittedImages,
		OriginalTokens:      orig.Total,
		OriginalTokensExact: exact,
		CompleteFile:        a.completeFile(),
		Diagnostics:         append([]string{}, a.notes...),
		HeadEnd:             &headEnd,
		TailStart:           &tailStart,
		Route:               a.route.Name,
		Encoding:            a.m.name,
	}
	noticeBlock := Block{Type: TypeText, Text: notice}
	if keptBytes == 0 && keptImages == 0 {
		o.Status = StatusNoticeOnly
		o.Content = []Block{noticeBlock}
		o.Spans = []Span{{Block: -1}}
		o.Tokens = Tokens{Total: tok.Notice, Notice: tok.Notice}
	} else {
		o.Status = StatusReplaced
		for _, k := range head {
			o.Content = append(o.Content, a.keptBlock(k))
			o.Spans = append(o.Spans, span(k))
		}
		o.Content = append(o.Content, Block{Type: TypeText, Text: Marker})
		o.Spans = append(o.Spans, Span{Block: -1})
		for _, k := range tail {
			o.Content = append(o.Content, a.keptBlock(k))
			o.Spans = append(o.Spans, span(k))
		}
		o.Content = append(o.Content, noticeBlock)
		o.Spans = append(o.Spans, Span{Block: -1})
		tok.Text += a.marker
		tok.Total = tok.Text + tok.Images + tok.Notice
		o.Tokens = tok
	}
	if tok.Notice > a.reserve || o.Tokens.Total > B {
		// The reserve is the notice at its longest; this guards the
		// invariant rather than trusting that reasoning.
		return a.keep(StatusPreserved, B, []string{fmt.Sprintf("internal: the replacement would cost %d tokens, over the budget %d; original kept", o.Tokens.Total, B)})
	}
	return o
}

func span(k kept) Span {
	if k.start < 0 {
		return Span{Block: k.block}
	}
	return Span{Block: k.block, Start: int64(k.start), End: int64(k.end)}
}

func (a *analysis) keptBlock(k kept) Block {
	orig := a.res.Content[k.block]
	if k.start < 0 {
		return Block{Type: TypeImage, MimeType: a.blocks[k.block].media, Path: orig.Path, Annotations: orig.Annotations}
	}
	return Block{Type: TypeText, Text: a.blocks[k.block].text.text[k.start:k.end], Annotations: orig.Annotations}
}
