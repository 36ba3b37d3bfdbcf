package goose

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"spillscope/sessions/internal/readkit"
)

// DBCursor is where a pass over a goose database stopped. Messages are
// appended with growing row ids, but goose also rewrites a conversation
// (deleting its rows and inserting it again under new ids) and, when it
// compacts, marks old messages hidden from the model in place; so each
// session keeps a fingerprint (its message count, highest row id and
// hidden count) and a session whose fingerprint changed other than by
// appending is read again whole. Updated is the newest sessions.updated_at
// seen (Unix seconds; the boundary second is read again), Ledger the
// highest usage_ledger row read.
type DBCursor struct {
	Updated int64 `json:"updated"`
	Ledger  int64 `json:"ledger"`
	// HasLedger is set when the database has a usage_ledger table: its
	// rows are then the usage record, and the sessions' running totals
	// repeat them.
	HasLedger bool                   `json:"hasLedger,omitempty"`
	Sessions  map[string]Fingerprint `json:"sessions,omitempty"`
}

// Fingerprint is a session's messages as a pass left them.
type Fingerprint struct {
	Count  int64 `json:"count"`
	MaxID  int64 `json:"maxId"`
	Hidden int64 `json:"hidden"`
}

// ReadDB reads the goose database at path from the cursor (the zero cursor
// reads every session whole) and returns the cursor to resume from. It is
// opened read-only and read in one transaction; a quiescent file that a
// writer opened meanwhile fails the pass with readkit.ErrChangedWhileRead.
func ReadDB(ctx context.Context, path string, from DBCursor, h Handler) (DBCursor, error) {
	next := from
	err := readkit.ReadTx(ctx, path, func(tx *sql.Tx) error {
		p := &dbPass{ctx: ctx, tx: tx, from: from, h: wrapCallbacks(h)}
		var err error
		next, err = p.run()
		return err
	})
	if err != nil {
		return from, readkit.Unwrap(err)
	}
	return next, nil
}

type dbPass struct {
	ctx     context.Context
	tx      *sql.Tx
	from    DBCursor
	h       Handler
	cols    map[string]map[string]bool
	unknown readkit.Tally
}

func (p *dbPass) diag(d Diagnostic) error {
	if p.h.Diagnostic == nil {
		return nil
	}
	return p.h.Diagnostic(d)
}

func (p *dbPass) run() (DBCursor, error) {
	var err error
	if p.cols, err = readkit.Columns(p.ctx, p.tx, "sessions", "messages", "usage_ledger"); err != nil {
		return p.from, err
	}
	s, m := p.cols["sessions"], p.cols["messages"]
	if !s["id"] || !m["session_id"] || !m["content_json"] || !m["role"] {
		return p.from, p.diag(Diagnostic{Code: DiagNotDatabase,
			Message: "not a goose database: it has no sessions and messages tables"})
	}
	next := DBCursor{Updated: p.from.Updated, Ledger: p.from.Ledger, Sessions: map[string]Fingerprint{}}
	prints, err := p.fingerprints()
	if err != nil {
		return p.from, err
	}
	changed, err := p.changedSessions()
	if err != nil {
		return p.from, err
	}
	for _, id := range sortedIDs(prints) {
		fp := prints[id]
		upd, row := changed[id]
		prev, known := p.from.Sessions[id]
		if upd.updated > next.Updated {
			next.Updated = upd.updated
		}
		appended := known && fp.MaxID >= prev.MaxID
		if appended {
			var n int64
			if err := p.tx.QueryRowContext(p.ctx, "SELECT count(*) FROM messages WHERE session_id = ? AND id > ?", id, prev.MaxID).Scan(&n); err != nil {
				return p.from, err
			}
			appended = fp.Count == prev.Count+n
		}
		if row && appended {
			// only an updated session can have had messages hidden
			if fp.Hidden, err = p.hidden(id); err != nil {
				return p.from, err
			}
			appended = fp.Hidden == prev.Hidden
		} else if known && appended {
			fp.Hidden = prev.Hidden
		}
		switch {
		case !known || !appended:
			if fp.Hidden, err = p.hidden(id); err != nil {
				return p.from, err
			}
			if err := p.session(id, upd, row, true, 0); err != nil {
				return p.from, err
			}
		case fp.MaxID > prev.MaxID || row:
			if err := p.session(id, upd, row, false, prev.MaxID); err != nil {
				return p.from, err
			}
		}
		next.Sessions[id] = fp
	}
	for _, id := range sortedIDs(p.from.Sessions) {
		if _, ok := prints[id]; !ok && p.h.Session != nil {
			if err := p.h.Session(Session{ID: id, Deleted: true}); err != nil {
				return p.from, err
			}
		}
	}
	if p.cols["usage_ledger"]["id"] {
		next.HasLedger = true
		if next.Ledger, err = p.ledger(); err != nil {
			return p.from, err
		}
	}
	if err := p.finish(); err != nil {
		return p.from, err
	}
	return next, nil
}

