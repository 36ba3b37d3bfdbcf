// Package goose reads goose (block/goose, now aaif-goose/goose) sessions.
// The current goose keeps every session in one SQLite database,
// <data>/sessions/sessions.db (tables sessions, messages and usage_ledger);
// older versions wrote one JSONL file per session in the same folder (a
// metadata line, then one message per line), which goose imports into the
// database on first start and leaves in place.
//
// A message's content is a list of items; a tool result is a toolResponse
// item, matched by id to the assistant's toolRequest item that named the
// tool. What the model saw of it is the result's content items meant for
// the assistant (goose drops items whose audience excludes it), or the
// error text of a failed call. A text item over goose's threshold was
// replaced, before it was stored, by a notice naming the file that holds it.
//
// Nothing here writes: the database is opened read-only (see
// readkit.OpenReadOnly), and records go to callbacks as they are read.
package goose

import (
	"encoding/json"
	"errors"
	"time"

	"spillscope/retention"
	"spillscope/sessions/internal/readkit"
)

// Harness is the name this harness goes by in the index.
const Harness = "goose"

// Diagnostic is a fault or a skipped part of the input, with a stable code.
type Diagnostic = readkit.Diagnostic

// Diagnostic codes.
const (
	// DiagBadRecord: a message, line or row that is not of the known shape.
	DiagBadRecord = "goose.bad-record"
	// DiagUnknownContent: message content items of an unknown type, one
	// diagnostic per type per pass with "type", "count" and "first".
	DiagUnknownContent = "goose.unknown-content"
	// DiagOrphanResult: a tool response whose request is nowhere in the
	// session (its tool name is unknown).
	DiagOrphanResult = "goose.orphan-result"
	// DiagNotDatabase: a SQLite file without goose's sessions and messages.
	DiagNotDatabase = "goose.not-a-database"
	// DiagNotSession: a JSONL file that is not a goose session.
	DiagNotSession = "goose.not-a-session"
)

// Locator sources.
const (
	SourceDB    = "db"
	SourceJSONL = "jsonl"
)

// ErrResultGone reports a locator that no longer holds its tool result.
var ErrResultGone = errors.New("goose: tool result no longer at its locator")

// Totals are token counts as goose keeps them per session. Input excludes
// cache reads and writes (goose's input_tokens includes them).
type Totals struct {
	Input      int64
	CacheRead  int64
	CacheWrite int64
	Output     int64
	Total      int64
	Cost       float64
}

// Session is one session's own facts. Complete is set when the records
// that follow for it in this pass are all it holds (a first read, a JSONL
// file, a re-read after goose rewrote the conversation); Deleted, with only
// ID set, when a database pass finds it gone.
type Session struct {
	ID         string
	Name       string
	WorkingDir string
	Type       string // user, scheduled, sub_agent, hidden, terminal, gateway, acp
	ParentID   string // the session that started this one (a subagent's)
	Provider   string
	Model      string
	Created    time.Time
	Updated    time.Time
	// Last is the usage of the session's latest model call; Accumulated
	// its sums over all of them.
	Last        Totals
	Accumulated Totals
	Row         int64
	Complete    bool
	Deleted     bool
}

// Result is one tool response.
type Result struct {
	SessionID string
	MessageID string
	CallID    string
	Tool      string
	Arguments json.RawMessage
	// Blocks are the content items the model was sent, in MCP's shape.
	Blocks []retention.Block
	// Hidden counts items goose kept from the model (audience user only).
	Hidden  int
	IsError bool
	Error   string
	Time    time.Time
	// AgentVisible is false once goose has taken the message out of the
	// model's context (after a compaction summarised it).
	AgentVisible bool
	Notice       *retention.GooseNotice
	Locator      Locator
	Row          int64 // the message's row id in the database
	Line         int64 // the message's line in a JSONL file
	Index        int   // the item's index in the message's content
}

// Locator finds a result again: in the database by the message's row id
// (checked against its message id, since goose can rewrite a conversation
// under new row ids) or by that message id; in a JSONL file by the line's
// byte range. Index is the item in the message's content.
type Locator struct {
	Source    string `json:"source"`
	Row       int64  `json:"row,omitempty"`
	MessageID string `json:"messageId,omitempty"`
	Offset    int64  `json:"offset,omitempty"`
	Length    int64  `json:"length,omitempty"`
	Line      int64  `json:"line,omitempty"`
	Index     int    `json:"index"`
}

// Usage is one usage_ledger row: a model call's usage as goose recorded it
// after the call. Compaction marks a call made to compact the context;
// CarriedForward a row goose wrote to carry usage recorded before the
// ledger existed (not one call).
type Usage struct {
	SessionID      string
	Key            string // "ledger:<id>"
	Model          string
	Time           time.Time
	Row            int64
	Input          int64
	CacheRead      int64
	CacheWrite     int64
	Output         int64
	Total          int64
	Cost           float64
	Compaction     bool
	CarriedForward bool
}

// Compaction is a compaction goose ran, as its usage ledger records it.
type Compaction struct {
	SessionID string
	Time      time.Time
	Row       int64
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

func wrapCallbacks(h Handler) Handler {
	return Handler{Session: readkit.Wrap(h.Session), Result: readkit.Wrap(h.Result), Usage: readkit.Wrap(h.Usage),
		Compaction: readkit.Wrap(h.Compaction), Diagnostic: readkit.Wrap(h.Diagnostic)}
}
