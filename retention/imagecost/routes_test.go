package imagecost

import (
	"errors"
	"strings"
	"testing"
)

func TestRouteForModel(t *testing.T) {
	cases := []struct{ model, want string }{
		{"claude-sonnet-4-5", RouteAnthropic},
		{"claude-sonnet-4-5-20250929", RouteAnthropic},
		{"claude-sonnet-4-6", RouteAnthropic},
		{"claude-haiku-4-5-20251001", RouteAnthropic},
		{"claude-opus-4-1-20250805", RouteAnthropic},
		{"claude-3-5-sonnet-20241022", RouteAnthropic},
		{"claude-3-haiku-20240307", RouteAnthropic},
		{"claude-opus-4-7", RouteAnthropicHires},
		{"claude-opus-4-8", RouteAnthropicHires},
		{"claude-fable-5", RouteAnthropicHires},
		{"claude-mythos-5", RouteAnthropicHires},
		{"us.anthropic.claude-opus-4-7-v1:0", RouteAnthropicHires},
		{"anthropic/claude-sonnet-4-5", RouteAnthropic},
		{"Claude-Opus-4-8", RouteAnthropicHires},
		{"gpt-4o", RouteOpenAITile},
		{"gpt-4o-2024-08-06", RouteOpenAITile},
		{"chatgpt-4o-latest", RouteOpenAITile},
		{"gpt-4.1", RouteOpenAITile},
		{"gpt-4.1-2025-04-14", RouteOpenAITile},
		{"gpt-4.5-preview", RouteOpenAITile},
		{"gpt-4o-mini", RouteOpenAITile4oMini},
		{"gpt-4-turbo", RouteOpenAITileGPT4},
		{"o1", RouteOpenAITileO},
		{"o1-pro", RouteOpenAITileO},
		{"o3", RouteOpenAITileO},
		{"o3-mini", ""},
		{"computer-use-preview", RouteOpenAITileCUA},
		{"gpt-4.1-mini", RouteOpenAIPatch},
		{"gpt-4.1-nano-2025-04-14", RouteOpenAIPatch},
		{"o4-mini", RouteOpenAIPatch},
		{"gpt-5-mini", RouteOpenAIPatch},
		{"gpt-5-nano", RouteOpenAIPatch},
		{"gpt-5.2", RouteOpenAIPatch},
		{"gpt-5.2-codex", RouteOpenAIPatch},
		{"gpt-5.3-codex", RouteOpenAIPatch},
		{"gpt-5.4-mini", RouteOpenAIPatch},
		{"gpt-5.4", RouteOpenAIPatchHigh},
		{"gpt-5.5", RouteOpenAIPatchOriginal},
		{"gpt-5", RouteOpenAITileGPT5},
		{"gpt-5-chat-latest", RouteOpenAITileGPT5},
		{"openai/gpt-5", RouteOpenAITileGPT5},
		{"gemini-2.5-pro", RouteGemini},
		{"models/gemini-2.0-flash", RouteGemini},
		{"gemini-1.5-pro", RouteGemini},
		{"gemini-3-pro-preview", RouteGemini3High},
		{"gemini-3-flash-preview", RouteGemini3High},
		{"deepseek-chat", RouteDeepSeek},
		{"deepseek-reasoner", RouteDeepSeek},
		{"deepseek-v4-flash", RouteDeepSeekV4},
		{"deepseek-v4-flash-vision-exp", RouteDeepSeekV4},
		{"deepseek-v4.1-flash", RouteDeepSeekV41},
		{"deepseek-flash", RouteDeepSeekV41},
		{"deepseek-pro", RouteDeepSeekV41},
		{"DeepSeek-V4-Pro", RouteDeepSeekV4},
		{"llama-3.1-70b", ""},
		{"", ""},
		{"   ", ""},
	}
	for _, tc := range cases {
		t.Run(tc.model, func(t *testing.T) {
			got := RouteForModel(tc.model)
			if got != tc.want {
				t.Errorf("RouteForModel(%q) = %q, want %q", tc.model, got, tc.want)
			}
			if got != "" {
				if _, err := Lookup(got); err != nil {
					t.Errorf("RouteForModel(%q) names a route Lookup rejects: %v", tc.model, err)
				}
			}
		})
	}
}

func TestLookup(t *testing.T) {
	for _, name := range []string{"anthropic", "anthropic-hires", "anthropic-legacy", "openai-tile",
		"openai-tile-low", "openai-patch", "gemini", "gemini3-low", "gemini3-medium", "gemini3-high", "deepseek", "deepseek-v4", "deepseek-v4.1"} {
		t.Run(name, func(t *testing.T) {
			r, err := Lookup(name)
			if err != nil || r.Name != name {
				t.Fatalf("Lookup(%q) = %+v, %v", name, r, err)
			}
		})
	}
	t.Run("case and space", func(t *testing.T) {
		if r, err := Lookup("  OpenAI-Tile "); err != nil || r.Name != RouteOpenAITile {
			t.Errorf("Lookup = %+v, %v", r, err)
		}
	})
	t.Run("unknown", func(t *testing.T) {
		_, err := Lookup("claude")
		if !errors.Is(err, ErrUnknownRoute) || !strings.Contains(err.Error(), "anthropic-hires") {
			t.Errorf("err = %v, want ErrUnknownRoute listing the known routes", err)
		}
	})
}

func TestRoutesTable(t *testing.T) {
	seen := map[string]bool{}
	for _, r := range Routes() {
		t.Run(r.Name, func(t *testing.T) {
			if seen[r.Name] {
				t.Errorf("duplicate route %q", r.Name)
			}
			seen[r.Name] = true
			if r.Provider == "" || r.Source == "" || r.Note == "" {
				t.Errorf("route %q lacks provider, source or note: %+v", r.Name, r)
			}
			if r.Encoding != DefaultEncoding && r.Encoding != LegacyOpenAIEncoding && r.Encoding != MeterEstimator {
				t.Errorf("route %q encoding %q", r.Name, r.Encoding)
			}
			if r.Priced() != (r.Calc != nil) {
				t.Errorf("Priced() disagrees with Calc")
			}
		})
	}
	if d, _ := Lookup(RouteDeepSeek); d.Priced() {
		t.Errorf("deepseek has a calculator; DeepSeek publishes no image rule")
	}
	// Routes returns a copy: callers cannot edit the table.
	rs := Routes()
	rs[0].Name = "mutated"
	if Routes()[0].Name == "mutated" {
		t.Errorf("Routes exposes the internal table")
	}
}

func TestPrice(t *testing.T) {
	if got, err := Price("anthropic", 200, 200); err != nil || got != 64 {
		t.Errorf("Price(anthropic, 200, 200) = %d, %v", got, err)
	}
	if _, err := Price("deepseek", 200, 200); !errors.Is(err, ErrNoImagePricing) {
		t.Errorf("Price(deepseek): err = %v, want ErrNoImagePricing", err)
	}
	if _, err := Price("nope", 200, 200); !errors.Is(err, ErrUnknownRoute) {
		t.Errorf("Price(nope): err = %v, want ErrUnknownRoute", err)
	}
}