func (p *dbPass) finish() error {
	for _, d := range p.unknown.Diagnostics(DiagUnknownContent, "type", func(k string, n int) string {
		return fmt.Sprintf("%d content items of type %q skipped", n, k)
	}) {
		if err := p.diag(d); err != nil {
			return err
		}
	}
	return nil
}

// fingerprints are every session's message count and highest row id, from
// the session index alone (the rows' content is not read). A session
// without messages still appears.
func (p *dbPass) fingerprints() (map[string]Fingerprint, error) {
	out := map[string]Fingerprint{}
	rows, err := p.tx.QueryContext(p.ctx, "SELECT id FROM sessions")
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return nil, err
		}
		out[id] = Fingerprint{}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	rows, err = p.tx.QueryContext(p.ctx, "SELECT session_id, count(*), max(id) FROM messages GROUP BY session_id")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		var fp Fingerprint
		if err := rows.Scan(&id, &fp.Count, &fp.MaxID); err != nil {
			return nil, err
		}
		if _, ok := out[id]; ok {
			out[id] = fp
		}
	}
	return out, rows.Err()
}

func (p *dbPass) hidden(id string) (int64, error) {
	if !p.cols["messages"]["metadata_json"] {
		return 0, nil
	}
	var n int64
	err := p.tx.QueryRowContext(p.ctx, `SELECT count(*) FROM messages WHERE session_id = ? AND metadata_json IS NOT NULL
		AND json_valid(metadata_json) AND json_extract(metadata_json, '$.agentVisible') = 0`, id).Scan(&n)
	return n, err
}

type changedRow struct {
	sess    Session
	updated int64
}

// changedSessions are the session rows updated since the cursor.
func (p *dbPass) changedSessions() (map[string]changedRow, error) {
	c := p.cols["sessions"]
	if !c["updated_at"] {
		return p.sessionRows("")
	}
	return p.sessionRows("WHERE CAST(strftime('%s', updated_at) AS INTEGER) >= ? OR updated_at IS NULL", p.from.Updated)
}

