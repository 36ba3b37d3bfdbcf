package dsh

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// dispatch handles one event of a known type.
func (r *reader) dispatch(ev *envelope, seq int64) error {
	at := r.eventTime(ev)
	switch ev.Type {
	case "assistant/chunk":
		var turn, step int64
		var chunk []byte
		good := fields(ev.Data, func(k, v []byte) bool {
			switch {
			case string(k) == "turn":
				turn, _ = jint(v)
			case string(k) == "step":
				step, _ = jint(v)
			case string(k) == "chunk":
				chunk = v
			}
			return true
		})
		if !good || chunk == nil {
			return r.bad(ev, seq, errShape)
		}
		var typ string
		var u *TokenUsage
		fields(chunk, func(k, v []byte) bool {
			switch {
			case string(k) == "type":
				if string(v) == `"usage"` || string(v) == `"finish"` {
					typ, _ = jstr(v)
				}
			case string(k) == "usage":
				u = new(TokenUsage)
				if json.Unmarshal(v, u) != nil {
					u = nil
				}
			}
			return true
		})
		if typ != "usage" {
			u = nil
		}
		return r.chunk(int(turn), int(step), typ, u, at, seq)
	case "assistant/message":
		if _, err := r.surface(ev, seq, ""); err != nil {
			return err
		}
		return r.assistantMessage(ev, seq, at)
	case "assistant/attempt":
		var turn, step int64
		var stream []byte
		if !fields(ev.Data, func(k, v []byte) bool {
			switch {
			case string(k) == "turn":
				turn, _ = jint(v)
			case string(k) == "step":
				step, _ = jint(v)
			case string(k) == "stream":
				stream = v
			}
			return true
		}) {
			return r.bad(ev, seq, errShape)
		}
		if u, t := streamUsage(stream); u != nil {
			return r.usage(Usage{Turn: int(turn), Step: int(step), Kind: UsageAttempt, Failed: true, Tokens: *u,
				At: orTime(t, at), Seq: seq, Line: r.line, Provider: r.st.Session.Provider,
				Model: r.st.Session.Model, ContextWindow: r.st.Session.ContextWindow})
		}
		return nil
	case "tool/call":
		var d struct {
			CallID    string `json:"callId"`
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
		}
		if err := json.Unmarshal(ev.Data, &d); err != nil {
			return r.bad(ev, seq, err)
		}
		if d.CallID != "" {
			r.st.Calls[d.CallID] = callInfo{Name: d.Name, Args: d.Arguments, Seq: seq}
		}
		return nil
	case "tool/result":
		return r.toolResult(ev, seq, at)
	case "tool/code-dispatch", "tool/ptc-dispatch":
		return r.dispatchCopy(ev, seq, at)
	case "user/message", "system/message", "developer/message":
		_, err := r.surface(ev, seq, "")
		return err
	case "request/header":
		// The header also holds the system prompt and tool schemas; only
		// the route is wanted.
		h, _ := field(ev.Data, "header")
		c, _ := field(h, "config")
		var provider, model string
		if !fields(c, func(k, v []byte) bool {
			switch {
			case string(k) == "provider":
				provider, _ = jstr(v)
			case string(k) == "model":
				model, _ = jstr(v)
			}
			return true
		}) {
			return r.bad(ev, seq, errShape)
		}
		if provider != "" || model != "" {
			r.st.Session.Provider, r.st.Session.Model = provider, model
		}
		return nil
	case "request/context":
		var d struct {
			Provider      string `json:"provider"`
			Model         string `json:"model"`
			ContextWindow *int64 `json:"contextWindow"`
		}
		if err := json.Unmarshal(ev.Data, &d); err != nil {
			return r.bad(ev, seq, err)
		}
		if d.Provider != "" || d.Model != "" {
			r.st.Session.Provider, r.st.Session.Model = d.Provider, d.Model
		}
		r.st.Session.ContextWindow = 0
		if d.ContextWindow != nil {
			r.st.Session.ContextWindow = *d.ContextWindow
		}
		return nil
	case "compaction/start", "compaction/summary", "compaction/end", "compaction/prune":
		return r.compaction(ev, seq, at)
	case "subagent/descriptor":
		var d Descriptor
		if err := json.Unmarshal(ev.Data, &d); err != nil {
			return r.bad(ev, seq, err)
		}
		d.Seq, d.Line = seq, r.line
		r.st.Session.Descriptor = &d
		return nil
	case "subagent/catalog":
		var d struct {
			ChildID        string `json:"childId"`
			ChildCreatedAt int64  `json:"childCreatedAt"`
			Mode           string `json:"mode"`
			Label          string `json:"label"`
		}
		if err := json.Unmarshal(ev.Data, &d); err != nil {
			return r.bad(ev, seq, err)
		}
		h := r.st.Session.Header
		link := SubagentLink{Parent: h.ID, Child: d.ChildID, Source: LinkCatalog, Origin: "subagent",
			Depth: h.DelegationDepth + 1, HasDepth: h.HasDepth, Mode: d.Mode, Label: d.Label,
			ChildCreatedAt: d.ChildCreatedAt, Seq: seq, Line: r.line}
		return emit(r.h.Subagent, link)
	case "session/title":
		var d struct {
			Title string `json:"title"`
		}
		if err := json.Unmarshal(ev.Data, &d); err != nil {
			return r.bad(ev, seq, err)
		}
		r.st.Session.Title = d.Title
		return nil
	case "session/end-seed":
		if v, ok := field(ev.Data, "inherited"); ok && jtrue(v) && r.st.SeedCut < 0 {
			r.st.SeedCut = seq
		}
		return nil
	case "llm/retry", "llm/retry-started", "step/end", "turn/end":
		return r.closeAttempt()
	}
	return nil
}

