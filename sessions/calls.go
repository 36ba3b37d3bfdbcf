package sessions

import (
	"context"
	"fmt"
)

// Per-call records: every model call a log records, with its time, place
// and the provider's own token counts, and the compactions and session
// events (API-error retries, aborted turns) between them. They are what a
// timeline of the context is drawn from, and the session's usage totals
// are their sums: one owner for the provider's figures.

// ModelCall is one model call as the provider reported it, deduplicated the
// way its harness requires (Claude Code: message id and request id, the last
// line's usage; Codex CLI: one per distinct running total, its
// last_token_usage; Gemini CLI: one per message id, the last record).
//
// The buckets are disjoint on every harness: Input is uncached input (the
// harness's own input less its cache reads, where it counts them inside),
// CacheRead and CacheWrite the cached parts; Output is everything the model
// produced, reasoning included, and Reasoning the part of Output that was
// reasoning (0 where the log does not say).
type ModelCall struct {
	// Session is the harness session id for a source that holds many; ""
	// is the source's own.
	Session string `json:"session,omitempty"`
	// Key deduplicates records of one call within a session: a later
	// record with the same key replaces the counts, and the call keeps the
	// place (Line, At) of its first record.
	Key string `json:"key"`
	// At is the call's time as the log writes it (RFC 3339); Line the
	// 1-based line of its first record.
	At   string `json:"at,omitempty"`
	Line int64  `json:"line"`

	Input      int64 `json:"input"`
	CacheRead  int64 `json:"cacheRead"`
	CacheWrite int64 `json:"cacheWrite"`
	Output     int64 `json:"output"`
	Reasoning  int64 `json:"reasoning"`
	// Model is the model the call went to ("" when the log does not say:
	// the session's model then stands for it).
	Model string `json:"model,omitempty"`
	// ContextWindow is the model's window as the log records it (Codex's
	// model_context_window), 0 where the log has none.
	ContextWindow int64 `json:"contextWindow,omitempty"`
	// cumulative marks counts that are the session's running total rather
	// than the call's own: the writer takes off what the session's stored
	// calls already count.
	cumulative bool
}

// Prompt is the prompt the provider counted: input, cache read and cache
// write.
func (c ModelCall) Prompt() int64 { return c.Input + c.CacheRead + c.CacheWrite }

// Session event kinds: facts of a session that are neither calls nor
// results.
const (
	// EventAPIError: an API error the harness retried after (Claude Code's
	// system line of subtype api_error). Detail is the HTTP status.
	EventAPIError = "api-error"
	// EventTurnAborted: a turn the user or the harness aborted (Codex's
	// turn_aborted). Detail is the reason it gives.
	EventTurnAborted = "turn-aborted"
)

// SessionEvent is one session fact at a place in the log.
type SessionEvent struct {
	Session string `json:"session,omitempty"`
	Kind    string `json:"kind"`
	At      string `json:"at,omitempty"`
	Line    int64  `json:"line"`
	Detail  string `json:"detail,omitempty"`
}

// AddModelCall records a model call; a later record with the same key (and
// session) replaces its counts, model and window, keeping the first
// record's place.
func (p *Parsed) AddModelCall(c ModelCall) {
	if p.callSeen == nil {
		p.callSeen = map[[2]string]int{}
	}
	k := [2]string{c.Session, c.Key}
	if i, ok := p.callSeen[k]; ok {
		first := p.ModelCalls[i]
		c.Line = first.Line
		if first.At != "" {
			c.At = first.At
		}
		p.ModelCalls[i] = c
		return
	}
	p.callSeen[k] = len(p.ModelCalls)
	p.ModelCalls = append(p.ModelCalls, c)
}

// AddEvent records a session event.
func (p *Parsed) AddEvent(e SessionEvent) { p.Events = append(p.Events, e) }

// The writer's steps for the per-call records (fileWriter, index.go). A
// wholly re-read source replaces its records; an appended pass adds its
// own, a call seen again (its key) taking the newer counts and keeping its
// first place.

func (w *fileWriter) modelCalls(p *Parsed, _ []resultExtra) error {
	if w.clearsStored() {
		if _, err := w.tx.ExecContext(w.ctx, `DELETE FROM model_calls WHERE `+fileSessions, w.fileID); err != nil {
			return fmt.Errorf("model calls: %w", err)
		}
	}
	b := rowBatch{sc: w.sc, cols: 11, head: `INSERT INTO model_calls (session_id, key, line, at, input, cache_read, cache_write, output, reasoning, model, context_window)
VALUES `, tail: `
ON CONFLICT (session_id, key) DO UPDATE SET input = excluded.input, cache_read = excluded.cache_read, cache_write = excluded.cache_write,
  output = excluded.output, reasoning = excluded.reasoning, model = excluded.model, context_window = excluded.context_window,
  at = CASE WHEN model_calls.at = '' THEN excluded.at ELSE model_calls.at END`}
	for _, c := range p.ModelCalls {
		row, _, err := w.sessionRow(c.Session)
		if err != nil {
			return err
		}
		if c.cumulative {
			// The sum is of the rows before this one: those queued first.
			if err := b.flush(); err != nil {
				return fmt.Errorf("model calls: %w", err)
			}
			var in, cr, cw, out, reas int64
			if err := w.tx.QueryRowContext(w.ctx, `SELECT COALESCE(SUM(input), 0), COALESCE(SUM(cache_read), 0), COALESCE(SUM(cache_write), 0),
  COALESCE(SUM(output), 0), COALESCE(SUM(reasoning), 0) FROM model_calls WHERE session_id = ? AND key <> ?`, row, c.Key).Scan(&in, &cr, &cw, &out, &reas); err != nil {
				return fmt.Errorf("model call line %d: %w", c.Line, err)
			}
			c.Input, c.CacheRead, c.CacheWrite, c.Output, c.Reasoning = c.Input-in, c.CacheRead-cr, c.CacheWrite-cw, c.Output-out, c.Reasoning-reas
		}
		if err := b.add(row, c.Key, c.Line, c.At, c.Input, c.CacheRead, c.CacheWrite, c.Output, c.Reasoning, c.Model, c.ContextWindow); err != nil {
			return fmt.Errorf("model calls up to line %d: %w", c.Line, err)
		}
	}
	if err := b.flush(); err != nil {
		return fmt.Errorf("model calls: %w", err)
	}
	return nil
}

