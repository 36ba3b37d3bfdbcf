package retention

import "testing"

func TestContextWindow(t *testing.T) {
	tests := []struct {
		model string
		want  int64
		ok    bool
	}{
		{"claude-opus-4-6", 200_000, true},
		{"claude-sonnet-4.6", 200_000, true},
		{"us.anthropic.claude-haiku-4-5-20251001-v1:0", 200_000, true},
		{"gpt-5.5", 400_000, true},
		{"gpt-5.3-codex", 400_000, true},
		{"openai/gpt-4o-mini", 128_000, true},
		{"gpt-4.1", 1_047_576, true},
		{"o3", 200_000, true},
		{"gemini-2.5-pro", 1_048_576, true},
		{"gemini-3-flash-preview", 1_048_576, true},
		{"models/gemini-1.5-pro-002", 2_097_152, true},
		{"deepseek-v4-flash", 1_000_000, true},
		{"deepseek-chat", 128_000, true},
		{"", 0, false},
		{"cli-mock", 0, false},
		{"llama-3-70b", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.model, func(t *testing.T) {
			got, ok := ContextWindow(tt.model)
			if got != tt.want || ok != tt.ok {
				t.Errorf("ContextWindow(%q) = %d, %v; want %d, %v", tt.model, got, ok, tt.want, tt.ok)
			}
		})
	}
}
