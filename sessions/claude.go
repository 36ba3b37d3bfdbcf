package sessions

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"spillscope/internal/jsontext"
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
	{Kind: NoticeClaudePersisted, Marker: retention.ClaudePersistedOpen, Match: func(text string) (string, bool) {
		p, ok := retention.RecogniseClaudePersistedOutput(text)
		return p.Path, ok
	}},
	{Kind: NoticeClaudeMCP, Marker: "exceeds maximum allowed tokens", Match: func(text string) (string, bool) {
		s, ok := retention.RecogniseClaudeMCPSaved(text)
		return s.Path, ok
	}},
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
	st, err := readLineLog(ctx, src, p, "Claude Code", func(names map[string]string) func(Line, *Parsed) {
		return (&ClaudeReader{Names: names}).ReadLine
	})
	if err == nil && !p.NotSession {
		claudeAgentMeta(src.Path, p)
	}
	return st, err
}

// claudeMetaBytes bounds an agent-*.meta.json: it holds a type and a
// one-line description.
const claudeMetaBytes = 64 << 10

// claudeAgentMeta names a subagent transcript (agent-<id>.jsonl) as what it
// is: a compaction (agent-acompact-*), or a subagent, typed and described
// by the agent-<id>.meta.json beside it (2.1.114). The meta file is part of
// the transcript's own layout, found from its name, never from its content.
func claudeAgentMeta(path string, p *Parsed) {
	base := filepath.Base(path)
	if !claudeAgentName.MatchString(base) {
		return
	}
	id := strings.TrimSuffix(strings.TrimPrefix(base, "agent-"), ".jsonl")
	if strings.HasPrefix(id, "acompact-") {
		p.Session.Kind = TranscriptCompaction
	} else {
		p.Session.Kind = TranscriptSubagent
	}
	if p.Session.AgentID == "" {
		p.Session.AgentID = id
	}
	f, err := os.Open(strings.TrimSuffix(path, ".jsonl") + ".meta.json")
	if err != nil {
		// Older versions write none.
		return
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, claudeMetaBytes))
	if err != nil {
		return
	}
	var meta struct {
		AgentType   string `json:"agentType"`
		Description string `json:"description"`
	}
	if err := json.Unmarshal(b, &meta); err != nil {
		p.badShape(0, filepath.Base(f.Name()), "object")
		return
	}
	p.Session.AgentType, p.Session.AgentDescription = meta.AgentType, meta.Description
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
	// custom is set once a custom-title line was read: a name the user gave
	// wins over the one the harness generated.
	custom bool
	// items and uses are ReadLine's scratch for a message's content
	// elements.
	items []claudeItem
	uses  []claudeUse
}

// claudeLine is what ReadLine takes from a line's top level.
type claudeLine struct {
	typ, subtype, ts, reqID string
	sid, agent, cwd         string
	title                   string
	msg, tur, compact, err  []byte
	summary, apiError       bool
	// A user line's message and toolUseResult walked where the line's walk
	// met them (walkUserMessage, walkToolUseResult), so their large texts
	// are not skipped whole and walked again; when a walk could not vouch
	// for a value, its flag is false and user reads the raw value as before.
	walkedMsg, walkedTur bool
	items                []claudeItem
	persisted            []byte
	hasPersisted         bool
	// An assistant line's message walked likewise (walkAssistantMessage).
	reply claudeReply
}

// claudeReply is what assistant reads of an assistant message: its members
// (the last of each name), and the tool_use elements of its content when
// walked where the line's walk met it (walked).
type claudeReply struct {
	id, model      string
	content, usage []byte
	uses           []claudeUse
	walked         bool
}

// set takes one member of an assistant message.
func (m *claudeReply) set(k, v []byte) {
	switch string(k) {
	case "id":
		m.id, _ = str(v)
	case "model":
		m.model, _ = str(v)
	case "content":
		m.content = v
	case "usage":
		m.usage = v
	}
}

// claudeUse is a tool_use element of an assistant message's content.
type claudeUse struct{ id, name string }

// claudeUseOf reads a content element: ok for a tool_use (the first type
// member says so, as field finds it), with its id and name (the last of
// each; a malformed element keeps the members before the fault).
func claudeUseOf(it []byte) (u claudeUse, ok bool) {
	if t, _ := field(it, "type"); string(t) != `"tool_use"` {
		return u, false
	}
	eachField(it, 0, func(k []byte, vs, ve int) bool {
		switch string(k) {
		case "id":
			u.id, _ = str(it[vs:ve])
		case "name":
			u.name, _ = str(it[vs:ve])
		}
		return true
	})
	return u, true
}

