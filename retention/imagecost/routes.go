package imagecost

import (
	"errors"
	"fmt"
	"sort"
	"strings"
)

// Calculator prices one image of width x height pixels (the dimensions the
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
	// Encoding is the tiktoken encoding used to estimate text on this route.
	Encoding string `json:"encoding"`
	// Source names the documentation the calculator follows (title, URL,
	// date read).
	Source string `json:"source"`
	// Note says what the rule covers and any reading the docs left open.
	Note string `json:"note"`
	// Calc prices an image; nil means the provider publishes no image rule,
	// and the caller must say so instead of guessing.
	Calc Calculator `json:"-"`
}

// Priced reports whether the route has an image calculator.
func (r Route) Priced() bool { return r.Calc != nil }

// ErrUnknownRoute reports a route name that is not in Routes().
var ErrUnknownRoute = errors.New("imagecost: unknown route")

// ErrNoImagePricing reports a route whose provider publishes no image rule.
var ErrNoImagePricing = errors.New("imagecost: route has no published image pricing")

// Default text encoding of every route: all current providers' token counts
// are estimated with o200k_base, the encoding of OpenAI's current models.
const DefaultEncoding = "o200k_base"

// Route names.
const (
	RouteAnthropic       = "anthropic"
	RouteAnthropicHires  = "anthropic-hires"
	RouteAnthropicLegacy = "anthropic-legacy"
	RouteOpenAITile      = "openai-tile"
	RouteOpenAITileLow   = "openai-tile-low"
	RouteOpenAIPatch     = "openai-patch"
	RouteGemini          = "gemini"
	RouteGemini3Low      = "gemini3-low"
	RouteGemini3Medium   = "gemini3-medium"
	RouteGemini3High     = "gemini3-high"
	RouteDeepSeek        = "deepseek"
)

var routeTable = []Route{
	{
		Name: RouteAnthropic, Provider: "anthropic", Encoding: DefaultEncoding,
		Source: sourceAnthropic,
		Note:   "Claude, current rule: ceil(w/28)*ceil(h/28) visual tokens; standard tier, long edge <= 1568 px and <= 1568 tokens",
		Calc:   AnthropicTokens,
	},
	{
		Name: RouteAnthropicHires, Provider: "anthropic", Encoding: DefaultEncoding,
		Source: sourceAnthropic,
		Note:   "Claude high-resolution tier (newest models): 28 px patches, long edge <= 2576 px and <= 4784 tokens",
		Calc:   AnthropicHiresTokens,
	},
	{
		Name: RouteAnthropicLegacy, Provider: "anthropic", Encoding: DefaultEncoding,
		Source: sourceAnthropicLegacy,
		Note:   "older Claude rule: ceil(w*h/750) after scaling to long edge <= 1568 px and about 1.15 megapixels",
		Calc:   AnthropicLegacyTokens,
	},
	{
		Name: RouteOpenAITile, Provider: "openai", Encoding: DefaultEncoding,
		Source: sourceOpenAI,
		Note:   "GPT-4o / GPT-4.1 detail high: fit 2048x2048, shortest side to 768, 85 + 170 per 512 px tile",
		Calc:   OpenAITileTokens,
	},
	{
		Name: RouteOpenAITileLow, Provider: "openai", Encoding: DefaultEncoding,
		Source: sourceOpenAI,
		Note:   "GPT-4o / GPT-4.1 detail low: a fixed 85 tokens whatever the size",
		Calc:   OpenAITileLowTokens,
	},
	{
		Name: RouteOpenAIPatch, Provider: "openai", Encoding: DefaultEncoding,
		Source: sourceOpenAI,
		Note:   "gpt-4.1-mini/nano, o4-mini, gpt-5 family: 32 px patches, budget 1536, scaled down as documented; reports patches (the model's multiplier applies to billing only)",
		Calc:   OpenAIPatchTokens,
	},
	{
		Name: RouteGemini, Provider: "google", Encoding: DefaultEncoding,
		Source: sourceGemini,
		Note:   "Gemini 2.x: 258 tokens when both sides <= 384 px, else 258 per 768x768 tile (tiles = ceil(w/768)*ceil(h/768))",
		Calc:   GeminiTokens,
	},
	{
		Name: RouteGemini3Low, Provider: "google", Encoding: DefaultEncoding,
		Source: sourceGemini3,
		Note:   "Gemini 3 media_resolution low: a fixed 280 tokens per image",
		Calc:   fixed(280),
	},
	{
		Name: RouteGemini3Medium, Provider: "google", Encoding: DefaultEncoding,
		Source: sourceGemini3,
		Note:   "Gemini 3 media_resolution medium: a fixed 560 tokens per image",
		Calc:   fixed(560),
	},
	{
		Name: RouteGemini3High, Provider: "google", Encoding: DefaultEncoding,
		Source: sourceGemini3,
		Note:   "Gemini 3 media_resolution high: a fixed 1120 tokens per image",
		Calc:   fixed(1120),
	},
	{
		Name: RouteDeepSeek, Provider: "deepseek", Encoding: DefaultEncoding,
		Source: "DeepSeek API docs (api-docs.deepseek.com): no image input pricing published",
		Note:   "no published image rule: images are not priced and retention keeps the result whole",
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
// ignored), or ErrUnknownRoute.
func Lookup(name string) (Route, error) {
	r, ok := routesByName[strings.ToLower(strings.TrimSpace(name))]
	if !ok {
		return Route{}, fmt.Errorf("%w %q (known: %s)", ErrUnknownRoute, name, strings.Join(RouteNames(), ", "))
	}
	return r, nil
}

// Routes returns every route, in a stable order (the order of IMAGE-PRICING.md).
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

// Price prices an image on the named route. A route without a calculator is
// ErrNoImagePricing.
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

func fixed(tokens int) Calculator {
	return func(width, height int) (int, error) {
		if err := CheckDimensions(width, height); err != nil {
			return 0, err
		}
		return tokens, nil
	}
}
