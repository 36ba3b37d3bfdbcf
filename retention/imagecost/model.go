package imagecost

import "strings"

// RouteForModel picks the route for a model name as sessions record it
// ("claude-sonnet-4-5-20250929", "gpt-4o-2024-08-06", "models/gemini-2.5-pro",
// "openai/gpt-5", "us.anthropic.claude-opus-4-7-v1:0", ...). It returns "" for
// a model it does not know; callers then use the user's choice or their
// default route, and say so.
//
// The mapping follows the providers' model lists on the pages cited by each
// route: Anthropic's high-resolution list (Opus 4.7, Opus 4.8, Fable 5,
// Mythos 5), OpenAI's "Model sizing behavior" table, and Gemini 3's default
// media resolution for images (high). Claude 3.x maps to "anthropic" too: the
// current page prices every model it does not list at the standard tier, and
// the area formula of the Claude 3 era was published as an approximation.
func RouteForModel(model string) string { return RouteFor("", model) }

// RouteFor picks the route for a session's recorded provider and model: the
// one function every caller uses. A DeepSeek provider or model name maps to
// dsh's DeepSeek routes: v4.1 for deepseek-flash, deepseek-pro and
// deepseek-v4.1-*, v4 for the other deepseek-v4-* vision models, and the
// unpriced deepseek route for the text-only chat and reasoner models.
func RouteFor(provider, model string) string {
	m := normalizeModel(model)
	if strings.HasPrefix(m, "deepseek") || (m != "" && strings.Contains(strings.ToLower(provider), "deepseek")) {
		return deepSeekRoute(m)
	}
	switch {
	case m == "":
		return ""
	case strings.HasPrefix(m, "claude"):
		return claudeRoute(m)
	case strings.HasPrefix(m, "gemini"):
		if strings.HasPrefix(m, "gemini-3") {
			return RouteGemini3High
		}
		return RouteGemini
	}
	return openAIRoute(m)
}

func deepSeekRoute(m string) string {
	switch {
	case strings.HasPrefix(m, "deepseek-v4.1"), strings.HasPrefix(m, "deepseek-v4-1"),
		m == "deepseek-flash", m == "deepseek-pro", strings.HasPrefix(m, "deepseek-flash-"), strings.HasPrefix(m, "deepseek-pro-"):
		return RouteDeepSeekV41
	case strings.HasPrefix(m, "deepseek-v4"):
		return RouteDeepSeekV4
	}
	return RouteDeepSeek
}

// normalizeModel lower-cases a recorded model name and strips provider
// prefixes: "models/", "openai/", "anthropic.", "us.anthropic.", and a
// Bedrock or Vertex "@"/":" version suffix is left for prefix matching.
// NormalizeModel is a model name as every model table here matches it:
// lower case, without a provider path ("openai/", "models/") or a Bedrock
// prefix ("us.anthropic.").
func NormalizeModel(model string) string { return normalizeModel(model) }

func normalizeModel(model string) string {
	m := strings.ToLower(strings.TrimSpace(model))
	if i := strings.LastIndexByte(m, '/'); i >= 0 {
		m = m[i+1:]
	}
	// Bedrock ids: "anthropic.claude-...", "us.anthropic.claude-...".
	if i := strings.Index(m, "anthropic."); i >= 0 {
		m = m[i+len("anthropic."):]
	}
	return m
}

func claudeRoute(m string) string {
	for _, p := range []string{"claude-opus-4-7", "claude-opus-4.7", "claude-opus-4-8", "claude-opus-4.8",
		"claude-fable-5", "claude-mythos-5"} {
		if strings.HasPrefix(m, p) {
			return RouteAnthropicHires
		}
	}
	// Later generations keep the high-resolution tier ("Claude Opus 4.7 and
	// later models").
	for _, p := range []string{"claude-opus-5", "claude-sonnet-5", "claude-haiku-5", "claude-fable-", "claude-mythos-",
		"claude-opus-6", "claude-sonnet-6"} {
		if strings.HasPrefix(m, p) {
			return RouteAnthropicHires
		}
	}
	return RouteAnthropic
}

func openAIRoute(m string) string {
	has := func(p string) bool { return strings.HasPrefix(m, p) }
	switch {
	case has("gpt-5.5"):
		return RouteOpenAIPatchOriginal
	case has("gpt-5.4-mini"), has("gpt-5.4-nano"):
		return RouteOpenAIPatch
	case has("gpt-5.4"):
		return RouteOpenAIPatchHigh
	case has("gpt-5-mini"), has("gpt-5-nano"), has("gpt-5.2"), has("gpt-5.3-codex"),
		has("gpt-5-codex-mini"), has("gpt-5.1-codex-mini"),
		has("gpt-4.1-mini"), has("gpt-4.1-nano"), has("o4-mini"):
		return RouteOpenAIPatch
	case has("gpt-5"):
		return RouteOpenAITileGPT5
	case has("gpt-4o-mini"):
		return RouteOpenAITile4oMini
	case has("gpt-4o"), has("chatgpt-4o"), has("gpt-4.1"), has("gpt-4.5"):
		return RouteOpenAITile
	case has("gpt-4-turbo"), has("gpt-4-vision"), has("gpt-4-1106-vision"):
		return RouteOpenAITileGPT4
	case has("o1-mini"), has("o3-mini"):
		return "" // text-only models: no image input at all
	case has("o1"), has("o3"):
		return RouteOpenAITileO
	case has("computer-use-preview"):
		return RouteOpenAITileCUA
	}
	return ""
}