// walkAssistantMessage walks an assistant line's message starting at b[vs]
// down to its content's tool_use elements in one pass, as
// walkUserMessage does for a user message: m is what assistant would read
// walking the skipped message again (claudeReply.set, eachItem,
// claudeUseOf), with m.walked false where the walk could not vouch for
// every level.
func walkAssistantMessage(b []byte, vs int, uses []claudeUse) (ve int, m claudeReply, ok bool) {
	m.uses = uses[:0]
	end, _, whole := jsontext.WalkMembers(b, vs, func(k []byte, ms int) (int, bool, bool) {
		if string(k) != "content" || ms >= len(b) || b[ms] != '[' {
			e, ok := jsontext.SkipValue(b, ms)
			if ok {
				m.set(k, b[ms:e])
			}
			return e, false, ok
		}
		// The last content is the one read.
		m.uses = m.uses[:0]
		e, _, ok := jsontext.WalkElements(b, ms, func(_, is int) (int, bool, bool) {
			var typ, id, name []byte
			typed := false
			e, _, ok := jsontext.WalkMembers(b, is, func(k []byte, fs int) (int, bool, bool) {
				fe, ok := jsontext.SkipValue(b, fs)
				if ok {
					switch string(k) {
					case "type":
						if !typed {
							typ, typed = b[fs:fe], true
						}
					case "id":
						id = b[fs:fe]
					case "name":
						name = b[fs:fe]
					}
				}
				return fe, false, ok
			})
			if ok && string(typ) == `"tool_use"` {
				var u claudeUse
				u.id, _ = str(id)
				u.name, _ = str(name)
				m.uses = append(m.uses, u)
			}
			return e, false, ok
		})
		if ok {
			m.content = b[ms:e]
		}
		return e, false, ok
	})
	if whole {
		m.walked = true
		return end, m, true
	}
	ve, ok = jsontext.SkipValue(b, vs)
	return ve, claudeReply{uses: m.uses[:0]}, ok
}

// claudeItem is one element of a user message's content: the members a
// tool_result is read from (the last of each name, as encoding/json keeps).
type claudeItem struct {
	idx         int
	typ, callID string
	inner       []byte
	isErr       bool
}

// set takes one member of a content element.
func (it *claudeItem) set(k, v []byte) {
	switch string(k) {
	case "type":
		it.typ, _ = str(v)
	case "tool_use_id":
		it.callID, _ = str(v)
	case "content":
		it.inner = v
	case "is_error":
		it.isErr = isTrue(v)
	}
}

// claudeItemOf reads one content element; a malformed one keeps the
// members before the fault.
func claudeItemOf(it []byte, idx int) claudeItem {
	c := claudeItem{idx: idx}
	eachField(it, 0, func(k []byte, vs, ve int) bool {
		c.set(k, it[vs:ve])
		return true
	})
	return c
}

// walkUserMessage walks a user line's message starting at b[vs] down to its
// content's elements in one pass, appending them to items: what user would
// find walking the skipped message again (field, eachItem, claudeItemOf),
// since it vouches only for a message whose every level it walked whole.
// walked is false where it could not (the caller then skips the value as
// before and user walks it); ve is the value's end either way, ok false
// where even skipping fails.
func walkUserMessage(b []byte, vs int, items []claudeItem) (ve int, out []claudeItem, walked, ok bool) {
	n := len(items)
	content := false
	end, _, whole := jsontext.WalkMembers(b, vs, func(k []byte, ms int) (int, bool, bool) {
		if content || string(k) != "content" || ms >= len(b) || b[ms] != '[' {
			if string(k) == "content" {
				// user reads the first content only.
				content = true
			}
			e, ok := jsontext.SkipValue(b, ms)
			return e, false, ok
		}
		content = true
		e, _, ok := jsontext.WalkElements(b, ms, func(idx, is int) (int, bool, bool) {
			it := claudeItem{idx: idx}
			e, _, ok := jsontext.WalkMembers(b, is, func(k []byte, fs int) (int, bool, bool) {
				fe, ok := jsontext.SkipValue(b, fs)
				if ok {
					it.set(k, b[fs:fe])
				}
				return fe, false, ok
			})
			items = append(items, it)
			return e, false, ok
		})
		return e, false, ok
	})
	if whole {
		return end, items, true, true
	}
	clear(items[n:])
	ve, ok = jsontext.SkipValue(b, vs)
	return ve, items[:n], false, ok
}

