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
	"time"

	"spillscope/internal/jsontext"
	"spillscope/retention"
)

// HarnessGemini is Gemini CLI's name in the index.
const HarnessGemini = "gemini-cli"

func init() { Register(geminiCLI{}) }

// geminiCLI reads Gemini CLI chat files under <gemini dir>/tmp/<project>/
// chats/ (FORMATS.md section 3): the older JSON documents (session-*.json,
// rewritten every turn) and the JSONL recordings (session-*.jsonl, and a
// subagent's <parent session>/<session>.jsonl), one record a line. Both are
// read whole each time: a JSONL record can replace an earlier one (a
// message written again with its tool calls, a history set anew, a rewind),
// so what a file holds is only known from all of it. Results keep their ids
// through their natural keys.
type geminiCLI struct{}

func (geminiCLI) Name() string  { return HarnessGemini }
func (geminiCLI) Label() string { return "Gemini CLI" }

// DefaultRoots: the tmp folder of Gemini CLI's global folder, .gemini
// under its home: $GEMINI_CLI_HOME when set (packages/core/src/utils/
// paths.ts homedir()), else the user's home.
func (geminiCLI) DefaultRoots(env Env) []string {
	home := env.Dir("GEMINI_CLI_HOME", env.Home())
	return []string{filepath.Join(home, ".gemini", "tmp")}
}

// Detect: session-*.json or session-*.jsonl in a chats folder; or a .jsonl
// one folder below chats (a subagent's, named by its parent session) whose
// first line is a recording's header.
func (geminiCLI) Detect(p *Probe) Match {
	base, dir := p.Base(), filepath.Dir(p.Path)
	if strings.HasPrefix(base, "session-") && (strings.HasSuffix(base, ".json") || strings.HasSuffix(base, ".jsonl")) && filepath.Base(dir) == "chats" {
		return MatchPath
	}
	if strings.HasSuffix(base, ".jsonl") && filepath.Base(filepath.Dir(dir)) == "chats" {
		if lines := p.Lines(); len(lines) > 0 && geminiHeader(lines[0]) {
			return MatchContent
		}
	}
	return MatchNone
}

// geminiHeader reports a JSONL recording's first line: an object with a
// sessionId and a projectHash and no type.
func geminiHeader(l []byte) bool {
	var sid, hash, typ bool
	if _, err := wholeObject(l, func(k []byte, _, _ int) bool {
		switch string(k) {
		case "sessionId":
			sid = true
		case "projectHash":
			hash = true
		case "type":
			typ = true
		}
		return true
	}); err != nil {
		return false
	}
	return sid && hash && !typ
}

// Gemini CLI's notice kinds.
const (
	NoticeGemini       = retention.GeminiCurrent
	NoticeGeminiLegacy = retention.GeminiOlder
)

// Notices: "Output too large. Showing first X and last Y characters. For
// full output see: <file>", and the older "Tool output was too large and
// has been truncated. The full output has been saved to: <file>".
func (geminiCLI) Notices() []NoticeRule { return geminiNotices }

var geminiNotices = []NoticeRule{
	kitNotice(NoticeGemini, "For full output see:", recogniseGemini),
	kitNotice(NoticeGeminiLegacy, "The full output has been saved to:", recogniseGemini),
}

func recogniseGemini(text string) (string, string, bool) {
	g, ok := retention.RecogniseGeminiTruncation(text)
	return g.Kind, g.Path, ok
}

// geminiProject is a chat file's project temp folder, <tmp>/<project>.
func geminiProject(path string) string { return filepath.Dir(filepath.Dir(path)) }

// Locations: <project>/tool-outputs/[session-<id>/]<tool>_<call>.txt
// (packages/core/src/utils/fileUtils.ts), and the older
// <project>/<call id>.output.
func (geminiCLI) Locations(s SessionRef) []Location {
	var out []Location
	sub := ""
	if s.SessionID != "" {
		sub = `(?:session-` + regexp.QuoteMeta(s.SessionID) + `/)?`
	}
	proj := geminiProject(s.Path)
	if l, ok := SessionLocation(s.Root, proj, `tool-outputs/`+sub+`[A-Za-z0-9][A-Za-z0-9_.-]*\.txt$`); ok {
		out = append(out, l)
	}
	if l, ok := SessionLocation(s.Root, proj, `[A-Za-z0-9][A-Za-z0-9_.-]*\.output$`); ok {
		out = append(out, l)
	}
	return out
}