var errShape = errors.New("not the expected object")

func (r *reader) bad(ev *envelope, seq int64, err error) error {
	return r.eventDiag(CodeBadEvent, seq, map[string]string{"type": ev.Type, "error": err.Error()},
		"%s on line %d has data of the wrong shape (%v); skipped", ev.Type, r.line, err)
}

// emit hands v to a Handler function the caller may have left nil.
func emit[T any](fn func(T) error, v T) error {
	if fn == nil {
		return nil
	}
	return fn(v)
}

func orTime(t, fallback int64) int64 {
	if t != 0 {
		return t
	}
	return fallback
}

func (r *reader) usage(u Usage) error {
	r.stats.Usage++
	u.Inherited = r.inherited(u.Seq)
	return emit(r.h.Usage, u)
}

// Usage of formats 0 and 1: usage chunks are grouped into attempts as dsh's
// own v1-to-v2 migration groups them (an attempt ends at its finish chunk,
// at step/end, turn/end or a retry, or when another (turn, step) begins).
// The assistant/message of an attempt replaces its chunk sample; an attempt
// that ends without a message is a failed attempt.

func (r *reader) chunk(turn, step int, typ string, u *TokenUsage, at, seq int64) error {
	st := r.st
	if a := st.Attempt; a != nil && (a.Terminal || a.Turn != turn || a.Step != step) {
		if err := r.closeAttempt(); err != nil {
			return err
		}
	}
	if st.Attempt == nil {
		st.Attempt = &attempt{Turn: turn, Step: step}
	}
	a := st.Attempt
	if u != nil {
		v := *u
		a.Usage, a.At, a.Seq, a.Line = &v, at, seq, r.line
		a.Provider, a.Model, a.Window = st.Session.Provider, st.Session.Model, st.Session.ContextWindow
	}
	if typ == "finish" {
		a.Terminal = true
	}
	return nil
}

func (r *reader) closeAttempt() error {
	a := r.st.Attempt
	r.st.Attempt = nil
	if a == nil || a.Usage == nil {
		return nil
	}
	return r.usage(a.record(UsageAttempt, true))
}

func (a *attempt) record(kind string, failed bool) Usage {
	return Usage{Turn: a.Turn, Step: a.Step, Kind: kind, Failed: failed, Tokens: *a.Usage, At: a.At,
		Seq: a.Seq, Line: a.Line, Provider: a.Provider, Model: a.Model, ContextWindow: a.Window}
}

