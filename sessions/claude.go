package sessions

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"

	"spillscope/retention"
)

// HarnessClaude is Claude Code's name in the index.
const HarnessClaude = "claude-code"

func init() { Register(claudeCode{}) }

// claudeCode reads Claude Code transcripts:
// <config>/projects/<encoded cwd>/<session id>.jsonl, subagents under
// <session id>/subagents/agent-<id>.jsonl (FORMATS.md section 1).
type claudeCode struct{}

func (claudeCode) Name() string  { return HarnessClaude }
func (claudeCode) Label() string { return "Claude Code" }

// DefaultRoots: $CLAUDE_CONFIG_DIR/projects, else ~/.claude/projects.
func (claudeCode) DefaultRoots(env Env) []string {
	return []string{filepath.Join(env.Dir("CLAUDE_CONFIG_DIR", filepath.Join(env.Home(), ".claude")), "projects")}
}

var (
	claudeSessionName = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)
	claudeAgentName   = regexp.MustCompile(`^agent-[A-Za-z0-9_-]+\.jsonl$`)
)

// claudeIDKeys are top-level keys only Claude Code's records carry (beside
// a type it writes); another format's line with a "user" type lacks them.
var claudeIDKeys = map[string]bool{"sessionId": true, "uuid": true, "parentUuid": true, "leafUuid": true, "messageId": true}

// Detect: a line of a Claude type carrying one of its id keys; or, for a
// file with no such line (0 bytes, say), its own layout: a session-id-named
// transcript in a project folder of "projects", or a subagent transcript
// beside one.
func (claudeCode) Detect(p *Probe) Match {
	base := p.Base()
	if !strings.HasSuffix(base, ".jsonl") {
		return MatchNone
	}
	for _, l := range p.Lines() {
		var typ string
		var id bool
		wholeObject(l, func(k []byte, vs, ve int) bool {
			switch key := string(k); {
			case key == "type":
				typ, _ = str(l[vs:ve])
			case claudeIDKeys[key]:
				id = true
			}
			return true
		})
		if id && claudeTypes[typ] {
			return MatchContent
		}
	}
	dir := filepath.Dir(p.Path)
	switch {
	case claudeSessionName.MatchString(strings.TrimSuffix(base, ".jsonl")) && filepath.Base(filepath.Dir(dir)) == "projects":
		return MatchPath
	case claudeAgentName.MatchString(base) && filepath.Base(dir) == "subagents" && claudeSessionName.MatchString(filepath.Base(filepath.Dir(dir))):
		return MatchPath
	}
	return MatchNone
}

// Claude Code's notice kinds.
const (
	NoticeClaudePersisted = "claude-persisted-output"
	NoticeClaudeMCP       = "claude-mcp-saved"
)

// Notices: <persisted-output>…Full output saved to: <path> (2.1.x, and the
// short "Tool result saved to:" form), and the MCP "… exceeds maximum
// allowed tokens. Output has been saved to <path>." (FORMATS.md section 1).
func (claudeCode) Notices() []NoticeRule { return claudeNotices }

var claudeNotices = []NoticeRule{
	{Kind: NoticeClaudePersisted, Marker: "<persisted-output>",
		Pattern: regexp.MustCompile(`<persisted-output>[\s\S]*?(?:Full output saved to|Tool result saved to):[ \t]*([^\n]+?)[ \t]*(?:\n|</persisted-output>|$)`)},
	{Kind: NoticeClaudeMCP, Marker: "exceeds maximum allowed tokens",
		Pattern: regexp.MustCompile(`exceeds maximum allowed tokens\. Output has been saved to ([^\n]+?)\.?[ \t]*(?:\n|$)`)},
}

// claudeProject is the project folder a transcript belongs to: its own
// folder, or three up for a subagent's (<project>/<session>/subagents/).
func claudeProject(path string) string {
	dir := filepath.Dir(path)
	if filepath.Base(dir) == "subagents" {
		return filepath.Dir(filepath.Dir(dir))
	}
	return dir
}

// claudeSession is the session whose folder holds a transcript's spill
// files: its session id, else (no line named one) its file name.
func claudeSession(s SessionRef) string {
	if s.SessionID != "" {
		return s.SessionID
	}
	return strings.TrimSuffix(filepath.Base(s.Path), ".jsonl")
}

// claudeSpillName is the shape of Claude Code's spill file names: the
// tool_use id (or a short random id in /tmp) with .txt, or .json for an
// array of content blocks.
const claudeSpillName = `[A-Za-z0-9][A-Za-z0-9_.-]*\.(?:txt|json)`

// Locations: <project>/<session>/tool-results/ beside the transcript, and
// the temp folders Claude Code 2.1.x writes: /tmp/claude-tool-results/ and
// /tmp/claude-<uid>/<project>/<session>/{tool-results,tasks}/.
func (claudeCode) Locations(s SessionRef) []Location {
	sid := regexp.QuoteMeta(claudeSession(s))
	var out []Location
	if l, ok := SessionLocation(s.Root, claudeProject(s.Path), sid+`/tool-results/`+claudeSpillName+`$`); ok {
		out = append(out, l)
	}
	out = append(out, TempLocations(s.Env, `^claude-tool-results/`+claudeSpillName+`$`)...)
	return append(out, TempLocations(s.Env, `^claude-[0-9]+/[^/]+/`+sid+`/(?:tool-results/`+claudeSpillName+`|tasks/[A-Za-z0-9_.-]+\.output)$`)...)
}

