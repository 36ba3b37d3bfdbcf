package sessions

import (
	"context"
	"fmt"
	"strconv"
)

// Compactions: the points where a harness compacted a session's context
// (summarised it, or dropped its oldest messages), one record type and one
// table for every harness, whether it writes line logs or databases.

// Compaction kinds of the line-log readers; the other harnesses name theirs
// beside their readers (CompactionOpenCode, CompactionCopilot,
// CompactionCopilotTruncation, CompactionGoose, CompactionDsh,
// CompactionDshPrune).
const (
	// CompactionClaude: Claude Code's compact boundary (a system line of
	// subtype compact_boundary) and the summary that follows it (a user line
	// marked isCompactSummary).
	CompactionClaude = "claude-compact"
	// CompactionCodex: Codex CLI's compacted line and the context_compacted
	// event that follows it.
	CompactionCodex = "codex-compact"
	// CompactionGeminiHistory: Gemini CLI replaced the recorded history
	// with a new one ($set of messages): a compression or a masking of
	// tool outputs, which the log does not tell apart.
	CompactionGeminiHistory = "gemini-history"
)

// Compaction is one compaction event, as its harness recorded it. A harness
// that writes two records per compaction (a boundary and its summary, a
// start and its completion) gives one Compaction: AddCompaction the first,
// CloseCompaction the second. Line is then the first record's line and
// EndLine the second's (0 while none has been seen, and for a database row);
// a second record whose first is missing is a compaction of its own, with
// Line and EndLine both its line.
type Compaction struct {
	// Session is the harness session id for a source that holds many; ""
	// is the source's own.
	Session string `json:"session,omitempty"`
	// Key tells one session's compactions apart across passes: a record's
	// id or row where the harness has one ("message:<id>", "ledger:<row>"),
	// else "line:<n>" of the first record, which AddCompaction fills in.
	Key string `json:"key"`
	// Kind is what the harness did, one of the Compaction* kinds.
	Kind string `json:"kind"`
	// At is the first record's time as the harness writes it (RFC 3339);
	// Line the first record's 1-based line, 0 for a database row.
	At      string `json:"at,omitempty"`
	Line    int64  `json:"line,omitempty"`
	EndLine int64  `json:"endLine,omitempty"`
	// Trigger is "auto" or "manual" where the harness says.
	Trigger string `json:"trigger,omitempty"`
	// TokensBefore and TokensAfter are the context's size either side, as
	// the harness recorded them (Claude Code's compactMetadata.preTokens,
	// Copilot CLI's pre- and post-compaction counts), else 0.
	TokensBefore int64 `json:"tokensBefore,omitempty"`
	TokensAfter  int64 `json:"tokensAfter,omitempty"`
	// closing marks a second record that found no first record in its
	// pass: the writer closes a stored one with it when it can. linked says
	// its Key is the first record's (given by the harness), so the stored
	// one is found by key rather than as the session's last open one.
	closing, linked bool
}

// lineKey is the key of a compaction known by its first record's line.
func lineKey(line int64) string { return "line:" + strconv.FormatInt(line, 10) }

// AddCompaction records the first (or only) record of a compaction. Key
// defaults to the line's; a compaction already seen in this pass under the
// same key (its second record came first, or the record is read again)
// takes this record's place, kind and time, keeping what the other record
// added.
func (p *Parsed) AddCompaction(c Compaction) {
	if c.Key == "" {
		c.Key = lineKey(c.Line)
	}
	c.EndLine, c.closing, c.linked = 0, false, false
	if o := p.compactionByKey(c.Session, c.Key); o != nil {
		end, trigger, before, after := o.EndLine, o.Trigger, o.TokensBefore, o.TokensAfter
		*o = c
		o.EndLine = end
		o.fill(trigger, before, after)
		return
	}
	p.addCompaction(c)
}

// CloseCompaction records the second record of a compaction (its summary,
// its confirming event). With a Key (the first record's, as the harness
// links them) it closes that compaction; without one, the last compaction
// of its kind and session in this pass when that is still open. When there
// is none in this pass (its first record came in an earlier pass, or never)
// it stands as a compaction of its own, and the writer closes the stored
// one instead where there is one.
func (p *Parsed) CloseCompaction(c Compaction) {
	linked := c.Key != ""
	if linked {
		if o := p.compactionByKey(c.Session, c.Key); o != nil {
			o.close(c)
			return
		}
	} else {
		for i := len(p.Compactions) - 1; i >= 0; i-- {
			o := &p.Compactions[i]
			if o.Session != c.Session || o.Kind != c.Kind {
				continue
			}
			if o.EndLine == 0 {
				o.close(c)
				return
			}
			break
		}
		c.Key = lineKey(c.Line)
	}
	c.EndLine, c.closing, c.linked = c.Line, true, linked
	p.addCompaction(c)
}

func (p *Parsed) addCompaction(c Compaction) {
	if p.compactionSeen == nil {
		p.compactionSeen = map[[2]string]int{}
	}
	p.compactionSeen[[2]string{c.Session, c.Key}] = len(p.Compactions)
	p.Compactions = append(p.Compactions, c)
}

func (p *Parsed) compactionByKey(session, key string) *Compaction {
	if i, ok := p.compactionSeen[[2]string{session, key}]; ok {
		return &p.Compactions[i]
	}
	return nil
}

