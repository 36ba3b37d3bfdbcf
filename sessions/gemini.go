package sessions

import (
	"bytes"
	"fmt"

	"spillscope/retention"
)

// ReadGeminiDoc reads a Gemini CLI chat file (one JSON document with
// messages[] and their toolCalls[]). A tool result's offset and length
// address its toolCalls object inside the document.
func ReadGeminiDoc(doc []byte, p *Parsed) {
	s := &p.Session
	var messages []byte
	msgStart := 0
	_, err := wholeObject(doc, func(k []byte, vs, ve int) bool {
		v := doc[vs:ve]
		switch string(k) {
		case "sessionId":
			s.ID, _ = str(v)
		case "projectHash":
			if h, _ := str(v); h != "" && s.Project == "" {
				s.Project = h
			}
		case "startTime", "lastUpdated":
			t, _ := str(v)
			p.seeTime(t)
		case "messages":
			messages, msgStart = v, vs
		}
		return true
	})
	if err != nil {
		p.diag(1, "chat file is not one JSON object")
		if messages == nil {
			return
		}
	}
	if len(messages) == 0 || messages[0] != '[' {
		return
	}
	lc := lineCounter{doc: doc, line: 1}
	_, err = eachItem(messages, 0, func(i, vs, ve int) bool {
		m := messages[vs:ve]
		base := msgStart + vs
		var id, ts, model string
		var tokens, calls []byte
		callsAt := 0
		_, _, err := eachField(m, 0, func(k []byte, vs, ve int) bool {
			v := m[vs:ve]
			switch string(k) {
			case "id":
				id, _ = str(v)
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
			p.diag(lc.at(base), fmt.Sprintf("message %d is not a JSON object", i))
			return true
		}
		p.seeTime(ts)
		if model != "" {
			s.Model = model
		}
		if len(tokens) > 0 && tokens[0] == '{' {
			u := Usage{Key: id}
			if id == "" {
				u.Key = fmt.Sprintf("message:%d", i)
			}
			var in, cached int64
			eachField(tokens, 0, func(k []byte, vs, ve int) bool {
				v := tokens[vs:ve]
				switch string(k) {
				case "input":
					in = num(v)
				case "cached":
					cached = num(v)
				case "output":
					u.Output = num(v)
				case "thoughts":
					u.Reasoning = num(v)
				}
				return true
			})
			u.Input, u.CacheRead = splitCached(in, cached)
			p.addUsage(u)
		}
		if len(calls) == 0 || calls[0] != '[' {
			return true
		}
		eachItem(calls, 0, func(j, cs, ce int) bool {
			off := base + callsAt + cs
			r, problems := geminiCall(calls[cs:ce])
			if r.Time == "" {
				r.Time = ts
			}
			r.Offset, r.Length, r.Line, r.Index = int64(off), int64(ce-cs), lc.at(off), j
			line := r.Line
			for _, pr := range problems {
				p.diag(line, fmt.Sprintf("tool call %s: %s", r.CallID, pr))
			}
			p.addCall(r.CallID, r.ToolName)
			p.addResult(r)
			return true
		})
		return true
	})
	if err != nil {
		p.diag(1, "messages is not a JSON array")
	}
}

// geminiCall reads one toolCalls entry: {id, name, result:[{functionResponse:
// {id, name, response:{output|error}}} | {inlineData:{mimeType,data}}], status}.
func geminiCall(c []byte) (ToolResult, []string) {
	var r ToolResult
	var result []byte
	var problems []string
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
		return r, []string{"tool call is not a JSON object"}
	}
	r.IsError = status == "error" || status == "cancelled"
	if len(result) == 0 || result[0] != '[' {
		return r, nil
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
			b := retention.Block{Type: retention.TypeImage}
			if mt, ok := field(id, "mimeType"); ok {
				b.MimeType, _ = str(mt)
			}
			if d, ok := field(id, "data"); ok {
				b.Data, _ = str(d)
			}
			if b.Data == "" {
				problems = append(problems, fmt.Sprintf("inline data part %d has no data", i))
			}
			r.Blocks = append(r.Blocks, b)
			return true
		}
		if t, ok := field(part, "text"); ok {
			r.Blocks = append(r.Blocks, geminiText(t))
		}
		return true
	})
	return r, problems
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
