package samplegen

import (
	"encoding/base64"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"time"
)

// encodeCwd is Claude Code's project folder name: every character that is
// not an ASCII letter or digit becomes '-'.
func encodeCwd(cwd string) string {
	b := []byte(cwd)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			b[i] = '-'
		}
	}
	return string(b)
}

// claudeTranscript writes one Claude Code transcript (a session or one of
// its subagents) and keeps the counts and usage it wrote.
type claudeTranscript struct {
	g       *gen
	r       *rand.Rand
	lf      *lineFile
	sid     string
	cwd     string
	version string
	branch  string
	slug    string
	model   string
	agentID string // set in a subagent transcript
	t       time.Time
	parent  any // uuid of the previous line, nil at the root
	c       *Counts

	usage      map[string]Usage // by message.id, last line wins
	usageOrder []string
	cacheRead  int64

	// mirror, when set, is called with an embedded copy of every message
	// line, so the parent transcript can write its progress line.
	mirror func(copy obj, msgID string)
}

func (ct *claudeTranscript) tick() time.Time {
	ct.t = ct.t.Add(time.Duration(300+ct.r.IntN(4700)) * time.Millisecond)
	return ct.t
}

// head is the common prefix of user, assistant and system lines.
func (ct *claudeTranscript) head() obj {
	h := o("parentUuid", ct.parent, "isSidechain", ct.agentID != "", "userType", "external",
		"cwd", ct.cwd, "sessionId", ct.sid, "version", ct.version, "gitBranch", ct.branch)
	if ct.agentID != "" {
		h = h.with("agentId", ct.agentID)
	}
	return h.with("slug", ct.slug)
}

// prompt writes a typed user prompt.
func (ct *claudeTranscript) prompt(text string) string {
	id := newUUID(ct.r)
	ts := isoMillis(ct.tick())
	msg := o("role", "user", "content", text)
	line := ct.head().with("type", "user").with("message", msg).with("uuid", id).with("timestamp", ts)
	if ct.agentID == "" {
		line = line.with("thinkingMetadata", o("maxThinkingTokens", 31999)).with("todos", []any{}).with("permissionMode", "acceptEdits")
	}
	ct.lf.line(line)
	if ct.mirror != nil {
		ct.mirror(o("type", "user", "message", msg, "uuid", id, "timestamp", ts), "")
	}
	ct.parent = id
	return id
}

// respond writes one API response split over one line per content block, as
// Claude Code does: every line repeats message.id, requestId and usage, and
// output_tokens grows. It returns the uuid of the last line.
func (ct *claudeTranscript) respond(blocks ...obj) string {
	msgID, reqID := newMsgID(ct.r), newReqID(ct.r)
	input := int64(3 + ct.r.IntN(6))
	creation := int64(200 + ct.r.IntN(9000))
	ct.cacheRead += int64(2000 + ct.r.IntN(6000))
	out := int64(0)
	var last string
	var u Usage
	for _, blk := range blocks {
		out += int64(2 + ct.r.IntN(150))
		u = Usage{InputTokens: input, OutputTokens: out, CacheCreationInputTokens: creation, CacheReadInputTokens: ct.cacheRead}
		msg := o("model", ct.model, "id", msgID, "type", "message", "role", "assistant",
			"content", []any{blk}, "stop_reason", nil, "stop_sequence", nil,
			"usage", o("input_tokens", input, "cache_creation_input_tokens", creation, "cache_read_input_tokens", ct.cacheRead,
				"cache_creation", o("ephemeral_5m_input_tokens", 0, "ephemeral_1h_input_tokens", creation),
				"output_tokens", out, "service_tier", "standard", "inference_geo", "not_available"))
		id := newUUID(ct.r)
		ts := isoMillis(ct.tick())
		ct.lf.line(ct.head().with("message", msg).with("requestId", reqID).with("type", "assistant").with("uuid", id).with("timestamp", ts))
		if ct.mirror != nil {
			ct.mirror(o("type", "assistant", "timestamp", ts, "message", msg, "requestId", reqID, "uuid", id), msgID)
		}
		ct.parent = id
		last = id
	}
	if _, seen := ct.usage[msgID]; !seen {
		ct.usageOrder = append(ct.usageOrder, msgID)
	}
	ct.usage[msgID] = u
	return last
}

