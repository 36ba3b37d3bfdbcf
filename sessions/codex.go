package sessions

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"spillscope/retention"
)

// HarnessCodex is Codex CLI's name in the index.
const HarnessCodex = "codex"

func init() { Register(codexCLI{}) }

// codexCLI reads Codex CLI rollouts:
// <codex home>/sessions/YYYY/MM/DD/rollout-<time>-<uuid>.jsonl (FORMATS.md
// section 2). Codex truncates inline and writes no spill file.
type codexCLI struct{}

func (codexCLI) Name() string  { return HarnessCodex }
func (codexCLI) Label() string { return "Codex CLI" }

// DefaultRoots: $CODEX_HOME, else ~/.codex; its sessions/ and
// archived_sessions/ (codex-rs rollout SESSIONS_SUBDIR and
// ARCHIVED_SESSIONS_SUBDIR).
func (codexCLI) DefaultRoots(env Env) []string {
	home := env.Dir("CODEX_HOME", filepath.Join(env.Home(), ".codex"))
	return []string{filepath.Join(home, "sessions"), filepath.Join(home, "archived_sessions")}
}

// Detect: a rollout-*.jsonl by name, else a line shaped
// {timestamp, type, payload} with a rollout line type.
func (codexCLI) Detect(p *Probe) Match {
	base := p.Base()
	if !strings.HasSuffix(base, ".jsonl") {
		return MatchNone
	}
	if strings.HasPrefix(base, "rollout-") {
		return MatchPath
	}
	for _, l := range p.Lines() {
		var payload bool
		var typ string
		wholeObject(l, func(k []byte, vs, ve int) bool {
			switch string(k) {
			case "payload":
				payload = true
			case "type":
				typ, _ = str(l[vs:ve])
			}
			return true
		})
		if payload && codexTypes[typ] {
			return MatchContent
		}
	}
	return MatchNone
}

// Notices: none; Codex's truncation marker names no file.
func (codexCLI) Notices() []NoticeRule { return nil }

// Locations: none; Codex keeps only the truncated text.
func (codexCLI) Locations(SessionRef) []Location { return nil }

func (codexCLI) SpillCandidates(named string, s SessionRef) []string {
	return []string{namedPath(named, s.Path)}
}

func (codexCLI) Read(ctx context.Context, src Source, p *Parsed) (ReadState, error) {
	return readLineLog(ctx, src, p, "Codex CLI", func(names map[string]string) func(Line, *Parsed) {
		return (&CodexReader{Names: names}).ReadLine
	})
}

func (codexCLI) ReadResult(path string, loc Locator, callID string) (retention.Result, error) {
	return lineResult(path, loc, callID, (&CodexReader{}).ReadLine)
}

// ReadOriginal reads the aggregated_output of the exec_command_end line a
// result's Original names.
func (codexCLI) ReadOriginal(path string, loc Locator, callID string) (string, error) {
	buf, err := readSpan(path, loc)
	if err != nil {
		return "", err
	}
	var id, out string
	var found bool
	if payload, ok := field(buf, "payload"); ok && len(payload) > 0 && payload[0] == '{' {
		eachField(payload, 0, func(k []byte, vs, ve int) bool {
			switch string(k) {
			case "call_id":
				id, _ = str(payload[vs:ve])
			case "aggregated_output":
				out, found = str(payload[vs:ve])
			}
			return true
		})
	}
	if !found || id != callID {
		return "", fmt.Errorf("%w: %s at %d holds no command output of %q", ErrResultGone, path, loc.Offset, callID)
	}
	return out, nil
}

var codexTypes = map[string]bool{
	"session_meta": true, "turn_context": true, "response_item": true, "event_msg": true,
	"compacted": true, "world_state": true, "inter_agent_communication": true,
	"inter_agent_communication_metadata": true,
}

// codexItems are the response_item payload types of codex-rs's
// ResponseItem (protocol/src/models.rs) and older rollouts (ghost_snapshot).
// An unknown one is counted: a new kind of item may be a tool call or its
// output the reader would miss.
var codexItems = map[string]bool{
	"message": true, "reasoning": true, "function_call": true, "function_call_output": true,
	"custom_tool_call": true, "custom_tool_call_output": true, "local_shell_call": true,
	"web_search_call": true, "image_generation_call": true, "tool_search_call": true, "tool_search_output": true,
	"ghost_snapshot": true, "compaction": true, "compaction_summary": true, "compaction_trigger": true,
	"context_compaction": true, "additional_tools": true, "agent_message": true, "other": true,
}