// SpillCandidates: the named path, then its place under this project's
// folder (a copied tmp folder).
func (geminiCLI) SpillCandidates(named string, s SessionRef) []string {
	proj := geminiProject(s.Path)
	out := []string{namedPath(named, s.Path)}
	if _, rest, ok := strings.Cut(filepath.ToSlash(named), "/tool-outputs/"); ok {
		out = append(out, filepath.Join(proj, "tool-outputs", filepath.FromSlash(rest)))
	}
	return append(out, filepath.Join(proj, filepath.Base(filepath.FromSlash(named))))
}

func (geminiCLI) Read(ctx context.Context, src Source, p *Parsed) (ReadState, error) {
	doc, ok := readDoc(src, p)
	if !ok {
		return ReadState{Mode: ReadAll}, nil
	}
	if midRewrite(src, doc) {
		// Gemini CLI rewrites the file in place each turn (and appends a
		// JSONL record a write at a time): a file cut short while it does is
		// read again once the writer is done, so its results neither leave
		// the index nor come back under new ids.
		return ReadState{Mode: ReadAll, Retry: true}, nil
	}
	if strings.HasSuffix(src.Path, ".jsonl") {
		ReadGeminiLines(doc, p)
		geminiSubagent(src.Path, p)
	} else {
		ReadGeminiDoc(doc, p)
	}
	return ReadState{Mode: ReadAll}, ctx.Err()
}

// geminiSubagent files a subagent's recording (header kind "subagent",
// written to chats/<parent session>/<session>.jsonl) under its parent, as
// Claude Code's are: the parent's session id, its own as the agent's.
func geminiSubagent(path string, p *Parsed) {
	if p.Session.Kind != TranscriptSubagent {
		return
	}
	dir := filepath.Dir(path)
	if filepath.Base(filepath.Dir(dir)) != "chats" {
		return
	}
	p.Session.AgentID, p.Session.ID = p.Session.ID, filepath.Base(dir)
}

// rewriteGrace is how long after its last write a document that does not
// parse is taken for one still being written; after it, the document is
// read as it is, with diagnostics.
const rewriteGrace = 2 * time.Second

// midRewrite reports whether a file written moments ago is not yet whole:
// a JSON document that does not parse, or a JSONL recording whose last
// record has no newline yet.
func midRewrite(src Source, doc []byte) bool {
	if time.Since(time.Unix(0, src.ModTime)) >= rewriteGrace {
		return false
	}
	if strings.HasSuffix(src.Path, ".jsonl") {
		return len(doc) > 0 && doc[len(doc)-1] != '\n'
	}
	return !json.Valid(doc)
}

// ReadResult: the locator's span is the toolCalls object itself.
func (geminiCLI) ReadResult(path string, loc Locator, callID string) (retention.Result, error) {
	buf, err := readSpan(path, loc)
	if err != nil {
		return retention.Result{}, err
	}
	r, _, _, _ := geminiCall(buf)
	if r.CallID != callID {
		return retention.Result{}, fmt.Errorf("%w: %s at %d has no result %q", ErrResultGone, path, loc.Offset, callID)
	}
	return retention.Result{Content: r.Blocks, IsError: r.IsError}, nil
}

// readDoc reads a whole JSON-document source (up to its size when found).
func readDoc(src Source, p *Parsed) ([]byte, bool) {
	f, err := os.Open(src.Path)
	if err != nil {
		p.Diag(0, DiagUnreadable, map[string]string{"error": errText(err)})
		return nil, false
	}
	defer f.Close()
	doc, err := io.ReadAll(io.LimitReader(f, src.Size))
	if err != nil {
		p.Diag(0, DiagUnreadable, map[string]string{"error": errText(err)})
		return nil, false
	}
	return doc, true
}

