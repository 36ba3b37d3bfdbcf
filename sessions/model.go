// Package sessions reads agent session folders (Claude Code, Codex CLI,
// Gemini CLI and this project's own spill layout) into one shape and keeps
// them in a SQLite index. It is the only package that talks SQL. Session
// folders are only ever read; everything written goes to the app's data
// directory.
package sessions

import (
	"errors"

	"spillscope/retention"
)

// Harness names as stored in the index.
const (
	HarnessClaude     = "claude-code"
	HarnessCodex      = "codex"
	HarnessGemini     = "gemini-cli"
	HarnessSpillscope = "spillscope"
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
}

// Usage is one provider usage record, already deduplicated by Key within a
// session (the last record with a key wins). Input excludes cached input on
// every harness, whatever the harness itself reports.
type Usage struct {
	Key        string `json:"key"`
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
	// Where the result sits: the byte range of its line (or, in a JSON
	// document, of its object), the 1-based line number, and its index
	// within the line's container.
	Offset int64 `json:"offset"`
	Length int64 `json:"length"`
	Line   int64 `json:"line"`
	Index  int   `json:"index"`
	// TextBytes is the UTF-8 size of all text blocks; Images counts image
	// blocks.
	TextBytes int64 `json:"textBytes"`
	Images    int   `json:"images"`
	// Blocks is the content in retention's shape; images carry base64 Data
	// as read, or a Path once stored as an attachment.
	Blocks []retention.Block `json:"blocks,omitempty"`
	// Notice is the spill notice found in the text, if any.
	Notice *SpillNotice `json:"notice,omitempty"`
}

// Diagnostic is something wrong with the input, with where it was.
type Diagnostic struct {
	File    string `json:"file"`
	Line    int64  `json:"line"`
	Message string `json:"message"`
}

// Parsed accumulates what a reader found in one file, or in the part of it
// read in this pass.
type Parsed struct {
	Session SessionInfo
	// Calls maps call ids to tool names seen in this pass.
	Calls map[string]string
	// Results holds tool results in file order. OnResult, when set, sees each
	// one first (the indexer stores images and drops the blocks there so a
	// large file never holds all its content in memory).
	Results  []ToolResult
	OnResult func(*ToolResult)
	// Usage holds records keyed for deduplication, last wins.
	Usage     []Usage
	Diags     []Diagnostic
	usageSeen map[string]int
}

func (p *Parsed) addUsage(u Usage) {
	if p.usageSeen == nil {
		p.usageSeen = map[string]int{}
	}
	if i, ok := p.usageSeen[u.Key]; ok {
		p.Usage[i] = u
		return
	}
	p.usageSeen[u.Key] = len(p.Usage)
	p.Usage = append(p.Usage, u)
}

func (p *Parsed) addCall(id, name string) {
	if id == "" {
		return
	}
	if p.Calls == nil {
		p.Calls = map[string]string{}
	}
	p.Calls[id] = name
}

func (p *Parsed) diag(line int64, msg string) {
	p.Diags = append(p.Diags, Diagnostic{Line: line, Message: msg})
}

func (p *Parsed) addResult(r ToolResult) {
	summarize(&r)
	if p.OnResult != nil {
		p.OnResult(&r)
	}
	p.Results = append(p.Results, r)
}

func (p *Parsed) seeTime(ts string) {
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
					r.Notice = &n
				}
			}
		case retention.TypeImage:
			r.Images++
		}
	}
}
