package copilot

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"time"

	"spillscope/retention"
	"spillscope/sessions/internal/readkit"
)

// envelope is every line's outer shape.
type envelope struct {
	Type      string          `json:"type"`
	Data      json.RawMessage `json:"data"`
	Timestamp string          `json:"timestamp"`
	AgentID   string          `json:"agentId"`
}

// known are the event types of the CLI's session-events schema this reader
// either reads or knowingly passes over; any other type is tallied.
var known = map[string]bool{
	"session.start": true, "session.resume": true, "session.error": true, "session.idle": true,
	"session.title_changed": true, "session.info": true, "session.warning": true,
	"session.model_change": true, "session.mode_changed": true, "session.plan_changed": true,
	"session.workspace_file_changed": true, "session.handoff": true, "session.truncation": true,
	"session.snapshot_rewind": true, "session.shutdown": true, "session.usage_info": true,
	"session.compaction_start": true, "session.compaction_complete": true,
	"session.task_complete": true, "session.context_changed": true,
	"user.message": true, "pending_messages.modified": true, "system.message": true,
	"system.notification": true, "abort": true,
	"assistant.turn_start": true, "assistant.intent": true, "assistant.reasoning": true,
	"assistant.reasoning_delta": true, "assistant.streaming_delta": true,
	"assistant.message": true, "assistant.message_delta": true, "assistant.turn_end": true,
	"assistant.usage":     true,
	"tool.user_requested": true, "tool.execution_start": true, "tool.execution_partial_result": true,
	"tool.execution_progress": true, "tool.execution_complete": true,
	"skill.invoked": true, "subagent.started": true, "subagent.completed": true,
	"subagent.failed": true, "subagent.selected": true, "subagent.deselected": true,
	"hook.start": true, "hook.end": true,
	"permission.requested": true, "permission.completed": true,
}

// ReadFile reads the log at path from the cursor (the zero Cursor reads it
// whole) and returns the cursor to resume from. Arguments of calls started
// in an earlier pass are read back from their lines.
func ReadFile(ctx context.Context, path string, from Cursor, h Handler) (Cursor, error) {
	f, err := os.Open(path)
	if err != nil {
		return from, err
	}
	defer f.Close()
	if _, err := f.Seek(from.Offset, io.SeekStart); err != nil {
		return from, err
	}
	p := newPass(from, h)
	p.file = f
	return p.run(ctx, f)
}

// Read reads a log from r, which starts where the cursor says (offset 0,
// line 1 for a whole log), and returns the cursor to resume from.
func Read(ctx context.Context, r io.Reader, from Cursor, h Handler) (Cursor, error) {
	return newPass(from, h).run(ctx, r)
}

type pass struct {
	h       Handler
	cur     Cursor
	file    io.ReaderAt
	sess    Session
	seen    bool // any line that belongs to a session
	unknown readkit.Tally
	// args holds the arguments of calls started in this pass until they
	// complete, so they are not read twice.
	args map[string]json.RawMessage
}

func newPass(from Cursor, h Handler) *pass {
	if from.Line == 0 {
		from.Line = 1
	}
	pending := make(map[string]Started, len(from.Pending))
	for k, v := range from.Pending {
		pending[k] = v
	}
	from.Pending = pending
	return &pass{h: h, cur: from, args: map[string]json.RawMessage{}, sess: Session{ID: from.SessionID, Model: from.Model}}
}

func (p *pass) run(ctx context.Context, r io.Reader) (Cursor, error) {
	lr := readkit.NewLineReader(r, p.cur.Offset, p.cur.Line)
	for {
		if err := ctx.Err(); err != nil {
			return p.cur, err
		}
		l, err := lr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return p.cur, err
		}
		if !l.Complete {
			break // still being written: the next pass reads it whole
		}
		if err := p.line(l); err != nil {
			return p.cur, err
		}
		p.cur.Offset, p.cur.Line = l.Offset+l.Length, l.Number+1
	}
	return p.cur, p.finish()
}

func (p *pass) diag(d Diagnostic) error {
	if p.h.Diagnostic == nil {
		return nil
	}
	return p.h.Diagnostic(d)
}

