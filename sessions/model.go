// Package sessions reads agent session folders into one shape and keeps
// them in a SQLite index. Each session format is a Harness (harness.go) in
// its own file, registered by name: Claude Code, Codex CLI, Gemini CLI,
// OpenCode, GitHub Copilot CLI, goose and this project's own retained
// records today. It is the only package that
// talks SQL. Session folders are only ever read; everything written goes to
// the app's data directory, and a file a session names is opened only as
// the file rule (access.go) allows.
package sessions

import (
	"encoding/json"
	"errors"
	"strings"

	"spillscope/retention"
)

// Sentinel errors of this package.
var (
	// ErrNotFound reports an id the index does not hold.
	ErrNotFound = errors.New("sessions: not found")
	// ErrDBInsideRoot reports a database path inside an indexed session root.
	ErrDBInsideRoot = errors.New("sessions: database path is inside an indexed session folder")
	// ErrResultGone reports a tool result whose source line no longer holds it.
	ErrResultGone = errors.New("sessions: tool result no longer in its source file")
)

// SessionInfo describes one transcript: a main session or a subagent's.
type SessionInfo struct {
	Harness string `json:"harness"`
	ID      string `json:"id"`
	// AgentID is set for subagent transcripts (Claude Code agent-*.jsonl).
	AgentID string `json:"agentId,omitempty"`
	Project string `json:"project"`
	Cwd     string `json:"cwd,omitempty"`
	Model   string `json:"model,omitempty"`
	// Route is the image-pricing route fixed by a retained record; empty
	// means "derive from Model".
	Route   string `json:"route,omitempty"`
	Started string `json:"started,omitempty"`
	Ended   string `json:"ended,omitempty"`
	// Title is the session's name as the harness keeps it (Claude Code's
	// custom-title, else its ai-title; Gemini CLI's summary).
	Title string `json:"title,omitempty"`
	// Kind is what the transcript is: "" for a session's own, or
	// TranscriptSubagent, TranscriptCompaction.
	Kind string `json:"kind,omitempty"`
	// AgentType and AgentDescription describe a subagent as its harness
	// recorded it (Claude Code's agent-*.meta.json).
	AgentType        string `json:"agentType,omitempty"`
	AgentDescription string `json:"agentDescription,omitempty"`
}

// Transcript kinds (SessionInfo.Kind).
const (
	// TranscriptSubagent is a subagent's transcript, listed under its
	// parent session (the session whose ID it shares).
	TranscriptSubagent = "subagent"
	// TranscriptCompaction is the transcript of a compaction: the model
	// call that summarised the parent's context (Claude Code's
	// agent-acompact-*).
	TranscriptCompaction = "compaction"
)

// Usage is one provider usage record, already deduplicated by Key within a
// session (the last record with a key wins), for a reader that has totals
// but no per-call records (ModelCall). Input excludes cached input on every
// harness, whatever the harness itself reports; Output includes reasoning.
type Usage struct {
	Key string `json:"key"`
	// Session is the harness session id for a source that holds many; ""
	// is the source's own.
	Session    string `json:"session,omitempty"`
	Input      int64  `json:"input"`
	CacheRead  int64  `json:"cacheRead"`
	CacheWrite int64  `json:"cacheWrite"`
	Output     int64  `json:"output"`
	Reasoning  int64  `json:"reasoning"`
}

// ToolResult is one tool result as recorded in a session file.
type ToolResult struct {
	CallID   string `json:"callId"`
	ToolName string `json:"toolName"`
	Time     string `json:"time,omitempty"`
	IsError  bool   `json:"isError"`
	// Session is the harness session id the result belongs to, for a
	// source that holds many sessions; "" is the source's own session.
	Session string `json:"session,omitempty"`
	// Locator is where the result sits, in its harness's terms (for line
	// logs and JSON documents: the byte range of its line or object, and
	// its index within the line's container).
	Locator
	// Line is the 1-based line where the result's record starts.
	Line int64 `json:"line"`
	// Ordinal tells apart results with one call id in one session (0 for
	// the first): with the call id it is the result's natural key, so ids
	// survive a rewritten file. The indexer numbers them in source order.
	Ordinal int `json:"ordinal"`
	// TextBytes is the UTF-8 size of all text blocks; Images counts image
	// blocks.
	TextBytes int64 `json:"textBytes"`
	Images    int   `json:"images"`
	// Blocks is the content in retention's shape; images carry base64 Data
	// as read, or a Path once stored as an attachment.
	Blocks []retention.Block `json:"blocks,omitempty"`
	// Notice is the spill notice found in the text, if any.
	Notice *SpillNotice `json:"notice,omitempty"`
	// Arguments are the call's arguments as the harness recorded them, for
	// readers of a pass; the index does not keep them (a command line can
	// carry a credential, and the index holds no content of a call).
	Arguments json.RawMessage `json:"arguments,omitempty"`
	// Cut is the harness's own truncation of the result, as the text it
	// left records it (Codex's truncation header and markers), if any.
	Cut *HarnessCut `json:"cut,omitempty"`
	// Original, when set, is where the log keeps the complete output the
	// model saw cut (Codex's exec_command_end aggregated_output), in the
	// harness's terms: OriginalReader reads it back.
	Original *OriginalRef `json:"original,omitempty"`
	// checked are the decoded bytes of image blocks the reader checked,
	// held until OnResult has seen the result (AddResult releases them).
	checked []checkedImage
}

// checkedBytes are the decoded bytes of image block i, if the reader kept
// them.
func (r *ToolResult) checkedBytes(i int) []byte {
	for _, c := range r.checked {
		if c.block == i {
			return c.bytes
		}
	}
	return nil
}

// OriginalRef is where a log keeps a result's complete output: a locator in
// its harness's terms and the 1-based line of the record.
type OriginalRef struct {
	Locator
	Line int64 `json:"line"`
}