// walkToolUseResult walks a toolUseResult starting at b[vs] for its
// top-level persistedOutputPath (the first, as field finds it), as
// walkUserMessage does for the message.
func walkToolUseResult(b []byte, vs int) (ve int, path []byte, has, walked, ok bool) {
	if vs < len(b) && b[vs] == '{' {
		end, _, whole := jsontext.WalkMembers(b, vs, func(k []byte, ms int) (int, bool, bool) {
			e, ok := jsontext.SkipValue(b, ms)
			if ok && !has && string(k) == "persistedOutputPath" {
				path, has = b[ms:e], true
			}
			return e, false, ok
		})
		if whole {
			return end, path, has, true, true
		}
		ve, ok = jsontext.SkipValue(b, vs)
		return ve, nil, false, false, ok
	}
	// Not an object: field finds nothing in it.
	ve, ok = jsontext.SkipValue(b, vs)
	return ve, nil, false, true, ok
}

// ReadLine reads one line into p. Bad lines become diagnostics.
func (c *ClaudeReader) ReadLine(l Line, p *Parsed) {
	b := l.Bytes
	x := claudeLine{items: c.items[:0]}
	defer func() {
		// The scratch must not keep this line's bytes alive.
		clear(x.items)
		c.items = x.items[:0]
	}()
	ok := walkLine(l, p, claudeTypes, &x.typ, func(k []byte, vs int) (int, bool, bool) {
		switch string(k) {
		case "message":
			if x.typ == "user" {
				clear(x.items)
				ve, items, walked, ok := walkUserMessage(b, vs, x.items[:0])
				x.items = items
				if !ok {
					return 0, false, false
				}
				x.msg, x.walkedMsg = b[vs:ve], walked
				return ve, false, true
			}
			x.walkedMsg = false
			if x.typ == "assistant" {
				ve, reply, ok := walkAssistantMessage(b, vs, c.uses)
				c.uses = reply.uses[:0]
				if !ok {
					return 0, false, false
				}
				x.msg, x.reply = b[vs:ve], reply
				return ve, false, true
			}
			x.reply.walked = false
		case "toolUseResult":
			ve, path, has, walked, ok := walkToolUseResult(b, vs)
			if !ok {
				return 0, false, false
			}
			x.tur, x.persisted, x.hasPersisted, x.walkedTur = b[vs:ve], path, has, walked
			return ve, false, true
		}
		ve, ok := jsontext.SkipValue(b, vs)
		if !ok {
			return 0, false, false
		}
		v := b[vs:ve]
		switch string(k) {
		case "type":
			x.typ, _ = str(v)
			if claudeSkip[x.typ] {
				return ve, true, true
			}
		case "subtype":
			x.subtype, _ = str(v)
		case "timestamp":
			x.ts, _ = str(v)
		case "sessionId":
			x.sid, _ = str(v)
		case "agentId":
			x.agent, _ = str(v)
		case "cwd":
			x.cwd, _ = str(v)
		case "requestId":
			x.reqID, _ = str(v)
		case "message":
			x.msg = v
		case "compactMetadata":
			x.compact = v
		case "isCompactSummary":
			x.summary = isTrue(v)
		case "error":
			x.err = v
		case "customTitle", "aiTitle":
			x.title, _ = str(v)
		}
		return ve, false, true
	})
	if !ok || claudeSkip[x.typ] {
		return
	}
	if c.Names == nil {
		c.Names = map[string]string{}
	}
	s := &p.Session
	if s.ID == "" && x.sid != "" {
		s.ID = x.sid
	}
	if s.AgentID == "" && x.agent != "" {
		s.AgentID = x.agent
	}
	if x.cwd != "" {
		if s.Cwd == "" {
			s.Cwd = x.cwd
		}
		if s.Project == "" {
			s.Project = x.cwd
		}
	}
	p.SeeTime(x.ts)
	switch x.typ {
	case "custom-title":
		if x.title != "" {
			s.Title, c.custom = x.title, true
		}
		return
	case "ai-title":
		if x.title != "" && !c.custom {
			s.Title = x.title
		}
		return
	case "system":
		c.system(l, x, p)
		return
	}
	if x.msg == nil {
		return
	}
	switch x.typ {
	case "assistant":
		c.assistant(l, x, p)
	case "user":
		if x.summary {
			// The summary a compaction left, shown to the model as the
			// first user message after its boundary.
			p.CloseCompaction(Compaction{Kind: CompactionClaude, At: x.ts, Line: l.Number})
		}
		c.user(l, &x, p)
	}
}