// CodexReader reads Codex CLI rollout lines ({timestamp, type, payload}).
type CodexReader struct {
	// Names maps call ids to tool names; seed it when resuming a file.
	Names map[string]string
	// model is the model of the turn in force (its turn_context).
	model string
	// total is the last running total a token_count reported, as its
	// call's key: Codex writes the same total again after a request, and a
	// repeat is no new call.
	total string
	// prev is that running total's counts, for a build that writes no
	// last_token_usage.
	prev *codexTokens
	// results maps this pass's call ids to their place in p.Results, for
	// the exec_command_end that follows a result.
	results map[string]int
	// startLine and startTS are where the response the next token_count
	// reports began: its first output item. Codex writes the count after
	// the response, and after the outputs of the tools it called, which
	// the next request carries, so a call is placed where it began.
	startLine int64
	startTS   string
}

// codexOutputs are the response items the model writes (an assistant
// message among messages): the first one after a call's count begins the
// next call.
var codexOutputs = map[string]bool{
	"reasoning": true, "function_call": true, "custom_tool_call": true, "local_shell_call": true,
	"web_search_call": true, "image_generation_call": true, "tool_search_call": true,
}

// ReadLine reads one rollout line into p.
func (c *CodexReader) ReadLine(l Line, p *Parsed) {
	b := l.Bytes
	var typ, ts string
	var payload []byte
	ok := scanLine(l, p, codexTypes, &typ, func(k []byte, vs, ve int) bool {
		switch string(k) {
		case "type":
			typ, _ = str(b[vs:ve])
		case "timestamp":
			ts, _ = str(b[vs:ve])
		case "payload":
			payload = b[vs:ve]
		}
		return true
	})
	if !ok {
		return
	}
	if c.Names == nil {
		c.Names = map[string]string{}
	}
	p.SeeTime(ts)
	if len(payload) == 0 || payload[0] != '{' {
		return
	}
	f := map[string][]byte{}
	eachField(payload, 0, func(k []byte, vs, ve int) bool {
		switch string(k) {
		case "type", "id", "session_id", "cwd", "model", "name", "call_id", "output", "info", "timestamp", "reason", "aggregated_output", "role":
			f[string(k)] = payload[vs:ve]
		}
		return true
	})
	s := &p.Session
	ptype, _ := str(f["type"])
	switch typ {
	case "session_meta":
		if id, _ := str(f["id"]); id != "" && s.ID == "" {
			s.ID = id
		} else if id, _ := str(f["session_id"]); id != "" && s.ID == "" {
			s.ID = id
		}
		if cwd, _ := str(f["cwd"]); cwd != "" {
			s.Cwd, s.Project = cwd, cwd
		}
		if t, _ := str(f["timestamp"]); t != "" {
			p.SeeTime(t)
		}
	case "turn_context":
		if m, _ := str(f["model"]); m != "" {
			s.Model, c.model = m, m
		}
		if cwd, _ := str(f["cwd"]); cwd != "" && s.Cwd == "" {
			s.Cwd, s.Project = cwd, cwd
		}
	case "compacted":
		// The history replaced by a summary; its context_compacted event
		// follows.
		p.AddCompaction(Compaction{Kind: CompactionCodex, At: ts, Line: l.Number})
	case "response_item":
		if !codexItems[ptype] {
			p.SkipField(l.Number, "response_item type", ptype)
		}
		if role, _ := str(f["role"]); c.startLine == 0 && (codexOutputs[ptype] || ptype == "message" && role == "assistant") {
			c.startLine, c.startTS = l.Number, ts
		}
		switch ptype {
		case "function_call", "custom_tool_call":
			id, _ := str(f["call_id"])
			name, _ := str(f["name"])
			c.Names[id] = name
			p.AddCall(id, name)
		case "function_call_output", "custom_tool_call_output":
			c.result(l, ts, f, p)
		}
	case "event_msg":
		switch ptype {
		case "token_count":
			c.tokenCount(l, ts, f["info"], p)
		case "context_compacted":
			p.CloseCompaction(Compaction{Kind: CompactionCodex, At: ts, Line: l.Number})
		case "turn_aborted":
			reason, _ := str(f["reason"])
			p.AddEvent(SessionEvent{Kind: EventTurnAborted, At: ts, Line: l.Number, Detail: reason})
		case "exec_command_end":
			c.execEnd(l, f, p)
		}
	}
}

func (c *CodexReader) result(l Line, ts string, f map[string][]byte, p *Parsed) {
	id, _ := str(f["call_id"])
	r := ToolResult{CallID: id, ToolName: c.Names[id], Time: ts,
		Locator: Locator{Offset: l.Offset, Length: l.Length}, Line: l.Number}
	blocks, problems, imgs := codexBlocks(f["output"], l.Owned)
	r.Blocks = blocks
	r.IsError = codexIsError(blocks)
	r.Cut = codexCut(blocks)
	resultProblems(p, l.Number, id, problems)
	badImages(p, l.Number, id, imgs)
	if codexWholeRun(blocks) {
		if c.results == nil {
			c.results = map[string]int{}
		}
		c.results[id] = len(p.Results)
	}
	p.AddResult(r)
}