// toolResult writes a user line holding one tool_result block. content is a
// string or a block array; tur is the toolUseResult beside the message (nil
// to leave it out).
func (ct *claudeTranscript) toolResult(toolUseID, source string, content any, isError bool, tur any) string {
	id := newUUID(ct.r)
	ts := isoMillis(ct.tick())
	blk := o("tool_use_id", toolUseID, "type", "tool_result", "content", content)
	if isError {
		blk = blk.with("is_error", true)
	}
	msg := o("role", "user", "content", []any{blk})
	line := ct.head().with("type", "user").with("message", msg).with("uuid", id).with("timestamp", ts)
	if tur != nil {
		line = line.with("toolUseResult", tur)
	}
	line = line.with("sourceToolAssistantUUID", source)
	ct.lf.line(line)
	if ct.mirror != nil {
		ct.mirror(o("type", "user", "message", msg, "uuid", id, "timestamp", ts), "")
	}
	ct.c.ToolResults++
	ct.parent = id
	return id
}

func toolUse(id, name string, input obj) obj {
	return o("type", "tool_use", "id", id, "name", name, "input", input)
}

func textBlock(s string) obj { return o("type", "text", "text", s) }

// claudeImage is an image block as Claude Code stores it inside tool_result
// content (source keys in the order the real MCP file has them).
func claudeImage(data string) obj {
	return o("type", "image", "source", o("data", data, "media_type", "image/png", "type", "base64"))
}

func bashResult(stdout string) obj {
	return o("stdout", stdout, "stderr", "", "interrupted", false, "isImage", false, "noOutputExpected", false)
}

// sessionUsage sums the deduplicated usage of the transcript.
func (ct *claudeTranscript) sessionUsage() Usage {
	var total Usage
	for _, id := range ct.usageOrder {
		total.add(ct.usage[id])
	}
	return total
}

func (g *gen) newClaude(r *rand.Rand, path, sid, cwd string, c *Counts) (*claudeTranscript, error) {
	lf, err := g.createLines(path)
	if err != nil {
		return nil, err
	}
	return &claudeTranscript{g: g, r: r, lf: lf, sid: sid, cwd: cwd, version: "2.1.42", branch: "main",
		slug: "wandering-quiet-lighthouse", model: "claude-sonnet-4-5-20250929", t: baseTime, c: c,
		usage: map[string]Usage{}}, nil
}

// finish closes the transcript file and records its usage.
func (ct *claudeTranscript) finish(subagent bool) error {
	if err := ct.lf.close(); err != nil {
		return err
	}
	u := ct.sessionUsage()
	ct.c.Usage.add(u)
	ct.c.Files++
	ct.g.m.SessionUsage = append(ct.g.m.SessionUsage, SessionUsage{Harness: HarnessClaude, SessionID: ct.sid,
		Path: ct.g.rel(ct.lf.path), Subagent: subagent, Model: ct.model, Usage: u})
	return nil
}

// persistedNotice is Claude Code's spill notice (CLI 2.1.x shape).
func persistedNotice(full, path string) string {
	preview := full
	if len(preview) > 2000 {
		cut := strings.LastIndexByte(preview[:2000], '\n')
		if cut <= 0 {
			cut = 2000
		}
		preview = preview[:cut]
	}
	return fmt.Sprintf("<persisted-output>\nOutput too large (%dKB). Full output saved to: %s\n\nPreview (first 2KB):\n%s\n...\n</persisted-output>", (len(full)+512)/1024, path, preview)
}

