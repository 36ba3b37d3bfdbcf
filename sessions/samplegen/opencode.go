package samplegen

import (
	"encoding/base64"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"time"
)

// OpenCodeSchema is OpenCode's database as its drizzle definitions
// (session/session.sql.ts, storage/schema.sql.ts) create it: sessions,
// messages and parts, each message and part a JSON data column.
const OpenCodeSchema = `
CREATE TABLE project (id text PRIMARY KEY, worktree text NOT NULL, time_created integer NOT NULL, time_updated integer NOT NULL);
CREATE TABLE session (
  id text PRIMARY KEY, project_id text NOT NULL REFERENCES project(id) ON DELETE CASCADE, workspace_id text,
  parent_id text, slug text NOT NULL, directory text NOT NULL, path text, title text NOT NULL, version text NOT NULL,
  share_url text, summary_additions integer, summary_deletions integer, summary_files integer, summary_diffs text,
  cost real DEFAULT 0 NOT NULL, tokens_input integer DEFAULT 0 NOT NULL, tokens_output integer DEFAULT 0 NOT NULL,
  tokens_reasoning integer DEFAULT 0 NOT NULL, tokens_cache_read integer DEFAULT 0 NOT NULL,
  tokens_cache_write integer DEFAULT 0 NOT NULL, revert text, permission text, agent text, model text,
  time_created integer NOT NULL, time_updated integer NOT NULL, time_compacting integer, time_archived integer);
CREATE INDEX session_project_idx ON session (project_id);
CREATE INDEX session_parent_idx ON session (parent_id);
CREATE TABLE message (id text PRIMARY KEY, session_id text NOT NULL REFERENCES session(id) ON DELETE CASCADE,
  time_created integer NOT NULL, time_updated integer NOT NULL, data text NOT NULL);
CREATE INDEX message_session_time_created_id_idx ON message (session_id, time_created, id);
CREATE TABLE part (id text PRIMARY KEY, message_id text NOT NULL REFERENCES message(id) ON DELETE CASCADE,
  session_id text NOT NULL, time_created integer NOT NULL, time_updated integer NOT NULL, data text NOT NULL);
CREATE INDEX part_message_id_id_idx ON part (message_id, id);
CREATE INDEX part_session_idx ON part (session_id);
`

// openCodeIDs makes OpenCode's ascending ids (id/id.ts): a prefix, 12 hex
// digits of the time in milliseconds times 4096 plus a counter, and 14
// random base-62 characters.
type openCodeIDs struct {
	r     *rand.Rand
	count int64
}

func (ids *openCodeIDs) next(prefix string, t time.Time) string {
	ids.count++
	return fmt.Sprintf("%s_%012x%s", prefix, (t.UnixMilli()*0x1000+ids.count)&0xffffffffffff, randFrom(ids.r, alnum, 14))
}

// openCodeWriter fills one OpenCode database.
type openCodeWriter struct {
	*sqlWriter
	g   *gen
	r   *rand.Rand
	ids *openCodeIDs
	t   time.Time
	c   *Counts
}

func (w *openCodeWriter) tick() int64 {
	w.t = w.t.Add(time.Duration(300+w.r.IntN(6000)) * time.Millisecond)
	return w.t.UnixMilli()
}

// openCodeSession is one session being written: its id, the message being
// written and its usage so far.
type openCodeSession struct {
	w       *openCodeWriter
	id, dir string
	msg     string
	msgInfo obj
	usage   Usage
}

func (s *openCodeSession) message(role string, extra ...any) {
	w := s.w
	at := w.tick()
	s.msg = w.ids.next("msg", w.t)
	info := o("id", s.msg, "sessionID", s.id, "role", role, "time", o("created", at))
	if role == "assistant" {
		info = append(info, o("parentID", "msg_"+newHex(w.r, 12), "modelID", "claude-sonnet-4-5", "providerID", "anthropic",
			"mode", "build", "agent", "build", "path", o("cwd", s.dir, "root", s.dir), "cost", 0.0132,
			"tokens", o("input", 0, "output", 0, "reasoning", 0, "cache", o("read", 0, "write", 0)), "finish", "tool-calls")...)
	} else {
		info = append(info, o("agent", "build", "model", o("providerID", "anthropic", "modelID", "claude-sonnet-4-5"))...)
	}
	for i := 0; i+1 < len(extra); i += 2 {
		info = info.with(extra[i].(string), extra[i+1])
	}
	s.msgInfo = info
	w.exec(`INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?)`,
		s.msg, s.id, at, at, string(appendJSON(nil, info)))
}

