package opencode

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"spillscope/retention"
	"spillscope/sessions/internal/readkit"
)

// knownParts are the part types of OpenCode's message schema
// (session/message-v2.ts); others are tallied.
var knownParts = map[string]bool{
	"text": true, "subtask": true, "reasoning": true, "file": true, "tool": true,
	"step-start": true, "step-finish": true, "snapshot": true, "patch": true,
	"agent": true, "retry": true, "compaction": true,
}

type tokens struct {
	Input     int64 `json:"input"`
	Output    int64 `json:"output"`
	Reasoning int64 `json:"reasoning"`
	Cache     struct {
		Read  int64 `json:"read"`
		Write int64 `json:"write"`
	} `json:"cache"`
}

func (t *tokens) zero() bool {
	return t == nil || t.Input == 0 && t.Output == 0 && t.Reasoning == 0 && t.Cache.Read == 0 && t.Cache.Write == 0
}

type filePart struct {
	Mime     string `json:"mime"`
	Filename string `json:"filename"`
	URL      string `json:"url"`
}

type partJSON struct {
	ID        string  `json:"id"`
	SessionID string  `json:"sessionID"`
	MessageID string  `json:"messageID"`
	Type      string  `json:"type"`
	CallID    string  `json:"callID"`
	Tool      string  `json:"tool"`
	Tokens    *tokens `json:"tokens"`
	Cost      float64 `json:"cost"`
	Auto      bool    `json:"auto"`
	Overflow  bool    `json:"overflow"`
	Time      struct {
		Start *int64 `json:"start"`
	} `json:"time"`
	State *struct {
		Status   string          `json:"status"`
		Input    json.RawMessage `json:"input"`
		Output   *string         `json:"output"`
		Error    *string         `json:"error"`
		Title    string          `json:"title"`
		Metadata struct {
			Truncated  bool   `json:"truncated"`
			OutputPath string `json:"outputPath"`
			SessionID  string `json:"sessionId"`
		} `json:"metadata"`
		Time struct {
			Start     *int64 `json:"start"`
			End       *int64 `json:"end"`
			Compacted *int64 `json:"compacted"`
		} `json:"time"`
		Attachments []filePart `json:"attachments"`
	} `json:"state"`
}

// messageJSON is what the reader needs of a message's info. Summary is a
// boolean on an assistant message (it holds a compaction summary) and an
// object on a user message (its diff summary), so it stays raw.
type messageJSON struct {
	ID         string `json:"id"`
	SessionID  string `json:"sessionID"`
	ParentID   string `json:"parentID"`
	Role       string `json:"role"`
	ModelID    string `json:"modelID"`
	ProviderID string `json:"providerID"`
	Model      struct {
		ModelID    string `json:"modelID"`
		ProviderID string `json:"providerID"`
	} `json:"model"`
	Agent   string          `json:"agent"`
	Summary json.RawMessage `json:"summary"`
	Tokens  *tokens         `json:"tokens"`
	Cost    float64         `json:"cost"`
	Time    struct {
		Created *int64 `json:"created"`
	} `json:"time"`
}

func (m *messageJSON) model() (model, provider string) {
	if m.ModelID != "" {
		return m.ModelID, m.ProviderID
	}
	return m.Model.ModelID, m.Model.ProviderID
}

func (m *messageJSON) isSummary() bool {
	return bytes.Equal(bytes.TrimSpace(m.Summary), []byte("true"))
}

// where is a record's place, for its records and diagnostics.
type where struct {
	line, row int64
	loc       Locator
	desc      string // "part prt_… of message msg_…", for diagnostics
}

// emitter turns decoded messages and parts into records; the three
// sources share it so a part means the same wherever it was read.
type emitter struct {
	h       Handler
	unknown readkit.Tally
	// stepLine is the line of the last step-start part: a step's call
	// begins there, before the tools it called, while its step-finish
	// comes after them (export documents; rows and files have no lines).
	stepLine int64
}

func (e *emitter) diag(d Diagnostic) error {
	if e.h.Diagnostic == nil {
		return nil
	}
	return e.h.Diagnostic(d)
}

func (e *emitter) bad(w where, err error) error {
	return e.diag(Diagnostic{Code: DiagBadJSON, Line: w.line, Row: w.row,
		Params:  map[string]string{"where": w.desc, "error": err.Error()},
		Message: fmt.Sprintf("%s is not a valid record: %v", w.desc, err)})
}

