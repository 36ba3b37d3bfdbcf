package sessions

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"

	"spillscope/retention"
)

// ResultRow is one indexed tool result's metadata and source location.
type ResultRow struct {
	ID           int64  `json:"id"`
	SessionRowID int64  `json:"sessionRowId"`
	SessionID    string `json:"sessionId"`
	Harness      string `json:"harness"`
	Project      string `json:"project"`
	Route        string `json:"route"`
	CallID       string `json:"callId"`
	ToolName     string `json:"toolName"`
	Time         string `json:"time"`
	IsError      bool   `json:"isError"`
	TextBytes    int64  `json:"textBytes"`
	Images       int    `json:"images"`
	EstTokens    *int64 `json:"estTokens"`
	// Tokens is what rankings sort by: EstTokens once the token phase has
	// counted the result (TokensExact), an approximation from the text's
	// size and the images' dimensions until then.
	Tokens        int64        `json:"tokens"`
	TokensExact   bool         `json:"tokensExact"`
	Spill         *SpillNotice `json:"spill,omitempty"`
	SpillResolved string       `json:"spillResolved,omitempty"`
	SpillExists   bool         `json:"spillExists"`
	// SpillState is the file rule's verdict on the spill file when the
	// result was indexed (FileExists, FileMissing, FileOutside, ...).
	SpillState string `json:"spillState,omitempty"`
	// Path and Root are the source file and the root it was found under;
	// Locator is where the result sits in it (its harness's terms), Line
	// the 1-based line of its record.
	Path string `json:"path"`
	Root string `json:"root"`
	Locator
	Line    int64 `json:"line"`
	Ordinal int   `json:"ordinal"`
	// ContentSig is a hash of the content as last indexed.
	ContentSig string `json:"-"`
	// Cut is the harness's own truncation of the result, as recorded;
	// Original where its log keeps the complete output (LoadOriginal).
	Cut      *HarnessCut  `json:"cut,omitempty"`
	Original *OriginalRef `json:"original,omitempty"`
}

const resultFields = `r.id, r.session_id, s.session_id, s.harness, s.project, s.route, r.call_id, r.tool_name, r.at, r.is_error, r.text_bytes, r.image_count, r.est_tokens,
  r.rank_tokens, r.spill_kind, r.spill_path, r.spill_resolved, r.spill_state, f.path, f.root, r.src_offset, r.src_length, r.src_line, r.src_index, r.src_key,
  r.ordinal, r.content_sig, r.cut_by, r.cut_tokens, r.cut_lines, r.orig_offset, r.orig_length, r.orig_line, r.orig_key`

const resultJoins = ` JOIN sessions s ON s.id = r.session_id JOIN files f ON f.id = r.file_id`

const resultCols = resultFields + ` FROM tool_results r` + resultJoins

func scanResultRow(sc interface{ Scan(...any) error }) (ResultRow, error) {
	var r ResultRow
	var est sql.NullInt64
	var kind, path, resolved, state, cutBy, origKey sql.NullString
	var cutTokens, cutLines, origOff, origLen, origLine sql.NullInt64
	err := sc.Scan(&r.ID, &r.SessionRowID, &r.SessionID, &r.Harness, &r.Project, &r.Route, &r.CallID, &r.ToolName, &r.Time, &r.IsError, &r.TextBytes, &r.Images, &est,
		&r.Tokens, &kind, &path, &resolved, &state, &r.Path, &r.Root, &r.Offset, &r.Length, &r.Line, &r.Index, &r.Key, &r.Ordinal, &r.ContentSig,
		&cutBy, &cutTokens, &cutLines, &origOff, &origLen, &origLine, &origKey)
	if err != nil {
		return r, err
	}
	if cutBy.Valid {
		r.Cut = &HarnessCut{By: cutBy.String, OriginalTokens: cutTokens.Int64, OriginalLines: cutLines.Int64}
	}
	if origOff.Valid {
		r.Original = &OriginalRef{Locator: Locator{Offset: origOff.Int64, Length: origLen.Int64, Key: origKey.String}, Line: origLine.Int64}
	}
	if est.Valid {
		v := est.Int64
		r.EstTokens = &v
		r.TokensExact = true
	}
	if kind.Valid {
		r.Spill = &SpillNotice{Kind: kind.String, Path: path.String}
		r.SpillResolved, r.SpillState = resolved.String, state.String
		r.SpillExists = r.SpillState == FileExists
	}
	return r, nil
}

// Order is how a list of results is sorted. The empty Order is each list's
// default: source order for Results, relevance for Search.
type Order string

const (
	// OrderSource is session, then file order.
	OrderSource Order = "source"
	// OrderTokens is most tokens first: the exact count once the token
	// phase has it, the approximation until then (ResultRow.Tokens).
	OrderTokens Order = "tokens"
	// OrderRelevance is the full-text index's bm25 rank, best first, ties
	// broken by tokens (searches only).
	OrderRelevance Order = "relevance"
)

