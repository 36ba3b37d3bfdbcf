package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"spillscope/retention"
)

// The codex and claude-code policies through `spillscope retain`: their
// parameters under the harnesses' own names, and bad values refused with
// exit 2 and an error naming the parameter.
func TestRetainHarnessPolicies(t *testing.T) {
	big := strings.Repeat("GET /api/v1/items?page=3 200 OK in 12ms\n", 2000) // 80,000 bytes
	in := resultJSONText(t, text(big))
	tests := []struct {
		name   string
		args   []string
		status string
		unit   string
		prefix string // of the first content block's text
		diag   string
	}{
		{"codex at the model's catalogue limit", []string{"--policy", "codex"}, retention.StatusReplaced, "tokens", "Warning: truncated output (original token count: 20000)\nTotal output lines: 2000\n\n", "applied: Tokens(10000)"},
		{"codex limit and mode", []string{"--policy", "codex", "--param", "limit=4000", "--param", "mode=bytes"}, retention.StatusReplaced, "bytes", "Warning: truncated output", "applied: Bytes(4000)"},
		{"codex --budget is limit", []string{"--policy", "codex", "--budget", "30000"}, retention.StatusWithinBudget, "tokens", "GET /api", ""},
		{"codex model", []string{"--policy", "codex", "--param", "model=gpt-5.2"}, retention.StatusReplaced, "bytes", "Warning", "applied: Bytes(10000)"},
		{"codex tool_output_token_limit", []string{"--policy", "codex", "--param", "model=gpt-5.2", "--param", "tool_output_token_limit=100"}, retention.StatusReplaced, "bytes", "Warning", "applied: Bytes(400)"},
		{"codex history", []string{"--policy", "codex", "--param", "history=true"}, retention.StatusReplaced, "tokens", "GET /api", "applied: Tokens(12000)"},
		{"codex mcp", []string{"--policy", "codex", "--param", "mcp=true", "--param", "mode=bytes", "--param", "limit=65536"}, retention.StatusReplaced, "bytes", `{"content":[{"text":"GET /api`, "MCP rule"},
		{"claude-code under 50000 characters of Bash", []string{"--policy", "claude-code", "--tool", "Bash", "--param", "threshold=100000"}, retention.StatusReplaced, "chars", "<persisted-output>\nOutput too large (78.1KB). Full output saved to: /p/s/tool-results/toolu_1.txt\n\nPreview (first 2KB):\nGET /api", "threshold 30000 characters (Bash)"},
		{"claude-code tool=Bash", []string{"--policy", "claude-code", "--param", "tool=Bash"}, retention.StatusReplaced, "chars", "<persisted-output>", "(Bash)"},
		{"claude-code over the ceiling", []string{"--policy", "claude-code"}, retention.StatusReplaced, "chars", "<persisted-output>", "threshold 50000 characters (other)"},
		{"claude-code threshold", []string{"--policy", "claude-code", "--budget", "100000"}, retention.StatusWithinBudget, "chars", "GET /api", ""},
		{"claude-code Read", []string{"--policy", "claude-code", "--tool", "Read"}, retention.StatusPassThrough, "chars", "GET /api", "Read never"},
		{"claude-code array", []string{"--policy", "claude-code", "--param", "content=array"}, retention.StatusReplaced, "chars", "<persisted-output>\nOutput too large (80.1KB)", ""}, // the size of the .json file
		{"claude-code MCP error", []string{"--policy", "claude-code", "--tool", "mcp__srv__search", "--param", "mcp=error", "--param", "MAX_MCP_OUTPUT_TOKENS=1000", "--estimator", "bytes4"}, retention.StatusNoticeOnly, "chars", `MCP tool "search" response (20000 tokens) exceeds maximum allowed tokens (1000).`, "bytes4"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append(append([]string{}, tt.args...), "--spill-path", "/p/s/tool-results/toolu_1.txt")
			code, o, _, stderr := runRetainCmd(t, in, args...)
			if code != exitOK {
				t.Fatalf("exit %d, stderr %q", code, stderr)
			}
			if o.Status != tt.status || o.BudgetUnit != tt.unit {
				t.Fatalf("status %q unit %q, want %q %q (%q)", o.Status, o.BudgetUnit, tt.status, tt.unit, o.Diagnostics)
			}
			var first struct {
				Text string `json:"text"`
			}
			if err := json.Unmarshal(o.Content[0], &first); err != nil || !strings.HasPrefix(first.Text, tt.prefix) {
				t.Fatalf("content starts %q, want %q", first.Text[:min(len(first.Text), 160)], tt.prefix)
			}
			if tt.diag != "" && !strings.Contains(strings.Join(o.Diagnostics, "\n"), tt.diag) {
				t.Fatalf("diagnostics %q lack %q", o.Diagnostics, tt.diag)
			}
		})
	}
}

func TestRetainHarnessParamErrors(t *testing.T) {
	for _, tt := range []struct {
		name string
		args []string
		want string
	}{
		{"codex mode", []string{"--policy", "codex", "--param", "mode=chars"}, "mode"},
		{"codex negative limit", []string{"--policy", "codex", "--param", "limit=-1"}, "limit"},
		{"codex fractional limit", []string{"--policy", "codex", "--param", "limit=2.5"}, "limit"},
		{"codex model", []string{"--policy", "codex", "--param", "model=gpt-9"}, "model"},
		{"codex history", []string{"--policy", "codex", "--param", "history=maybe"}, "history"},
		{"codex mcp", []string{"--policy", "codex", "--param", "mcp=1.5"}, "mcp"},
		{"codex token limit", []string{"--policy", "codex", "--param", "tool_output_token_limit=many"}, "tool_output_token_limit"},
		{"codex both limits", []string{"--policy", "codex", "--budget", "10", "--param", "tool_output_token_limit=10"}, "tool_output_token_limit"},
		{"codex budget twice", []string{"--policy", "codex", "--budget", "10", "--param", "limit=10"}, "--budget"},
		{"codex unknown", []string{"--policy", "codex", "--param", "max_bytes=10"}, "max_bytes"},
		{"claude-code tool", []string{"--policy", "claude-code", "--param", "tool=Write"}, "tool"},
		{"claude-code threshold", []string{"--policy", "claude-code", "--param", "threshold=-3"}, "threshold"},
		{"claude-code content", []string{"--policy", "claude-code", "--param", "content=list"}, "content"},
		{"claude-code mcp", []string{"--policy", "claude-code", "--param", "mcp=yes"}, "mcp"},
		{"claude-code MCP limit", []string{"--policy", "claude-code", "--param", "MAX_MCP_OUTPUT_TOKENS=0"}, "MAX_MCP_OUTPUT_TOKENS"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			code, _, _, stderr := runRetainCmd(t, `[{"type":"text","text":"x"}]`, tt.args...)
			if code != exitUsage || !strings.Contains(stderr, tt.want) {
				t.Fatalf("exit %d stderr %q; want %d naming %q", code, stderr, exitUsage, tt.want)
			}
		})
	}
}