// streamUsage is the last usage chunk of a v2+ compact stream: packed
// records and {type:"chunk", time, chunk} records.
func streamUsage(stream []byte) (*TokenUsage, int64) {
	var u *TokenUsage
	var at int64
	items(stream, func(it []byte) bool {
		if !bytes.Contains(it, []byte(`"usage"`)) {
			return true
		}
		var typ, chunk []byte
		var t int64
		fields(it, func(k, v []byte) bool {
			switch {
			case string(k) == "type":
				typ = v
			case string(k) == "time":
				t, _ = jint(v)
			case string(k) == "chunk":
				chunk = v
			}
			return true
		})
		if string(typ) != `"chunk"` {
			return true
		}
		var c struct {
			Type  string      `json:"type"`
			Usage *TokenUsage `json:"usage"`
		}
		if json.Unmarshal(chunk, &c) == nil && c.Type == "usage" && c.Usage != nil {
			u, at = c.Usage, t
		}
		return true
	})
	return u, at
}

func (r *reader) assistantMessage(ev *envelope, seq, at int64) error {
	var turn, step int64
	var message, usage, stream []byte
	if !fields(ev.Data, func(k, v []byte) bool {
		switch {
		case string(k) == "turn":
			turn, _ = jint(v)
		case string(k) == "step":
			step, _ = jint(v)
		case string(k) == "message":
			message = v
		case string(k) == "usage":
			usage = v
		case string(k) == "stream":
			stream = v
		}
		return true
	}) {
		return r.bad(ev, seq, errShape)
	}
	st := r.st
	var provider, model string
	var content []byte
	fields(message, func(k, v []byte) bool {
		switch {
		case string(k) == "source":
			fields(v, func(k, v []byte) bool {
				switch {
				case string(k) == "provider":
					provider, _ = jstr(v)
				case string(k) == "model":
					model, _ = jstr(v)
				}
				return true
			})
		case string(k) == "content":
			content = v
		}
		return true
	})
	// A call whose tool/call event is missing (a repaired crash) still
	// gets its tool's name from the message that advertised it.
	items(content, func(raw []byte) bool {
		if t, _ := field(raw, "type"); string(t) != `"tool-call"` {
			return true
		}
		var b struct {
			ID        string `json:"id"`
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
		}
		if json.Unmarshal(raw, &b) == nil && b.ID != "" {
			if _, ok := st.Calls[b.ID]; !ok {
				st.Calls[b.ID] = callInfo{Name: b.Name, Args: b.Arguments, Seq: -1}
			}
		}
		return true
	})
	if provider == "" && model == "" {
		provider, model = st.Session.Provider, st.Session.Model
	}
	rec := Usage{Turn: int(turn), Step: int(step), Kind: UsageMessage, At: at, Seq: seq, Line: r.line,
		Provider: provider, Model: model, ContextWindow: st.Session.ContextWindow}
	var u *TokenUsage
	if !isNull(usage) {
		u = new(TokenUsage)
		if err := json.Unmarshal(usage, u); err != nil {
			return r.bad(ev, seq, err)
		}
	} else {
		var t int64
		if u, t = streamUsage(stream); u != nil {
			rec.At = orTime(t, at)
		}
	}
	// The attempt this message ends: its chunk sample is replaced.
	var sample *attempt
	if a := st.Attempt; a != nil {
		if a.Turn == rec.Turn && a.Step == rec.Step {
			sample = a
			st.Attempt = nil
		} else if err := r.closeAttempt(); err != nil {
			return err
		}
	}
	switch {
	case u != nil:
		rec.Tokens = *u
	case sample != nil && sample.Usage != nil:
		rec = sample.record(UsageChunk, false)
	default:
		return nil
	}
	return r.usage(rec)
}

// surfaceOp is "append" or a replace op: {op,start,end} up to v2,
// {op,startSeq,endSeq} from v3.
type replaceOp struct {
	Op       string `json:"op"`
	Start    *int64 `json:"start"`
	End      *int64 `json:"end"`
	StartSeq *int64 `json:"startSeq"`
	EndSeq   *int64 `json:"endSeq"`
}

