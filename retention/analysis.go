package retention

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"spillscope/retention/imagecost"
)

// Call is the host's context of one tool result: what decides the
// pass-through steps before any pricing, and where a spill would go.
type Call struct {
	// ToolName is the tool that produced the result.
	ToolName string `json:"toolName"`
	// ReadTools are the tool names that count as the host's read tool; nil
	// means DefaultReadTools.
	ReadTools []string `json:"readTools,omitempty"`
	// Blocked and ValueReplaced record host decisions that make the result
	// pass through untouched.
	Blocked       bool `json:"blocked,omitempty"`
	ValueReplaced bool `json:"valueReplaced,omitempty"`
	// Spill is the locator and hint a notice names.
	Spill SpillRef `json:"spill"`
}

// DefaultReadTools are the tool names treated as the host's file-reading
// tool when Call.ReadTools is nil.
var DefaultReadTools = []string{"read", "Read", "read_file"}

// DefaultRoute is the image route used when none is given.
const DefaultRoute = imagecost.RouteAnthropic

// ErrOptions reports options naming an unknown route or estimator.
var ErrOptions = errors.New("retention: invalid options")

// AnalyseOptions tune what Analyse builds.
type AnalyseOptions struct {
	Call Call
	// HandlePaths are, per image block, the path the harness's handle text
	// names (dsh's read-only normalised copy). An image without one gets
	// the handle text for no readable path, so no figure depends on where
	// Spillscope keeps its own copy.
	HandlePaths map[int]string
	// HandleText builds an image's handle text; nil is DshHandleText.
	HandleText func(ImageFacts) string
}

// ImageFacts is what the core knows of one image block.
type ImageFacts struct {
	// SHA256 is the hex digest of the image's bytes: its identity in handle
	// texts.
	SHA256    string `json:"sha256"`
	Name      string `json:"name,omitempty"`
	MediaType string `json:"mediaType"`
	Width     int    `json:"width"`
	Height    int    `json:"height"`
	// RequestWidth and RequestHeight are the size the route sends.
	RequestWidth  int `json:"requestWidth"`
	RequestHeight int `json:"requestHeight"`
	// HandlePath is the path the handle text names ("" for none).
	HandlePath string `json:"handlePath,omitempty"`
}

// ImagePrice is one image's cost on a route under an estimator: the route's
// visual tokens plus the estimator's price of the handle text that goes with
// the image on the wire.
type ImagePrice struct {
	Visual       int    `json:"visual"`
	Handle       string `json:"handle"`
	HandleTokens int    `json:"handleTokens"`
}

// Total is the image's whole price.
func (p ImagePrice) Total() int { return p.Visual + p.HandleTokens }

// PriceImage is the one pricing function for images: the index's token
// phase, the structure pass's ranking figure and every decision call it, so
// a result costs the same on every screen. facts needs the digest, media
// type and dimensions; the request size is filled in from the route.
func PriceImage(est Estimator, route imagecost.Route, facts ImageFacts, handle func(ImageFacts) string) (ImagePrice, ImageFacts, error) {
	facts.RequestWidth, facts.RequestHeight = route.RequestSize(facts.Width, facts.Height)
	if route.Calc == nil {
		return ImagePrice{}, facts, fmt.Errorf("%w: %s", imagecost.ErrNoImagePricing, route.Name)
	}
	visual, err := route.Calc(facts.Width, facts.Height)
	if err != nil {
		return ImagePrice{}, facts, err
	}
	if handle == nil {
		handle = DshHandleText
	}
	h := handle(facts)
	return ImagePrice{Visual: visual, Handle: h, HandleTokens: est.Count(h)}, facts, nil
}