func (w *fileWriter) events(p *Parsed, _ []resultExtra) error {
	if w.clearsStored() {
		if _, err := w.tx.ExecContext(w.ctx, `DELETE FROM session_events WHERE `+fileSessions, w.fileID); err != nil {
			return fmt.Errorf("session events: %w", err)
		}
	}
	for _, e := range p.Events {
		row, _, err := w.sessionRow(e.Session)
		if err != nil {
			return err
		}
		if err := w.sc.exec(`INSERT OR REPLACE INTO session_events (session_id, line, kind, at, detail) VALUES (?, ?, ?, ?, ?)`,
			row, e.Line, e.Kind, e.At, e.Detail); err != nil {
			return fmt.Errorf("session event line %d: %w", e.Line, err)
		}
	}
	return nil
}

// cuts records the harnesses' own truncations and the originals the logs
// keep, on the results the results step stored (by their natural keys).
func (w *fileWriter) cuts(p *Parsed, _ []resultExtra) error {
	if w.clearsStored() {
		if _, err := w.tx.ExecContext(w.ctx, `UPDATE tool_results SET cut_by = NULL, cut_tokens = NULL, cut_lines = NULL,
  orig_offset = NULL, orig_length = NULL, orig_line = NULL, orig_key = NULL
WHERE file_id = ? AND (cut_by IS NOT NULL OR orig_offset IS NOT NULL)`, w.fileID); err != nil {
			return fmt.Errorf("harness cuts: %w", err)
		}
	}
	for _, r := range p.Results {
		if r.Cut == nil && r.Original == nil {
			continue
		}
		sess, _, err := w.sessionRow(r.Session)
		if err != nil {
			return err
		}
		var by, tokens, lines, off, length, line, key any
		if r.Cut != nil {
			by, tokens, lines = r.Cut.By, r.Cut.OriginalTokens, r.Cut.OriginalLines
		}
		if o := r.Original; o != nil {
			off, length, line, key = o.Offset, o.Length, o.Line, o.Key
		}
		if err := w.sc.exec(`UPDATE tool_results SET cut_by = ?, cut_tokens = ?, cut_lines = ?, orig_offset = ?, orig_length = ?, orig_line = ?, orig_key = ?
WHERE session_id = ? AND call_id = ? AND ordinal = ?`, by, tokens, lines, off, length, line, key, sess, r.CallID, r.Ordinal); err != nil {
			return fmt.Errorf("line %d: harness cut: %w", r.Line, err)
		}
	}
	return nil
}

// The read side: a session's records in log order, for the timeline.

// ModelCalls lists a session's model calls (a sessions row id) in log
// order. A call whose log did not name its model carries the session's.
func (d *DB) ModelCalls(ctx context.Context, sessionRowID int64) ([]ModelCall, error) {
	rows, err := d.db.QueryContext(ctx, `SELECT s.session_id, c.key, c.at, c.line, c.input, c.cache_read, c.cache_write, c.output, c.reasoning,
  CASE WHEN c.model = '' THEN s.model ELSE c.model END, c.context_window
FROM model_calls c JOIN sessions s ON s.id = c.session_id WHERE c.session_id = ? ORDER BY c.line, c.at, c.key`, sessionRowID)
	if err != nil {
		return nil, fmt.Errorf("sessions: model calls of %d: %w", sessionRowID, err)
	}
	defer rows.Close()
	out := []ModelCall{}
	for rows.Next() {
		var c ModelCall
		if err := rows.Scan(&c.Session, &c.Key, &c.At, &c.Line, &c.Input, &c.CacheRead, &c.CacheWrite, &c.Output, &c.Reasoning, &c.Model, &c.ContextWindow); err != nil {
			return nil, fmt.Errorf("sessions: model calls of %d: %w", sessionRowID, err)
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// SessionEvents lists a session's events (a sessions row id) in log order.
func (d *DB) SessionEvents(ctx context.Context, sessionRowID int64) ([]SessionEvent, error) {
	rows, err := d.db.QueryContext(ctx, `SELECT s.session_id, e.kind, e.at, e.line, e.detail
FROM session_events e JOIN sessions s ON s.id = e.session_id WHERE e.session_id = ? ORDER BY e.line, e.kind`, sessionRowID)
	if err != nil {
		return nil, fmt.Errorf("sessions: events of %d: %w", sessionRowID, err)
	}
	defer rows.Close()
	out := []SessionEvent{}
	for rows.Next() {
		var e SessionEvent
		if err := rows.Scan(&e.Session, &e.Kind, &e.At, &e.Line, &e.Detail); err != nil {
			return nil, fmt.Errorf("sessions: events of %d: %w", sessionRowID, err)
		}
		out = append(out, e)
	}
	return out, rows.Err()
}