// surface applies a surface event's op to the fold. call is the call id
// of a tool/result ("" otherwise). Results of other calls that the op
// removes from the surface are reported as replaced; self says whether the
// op replaced this call's own earlier node (a prune or rewrite of it).
func (r *reader) surface(ev *envelope, seq int64, call string) (self bool, err error) {
	st := r.st
	op := bytes.TrimSpace(ev.SurfaceOp)
	if len(op) == 0 || op[0] == '"' {
		if len(op) > 0 && string(op) != `"append"` {
			return false, r.eventDiag(CodeBadSurfaceOp, seq, map[string]string{"op": shorten(string(op))},
				"%s on line %d has surfaceOp %s; taken as append", ev.Type, r.line, shorten(string(op)))
		}
		st.Surface = append(st.Surface, node{Seq: seq, Call: call})
		return false, nil
	}
	var ro replaceOp
	if err := json.Unmarshal(op, &ro); err != nil || ro.Op != "replace" {
		st.Surface = append(st.Surface, node{Seq: seq, Call: call})
		return false, r.eventDiag(CodeBadSurfaceOp, seq, map[string]string{"op": shorten(string(op))},
			"%s on line %d has surfaceOp %s; taken as append", ev.Type, r.line, shorten(string(op)))
	}
	start, end := ro.Start, ro.End
	if ro.StartSeq != nil || ro.EndSeq != nil {
		start, end = ro.StartSeq, ro.EndSeq
	}
	i, j := -1, -1
	if start != nil && end != nil {
		for k := len(st.Surface) - 1; k >= 0; k-- {
			if st.Surface[k].Seq == *end {
				j = k
			}
			if st.Surface[k].Seq == *start {
				i = k
				break
			}
		}
	}
	if i < 0 || j < i {
		st.Surface = append(st.Surface, node{Seq: seq, Call: call})
		return false, r.eventDiag(CodeBadSurfaceOp, seq, map[string]string{"op": shorten(string(op))},
			"%s on line %d replaces %s, which is not a span of the current surface; taken as append", ev.Type, r.line, shorten(string(op)))
	}
	removed := append([]node(nil), st.Surface[i:j+1]...)
	st.Surface = append(st.Surface[:i], append([]node{{Seq: seq, Call: call}}, st.Surface[j+1:]...)...)

	kind, eventSeq, cid := ReplacedByRewrite, int64(-1), ""
	if c := st.Compaction; c != nil && c.SummarySeq >= 0 && !c.Used {
		kind, eventSeq, cid = ReplacedByCompaction, c.SummarySeq, c.ID
		c.Used = true
	} else if ev.Type == "user/message" && r.isCheckpoint(ev) {
		kind = ReplacedByCompaction
	}
	for _, n := range removed {
		if n.Call == "" {
			continue
		}
		if n.Call == call {
			self = true
			continue
		}
		if err := r.replace(&Replacement{CallID: n.Call, Kind: kind, Seq: seq, Line: r.line, EventSeq: eventSeq, CompactionID: cid}); err != nil {
			return self, err
		}
	}
	return self, nil
}

// isCheckpoint says whether a user/message is a compaction checkpoint.
func (r *reader) isCheckpoint(ev *envelope) bool {
	var d struct {
		Source struct {
			Kind   string `json:"kind"`
			Plugin string `json:"plugin"`
		} `json:"source"`
	}
	if json.Unmarshal(ev.Data, &d) != nil {
		return false
	}
	return d.Source.Kind == "compact-checkpoint" || d.Source.Kind == "plugin" && d.Source.Plugin == "compact"
}

func (r *reader) replace(rep *Replacement) error {
	r.stats.Replacements++
	return emit(r.h.Replace, rep)
}