// sessionRows reads the session rows the clause selects, using the columns
// this database's schema version has.
func (p *dbPass) sessionRows(clause string, args ...any) (map[string]changedRow, error) {
	c := p.cols["sessions"]
	col := func(name string) string {
		if c[name] {
			return name
		}
		return "NULL"
	}
	q := "SELECT rowid, id, " + col("name") + ", " + col("description") + ", " + col("working_dir") + ", " + col("session_type") + ", " +
		col("parent_session_id") + ", " + col("provider_name") + ", " + col("model_config_json") + ", " + col("created_at") + ", " +
		col("updated_at") + ", CAST(strftime('%s', " + col("updated_at") + ") AS INTEGER), " +
		col("input_tokens") + ", " + col("output_tokens") + ", " + col("total_tokens") + ", " + col("cache_read_tokens") + ", " + col("cache_write_tokens") + ", " +
		col("accumulated_input_tokens") + ", " + col("accumulated_output_tokens") + ", " + col("accumulated_total_tokens") + ", " +
		col("accumulated_cache_read_tokens") + ", " + col("accumulated_cache_write_tokens") + ", " + col("accumulated_cost") +
		" FROM sessions " + clause
	rows, err := p.tx.QueryContext(p.ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]changedRow{}
	for rows.Next() {
		var s Session
		var name, desc, wd, typ, parent, provider, model, created, updated sql.NullString
		var updSec, in, out_, tot, cr, cw, ain, aout, atot, acr, acw sql.NullInt64
		var cost sql.NullFloat64
		if err := rows.Scan(&s.Row, &s.ID, &name, &desc, &wd, &typ, &parent, &provider, &model, &created, &updated, &updSec,
			&in, &out_, &tot, &cr, &cw, &ain, &aout, &atot, &acr, &acw, &cost); err != nil {
			return nil, err
		}
		s.Name = name.String
		if s.Name == "" {
			s.Name = desc.String
		}
		s.WorkingDir, s.Type, s.ParentID, s.Provider = wd.String, typ.String, parent.String, provider.String
		if model.Valid {
			var mc struct {
				ModelName string `json:"model_name"`
			}
			if json.Unmarshal([]byte(model.String), &mc) == nil {
				s.Model = mc.ModelName
			}
		}
		s.Created, s.Updated = parseTimestamp(created.String), parseTimestamp(updated.String)
		s.Last = Totals{Input: readkit.Uncached(in.Int64, cr.Int64, cw.Int64), CacheRead: cr.Int64, CacheWrite: cw.Int64, Output: out_.Int64, Total: tot.Int64}
		s.Accumulated = Totals{Input: readkit.Uncached(ain.Int64, acr.Int64, acw.Int64), CacheRead: acr.Int64, CacheWrite: acw.Int64,
			Output: aout.Int64, Total: atot.Int64, Cost: cost.Float64}
		out[s.ID] = changedRow{sess: s, updated: updSec.Int64}
	}
	return out, rows.Err()
}

// session reports a session and its messages after row id after (all of
// them when complete); upd is its row when the pass has read it already.
func (p *dbPass) session(id string, upd changedRow, have, complete bool, after int64) error {
	if !have {
		rows, err := p.sessionRows("WHERE id = ?", id)
		if err != nil {
			return err
		}
		upd = rows[id]
	}
	s := upd.sess
	s.ID, s.Complete = id, complete
	if p.h.Session != nil {
		if err := p.h.Session(s); err != nil {
			return err
		}
	}
	conv := &converter{h: p.h, requests: map[string]request{}, unknown: p.unknown}
	conv.lookup = func(callID string) (request, bool) { return p.findRequest(id, callID, after) }
	meta := "NULL"
	if p.cols["messages"]["metadata_json"] {
		meta = "metadata_json"
	}
	msgID := "NULL"
	if p.cols["messages"]["message_id"] {
		msgID = "message_id"
	}
	created := "0"
	if p.cols["messages"]["created_timestamp"] {
		created = "created_timestamp"
	}
	q := "SELECT id, " + msgID + ", role, " + created + ", content_json, " + meta + " FROM messages WHERE session_id = ? AND id > ? ORDER BY " + created + ", id"
	rows, err := p.tx.QueryContext(p.ctx, q, id, after)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := p.ctx.Err(); err != nil {
			return err
		}
		var row, ts int64
		var mid, metaJSON sql.NullString
		var role string
		var content []byte
		if err := rows.Scan(&row, &mid, &role, &ts, &content, &metaJSON); err != nil {
			return err
		}
		m, err := dbMessage(mid, role, ts, content, metaJSON)
		if err != nil {
			if err := conv.bad(0, row, fmt.Sprintf("message row %d", row), err); err != nil {
				return err
			}
			continue
		}
		loc := Locator{Source: SourceDB, Row: row, MessageID: mid.String}
		if err := conv.message(id, m, loc, 0, row); err != nil {
			return err
		}
	}
	p.unknown = conv.unknown
	return rows.Err()
}

