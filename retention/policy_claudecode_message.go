package retention

import (
	"sort"
	"strings"
)

// Claude Code's per-message budget (enforceToolResultBudget in 2.1.x's
// toolResultStorage): the tool results of one user message (parallel calls
// of one turn) together may hold MAX_TOOL_RESULTS_PER_MESSAGE_CHARS =
// 200,000 characters. Over that, the largest are persisted, largest first,
// until the rest fits. It is a rule over several results, so it is a
// function beside the policy: a sweep or comparison over a turn calls it
// with the turn's results, then decides each chosen result with the
// claude-code policy at threshold 0 (which persists any non-empty result)
// and the others at their usual threshold.
//
// Not candidates (and not counted): empty results, results already
// persisted (their text starts with <persisted-output>), results holding an
// image, and Read's. Builds gate the budget behind a feature flag, and a
// result decided once keeps its fate on later turns; this function sees one
// message as it first arrives.

// ClaudeMessageResult is one tool result of a user message.
type ClaudeMessageResult struct {
	ToolName string
	Result   Result
}

// ClaudeMessageSize is contentSize: the result's text blocks' lengths in
// UTF-16 units.
func ClaudeMessageSize(res Result) int64 {
	var n int64
	for _, b := range res.Content {
		if b.Type == TypeText {
			n += int64(utf16Len(sanitize(b.Text)))
		}
	}
	return n
}

// ClaudeMessageBudget returns the indexes of the results Claude Code
// persists to bring one message within limit characters (0 is
// ClaudeMessageBudgetChars), largest first; none when the message fits.
func ClaudeMessageBudget(results []ClaudeMessageResult, limit int64) []int {
	if limit <= 0 {
		limit = ClaudeMessageBudgetChars
	}
	type candidate struct {
		i    int
		size int64
	}
	var cands []candidate
	var total int64
	for i, r := range results {
		if claudeMessageCandidate(r) {
			n := ClaudeMessageSize(r.Result)
			cands = append(cands, candidate{i, n})
			total += n
		}
	}
	if total <= limit {
		return nil
	}
	// JavaScript's sort is stable: equal sizes keep their order.
	sort.SliceStable(cands, func(a, b int) bool { return cands[a].size > cands[b].size })
	var out []int
	for _, c := range cands {
		if total <= limit {
			break
		}
		out = append(out, c.i)
		total -= c.size
	}
	return out
}

func claudeMessageCandidate(r ClaudeMessageResult) bool {
	if r.ToolName == "Read" {
		return false
	}
	if c := r.Result.Content; len(c) == 1 && c[0].Type == TypeText && strings.HasPrefix(c[0].Text, ClaudePersistedOpen) {
		return false
	}
	empty := true
	for _, b := range r.Result.Content {
		switch b.Type {
		case TypeImage:
			return false
		case TypeText:
			if strings.TrimSpace(b.Text) != "" {
				empty = false
			}
		default:
			empty = false
		}
	}
	return !empty
}