// DshHandleText is the text dsh sends beside a request image
// (requestImageHandleText in deepseek-harness packages/llm/llm/src/content.ts,
// knyazev741/deepseek-harness @ 1376315f), with the read-only path when the
// harness names one.
func DshHandleText(f ImageFacts) string {
	identity := "sha256:" + f.SHA256
	if f.Name != "" {
		identity = jsString(f.Name) + " (" + identity + ")"
	}
	preview := "Image " + identity + "; request preview " + strconv.Itoa(f.RequestWidth) + "x" + strconv.Itoa(f.RequestHeight) + "px."
	if f.HandlePath == "" {
		return preview + " It may be resized or re-encoded; source dimensions, format, and byte size may differ."
	}
	return preview + " Normalized copy (read-only; may be resized or re-encoded): " + jsString(f.HandlePath) +
		" (" + strconv.Itoa(f.Width) + "x" + strconv.Itoa(f.Height) + "px, " + f.MediaType + ")." +
		" Source dimensions, format, and byte size may differ." +
		" Copy to a writable path ending in " + mediaExtension(f.MediaType) + " before editing."
}

func mediaExtension(media string) string {
	switch media {
	case "image/jpeg":
		return ".jpg"
	case "":
		return ".bin"
	}
	if _, sub, ok := strings.Cut(media, "/"); ok {
		return "." + sub
	}
	return "." + media
}

// jsString is JavaScript's JSON.stringify of a string: quotes, backslashes
// and control characters escaped, everything else as it is (unlike Go's
// encoder, which also escapes <, >, & and U+2028/2029).
func jsString(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			if r < 0x20 {
				fmt.Fprintf(&b, `\u%04x`, r)
			} else {
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}

// Analysis is everything a decision needs about one result, built once per
// result, estimator and route: each text block's price tables, each image's
// dimensions, price and handle text, and what makes the result ineligible.
// Every policy decides from it at any budget without rereading images or
// re-tokenizing. It is safe for concurrent use: decisions are serialised.
type Analysis struct {
	mu     sync.Mutex
	res    Result
	est    Estimator
	route  imagecost.Route
	call   Call
	handle func(ImageFacts) string

	blocks    []blockInfo
	textBytes int64
	images    int

	notes       []string // always reported
	unsupported []string // blocks of other types
	unpriced    []string // images that cannot be priced
	unreadable  []string // images without a readable path

	// Built on first use and kept: they depend on the result only.
	complete *string // dsh-tokens' complete result file
	flat     *string // the byte era's joined text
	points   []int64 // code points per block (the pruner's measure)
	// derived holds what other policies derive from the result alone and
	// reuse across decisions, keyed by name (see derive).
	derived map[string]any
	// sketch is set on an Analysis built from a Summary (see Sketch).
	sketch *sketchState
}

// derive returns the value stored under key, building it on first use.
// Decisions hold the Analysis's lock, so build runs once.
func (a *Analysis) derive(key string, build func() any) any {
	if v, ok := a.derived[key]; ok {
		return v
	}
	if a.derived == nil {
		a.derived = map[string]any{}
	}
	v := build()
	a.derived[key] = v
	return v
}

type blockInfo struct {
	kind string // TypeText, TypeImage, or "" for any other type
	text string // sanitized
	n    int    // len(text); a sketch has the length without the text
	cost TextCost

	img      ImageFacts
	price    ImagePrice
	priced   bool
	readable bool
	path     string

	structural   int
	structuralOK bool
}

// Analyse builds the Analysis of res under est on the named route ("" is
// DefaultRoute). The error is only for an unknown route.
func Analyse(res Result, est Estimator, route string, opts AnalyseOptions) (*Analysis, error) {
	if route == "" {
		route = DefaultRoute
	}
	rt, err := imagecost.Lookup(route)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrOptions, err)
	}
	if est == nil {
		return nil, fmt.Errorf("%w: no estimator", ErrOptions)
	}
	a := &Analysis{res: res, est: est, route: rt, call: opts.Call, handle: opts.HandleText}
	if a.handle == nil {
		a.handle = DshHandleText
	}
	a.blocks = make([]blockInfo, len(res.Content))
	for i, b := range res.Content {
		switch b.Type {
		case TypeText:
			text := b.Text
			if utf8.ValidString(text) {
				// The common case: no scan for invalid bytes.
			} else if bad := invalidBytes(text); bad > 0 {
				a.notes = append(a.notes, fmt.Sprintf("text block %d: %d bytes of invalid UTF-8 are counted and cut as U+FFFD replacement characters", i, bad))
				text = sanitize(text)
			}
			a.blocks[i] = blockInfo{kind: TypeText, text: text, n: len(text), cost: est.Prepare(text)}
			a.textBytes += int64(len(text))
		case TypeImage:
			a.images++
			a.blocks[i] = a.analyseImage(i, b, opts.HandlePaths[i])
		default:
			bi := blockInfo{}
			raw := b.Raw
			if len(raw) == 0 {
				raw = []byte(`{"type":` + strconv.Quote(b.Type) + `}`)
			}
			bi.structural, bi.structuralOK = est.Structural(raw)
			a.blocks[i] = bi
			a.unsupported = append(a.unsupported, fmt.Sprintf("block %d has type %q; only text and image blocks are retained", i, b.Type))
		}
	}
	return a, nil
}

