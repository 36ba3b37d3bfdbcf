// Package opencode reads OpenCode (anomalyco/opencode, formerly sst/opencode)
// sessions from the three places they live:
//
//   - the SQLite database the current OpenCode writes, opencode.db (or
//     opencode-<channel>.db) in its data folder, tables session, message
//     and part with a JSON data column: one source with many sessions,
//     read incrementally by its rows' time_updated;
//   - the JSON storage folder older versions wrote, storage/session/<project>/
//     <session>.json, storage/message/<session>/<message>.json and
//     storage/part/<message>/<part>.json;
//   - `opencode export` documents: one session's info and its messages with
//     their parts, as one JSON document.
//
// A tool result is a part of type "tool" whose state is completed or error.
// What the model saw is state.output with the state's attachments (or
// state.error for a failed call); the output may carry OpenCode's own
// truncation notice, naming the full output it saved under tool-output/.
//
// Nothing here writes: files and databases are opened read-only (see
// readkit.OpenReadOnly for why a live database is never opened immutable),
// and records go to callbacks as they are read.
package opencode

import (
	"encoding/json"
	"errors"
	"time"

	"spillscope/retention"
	"spillscope/sessions/internal/readkit"
)

// Harness is the name this harness goes by in the index.
const Harness = "opencode"

// Diagnostic is a fault or a skipped part of the input, with a stable code.
type Diagnostic = readkit.Diagnostic

// Diagnostic codes.
const (
	// DiagNotExport: a JSON file that is not an `opencode export` document.
	DiagNotExport = "opencode.not-an-export"
	// DiagBadJSON: a message, part or session record that is not valid JSON
	// of the expected shape; its "where" param says which.
	DiagBadJSON = "opencode.bad-record"
	// DiagUnknownPart: parts of a type this reader does not know, one
	// diagnostic per type per pass with "type", "count" and "first".
	DiagUnknownPart = "opencode.unknown-part"
	// DiagNotDatabase: a database without OpenCode's session, message and
	// part tables.
	DiagNotDatabase = "opencode.not-a-database"
)

// Source kinds, as a Locator names them.
const (
	SourceExport  = "export"
	SourceStorage = "storage"
	SourceDB      = "db"
)

// Sentinel errors.
var (
	// ErrResultGone reports a locator that no longer holds a tool result.
	ErrResultGone = errors.New("opencode: tool result no longer at its locator")
	// ErrNotOpenCode reports a database or document that is not OpenCode's.
	ErrNotOpenCode = errors.New("opencode: not an OpenCode source")
)

// Session is one session's own facts. Complete is set when the records that
// follow for it in this pass are all it holds (an export, a first read, a
// re-read after rows or files went away): a consumer drops whatever it
// kept for the session that is not reported again.
type Session struct {
	ID        string
	Slug      string
	Title     string
	Directory string // the working directory
	ProjectID string
	ParentID  string // the session that started this one (a subagent's)
	Version   string // OpenCode version that created it
	Agent     string
	Model     string
	Provider  string
	Created   time.Time
	Updated   time.Time
	Archived  time.Time
	Row       int64 // rowid in the database, 0 elsewhere
	Complete  bool
	// Deleted is set, with only ID filled, for a session a database pass
	// found gone since the cursor's pass.
	Deleted bool
}

// Result is one tool call with its result.
type Result struct {
	SessionID string
	MessageID string
	PartID    string
	CallID    string
	Tool      string
	Title     string
	Arguments json.RawMessage // state.input
	// Blocks is what the model was sent: the output text (or the error
	// text), then the attachments: images from data: URLs, other files as
	// resource links.
	Blocks  []retention.Block
	IsError bool
	// Truncated is the tool's metadata.truncated; OutputPath its
	// metadata.outputPath (the shell tool's saved full output).
	Truncated  bool
	OutputPath string
	// ChildSessionID is the session a task (subagent) call ran in.
	ChildSessionID string
	Started        time.Time
	Ended          time.Time
	// CompactedAt is when OpenCode pruned the output from later prompts
	// (they show "[Old tool result content cleared]" instead).
	CompactedAt time.Time
	Model       string
	Provider    string
	Agent       string
	Notice      *retention.OpenCodeTruncation
	Locator     Locator
	Line        int64 // line in an export document
	Row         int64 // rowid of the part in the database
}

// Locator finds a result again. Source says which of the other fields
// apply: Offset and Length address the part object in an export document,
// File the part's file relative to a storage folder, PartID its row.
type Locator struct {
	Source string `json:"source"`
	Offset int64  `json:"offset,omitempty"`
	Length int64  `json:"length,omitempty"`
	File   string `json:"file,omitempty"`
	PartID string `json:"partId,omitempty"`
}

// Usage is one model call's usage: a step-finish part's tokens (one per
// provider request), or an assistant message's when it has no step-finish
// part (FromMessage). OpenCode already records input without cache reads
// and writes.
type Usage struct {
	SessionID   string
	MessageID   string
	Key         string // the step-finish part id, or the message id
	Model       string
	Provider    string
	Time        time.Time
	Line        int64 // where the call began in an export: its step-start part
	Row         int64
	Input       int64
	CacheRead   int64
	CacheWrite  int64
	Output      int64
	Reasoning   int64
	Cost        float64
	FromMessage bool
}

// Compaction kinds.
const (
	// CompactionRequest is a compaction part: the point where OpenCode asked
	// for a summary of the conversation so far (Auto when it did so itself,
	// Overflow when the context had overflowed).
	CompactionRequest = "compaction"
	// CompactionSummary is the assistant message holding that summary.
	CompactionSummary = "summary"
)

// Compaction is a compaction event.
type Compaction struct {
	Kind      string
	SessionID string
	MessageID string
	// ParentID is a summary's parent: the user message whose compaction
	// part asked for it.
	ParentID string
	PartID   string
	Auto     bool
	Overflow bool
	Time     time.Time
	Line     int64
	Row      int64
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