// part writes one part of the current message (its ids live in columns, as
// OpenCode keeps them).
func (s *openCodeSession) part(p obj) {
	w := s.w
	at := w.tick()
	id := w.ids.next("prt", w.t)
	w.exec(`INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?, ?)`,
		id, s.msg, s.id, at, at+int64(w.r.IntN(900)), string(appendJSON(nil, p)))
}

// tool writes a finished tool part and counts it.
func (s *openCodeSession) tool(name string, input obj, status, output string, metadata obj, extra ...any) {
	w := s.w
	start := w.t.UnixMilli()
	if metadata == nil {
		metadata = o()
	}
	state := o("status", status, "input", input)
	if status == "error" {
		state = append(state, o("error", output)...)
	} else {
		state = append(state, o("output", output, "title", name, "metadata", metadata)...)
	}
	state = append(state, o("time", o("start", start, "end", start+int64(40+w.r.IntN(3000))))...)
	for i := 0; i+1 < len(extra); i += 2 {
		state = state.with(extra[i].(string), extra[i+1])
	}
	s.part(o("type", "tool", "callID", "toolu_01"+randFrom(w.r, base58, 22), "tool", name, "state", state))
	w.c.ToolResults++
}

// stepFinish writes a step-finish part with one provider call's tokens
// (input without the cache, as OpenCode records it).
func (s *openCodeSession) stepFinish(in, out, reasoning, read, write int64) {
	s.usage.add(Usage{InputTokens: in, OutputTokens: out, ReasoningOutputTokens: reasoning, CacheReadInputTokens: read, CacheCreationInputTokens: write})
	s.part(o("type", "step-finish", "reason", "tool-calls", "cost", 0.0132,
		"tokens", o("total", in+out+reasoning+read+write, "input", in, "output", out, "reasoning", reasoning, "cache", o("read", read, "write", write))))
}

// truncatedOutput is OpenCode's truncation of a long output
// (tool/truncation.ts): the first lines, the marker, and the hint naming
// the file the whole output was saved to.
func truncatedOutput(full, path string) string {
	lines := strings.SplitAfter(full, "\n")
	head := strings.Join(lines[:min(len(lines), 40)], "")
	rest := len(lines) - min(len(lines), 40)
	return fmt.Sprintf("%s\n\n...%d lines truncated...\n\nThe tool call succeeded but the output was truncated. Full output saved to: %s\n"+
		"Use the Task tool to have explore agent process this file with Grep and Read (with offset/limit). Do NOT read the full file yourself - delegate to save context.",
		strings.TrimRight(head, "\n"), rest, path)
}