// SpillCandidates: the named path, then the same name in the session's
// tool-results folder beside the transcript (a copied session folder).
func (claudeCode) SpillCandidates(named string, s SessionRef) []string {
	base := filepath.Base(filepath.FromSlash(named))
	return []string{namedPath(named, s.Path), filepath.Join(claudeProject(s.Path), claudeSession(s), "tool-results", base)}
}

func (claudeCode) Read(ctx context.Context, src Source, p *Parsed) (ReadState, error) {
	return readLineLog(ctx, src, p, "Claude Code", func(names map[string]string) func(Line, *Parsed) {
		return (&ClaudeReader{Names: names}).ReadLine
	})
}

func (claudeCode) ReadResult(path string, loc Locator, callID string) (retention.Result, error) {
	return lineResult(path, loc, callID, (&ClaudeReader{}).ReadLine)
}

// claudeTypes are the top-level line types Claude Code writes; anything else
// is reported once per line as unknown but never stops the file.
var claudeTypes = map[string]bool{
	"user": true, "assistant": true, "system": true, "summary": true, "progress": true,
	"file-history-snapshot": true, "queue-operation": true, "attachment": true,
	"permission-mode": true, "custom-title": true, "ai-title": true, "agent-name": true,
	"last-prompt": true, "pr-link": true, "agent-setting": true, "bridge-session": true,
	"worktree-state": true,
}

// claudeSkip are types whose lines carry nothing the index keeps. progress
// lines embed copies of subagent messages: reading them would count tool
// results and usage twice.
var claudeSkip = map[string]bool{
	"progress": true, "file-history-snapshot": true, "queue-operation": true, "summary": true,
}

// ClaudeReader reads Claude Code transcript lines. It remembers tool_use ids
// so a tool_result gets its tool's name.
type ClaudeReader struct {
	// Names maps tool_use ids to tool names; seed it when resuming a file.
	Names map[string]string
}

// ReadLine reads one line into p. Bad lines become diagnostics.
func (c *ClaudeReader) ReadLine(l Line, p *Parsed) {
	b := l.Bytes
	var typ, ts, reqID string
	var msg, tur []byte
	var info struct{ sid, agent, cwd string }
	ok := scanLine(l, p, claudeTypes, &typ, func(k []byte, vs, ve int) bool {
		v := b[vs:ve]
		switch string(k) {
		case "type":
			typ, _ = str(v)
			if claudeSkip[typ] {
				return false
			}
		case "timestamp":
			ts, _ = str(v)
		case "sessionId":
			info.sid, _ = str(v)
		case "agentId":
			info.agent, _ = str(v)
		case "cwd":
			info.cwd, _ = str(v)
		case "requestId":
			reqID, _ = str(v)
		case "message":
			msg = v
		case "toolUseResult":
			tur = v
		}
		return true
	})
	if !ok || claudeSkip[typ] {
		return
	}
	if c.Names == nil {
		c.Names = map[string]string{}
	}
	s := &p.Session
	if s.ID == "" && info.sid != "" {
		s.ID = info.sid
	}
	if s.AgentID == "" && info.agent != "" {
		s.AgentID = info.agent
	}
	if info.cwd != "" {
		if s.Cwd == "" {
			s.Cwd = info.cwd
		}
		if s.Project == "" {
			s.Project = info.cwd
		}
	}
	p.SeeTime(ts)
	if msg == nil {
		return
	}
	switch typ {
	case "assistant":
		c.assistant(l, msg, reqID, p)
	case "user":
		c.user(l, msg, ts, tur, p)
	}
}

func (c *ClaudeReader) assistant(l Line, msg []byte, reqID string, p *Parsed) {
	var id, model string
	var content, usage []byte
	_, _, err := eachField(msg, 0, func(k []byte, vs, ve int) bool {
		switch string(k) {
		case "id":
			id, _ = str(msg[vs:ve])
		case "model":
			model, _ = str(msg[vs:ve])
		case "content":
			content = msg[vs:ve]
		case "usage":
			usage = msg[vs:ve]
		}
		return true
	})
	if err != nil {
		p.badShape(l.Number, "message", "object")
		return
	}
	if model != "" && model != "<synthetic>" {
		p.Session.Model = model
	}
	if len(content) > 0 && content[0] == '[' {
		_, err := eachItem(content, 0, func(_, vs, ve int) bool {
			it := content[vs:ve]
			if t, _ := field(it, "type"); string(t) != `"tool_use"` {
				return true
			}
			var tid, name string
			eachField(it, 0, func(k []byte, vs, ve int) bool {
				switch string(k) {
				case "id":
					tid, _ = str(it[vs:ve])
				case "name":
					name, _ = str(it[vs:ve])
				}
				return true
			})
			c.Names[tid] = name
			p.AddCall(tid, name)
			return true
		})
		if err != nil {
			p.badShape(l.Number, "message.content", "array")
		}
	}
	if len(usage) > 0 && usage[0] == '{' {
		key := id + "|" + reqID
		if id == "" && reqID == "" {
			key = fmt.Sprintf("line:%d", l.Number)
		}
		u := Usage{Key: key}
		eachField(usage, 0, func(k []byte, vs, ve int) bool {
			v := usage[vs:ve]
			switch string(k) {
			case "input_tokens":
				u.Input = num(v)
			case "output_tokens":
				u.Output = num(v)
			case "cache_read_input_tokens":
				u.CacheRead = num(v)
			case "cache_creation_input_tokens":
				u.CacheWrite = num(v)
			}
			return true
		})
		p.AddUsage(u)
	}
}

