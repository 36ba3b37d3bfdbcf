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

var codexTypes = map[string]bool{
	"session_meta": true, "turn_context": true, "response_item": true, "event_msg": true,
	"compacted": true, "world_state": true, "inter_agent_communication": true,
	"inter_agent_communication_metadata": true,
}

// CodexReader reads Codex CLI rollout lines ({timestamp, type, payload}).
type CodexReader struct {
	// Names maps call ids to tool names; seed it when resuming a file.
	Names map[string]string
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
		case "type", "id", "session_id", "cwd", "model", "name", "call_id", "output", "info", "timestamp":
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
			s.Model = m
		}
		if cwd, _ := str(f["cwd"]); cwd != "" && s.Cwd == "" {
			s.Cwd, s.Project = cwd, cwd
		}
	case "response_item":
		switch ptype {
		case "function_call", "custom_tool_call":
			id, _ := str(f["call_id"])
			name, _ := str(f["name"])
			c.Names[id] = name
			p.AddCall(id, name)
		case "function_call_output", "custom_tool_call_output":
			id, _ := str(f["call_id"])
			r := ToolResult{CallID: id, ToolName: c.Names[id], Time: ts,
				Locator: Locator{Offset: l.Offset, Length: l.Length}, Line: l.Number}
			blocks, problems := codexBlocks(f["output"], l.Owned)
			r.Blocks = blocks
			r.IsError = codexIsError(blocks)
			resultProblems(p, l.Number, id, problems)
			p.AddResult(r)
		}
	case "event_msg":
		if ptype == "token_count" {
			info := f["info"]
			if len(info) == 0 || info[0] != '{' {
				return
			}
			tot, ok := field(info, "total_token_usage")
			if !ok || len(tot) == 0 || tot[0] != '{' {
				return
			}
			var in, cached, cw, out, reas int64
			eachField(tot, 0, func(k []byte, vs, ve int) bool {
				v := tot[vs:ve]
				switch string(k) {
				case "input_tokens":
					in = num(v)
				case "cached_input_tokens":
					cached = num(v)
				case "cache_write_input_tokens":
					cw = num(v)
				case "output_tokens":
					out = num(v)
				case "reasoning_output_tokens":
					reas = num(v)
				}
				return true
			})
			fresh, cached := splitCached(in, cached)
			// total_token_usage is a running total repeated after every
			// request: the last one is the session's usage.
			p.AddUsage(Usage{Key: "total", Input: fresh, CacheRead: cached, CacheWrite: cw, Output: out, Reasoning: reas})
		}
	}
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
// input_text / input_image items (images as data URLs). Texts and image
// URLs of an owned line are decoded in place (strIn), once the item's type
// says they are kept.
func codexBlocks(v []byte, owned bool) (blocks []retention.Block, problems []string) {
	if len(v) == 0 || string(v) == "null" {
		return nil, nil
	}
	switch v[0] {
	case '"':
		s, ok := strIn(v, owned)
		if !ok {
			return nil, []string{"output string does not decode"}
		}
		return []retention.Block{{Type: retention.TypeText, Text: s}}, nil
	case '{':
		// Some builds wrap the payload as {content:[...]} or {output:"..."}.
		if c, ok := field(v, "content"); ok {
			return codexBlocks(c, owned)
		}
		if o, ok := field(v, "output"); ok {
			return codexBlocks(o, owned)
		}
		return nil, []string{"output object has neither content nor output"}
	case '[':
	default:
		return nil, []string{"output is neither a string nor an array"}
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
			}
			blocks = append(blocks, retention.Block{Type: retention.TypeImage, MimeType: mime, Data: data})
		default:
			blocks = append(blocks, retention.Block{Type: "unknown:" + typ, Raw: append([]byte(nil), it...)})
		}
		return true
	})
	if err != nil {
		problems = append(problems, "output array is malformed")
	}
	return blocks, problems
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