// writeClaudeRich writes the session that holds every Claude Code case the
// indexer must handle, plus its subagent transcript and spill files.
func (g *gen) writeClaudeRich(index int) error {
	r := g.rng(1, index)
	var c Counts
	c.Sessions, c.Subagents = 1, 1
	cwd := fmt.Sprintf("/home/dev/work/shop-api-%d", index)
	if index == 0 {
		cwd = "/home/dev/work/shop-api"
	}
	projDir := filepath.Join(g.root, "claude", "projects", encodeCwd(cwd))
	sid := newUUID(r)
	ct, err := g.newClaude(r, filepath.Join(projDir, sid+".jsonl"), sid, cwd, &c)
	if err != nil {
		return err
	}
	ct.t = baseTime.Add(time.Duration(index) * 24 * time.Hour)
	sessDir := filepath.Join(projDir, sid)

	// Junk a real log can start with: a comment line (the real fixtures have two).
	ct.lf.raw([]byte("// sample session written by spillscope samplegen\n"))
	c.BadLines++
	ct.lf.line(o("type", "file-history-snapshot", "messageId", newUUID(r),
		"snapshot", o("messageId", newUUID(r), "trackedFileBackups", o(), "timestamp", isoMillis(ct.t)), "isSnapshotUpdate", false))
	ct.lf.line(ct.head().with("type", "progress").with("data", o("type", "hook_progress", "hookEvent", "SessionStart", "hookName", "SessionStart:startup", "command", "~/.claude/hooks/notify.sh start")).
		with("parentToolUseID", newUUID(r)).with("toolUseID", newUUID(r)).with("timestamp", isoMillis(ct.tick())).with("uuid", newUUID(r)))

	ct.prompt("The nightly build is flaky again. Collect the test logs, look at the dashboard and tell me what broke. 日本語のログもあります 🙏")

	// 1. Small Bash result, string content.
	tid := newToolUse(r)
	a := ct.respond(o("type", "thinking", "thinking", "Start by listing the repository, then run the tests with full output.", "signature", "Eq"+randFrom(r, alnum, 86)+"=="),
		textBlock("I'll look at the repository layout first."),
		toolUse(tid, "Bash", o("command", "ls", "description", "List repository files")))
	lsOut := "Makefile\nREADME.md\ncmd\ndocs\ngo.mod\ngo.sum\ninternal\nscripts\nweb\n"
	ct.toolResult(tid, a, strings.TrimRight(lsOut, "\n"), false, bashResult(lsOut))

	// 2. Large Bash result spilled by Claude Code; the spill file is present.
	big := genText(r, kindLog, 150<<10)
	tid = newToolUse(r)
	a = ct.respond(toolUse(tid, "Bash", o("command", "go test ./... -count=1 -v 2>&1", "description", "Run the whole test suite", "timeout", 600000)))
	spill := filepath.Join(sessDir, "tool-results", tid+".txt")
	if err := g.writeFile(spill, []byte(big)); err != nil {
		return err
	}
	ct.toolResult(tid, a, persistedNotice(big, spill), false, bashResult(big))
	c.addNotice(NoticeClaude, true)

	// 3. Another spilled result whose file is missing on purpose (as when a
	// session folder is copied without tool-results/).
	big2 := genText(r, kindMixed, 120<<10)
	tid = newToolUse(r)
	a = ct.respond(textBlock("The suite output is long; checking the service journal too."),
		toolUse(tid, "Bash", o("command", "journalctl -u shop-api --since today --no-pager", "description", "Read the service journal")))
	ct.toolResult(tid, a, persistedNotice(big2, filepath.Join(sessDir, "tool-results", tid+".txt")), false, bashResult(big2))
	c.addNotice(NoticeClaude, false)

	// 4. Read of a source file: numbered lines in content, file object in toolUseResult.
	code := genText(r, kindCode, 12<<10)
	tid = newToolUse(r)
	fp := cwd + "/internal/store/segment.go"
	a = ct.respond(toolUse(tid, "Read", o("file_path", fp)))
	lines := strings.Split(strings.TrimRight(code, "\n"), "\n")
	var numbered strings.Builder
	for i, l := range lines {
		fmt.Fprintf(&numbered, "%6d\u2192%s\n", i+1, l)
	}
	ct.toolResult(tid, a, numbered.String(), false,
		o("type", "text", "file", o("filePath", fp, "content", code, "numLines", len(lines), "startLine", 1, "totalLines", len(lines))))

	// 5. A large JSON document read whole (no spill): 200 KB.
	doc := genText(r, kindJSON, 200<<10)
	tid = newToolUse(r)
	a = ct.respond(toolUse(tid, "Bash", o("command", "curl -s localhost:8080/api/v1/items?page=2", "description", "Fetch items from the local API")))
	ct.toolResult(tid, a, doc, false, bashResult(doc))

	// 6. WebFetch with signed and plain links in the text.
	prose := linkProse(r)
	tid = newToolUse(r)
	a = ct.respond(toolUse(tid, "WebFetch", o("url", LinkPlainGuide, "prompt", "Summarise the deployment notes")))
	ct.toolResult(tid, a, prose, false,
		o("bytes", len(prose), "code", 200, "codeText", "OK", "result", prose, "durationMs", 812, "url", LinkPlainGuide))
	c.CredentialLinks += len(CredentialLinks)

	// 7. MCP screenshot: an image block inside a tool_result array; the
	// toolUseResult repeats the blocks (base64 stored twice, as in real logs).
	png, _, _, err := screenshot(r, g.opts.ScreenshotBytes)
	if err != nil {
		return err
	}
	tid = newToolUse(r)
	a = ct.respond(toolUse(tid, "mcp__playwright__browser_take_screenshot", o("type", "png", "filename", "dashboard.png")))
	shotText := "### Result\n- [Screenshot of viewport](.playwright-mcp/dashboard.png)\n### Ran Playwright code\nawait page.screenshot({\n  path: 'dashboard.png',\n  type: 'png'\n});"
	blocks := []any{textBlock(shotText), claudeImage(base64.StdEncoding.EncodeToString(png))}
	ct.toolResult(tid, a, blocks, false, blocks)
	c.ToolResultImages++

	// 8. MCP result with resource_link blocks, signed and plain.
	tid = newToolUse(r)
	a = ct.respond(toolUse(tid, "mcp__storage__list_artifacts", o("build", 4411)))
	links := []any{
		textBlock("Found 4 artifacts for build 4411."),
		o("type", "resource_link", "uri", LinkAWSPresigned, "name", "build-4411.tar.gz", "mimeType", "application/gzip"),
		o("type", "resource_link", "uri", LinkAzureSAS, "name", "build.log", "mimeType", "text/plain"),
		o("type", "resource_link", "uri", LinkDocs, "name", "net/http docs"),
		o("type", "resource_link", "uri", LinkWatch, "name", "walkthrough"),
	}
	ct.toolResult(tid, a, links, false, links)
	c.CredentialLinks += 2

	// 9. goose-style spill notice relayed by an MCP bridge; its file exists.
	gooseFile := filepath.Join(g.root, "goose", "goose_mcp_responses",
		fmt.Sprintf("mcp_response_%s.txt", ct.t.Format("20060102_150405.000000")))
	gooseText := genText(r, kindMixed, 210<<10)
	if err := g.writeFile(gooseFile, []byte(gooseText)); err != nil {
		return err
	}
	tid = newToolUse(r)
	a = ct.respond(toolUse(tid, "mcp__goose__run_recipe", o("recipe", "collect-traces")))
	ct.toolResult(tid, a, fmt.Sprintf("The response returned from the tool call was larger (%d characters) and is stored in the file which you can use other tools to examine or search in: %s", len([]rune(gooseText)), gooseFile), false, nil)
	c.addNotice(NoticeGoose, true)

	// 9b. Claude Code's own MCP notice: the result went to a file under
	// tool-results/ and the model saw one line about it.
	tid = newToolUse(r)
	a = ct.respond(toolUse(tid, "mcp__github__search_code", o("q", "compaction repo:team/shop-api")))
	mcpFull := genText(r, kindJSON, 90<<10)
	mcpFile := filepath.Join(sessDir, "tool-results", "mcp-github-search_code-"+strings.TrimPrefix(tid, "toolu_")+".txt")
	if err := g.writeFile(mcpFile, []byte(mcpFull)); err != nil {
		return err
	}
	ct.toolResult(tid, a, []any{textBlock(fmt.Sprintf("Error: result (%d characters across 1 line) exceeds maximum allowed tokens. Output has been saved to %s.\nFormat: Plain text", len([]rune(mcpFull)), mcpFile))}, false,
		[]any{textBlock("Error: result exceeds maximum allowed tokens")})
	c.addNotice(NoticeClaudeMCP, true)

	// 10. A very large MCP text result (about 1 MB over two blocks), not spilled.
	if index == 0 {
		tid = newToolUse(r)
		a = ct.respond(toolUse(tid, "mcp__logs__fetch", o("since", "24h")))
		huge := []any{textBlock(genText(r, kindMixed, 520<<10)), textBlock(genText(r, kindLog, 500<<10))}
		ct.toolResult(tid, a, huge, false, huge)
	}

	// 11. A subagent: progress lines on the parent embed copies of its
	// messages; the transcript itself goes under <session>/subagents/.
	if err := g.writeClaudeSubagent(ct, sessDir); err != nil {
		return err
	}

	// 12. An error result: string content in the message, string toolUseResult.
	tid = newToolUse(r)
	a = ct.respond(toolUse(tid, "Bash", o("command", "make lint", "description", "Run the linters")))
	lintErr := "Exit code 2\ninternal/store/segment.go:41:2: ineffectual assignment to err (ineffassign)\nmake: *** [Makefile:12: lint] Error 1"
	ct.toolResult(tid, a, lintErr, true, "Error: "+lintErr)

	// 13. Bad input the indexer must survive: invalid base64 image data ...
	tid = newToolUse(r)
	a = ct.respond(toolUse(tid, "mcp__playwright__browser_take_screenshot", o("type", "png")))
	badImg := []any{textBlock("### Result\n- screenshot captured"), claudeImage("iVBORw0KGgo!!not*base64@@")}
	ct.toolResult(tid, a, badImg, false, badImg)
	c.InvalidImages++
	// ... a line type no version defines ...
	ct.lf.line(o("type", "x-future-event", "sessionId", sid, "timestamp", isoMillis(ct.tick()), "payload", o("kind", "telemetry", "value", 3)))
	c.UnknownLines++
	// ... and a line cut off mid-write (its usage must not be counted).
	cut := appendJSON(nil, ct.head().with("message", o("model", ct.model, "id", newMsgID(r), "type", "message", "role", "assistant",
		"content", []any{textBlock("Partial line that was never finished because the process was killed while")},
		"usage", o("input_tokens", 9, "output_tokens", 999))).with("type", "assistant"))
	ct.lf.raw(append(cut[:len(cut)/2:len(cut)/2], '\n'))
	c.BadLines++

	ct.lf.line(ct.head().with("type", "system").with("subtype", "compact_boundary").with("content", "Conversation compacted").
		with("isMeta", false).with("timestamp", isoMillis(ct.tick())).with("uuid", newUUID(r)).with("level", "info"))
	ct.respond(textBlock("The flaky test is TestSegmentCompaction: it races the compactor. 修正案を書きました ✅"))
	ct.lf.line(o("type", "summary", "summary", "Flaky nightly build: segment compaction race", "leafUuid", ct.parent))
	if err := ct.finish(false); err != nil {
		return err
	}
	g.m.addHarness(HarnessClaude, c)
	return nil
}

