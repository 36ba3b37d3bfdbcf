package imagecost

import (
	"errors"
	"fmt"
	"sort"
	"strings"
)

// Calculator prices one image of width x height pixels (the dimensions its
// header declares, before any provider-side resize) in the provider's
// tokens. Calculators are pure; they return ErrDimensions for sizes that
// CheckDimensions rejects.
type Calculator func(width, height int) (int, error)

// Route is one way of pricing an image: a provider's published rule, the text
// encoding that goes with it, and where the rule comes from.
type Route struct {
	// Name is what --route and Options.Route take.
	Name string `json:"name"`
	// Provider is the company whose rule this is.
	Provider string `json:"provider"`
	// Encoding names the text estimator of this route (a tiktoken encoding,
	// or dsh's token meter on dsh's DeepSeek routes); retention resolves it.
	Encoding string `json:"encoding"`
	// Source names the documentation the calculator follows (title, URL,
	// date read).
	Source string `json:"source"`
	// Note says what the rule covers, which models use it and any reading
	// the docs left open.
	Note string `json:"note"`
	// Calc prices an image; nil means the provider publishes no image rule,
	// and the caller must say so instead of guessing.
	Calc Calculator `json:"-"`
	// Request is the size the route sends an image at (nil: as it is); Calc
	// already prices that size, and handle texts name it.
	Request func(width, height int) (int, int) `json:"-"`
}

// RequestSize is the size the route sends a width x height image at.
func (r Route) RequestSize(width, height int) (int, int) {
	if r.Request == nil {
		return width, height
	}
	return r.Request(width, height)
}

// Priced reports whether the route has an image calculator.
func (r Route) Priced() bool { return r.Calc != nil }

// ErrUnknownRoute reports a route name that is not in Routes().
var ErrUnknownRoute = errors.New("imagecost: unknown route")

// ErrNoImagePricing reports a route whose provider publishes no image rule.
var ErrNoImagePricing = errors.New("imagecost: route has no published image pricing")

// Text encodings a route may name.
const (
	// DefaultEncoding is every route's encoding unless it says otherwise:
	// o200k_base, the encoding of OpenAI's current models and the closest
	// public stand-in for the others' tokenizers.
	DefaultEncoding = "o200k_base"
	// LegacyOpenAIEncoding is the encoding of GPT-4 Turbo and older.
	LegacyOpenAIEncoding = "cl100k_base"
	// MeterEstimator is dsh's token meter, the estimator of dsh's DeepSeek
	// routes (no public DeepSeek tokenizer to stand in for).
	MeterEstimator = "dsh-meter"
)

// Route names.
const (
	RouteAnthropic           = "anthropic"
	RouteAnthropicHires      = "anthropic-hires"
	RouteAnthropicLegacy     = "anthropic-legacy"
	RouteOpenAITile          = "openai-tile"
	RouteOpenAITileLow       = "openai-tile-low"
	RouteOpenAITileGPT5      = "openai-tile-gpt5"
	RouteOpenAITile4oMini    = "openai-tile-4o-mini"
	RouteOpenAITileO         = "openai-tile-o"
	RouteOpenAITileCUA       = "openai-tile-cua"
	RouteOpenAITileGPT4      = "openai-tile-gpt4"
	RouteOpenAIPatch         = "openai-patch"
	RouteOpenAIPatchHigh     = "openai-patch-high"
	RouteOpenAIPatchOriginal = "openai-patch-original"
	RouteGemini              = "gemini"
	RouteGemini3Low          = "gemini3-low"
	RouteGemini3Medium       = "gemini3-medium"
	RouteGemini3High         = "gemini3-high"
	RouteGemini3UltraHigh    = "gemini3-ultra-high"
	RouteDeepSeek            = "deepseek"
	RouteDeepSeekV4          = "deepseek-v4"
	RouteDeepSeekV41         = "deepseek-v4.1"
)

