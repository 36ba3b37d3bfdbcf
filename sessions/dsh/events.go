package dsh

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
)

// MaxVersion is the newest log format this reader knows.
const MaxVersion = 4

// knownTypes are the event types of formats 0 to 4 (dsh's released
// inventories plus the later generations' additions). Any other type is
// refused unless the event is marked ignorable.
var knownTypes = map[string]bool{}

func init() {
	for _, t := range []string{
		"session", "text-chunks", "reasoning-chunks", "tool-call-chunks",
		// surface events
		"user/message", "assistant/message", "tool/result", "system/message", "developer/message",
		// v0 inventory
		"agent-preset/selected", "agent/inbox/spliced", "approval/asked", "approval/decided", "approval/policy",
		"assistant/chunk", "command/done", "command/run", "compaction/end", "compaction/prune", "compaction/start",
		"compaction/summary", "feedback/record", "goal/change", "hook/invoked", "hook/result", "llm/retry",
		"llm/retry-started", "model/selection", "permission/preset", "plan/mode", "request/context",
		"request/header", "sandbox/mode", "schedule/change", "session-log-deepseek/delivery-accepted",
		"session/end-seed", "session/title", "session/title-llm-request", "step/end", "step/start",
		"subagent/descriptor", "subagent/model-selection-policy", "team/member", "team/message/delivered",
		"team/message/queued", "team/task", "todo/write", "tool-workflow/agent-end", "tool-workflow/agent-start",
		"tool-workflow/run-end", "tool-workflow/run-start", "tool/call", "tool/code-dispatch",
		"tool/code-dispatch-start", "turn/end", "turn/start", "web/deepseek-search-llm-request",
		"fork/session-source",
		// v2, v3, v4
		"assistant/attempt", "tool/ptc-dispatch", "tool/ptc-dispatch-start", "feedback/message-put",
		"feedback/message-delete", "subagent/catalog", "image/offload", "deliverables/presented",
		"workspace/changes",
	} {
		knownTypes[t] = true
		canonical[t] = t
	}
	for _, t := range []string{"session", "text-chunks", "reasoning-chunks", "tool-call-chunks"} {
		delete(knownTypes, t)
	}
}

// Packed chunk rows (v0/v1): one row for >= 3 consecutive deltas of one
// block, standing for the assistant/chunk events seq0 .. seq0+n-1.
var packedTypes = map[string]bool{"text-chunks": true, "reasoning-chunks": true, "tool-call-chunks": true}

var surfaceTypes = map[string]bool{
	"user/message": true, "assistant/message": true, "tool/result": true,
	"system/message": true, "developer/message": true,
}

// envelope is one event row. Data, SurfaceOp and SourceEventSeqs point
// into the line being read and are valid only while it is handled.
type envelope struct {
	Type            string
	Seq, Seq0       int64
	Time, Time0     int64
	HasSeq, HasSeq0 bool
	HasTime         bool
	HasTime0        bool
	Data            []byte
	Ignorable       bool
	SurfaceOp       []byte
	SourceEventSeqs []byte
}

// canonical holds one copy of each known type name, so reading a type
// does not allocate.
var canonical = map[string]string{}

// parseEnvelope reads an event row's members in one pass.
func parseEnvelope(line []byte, ev *envelope) bool {
	*ev = envelope{}
	good := true
	num := func(v []byte, n *int64, has *bool) {
		x, ok := jint(v)
		if !ok {
			good = false
		}
		*n, *has = x, ok
	}
	ok := fields(line, func(k, v []byte) bool {
		switch {
		case string(k) == "type":
			if len(v) >= 2 && v[0] == '"' {
				if c, known := canonical[string(v[1:len(v)-1])]; known {
					ev.Type = c
					break
				}
			}
			if t, isStr := jstr(v); isStr {
				ev.Type = t
			} else {
				good = false
			}
		case string(k) == "data":
			ev.Data = v
		case string(k) == "seq":
			num(v, &ev.Seq, &ev.HasSeq)
		case string(k) == "time":
			num(v, &ev.Time, &ev.HasTime)
		case string(k) == "surfaceOp":
			ev.SurfaceOp = v
		case string(k) == "sourceEventSeqs":
			ev.SourceEventSeqs = v
		case string(k) == "ignorable":
			ev.Ignorable = jtrue(v)
		case string(k) == "seq0":
			num(v, &ev.Seq0, &ev.HasSeq0)
		case string(k) == "time0":
			num(v, &ev.Time0, &ev.HasTime0)
		}
		return true
	})
	return ok && good && ev.Type != ""
}

