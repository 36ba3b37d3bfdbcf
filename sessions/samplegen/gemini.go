package samplegen

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"time"
)

// writeGemini writes one Gemini CLI chat file: a single JSON document with
// messages[], toolCalls[] carrying their results, and per-message token
// records. One shell result was spilled by Gemini CLI (its file exists), one
// read_file result carries an image as inlineData.
func (g *gen) writeGemini(index int) error {
	r := g.rng(4, index)
	var c Counts
	c.Sessions, c.Files = 1, 1
	start := baseTime.Add(time.Duration(index)*24*time.Hour + 2*time.Hour)
	project := fmt.Sprintf("/home/dev/work/notes-app-%d", index)
	sum := sha256.Sum256([]byte(project))
	projectHash := hex.EncodeToString(sum[:])
	sid := newUUID(r)
	tmp := filepath.Join(g.root, "gemini", "tmp", projectHash)
	t := start
	tick := func() string {
		t = t.Add(time.Duration(500+r.IntN(9000)) * time.Millisecond)
		return isoMillis(t)
	}
	var usage Usage
	tokens := func(in, out, cached, thoughts, tool int64) obj {
		total := in + out + thoughts + tool
		usage.add(Usage{InputTokens: in, OutputTokens: out, CachedInputTokens: cached, ReasoningOutputTokens: thoughts, ToolTokens: tool, TotalTokens: total})
		return o("input", in, "output", out, "cached", cached, "thoughts", thoughts, "tool", tool, "total", total)
	}
	model := "gemini-2.5-pro"
	call := func(name, display string, args obj, output string, extra ...any) obj {
		id := fmt.Sprintf("%s-%d-%s", name, t.UnixMilli(), newHex(r, 14))
		result := []any{o("functionResponse", o("id", id, "name", name, "response", o("output", output)))}
		result = append(result, extra...)
		c.ToolResults++
		return o("id", id, "name", name, "args", args, "result", result, "status", "success", "timestamp", tick(),
			"resultDisplay", output, "displayName", display, "description", "Runs the "+display+" tool.", "renderOutputAsMarkdown", true)
	}

	// A spilled shell result: the notice points at a file under tool-outputs/.
	full := genText(r, kindLog, 90<<10)
	shellID := fmt.Sprintf("run_shell_command-%d-%s", t.UnixMilli()+4000, newHex(r, 14))
	spill := filepath.Join(tmp, "tool-outputs", "session-"+sid, "run_shell_command_"+shellID+".txt")
	if err := g.writeFile(spill, []byte(full)); err != nil {
		return err
	}
	headN, tailN := 2000, 2000
	head, tail := cutRunes(full, headN, tailN)
	shellOut := fmt.Sprintf("Output too large. Showing first %d and last %d characters. For full output see: %s\n%s\n\n... [%d characters omitted] ...\n\n%s",
		headN, tailN, spill, head, len([]rune(full))-len([]rune(head))-len([]rune(tail)), tail)
	c.addNotice(NoticeGemini, true)

	png, _, _, err := screenshot(r, g.opts.ScreenshotBytes/2)
	if err != nil {
		return err
	}
	imgPart := o("inlineData", o("mimeType", "image/png", "data", base64.StdEncoding.EncodeToString(png)))
	c.ToolResultImages++

	c.CredentialLinks += len(CredentialLinks)
	msgs := []any{
		o("id", newUUID(r), "timestamp", tick(), "type", "user", "content", "The notes app is slow to start. Look at the startup log and the screenshot in docs/, and check the links in SETUP.md."),
		o("id", newUUID(r), "timestamp", tick(), "type", "gemini", "content", "I'll start with the startup log.",
			"thoughts", []any{o("subject", "Planning", "description", "Read the startup log first, then the screenshot.", "timestamp", tick())},
			"tokens", tokens(5210, 41, 0, 180, 0), "model", model),
	}
	calls := []any{
		call("run_shell_command", "Shell", o("command", "./scripts/start.sh --trace", "description", "Start with tracing"), shellOut),
		call("read_file", "ReadFile", o("absolute_path", project+"/docs/startup.png"), "Binary content of type image/png was processed.", imgPart),
		call("read_file", "ReadFile", o("absolute_path", project+"/SETUP.md"), linkProse(r)),
		call("read_file", "ReadFile", o("absolute_path", project+"/src/store.ts"), genText(r, kindCode, 6<<10)),
	}
	msgs = append(msgs,
		o("id", newUUID(r), "timestamp", tick(), "type", "gemini", "content", "", "toolCalls", calls,
			"thoughts", []any{}, "model", model, "tokens", tokens(9120, 230, 4096, 512, 64)),
		o("id", newUUID(r), "timestamp", tick(), "type", "user", "content", "请简单总结一下。"),
		o("id", newUUID(r), "timestamp", tick(), "type", "gemini", "content", "启动慢是因为索引在主线程上同步重建。✅",
			"thoughts", []any{}, "tokens", tokens(31877, 96, 28000, 140, 0), "model", model),
	)
	doc := o("sessionId", sid, "projectHash", projectHash, "startTime", isoMillis(start), "lastUpdated", isoMillis(t), "messages", msgs)
	path := filepath.Join(tmp, "chats", fmt.Sprintf("session-%s-%s.json", start.Format("2006-01-02T15-04"), sid[:8]))
	if err := g.writeFile(path, appendJSONIndent(nil, doc, "  ", 0)); err != nil {
		return err
	}
	c.Usage = usage
	g.m.SessionUsage = append(g.m.SessionUsage, SessionUsage{Harness: HarnessGemini, SessionID: sid, Path: g.rel(path), Model: model, Usage: usage})
	g.m.addHarness(HarnessGemini, c)
	return nil
}

// cutRunes returns the first h and last t characters of s.
func cutRunes(s string, h, t int) (string, string) {
	rs := []rune(s)
	if len(rs) <= h+t {
		return s, ""
	}
	return string(rs[:h]), string(rs[len(rs)-t:])
}