var routeTable = []Route{
	{
		Name: RouteAnthropic, Provider: "anthropic", Encoding: DefaultEncoding, Source: sourceAnthropic,
		Note: "Claude, current rule, standard tier (every model without high-resolution support): ceil(w/28)*ceil(h/28) visual tokens after resizing to at most 1568 px and 1568 tokens",
		Calc: AnthropicTokens,
	},
	{
		Name: RouteAnthropicHires, Provider: "anthropic", Encoding: DefaultEncoding, Source: sourceAnthropic,
		Note: "Claude high-resolution tier (Opus 4.7, Opus 4.8, Fable 5, Mythos 5 and later): 28 px patches, at most 2576 px and 4784 tokens",
		Calc: AnthropicHiresTokens,
	},
	{
		Name: RouteAnthropicLegacy, Provider: "anthropic", Encoding: DefaultEncoding, Source: sourceAnthropicLegacy,
		Note: "the area rule published in the Claude 3 era: ceil(w*h/750) after scaling to at most 1568 px and 1,600 tokens; kept to compare with figures computed under it, not chosen for any model",
		Calc: AnthropicLegacyTokens,
	},
	{
		Name: RouteOpenAITile, Provider: "openai", Encoding: DefaultEncoding, Source: sourceOpenAI,
		Note: "GPT-4o, GPT-4.1, GPT-4.5 at detail high: fit 2048x2048, shortest side to 768, 85 + 170 per 512 px tile",
		Calc: OpenAITileTokens,
	},
	{
		Name: RouteOpenAITileLow, Provider: "openai", Encoding: DefaultEncoding, Source: sourceOpenAI,
		Note: "GPT-4o, GPT-4.1, GPT-4.5 at detail low: a fixed 85 tokens",
		Calc: OpenAITileLowTokens,
	},
	{
		Name: RouteOpenAITileGPT5, Provider: "openai", Encoding: DefaultEncoding, Source: sourceOpenAI,
		Note: "gpt-5 and gpt-5-chat-latest at detail high: the tile rule with 70 + 140 per tile (gpt-5.1 and gpt-5-codex, which the guide does not list, are priced as gpt-5)",
		Calc: OpenAITileGPT5Tokens,
	},
	{
		Name: RouteOpenAITile4oMini, Provider: "openai", Encoding: DefaultEncoding, Source: sourceOpenAI,
		Note: "gpt-4o-mini at detail high: the tile rule with 2833 + 5667 per tile",
		Calc: OpenAITile4oMiniTokens,
	},
	{
		Name: RouteOpenAITileO, Provider: "openai", Encoding: DefaultEncoding, Source: sourceOpenAI,
		Note: "o1, o1-pro, o3 at detail high: the tile rule with 75 + 150 per tile",
		Calc: OpenAITileOTokens,
	},
	{
		Name: RouteOpenAITileCUA, Provider: "openai", Encoding: DefaultEncoding, Source: sourceOpenAI,
		Note: "computer-use-preview at detail high: the tile rule with 65 + 129 per tile",
		Calc: OpenAITileCUATokens,
	},
	{
		Name: RouteOpenAITileGPT4, Provider: "openai", Encoding: LegacyOpenAIEncoding, Source: sourceOpenAI,
		Note: "GPT-4 Turbo / GPT-4 Vision at detail high: the 85 + 170 tile rule with the cl100k_base text encoding of those models",
		Calc: OpenAITileTokens,
	},
	{
		Name: RouteOpenAIPatch, Provider: "openai", Encoding: DefaultEncoding, Source: sourceOpenAI,
		Note: "gpt-4.1-mini/nano, o4-mini, gpt-5-mini/nano, gpt-5.4-mini/nano, gpt-5.2, codex minis: 32 px patches, budget 1536 patches or 2048 px; figures are patches (billing multiplies by the model's factor)",
		Calc: OpenAIPatchTokens,
	},
	{
		Name: RouteOpenAIPatchHigh, Provider: "openai", Encoding: DefaultEncoding, Source: sourceOpenAI,
		Note: "gpt-5.4 (default) and gpt-5.5 at detail high: 32 px patches, budget 2500 patches or 2048 px",
		Calc: OpenAIPatchHighTokens,
	},
	{
		Name: RouteOpenAIPatchOriginal, Provider: "openai", Encoding: DefaultEncoding, Source: sourceOpenAI,
		Note: "gpt-5.5 (default) and gpt-5.4 at detail original: 32 px patches, budget 10000 patches or 6000 px",
		Calc: OpenAIPatchOriginalTokens,
	},
	{
		Name: RouteGemini, Provider: "google", Encoding: DefaultEncoding, Source: sourceGemini,
		Note: "Gemini 2.x: 258 tokens when both sides <= 384 px, else fit 3072x3072 and 258 per tile of side clamp(short side/1.5, 256, 768) (Google's published Gemini 1.5 crop rule; it publishes none for 2.x)",
		Calc: GeminiTokens,
	},
	{
		Name: RouteGemini3Low, Provider: "google", Encoding: DefaultEncoding, Source: sourceGemini3,
		Note: "Gemini 3 media_resolution low: a fixed 280 tokens per image",
		Calc: fixed(Gemini3LowTokens),
	},
	{
		Name: RouteGemini3Medium, Provider: "google", Encoding: DefaultEncoding, Source: sourceGemini3,
		Note: "Gemini 3 media_resolution medium: a fixed 560 tokens per image",
		Calc: fixed(Gemini3MediumTokens),
	},
	{
		Name: RouteGemini3High, Provider: "google", Encoding: DefaultEncoding, Source: sourceGemini3,
		Note: "Gemini 3 media_resolution high, the default for images: a fixed 1120 tokens per image",
		Calc: fixed(Gemini3HighTokens),
	},
	{
		Name: RouteGemini3UltraHigh, Provider: "google", Encoding: DefaultEncoding, Source: sourceGemini3,
		Note: "Gemini 3 media_resolution ultra_high (set per part only): a fixed 2240 tokens per image",
		Calc: fixed(Gemini3UltraHighTokens),
	},
	{
		Name: RouteDeepSeekV4, Provider: "deepseek", Encoding: MeterEstimator, Source: sourceDeepSeek,
		Note:    "DeepSeek v4 vision models as dsh prices them: the request copy (within 640,000 pixels, never enlarged), then 14 px patches downsampled 3:1, at most 384 tokens with the pad-to-4 worst case; text on dsh's token meter",
		Calc:    DeepSeekV4RouteTokens,
		Request: deepSeekRequest,
	},
	{
		Name: RouteDeepSeekV41, Provider: "deepseek", Encoding: MeterEstimator, Source: sourceDeepSeek,
		Note:    "DeepSeek v4.1 vision models (deepseek-flash, deepseek-v4.1-*) as dsh prices them: the request copy (within 640,000 pixels, never enlarged), then 14 px patches downsampled 3:1, at most 1,024 tokens; text on dsh's token meter",
		Calc:    DeepSeekV41RouteTokens,
		Request: deepSeekRequest,
	},
	{
		Name: RouteDeepSeek, Provider: "deepseek", Encoding: DefaultEncoding,
		Source: "DeepSeek API docs (https://api-docs.deepseek.com), models and pricing pages, read 2026-11-30: no image input rule published",
		Note:   "no published image rule: images are not priced and retention keeps such results whole",
	},
}