func (p *pass) line(l readkit.Line) error {
	b := bytes.TrimSpace(l.Bytes)
	if len(b) == 0 {
		return nil
	}
	var e envelope
	if err := json.Unmarshal(b, &e); err != nil || e.Type == "" {
		if l.Number == 1 && p.cur.Offset == 0 {
			return p.diag(Diagnostic{Code: DiagNotSession, Line: l.Number,
				Params:  map[string]string{"start": readkit.Quote(b)},
				Message: fmt.Sprintf("not a Copilot CLI session log: line 1 is not an event (starts with %s)", readkit.Quote(b))})
		}
		if err == nil {
			return p.diag(Diagnostic{Code: DiagNoType, Line: l.Number,
				Message: fmt.Sprintf("line %d is a JSON object without a \"type\"", l.Number)})
		}
		return p.diag(Diagnostic{Code: DiagBadLine, Line: l.Number,
			Params:  map[string]string{"start": readkit.Quote(b)},
			Message: fmt.Sprintf("line %d is not a JSON object (starts with %s)", l.Number, readkit.Quote(b))})
	}
	if !known[e.Type] {
		p.unknown.Add(e.Type, l.Number, 0)
		return nil
	}
	p.seen = true
	at := parseTime(e.Timestamp)
	bad := func(err error) error {
		return p.diag(Diagnostic{Code: DiagBadEvent, Line: l.Number,
			Params:  map[string]string{"type": e.Type, "error": err.Error()},
			Message: fmt.Sprintf("line %d: %s event has unexpected data: %v", l.Number, e.Type, err)})
	}
	switch e.Type {
	case "session.start":
		var d startData
		if err := json.Unmarshal(e.Data, &d); err != nil {
			return bad(err)
		}
		p.sess.ID, p.cur.SessionID = d.SessionID, d.SessionID
		p.sess.Version, p.sess.Producer = d.CopilotVersion, d.Producer
		p.sess.Cwd, p.sess.GitRoot = d.Context.Cwd, d.Context.GitRoot
		p.sess.Repository, p.sess.Branch = d.Context.Repository, d.Context.Branch
		p.sess.Started = parseTime(d.StartTime)
		if p.sess.Started.IsZero() {
			p.sess.Started = at
		}
	case "session.resume", "session.context_changed":
		var d struct {
			Context sessionContext `json:"context"`
			sessionContext
		}
		if err := json.Unmarshal(e.Data, &d); err != nil {
			return bad(err)
		}
		c := d.Context
		if c.Cwd == "" {
			c = d.sessionContext
		}
		if c.Cwd != "" {
			p.sess.Cwd, p.sess.GitRoot, p.sess.Repository, p.sess.Branch = c.Cwd, c.GitRoot, c.Repository, c.Branch
		}
	case "session.title_changed":
		var d struct {
			Title string `json:"title"`
		}
		if err := json.Unmarshal(e.Data, &d); err != nil {
			return bad(err)
		}
		p.sess.Title = d.Title
	case "session.model_change":
		var d struct {
			NewModel string `json:"newModel"`
		}
		if err := json.Unmarshal(e.Data, &d); err != nil {
			return bad(err)
		}
		if d.NewModel != "" {
			p.sess.Model, p.cur.Model = d.NewModel, d.NewModel
		}
	case "session.shutdown":
		if err := p.shutdown(e.Data, at); err != nil {
			return bad(err)
		}
	case "session.compaction_start":
		return p.compaction(Compaction{Kind: CompactionStart, Time: at, Line: l.Number, AgentID: e.AgentID})
	case "session.compaction_complete":
		var d struct {
			Success         bool   `json:"success"`
			Error           string `json:"error"`
			Pre             int64  `json:"preCompactionTokens"`
			Post            int64  `json:"postCompactionTokens"`
			MessagesRemoved int64  `json:"messagesRemoved"`
			TokensRemoved   int64  `json:"tokensRemoved"`
			Summary         string `json:"summaryContent"`
		}
		if err := json.Unmarshal(e.Data, &d); err != nil {
			return bad(err)
		}
		return p.compaction(Compaction{Kind: CompactionComplete, Time: at, Line: l.Number, AgentID: e.AgentID,
			PreTokens: d.Pre, PostTokens: d.Post, TokensRemoved: d.TokensRemoved, MessagesRemoved: d.MessagesRemoved,
			Success: d.Success, Error: d.Error, Summary: d.Summary})
	case "session.truncation":
		var d struct {
			TokenLimit      int64 `json:"tokenLimit"`
			Pre             int64 `json:"preTruncationTokensInMessages"`
			Post            int64 `json:"postTruncationTokensInMessages"`
			TokensRemoved   int64 `json:"tokensRemovedDuringTruncation"`
			MessagesRemoved int64 `json:"messagesRemovedDuringTruncation"`
		}
		if err := json.Unmarshal(e.Data, &d); err != nil {
			return bad(err)
		}
		return p.compaction(Compaction{Kind: Truncation, Time: at, Line: l.Number, AgentID: e.AgentID, Success: true,
			PreTokens: d.Pre, PostTokens: d.Post, TokensRemoved: d.TokensRemoved, MessagesRemoved: d.MessagesRemoved, TokenLimit: d.TokenLimit})
	case "assistant.message":
		var d struct {
			MessageID    string `json:"messageId"`
			OutputTokens *int64 `json:"outputTokens"`
			ToolRequests []struct {
				ToolCallID string          `json:"toolCallId"`
				Name       string          `json:"name"`
				Arguments  json.RawMessage `json:"arguments"`
			} `json:"toolRequests"`
		}
		if err := json.Unmarshal(e.Data, &d); err != nil {
			return bad(err)
		}
		for _, tr := range d.ToolRequests {
			if _, ok := p.cur.Pending[tr.ToolCallID]; tr.ToolCallID == "" || ok {
				continue
			}
			p.cur.Pending[tr.ToolCallID] = Started{Tool: tr.Name, AgentID: e.AgentID, Args: Locator{Offset: l.Offset, Length: l.Length, Line: l.Number}}
			p.args[tr.ToolCallID] = readkit.Clone(tr.Arguments)
		}
		if d.OutputTokens != nil && p.h.Usage != nil {
			return p.h.Usage(Usage{Key: d.MessageID, Model: p.sess.Model, Time: at, Line: l.Number,
				Output: *d.OutputTokens, OutputOnly: true, AgentID: e.AgentID})
		}
	case "assistant.usage":
		var d struct {
			Model      string `json:"model"`
			APICallID  string `json:"apiCallId"`
			Input      int64  `json:"inputTokens"`
			Output     int64  `json:"outputTokens"`
			CacheRead  int64  `json:"cacheReadTokens"`
			CacheWrite int64  `json:"cacheWriteTokens"`
			Reasoning  int64  `json:"reasoningTokens"`
		}
		if err := json.Unmarshal(e.Data, &d); err != nil {
			return bad(err)
		}
		if p.h.Usage != nil {
			key := d.APICallID
			if key == "" {
				key = fmt.Sprintf("line:%d", l.Number)
			}
			return p.h.Usage(Usage{Key: key, Model: d.Model, Time: at, Line: l.Number, AgentID: e.AgentID,
				Input: readkit.Uncached(d.Input, d.CacheRead, d.CacheWrite), CacheRead: d.CacheRead, CacheWrite: d.CacheWrite,
				Output: d.Output, Reasoning: d.Reasoning})
		}
	case "tool.execution_start":
		var d struct {
			ToolCallID string          `json:"toolCallId"`
			ToolName   string          `json:"toolName"`
			Arguments  json.RawMessage `json:"arguments"`
		}
		if err := json.Unmarshal(e.Data, &d); err != nil {
			return bad(err)
		}
		if d.ToolCallID != "" {
			p.cur.Pending[d.ToolCallID] = Started{Tool: d.ToolName, AgentID: e.AgentID, Args: Locator{Offset: l.Offset, Length: l.Length, Line: l.Number}}
			p.args[d.ToolCallID] = readkit.Clone(d.Arguments)
		}
	case "tool.execution_complete":
		r, err := decodeComplete(e, l)
		if err != nil {
			return bad(err)
		}
		return p.complete(r, l)
	}
	return nil
}