// execEnd keeps an exec_command_end's aggregated_output as the original of
// the result of its call, when that result covers the whole run: a unified
// exec call whose process was still running when it returned saw only the
// first part of the output, and later write_stdin polls the rest, so the
// aggregate is no one result's original. A result read in an earlier pass
// is not reached.
func (c *CodexReader) execEnd(l Line, f map[string][]byte, p *Parsed) {
	id, _ := str(f["call_id"])
	i, ok := c.results[id]
	if !ok || f["aggregated_output"] == nil || i >= len(p.Results) || p.Results[i].CallID != id {
		return
	}
	if agg, _ := str(f["aggregated_output"]); agg != "" {
		if _, cut := retention.RecogniseCodexPersistenceCut(agg); cut {
			// Cut down for storage: no longer the complete output.
			return
		}
	}
	p.Results[i].Original = &OriginalRef{Locator: Locator{Offset: l.Offset, Length: l.Length}, Line: l.Number}
}

// tokenCount reads a token_count event: one model call per new running
// total, with that request's own usage (last_token_usage), and the
// model's window as Codex records it.
func (c *CodexReader) tokenCount(l Line, ts string, info []byte, p *Parsed) {
	if len(info) == 0 || info[0] != '{' {
		// Rate-limit-only events carry no usage.
		return
	}
	var tot, last []byte
	var window int64
	eachField(info, 0, func(k []byte, vs, ve int) bool {
		switch string(k) {
		case "total_token_usage":
			tot = info[vs:ve]
		case "last_token_usage":
			last = info[vs:ve]
		case "model_context_window":
			window = num(info[vs:ve])
		}
		return true
	})
	tu, tok := codexUsage(tot)
	lu, lok := codexUsage(last)
	if !tok && !lok {
		return
	}
	key := fmt.Sprintf("line:%d", l.Number)
	if tok {
		key = fmt.Sprintf("total:%d:%d:%d:%d:%d", tu.in, tu.cached, tu.cacheWrite, tu.out, tu.reasoning)
		if key == c.total {
			return
		}
		c.total = key
	}
	cumulative := false
	if !lok {
		// A build that writes only the running total: the call is what it
		// grew by since the last one. With no earlier total in this pass
		// (the first call, or the first of a resumed pass) the writer
		// takes off what the stored calls already count.
		lu, cumulative = tu, c.prev == nil
		if c.prev != nil {
			lu = codexTokens{tu.in - c.prev.in, tu.cached - c.prev.cached, tu.cacheWrite - c.prev.cacheWrite, tu.out - c.prev.out, tu.reasoning - c.prev.reasoning}
		}
	}
	if tok {
		c.prev = &tu
	}
	fresh, cached := splitCached(lu.in, lu.cached)
	line := l.Number
	if c.startLine > 0 {
		line, ts = c.startLine, c.startTS
	}
	c.startLine, c.startTS = 0, ""
	p.AddModelCall(ModelCall{Key: key, At: ts, Line: line, Input: fresh, CacheRead: cached, CacheWrite: lu.cacheWrite,
		Output: lu.out, Reasoning: lu.reasoning, Model: c.model, ContextWindow: window, cumulative: cumulative})
}

// codexTokens is one of token_count's usage objects. cached is part of
// in, reasoning part of out (FORMATS.md section 2).
type codexTokens struct{ in, cached, cacheWrite, out, reasoning int64 }

func codexUsage(v []byte) (codexTokens, bool) {
	var u codexTokens
	if len(v) == 0 || v[0] != '{' {
		return u, false
	}
	eachField(v, 0, func(k []byte, vs, ve int) bool {
		x := v[vs:ve]
		switch string(k) {
		case "input_tokens":
			u.in = num(x)
		case "cached_input_tokens":
			u.cached = num(x)
		case "cache_write_input_tokens":
			u.cacheWrite = num(x)
		case "output_tokens":
			u.out = num(x)
		case "reasoning_output_tokens":
			u.reasoning = num(x)
		}
		return true
	})
	return u, true
}

// codexWholeRun reports whether a shell result covers its command's whole
// run: anything but a unified exec chunk whose process was still running.
func codexWholeRun(blocks []retention.Block) bool {
	if len(blocks) != 1 || blocks[0].Type != retention.TypeText {
		return false
	}
	head := blocks[0].Text[:min(len(blocks[0].Text), 512)]
	return !strings.Contains(head, "\nProcess running with session ID ")
}