type headerLine struct {
	Type            string  `json:"type"`
	Version         *int    `json:"version"`
	ID              *string `json:"id"`
	CreatedAt       *int64  `json:"createdAt"`
	Cwd             *string `json:"cwd"`
	ParentSession   *string `json:"parentSession"`
	Origin          *string `json:"origin"`
	DelegationDepth *int    `json:"delegationDepth"`
	AgentPreset     *string `json:"agentPreset"`
	SeedLength      *int64  `json:"seedLength"`
	IsSeeded        *bool   `json:"isSeeded"`
}

// LooksLikeHeader says whether line is a dsh session header: a JSON object
// {"type":"session","version":N,"id":"…",…} with N a non-negative integer
// and a non-empty id. This is the positive detection of a dsh log.
func LooksLikeHeader(line []byte) bool {
	_, ok := parseHeader(line)
	return ok
}

func parseHeader(line []byte) (Header, bool) {
	line = bytes.TrimSpace(line)
	if len(line) == 0 || line[0] != '{' {
		return Header{}, false
	}
	var h headerLine
	if err := json.Unmarshal(line, &h); err != nil || h.Type != "session" || h.Version == nil ||
		*h.Version < 0 || h.ID == nil || *h.ID == "" {
		return Header{}, false
	}
	out := Header{ID: *h.ID, Version: *h.Version}
	if h.CreatedAt != nil {
		out.CreatedAt = *h.CreatedAt
	}
	if h.Cwd != nil {
		out.Cwd, out.HasCwd = *h.Cwd, true
	}
	if h.ParentSession != nil {
		out.ParentSession = *h.ParentSession
	}
	if h.Origin != nil {
		out.Origin = *h.Origin
	}
	if h.DelegationDepth != nil {
		out.DelegationDepth, out.HasDepth = *h.DelegationDepth, true
	}
	if h.AgentPreset != nil {
		out.AgentPreset = *h.AgentPreset
	}
	if h.SeedLength != nil {
		out.SeedLength, out.IsSeeded = *h.SeedLength, true
	}
	if h.IsSeeded != nil {
		out.IsSeeded = *h.IsSeeded
	}
	return out, true
}

// Fold state carried across passes in a Cursor.

type callInfo struct {
	Name string `json:"name"`
	Args string `json:"args,omitempty"`
	Seq  int64  `json:"seq"`
}

type node struct {
	Seq  int64  `json:"s"`
	Call string `json:"c,omitempty"`
}

type openCompaction struct {
	ID         string `json:"id"`
	StartSeq   int64  `json:"startSeq"`
	Turn       int    `json:"turn"`
	SummarySeq int64  `json:"summarySeq"`
	Used       bool   `json:"used"`
}

type attempt struct {
	Turn     int         `json:"turn"`
	Step     int         `json:"step"`
	Terminal bool        `json:"terminal"`
	Usage    *TokenUsage `json:"usage,omitempty"`
	At       int64       `json:"at"`
	Seq      int64       `json:"seq"`
	Line     int64       `json:"line"`
	Provider string      `json:"provider,omitempty"`
	Model    string      `json:"model,omitempty"`
	Window   int64       `json:"window,omitempty"`
}

type state struct {
	Zstd       bool                `json:"zstd"`
	Session    Session             `json:"session"`
	NextSeq    int64               `json:"nextSeq"`
	Calls      map[string]callInfo `json:"calls,omitempty"`
	Seen       map[string]string   `json:"seen,omitempty"`     // call id -> tool of counted results
	Dispatched map[string]bool     `json:"dispatch,omitempty"` // sub-call ids of counted dispatch copies
	Surface    []node              `json:"surface,omitempty"`
	PrevType   string              `json:"prevType,omitempty"`
	PruneSeq   int64               `json:"pruneSeq"`
	SeedCut    int64               `json:"seedCut"` // v2+: seq of the latest session/end-seed{inherited:true}, -1 before one
	Compaction *openCompaction     `json:"compaction,omitempty"`
	Attempt    *attempt            `json:"attempt,omitempty"`
}

func newState() *state {
	return &state{Calls: map[string]callInfo{}, Seen: map[string]string{}, Dispatched: map[string]bool{}, PruneSeq: -1, SeedCut: -1}
}

type packedRow struct {
	Texts []json.RawMessage `json:"texts"`
	Args  []json.RawMessage `json:"args"`
	Turn  int               `json:"turn"`
	Step  int               `json:"step"`
}

// reader turns lines into events and events into the package's records.
type reader struct {
	st      *state
	h       Handler
	opts    Options
	zstd    bool
	home    string
	stats   *Stats
	unknown map[string]*unknownType

	// the line being handled
	line int64
	at   pos
}

type unknownType struct {
	count int
	line  int64
	seq   int64
}

func (r *reader) diag(d Diagnostic) error {
	r.stats.Diagnostics++
	return emit(r.h.Diagnostic, d)
}

