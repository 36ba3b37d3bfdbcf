package retention_test

import (
	"fmt"
	"strings"

	"spillscope/retention"
)

// Codex's tool output cut at Tokens(5): the header, the first and last ten
// bytes, and a marker counting the tokens beyond the budget.
func ExampleCodexFormattedTruncateText() {
	out := "this is an example of a long output that should be truncated"
	fmt.Println(retention.CodexFormattedTruncateText(out, retention.CodexTruncation{Tokens: true, Limit: 5}))
	// Output:
	// Warning: truncated output (original token count: 15)
	// Total output lines: 1
	//
	// this is an…10 tokens truncated… truncated
}

// The indexer reads Codex's recorded figures back from a tool output.
func ExampleRecogniseCodexTruncation() {
	rec := "Chunk ID: c41e67\nWall time: 0.4 seconds\nProcess exited with code 0\nOriginal token count: 202197\nOutput:\n" +
		"Warning: truncated output (original token count: 202197)\nTotal output lines: 6743\n\nhead…192197 tokens truncated…tail"
	n, ok := retention.RecogniseCodexTruncation(rec)
	fmt.Println(ok, n.ExecOriginalTokens, n.OriginalTokens, n.Lines, n.Markers[0].Count, n.Markers[0].Unit)
	// Output:
	// true 202197 202197 6743 192197 tokens
}

// Claude Code's wrapper for a 144,356-character result, and the range of
// lengths its recorded size stands for.
func ExampleClaudePersistedMessage() {
	msg := retention.ClaudePersistedMessage(144356, "/home/u/.claude/projects/p/s/tool-results/toolu_1.txt", "RUN v4.0.18", true)
	fmt.Println(msg)
	p, _ := retention.RecogniseClaudePersistedOutput(msg)
	fmt.Println(p.Size, p.SizeMin, p.SizeMax)
	// Output:
	// <persisted-output>
	// Output too large (141KB). Full output saved to: /home/u/.claude/projects/p/s/tool-results/toolu_1.txt
	//
	// Preview (first 2KB):
	// RUN v4.0.18
	// ...
	// </persisted-output>
	// 141KB 144333 144435
}

// One user message of four parallel results totalling 330,000 characters:
// Claude Code persists the largest until the rest is within 200,000.
func ExampleClaudeMessageBudget() {
	result := func(n int) retention.Result {
		return retention.Result{Content: []retention.Block{{Type: retention.TypeText, Text: strings.Repeat("x", n)}}}
	}
	msg := []retention.ClaudeMessageResult{
		{ToolName: "Bash", Result: result(30000)}, {ToolName: "Grep", Result: result(120000)},
		{ToolName: "WebFetch", Result: result(100000)}, {ToolName: "Read", Result: result(80000)},
	}
	fmt.Println(retention.ClaudeMessageBudget(msg, 0))
	// Output:
	// [1]
}
