package samplegen

import (
	"encoding/base64"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"time"
)

// codexRollout writes one Codex CLI rollout file.
type codexRollout struct {
	r  *rand.Rand
	lf *lineFile
	t  time.Time
	c  *Counts
}

func (cr *codexRollout) tick() string {
	cr.t = cr.t.Add(time.Duration(100+cr.r.IntN(3000)) * time.Millisecond)
	return isoMillis(cr.t)
}

func (cr *codexRollout) item(typ string, payload obj) {
	cr.lf.line(o("timestamp", cr.tick(), "type", typ, "payload", payload))
}

// call writes a function_call and its function_call_output.
func (cr *codexRollout) call(name string, args obj, output any) {
	id := newCallID(cr.r)
	cr.item("response_item", o("type", "function_call", "name", name, "arguments", string(appendJSON(nil, args)), "call_id", id))
	cr.item("response_item", o("type", "function_call_output", "call_id", id, "output", output))
	cr.c.ToolResults++
}

func codexUsage(in, cached, out, reasoning int64) obj {
	return o("input_tokens", in, "cached_input_tokens", cached, "output_tokens", out, "reasoning_output_tokens", reasoning, "total_tokens", in+out)
}

// tokenCount writes a running total twice, as Codex often does, so a reader
// that sums instead of taking the last total counts double.
func (cr *codexRollout) tokenCount(total, last Usage) {
	info := o("total_token_usage", codexUsage(total.InputTokens, total.CachedInputTokens, total.OutputTokens, total.ReasoningOutputTokens),
		"last_token_usage", codexUsage(last.InputTokens, last.CachedInputTokens, last.OutputTokens, last.ReasoningOutputTokens),
		"model_context_window", 258400)
	for i := 0; i < 2; i++ {
		cr.item("event_msg", o("type", "token_count", "info", info, "rate_limits",
			o("limit_id", "codex", "limit_name", nil, "primary", o("used_percent", 4.0, "window_minutes", 300, "resets_at", 1772460000),
				"secondary", nil, "credits", nil, "plan_type", nil)))
	}
}

// execOutput is the text exec_command returns (CLI 0.125 and later).
func execOutput(r *rand.Rand, body string, tokens int) string {
	return fmt.Sprintf("Chunk ID: %s\nWall time: %.4f seconds\nProcess exited with code 0\nOriginal token count: %d\nOutput:\n%s",
		newHex(r, 6), float64(r.IntN(40000))/10000, tokens, body)
}