// writeClaudeSubagent writes a Task call on the parent, the subagent's own
// transcript, and a progress line on the parent for every subagent message.
func (g *gen) writeClaudeSubagent(parent *claudeTranscript, sessDir string) error {
	r := parent.r
	agentID := "a" + newHex(r, 6)
	taskID := newToolUse(r)
	task := "Find where segment compaction is scheduled and whether it holds the store lock. Report file and line."
	a := parent.respond(toolUse(taskID, "Task", o("description", "Find the compaction scheduler", "prompt", task, "subagent_type", "Explore")))

	sub, err := g.newClaude(r, filepath.Join(sessDir, "subagents", "agent-"+agentID+".jsonl"), parent.sid, parent.cwd, parent.c)
	if err != nil {
		return err
	}
	sub.agentID, sub.model, sub.t, sub.slug = agentID, "claude-haiku-4-5-20251001", parent.t, parent.slug
	sub.mirror = func(cp obj, msgID string) {
		tool := "agent_msg_" + randFrom(r, base58, 24)
		if msgID != "" {
			tool = "agent_" + msgID
		}
		parent.lf.line(parent.head().with("type", "progress").with("data", o("message", cp, "normalizedMessages", []any{},
			"type", "agent_progress", "prompt", task, "agentId", agentID)).
			with("toolUseID", tool).with("parentToolUseID", taskID).with("uuid", newUUID(r)).with("timestamp", isoMillis(parent.tick())))
	}
	sub.prompt(task)
	tid := newToolUse(r)
	sa := sub.respond(textBlock("Searching for the scheduler."), toolUse(tid, "Grep", o("pattern", "compact", "path", parent.cwd, "output_mode", "content")))
	grep := "internal/store/compact.go:18:func (s *Store) scheduleCompaction() {\ninternal/store/compact.go:44:\ts.mu.Lock() // held while compacting\ninternal/store/segment.go:41:\tgo s.compact()"
	sub.toolResult(tid, sa, grep, false, o("mode", "content", "numFiles", 2, "filenames", []any{}, "content", grep, "numLines", 3))
	tid = newToolUse(r)
	sa = sub.respond(toolUse(tid, "Read", o("file_path", parent.cwd+"/internal/store/compact.go")))
	code := genText(r, kindCode, 4<<10)
	sub.toolResult(tid, sa, []any{textBlock(code)}, false, o("type", "text", "file", o("filePath", parent.cwd+"/internal/store/compact.go", "content", code, "numLines", strings.Count(code, "\n"), "startLine", 1, "totalLines", strings.Count(code, "\n"))))
	report := "compact.go:44 takes s.mu for the whole compaction; segment.go:41 starts it without waiting, so a test that reads right after a write can race it."
	sub.respond(textBlock(report))
	if err := sub.finish(true); err != nil {
		return err
	}
	parent.t = sub.t
	su := sub.sessionUsage()
	content := []any{textBlock(report)}
	parent.toolResult(taskID, a, content, false, o("status", "completed", "prompt", task, "agentId", agentID, "content", content,
		"totalDurationMs", 41250, "totalTokens", su.InputTokens+su.OutputTokens+su.CacheCreationInputTokens+su.CacheReadInputTokens,
		"totalToolUseCount", 2, "usage", o("input_tokens", su.InputTokens, "cache_creation_input_tokens", su.CacheCreationInputTokens,
			"cache_read_input_tokens", su.CacheReadInputTokens, "output_tokens", su.OutputTokens, "service_tier", "standard")))
	return nil
}

