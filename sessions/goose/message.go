package goose

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"

	"spillscope/retention"
	"spillscope/sessions/internal/readkit"
)

// knownContent are the message content types of conversation/message.rs,
// with those older versions wrote that goose itself still reads past
// ("reasoning", "conversationCompacted") or that older schemas had.
var knownContent = map[string]bool{
	"text": true, "image": true, "toolRequest": true, "toolResponse": true, "toolConfirmationRequest": true,
	"actionRequired": true, "frontendToolRequest": true, "thinking": true, "redactedThinking": true,
	"systemNotification": true, "reasoning": true, "conversationCompacted": true,
	"contextLengthExceeded": true, "summarizationRequested": true,
}

// messageJSON is a stored message: the JSONL line's shape, and what a
// database row holds across its columns.
type messageJSON struct {
	ID       *string           `json:"id"`
	Role     string            `json:"role"`
	Created  int64             `json:"created"`
	Content  []json.RawMessage `json:"content"`
	Metadata *struct {
		UserVisible  *bool `json:"userVisible"`
		AgentVisible *bool `json:"agentVisible"`
	} `json:"metadata"`
}

func (m *messageJSON) agentVisible() bool {
	return m.Metadata == nil || m.Metadata.AgentVisible == nil || *m.Metadata.AgentVisible
}

type item struct {
	Type     string `json:"type"`
	ID       string `json:"id"`
	ToolCall *struct {
		Status string `json:"status"`
		Value  struct {
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
		} `json:"value"`
	} `json:"toolCall"`
	ToolResult *struct {
		Status string          `json:"status"`
		Value  json.RawMessage `json:"value"`
		Error  string          `json:"error"`
	} `json:"toolResult"`
}

// request is a tool call an assistant message made.
type request struct {
	Tool string
	Args json.RawMessage
}

// converter turns messages into records for one session; the database and
// JSONL readers share it.
type converter struct {
	h        Handler
	unknown  readkit.Tally
	requests map[string]request // call id → request, this session
	lookup   func(callID string) (request, bool)
}

func (c *converter) diag(d Diagnostic) error {
	if c.h.Diagnostic == nil {
		return nil
	}
	return c.h.Diagnostic(d)
}

func (c *converter) bad(line, row int64, desc string, err error) error {
	return c.diag(Diagnostic{Code: DiagBadRecord, Line: line, Row: row,
		Params:  map[string]string{"where": desc, "error": err.Error()},
		Message: fmt.Sprintf("%s is not a goose message: %v", desc, err)})
}

// message reports one message's tool responses; loc is the message's
// locator without its item index.
func (c *converter) message(sid string, m *messageJSON, loc Locator, line, row int64) error {
	for i, raw := range m.Content {
		if err := c.item(sid, m, i, raw, loc, line, row); err != nil {
			return err
		}
	}
	return nil
}

// item reads the message's content item i: a request is remembered, a
// response reported.
func (c *converter) item(sid string, m *messageJSON, i int, raw json.RawMessage, loc Locator, line, row int64) error {
	var mid string
	if m.ID != nil {
		mid = *m.ID
	}
	var it item
	if err := json.Unmarshal(raw, &it); err != nil || it.Type == "" {
		if err == nil {
			err = fmt.Errorf("item %d has no type", i)
		}
		return c.bad(line, row, fmt.Sprintf("content item %d of message %s", i, mid), err)
	}
	if !knownContent[it.Type] {
		c.unknown.Add(it.Type, line, row)
		return nil
	}
	switch it.Type {
	case "toolRequest", "frontendToolRequest":
		if it.ToolCall != nil && it.ID != "" && c.requests != nil {
			c.requests[it.ID] = request{Tool: it.ToolCall.Value.Name, Args: readkit.Clone(it.ToolCall.Value.Arguments)}
		}
	case "toolResponse":
		if it.ToolResult == nil || it.ID == "" {
			return c.bad(line, row, fmt.Sprintf("tool response %d of message %s", i, mid), fmt.Errorf("no id or toolResult"))
		}
		r := c.result(&it)
		r.SessionID, r.MessageID, r.Time, r.AgentVisible = sid, mid, seconds(m.Created), m.agentVisible()
		r.Row, r.Line, r.Index = row, line, i
		r.Locator = loc
		r.Locator.Index = i
		req, ok := c.requests[it.ID]
		if !ok && c.lookup != nil {
			req, ok = c.lookup(it.ID)
		}
		if ok {
			r.Tool, r.Arguments = req.Tool, req.Args
		} else if c.lookup != nil || c.requests != nil {
			if err := c.diag(Diagnostic{Code: DiagOrphanResult, Line: line, Row: row,
				Params:  map[string]string{"call": it.ID},
				Message: fmt.Sprintf("tool response %s has no request in its session", it.ID)}); err != nil {
				return err
			}
		}
		if c.h.Result != nil {
			return c.h.Result(r)
		}
	}
	return nil
}

// result converts a toolResponse's result: a CallToolResult {content,
// isError}, the bare content list older versions stored, or an error.
func (c *converter) result(it *item) Result {
	r := Result{CallID: it.ID}
	tr := it.ToolResult
	if tr.Status == "error" {
		r.IsError, r.Error = true, tr.Error
		r.Blocks = []retention.Block{{Type: retention.TypeText, Text: tr.Error}}
		return r
	}
	var items []json.RawMessage
	v := bytes.TrimSpace(tr.Value)
	switch {
	case len(v) > 0 && v[0] == '[':
		json.Unmarshal(v, &items)
	case len(v) > 0 && v[0] == '{':
		var ctr struct {
			Content []json.RawMessage `json:"content"`
			IsError bool              `json:"isError"`
		}
		json.Unmarshal(v, &ctr)
		items, r.IsError = ctr.Content, ctr.IsError
	}
	for _, raw := range items {
		b, err := retention.ParseBlock(raw)
		if err != nil {
			continue
		}
		if b.Annotations != nil && len(b.Annotations.Audience) > 0 && !hasAssistant(b.Annotations.Audience) {
			r.Hidden++ // goose filters these out of what the model is sent
			continue
		}
		r.Blocks = append(r.Blocks, b)
		if b.Type == retention.TypeText && r.Notice == nil {
			if n, ok := retention.RecogniseGooseNotice(b.Text); ok {
				r.Notice = &n
			}
		}
	}
	return r
}

func hasAssistant(aud []string) bool {
	for _, a := range aud {
		if a == "assistant" {
			return true
		}
	}
	return false
}

func (c *converter) finish() error {
	for _, d := range c.unknown.Diagnostics(DiagUnknownContent, "type", func(k string, n int) string {
		return fmt.Sprintf("%d content items of type %q skipped", n, k)
	}) {
		if err := c.diag(d); err != nil {
			return err
		}
	}
	c.unknown = readkit.Tally{}
	return nil
}

// seconds reads a message timestamp: seconds since 1970, or milliseconds
// past goose's own threshold (10,000,000,000).
func seconds(v int64) time.Time {
	switch {
	case v <= 0:
		return time.Time{}
	case v > 10_000_000_000:
		return time.UnixMilli(v).UTC()
	}
	return time.Unix(v, 0).UTC()
}