// imageIdentity is the image's SHA-256: from a content-addressed file name
// (the attachment stores of Spillscope and dsh name files by it), else by
// hashing the bytes.
func imageIdentity(b Block) string {
	if b.Path != "" {
		base := filepath.Base(b.Path)
		if i := strings.IndexByte(base, '.'); i >= 0 {
			base = base[:i]
		}
		if isHex64(base) {
			return strings.ToLower(base)
		}
		if f, err := os.Open(b.Path); err == nil {
			defer f.Close()
			h := sha256.New()
			if _, err := io.Copy(h, io.LimitReader(f, 1<<30)); err == nil {
				return hex.EncodeToString(h.Sum(nil))
			}
		}
	}
	if b.Data != "" {
		// Hashed as it decodes: a large inline image is never held twice.
		if r, err := imagecost.Base64Reader(b.Data); err == nil {
			h := sha256.New()
			if _, err := io.Copy(h, r); err == nil {
				return hex.EncodeToString(h.Sum(nil))
			}
		}
	}
	return strings.Repeat("0", 64)
}

func isHex64(s string) bool {
	if len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}

func (a *Analysis) analyseImage(i int, b Block, handlePath string) blockInfo {
	bi := blockInfo{kind: TypeImage}
	var info imagecost.Info
	var err error
	have := false
	if b.Path != "" {
		info, err = imagecost.SniffFile(b.Path)
		if err == nil {
			have, bi.readable, bi.path = true, true, b.Path
		} else {
			a.unreadable = append(a.unreadable, fmt.Sprintf("image block %d: attachment path is not a readable image: %v", i, err))
		}
	} else {
		a.unreadable = append(a.unreadable, fmt.Sprintf("image block %d has no readable attachment path (inline data only); the complete result file could not name it", i))
	}
	if !have && b.Data != "" {
		info, err = imagecost.SniffBase64(b.Data)
		have = err == nil
	}
	if !have {
		if err == nil {
			err = errors.New("neither data nor path")
		}
		a.unpriced = append(a.unpriced, fmt.Sprintf("image block %d: dimensions unavailable: %v", i, err))
		return bi
	}
	if imagecost.Contradicts(b.MimeType, info) {
		a.notes = append(a.notes, fmt.Sprintf("image block %d: declared media type %q contradicts the bytes, which are %s", i, b.MimeType, info.MediaType))
	}
	facts := ImageFacts{SHA256: imageIdentity(b), Name: b.Name, MediaType: info.MediaType, Width: info.Width, Height: info.Height, HandlePath: handlePath}
	price, facts, err := PriceImage(a.est, a.route, facts, a.handle)
	bi.img = facts
	if err != nil {
		if errors.Is(err, imagecost.ErrNoImagePricing) {
			a.unpriced = append(a.unpriced, fmt.Sprintf("image block %d: route %q has no image token calculator", i, a.route.Name))
		} else {
			a.unpriced = append(a.unpriced, fmt.Sprintf("image block %d: route %q cannot price %dx%d: %v", i, a.route.Name, info.Width, info.Height, err))
		}
		return bi
	}
	bi.price, bi.priced = price, true
	return bi
}