// system reads the system lines that are facts of the session: a compact
// boundary, and an API error the harness retried after (not a fault of the
// log: the session recorded it).
func (c *ClaudeReader) system(l Line, x claudeLine, p *Parsed) {
	switch x.subtype {
	case "compact_boundary":
		cp := Compaction{Kind: CompactionClaude, At: x.ts, Line: l.Number}
		if len(x.compact) > 0 && x.compact[0] == '{' {
			eachField(x.compact, 0, func(k []byte, vs, ve int) bool {
				switch string(k) {
				case "trigger":
					cp.Trigger, _ = str(x.compact[vs:ve])
				case "preTokens":
					cp.TokensBefore = num(x.compact[vs:ve])
				}
				return true
			})
		}
		p.AddCompaction(cp)
	case "api_error":
		e := SessionEvent{Kind: EventAPIError, At: x.ts, Line: l.Number}
		if len(x.err) > 0 && x.err[0] == '{' {
			if v, ok := field(x.err, "status"); ok {
				e.Detail = string(v)
				if sv, ok := str(v); ok {
					e.Detail = sv
				}
			}
		}
		p.AddEvent(e)
	}
}

func (c *ClaudeReader) assistant(l Line, x claudeLine, p *Parsed) {
	m := x.reply
	if !m.walked {
		m = claudeReply{}
		msg := x.msg
		if _, _, err := eachField(msg, 0, func(k []byte, vs, ve int) bool {
			m.set(k, msg[vs:ve])
			return true
		}); err != nil {
			p.badShape(l.Number, "message", "object")
			return
		}
	}
	id, model, content, usage := m.id, m.model, m.content, m.usage
	// A <synthetic> line is the harness's stand-in for a failed request
	// (isApiErrorMessage, all-zero usage): no model was called, so it
	// neither names the session's model (nor its route) nor counts as a
	// call.
	synthetic := model == "<synthetic>"
	if model != "" && !synthetic {
		p.Session.Model = model
	}
	if len(content) > 0 && content[0] == '[' {
		uses, err := m.uses, error(nil)
		if !m.walked {
			_, err = eachItem(content, 0, func(_, vs, ve int) bool {
				if u, ok := claudeUseOf(content[vs:ve]); ok {
					uses = append(uses, u)
				}
				return true
			})
		}
		for _, u := range uses {
			c.Names[u.id] = u.name
			p.AddCall(u.id, u.name)
		}
		if err != nil {
			p.badShape(l.Number, "message.content", "array")
		}
	}
	if synthetic || len(usage) == 0 || usage[0] != '{' {
		return
	}
	// One response is split over several lines, each repeating its ids
	// and usage (output growing): the last line's counts are the call's.
	key := id + "|" + x.reqID
	if id == "" && x.reqID == "" {
		key = fmt.Sprintf("line:%d", l.Number)
	}
	mc := ModelCall{Key: key, At: x.ts, Line: l.Number, Model: model}
	eachField(usage, 0, func(k []byte, vs, ve int) bool {
		v := usage[vs:ve]
		switch string(k) {
		case "input_tokens":
			mc.Input = num(v)
		case "output_tokens":
			mc.Output = num(v)
		case "cache_read_input_tokens":
			mc.CacheRead = num(v)
		case "cache_creation_input_tokens":
			mc.CacheWrite = num(v)
		}
		return true
	})
	p.AddModelCall(mc)
}

