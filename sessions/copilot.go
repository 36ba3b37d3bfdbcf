package sessions

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"

	"spillscope/retention"
	"spillscope/sessions/copilot"
)

// HarnessCopilot is GitHub Copilot CLI's name in the index.
const HarnessCopilot = copilot.Harness

// Copilot CLI's compaction kinds.
const (
	// CompactionCopilot: a session.compaction_start and the
	// session.compaction_complete after it (which has the token counts),
	// one compaction.
	CompactionCopilot = "copilot-compaction"
	// CompactionCopilotTruncation: a session.truncation, the oldest
	// messages dropped to fit the token limit.
	CompactionCopilotTruncation = "copilot-truncation"
)

func init() { Register(copilotCLI{}) }

// copilotCLI reads GitHub Copilot CLI session logs,
// <COPILOT_HOME or ~/.copilot>/session-state/<session id>/events.jsonl
// (FORMATS.md section 4), through sessions/copilot: one log per session,
// appended to as the session runs, so a pass resumes after the last
// complete line.
type copilotCLI struct{}

func (copilotCLI) Name() string  { return HarnessCopilot }
func (copilotCLI) Label() string { return "GitHub Copilot CLI" }

// DefaultRoots: the CLI's session-state folders (copilot.DefaultRoots).
func (copilotCLI) DefaultRoots(env Env) []string { return copilot.DefaultRoots(env.Get) }

// Detect: a log whose first line is a session.start event, in the CLI's own
// layout (session-state/<id>/events.jsonl) or, written by the Copilot
// agent, anywhere.
func (copilotCLI) Detect(p *Probe) Match {
	lines := p.Lines()
	if len(lines) == 0 {
		return MatchNone
	}
	if copilot.IsLogPath(p.Path) && isCopilotStart(lines[0]) {
		return MatchPath
	}
	if copilot.Detect(lines[0]) {
		return MatchContent
	}
	return MatchNone
}

// isCopilotStart reports whether line is a session.start event naming its
// session.
func isCopilotStart(line []byte) bool {
	var e struct {
		Type string `json:"type"`
		Data struct {
			SessionID string `json:"sessionId"`
		} `json:"data"`
	}
	return json.Unmarshal(bytes.TrimSpace(line), &e) == nil && e.Type == "session.start" && e.Data.SessionID != ""
}

// Notices: "Output too large to read at once (N KB). Saved to: <file>".
func (copilotCLI) Notices() []NoticeRule { return copilotNotices }

var copilotNotices = []NoticeRule{kitNotice(copilot.NoticeLargeOutput, "Output too large to read at once", func(text string) (string, string, bool) {
	n, ok := retention.RecogniseCopilotLargeOutput(text)
	return n.Kind, n.Path, ok
})}

// Locations: <ms>-copilot-tool-output-<id>.txt in the temp folder
// (copilot.Spill), or copied beside the sessions under a root.
func (copilotCLI) Locations(s SessionRef) []Location {
	return spillLocations(copilot.Spill(s.Env.Get), true, s.Roots, "")
}

// SpillCandidates: the named path only; the CLI keeps nothing of a spill
// beside the session.
func (copilotCLI) SpillCandidates(named string, s SessionRef) []string {
	return []string{namedPath(named, s.Path)}
}

