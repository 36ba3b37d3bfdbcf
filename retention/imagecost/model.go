package imagecost

import "strings"

// RouteForModel picks the route for a model name as sessions record it
// ("claude-sonnet-4-5-20250929", "gpt-4o-2024-08-06", "models/gemini-2.5-pro",
// "openai/gpt-5", ...). It returns "" for a model it does not know; callers
// then fall back to the user's choice or the default route.
func RouteForModel(model string) string {
	m := strings.ToLower(strings.TrimSpace(model))
	// Drop a provider or resource prefix: "models/gemini-2.5-pro",
	// "anthropic/claude-3-opus", "openai/gpt-4o".
	if i := strings.LastIndexByte(m, '/'); i >= 0 {
		m = m[i+1:]
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
	case strings.HasPrefix(m, "deepseek"):
		return RouteDeepSeek
	}
	return openAIRoute(m)
}

// claudeRoute separates the models Anthropic priced by area (Claude 3 and
// 3.x) from those priced by 28 px patches, and the high-resolution models.
func claudeRoute(m string) string {
	switch {
	case strings.HasPrefix(m, "claude-3"), strings.HasPrefix(m, "claude-2"),
		strings.HasPrefix(m, "claude-instant"), m == "claude":
		return RouteAnthropicLegacy
	case strings.HasPrefix(m, "claude-opus-4-7"), strings.HasPrefix(m, "claude-opus-4-8"):
		return RouteAnthropicHires
	}
	return RouteAnthropic
}

func openAIRoute(m string) string {
	has := func(p string) bool { return strings.HasPrefix(m, p) }
	switch {
	case has("gpt-4.1-mini"), has("gpt-4.1-nano"), has("o4-mini"), has("gpt-5"):
		return RouteOpenAIPatch
	case has("gpt-4o"), has("gpt-4.1"), has("gpt-4-turbo"), has("gpt-4-vision"), has("chatgpt-4o"),
		has("o1"), has("o3"), has("computer-use"):
		return RouteOpenAITile
	}
	return ""
}