// ReadGeminiDoc reads a Gemini CLI chat file (one JSON document with
// messages[] and their toolCalls[]). A tool result's offset and length
// address its toolCalls object inside the document.
func ReadGeminiDoc(doc []byte, p *Parsed) {
	var messages []byte
	msgStart := 0
	_, err := wholeObject(doc, func(k []byte, vs, ve int) bool {
		v := doc[vs:ve]
		switch string(k) {
		case "messages":
			messages, msgStart = v, vs
		default:
			geminiMeta(string(k), v, p)
		}
		return true
	})
	if err != nil {
		p.badShape(1, "$", "object")
		if messages == nil {
			return
		}
	}
	if len(messages) == 0 || messages[0] != '[' {
		return
	}
	lc := lineCounter{doc: doc, line: 1}
	_, err = eachItem(messages, 0, func(i, vs, ve int) bool {
		base := msgStart + vs
		line := lc.at(base)
		geminiMessage(doc, base, msgStart+ve, line, line, fmt.Sprintf("message:%d", i), &lc, p)
		return true
	})
	if err != nil {
		p.badShape(1, "messages", "array")
	}
}

// geminiMeta reads a session field of a document, a JSONL header or a $set
// patch.
func geminiMeta(key string, v []byte, p *Parsed) {
	s := &p.Session
	switch key {
	case "sessionId":
		if id, _ := str(v); id != "" {
			s.ID = id
		}
	case "projectHash":
		if h, _ := str(v); h != "" && s.Project == "" {
			s.Project = h
		}
	case "startTime", "lastUpdated":
		t, _ := str(v)
		p.SeeTime(t)
	case "summary":
		// The CLI's one-line summary of the session: its name in lists.
		if t, _ := str(v); t != "" {
			s.Title = t
		}
	case "kind":
		if k, _ := str(v); k == "subagent" {
			s.Kind = TranscriptSubagent
		}
	}
}

// geminiMessageTypes are the message types Gemini CLI records
// (packages/core/src/services/chatRecordingTypes.ts); another is kept and
// counted.
var geminiMessageTypes = map[string]bool{"user": true, "gemini": true, "info": true, "error": true, "warning": true}

// geminiMessage reads one message record, doc[start:end]: its model call
// (first is the line it was first recorded at, fallback its key when it has
// no id) and each of its tool calls as a result at line.
func geminiMessage(doc []byte, start, end int, line, first int64, fallback string, lc *lineCounter, p *Parsed) {
	m := doc[start:end]
	var id, ts, model, typ string
	var tokens, calls []byte
	callsAt := 0
	_, _, err := eachField(m, 0, func(k []byte, vs, ve int) bool {
		v := m[vs:ve]
		switch string(k) {
		case "id":
			id, _ = str(v)
		case "type":
			typ, _ = str(v)
		case "timestamp":
			ts, _ = str(v)
		case "model":
			model, _ = str(v)
		case "tokens":
			tokens = v
		case "toolCalls":
			calls, callsAt = v, vs
		}
		return true
	})
	if err != nil {
		p.badShape(line, "message", "object")
		return
	}
	if typ != "" && !geminiMessageTypes[typ] {
		p.SkipField(line, "message type", typ)
	}
	p.SeeTime(ts)
	if model != "" {
		p.Session.Model = model
	}
	if len(tokens) > 0 && tokens[0] == '{' {
		c := ModelCall{Key: id, At: ts, Line: first, Model: model}
		if id == "" {
			c.Key = fallback
		}
		var in, cached, tool, out, thoughts int64
		eachField(tokens, 0, func(k []byte, vs, ve int) bool {
			v := tokens[vs:ve]
			switch string(k) {
			case "input":
				in = num(v)
			case "cached":
				cached = num(v)
			case "tool":
				tool = num(v)
			case "output":
				out = num(v)
			case "thoughts":
				thoughts = num(v)
			}
			return true
		})
		// promptTokenCount holds the cached part; the tool-use prompt is
		// counted apart from it; candidates leave out the thoughts.
		c.Input, c.CacheRead = splitCached(in, cached)
		c.Input += tool
		c.Output, c.Reasoning = out+thoughts, thoughts
		p.AddModelCall(c)
	}
	if len(calls) == 0 || calls[0] != '[' {
		return
	}
	eachItem(calls, 0, func(j, cs, ce int) bool {
		off := start + callsAt + cs
		r, problems, imgs, unknown := geminiCall(calls[cs:ce])
		if r.Time == "" {
			r.Time = ts
		}
		r.Locator = Locator{Offset: int64(off), Length: int64(ce - cs), Index: j}
		r.Line = line
		if lc != nil {
			r.Line = lc.at(off)
		}
		resultProblems(p, r.Line, r.CallID, problems)
		badImages(p, r.Line, r.CallID, imgs)
		for _, u := range unknown {
			p.SkipField(r.Line, "tool result part", u)
		}
		p.AddCall(r.CallID, r.ToolName)
		p.AddResult(r)
		return true
	})
}