func (r *reader) toolResult(ev *envelope, seq, at int64) error {
	st := r.st
	d, ok := parseToolResult(ev.Data)
	if !ok {
		if _, serr := r.surface(ev, seq, ""); serr != nil {
			return serr
		}
		return r.bad(ev, seq, errShape)
	}
	var toolErr *ToolError
	if !isNull(d.Error) {
		toolErr = new(ToolError)
		if json.Unmarshal(d.Error, toolErr) != nil {
			toolErr = &ToolError{Name: "invalid"}
		}
	}
	var meta json.RawMessage
	if !isNull(d.Meta) {
		meta = append(json.RawMessage(nil), d.Meta...)
	}
	call, raws, isError, werr := d.unwrap()
	if werr != nil {
		if err := r.eventDiag(CodeBadEvent, seq, map[string]string{"type": ev.Type, "error": werr.Error()},
			"tool/result on line %d: %v", r.line, werr); err != nil {
			return err
		}
	}
	self, err := r.surface(ev, seq, call)
	if err != nil {
		return err
	}
	if call == "" {
		return r.eventDiag(CodeOrphanResult, seq, nil, "tool/result on line %d names no call id; not counted", r.line)
	}
	tool, seen := st.Seen[call]
	ci, hasCall := st.Calls[call]
	if !seen {
		tool = ci.Name
	}
	blocks, images, problems := convertBlocks(raws, r.home)
	for _, p := range problems {
		if err := r.eventDiag(p.code, seq, map[string]string{"block": fmt.Sprint(p.index)}, "tool/result on line %d: %s", r.line, p.msg); err != nil {
			return err
		}
	}
	loc := r.at.locator(r.zstd, r.line)
	switch {
	case !seen:
		st.Seen[call] = tool
		delete(st.Calls, call)
		res := &Result{CallID: call, Tool: tool, Arguments: ci.Args, Turn: d.Turn, Step: d.Step,
			MessageID: d.ID, Seq: seq, CallSeq: -1, Sources: expandSeqs(ev.SourceEventSeqs),
			At: at, Line: r.line, Locator: loc, IsError: isError, Error: toolErr, Meta: meta,
			Blocks: blocks, Images: images, Notice: findNotice(blocks, st.Session.ID, tool)}
		if hasCall {
			res.CallSeq = ci.Seq
		}
		res.Inherited = r.inherited(seq)
		r.stats.Results++
		return emit(r.h.Result, res)
	case self:
		kind, eventSeq := ReplacedByRewrite, int64(-1)
		if st.PrevType == "compaction/prune" {
			kind, eventSeq = ReplacedByPrune, st.PruneSeq
		}
		return r.replace(&Replacement{CallID: call, Kind: kind, Seq: seq, Line: r.line, EventSeq: eventSeq,
			Blocks: blocks, Images: images, Locator: &loc})
	default:
		return r.eventDiag(CodeDuplicate, seq, map[string]string{"callId": shorten(call)},
			"tool/result on line %d is a second result for call %q; the first one is kept", r.line, shorten(call))
	}
}

// dispatchCopy counts the log copy of a run_code sub-call's result.
func (r *reader) dispatchCopy(ev *envelope, seq, at int64) error {
	var d struct {
		RootCallID, ParentCallID, SubCallID, Name string
		Arguments, Content                        []byte
		IsError                                   bool
	}
	if !fields(ev.Data, func(k, v []byte) bool {
		switch {
		case string(k) == "rootCallId":
			d.RootCallID, _ = jstr(v)
		case string(k) == "parentCallId":
			d.ParentCallID, _ = jstr(v)
		case string(k) == "subCallId":
			d.SubCallID, _ = jstr(v)
		case string(k) == "name":
			d.Name, _ = jstr(v)
		case string(k) == "arguments":
			d.Arguments = v
		case string(k) == "content":
			d.Content = v
		case string(k) == "isError":
			d.IsError = jtrue(v)
		}
		return true
	}) {
		return r.bad(ev, seq, errShape)
	}
	blocks, images, problems := convertBlocks(d.Content, r.home)
	for _, p := range problems {
		if err := r.eventDiag(p.code, seq, map[string]string{"block": fmt.Sprint(p.index)}, "%s on line %d: %s", ev.Type, r.line, p.msg); err != nil {
			return err
		}
	}
	res := &Result{CallID: d.SubCallID, Tool: d.Name, Arguments: string(d.Arguments), Seq: seq, CallSeq: -1,
		At: at, Line: r.line, Locator: r.at.locator(r.zstd, r.line), IsError: d.IsError, Blocks: blocks,
		Images: images, Notice: findNotice(blocks, r.st.Session.ID, d.Name), Dispatch: true,
		RootCall: d.RootCallID, ParentCall: d.ParentCallID}
	res.Inherited = r.inherited(seq)
	r.stats.Dispatches++
	return emit(r.h.Result, res)
}