// codexCut is the truncation Codex made of a result, as its text records
// it; the retention package owns the wording (RecogniseCodexTruncation: the
// "Warning: truncated output (original token count: N)" header with its
// "Total output lines: L", the "…N tokens truncated…" markers). The
// original's size is the header's count, else the exec wrapper's "Original
// token count: N".
func codexCut(blocks []retention.Block) *HarnessCut {
	for _, b := range blocks {
		if b.Type != retention.TypeText {
			continue
		}
		n, ok := retention.RecogniseCodexTruncation(b.Text)
		if !ok {
			continue
		}
		tokens := n.OriginalTokens
		if tokens < 0 {
			tokens = n.ExecOriginalTokens
		}
		return &HarnessCut{By: HarnessCodex, OriginalTokens: tokens, OriginalLines: n.Lines}
	}
	return nil
}

// codexIsError recognises the exit status Codex writes into shell output;
// function_call_output has no error flag of its own.
func codexIsError(blocks []retention.Block) bool {
	if len(blocks) != 1 || blocks[0].Type != retention.TypeText {
		return false
	}
	t := blocks[0].Text
	if i := strings.Index(t, "Process exited with code "); i >= 0 && i < 512 {
		rest := t[i+len("Process exited with code "):]
		return !strings.HasPrefix(rest, "0\n") && rest != "0"
	}
	if strings.HasPrefix(t, `{"output":`) {
		if i := strings.LastIndex(t, `"exit_code":`); i >= 0 {
			rest := t[i+len(`"exit_code":`):]
			return !strings.HasPrefix(rest, "0,") && !strings.HasPrefix(rest, "0}")
		}
	}
	return false
}

// codexBlocks converts function_call_output.output: a string, or an array of
// input_text / input_image items (images as data URLs), or an unreadable
// block for an image whose bytes are no image (imgs). Texts and image URLs
// of an owned line are decoded in place (strIn), once the item's type says
// they are kept.
func codexBlocks(v []byte, owned bool) (blocks []retention.Block, problems []string, imgs []badImage) {
	if len(v) == 0 || string(v) == "null" {
		return nil, nil, nil
	}
	switch v[0] {
	case '"':
		s, ok := strIn(v, owned)
		if !ok {
			return nil, []string{"output string does not decode"}, nil
		}
		return []retention.Block{{Type: retention.TypeText, Text: s}}, nil, nil
	case '{':
		// Some builds wrap the payload as {content:[...]} or {output:"..."}.
		if c, ok := field(v, "content"); ok {
			return codexBlocks(c, owned)
		}
		if o, ok := field(v, "output"); ok {
			return codexBlocks(o, owned)
		}
		return nil, []string{"output object has neither content nor output"}, nil
	case '[':
	default:
		return nil, []string{"output is neither a string nor an array"}, nil
	}
	_, err := eachItem(v, 0, func(i, vs, ve int) bool {
		it := v[vs:ve]
		var typ string
		var text, url []byte
		eachField(it, 0, func(k []byte, vs, ve int) bool {
			switch string(k) {
			case "type":
				typ, _ = str(it[vs:ve])
			case "text":
				text = it[vs:ve]
			case "image_url":
				url = it[vs:ve]
			}
			return true
		})
		switch typ {
		case "input_text", "output_text", "text":
			t, _ := strIn(text, owned)
			blocks = append(blocks, retention.Block{Type: retention.TypeText, Text: t})
		case "input_image", "image":
			u, _ := strIn(url, owned)
			mime, data, ok := parseDataURL(u)
			if !ok {
				problems = append(problems, fmt.Sprintf("image item %d is not a base64 data URL", i))
				blocks = append(blocks, retention.Block{Type: retention.TypeImage, MimeType: mime})
				return true
			}
			b, why := imageBlock(mime, data, it)
			if why != "" {
				imgs = append(imgs, badImage{i, why})
			}
			blocks = append(blocks, b)
		default:
			blocks = append(blocks, retention.Block{Type: "unknown:" + typ, Raw: append([]byte(nil), it...)})
		}
		return true
	})
	if err != nil {
		problems = append(problems, "output array is malformed")
	}
	return blocks, problems, imgs
}

// parseDataURL splits "data:<mime>;base64,<data>".
func parseDataURL(u string) (mime, data string, ok bool) {
	rest, found := strings.CutPrefix(u, "data:")
	if !found {
		return "", "", false
	}
	meta, data, found := strings.Cut(rest, ",")
	if !found || !strings.HasSuffix(meta, ";base64") {
		return "", "", false
	}
	return strings.TrimSuffix(meta, ";base64"), data, true
}