// writeCodex writes one rollout holding every Codex case: string and array
// outputs (with an input_image data URL), an apply_patch custom tool call,
// repeated running token totals, an OpenCode spill notice relayed through a
// shell command, links, and one truncated line.
func (g *gen) writeCodex(index int) error {
	r := g.rng(3, index)
	var c Counts
	c.Sessions, c.Files = 1, 1
	start := baseTime.Add(time.Duration(index)*24*time.Hour + time.Hour + 15*time.Minute)
	id := newUUIDv7(r, start)
	path := filepath.Join(g.root, "codex", "sessions", start.Format("2006"), start.Format("01"), start.Format("02"),
		"rollout-"+start.Format("2006-01-02T15-04-05")+"-"+id+".jsonl")
	lf, err := g.createLines(path)
	if err != nil {
		return err
	}
	cr := &codexRollout{r: r, lf: lf, t: start, c: &c}
	cwd := fmt.Sprintf("/home/dev/work/billing-%d", index)
	turn := newUUIDv7(r, start)
	model := "gpt-5.5"

	cr.item("session_meta", o("id", id, "timestamp", isoMillis(start), "cwd", cwd, "originator", "codex_cli_rs",
		"cli_version", "0.125.0", "source", "cli", "model_provider", "openai",
		"base_instructions", o("text", "You are Codex, a coding agent. Keep answers short and cite files."),
		"git", o("commit_hash", newHex(r, 40), "branch", "main", "repository_url", "https://git.example.com/team/billing.git")))
	cr.item("response_item", o("type", "message", "role", "developer", "content", []any{o("type", "input_text", "text", "<permissions instructions>\nsandbox_mode is workspace-write; network access is restricted.\n</permissions instructions>")}))
	cr.item("event_msg", o("type", "task_started", "turn_id", turn, "started_at", start.Unix(), "model_context_window", 258400, "collaboration_mode_kind", "default"))
	cr.item("turn_context", o("turn_id", turn, "cwd", cwd, "current_date", start.Format("2006-01-02"), "timezone", "Europe/Berlin",
		"approval_policy", "on-request", "sandbox_policy", o("type", "workspace-write", "writable_roots", []any{cwd}, "network_access", false, "exclude_tmpdir_env_var", false, "exclude_slash_tmp", false),
		"model", model, "personality", "pragmatic", "effort", "high", "summary", "auto", "truncation_policy", o("mode", "tokens", "limit", 10000)))
	ask := "Why do invoices render twice? Check the logs, screenshot the page, fix it. 请用中文总结。"
	cr.item("response_item", o("type", "message", "role", "user", "content", []any{o("type", "input_text", "text", ask)}))
	cr.item("event_msg", o("type", "user_message", "message", ask, "images", []any{}, "local_images", []any{}, "text_elements", []any{}))
	cr.item("event_msg", o("type", "token_count", "info", nil, "rate_limits", nil))
	cr.item("response_item", o("type", "reasoning", "summary", []any{o("type", "summary_text", "text", "**Reading the render logs**")}, "content", nil, "encrypted_content", "gAAAAAB"+randFrom(r, alnum, 600)))

	// exec_command with a large log output, truncated inline as Codex does.
	logs := genText(r, kindLog, 24<<10)
	mid := strings.IndexByte(logs[len(logs)/2:], '\n') + len(logs)/2
	body := logs[:len(logs)/3] + fmt.Sprintf("\n…%d tokens truncated…\n", 18000+r.IntN(9000)) + logs[mid+1:]
	cr.call("exec_command", o("cmd", "journalctl -u billing --since today", "workdir", cwd, "yield_time_ms", 1000, "max_output_tokens", 10000),
		execOutput(r, body, 31000+r.IntN(4000)))
	total := Usage{InputTokens: 18703, CachedInputTokens: 0, OutputTokens: 167, ReasoningOutputTokens: 62}
	cr.tokenCount(total, total)

	// Older `shell` tool: JSON inside the output string.
	ls := "Cargo.toml\nREADME.md\nsrc\ntemplates\ntests\n"
	cr.call("shell", o("command", []any{"bash", "-lc", "ls"}, "workdir", cwd),
		string(appendJSON(nil, o("output", ls, "metadata", o("exit_code", 0, "duration_seconds", 0.1)))))

	// MCP screenshot: an array output with an input_image data URL.
	png, _, _, err := screenshot(r, g.opts.ScreenshotBytes)
	if err != nil {
		return err
	}
	cr.call("mcp__playwright__browser_take_screenshot", o("type", "png"), []any{
		o("type", "input_text", "text", "Took the viewport screenshot of /invoices/2026-03."),
		o("type", "input_image", "image_url", "data:image/png;base64,"+base64.StdEncoding.EncodeToString(png)),
	})
	c.ToolResultImages++

	// apply_patch as a custom tool call.
	patch := "*** Begin Patch\n*** Update File: src/render.rs\n@@\n-    render(invoice);\n     render(invoice);\n*** End Patch\n"
	pid := newCallID(r)
	cr.item("response_item", o("type", "custom_tool_call", "status", "completed", "call_id", pid, "name", "apply_patch", "input", patch))
	cr.item("response_item", o("type", "custom_tool_call_output", "call_id", pid,
		"output", string(appendJSON(nil, o("output", "Success. Updated the following files:\nM src/render.rs\n", "metadata", o("exit_code", 0, "duration_seconds", 0.2))))))
	c.ToolResults++

	// An OpenCode run whose output was spilled by OpenCode; its file exists.
	ocID := fmt.Sprintf("tool_%012x%s", start.UnixMilli(), randFrom(r, alnum, 14))
	ocPath := filepath.Join(g.root, "opencode", "tool-output", ocID)
	ocFull := genText(r, kindMixed, 80<<10)
	if err := g.writeFile(ocPath, []byte(ocFull)); err != nil {
		return err
	}
	head := ocFull[:strings.LastIndexByte(ocFull[:4000], '\n')]
	ocNotice := fmt.Sprintf("%s\n\n...%d bytes truncated...\n\nThe tool call succeeded but the output was truncated. Full output saved to: %s\nUse Grep to search the full content or Read with offset/limit to view specific sections.\n",
		head, len(ocFull)-len(head), ocPath)
	cr.call("exec_command", o("cmd", "opencode run 'summarise the invoice templates'", "workdir", cwd), execOutput(r, ocNotice, 2100))
	c.addNotice(NoticeOpenCode, true)

	// Signed and plain links in a command's output.
	cr.call("exec_command", o("cmd", "cat DEPLOY.md", "workdir", cwd), execOutput(r, linkProse(r), 640))
	c.CredentialLinks += len(CredentialLinks)

	last := Usage{InputTokens: 24410, CachedInputTokens: 18432, OutputTokens: 911, ReasoningOutputTokens: 384}
	total.add(last)
	cr.tokenCount(total, last)

	// A line cut off mid-write.
	cut := appendJSON(nil, o("timestamp", cr.tick(), "type", "response_item", "payload", o("type", "message", "role", "assistant",
		"content", []any{o("type", "output_text", "text", "The template loop calls render twice because")})))
	lf.raw(append(cut[:len(cut)/2:len(cut)/2], '\n'))
	c.BadLines++

	answer := "发票渲染两次是因为 src/render.rs 在循环里又调用了一次 render；已修复。"
	cr.item("event_msg", o("type", "agent_message", "message", answer, "phase", "final_answer"))
	cr.item("response_item", o("type", "message", "role", "assistant", "content", []any{o("type", "output_text", "text", answer)}, "phase", "final_answer"))
	cr.item("event_msg", o("type", "task_complete", "turn_id", turn, "last_agent_message", answer))
	if err := lf.close(); err != nil {
		return err
	}
	total.TotalTokens = total.InputTokens + total.OutputTokens
	c.Usage = total
	g.m.SessionUsage = append(g.m.SessionUsage, SessionUsage{Harness: HarnessCodex, SessionID: id, Path: g.rel(path), Model: model, Usage: total})
	g.m.addHarness(HarnessCodex, c)
	return nil
}