func (c *ClaudeReader) user(l Line, x *claudeLine, p *Parsed) {
	items := x.items
	var err error
	if !x.walkedMsg {
		clear(items)
		items = items[:0]
		content, ok := field(x.msg, "content")
		if !ok || len(content) == 0 || content[0] != '[' {
			return
		}
		_, err = eachItem(content, 0, func(idx, vs, ve int) bool {
			items = append(items, claudeItemOf(content[vs:ve], idx))
			return true
		})
		x.items = items
	}
	var found []ToolResult
	for _, it := range items {
		if it.typ != "tool_result" {
			continue
		}
		r := ToolResult{
			CallID: it.callID, ToolName: c.Names[it.callID], Time: x.ts, IsError: it.isErr,
			Locator: Locator{Offset: l.Offset, Length: l.Length, Index: it.idx}, Line: l.Number,
		}
		blocks, bad, imgs := claudeBlocks(it.inner, l.Owned, &r.checked)
		r.Blocks = blocks
		resultProblems(p, l.Number, it.callID, bad)
		badImages(p, l.Number, it.callID, imgs)
		for _, b := range blocks {
			if !claudeBlockTypes[b.Type] && !strings.HasPrefix(b.Type, "invalid") {
				p.SkipField(l.Number, "tool_result block type", b.Type)
			}
		}
		found = append(found, r)
	}
	if err != nil {
		p.badShape(l.Number, "message.content", "array")
	}
	// Newer versions also name the spill file in toolUseResult; a line
	// carries one toolUseResult, so it can only be tied to a lone result.
	if len(found) == 1 {
		v, ok := x.persisted, x.hasPersisted
		if !x.walkedTur && bytes.Contains(x.tur, []byte(`"persistedOutputPath"`)) {
			v, ok = field(x.tur, "persistedOutputPath")
		}
		if ok {
			// The text's own notice wins (AddResult's summarize keeps it).
			summarize(&found[0])
			if found[0].Notice == nil {
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

// claudeBlockTypes are the block types a tool_result's content holds
// (FORMATS.md section 1); another is kept as an unknown block and counted.
var claudeBlockTypes = map[string]bool{retention.TypeText: true, retention.TypeImage: true, retention.TypeToolReference: true}

// claudeBlocks converts a tool_result's content (string or block array) to
// retention blocks. Claude's image blocks carry {source:{media_type,data}};
// they become MCP-shaped images with base64 Data, or unreadable blocks
// (imgs) when their bytes are no image. Texts and image data of an owned
// line are decoded in place (strIn).
//
// The decoded bytes of each image that passed its check are appended to
// kept, for the caller to release.
func claudeBlocks(v []byte, owned bool, kept *[]checkedImage) (blocks []retention.Block, problems []string, imgs []badImage) {
	if len(v) == 0 || string(v) == "null" {
		return nil, nil, nil
	}
	if v[0] == '"' {
		s, ok := strIn(v, owned)
		if !ok {
			return nil, []string{"content string does not decode"}, nil
		}
		return []retention.Block{{Type: retention.TypeText, Text: s}}, nil, nil
	}
	if v[0] != '[' {
		return nil, []string{"content is neither a string nor an array"}, nil
	}
	_, _, whole := jsontext.WalkElements(v, 0, func(i, is int) (int, bool, bool) {
		var typ string
		var text, source []byte
		set := func(k, val []byte) {
			switch string(k) {
			case "type":
				typ, _ = str(val)
			case "text":
				text = val
			case "source":
				source = val
			}
		}
		// The block's members are taken as its walk meets them, the block
		// walked once; one that walk cannot follow is skipped whole and
		// read up to its fault, as before.
		ie, _, ok := jsontext.WalkMembers(v, is, func(k []byte, fs int) (int, bool, bool) {
			fe, ok := jsontext.SkipValue(v, fs)
			if ok {
				set(k, v[fs:fe])
			}
			return fe, false, ok
		})
		if !ok {
			typ, text, source = "", nil, nil
			if ie, ok = jsontext.SkipValue(v, is); !ok {
				return 0, false, false
			}
			it := v[is:ie]
			eachField(it, 0, func(k []byte, vs, ve int) bool {
				set(k, it[vs:ve])
				return true
			})
		}
		it := v[is:ie]
		switch typ {
		case "text":
			// Decoded once the type is known: another type's block is
			// parsed from its raw bytes below, which must stay intact.
			t, _ := strIn(text, owned)
			blocks = append(blocks, retention.Block{Type: retention.TypeText, Text: t})
		case "image":
			var mime, data string
			if source != nil {
				eachField(source, 0, func(k []byte, vs, ve int) bool {
					switch string(k) {
					case "media_type":
						mime, _ = str(source[vs:ve])
					case "data":
						data, _ = strIn(source[vs:ve], owned)
					}
					return true
				})
			}
			if data == "" {
				problems = append(problems, fmt.Sprintf("image block %d has no base64 data", i))
				blocks = append(blocks, retention.Block{Type: retention.TypeImage, MimeType: mime})
				return ie, false, true
			}
			b, why, img := checkImage(mime, data)
			if why != "" {
				imgs = append(imgs, badImage{i, why})
			}
			if img.bp != nil {
				img.block = len(blocks)
				*kept = append(*kept, img)
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
		return ie, false, true
	})
	if !whole {
		problems = append(problems, "content array is malformed")
	}
	return blocks, problems, imgs
}
