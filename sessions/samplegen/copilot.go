package samplegen

import (
	"encoding/base64"
	"fmt"
	"path/filepath"
	"time"
)

// writeCopilot writes one GitHub Copilot CLI session log,
// copilot/session-state/<id>/events.jsonl, as the CLI writes it (one event
// per line, FORMATS.md section 4): a command whose output was too large to
// pass inline, saved to <ms>-copilot-tool-output-<id>.txt in the temp folder
// (here copilot/tmp/, so the sample is self-contained), a screenshot viewed,
// a failed call, a compaction, and session.shutdown's per-model usage.
func (g *gen) writeCopilot(index int) error {
	r := g.rng(8, index)
	var c Counts
	c.Files, c.Sessions = 1, 1
	sid := newUUID(r)
	t := baseTime.Add(time.Duration(index)*24*time.Hour + 5*time.Hour)
	path := filepath.Join(g.root, "copilot", "session-state", sid, "events.jsonl")
	lf, err := g.createLines(path)
	if err != nil {
		return err
	}
	parent := any(nil)
	event := func(typ string, data obj) {
		t = t.Add(time.Duration(200+r.IntN(5000)) * time.Millisecond)
		id := newUUID(r)
		lf.line(o("type", typ, "data", data, "id", id, "timestamp", isoMillis(t), "parentId", parent))
		parent = id
	}
	cwd := fmt.Sprintf("/home/dev/work/api-gateway-%d", index)
	model := "claude-sonnet-4.6"
	event("session.start", o("sessionId", sid, "version", 1, "producer", "copilot-agent", "copilotVersion", "1.0.34", "startTime", isoMillis(t),
		"context", o("cwd", cwd, "gitRoot", cwd, "branch", "main", "repository", "dev/api-gateway", "hostType", "github"),
		"alreadyInUse", false, "remoteSteerable", false))
	event("session.model_change", o("newModel", model))
	event("user.message", o("content", "The integration tests time out; find out which one and why.", "transformedContent", "The integration tests time out; find out which one and why.", "attachments", []any{}))
	var output int64
	turn := func(text string, out int64, calls ...obj) []string {
		event("assistant.turn_start", o("turnId", fmt.Sprint(r.IntN(100))))
		var reqs []any
		var ids []string
		for _, cl := range calls {
			id := "toolu_01" + randFrom(r, base58, 22)
			ids = append(ids, id)
			reqs = append(reqs, o("toolCallId", id, "name", cl[0].V, "arguments", cl[1].V, "type", "function"))
		}
		event("assistant.message", o("messageId", newUUID(r), "content", text, "toolRequests", reqs, "outputTokens", out))
		output += out
		return ids
	}
	complete := func(id, name string, args obj, data obj) {
		event("tool.execution_start", o("toolCallId", id, "toolName", name, "arguments", args))
		event("tool.execution_complete", append(o("toolCallId", id, "model", model, "interactionId", newUUID(r)), data...))
		c.ToolResults++
	}
	success := func(content string, extra ...any) obj {
		res := o("content", content, "detailedContent", content)
		for i := 0; i+1 < len(extra); i += 2 {
			res = res.with(extra[i].(string), extra[i+1])
		}
		n := len([]rune(content))
		return o("success", true, "result", res, "toolTelemetry", o("metrics", o("resultLength", n, "resultForLlmLength", n)))
	}

	bashArgs := o("command", "go test ./integration/... -run . -v 2>&1", "description", "Run the integration tests")
	ids := turn("I'll run the integration tests first.", 188, o("name", "bash", "arguments", bashArgs))
	full := genText(r, kindLog, 96<<10)
	spill := filepath.Join(g.root, "copilot", "tmp", fmt.Sprintf("%d-copilot-tool-output-%s.txt", t.UnixMilli(), randFrom(r, alnum, 6)))
	if err := g.writeFile(spill, []byte(full)); err != nil {
		return err
	}
	notice := fmt.Sprintf("Output too large to read at once (%.1f KB). Saved to: %s\nConsider using tools like grep (for searching), head/tail (for viewing start/end), view with view_range (for specific sections), or jq (for JSON) to examine portions of the output.\n\nPreview (first 500 chars):\n%s",
		float64(len(full))/1024, spill, string([]rune(full)[:500]))
	done := success(notice)
	done[2].V = o("metrics", o("resultLength", len([]rune(full)), "resultForLlmLength", len([]rune(notice))))
	complete(ids[0], "bash", bashArgs, done)
	c.addNotice(NoticeCopilot, true)

	viewArgs := o("path", cwd+"/docs/trace.png")
	grepArgs := o("pattern", "context deadline exceeded", "path", cwd+"/integration")
	fetchArgs := o("url", "https://status.example.com/ci")
	ids = turn("The log is long; I'll grep it and look at the trace screenshot.", 241,
		o("name", "view", "arguments", viewArgs), o("name", "grep", "arguments", grepArgs), o("name", "web_fetch", "arguments", fetchArgs))
	png, _, _, err := screenshot(r, g.opts.ScreenshotBytes/2)
	if err != nil {
		return err
	}
	complete(ids[0], "view", viewArgs, success("Viewed image file successfully.", "binaryResultsForLlm",
		[]any{o("type", "image", "data", base64.StdEncoding.EncodeToString(png), "mimeType", "image/png", "description", "trace.png")}))
	c.ToolResultImages++
	complete(ids[1], "grep", grepArgs, success(genText(r, kindCode, 4<<10)))
	complete(ids[2], "web_fetch", fetchArgs, o("success", false, "error", o("code", "failure", "message", "Failed to fetch https://status.example.com/ci: 503 Service Unavailable")))
	event("assistant.turn_end", o("turnId", "1"))

	event("session.compaction_start", o())
	event("session.compaction_complete", o("success", true, "preCompactionTokens", 118_204, "postCompactionTokens", 9_812, "messagesRemoved", 14,
		"tokensRemoved", 108_392, "summaryContent", "Ran the integration tests; TestUpstreamRetry times out waiting for the mock upstream."))
	ids = turn("TestUpstreamRetry waits on a mock upstream that never answers; the retry budget is longer than the test timeout.", 412)
	_ = ids
	event("assistant.turn_end", o("turnId", "2"))

	in, read, write, reasoning := int64(162_410), int64(131_072), int64(4_096), int64(512)
	event("session.shutdown", o("shutdownType", "routine", "totalPremiumRequests", 1, "totalApiDurationMs", 41_230, "sessionStartTime", baseTime.UnixMilli(),
		"modelMetrics", o(model, o("requests", o("count", 3, "cost", 1),
			"usage", o("inputTokens", in, "outputTokens", output, "cacheReadTokens", read, "cacheWriteTokens", write, "reasoningTokens", reasoning))),
		"currentModel", model, "currentTokens", 21_344, "systemTokens", 8_120, "conversationTokens", 1_290, "toolDefinitionsTokens", 11_934))
	if err := lf.close(); err != nil {
		return err
	}
	c.Usage = Usage{InputTokens: in, OutputTokens: output, CacheReadInputTokens: read, CacheCreationInputTokens: write, ReasoningOutputTokens: reasoning}
	g.m.SessionUsage = append(g.m.SessionUsage, SessionUsage{Harness: HarnessCopilot, SessionID: sid, Path: g.rel(path), Model: model, Usage: c.Usage})
	g.m.addHarness(HarnessCopilot, c)
	return nil
}
