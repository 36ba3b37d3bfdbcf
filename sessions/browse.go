package sessions

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// The read side used by the window: lists and lookups over what the indexer
// wrote. Kept apart from the indexer's writes so each stays readable.

// SessionSummary is one indexed transcript with its totals.
type SessionSummary struct {
	ID           int64
	Harness      string
	SessionID    string
	AgentID      string
	Project      string
	Cwd          string
	Model        string
	Route        string
	Started      string
	Ended        string
	File         string
	ToolResults  int
	Images       int
	SpillNotices int
	TextBytes    int64
	Input        int64
	CacheRead    int64
	CacheWrite   int64
	Output       int64
	Reasoning    int64
	// Tokens sums every result's ranking figure (ResultRow.Tokens): exact
	// when TokensPending is 0, partly approximate until then.
	Tokens        int64
	TokensPending int
	// Title is the session's name as its harness keeps it; Kind what the
	// transcript is (SessionInfo.Kind); AgentType and AgentDescription a
	// subagent's, as recorded.
	Title            string
	Kind             string
	AgentType        string
	AgentDescription string
	// ParentRowID is the sessions row of a subagent's (or compaction's)
	// parent transcript: the session's own, sharing its session id; 0 for
	// a session's own transcript, or when the parent is not indexed.
	ParentRowID int64
	// ModelCalls, Compactions, APIErrors and AbortedTurns count the
	// transcript's per-call records and facts (calls.go).
	ModelCalls   int
	Compactions  int
	APIErrors    int
	AbortedTurns int
}

// SessionFilter narrows BrowseSessions. Search matches project, model,
// session id and file path (case-insensitive substring).
type SessionFilter struct {
	Harness string
	Search  string
	// Order is OrderTokens (most tokens first) or newest first (anything
	// else).
	Order Order
	// Limit caps the page (0: every row); Offset skips that many rows.
	Limit  int
	Offset int
}

// The two session lists differ only in their order (constants: no SQL is
// assembled at run time). Each picks its page of ids first, so the sums
// of sessionSelect are computed for the rows shown, not for every row
// skipped on the way to a deep page.
const (
	sessionWhere = `
WHERE (? = '' OR s.harness = ?)
  AND (? = '%%' OR lower(s.project) LIKE ? ESCAPE '\' OR lower(s.model) LIKE ? ESCAPE '\' OR lower(s.session_id) LIKE ? ESCAPE '\' OR lower(f.path) LIKE ? ESCAPE '\')`
	sessionsByTime = sessionSelect + ` JOIN (SELECT s.id FROM sessions s JOIN files f ON f.id = s.file_id` + sessionWhere + `
  ORDER BY s.started_at DESC, s.id DESC LIMIT ? OFFSET ?) p ON p.id = s.id
ORDER BY s.started_at DESC, s.id DESC`
	sessionsByTokens = sessionSelect + ` JOIN (SELECT s.id, (SELECT COALESCE(SUM(r.rank_tokens), 0) FROM tool_results r WHERE r.session_id = s.id) AS t
  FROM sessions s JOIN files f ON f.id = s.file_id` + sessionWhere + `
  ORDER BY t DESC, s.id DESC LIMIT ? OFFSET ?) p ON p.id = s.id
ORDER BY p.t DESC, s.id DESC`
)

const sessionSelect = `SELECT s.id, s.harness, s.session_id, s.agent_id, s.project, s.cwd, s.model, s.route,
	s.started_at, s.ended_at, f.path, s.tool_results, s.tool_result_images, s.spill_notices,
	COALESCE((SELECT SUM(r.text_bytes) FROM tool_results r WHERE r.session_id = s.id), 0),
	s.input_tokens, s.cache_read_tokens, s.cache_write_tokens, s.output_tokens, s.reasoning_tokens,
	COALESCE((SELECT SUM(r.rank_tokens) FROM tool_results r WHERE r.session_id = s.id), 0) AS tokens,
	(SELECT COUNT(*) FROM tool_results r WHERE r.session_id = s.id AND r.est_tokens IS NULL),
	s.title, s.transcript_kind, s.agent_type, s.agent_description,
	CASE WHEN s.agent_id = '' THEN 0 ELSE COALESCE((SELECT p.id FROM sessions p
	  WHERE p.session_id = s.session_id AND p.harness = s.harness AND p.agent_id = '' ORDER BY p.id LIMIT 1), 0) END,
	s.model_calls, s.compactions, s.api_errors, s.aborted_turns
FROM sessions s JOIN files f ON f.id = s.file_id`