// part reads one part's JSON. msg is its message's info (nil when unknown);
// ids fill what the JSON leaves out (a database row keeps them in columns).
func (e *emitter) part(raw []byte, msg *messageJSON, ids partJSON, w where) (stepFinish bool, err error) {
	var p partJSON
	if err := json.Unmarshal(raw, &p); err != nil {
		return false, e.bad(w, err)
	}
	if p.ID == "" {
		p.ID = ids.ID
	}
	if p.SessionID == "" {
		p.SessionID = ids.SessionID
	}
	if p.MessageID == "" {
		p.MessageID = ids.MessageID
	}
	var model, provider, agent string
	if msg != nil {
		model, provider = msg.model()
		agent = msg.Agent
	}
	switch {
	case p.Type == "":
		return false, e.bad(w, fmt.Errorf("no \"type\""))
	case !knownParts[p.Type]:
		e.unknown.Add(p.Type, w.line, w.row)
	case p.Type == "tool":
		r, ok := toolResult(&p)
		if !ok || e.h.Result == nil {
			return false, nil
		}
		r.Model, r.Provider, r.Agent = model, provider, agent
		r.Locator, r.Line, r.Row = w.loc, w.line, w.row
		return false, e.h.Result(r)
	case p.Type == "step-start":
		e.stepLine = w.line
	case p.Type == "step-finish":
		start := e.stepLine
		e.stepLine = 0
		if p.Tokens == nil || e.h.Usage == nil {
			return true, nil
		}
		u := usageOf(p.Tokens)
		u.SessionID, u.MessageID, u.Key = p.SessionID, p.MessageID, p.ID
		u.Model, u.Provider, u.Cost, u.Line, u.Row = model, provider, p.Cost, w.line, w.row
		if start > 0 && start <= w.line {
			u.Line = start
		}
		if msg != nil {
			u.Time = ms(msg.Time.Created)
		}
		return true, e.h.Usage(u)
	case p.Type == "compaction":
		if e.h.Compaction == nil {
			return false, nil
		}
		c := Compaction{Kind: CompactionRequest, SessionID: p.SessionID, MessageID: p.MessageID, PartID: p.ID,
			Auto: p.Auto, Overflow: p.Overflow, Line: w.line, Row: w.row}
		if msg != nil {
			c.Time = ms(msg.Time.Created)
		}
		return false, e.h.Compaction(c)
	}
	return false, nil
}

// message reports what a message's info says on its own: the usage of an
// assistant message without step-finish parts, and a compaction summary.
func (e *emitter) message(m *messageJSON, hasStepFinish bool, w where) error {
	if m.Role != "assistant" {
		return nil
	}
	if !hasStepFinish && !m.Tokens.zero() && e.h.Usage != nil {
		u := usageOf(m.Tokens)
		u.SessionID, u.MessageID, u.Key, u.FromMessage = m.SessionID, m.ID, m.ID, true
		u.Model, u.Provider = m.model()
		u.Cost, u.Time, u.Line, u.Row = m.Cost, ms(m.Time.Created), w.line, w.row
		if err := e.h.Usage(u); err != nil {
			return err
		}
	}
	if m.isSummary() && e.h.Compaction != nil {
		return e.h.Compaction(Compaction{Kind: CompactionSummary, SessionID: m.SessionID, MessageID: m.ID, ParentID: m.ParentID,
			Time: ms(m.Time.Created), Line: w.line, Row: w.row})
	}
	return nil
}

func (e *emitter) finish() error {
	for _, d := range e.unknown.Diagnostics(DiagUnknownPart, "type", func(k string, n int) string {
		return fmt.Sprintf("%d parts of type %q skipped", n, k)
	}) {
		if err := e.diag(d); err != nil {
			return err
		}
	}
	e.unknown = readkit.Tally{}
	return nil
}

func usageOf(t *tokens) Usage {
	return Usage{Input: t.Input, CacheRead: t.Cache.Read, CacheWrite: t.Cache.Write, Output: t.Output, Reasoning: t.Reasoning}
}

// toolResult converts a tool part; ok is false while the call is pending
// or running (it has no result yet: a later read reports it).
func toolResult(p *partJSON) (Result, bool) {
	s := p.State
	if s == nil || s.Status != "completed" && s.Status != "error" {
		return Result{}, false
	}
	r := Result{SessionID: p.SessionID, MessageID: p.MessageID, PartID: p.ID, CallID: p.CallID, Tool: p.Tool,
		Title: s.Title, Arguments: readkit.Clone(s.Input), Truncated: s.Metadata.Truncated, OutputPath: s.Metadata.OutputPath,
		ChildSessionID: s.Metadata.SessionID, Started: ms(s.Time.Start), Ended: ms(s.Time.End), CompactedAt: ms(s.Time.Compacted)}
	var text string
	if s.Status == "error" {
		r.IsError = true
		if s.Error != nil {
			text = *s.Error
		}
	} else if s.Output != nil {
		text = *s.Output
	}
	r.Blocks = append(r.Blocks, retention.Block{Type: retention.TypeText, Text: text})
	for _, a := range s.Attachments {
		r.Blocks = append(r.Blocks, attachment(a))
	}
	if n, ok := retention.RecogniseOpenCodeTruncation(text); ok {
		r.Notice = &n
	}
	return r, true
}

// attachment is a file part as the model got it: a data: URL is inline
// content (an image, or other bytes), anything else a link to the file.
func attachment(f filePart) retention.Block {
	if rest, ok := strings.CutPrefix(f.URL, "data:"); ok {
		if i := strings.IndexByte(rest, ','); i >= 0 {
			t := retention.TypeResource
			if strings.HasPrefix(f.Mime, "image/") {
				t = retention.TypeImage
			}
			b := retention.Block{Type: t, MimeType: f.Mime, Name: f.Filename}
			if t == retention.TypeImage {
				b.Data = rest[i+1:]
			} else {
				b.Resource, _ = json.Marshal(map[string]string{"uri": "data:" + rest[:i] + ",", "mimeType": f.Mime, "blob": rest[i+1:]})
			}
			return b
		}
	}
	return retention.Block{Type: retention.TypeResourceLink, URI: f.URL, MimeType: f.Mime, Name: f.Filename}
}

func ms(v *int64) time.Time {
	if v == nil || *v <= 0 {
		return time.Time{}
	}
	return time.UnixMilli(*v).UTC()
}