func (c *ClaudeReader) user(l Line, msg []byte, ts string, tur []byte, p *Parsed) {
	content, ok := field(msg, "content")
	if !ok || len(content) == 0 || content[0] != '[' {
		return
	}
	var found []ToolResult
	_, err := eachItem(content, 0, func(idx, vs, ve int) bool {
		it := content[vs:ve]
		var typ, callID string
		var inner []byte
		var isErr bool
		eachField(it, 0, func(k []byte, vs, ve int) bool {
			v := it[vs:ve]
			switch string(k) {
			case "type":
				typ, _ = str(v)
			case "tool_use_id":
				callID, _ = str(v)
			case "content":
				inner = v
			case "is_error":
				isErr = isTrue(v)
			}
			return true
		})
		if typ != "tool_result" {
			return true
		}
		r := ToolResult{
			CallID: callID, ToolName: c.Names[callID], Time: ts, IsError: isErr,
			Locator: Locator{Offset: l.Offset, Length: l.Length, Index: idx}, Line: l.Number,
		}
		blocks, bad := claudeBlocks(inner, l.Owned)
		r.Blocks = blocks
		resultProblems(p, l.Number, callID, bad)
		found = append(found, r)
		return true
	})
	if err != nil {
		p.badShape(l.Number, "message.content", "array")
	}
	// Newer versions also name the spill file in toolUseResult; a line
	// carries one toolUseResult, so it can only be tied to a lone result.
	if len(found) == 1 && bytes.Contains(tur, []byte(`"persistedOutputPath"`)) {
		summarize(&found[0])
		if found[0].Notice == nil {
			if v, ok := field(tur, "persistedOutputPath"); ok {
				if path, _ := str(v); path != "" {
					found[0].Notice = &SpillNotice{Kind: NoticeClaudePersisted, Path: path}
				}
			}
		}
	}
	for _, r := range found {
		p.AddResult(r)
	}
}

// claudeBlocks converts a tool_result's content (string or block array) to
// retention blocks. Claude's image blocks carry {source:{media_type,data}};
// they become MCP-shaped images with base64 Data. Texts and image data of
// an owned line are decoded in place (strIn).
func claudeBlocks(v []byte, owned bool) (blocks []retention.Block, problems []string) {
	if len(v) == 0 || string(v) == "null" {
		return nil, nil
	}
	if v[0] == '"' {
		s, ok := strIn(v, owned)
		if !ok {
			return nil, []string{"content string does not decode"}
		}
		return []retention.Block{{Type: retention.TypeText, Text: s}}, nil
	}
	if v[0] != '[' {
		return nil, []string{"content is neither a string nor an array"}
	}
	_, err := eachItem(v, 0, func(i, vs, ve int) bool {
		it := v[vs:ve]
		var typ string
		var text, source []byte
		eachField(it, 0, func(k []byte, vs, ve int) bool {
			switch string(k) {
			case "type":
				typ, _ = str(it[vs:ve])
			case "text":
				text = it[vs:ve]
			case "source":
				source = it[vs:ve]
			}
			return true
		})
		switch typ {
		case "text":
			// Decoded once the type is known: another type's block is
			// parsed from its raw bytes below, which must stay intact.
			t, _ := strIn(text, owned)
			blocks = append(blocks, retention.Block{Type: retention.TypeText, Text: t})
		case "image":
			b := retention.Block{Type: retention.TypeImage}
			if source != nil {
				eachField(source, 0, func(k []byte, vs, ve int) bool {
					switch string(k) {
					case "media_type":
						b.MimeType, _ = str(source[vs:ve])
					case "data":
						b.Data, _ = strIn(source[vs:ve], owned)
					}
					return true
				})
			}
			if b.Data == "" {
				problems = append(problems, fmt.Sprintf("image block %d has no base64 data", i))
			}
			blocks = append(blocks, b)
		default:
			b, err := retention.ParseBlock(json.RawMessage(it))
			if err != nil {
				problems = append(problems, fmt.Sprintf("block %d: %v", i, err))
				b = retention.Block{Type: "invalid", Raw: append(json.RawMessage(nil), it...)}
			}
			blocks = append(blocks, b)
		}
		return true
	})
	if err != nil {
		problems = append(problems, "content array is malformed")
	}
	return blocks, problems
}