func scanSession(sc interface{ Scan(...any) error }) (SessionSummary, error) {
	var s SessionSummary
	err := sc.Scan(&s.ID, &s.Harness, &s.SessionID, &s.AgentID, &s.Project, &s.Cwd, &s.Model, &s.Route,
		&s.Started, &s.Ended, &s.File, &s.ToolResults, &s.Images, &s.SpillNotices, &s.TextBytes,
		&s.Input, &s.CacheRead, &s.CacheWrite, &s.Output, &s.Reasoning, &s.Tokens, &s.TokensPending,
		&s.Title, &s.Kind, &s.AgentType, &s.AgentDescription, &s.ParentRowID, &s.ModelCalls, &s.Compactions, &s.APIErrors, &s.AbortedTurns)
	return s, err
}

var likeEscaper = strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)

// sessionLike is the LIKE pattern of a filter's search text: matched
// literally, so % and _ typed by the user are not wildcards.
func sessionLike(f SessionFilter) string {
	return "%" + likeEscaper.Replace(strings.ToLower(f.Search)) + "%"
}

// BrowseSessions lists one page of transcripts, newest first or by tokens;
// CountSessions counts the whole list.
func (d *DB) BrowseSessions(ctx context.Context, f SessionFilter) ([]SessionSummary, error) {
	limit := f.Limit
	if limit <= 0 {
		limit = -1 // no limit in SQLite
	}
	like := sessionLike(f)
	q := sessionsByTime
	if f.Order == OrderTokens {
		q = sessionsByTokens
	}
	rows, err := d.db.QueryContext(ctx, q,
		f.Harness, f.Harness, like, like, like, like, like, limit, max(f.Offset, 0))
	if err != nil {
		return nil, fmt.Errorf("sessions: list sessions: %w", err)
	}
	defer rows.Close()
	var out []SessionSummary
	for rows.Next() {
		s, err := scanSession(rows)
		if err != nil {
			return nil, fmt.Errorf("sessions: list sessions: %w", err)
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// sessionsCount counts what a filter selects: transcripts (rows of the
// list) and sessions (distinct harness session ids, a subagent's transcript
// sharing its parent's, as Totals counts them).
const sessionsCount = `SELECT COUNT(*), COUNT(DISTINCT s.harness || char(0) || s.session_id)
FROM sessions s JOIN files f ON f.id = s.file_id` + sessionWhere

// SessionCounts is how many rows a session filter selects.
type SessionCounts struct {
	// Transcripts is the number of list rows (a subagent is its own row).
	Transcripts int
	// Sessions counts distinct sessions among them.
	Sessions int
}

// CountSessions counts the whole list BrowseSessions pages through.
func (d *DB) CountSessions(ctx context.Context, f SessionFilter) (SessionCounts, error) {
	like := sessionLike(f)
	var c SessionCounts
	err := d.db.QueryRowContext(ctx, sessionsCount, f.Harness, f.Harness, like, like, like, like, like).Scan(&c.Transcripts, &c.Sessions)
	if err != nil {
		return c, fmt.Errorf("sessions: count sessions: %w", err)
	}
	return c, nil
}

// SessionByID returns one session's summary.
func (d *DB) SessionByID(ctx context.Context, id int64) (SessionSummary, error) {
	s, err := scanSession(d.db.QueryRowContext(ctx, sessionSelect+` WHERE s.id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return s, fmt.Errorf("%w: session %d", ErrNotFound, id)
	}
	if err != nil {
		return s, fmt.Errorf("sessions: session %d: %w", id, err)
	}
	return s, nil
}

// CountSearch counts every result a full-text query matches, as
// SearchPage lists them (results deleted since drop out in the join).
func (d *DB) CountSearch(ctx context.Context, query string) (int, error) {
	var n int
	err := d.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM result_fts m JOIN tool_results r ON r.id = m.rowid`+resultJoins+`
WHERE result_fts MATCH ?`, query).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("sessions: count search: %w", err)
	}
	return n, nil
}

// BrowseDiagnostics lists what the indexer could not read, newest files first.
func (d *DB) BrowseDiagnostics(ctx context.Context, limit int) ([]Diagnostic, error) {
	if limit <= 0 || limit > 10000 {
		limit = 1000
	}
	rows, err := d.db.QueryContext(ctx, `SELECT f.path, dg.line, dg.code, dg.params, dg.message, 1 FROM diagnostics dg JOIN files f ON f.id = dg.file_id
ORDER BY f.path, dg.line LIMIT ?`, limit)
	if err != nil {
		return nil, fmt.Errorf("sessions: list diagnostics: %w", err)
	}
	return scanDiagnostics(rows)
}

// DiagnosticGroups lists diagnostics as the panel shows them: one row per
// file, code and subject (unknown types and field values are a row each
// already), the first of its kind in the file standing for all of them with
// their Count, so ten thousand files with the same fault stay a list one
// can read.
func (d *DB) DiagnosticGroups(ctx context.Context, limit int) ([]Diagnostic, error) {
	if limit <= 0 || limit > 10000 {
		limit = 1000
	}
	// SQLite takes the bare columns of an aggregate with MIN() from the row
	// holding the minimum: the first line's params and message.
	rows, err := d.db.QueryContext(ctx, `SELECT f.path, MIN(dg.line), dg.code, dg.params, dg.message, COUNT(*)
FROM diagnostics dg JOIN files f ON f.id = dg.file_id
GROUP BY dg.file_id, dg.code, dg.subject ORDER BY f.path, MIN(dg.line), dg.code LIMIT ?`, limit)
	if err != nil {
		return nil, fmt.Errorf("sessions: list diagnostics: %w", err)
	}
	return scanDiagnostics(rows)
}

func scanDiagnostics(rows *sql.Rows) ([]Diagnostic, error) {
	defer rows.Close()
	var out []Diagnostic
	for rows.Next() {
		var dg Diagnostic
		var params string
		if err := rows.Scan(&dg.File, &dg.Line, &dg.Code, &params, &dg.Message, &dg.Count); err != nil {
			return nil, fmt.Errorf("sessions: list diagnostics: %w", err)
		}
		dg.Params = map[string]string{}
		json.Unmarshal([]byte(params), &dg.Params)
		out = append(out, dg)
	}
	return out, rows.Err()
}

// IndexedRoots lists the session roots the index has read files from, so a
// writer can keep out of every one of them, the ones no longer configured
// included.
func (d *DB) IndexedRoots(ctx context.Context) ([]string, error) {
	rows, err := d.db.QueryContext(ctx, `SELECT DISTINCT root FROM files ORDER BY root`)
	if err != nil {
		return nil, fmt.Errorf("sessions: indexed roots: %w", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var r string
		if err := rows.Scan(&r); err != nil {
			return nil, fmt.Errorf("sessions: indexed roots: %w", err)
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// SessionRowIDs lists the transcripts (sessions rows) of one harness
// session id, the parent's first.
func (d *DB) SessionRowIDs(ctx context.Context, sessionID string) ([]int64, error) {
	rows, err := d.db.QueryContext(ctx, `SELECT id FROM sessions WHERE session_id = ? ORDER BY agent_id <> '', id`, sessionID)
	if err != nil {
		return nil, fmt.Errorf("sessions: session %q: %w", sessionID, err)
	}
	defer rows.Close()
	var out []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("sessions: session %q: %w", sessionID, err)
		}
		out = append(out, id)
	}
	return out, rows.Err()
}