func (p *pass) compaction(c Compaction) error {
	if p.h.Compaction == nil {
		return nil
	}
	return p.h.Compaction(c)
}

func (p *pass) complete(r Result, l readkit.Line) error {
	st, ok := p.cur.Pending[r.CallID]
	delete(p.cur.Pending, r.CallID)
	if ok {
		r.Tool = st.Tool
		if a, here := p.args[r.CallID]; here {
			r.Arguments = a
			delete(p.args, r.CallID)
		} else if p.file != nil {
			r.Arguments = readArgs(p.file, st.Args, r.CallID)
		}
	} else if err := p.diag(Diagnostic{Code: DiagOrphanResult, Line: l.Number,
		Params:  map[string]string{"call": r.CallID},
		Message: fmt.Sprintf("line %d: result of call %s, which the log never started", l.Number, r.CallID)}); err != nil {
		return err
	}
	if r.Model == "" {
		r.Model = p.sess.Model
	}
	if p.h.Result == nil {
		return nil
	}
	return p.h.Result(r)
}

func (p *pass) shutdown(data json.RawMessage, at time.Time) error {
	var d struct {
		ModelMetrics map[string]struct {
			Requests struct {
				Count int64 `json:"count"`
			} `json:"requests"`
			Usage struct {
				Input      int64 `json:"inputTokens"`
				Output     int64 `json:"outputTokens"`
				CacheRead  int64 `json:"cacheReadTokens"`
				CacheWrite int64 `json:"cacheWriteTokens"`
				Reasoning  int64 `json:"reasoningTokens"`
			} `json:"usage"`
		} `json:"modelMetrics"`
		CurrentModel          string `json:"currentModel"`
		CurrentTokens         int64  `json:"currentTokens"`
		SystemTokens          int64  `json:"systemTokens"`
		ConversationTokens    int64  `json:"conversationTokens"`
		ToolDefinitionsTokens int64  `json:"toolDefinitionsTokens"`
	}
	if err := json.Unmarshal(data, &d); err != nil {
		return err
	}
	p.sess.Ended = at
	p.sess.Totals = p.sess.Totals[:0]
	for model, m := range d.ModelMetrics {
		u := m.Usage
		p.sess.Totals = append(p.sess.Totals, ModelTotals{Model: model, Requests: m.Requests.Count,
			Input: readkit.Uncached(u.Input, u.CacheRead, u.CacheWrite), CacheRead: u.CacheRead, CacheWrite: u.CacheWrite,
			Output: u.Output, Reasoning: u.Reasoning})
	}
	sortTotals(p.sess.Totals)
	if d.CurrentModel != "" {
		p.sess.Model, p.cur.Model = d.CurrentModel, d.CurrentModel
	}
	p.sess.CurrentTokens, p.sess.SystemTokens = d.CurrentTokens, d.SystemTokens
	p.sess.ConversationTokens, p.sess.ToolDefinitionsTokens = d.ConversationTokens, d.ToolDefinitionsTokens
	return nil
}