func dbMessage(mid sql.NullString, role string, ts int64, content []byte, meta sql.NullString) (*messageJSON, error) {
	m := &messageJSON{Role: role, Created: ts}
	if mid.Valid {
		m.ID = &mid.String
	}
	if err := json.Unmarshal(content, &m.Content); err != nil {
		return nil, err
	}
	if meta.Valid && meta.String != "" {
		var md messageJSON
		if json.Unmarshal([]byte(`{"metadata":`+meta.String+`}`), &md) == nil {
			m.Metadata = md.Metadata
		}
	}
	return m, nil
}

// findRequest finds the request of a call answered in this pass but asked
// in a message an earlier pass read.
func (p *dbPass) findRequest(sid, callID string, before int64) (request, bool) {
	if before == 0 {
		return request{}, false
	}
	rows, err := p.tx.QueryContext(p.ctx, `SELECT content_json FROM messages WHERE session_id = ? AND id <= ? AND role = 'assistant'
		AND instr(content_json, ?) > 0 ORDER BY id DESC LIMIT 5`, sid, before, callID)
	if err != nil {
		return request{}, false
	}
	defer rows.Close()
	for rows.Next() {
		var content []byte
		if rows.Scan(&content) != nil {
			continue
		}
		var items []item
		if json.Unmarshal(content, &items) != nil {
			continue
		}
		for _, it := range items {
			if (it.Type == "toolRequest" || it.Type == "frontendToolRequest") && it.ID == callID && it.ToolCall != nil {
				return request{Tool: it.ToolCall.Value.Name, Args: readkit.Clone(it.ToolCall.Value.Arguments)}, true
			}
		}
	}
	return request{}, false
}

// ledger reports usage_ledger rows after the cursor's, and returns the
// highest row id read.
func (p *dbPass) ledger() (int64, error) {
	c := p.cols["usage_ledger"]
	col := func(name string) string {
		if c[name] {
			return name
		}
		return "NULL"
	}
	q := "SELECT id, session_id, " + col("created_timestamp") + ", " + col("model") + ", " + col("input_tokens") + ", " + col("output_tokens") + ", " +
		col("total_tokens") + ", " + col("cache_read_tokens") + ", " + col("cache_write_tokens") + ", " + col("cost") + ", " +
		col("cost_source") + ", " + col("is_compaction") + " FROM usage_ledger WHERE id > ? ORDER BY id"
	rows, err := p.tx.QueryContext(p.ctx, q, p.from.Ledger)
	if err != nil {
		return p.from.Ledger, err
	}
	defer rows.Close()
	last := p.from.Ledger
	for rows.Next() {
		var u Usage
		var created, in, out, tot, cr, cw, compaction sql.NullInt64
		var model, source sql.NullString
		var cost sql.NullFloat64
		if err := rows.Scan(&u.Row, &u.SessionID, &created, &model, &in, &out, &tot, &cr, &cw, &cost, &source, &compaction); err != nil {
			return last, err
		}
		last = u.Row
		u.Key = fmt.Sprintf("ledger:%d", u.Row)
		u.Model, u.Time = model.String, seconds(created.Int64)
		u.Input, u.CacheRead, u.CacheWrite = readkit.Uncached(in.Int64, cr.Int64, cw.Int64), cr.Int64, cw.Int64
		u.Output, u.Total, u.Cost = out.Int64, tot.Int64, cost.Float64
		u.Compaction, u.CarriedForward = compaction.Int64 != 0, source.String == "carried_forward"
		if p.h.Usage != nil {
			if err := p.h.Usage(u); err != nil {
				return last, err
			}
		}
		if u.Compaction && p.h.Compaction != nil {
			if err := p.h.Compaction(Compaction{SessionID: u.SessionID, Time: u.Time, Row: u.Row}); err != nil {
				return last, err
			}
		}
	}
	return last, rows.Err()
}