// HarnessCut is a truncation the harness itself made, inline, without a
// spill file: what it recorded of the original.
type HarnessCut struct {
	// By is the harness's name (HarnessCodex).
	By string `json:"by"`
	// OriginalTokens and OriginalLines are the original's size as the
	// harness recorded it, -1 where it did not.
	OriginalTokens int64 `json:"originalTokens"`
	OriginalLines  int64 `json:"originalLines"`
}

// Diagnostic is something wrong with the input, with where it was: a
// stable Code and its Params (which the window translates), and the same in
// English as Message.
type Diagnostic struct {
	File    string            `json:"file"`
	Line    int64             `json:"line"`
	Code    string            `json:"code"`
	Params  map[string]string `json:"params"`
	Message string            `json:"message"`
	// Count is how many diagnostics a listed row stands for: 1 in
	// BrowseDiagnostics, the group's size in DiagnosticGroups; 0 outside a
	// listing.
	Count int `json:"count,omitempty"`
}

// Parsed accumulates what a reader found in one source, or in the part of
// it read in this pass.
type Parsed struct {
	// Session is the source's own session (a transcript file).
	Session SessionInfo
	// Others are further sessions of a source that holds many (a
	// database); results and usage name theirs in Session.
	Others []SessionInfo
	// NotSession marks a source that is not itself a session: a file that
	// turned out not to be one at all (kept, with one diagnostic), or a
	// database whose sessions are all in Others.
	NotSession bool
	// Whole names sessions a ReadChanged pass read whole (the harness found
	// rows of theirs gone, or rewritten): their stored results and calls
	// that this pass did not report are gone from the source. Their usage
	// stays: a call's usage is recorded once, by its own key.
	Whole []string
	// Gone names sessions removed from the source since the cursor's pass;
	// they leave the index with everything they held.
	Gone []string
	// Calls maps call ids to tool names seen in this pass, per session
	// ("" is the source's own).
	Calls map[string]map[string]string
	// Results holds tool results in file order. OnResult, when set, sees each
	// one first (the indexer stores images and drops the blocks there so a
	// large file never holds all its content in memory).
	Results  []ToolResult
	OnResult func(*ToolResult)
	// Transient says a result's blocks are done with once OnResult has
	// seen them (the indexer's pass): AddResult drops them then, and a
	// line reader may reuse a long line's memory, which the blocks' large
	// texts share (strIn), for the next one.
	Transient bool
	// Replacements are later events that changed what the model sees of a
	// result of this pass or an earlier one (replaced.go).
	Replacements []Replacement
	// Usage holds records keyed for deduplication, last wins.
	Usage []Usage
	// ModelCalls, Compactions and Events are the log's per-call records
	// in source order (calls.go).
	ModelCalls  []ModelCall
	Compactions []Compaction
	Events      []SessionEvent
	Diags       []Diagnostic
	usageSeen   map[[2]string]int
	callSeen    map[[2]string]int
	// compactionSeen finds a compaction of this pass by session and key.
	compactionSeen map[[2]string]int
	skipped        map[string]int
	// lines and records count non-blank lines and those that were records
	// of the format (for telling a file that is not a session at all).
	lines, records int
}

// AddUsage records a usage record; a later one with the same Key (and
// session) replaces it.
func (p *Parsed) AddUsage(u Usage) {
	if p.usageSeen == nil {
		p.usageSeen = map[[2]string]int{}
	}
	k := [2]string{u.Session, u.Key}
	if i, ok := p.usageSeen[k]; ok {
		p.Usage[i] = u
		return
	}
	p.usageSeen[k] = len(p.Usage)
	p.Usage = append(p.Usage, u)
}

// AddCall records a tool call's name in the source's own session.
func (p *Parsed) AddCall(id, name string) { p.AddCallIn("", id, name) }

// AddCallIn records a tool call's name in one session of the source.
func (p *Parsed) AddCallIn(session, id, name string) {
	if id == "" {
		return
	}
	if p.Calls == nil {
		p.Calls = map[string]map[string]string{}
	}
	m := p.Calls[session]
	if m == nil {
		m = map[string]string{}
		p.Calls[session] = m
	}
	m[id] = name
}

// AddSession declares one more session of a source that holds many.
func (p *Parsed) AddSession(s SessionInfo) { p.Others = append(p.Others, s) }

// AddResult records a tool result, filling its sizes and spill notice
// from its blocks.
func (p *Parsed) AddResult(r ToolResult) {
	summarize(&r)
	if p.OnResult != nil {
		p.OnResult(&r)
	}
	for _, c := range r.checked {
		c.release()
	}
	r.checked = nil
	if p.Transient {
		r.Blocks, r.Arguments = nil, nil
	}
	p.Results = append(p.Results, r)
}

// SeeTime widens the source's session's time span.
func (p *Parsed) SeeTime(ts string) {
	if ts == "" {
		return
	}
	if p.Session.Started == "" || ts < p.Session.Started {
		p.Session.Started = ts
	}
	if ts > p.Session.Ended {
		p.Session.Ended = ts
	}
}

// summarize fills the text size, image count and spill notice from Blocks.
func summarize(r *ToolResult) {
	r.TextBytes, r.Images = 0, 0
	for _, b := range r.Blocks {
		switch b.Type {
		case retention.TypeText:
			r.TextBytes += int64(len(b.Text))
			if r.Notice == nil {
				if n, ok := RecogniseSpill(b.Text); ok {
					// A copy: the text may share a huge line's buffer
					// (strIn), which the path must not keep alive.
					n.Path = strings.Clone(n.Path)
					r.Notice = &n
				}
			}
		case retention.TypeImage:
			r.Images++
		}
	}
}