// maxSources bounds how far a hostile [start, end] range is expanded.
const maxSources = 4096

// expandSeqs reads sourceEventSeqs: seqs, or [start, end] pairs for runs.
func expandSeqs(raw json.RawMessage) []int64 {
	if len(raw) == 0 {
		return nil
	}
	var items []json.RawMessage
	if json.Unmarshal(raw, &items) != nil {
		return nil
	}
	var out []int64
	for _, it := range items {
		var n int64
		if json.Unmarshal(it, &n) == nil {
			out = append(out, n)
		} else {
			var pair []int64
			if json.Unmarshal(it, &pair) != nil || len(pair) != 2 || pair[1] < pair[0] {
				continue
			}
			for s := pair[0]; s <= pair[1] && len(out) < maxSources; s++ {
				out = append(out, s)
			}
		}
		if len(out) >= maxSources {
			break
		}
	}
	return out
}

func (r *reader) compaction(ev *envelope, seq, at int64) error {
	st := r.st
	var d struct {
		CompactionID  string `json:"compactionId"`
		Turn          *int   `json:"turn"`
		ShadowedRange struct {
			Start int64 `json:"start"`
			End   int64 `json:"end"`
		} `json:"shadowedRange"`
		ShadowedSeqs       []int64         `json:"shadowedSeqs"`
		ShadowedTokenCount int64           `json:"shadowedTokenCount"`
		Provider           string          `json:"provider"`
		Model              string          `json:"model"`
		Usage              *TokenUsage     `json:"usage"`
		Error              json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(ev.Data, &d); err != nil {
		return r.bad(ev, seq, err)
	}
	turn := 0
	if d.Turn != nil {
		turn = *d.Turn
	}
	c := Compaction{ID: d.CompactionID, Turn: turn, StartSeq: -1, Seq: seq, Line: r.line, At: at,
		ShadowedStart: d.ShadowedRange.Start, ShadowedEnd: d.ShadowedRange.End, ShadowedSeqs: d.ShadowedSeqs,
		ShadowedTokens: d.ShadowedTokenCount, Provider: d.Provider, Model: d.Model, Usage: d.Usage}
	open := st.Compaction
	if open != nil && open.ID == d.CompactionID {
		c.StartSeq = open.StartSeq
		if d.Turn == nil {
			c.Turn = open.Turn
		}
	}
	switch ev.Type {
	case "compaction/start":
		st.Compaction = &openCompaction{ID: d.CompactionID, StartSeq: seq, Turn: turn, SummarySeq: -1}
		return nil
	case "compaction/prune":
		st.PruneSeq = seq
		c.Kind = CompactionPrune
	case "compaction/summary":
		c.Kind = CompactionSummary
		if open == nil || open.ID != d.CompactionID {
			open = &openCompaction{ID: d.CompactionID, StartSeq: -1, Turn: turn}
			st.Compaction = open
		}
		open.SummarySeq, open.Used = seq, false
		if d.Usage != nil {
			if err := r.usage(Usage{Turn: c.Turn, Kind: UsageCompaction, Tokens: *d.Usage, At: at, Seq: seq,
				Line: r.line, Provider: d.Provider, Model: d.Model, ContextWindow: st.Session.ContextWindow,
				CompactionID: d.CompactionID}); err != nil {
				return err
			}
		}
	case "compaction/end":
		st.Compaction = nil
		if open == nil || open.ID != d.CompactionID || open.SummarySeq >= 0 {
			return nil
		}
		c.Kind, c.Error = CompactionFailed, d.Error
		c.ShadowedSeqs = nil
	}
	c.Inherited = r.inherited(seq)
	r.stats.Compactions++
	return emit(r.h.Compaction, c)
}