// readDBResult reads a result back: the row its locator names if it still
// holds the same message, else the message by its id.
func readDBResult(ctx context.Context, path string, loc Locator) (Result, error) {
	db, _, err := readkit.OpenReadOnly(path)
	if err != nil {
		return Result{}, err
	}
	defer db.Close()
	cols, err := readkit.Columns(ctx, db, "messages")
	if err != nil {
		return Result{}, err
	}
	c := cols["messages"]
	pick := func(name, fallback string) string {
		if c[name] {
			return name
		}
		return fallback
	}
	base := "SELECT id, session_id, " + pick("message_id", "NULL") + ", role, " + pick("created_timestamp", "0") + ", content_json, " + pick("metadata_json", "NULL") + " FROM messages "
	try := func(q string, arg any) (Result, bool, error) {
		var row, ts int64
		var sid, role string
		var mid, meta sql.NullString
		var content []byte
		err := db.QueryRowContext(ctx, base+q, arg).Scan(&row, &sid, &mid, &role, &ts, &content, &meta)
		if err == sql.ErrNoRows {
			return Result{}, false, nil
		}
		if err != nil {
			return Result{}, false, err
		}
		if loc.MessageID != "" && mid.String != loc.MessageID {
			return Result{}, false, nil
		}
		m, err := dbMessage(mid, role, ts, content, meta)
		if err != nil {
			return Result{}, false, nil
		}
		r, ok := pickResult(sid, m, Locator{Source: SourceDB, Row: row, MessageID: mid.String}, 0, row, loc.Index)
		return r, ok, nil
	}
	if r, ok, err := try("WHERE id = ?", loc.Row); err != nil || ok {
		return r, err
	}
	if loc.MessageID != "" && c["message_id"] {
		if r, ok, err := try("WHERE message_id = ? ORDER BY id DESC LIMIT 1", loc.MessageID); err != nil || ok {
			return r, err
		}
	}
	return Result{}, fmt.Errorf("%w: message %s (row %d) item %d", ErrResultGone, loc.MessageID, loc.Row, loc.Index)
}

// pickResult converts the content item at index of a message read back.
// The request that named the tool is not looked for.
func pickResult(sid string, m *messageJSON, loc Locator, line, row int64, index int) (Result, bool) {
	if index < 0 || index >= len(m.Content) {
		return Result{}, false
	}
	var got *Result
	conv := &converter{h: Handler{Result: func(r Result) error { got = &r; return nil }}}
	if conv.item(sid, m, index, m.Content[index], loc, line, row) != nil || got == nil {
		return Result{}, false
	}
	return *got, true
}

// DetectDB reports whether the file at path is a goose session database.
func DetectDB(path string) bool {
	if !readkit.IsSQLite(path) {
		return false
	}
	db, _, err := readkit.OpenReadOnly(path)
	if err != nil {
		return false
	}
	defer db.Close()
	cols, err := readkit.Columns(context.Background(), db, "sessions", "messages")
	return err == nil && cols["sessions"]["working_dir"] && cols["messages"]["content_json"]
}

// parseTimestamp reads a TIMESTAMP column as goose writes it: SQLite's
// CURRENT_TIMESTAMP / datetime('now') ("2006-01-02 15:04:05", UTC) or an
// RFC 3339 time bound from Rust.
func parseTimestamp(s string) time.Time {
	s = strings.TrimSpace(s)
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02 15:04:05.999999999-07:00", "2006-01-02 15:04:05.999999999", "2006-01-02T15:04:05.999999999"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC()
		}
	}
	return time.Time{}
}

func sortedIDs[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