func (r *reader) eventDiag(code string, seq int64, params map[string]string, format string, args ...any) error {
	return r.diag(Diagnostic{Code: code, Line: r.line, Frame: r.at.frame, Offset: r.at.off, Seq: seq,
		Params: params, Message: fmt.Sprintf(format, args...)})
}

// shorten keeps untrusted names short in messages.
func shorten(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}

// handleLine is the lineFunc of a pass.
func (r *reader) handleLine(line []byte, at pos, n int64) error {
	r.line, r.at = n, at
	r.stats.Lines++
	if n == 1 {
		// The header was read before the pass began.
		return nil
	}
	if len(bytes.TrimSpace(line)) == 0 {
		return nil
	}
	var ev envelope
	if !parseEnvelope(line, &ev) {
		return r.eventDiag(CodeBadJSON, -1, nil,
			"line %d is not a JSON event object with a string type and integer seq and time", n)
	}
	return r.event(&ev)
}

func (r *reader) event(ev *envelope) error {
	st := r.st
	count := int64(1)
	explicit, hasExplicit := ev.Seq, ev.HasSeq
	var packed *packedRow
	if packedTypes[ev.Type] {
		explicit, hasExplicit = ev.Seq0, ev.HasSeq0
		var p packedRow
		if err := json.Unmarshal(ev.Data, &p); err != nil || len(p.Texts)+len(p.Args) == 0 {
			if err := r.eventDiag(CodeBadEvent, st.NextSeq, map[string]string{"type": ev.Type},
				"packed %s row on line %d has no deltas; counted as one event", ev.Type, r.line); err != nil {
				return err
			}
		} else {
			count = int64(len(p.Texts) + len(p.Args))
			packed = &p
		}
	}
	seq := st.NextSeq
	if hasExplicit {
		if explicit != st.NextSeq {
			if err := r.eventDiag(CodeSeqGap, explicit,
				map[string]string{"expected": fmt.Sprint(st.NextSeq), "got": fmt.Sprint(explicit)},
				"line %d has seq %d where %d was expected", r.line, explicit, st.NextSeq); err != nil {
				return err
			}
		}
		seq = explicit
	}
	st.NextSeq = seq + count
	r.stats.Events += count
	defer func() { st.PrevType = ev.Type }()
	if packedTypes[ev.Type] {
		if packed != nil {
			r.chunk(packed.Turn, packed.Step, "", nil, r.eventTime(ev), seq)
		}
		return nil
	}
	if ev.Type == "session" {
		return r.eventDiag(CodeSecondHeader, seq, nil, "line %d is a second session header; ignored", r.line)
	}
	if !knownTypes[ev.Type] {
		if ev.Ignorable {
			if r.stats.Ignored == nil {
				r.stats.Ignored = map[string]int{}
			}
			r.stats.Ignored[ev.Type]++
			return nil
		}
		u := r.unknown[ev.Type]
		if u == nil {
			if len(r.unknown) >= 1000 {
				u = r.unknown["…"]
				if u == nil {
					u = &unknownType{line: r.line, seq: seq}
					r.unknown["…"] = u
				}
			} else {
				u = &unknownType{line: r.line, seq: seq}
				r.unknown[ev.Type] = u
			}
		}
		u.count++
		return nil
	}
	if err := r.dispatch(ev, seq); err != nil {
		return err
	}
	return nil
}

// inherited says whether the event at seq came with a fork's seed: in
// v0/v1 the header's seedLength counts those events; from v2 they are the
// ones before the tagged session/end-seed marker. A seed that itself holds
// an older fork's marker is cut at the first marker seen so far.
func (r *reader) inherited(seq int64) bool {
	h := &r.st.Session.Header
	switch {
	case !h.IsSeeded:
		return false
	case h.Version <= 1:
		return seq < h.SeedLength
	default:
		return r.st.SeedCut < 0 || seq < r.st.SeedCut
	}
}

func (r *reader) eventTime(ev *envelope) int64 {
	if ev.HasTime {
		return ev.Time
	}
	return ev.Time0
}

// finishPass reports the unknown types met in this pass, one diagnostic
// each, in a stable order.
func (r *reader) finishPass() error {
	types := make([]string, 0, len(r.unknown))
	for t := range r.unknown {
		types = append(types, t)
	}
	sort.Strings(types)
	for _, t := range types {
		u := r.unknown[t]
		if r.stats.Unknown == nil {
			r.stats.Unknown = map[string]int{}
		}
		r.stats.Unknown[t] = u.count
		name := shorten(t)
		if err := r.diag(Diagnostic{Code: CodeUnknownEvent, Line: u.line, Seq: u.seq,
			Params:  map[string]string{"type": name, "count": fmt.Sprint(u.count)},
			Message: fmt.Sprintf("%d event(s) of unknown type %q (first on line %d) were skipped", u.count, name, u.line)}); err != nil {
			return err
		}
	}
	return nil
}