// ParseOrder reads an order name from outside (a CLI flag, the window).
func ParseOrder(s string) (Order, error) {
	switch o := Order(s); o {
	case "", OrderSource, OrderTokens, OrderRelevance:
		return o, nil
	}
	return "", fmt.Errorf("sessions: unknown order %q (want source, tokens or relevance)", s)
}

// ResultFilter selects tool results; zero values select everything.
type ResultFilter struct {
	// SessionRowID is a sessions row id.
	SessionRowID int64
	// SessionID is the harness's session id (all transcripts sharing it,
	// subagents included).
	SessionID string
	// Order sorts the list: OrderTokens, or source order for anything
	// else (relevance needs a search).
	Order Order
	// OnlyNotices keeps the results whose text holds a spill notice.
	OnlyNotices bool
	// Limit caps the list; 0 means no cap. Offset skips that many rows.
	Limit  int
	Offset int
}

// The list queries differ in their order and in whether they read one
// session (through its index) or the whole table; each is a constant so no
// SQL is assembled at run time. A negative LIMIT is no limit in SQLite.
// The whole-table lists pick their page of ids first, so a deep page skips
// index entries, not joined rows.
const (
	resultsWhere = `
WHERE (?1 = 0 OR r.session_id = ?1) AND (?2 = '' OR r.session_id IN (SELECT id FROM sessions WHERE session_id = ?2))
  AND (?4 = 0 OR r.spill_kind IS NOT NULL)`
	resultsBySource = `SELECT ` + resultCols + ` JOIN (SELECT r.id FROM tool_results r` + resultsWhere + `
  ORDER BY r.session_id, r.src_offset, r.src_index LIMIT ?3 OFFSET ?5) p ON p.id = r.id
ORDER BY r.session_id, r.src_offset, r.src_index`
	resultsByTokens = `SELECT ` + resultCols + ` JOIN (SELECT r.id FROM tool_results r` + resultsWhere + `
  ORDER BY r.rank_tokens DESC, r.id LIMIT ?3 OFFSET ?5) p ON p.id = r.id
ORDER BY r.rank_tokens DESC, r.id`
	// One session's results: its few rows come through the session index
	// and are sorted, rather than walking the whole token ranking.
	sessionWhereOne = ` WHERE r.session_id = ?1 AND (?2 = '' OR r.session_id IN (SELECT id FROM sessions WHERE session_id = ?2))
  AND (?4 = 0 OR r.spill_kind IS NOT NULL)`
	sessionResultsBySrc = `SELECT ` + resultCols + sessionWhereOne + `
ORDER BY r.src_offset, r.src_index LIMIT ?3 OFFSET ?5`
	sessionResultsByTok = `SELECT ` + resultCols + sessionWhereOne + `
ORDER BY r.rank_tokens DESC, r.id LIMIT ?3 OFFSET ?5`
	resultsCount = `SELECT COUNT(*) FROM tool_results r` + resultsWhere
	// With no filter the count walks the smallest index instead of testing
	// the filter's terms on every row (a tenth of the time at 100,000 rows:
	// the largest results' first page, which the window's first paint
	// waits for, asks it).
	allResultsCount     = `SELECT COUNT(*) FROM tool_results`
	sessionResultsCount = `SELECT COUNT(*) FROM tool_results r` + sessionWhereOne
)

// Results lists indexed tool results in the filter's order.
func (d *DB) Results(ctx context.Context, f ResultFilter) ([]ResultRow, error) {
	q := resultsBySource
	switch {
	case f.SessionRowID > 0 && f.Order == OrderTokens:
		q = sessionResultsByTok
	case f.SessionRowID > 0:
		q = sessionResultsBySrc
	case f.Order == OrderTokens:
		q = resultsByTokens
	}
	limit := f.Limit
	if limit <= 0 {
		limit = -1
	}
	return d.queryResults(ctx, "list results", q, f.SessionRowID, f.SessionID, limit, f.OnlyNotices, max(f.Offset, 0))
}

// CountResults counts every result the filter selects (Limit and Offset
// aside), so a paged list can say how long it is.
func (d *DB) CountResults(ctx context.Context, f ResultFilter) (int, error) {
	var n int
	q := resultsCount
	switch {
	case f.SessionRowID > 0:
		q = sessionResultsCount
	case f.SessionID == "" && !f.OnlyNotices:
		if err := d.db.QueryRowContext(ctx, allResultsCount).Scan(&n); err != nil {
			return 0, fmt.Errorf("sessions: count results: %w", err)
		}
		return n, nil
	}
	// ?3 is the page's limit, unused by the count.
	if err := d.db.QueryRowContext(ctx, q, f.SessionRowID, f.SessionID, nil, f.OnlyNotices).Scan(&n); err != nil {
		return 0, fmt.Errorf("sessions: count results: %w", err)
	}
	return n, nil
}

