package sessions

import (
	"context"
	"database/sql"
	"fmt"

	"spillscope/retention"
)

// Sweep summaries: the last enrichment phase stores each result's
// retention.Summary, so sweeps decide from the index and read a result back
// from its source only where its summary is missing, stale, or declines
// (see retention.Summary.Sketch).

// summaryMaxText is the most text a result may hold to be summarised: the
// tables take about thirty bytes per code point while they are built. A
// larger result gets a row without data and is read back by sweeps.
const summaryMaxText = 2 << 20

// todoSummaries lists results whose summary is missing or stands for other
// content, another route or another version (todoSummariesOf: of the
// sessions given). Only counted results: a summary is checked against the
// token phase's count.
const (
	todoSummaries = todoFrom + `LEFT JOIN result_summaries m ON m.result_id = r.id
WHERE r.est_tokens IS NOT NULL AND (m.result_id IS NULL OR m.content_sig <> r.content_sig OR m.route <> s.route OR m.version <> ?1)
ORDER BY r.file_id, r.src_offset`
	todoSummariesOf = todoFrom + `LEFT JOIN result_summaries m ON m.result_id = r.id
WHERE r.est_tokens IS NOT NULL AND (m.result_id IS NULL OR m.content_sig <> r.content_sig OR m.route <> s.route OR m.version <> ?1)
  AND r.session_id IN (SELECT value FROM json_each(?2))
ORDER BY r.file_id, r.src_offset`
)

// Summarise stores the sweep summary of every counted result that lacks a
// current one, reading each back from its source as a sweep would (images
// at their stored attachments) and summarising it on its session's route.
func (d *DB) Summarise(ctx context.Context, opts EnrichOptions) error {
	list, err := d.pending(ctx, opts, todoSummaries, todoSummariesOf, retention.SummaryVersion)
	if err != nil || len(list) == 0 {
		return err
	}
	type out struct {
		id         int64
		sig, route string
		total      int
		data       []byte
		ok         bool
	}
	summarise := func(t todo) out {
		o := out{id: t.id, sig: t.sig}
		row, err := d.Result(ctx, t.id)
		if err != nil || row.ContentSig != t.sig || row.EstTokens == nil {
			return o
		}
		route, _, estName := routeFor(row.Route)
		o.route = route
		if row.TextBytes > summaryMaxText {
			o.ok = true // a row without data: sweeps read it back
			return o
		}
		res, ok := t.read()
		if !ok {
			return o
		}
		if err := d.attachImages(ctx, row, &res); err != nil {
			return o
		}
		est, err := retention.LookupEstimator(estName)
		if err != nil {
			return o
		}
		a, err := retention.Analyse(res, est, route, retention.AnalyseOptions{})
		if err != nil {
			return o
		}
		sum := retention.BuildSummary(a)
		o.total, o.data, o.ok = sum.Total, sum.Encode(), true
		return o
	}
	work := func(t todo, emit func(out)) { emit(summarise(t)) }
	weight := func(o out) int { return len(o.data) }
	return runPhase(ctx, d, opts, PhaseSummaries, list, work, weight, func(tx *sql.Tx, o out) error {
		if !o.ok {
			return nil
		}
		// Written only while the result holds the content summarised.
		_, err := tx.ExecContext(ctx, `INSERT INTO result_summaries (result_id, content_sig, route, version, total, data)
SELECT id, content_sig, ?, ?, ?, ? FROM tool_results WHERE id = ? AND content_sig = ?
ON CONFLICT(result_id) DO UPDATE SET content_sig = excluded.content_sig, route = excluded.route, version = excluded.version,
  total = excluded.total, data = excluded.data`,
			o.route, retention.SummaryVersion, o.total, o.data, o.id, o.sig)
		return err
	})
}

// storedSummary is a summary row as a sweep reads it.
type storedSummary struct {
	sig, route string
	version    int
	total      int64
	data       []byte
}

// sweepRows lists what a sweep needs of each result it selects, with its
// stored summary where it has one, in source order: one query, no more
// than the sweep reads (the rest of a row is read where a result is read
// back from its source).
const sweepRows = `SELECT r.id, r.session_id, s.session_id, s.project, r.call_id, r.tool_name, r.spill_kind, r.spill_path, s.route, r.est_tokens, r.content_sig,
  m.content_sig, m.route, m.version, m.total, m.data
FROM tool_results r JOIN sessions s ON s.id = r.session_id LEFT JOIN result_summaries m ON m.result_id = r.id
WHERE (?1 = 0 OR r.session_id = ?1) AND (?2 = '' OR r.session_id IN (SELECT id FROM sessions WHERE session_id = ?2))
  AND (?3 = 0 OR r.spill_kind IS NOT NULL)
ORDER BY r.session_id, r.src_offset, r.src_index`

// eachSweepRow calls fn with every result f selects (the fields a sweep
// reads: ids, project, call, tool, spill notice, route, count and content
// signature) and its stored
// summary row (zero when it has none). f's order and page are not used.
func (d *DB) eachSweepRow(ctx context.Context, f ResultFilter, fn func(ResultRow, storedSummary)) error {
	rows, err := d.db.QueryContext(ctx, sweepRows, f.SessionRowID, f.SessionID, f.OnlyNotices)
	if err != nil {
		return fmt.Errorf("sessions: sweep rows: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var r ResultRow
		var est, total, version sql.NullInt64
		var sig, route, kind, path sql.NullString
		var s storedSummary
		if err := rows.Scan(&r.ID, &r.SessionRowID, &r.SessionID, &r.Project, &r.CallID, &r.ToolName, &kind, &path, &r.Route, &est, &r.ContentSig,
			&sig, &route, &version, &total, &s.data); err != nil {
			return fmt.Errorf("sessions: sweep rows: %w", err)
		}
		if kind.Valid {
			r.Spill = &SpillNotice{Kind: kind.String, Path: path.String}
		}
		if est.Valid {
			v := est.Int64
			r.EstTokens, r.TokensExact, r.Tokens = &v, true, v
		}
		s.sig, s.route, s.version, s.total = sig.String, route.String, int(version.Int64), total.Int64
		fn(r, s)
	}
	return rows.Err()
}

// current decodes a stored summary if it stands for r on route: the same
// content, route and version, and the token phase's count. Its tables
// decode into buf when needed.
func (s storedSummary) current(r ResultRow, route string, buf *retention.SummaryBuffers) (*retention.Summary, bool) {
	if s.data == nil || s.sig != r.ContentSig || s.route != route || s.version != retention.SummaryVersion ||
		r.EstTokens == nil || *r.EstTokens != s.total {
		return nil, false
	}
	sum, err := retention.DecodeSummaryWith(s.data, buf)
	if err != nil || int64(sum.Total) != s.total || sum.Route != route {
		return nil, false
	}
	return sum, true
}

// SweepStats says how a sweep decided its results.
type SweepStats struct {
	// Results is how many results the sweep decided.
	Results int `json:"results"`
	// Summarised were decided from their summaries alone.
	Summarised int `json:"summarised"`
	// NoSummary had no current summary; Declined had one that could not
	// decide them exactly (a cut beyond its tables, a policy that cannot
	// decide on one). Both were read back from their sources.
	NoSummary int `json:"noSummary"`
	Declined  int `json:"declined"`
}
