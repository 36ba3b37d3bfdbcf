package retention

import (
	"strings"

	"spillscope/retention/imagecost"
)

// Context-window sources: where a call's window came from.
const (
	// WindowFromLog: the log records the window (Codex CLI's
	// model_context_window, dsh's request/context).
	WindowFromLog = "log"
	// WindowFromTable: the log records none; the model's documented window
	// (ContextWindow).
	WindowFromTable = "table"
)

// modelWindow is one family of models and its documented context window
// in tokens (input and output together, as the providers state it).
type modelWindow struct {
	prefix string
	tokens int64
}

// modelWindows are the documented windows of the families the harnesses
// run, most specific prefix first. A window the provider offers only on
// request (Claude's 1M beta) is not assumed.
var modelWindows = []modelWindow{
	// Anthropic: every Claude 3 and 4 model has a 200K window.
	{"claude-", 200_000},
	// OpenAI: GPT-5 and its Codex variants 400K (272K in, 128K out); the
	// o-series 200K; GPT-4.1 about 1M; GPT-4o 128K.
	{"gpt-5", 400_000},
	{"codex-mini", 200_000},
	{"o3", 200_000},
	{"o4-mini", 200_000},
	{"gpt-4.1", 1_047_576},
	{"gpt-4o", 128_000},
	// Google: Gemini 1.5 Pro 2M; 1.5 Flash, 2.0, 2.5 and 3 about 1M.
	{"gemini-1.5-pro", 2_097_152},
	{"gemini-1.5-flash", 1_048_576},
	{"gemini-2.", 1_048_576},
	{"gemini-3", 1_048_576},
	// DeepSeek: V4 1M (the window dsh records for it); the V3-based chat
	// and reasoner models 128K.
	{"deepseek-v4", 1_000_000},
	{"deepseek-flash", 1_000_000},
	{"deepseek-pro", 1_000_000},
	{"deepseek-v3", 128_000},
	{"deepseek-chat", 128_000},
	{"deepseek-reasoner", 128_000},
}

// ContextWindow is the documented context window of a model, in tokens,
// for logs that record none; ok is false for a model outside the table.
func ContextWindow(model string) (tokens int64, ok bool) {
	m := imagecost.NormalizeModel(model)
	if m == "" {
		return 0, false
	}
	for _, w := range modelWindows {
		if strings.HasPrefix(m, w.prefix) {
			return w.tokens, true
		}
	}
	return 0, false
}