// Run decides res under policy p with settings s, holding the Analysis.
func (a *Analysis) Run(p Policy, s Settings) Outcome {
	a.mu.Lock()
	defer a.mu.Unlock()
	if _, ok := p.(sketchPolicy); a.sketch != nil && !ok {
		// Only policies that price what they write from a summary's
		// tables may decide on one.
		a.sketch.failed = true
		return Outcome{Policy: p.Info().Name, Diagnostics: []string{}}
	}
	o := p.Decide(a, s)
	name, unit := nameAndUnit(p)
	o.Policy = name
	if o.BudgetUnit == "" {
		o.BudgetUnit = unit
	}
	if o.Diagnostics == nil {
		o.Diagnostics = []string{}
	}
	return o
}

// infoNamer is a policy that gives its name and unit without building its
// whole PolicyInfo: a sweep asks at every decision.
type infoNamer interface{ nameAndUnit() (name, unit string) }

func nameAndUnit(p Policy) (name, unit string) {
	if n, ok := p.(infoNamer); ok {
		return n.nameAndUnit()
	}
	info := p.Info()
	return info.Name, info.Unit
}

// Decide runs the named policy ("" is DefaultPolicy) with raw parameters.
// The error is for an unknown policy or a bad parameter.
func (a *Analysis) Decide(policy string, p Params) (Outcome, error) {
	pol, err := LookupPolicy(policy)
	if err != nil {
		return Outcome{}, err
	}
	s, err := pol.Info().Resolve(p)
	if err != nil {
		return Outcome{}, err
	}
	return a.Run(pol, s), nil
}

// Estimator is the estimator the Analysis prices with.
func (a *Analysis) Estimator() Estimator { return a.est }

// Route is the image route the Analysis prices on.
func (a *Analysis) Route() imagecost.Route { return a.route }

// Result is the analysed result.
func (a *Analysis) Result() Result { return a.res }

// Call is the host's context the Analysis was built with.
func (a *Analysis) Call() Call { return a.call }

// Image is what the Analysis knows of image block i: its facts, its price
// and whether it has one.
func (a *Analysis) Image(i int) (ImageFacts, ImagePrice, bool) {
	b := a.blocks[i]
	return b.img, b.price, b.priced
}

// Original prices the whole original result; see Outcome.OriginalTokens.
func (a *Analysis) Original() (Tokens, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.original(int(^uint(0) >> 1))
}

// original prices the original content, stopping once a lower bound exceeds
// threshold. Each block is priced as dsh prices a block standing alone.
func (a *Analysis) original(threshold int) (Tokens, bool) {
	t := Tokens{Estimator: a.est.Name()}
	exact := true
	for _, bi := range a.blocks {
		switch bi.kind {
		case TypeImage:
			if bi.priced {
				t.Images += bi.price.Total()
			} else {
				exact = false
			}
		case "":
			if bi.structuralOK {
				t.Text += bi.structural
			} else {
				exact = false
			}
		}
	}
	for i := range a.blocks {
		bi := &a.blocks[i]
		if bi.kind != TypeText {
			continue
		}
		n, ex := bi.cost.AtMost(max(threshold-t.Images-t.Text, 0))
		t.Text += n
		if !ex {
			exact = false
			// The rest at their cheapest keeps this a lower bound.
			for _, rest := range a.blocks[i+1:] {
				if rest.kind == TypeText {
					n, _ := rest.cost.AtMost(-1)
					t.Text += n
				}
			}
			break
		}
	}
	t.Total = t.Text + t.Images
	return t, exact
}