func (p *pass) finish() error {
	for _, d := range p.unknown.Diagnostics(DiagUnknownEvent, "type", func(k string, n int) string {
		return fmt.Sprintf("%d lines of event type %q skipped", n, k)
	}) {
		if err := p.diag(d); err != nil {
			return err
		}
	}
	if p.seen && p.h.Session != nil {
		return p.h.Session(p.sess)
	}
	return nil
}

type sessionContext struct {
	Cwd        string `json:"cwd"`
	GitRoot    string `json:"gitRoot"`
	Repository string `json:"repository"`
	Branch     string `json:"branch"`
}

type startData struct {
	SessionID      string         `json:"sessionId"`
	Producer       string         `json:"producer"`
	CopilotVersion string         `json:"copilotVersion"`
	StartTime      string         `json:"startTime"`
	Context        sessionContext `json:"context"`
}

type completeData struct {
	ToolCallID       string `json:"toolCallId"`
	Model            string `json:"model"`
	Success          *bool  `json:"success"`
	ParentToolCallID string `json:"parentToolCallId"`
	Result           *struct {
		Content             *string           `json:"content"`
		DetailedContent     *string           `json:"detailedContent"`
		BinaryResultsForLLM []json.RawMessage `json:"binaryResultsForLlm"`
	} `json:"result"`
	Error *struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
	ToolTelemetry struct {
		Metrics struct {
			ResultLength       *int64 `json:"resultLength"`
			ResultForLLMLength *int64 `json:"resultForLlmLength"`
		} `json:"metrics"`
	} `json:"toolTelemetry"`
}

