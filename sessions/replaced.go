package sessions

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"spillscope/retention"
)

// Replacements: a harness whose log keeps a result and, later, what took
// its place on the model's surface (dsh's compaction pruner cuts a result's
// text and logs the cut copy under the same call id; a compaction summary
// shadows a span of results) reports each as a Replacement. The result
// keeps its original content; the index says what replaced it and where
// the content the model saw last sits.

// Replacement is one later event that changed what the model sees of a
// result, named by the result's natural key.
type Replacement struct {
	// Session is the harness session id ("" is the source's own); CallID
	// and Ordinal the result's.
	Session string `json:"session,omitempty"`
	CallID  string `json:"callId"`
	Ordinal int    `json:"ordinal"`
	// Kind is the harness's name for what replaced it (dsh: "prune",
	// "compaction", "rewrite").
	Kind string `json:"kind"`
	// Seq and Line are the replacing record's; EventSeq the event behind
	// it (a compaction/prune or compaction/summary, -1 if none); Ref a
	// compaction's id.
	Seq      int64  `json:"seq"`
	EventSeq int64  `json:"eventSeq"`
	Line     int64  `json:"line"`
	Ref      string `json:"ref,omitempty"`
	// LastKey is the harness's locator key of the replacing content, when
	// the replacement carries content ("" for a summary that shadows it).
	LastKey string `json:"lastKey,omitempty"`
}

// AddReplacement records a replacement of a result of this pass or of an
// earlier one.
func (p *Parsed) AddReplacement(r Replacement) { p.Replacements = append(p.Replacements, r) }

// replacements writes the pass's replacements onto the results they name.
// A wholly re-read source says again everything that replaced its results,
// so what an earlier pass wrote is cleared first; a resumed pass adds to
// it, and a replacement of a result an earlier pass stored finds it by its
// natural key.
func (w *fileWriter) replacements(p *Parsed, _ []resultExtra) error {
	if w.clearsStored() {
		if _, err := w.tx.ExecContext(w.ctx, `UPDATE tool_results SET replaced_kind = NULL, replaced_seq = NULL, replaced_event_seq = NULL,
  replaced_line = NULL, replaced_ref = NULL, last_key = '' WHERE file_id = ? AND replaced_kind IS NOT NULL`, w.fileID); err != nil {
			return fmt.Errorf("replacements: %w", err)
		}
	}
	for _, r := range p.Replacements {
		sess, _, err := w.sessionRow(r.Session)
		if err != nil {
			return err
		}
		var ref any
		if r.Ref != "" {
			ref = r.Ref
		}
		// The content the model saw last is the latest replacement that had
		// content: a summary that shadows a pruned result keeps the prune's.
		if err := w.sc.exec(`UPDATE tool_results SET replaced_kind = ?, replaced_seq = ?, replaced_event_seq = ?, replaced_line = ?, replaced_ref = ?,
  last_key = CASE WHEN ?6 <> '' THEN ?6 ELSE last_key END
WHERE session_id = ?7 AND call_id = ?8 AND ordinal = ?9`, r.Kind, r.Seq, r.EventSeq, r.Line, ref, r.LastKey, sess, r.CallID, r.Ordinal); err != nil {
			return fmt.Errorf("replacement of %s: %w", r.CallID, err)
		}
	}
	return nil
}

// ResultReplacement is what replaced an indexed result on the model's
// surface, and what the model saw of it last.
type ResultReplacement struct {
	Kind     string `json:"kind"`
	Seq      int64  `json:"seq"`
	EventSeq int64  `json:"eventSeq"`
	Line     int64  `json:"line"`
	Ref      string `json:"ref,omitempty"`
	// LastSeen is the replacing content read back from the source; nil
	// when the replacement had none (a compaction summary shadows the
	// result: the model saw the summary instead).
	LastSeen *retention.Result `json:"lastSeen,omitempty"`
	// LastSeenGone says why the replacing content could not be read back
	// (the source was rewritten since it was indexed).
	LastSeenGone string `json:"lastSeenGone,omitempty"`
}

// Replacement returns what replaced a result, or nil when the model still
// sees it as recorded.
func (d *DB) Replacement(ctx context.Context, resultID int64) (*ResultReplacement, error) {
	var kind, ref sql.NullString
	var seq, eventSeq, line sql.NullInt64
	var lastKey string
	err := d.db.QueryRowContext(ctx, `SELECT replaced_kind, replaced_seq, replaced_event_seq, replaced_line, replaced_ref, last_key FROM tool_results WHERE id = ?`, resultID).
		Scan(&kind, &seq, &eventSeq, &line, &ref, &lastKey)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("%w: tool result %d", ErrNotFound, resultID)
	}
	if err != nil {
		return nil, fmt.Errorf("sessions: replacement of %d: %w", resultID, err)
	}
	if !kind.Valid {
		return nil, nil
	}
	out := &ResultReplacement{Kind: kind.String, Seq: seq.Int64, EventSeq: eventSeq.Int64, Line: line.Int64, Ref: ref.String}
	if lastKey == "" {
		return out, nil
	}
	row, err := d.Result(ctx, resultID)
	if err != nil {
		return nil, err
	}
	res, err := readResult(row.Harness, row.Path, Locator{Key: lastKey}, row.CallID)
	if err != nil {
		out.LastSeenGone = err.Error()
		return out, nil
	}
	out.LastSeen = &res
	return out, nil
}