// ReadGeminiLines reads a Gemini CLI JSONL recording (chatRecordingService.ts)
// as the CLI holds it once every line is applied: the header and $set
// patches set the session's facts ($set messages replaces the history:
// a compression or a masking), a message record replaces an earlier one
// with its id in place or joins the history, and $rewindTo cuts the history
// from the message it names (all of it when the id is not there). What
// remains is read: each message's call and tool results, at the line of
// its last record.
func ReadGeminiLines(doc []byte, p *Parsed) {
	type msg struct {
		start, end  int
		line, first int64
	}
	var order []string
	byID := map[string]msg{}
	put := func(id string, m msg) {
		if old, ok := byID[id]; ok {
			m.first = old.first
		} else {
			order = append(order, id)
		}
		byID[id] = m
	}
	lr := NewLineReader(bytes.NewReader(doc), 0, 1)
	for {
		l, err := lr.Next()
		if err != nil {
			break
		}
		b := l.Bytes
		if jsontext.SkipSpace(b, 0) == len(b) {
			continue
		}
		p.lines++
		var set, rewind, id []byte
		var header [2]bool
		var other string
		start := int(l.Offset)
		if _, err := wholeObject(b, func(k []byte, vs, ve int) bool {
			switch key := string(k); key {
			case "$set":
				set = b[vs:ve]
				start += vs
			case "$rewindTo":
				rewind = b[vs:ve]
			case "id":
				id = b[vs:ve]
			case "sessionId":
				header[0] = true
			case "projectHash":
				header[1] = true
			default:
				if other == "" && strings.HasPrefix(key, "$") {
					other = key
				}
			}
			return true
		}); err != nil {
			p.Diag(l.Number, DiagNotJSON, map[string]string{"start": lineStart(b)})
			continue
		}
		switch {
		case rewind != nil:
			p.records++
			to, _ := str(rewind)
			cut := 0
			for i, x := range order {
				if x == to {
					cut = i
					break
				}
			}
			for _, x := range order[cut:] {
				delete(byID, x)
			}
			order = order[:cut]
		case set != nil && set[0] != '{':
			p.records++
			p.badShape(l.Number, "$set", "object")
		case set != nil:
			p.records++
			eachField(set, 0, func(k []byte, vs, ve int) bool {
				v := set[vs:ve]
				if string(k) != "messages" {
					geminiMeta(string(k), v, p)
					return true
				}
				if len(v) == 0 || v[0] != '[' {
					p.badShape(l.Number, "$set.messages", "array")
					return true
				}
				p.AddCompaction(Compaction{Kind: CompactionGeminiHistory, Line: l.Number})
				kept := byID
				order, byID = nil, map[string]msg{}
				eachItem(v, 0, func(i, ms, me int) bool {
					m := msg{start: start + vs + ms, end: start + vs + me, line: l.Number, first: l.Number}
					mid, _ := field(v[ms:me], "id")
					key, _ := str(mid)
					if key == "" {
						key = fmt.Sprintf("line:%d:%d", l.Number, i)
					}
					if old, ok := kept[key]; ok {
						m.first = old.first
					}
					put(key, m)
					return true
				})
				return true
			})
		case id != nil:
			p.records++
			key, _ := str(id)
			put(key, msg{start: int(l.Offset), end: int(l.Offset) + len(b), line: l.Number, first: l.Number})
		case header[0] && header[1]:
			p.records++
			wholeObject(b, func(k []byte, vs, ve int) bool {
				geminiMeta(string(k), b[vs:ve], p)
				return true
			})
		case other != "":
			p.SkipType(l.Number, other)
		default:
			p.SkipType(l.Number, "record without id")
		}
	}
	notASession(p, "Gemini CLI")
	for _, key := range order {
		m := byID[key]
		geminiMessage(doc, m.start, m.end, m.line, m.first, key, nil, p)
	}
}