// close adds a compaction's second record to it: its line, and what the
// first did not say.
func (c *Compaction) close(second Compaction) {
	c.EndLine = second.Line
	c.fill(second.Trigger, second.TokensBefore, second.TokensAfter)
}

// fill takes the trigger and token counts where c has none.
func (c *Compaction) fill(trigger string, before, after int64) {
	if c.Trigger == "" {
		c.Trigger = trigger
	}
	if c.TokensBefore == 0 {
		c.TokensBefore = before
	}
	if c.TokensAfter == 0 {
		c.TokensAfter = after
	}
}

// compactions stores the pass's compactions (a step of fileWriter,
// index.go). A wholly re-read source replaces its rows; a later pass adds
// its own and completes the stored ones: a first record read again takes
// its place and time, a second record closes its first.
func (w *fileWriter) compactions(p *Parsed, _ []resultExtra) error {
	if w.clearsStored() {
		if _, err := w.tx.ExecContext(w.ctx, `DELETE FROM compactions WHERE `+fileSessions, w.fileID); err != nil {
			return fmt.Errorf("compactions: %w", err)
		}
	}
	for _, c := range p.Compactions {
		row, _, err := w.sessionRow(c.Session)
		if err != nil {
			return err
		}
		if c.closing && !c.linked && w.mode == ReadAppended {
			// The first record came in an earlier pass: close the
			// session's last compaction when it is of this kind and open.
			res, err := w.tx.ExecContext(w.ctx, `UPDATE compactions SET end_line = ?1,
  trigger = CASE WHEN trigger = '' THEN ?4 ELSE trigger END,
  tokens_before = CASE WHEN tokens_before = 0 THEN ?5 ELSE tokens_before END,
  tokens_after = CASE WHEN tokens_after = 0 THEN ?6 ELSE tokens_after END
WHERE session_id = ?2 AND kind = ?3 AND end_line = 0 AND line = (SELECT MAX(line) FROM compactions WHERE session_id = ?2 AND line < ?1)`,
				c.Line, row, c.Kind, c.Trigger, c.TokensBefore, c.TokensAfter)
			if err != nil {
				return fmt.Errorf("compaction line %d: %w", c.Line, err)
			}
			if n, _ := res.RowsAffected(); n > 0 {
				continue
			}
		}
		q := compactionUpsertFirst
		if c.closing {
			q = compactionUpsertSecond
		}
		if err := w.sc.exec(q, row, c.Key, c.Kind, c.At, c.Line, c.EndLine, c.Trigger, c.TokensBefore, c.TokensAfter); err != nil {
			return fmt.Errorf("compaction %s: %w", c.Key, err)
		}
	}
	return nil
}

const compactionInsert = `INSERT INTO compactions (session_id, key, kind, at, line, end_line, trigger, tokens_before, tokens_after)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (session_id, key) DO UPDATE SET `

// compactionUpsertFirst stores a first record: its kind, time and line win,
// the rest fills in what it does not say.
const compactionUpsertFirst = compactionInsert + `kind = excluded.kind,
  at = CASE WHEN excluded.at = '' THEN compactions.at ELSE excluded.at END, line = excluded.line,
  end_line = CASE WHEN excluded.end_line = 0 THEN compactions.end_line ELSE excluded.end_line END,
  trigger = CASE WHEN excluded.trigger = '' THEN compactions.trigger ELSE excluded.trigger END,
  tokens_before = CASE WHEN excluded.tokens_before = 0 THEN compactions.tokens_before ELSE excluded.tokens_before END,
  tokens_after = CASE WHEN excluded.tokens_after = 0 THEN compactions.tokens_after ELSE excluded.tokens_after END`

// compactionUpsertSecond stores a second record: it closes the stored
// compaction of its key, keeping that one's kind, time and line.
const compactionUpsertSecond = compactionInsert + `end_line = excluded.end_line,
  trigger = CASE WHEN compactions.trigger = '' THEN excluded.trigger ELSE compactions.trigger END,
  tokens_before = CASE WHEN compactions.tokens_before = 0 THEN excluded.tokens_before ELSE compactions.tokens_before END,
  tokens_after = CASE WHEN compactions.tokens_after = 0 THEN excluded.tokens_after ELSE compactions.tokens_after END`

// Compactions lists the compactions of one indexed session (a sessions row
// id, SessionSummary.ID) in source order: by line, then (for database rows,
// which have none) by time.
func (d *DB) Compactions(ctx context.Context, sessionRowID int64) ([]Compaction, error) {
	rows, err := d.db.QueryContext(ctx, `SELECT s.session_id, c.key, c.kind, c.at, c.line, c.end_line, c.trigger, c.tokens_before, c.tokens_after
FROM compactions c JOIN sessions s ON s.id = c.session_id WHERE c.session_id = ? ORDER BY c.line, c.at, c.key`, sessionRowID)
	if err != nil {
		return nil, fmt.Errorf("sessions: compactions of %d: %w", sessionRowID, err)
	}
	defer rows.Close()
	out := []Compaction{}
	for rows.Next() {
		var c Compaction
		if err := rows.Scan(&c.Session, &c.Key, &c.Kind, &c.At, &c.Line, &c.EndLine, &c.Trigger, &c.TokensBefore, &c.TokensAfter); err != nil {
			return nil, fmt.Errorf("sessions: compactions of %d: %w", sessionRowID, err)
		}
		out = append(out, c)
	}
	return out, rows.Err()
}