func (a *Analysis) isReadTool() bool {
	tools := a.call.ReadTools
	if tools == nil {
		tools = DefaultReadTools
	}
	return a.call.ToolName != "" && slices.Contains(tools, a.call.ToolName)
}

// passThrough is the host's step 0: blocked results, value replacements and
// the read tool's results pass through every spill policy.
func (a *Analysis) passThrough() (string, bool) {
	switch {
	case a.call.Blocked:
		return "the host blocked this result; it passes through", true
	case a.call.ValueReplaced:
		return "the host replaced this result's value; it passes through", true
	case a.isReadTool():
		return fmt.Sprintf("%q is the host's read tool; its results pass through", a.call.ToolName), true
	}
	return "", false
}

// keep is an outcome that leaves the original content in place.
func (a *Analysis) keep(status string, budget *int64, diags ...string) Outcome {
	threshold := int(^uint(0) >> 1)
	if budget != nil && *budget < int64(threshold) {
		threshold = int(*budget)
	}
	t, exact := a.original(threshold)
	o := Outcome{
		Status: status, Content: a.res.Content, Tokens: t,
		OriginalTokens: t.Total, OriginalTokensExact: exact, Budget: budget,
		Diagnostics: append(append([]string{}, a.notes...), diags...),
		Route:       a.route.Name, Estimator: a.est.Name(),
	}
	return o
}

// imageBlock is the model-facing copy of image block i: its path, never its
// bytes.
func (a *Analysis) imageBlock(i int) Block {
	orig := a.res.Content[i]
	return Block{Type: TypeImage, MimeType: a.blocks[i].img.MediaType, Path: orig.Path, Annotations: orig.Annotations}
}

// Reprice prices what an outcome shows on this Analysis's estimator and
// route: the yardstick that lets outcomes of different policies (each priced
// on its own estimator) compare. o must come from an Analysis of the same
// result.
func (a *Analysis) Reprice(o Outcome) Tokens {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.sketch != nil && o.plan != nil {
		return a.sketchReprice(o.plan)
	}
	if len(o.Spans) == 0 && sameContent(o.Content, a.res.Content) {
		// The original left in place: its price is in the tables already,
		// so a 10 MB result is not tokenized again for every policy.
		t, _ := a.original(int(^uint(0) >> 1))
		return t
	}
	if a.sketch != nil {
		// A sketch has no text to price written content with.
		a.sketch.failed = true
		return Tokens{Estimator: a.est.Name()}
	}
	t := Tokens{Estimator: a.est.Name()}
	src := map[int]int{} // content block -> original block, for images
	for _, sp := range o.Spans {
		if sp.Block >= 0 {
			src[sp.Out] = sp.Block
		}
	}
	// The notice is reported as priceBuilt reports it: its own price, at
	// most the price of the block that holds it.
	notice := map[int]int{}
	for _, sp := range o.Spans {
		if sp.Kind == SpanNotice && o.Content[sp.Out].Type == TypeText {
			notice[sp.Out] += a.noticeCount(o.Content, sp)
		}
	}
	for i, b := range o.Content {
		switch b.Type {
		case TypeText:
			n := a.writtenCount(o.Content, o.Spans, i)
			if nk, ok := notice[i]; ok {
				k := min(nk, n)
				t.Notice += k
				n -= k
			}
			t.Text += n
		case TypeImage:
			j, ok := src[i]
			if len(o.Spans) == 0 {
				j, ok = i, true
			}
			if ok && j < len(a.blocks) && a.blocks[j].priced {
				t.Images += a.blocks[j].price.Total()
			}
		default:
			if n, ok := a.est.Structural(b.Raw); ok {
				t.Text += n
			}
		}
	}
	t.Total = t.Text + t.Images + t.Notice
	return t
}

// sameContent reports whether two content slices are the same slice: an
// outcome that kept a result's own blocks, decided on another Analysis of
// that result.
func sameContent(x, y []Block) bool {
	return len(x) == len(y) && (len(x) == 0 || &x[0] == &y[0])
}
