// Package copilot reads GitHub Copilot CLI sessions: one JSON event per line
// in <COPILOT_HOME or ~/.copilot>/session-state/<session id>/events.jsonl.
//
// What the model saw of a tool result is tool.execution_complete's
// result.content ("concise tool result text sent to the LLM", in the CLI's
// published event schema), plus the images it lists in binaryResultsForLlm;
// result.detailedContent is what the terminal timeline shows (a diff, the
// untruncated text) and is kept beside it as Detailed when it differs.
//
// The reader is pure: it opens only the file it is given, never writes, and
// passes every record to a callback as it is read, so a large log is never
// held in memory.
package copilot

import (
	"encoding/json"
	"errors"
	"time"

	"spillscope/retention"
	"spillscope/sessions/internal/readkit"
)

// Harness is the name this harness goes by in the index.
const Harness = "copilot-cli"

// Diagnostic is a fault or a skipped part of the input, with a stable code.
type Diagnostic = readkit.Diagnostic

// Diagnostic codes.
const (
	// DiagBadLine: a line that is not a JSON object.
	DiagBadLine = "copilot.bad-line"
	// DiagNoType: a JSON object line without a string "type".
	DiagNoType = "copilot.no-type"
	// DiagUnknownEvent: lines of an event type this reader does not know,
	// one diagnostic per type per pass with "type", "count" and "first".
	DiagUnknownEvent = "copilot.unknown-event"
	// DiagBadEvent: a known event whose data does not have the known shape.
	DiagBadEvent = "copilot.bad-event"
	// DiagOrphanResult: a tool.execution_complete whose call was never
	// started or requested in the log (its tool name is unknown).
	DiagOrphanResult = "copilot.orphan-result"
	// DiagNotSession: a file whose first line is not a Copilot session.start.
	DiagNotSession = "copilot.not-a-session"
)

// ErrResultGone reports a locator whose line no longer holds that result.
var ErrResultGone = errors.New("copilot: tool result no longer at its locator")

// Session is what the log says about the session itself. A pass reports it
// once, at its end, with the facts seen in that pass (fields left empty were
// not seen).
type Session struct {
	ID         string
	Version    string // copilotVersion of the CLI that wrote it
	Producer   string
	Cwd        string
	GitRoot    string
	Repository string
	Branch     string
	Title      string
	Model      string // the model in use at the end of the pass
	Started    time.Time
	Ended      time.Time // session.shutdown
	// Totals are session.shutdown's per-model metrics: the CLI's own sums
	// over every model call, the only complete usage record on disk (the
	// per-call assistant.usage events are ephemeral and not written).
	Totals []ModelTotals
	// Context figures session.shutdown reports for the final prompt.
	CurrentTokens, SystemTokens, ConversationTokens, ToolDefinitionsTokens int64
}

// ModelTotals is one model's line of session.shutdown.modelMetrics. Input
// excludes cache reads and writes (the CLI's inputTokens includes them).
type ModelTotals struct {
	Model      string
	Requests   int64
	Input      int64
	CacheRead  int64
	CacheWrite int64
	Output     int64
	Reasoning  int64
}

// Result is one completed tool call.
type Result struct {
	CallID string
	Tool   string
	// Arguments as the call's tool.execution_start recorded them (else the
	// assistant.message request); nil when neither is in what was read.
	Arguments json.RawMessage
	// Blocks is what the model saw: content as one text block, then the
	// images of binaryResultsForLlm.
	Blocks []retention.Block
	// Detailed is detailedContent when it differs from content.
	Detailed string
	IsError  bool
	Error    string // error.message of a failed call
	Model    string
	// AgentID names the sub-agent instance that ran the call (empty for the
	// main agent); ParentCallID is the tool call that started it.
	AgentID      string
	ParentCallID string
	Time         time.Time
	// Truncated is set when the CLI's telemetry says the model got fewer
	// characters than the tool produced (resultForLlmLength < resultLength);
	// FullLength and LLMLength are those figures.
	Truncated             bool
	FullLength, LLMLength int64
	// Notice is the CLI's large-output notice, when content is one.
	Notice  *retention.CopilotNotice
	Locator Locator
}

// Locator finds a result again: the byte range and number of its
// tool.execution_complete line.
type Locator struct {
	Offset int64 `json:"offset"`
	Length int64 `json:"length"`
	Line   int64 `json:"line"`
}

// Usage is one model call's usage as the log records it. Persisted logs
// carry only each assistant.message's outputTokens (OutputOnly); an
// assistant.usage event, if one is ever written, gives the full record.
// Input excludes cache reads and writes.
type Usage struct {
	Key        string // messageId, or apiCallId of an assistant.usage
	Model      string
	Time       time.Time
	Line       int64
	Input      int64
	CacheRead  int64
	CacheWrite int64
	Output     int64
	Reasoning  int64
	OutputOnly bool
	AgentID    string
}

// Compaction kinds.
const (
	CompactionStart    = "compaction-start"
	CompactionComplete = "compaction"
	Truncation         = "truncation"
)

// Compaction is a context compaction or truncation the CLI recorded.
type Compaction struct {
	Kind            string
	Time            time.Time
	Line            int64
	PreTokens       int64
	PostTokens      int64
	TokensRemoved   int64
	MessagesRemoved int64
	TokenLimit      int64
	Success         bool
	Error           string
	Summary         string
	AgentID         string
}

// Handler receives what a pass reads. Nil fields are skipped; an error from
// any of them stops the pass and is returned.
type Handler struct {
	Session    func(Session) error
	Result     func(Result) error
	Usage      func(Usage) error
	Compaction func(Compaction) error
	Diagnostic func(Diagnostic) error
}

// Cursor is where a pass stopped, to resume from when the log grows: the
// offset and number of the first line not read (an incomplete last line is
// left for the next pass), and the calls started but not yet completed.
type Cursor struct {
	Offset    int64              `json:"offset"`
	Line      int64              `json:"line"`
	SessionID string             `json:"sessionId,omitempty"`
	Model     string             `json:"model,omitempty"`
	Pending   map[string]Started `json:"pending,omitempty"`
}

// Started is a call seen started or requested and not yet completed: its
// tool name and where its arguments are (the line that recorded them).
type Started struct {
	Tool    string  `json:"tool"`
	Args    Locator `json:"args"`
	AgentID string  `json:"agentId,omitempty"`
}