var routesByName = func() map[string]Route {
	m := make(map[string]Route, len(routeTable))
	for _, r := range routeTable {
		m[r.Name] = r
	}
	return m
}()

// Lookup returns the route called name (case-insensitive, surrounding space
// ignored), or an error wrapping ErrUnknownRoute that lists the known names.
func Lookup(name string) (Route, error) {
	r, ok := routesByName[strings.ToLower(strings.TrimSpace(name))]
	if !ok {
		return Route{}, fmt.Errorf("%w %q (known: %s)", ErrUnknownRoute, name, strings.Join(RouteNames(), ", "))
	}
	return r, nil
}

// Routes returns every route in a stable order: Anthropic, OpenAI, Google,
// then routes without image pricing.
func Routes() []Route {
	out := make([]Route, len(routeTable))
	copy(out, routeTable)
	return out
}

// RouteNames returns the route names sorted alphabetically.
func RouteNames() []string {
	names := make([]string, 0, len(routeTable))
	for _, r := range routeTable {
		names = append(names, r.Name)
	}
	sort.Strings(names)
	return names
}

// Price prices a width x height image on the named route. A route without a
// calculator is ErrNoImagePricing; a bad name is ErrUnknownRoute.
func Price(route string, width, height int) (int, error) {
	r, err := Lookup(route)
	if err != nil {
		return 0, err
	}
	if r.Calc == nil {
		return 0, fmt.Errorf("%w: %s", ErrNoImagePricing, r.Name)
	}
	return r.Calc(width, height)
}

// fixed is a calculator for rules that charge the same for every image.
func fixed(tokens int) Calculator {
	return func(width, height int) (int, error) {
		if err := CheckDimensions(width, height); err != nil {
			return 0, err
		}
		return tokens, nil
	}
}