// decodeComplete turns a tool.execution_complete event into a Result
// without the call's name and arguments (those come from its start).
func decodeComplete(e envelope, l readkit.Line) (Result, error) {
	var d completeData
	if err := json.Unmarshal(e.Data, &d); err != nil {
		return Result{}, err
	}
	if d.ToolCallID == "" {
		return Result{}, errors.New("no toolCallId")
	}
	r := Result{CallID: d.ToolCallID, Model: d.Model, AgentID: e.AgentID, ParentCallID: d.ParentToolCallID,
		Time: parseTime(e.Timestamp), Locator: Locator{Offset: l.Offset, Length: l.Length, Line: l.Number}}
	r.IsError = d.Success != nil && !*d.Success
	if d.Error != nil {
		r.IsError, r.Error = true, d.Error.Message
	}
	var content string
	if d.Result != nil && d.Result.Content != nil {
		content = *d.Result.Content
		r.Blocks = append(r.Blocks, retention.Block{Type: retention.TypeText, Text: content})
		if dc := d.Result.DetailedContent; dc != nil && *dc != content {
			r.Detailed = *dc
		}
		for _, raw := range d.Result.BinaryResultsForLLM {
			if b, ok := binaryBlock(raw); ok {
				r.Blocks = append(r.Blocks, b)
			}
		}
	} else if r.Error != "" {
		r.Blocks = append(r.Blocks, retention.Block{Type: retention.TypeText, Text: r.Error})
		content = r.Error
	}
	if m := d.ToolTelemetry.Metrics; m.ResultLength != nil && m.ResultForLLMLength != nil {
		r.FullLength, r.LLMLength = *m.ResultLength, *m.ResultForLLMLength
		r.Truncated = r.LLMLength < r.FullLength
	}
	if n, ok := retention.RecogniseCopilotLargeOutput(content); ok {
		r.Notice = &n
	}
	return r, nil
}

// binaryBlock reads one model-facing binary result: an image with its
// base64 data and media type. A size-omitted marker has no data and is not
// a block the model saw.
func binaryBlock(raw json.RawMessage) (retention.Block, bool) {
	var b struct {
		Type     string `json:"type"`
		Data     string `json:"data"`
		MimeType string `json:"mimeType"`
	}
	if json.Unmarshal(raw, &b) != nil || b.Data == "" {
		return retention.Block{}, false
	}
	t := b.Type
	if t == "" || t == "binary" {
		t = retention.TypeImage
	}
	return retention.Block{Type: t, Data: b.Data, MimeType: b.MimeType, Raw: readkit.Clone(raw)}, true
}

// ReadResult reads one result back from its locator in the log at path
// (the context is for the same signature as the other readers).
// The call's tool name and arguments are not on that line; the result
// carries what the completion says.
func ReadResult(_ context.Context, path string, loc Locator) (Result, error) {
	b, err := readkit.ReadRange(path, loc.Offset, loc.Length)
	if errors.Is(err, readkit.ErrRange) {
		return Result{}, fmt.Errorf("%w: %v", ErrResultGone, err)
	}
	if err != nil {
		return Result{}, err
	}
	var e envelope
	if err := json.Unmarshal(bytes.TrimSpace(b), &e); err != nil || e.Type != "tool.execution_complete" {
		return Result{}, fmt.Errorf("%w: %s line %d", ErrResultGone, path, loc.Line)
	}
	r, err := decodeComplete(e, readkit.Line{Offset: loc.Offset, Length: loc.Length, Number: loc.Line})
	if err != nil {
		return Result{}, fmt.Errorf("%w: %s line %d: %v", ErrResultGone, path, loc.Line, err)
	}
	return r, nil
}

// readArgs reads a call's arguments back from the line that recorded them
// in an earlier pass; nil when that line no longer says so.
func readArgs(f io.ReaderAt, loc Locator, callID string) json.RawMessage {
	if loc.Offset < 0 || loc.Length < 0 || loc.Length > 1<<30 {
		return nil
	}
	b := make([]byte, loc.Length)
	if _, err := f.ReadAt(b, loc.Offset); err != nil {
		return nil
	}
	var e envelope
	if json.Unmarshal(bytes.TrimSpace(b), &e) != nil {
		return nil
	}
	switch e.Type {
	case "tool.execution_start":
		var d struct {
			ToolCallID string          `json:"toolCallId"`
			Arguments  json.RawMessage `json:"arguments"`
		}
		if json.Unmarshal(e.Data, &d) == nil && d.ToolCallID == callID {
			return d.Arguments
		}
	case "assistant.message":
		var d struct {
			ToolRequests []struct {
				ToolCallID string          `json:"toolCallId"`
				Arguments  json.RawMessage `json:"arguments"`
			} `json:"toolRequests"`
		}
		if json.Unmarshal(e.Data, &d) == nil {
			for _, tr := range d.ToolRequests {
				if tr.ToolCallID == callID {
					return tr.Arguments
				}
			}
		}
	}
	return nil
}

// sortTotals orders per-model totals by model name: the log keeps them in a
// JSON object, whose order Go does not preserve.
func sortTotals(t []ModelTotals) {
	sort.Slice(t, func(i, j int) bool { return t[i].Model < t[j].Model })
}

func parseTime(s string) time.Time {
	if s == "" {
		return time.Time{}
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}
	}
	return t.UTC()
}