func (d *DB) queryResults(ctx context.Context, what, q string, args ...any) ([]ResultRow, error) {
	rows, err := d.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("sessions: %s: %w", what, err)
	}
	defer rows.Close()
	var out []ResultRow
	for rows.Next() {
		r, err := scanResultRow(rows)
		if err != nil {
			return nil, fmt.Errorf("sessions: %s: %w", what, err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sessions: %s: %w", what, err)
	}
	return out, nil
}

// Result returns one tool result's row.
func (d *DB) Result(ctx context.Context, id int64) (ResultRow, error) {
	r, err := scanResultRow(d.db.QueryRowContext(ctx, `SELECT `+resultCols+` WHERE r.id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return r, fmt.Errorf("%w: tool result %d", ErrNotFound, id)
	}
	if err != nil {
		return r, fmt.Errorf("sessions: tool result %d: %w", id, err)
	}
	return r, nil
}

// LoadResult reads a tool result's content back from its source file and
// gives its images the paths of their stored attachments (Data is dropped
// for every image whose attachment exists; the retention core reads
// headers from paths). An image path the source names that is not a stored
// attachment is kept only where the file rule allows it for the session:
// nothing downstream ever opens a path a tool result chose.
func (d *DB) LoadResult(ctx context.Context, id int64) (ResultRow, retention.Result, error) {
	row, err := d.Result(ctx, id)
	if err != nil {
		return row, retention.Result{}, err
	}
	res, err := readResult(row.Harness, row.Path, row.Locator, row.CallID)
	if err != nil {
		return row, retention.Result{}, err
	}
	if err := d.attachImages(ctx, row, &res); err != nil {
		return row, retention.Result{}, err
	}
	return row, res, nil
}

// attachImages is LoadResult's second half: each image of res read back
// for row gets its stored attachment's path, or keeps a path of its own only
// where the file rule allows it.
func (d *DB) attachImages(ctx context.Context, row ResultRow, res *retention.Result) error {
	images := false
	for _, b := range res.Content {
		images = images || b.Type == retention.TypeImage
	}
	if !images {
		return nil
	}
	paths, err := d.attachmentPaths(ctx, row.ID)
	if err != nil {
		return err
	}
	var rule *FileRule
	for i := range res.Content {
		b := &res.Content[i]
		if b.Type != retention.TypeImage {
			continue
		}
		if p, ok := paths[i]; ok {
			if _, err := os.Stat(p); err == nil {
				b.Path, b.Data = p, ""
				continue
			}
		}
		if b.Path != "" {
			if rule == nil {
				r := RuleFor(d.sessionRef(row.Harness, row.Path, row.Root, row.SessionID, nil), "")
				rule = &r
			}
			if rule.Check(b.Path).State != FileExists {
				b.Path = ""
			}
		}
	}
	return nil
}

// LoadOriginal reads back the complete output an indexed result's log keeps
// beside it (ResultRow.Original): ErrNotFound when it has none.
func (d *DB) LoadOriginal(ctx context.Context, id int64) (string, error) {
	row, err := d.Result(ctx, id)
	if err != nil {
		return "", err
	}
	if row.Original == nil {
		return "", fmt.Errorf("%w: result %d keeps no original", ErrNotFound, id)
	}
	h, err := harnessFor(row.Harness)
	if err != nil {
		return "", err
	}
	or, ok := h.(OriginalReader)
	if !ok {
		return "", fmt.Errorf("%w: harness %s keeps no originals", ErrNotFound, row.Harness)
	}
	return or.ReadOriginal(row.Path, row.Original.Locator, row.CallID)
}

func (d *DB) attachmentPaths(ctx context.Context, id int64) (map[int]string, error) {
	rows, err := d.db.QueryContext(ctx, `SELECT ra.block_index, a.sha256, a.ext FROM result_attachments ra JOIN attachments a ON a.sha256 = ra.sha256 WHERE ra.result_id = ?`, id)
	if err != nil {
		return nil, fmt.Errorf("sessions: attachments of %d: %w", id, err)
	}
	defer rows.Close()
	m := map[int]string{}
	for rows.Next() {
		var i int
		var a Attachment
		if err := rows.Scan(&i, &a.SHA256, &a.Ext); err != nil {
			return nil, fmt.Errorf("sessions: attachments of %d: %w", id, err)
		}
		m[i] = d.AttachmentPath(a)
	}
	return m, rows.Err()
}

// readResult re-reads one tool result from its source through the harness
// that indexed it.
func readResult(harness, path string, loc Locator, callID string) (retention.Result, error) {
	h, err := harnessFor(harness)
	if err != nil {
		return retention.Result{}, err
	}
	return h.ReadResult(path, loc, callID)
}