// writeClaudeSimple writes a short session in another project: Bedrock tool
// ids, a pasted image in a user prompt (not a tool result), one tool result.
func (g *gen) writeClaudeSimple(index int) error {
	r := g.rng(2, index)
	var c Counts
	c.Sessions = 1
	cwd := fmt.Sprintf("/Users/dev/src/docs.site_%d", index)
	projDir := filepath.Join(g.root, "claude", "projects", encodeCwd(cwd))
	sid := newUUID(r)
	ct, err := g.newClaude(r, filepath.Join(projDir, sid+".jsonl"), sid, cwd, &c)
	if err != nil {
		return err
	}
	ct.t = baseTime.Add(time.Duration(index)*24*time.Hour + 3*time.Hour)
	ct.model, ct.version, ct.branch, ct.slug = "claude-opus-4-6", "2.1.39", "docs/zh-translation", "gentle-amber-harbor"
	png, _, _, err := screenshot(r, 4<<10)
	if err != nil {
		return err
	}
	id := newUUID(r)
	ct.lf.line(ct.head().with("type", "user").with("message", o("role", "user", "content", []any{
		textBlock("这个页面的布局坏了，看截图："),
		o("type", "image", "source", o("type", "base64", "media_type", "image/png", "data", base64.StdEncoding.EncodeToString(png))),
	})).with("uuid", id).with("timestamp", isoMillis(ct.tick())))
	ct.parent = id
	tid := "toolu_bdrk_01" + randFrom(r, base58, 22)
	a := ct.respond(textBlock("我来检查样式文件。"), toolUse(tid, "Glob", o("pattern", "**/*.css")))
	files := []any{cwd + "/assets/site.css", cwd + "/assets/print.css"}
	ct.toolResult(tid, a, cwd+"/assets/site.css\n"+cwd+"/assets/print.css", false, o("filenames", files, "durationMs", 14, "numFiles", 2, "truncated", false))
	ct.respond(textBlock("`site.css` の flex 設定が原因です。修正しました 👍"))
	if err := ct.finish(false); err != nil {
		return err
	}
	g.m.addHarness(HarnessClaude, c)
	return nil
}