// writeOpenCodeDB writes <root>/opencode/opencode.db as the current
// OpenCode keeps it (WAL, closed cleanly): for each scale step a session
// whose bash output was truncated and saved under tool-output/, with an
// image attachment, a failed call, a compaction and its summary, a call
// still running, and the subagent session its task call started.
func (g *gen) writeOpenCodeDB(scale int) error {
	data := filepath.Join(g.root, "opencode")
	var c Counts
	c.Files = 1
	err := g.writeDB(filepath.Join(data, "opencode.db"), OpenCodeSchema, func(sw *sqlWriter) error {
		w := &openCodeWriter{sqlWriter: sw, g: g, c: &c}
		for i := 0; i < scale && w.err == nil; i++ {
			w.r = g.rng(6, i)
			w.ids = &openCodeIDs{r: w.r}
			w.t = baseTime.Add(time.Duration(i)*24*time.Hour + 4*time.Hour)
			if err := w.session(i, data); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	g.m.addHarness(HarnessOpenCode, c)
	return nil
}

// session writes one main session and its subagent's.
func (w *openCodeWriter) session(index int, data string) error {
	r := w.r
	dir := fmt.Sprintf("/home/dev/work/shop-web-%d", index)
	project := newHex(r, 40)
	created := w.tick()
	w.exec(`INSERT INTO project (id, worktree, time_created, time_updated) VALUES (?, ?, ?, ?)`, project, dir, created, created)
	main := &openCodeSession{w: w, id: w.ids.next("ses", w.t), dir: dir}
	child := &openCodeSession{w: w, id: w.ids.next("ses", w.t), dir: dir}
	model := `{"id":"claude-sonnet-4-5","providerID":"anthropic"}`
	for _, s := range []*openCodeSession{main, child} {
		title, parent := "Profile the checkout build", any(nil)
		if s == child {
			title, parent = "Find slow imports (@explore subagent)", main.id
		}
		w.exec(`INSERT INTO session (id, project_id, parent_id, slug, directory, title, version, agent, model, time_created, time_updated)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, s.id, project, parent, "brave-otter-"+newHex(r, 4), dir, title, "1.2.27", "build", model, created, created)
	}

	main.message("user")
	main.part(o("type", "text", "text", "The checkout page renders slowly; profile the build and fix what is slow."))
	main.message("assistant")
	main.part(o("type", "step-start"))
	full := genText(r, kindLog, 120<<10)
	spill := filepath.Join(data, "tool-output", w.ids.next("tool", w.t))
	if err := w.g.writeFile(spill, []byte(full)); err != nil {
		return err
	}
	main.tool("bash", o("command", "npm run build -- --profile", "description", "Build with profiling"), "completed", truncatedOutput(full, spill),
		o("output", "", "exit", 0, "description", "Build with profiling", "truncated", true, "outputPath", spill))
	w.c.addNotice(NoticeOpenCode, true)
	main.tool("read", o("filePath", dir+"/src/checkout.tsx"), "completed", genText(r, kindCode, 8<<10), o("preview", "", "truncated", false))
	main.stepFinish(2210, 412, 96, 18432, 2048)

	main.message("assistant")
	main.part(o("type", "step-start"))
	main.tool("webfetch", o("url", "https://example.com/perf-budget", "format", "markdown"), "error", "Request failed with status code: 404", nil)
	png, _, _, err := screenshot(r, w.g.opts.ScreenshotBytes/2)
	if err != nil {
		return err
	}
	main.tool("read", o("filePath", dir+"/docs/checkout.png"), "completed", "Image read successfully", o("truncated", false),
		"attachments", []any{o("id", w.ids.next("prt", w.t), "sessionID", main.id, "messageID", main.msg, "type", "file", "mime", "image/png",
			"filename", "checkout.png", "url", "data:image/png;base64,"+base64.StdEncoding.EncodeToString(png))})
	w.c.ToolResultImages++
	main.tool("task", o("description", "Find slow imports", "prompt", "List the heaviest imports of src/checkout.tsx", "subagent_type", "explore"),
		"completed", "The heaviest imports are lodash (full build) and moment with every locale.", o("sessionId", child.id, "summary", []any{}))
	main.stepFinish(3120, 288, 0, 20480, 0)

	// The subagent's session, started by the task call above.
	child.message("assistant", "agent", "explore")
	child.part(o("type", "step-start"))
	child.tool("grep", o("pattern", "^import", "path", dir+"/src"), "completed", genText(r, kindCode, 3<<10), o("matches", 41, "truncated", false))
	child.tool("read", o("filePath", dir+"/package.json"), "completed", genText(r, kindJSON, 2<<10), o("truncated", false))
	child.stepFinish(1804, 190, 0, 6144, 1024)

	// OpenCode compacted the conversation: a compaction part, then the
	// assistant message holding the summary.
	main.message("user")
	main.part(o("type", "compaction", "auto", true))
	main.message("assistant", "summary", true)
	main.part(o("type", "step-start"))
	main.part(o("type", "text", "text", "Summary: the build is slow because lodash and moment are bundled whole; checkout.tsx imports both."))
	main.stepFinish(9400, 520, 0, 0, 4096)

	// A call still running when the sample was taken: no result yet.
	main.message("assistant")
	main.part(o("type", "tool", "callID", "toolu_01"+randFrom(r, base58, 22), "tool", "bash",
		"state", o("status", "running", "input", o("command", "npm run build"), "time", o("start", w.tick()))))

	for _, s := range []*openCodeSession{main, child} {
		w.exec(`UPDATE session SET time_updated = ? WHERE id = ?`, w.tick(), s.id)
		w.c.Sessions++
		w.c.Usage.add(s.usage)
		w.g.m.SessionUsage = append(w.g.m.SessionUsage, SessionUsage{Harness: HarnessOpenCode, SessionID: s.id, Path: "opencode/opencode.db",
			Model: "claude-sonnet-4-5", Usage: s.usage})
	}
	return nil
}

// writeOpenCodeExport writes one `opencode export` document (pretty-printed,
// as the CLI prints it) under opencode/export/: a read result OpenCode cut
// itself (no file), and a shell output truncated with its tail kept and its
// whole saved under tool-output/.
func (g *gen) writeOpenCodeExport(index int) error {
	r := g.rng(7, index)
	var c Counts
	c.Files, c.Sessions = 1, 1
	ids := &openCodeIDs{r: r}
	t := baseTime.Add(time.Duration(index)*24*time.Hour + 6*time.Hour)
	tick := func() int64 { t = t.Add(time.Duration(500+r.IntN(4000)) * time.Millisecond); return t.UnixMilli() }
	dir := fmt.Sprintf("/home/dev/work/docs-site-%d", index)
	sid := ids.next("ses", t)
	created := tick()
	var usage Usage
	var parts []any
	mid := ids.next("msg", t)
	tool := func(name string, input obj, output string, metadata obj) obj {
		start := tick()
		c.ToolResults++
		return o("type", "tool", "callID", "toolu_01"+randFrom(r, base58, 22), "tool", name,
			"state", o("status", "completed", "input", input, "output", output, "title", name, "metadata", metadata, "time", o("start", start, "end", tick())),
			"id", ids.next("prt", t), "sessionID", sid, "messageID", mid)
	}
	long := genText(r, kindProse, 30<<10)
	lines := strings.SplitAfter(long, "\n")
	parts = append(parts, o("type", "step-start", "id", ids.next("prt", t), "sessionID", sid, "messageID", mid),
		tool("read", o("filePath", dir+"/docs/guide.md"), "<file>\n"+strings.Join(lines[:min(len(lines), 30)], "")+
			fmt.Sprintf("\n(Showing lines 1-30 of %d. Use offset=31 to continue.)\n</file>", len(lines)), o("preview", "", "truncated", true)))
	full := genText(r, kindLog, 70<<10)
	spill := filepath.Join(g.root, "opencode", "tool-output", ids.next("tool", t))
	if err := g.writeFile(spill, []byte(full)); err != nil {
		return err
	}
	tail := full[strings.LastIndexByte(full[:len(full)-2000], '\n')+1:]
	parts = append(parts, tool("bash", o("command", "npm run docs:build", "description", "Build the docs"),
		"...output truncated...\n\nFull output saved to: "+spill+"\n\n"+tail,
		o("output", tail, "exit", 0, "description", "Build the docs", "truncated", true, "outputPath", spill)))
	c.addNotice(NoticeOpenCodeShell, true)
	parts = append(parts, tool("glob", o("pattern", "docs/**/*.md"), "docs/guide.md\ndocs/install.md\ndocs/faq.md", o("count", 3, "truncated", false)))
	in, out, read := int64(4210), int64(377), int64(12288)
	usage.add(Usage{InputTokens: in, OutputTokens: out, CacheReadInputTokens: read})
	parts = append(parts, o("type", "step-finish", "reason", "tool-calls", "cost", 0.02,
		"tokens", o("total", in+out+read, "input", in, "output", out, "reasoning", 0, "cache", o("read", read, "write", 0)),
		"id", ids.next("prt", t), "sessionID", sid, "messageID", mid))
	uid := ids.next("msg", t)
	msgs := []any{
		o("info", o("role", "user", "time", o("created", created), "agent", "build", "model", o("providerID", "anthropic", "modelID", "claude-sonnet-4-5"),
			"id", uid, "sessionID", sid),
			"parts", []any{o("type", "text", "text", "Why does the docs build warn about broken links?", "id", ids.next("prt", t), "sessionID", sid, "messageID", uid)}),
		o("info", o("role", "assistant", "time", o("created", tick(), "completed", tick()), "parentID", uid, "modelID", "claude-sonnet-4-5",
			"providerID", "anthropic", "mode", "build", "agent", "build", "path", o("cwd", dir, "root", dir), "cost", 0.02,
			"tokens", o("input", in, "output", out, "reasoning", 0, "cache", o("read", read, "write", 0)), "finish", "tool-calls", "id", mid, "sessionID", sid),
			"parts", parts),
	}
	doc := o("info", o("id", sid, "slug", "quiet-harbor", "projectID", newHex(r, 40), "directory", dir, "title", "Broken links in the docs build",
		"version", "1.2.27", "summary", o("additions", 0, "deletions", 0, "files", 0), "time", o("created", created, "updated", tick())),
		"messages", msgs)
	path := filepath.Join(g.root, "opencode", "export", sid+".json")
	if err := g.writeFile(path, appendJSONIndent(nil, doc, "  ", 0)); err != nil {
		return err
	}
	c.Usage = usage
	g.m.SessionUsage = append(g.m.SessionUsage, SessionUsage{Harness: HarnessOpenCode, SessionID: sid, Path: g.rel(path), Model: "claude-sonnet-4-5", Usage: usage})
	g.m.addHarness(HarnessOpenCode, c)
	return nil
}