// geminiCall reads one toolCalls entry: {id, name, result:[{functionResponse:
// {id, name, response:{output|error}}} | {inlineData:{mimeType,data}} |
// {text}], status}. Images whose bytes are no image are imgs; parts of
// another kind are named in unknown.
func geminiCall(c []byte) (r ToolResult, problems []string, imgs []badImage, unknown []string) {
	var result []byte
	var status string
	_, _, err := eachField(c, 0, func(k []byte, vs, ve int) bool {
		v := c[vs:ve]
		switch string(k) {
		case "id":
			r.CallID, _ = str(v)
		case "name":
			r.ToolName, _ = str(v)
		case "timestamp":
			r.Time, _ = str(v)
		case "status":
			status, _ = str(v)
		case "result":
			result = v
		}
		return true
	})
	if err != nil {
		return r, []string{"tool call is not a JSON object"}, nil, nil
	}
	r.IsError = status == "error" || status == "cancelled"
	if len(result) == 0 || result[0] != '[' {
		return r, nil, nil, nil
	}
	eachItem(result, 0, func(i, vs, ve int) bool {
		part := result[vs:ve]
		if fr, ok := field(part, "functionResponse"); ok {
			resp, _ := field(fr, "response")
			if len(resp) > 0 && resp[0] == '{' {
				if o, ok := field(resp, "output"); ok {
					r.Blocks = append(r.Blocks, geminiText(o))
				}
				if e, ok := field(resp, "error"); ok {
					r.IsError = true
					r.Blocks = append(r.Blocks, geminiText(e))
				}
			}
			return true
		}
		if id, ok := field(part, "inlineData"); ok {
			var mime, data string
			if mt, ok := field(id, "mimeType"); ok {
				mime, _ = str(mt)
			}
			if d, ok := field(id, "data"); ok {
				data, _ = str(d)
			}
			if data == "" {
				problems = append(problems, fmt.Sprintf("inline data part %d has no data", i))
				r.Blocks = append(r.Blocks, retention.Block{Type: retention.TypeImage, MimeType: mime})
				return true
			}
			b, why := imageBlock(mime, data, part)
			if why != "" {
				imgs = append(imgs, badImage{len(r.Blocks), why})
			}
			r.Blocks = append(r.Blocks, b)
			return true
		}
		if t, ok := field(part, "text"); ok {
			r.Blocks = append(r.Blocks, geminiText(t))
			return true
		}
		var first string
		eachField(part, 0, func(k []byte, _, _ int) bool {
			first = string(k)
			return false
		})
		unknown = append(unknown, first)
		return true
	})
	return r, problems, imgs, unknown
}

// geminiText turns a response value into a text block; non-string values
// are kept as their JSON, which is what the model was shown.
func geminiText(v []byte) retention.Block {
	if s, ok := str(v); ok {
		return retention.Block{Type: retention.TypeText, Text: s}
	}
	return retention.Block{Type: retention.TypeText, Text: string(v)}
}

// lineCounter maps increasing byte offsets of a document to 1-based lines.
type lineCounter struct {
	doc  []byte
	pos  int
	line int64
}

func (lc *lineCounter) at(off int) int64 {
	if off < lc.pos {
		lc.pos, lc.line = 0, 1
	}
	if off > len(lc.doc) {
		off = len(lc.doc)
	}
	lc.line += int64(bytes.Count(lc.doc[lc.pos:off], []byte{'\n'}))
	lc.pos = off
	return lc.line
}