func (copilotCLI) Read(ctx context.Context, src Source, p *Parsed) (ReadState, error) {
	var from copilot.Cursor
	mode := resumeLog(src, &from)
	sawUsage := false
	var totals []copilot.ModelTotals
	h := copilot.Handler{
		Session: func(s copilot.Session) error {
			m := &p.Session
			m.ID, m.Model = s.ID, s.Model
			if s.Cwd != "" {
				m.Project, m.Cwd = s.Cwd, s.Cwd
			}
			p.SeeTime(kitTime(s.Started))
			p.SeeTime(kitTime(s.Ended))
			totals = s.Totals
			return nil
		},
		Result: func(r copilot.Result) error {
			if r.Tool != "" { // an orphan teaches no name
				p.AddCall(r.CallID, r.Tool)
			}
			t := ToolResult{CallID: r.CallID, ToolName: r.Tool, Time: kitTime(r.Time), IsError: r.IsError, Blocks: r.Blocks,
				Arguments: r.Arguments, Line: r.Locator.Line, Locator: kitLocator(r.Locator, r.Locator.Offset, r.Locator.Length, 0)}
			if r.Notice != nil {
				t.Notice = &SpillNotice{Kind: r.Notice.Kind, Path: r.Notice.Path}
			}
			p.SeeTime(t.Time)
			p.AddResult(t)
			return nil
		},
		Usage: func(u copilot.Usage) error {
			// Persisted logs give each message's output only (a call with
			// no prompt counts); an assistant.usage event, where one is
			// written, the whole call.
			sawUsage = sawUsage || !u.OutputOnly
			p.AddModelCall(ModelCall{Key: u.Key, At: kitTime(u.Time), Line: u.Line, Model: u.Model,
				Input: u.Input, CacheRead: u.CacheRead, CacheWrite: u.CacheWrite, Output: u.Output, Reasoning: u.Reasoning})
			return nil
		},
		Compaction: func(c copilot.Compaction) error {
			cp := Compaction{Kind: CompactionCopilot, At: kitTime(c.Time), Line: c.Line, TokensBefore: c.PreTokens, TokensAfter: c.PostTokens}
			switch c.Kind {
			case copilot.CompactionStart:
				p.AddCompaction(cp)
			case copilot.CompactionComplete:
				p.CloseCompaction(cp)
			default:
				cp.Kind = CompactionCopilotTruncation
				p.AddCompaction(cp)
			}
			return nil
		},
		Diagnostic: func(d copilot.Diagnostic) error {
			kitDiag(p, "GitHub Copilot CLI", d, copilotDiagCodes[d.Code])
			return nil
		},
	}
	next, err := copilot.ReadFile(ctx, src.Path, from, h)
	if err != nil {
		if ctx.Err() != nil {
			return ReadState{}, ctx.Err()
		}
		p.Diag(next.Line, DiagUnreadable, map[string]string{"error": errText(err)})
	}
	if !sawUsage {
		// session.shutdown's per-model sums are the only record of input,
		// cache and reasoning; output is the messages' own, counted once.
		for _, t := range totals {
			p.AddUsage(Usage{Key: "shutdown:" + t.Model, Input: t.Input, CacheRead: t.CacheRead, CacheWrite: t.CacheWrite, Reasoning: t.Reasoning})
		}
	}
	if p.Session.ID == "" && mode == ReadAll {
		if len(p.Results) == 0 {
			p.NotSession = true
		} else {
			// A log that lost its session.start: the CLI names the folder
			// after the session.
			p.Session.ID = filepath.Base(filepath.Dir(src.Path))
		}
	}
	return ReadState{Cursor: nextLog(src.Path, next.Offset, next), Mode: mode}, nil
}

// copilotDiagCodes maps the subpackage's diagnostic codes to this
// package's.
var copilotDiagCodes = map[string]string{
	copilot.DiagBadLine: DiagNotJSON, copilot.DiagNoType: DiagNoType, copilot.DiagUnknownEvent: DiagUnknownType,
	copilot.DiagBadEvent: DiagBadRecord, copilot.DiagOrphanResult: DiagOrphanResult, copilot.DiagNotSession: DiagNotSource,
}

// ReadResult: the locator is the tool.execution_complete line.
func (copilotCLI) ReadResult(path string, loc Locator, callID string) (retention.Result, error) {
	var cl copilot.Locator
	if err := json.Unmarshal([]byte(loc.Key), &cl); err != nil {
		cl = copilot.Locator{Offset: loc.Offset, Length: loc.Length}
	}
	r, err := copilot.ReadResult(context.Background(), path, cl)
	if errors.Is(err, copilot.ErrResultGone) {
		return retention.Result{}, fmt.Errorf("%w: %v", ErrResultGone, err)
	}
	if err != nil {
		return retention.Result{}, err
	}
	if r.CallID != callID {
		return retention.Result{}, fmt.Errorf("%w: %s line %d holds %q, not %q", ErrResultGone, path, cl.Line, r.CallID, callID)
	}
	return retention.Result{Content: r.Blocks, IsError: r.IsError}, nil
}
