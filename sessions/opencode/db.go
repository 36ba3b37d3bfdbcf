package opencode

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"sort"
	"time"

	"spillscope/sessions/internal/readkit"
)

// DBCursor is where a pass over an OpenCode database stopped. OpenCode
// rewrites a part's row as the call runs (pending, running, completed) and
// stamps time_updated each time, so rows are found by time_updated, never
// by row id or byte offset. The boundary millisecond is read again (rows
// can share it), which repeats a record under the same key rather than
// losing one. Parts counts each session's part rows at the end of the
// pass, to notice rows that went away (a revert deletes them).
type DBCursor struct {
	Part    int64            `json:"part"`
	Message int64            `json:"message"`
	Session int64            `json:"session"`
	Parts   map[string]int64 `json:"parts,omitempty"`
}

// ReadDB reads the OpenCode database at path from the cursor (the zero
// cursor reads everything, each session Complete) and returns the cursor to
// resume from. The database is opened read-only (readkit.OpenReadOnly) and
// read in one transaction, so every query sees the same committed state; if
// it was opened as a quiescent file and a writer started meanwhile, the
// pass fails with readkit.ErrChangedWhileRead and should be run again.
func ReadDB(ctx context.Context, path string, from DBCursor, h Handler) (DBCursor, error) {
	next := from
	err := readkit.ReadTx(ctx, path, func(tx *sql.Tx) error {
		r := &dbPass{ctx: ctx, tx: tx, from: from, e: &emitter{h: wrapCallbacks(h)}, msgs: map[string]*messageJSON{}}
		var err error
		next, err = r.run()
		return err
	})
	if err != nil {
		return from, readkit.Unwrap(err)
	}
	return next, nil
}

type dbPass struct {
	ctx  context.Context
	tx   *sql.Tx
	from DBCursor
	next DBCursor
	e    *emitter
	cols map[string]bool // the session table's columns
	msgs map[string]*messageJSON
}

func (r *dbPass) run() (DBCursor, error) {
	ok, err := r.isOpenCode()
	if err != nil {
		return r.from, err
	}
	if !ok {
		return r.from, r.e.diag(Diagnostic{Code: DiagNotDatabase,
			Message: "not an OpenCode database: it has no session, message and part tables with a data column"})
	}
	r.next = DBCursor{Part: r.from.Part, Message: r.from.Message, Session: r.from.Session, Parts: map[string]int64{}}
	now, err := r.counts("")
	if err != nil {
		return r.from, err
	}
	ids, err := r.sessionIDs()
	if err != nil {
		return r.from, err
	}
	present := map[string]bool{}
	for _, id := range ids {
		present[id] = true
		now[id] += 0 // a session without parts is still known, so its deletion is noticed
	}
	for id := range now {
		if !present[id] {
			delete(now, id) // parts of a session that is gone
		}
	}
	r.next.Parts = now
	full := map[string]bool{}
	first := r.from.Parts == nil
	if first {
		for _, id := range ids {
			full[id] = true
		}
	} else {
		inserted, err := r.counts("WHERE time_created > ?", r.from.Part)
		if err != nil {
			return r.from, err
		}
		for id, n := range now {
			if prev, known := r.from.Parts[id]; known && n < prev+inserted[id] {
				full[id] = true
			}
		}
		for _, id := range sortedKeys(setOf(r.from.Parts)) {
			if !present[id] && r.e.h.Session != nil {
				if err := r.e.h.Session(Session{ID: id, Deleted: true}); err != nil {
					return r.from, err
				}
			}
		}
	}
	for _, id := range sortedKeys(full) {
		if err := r.fullSession(id); err != nil {
			return r.from, err
		}
	}
	if !first {
		if err := r.changedSessions(full); err != nil {
			return r.from, err
		}
		if err := r.changedParts(full); err != nil {
			return r.from, err
		}
		if err := r.changedMessages(full); err != nil {
			return r.from, err
		}
	}
	if err := r.e.finish(); err != nil {
		return r.from, err
	}
	return r.next, nil
}

func (r *dbPass) isOpenCode() (bool, error) {
	cols, err := readkit.Columns(r.ctx, r.tx, "session", "message", "part")
	if err != nil {
		return false, err
	}
	want := map[string][]string{"session": {"id", "time_updated"}, "message": {"id", "session_id", "data", "time_updated"}, "part": {"id", "message_id", "session_id", "data", "time_updated"}}
	for table, need := range want {
		for _, c := range need {
			if !cols[table][c] {
				return false, nil
			}
		}
	}
	r.cols = cols["session"]
	return true, nil
}

func (r *dbPass) counts(where string, args ...any) (map[string]int64, error) {
	rows, err := r.tx.QueryContext(r.ctx, "SELECT session_id, count(*) FROM part "+where+" GROUP BY session_id", args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]int64{}
	for rows.Next() {
		var id string
		var n int64
		if err := rows.Scan(&id, &n); err != nil {
			return nil, err
		}
		out[id] = n
	}
	return out, rows.Err()
}

func (r *dbPass) sessionIDs() ([]string, error) {
	rows, err := r.tx.QueryContext(r.ctx, "SELECT id FROM session ORDER BY time_created, id")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		out = append(out, id)
	}
	return out, rows.Err()
}

// sessionSelect names the session columns this reader uses, NULL for those
// an older schema lacks (agent, model and workspace came later).
func (r *dbPass) sessionSelect() string {
	col := func(c string) string {
		if r.cols[c] {
			return c
		}
		return "NULL"
	}
	return "SELECT rowid, id, " + col("slug") + ", " + col("title") + ", " + col("directory") + ", " + col("project_id") + ", " +
		col("parent_id") + ", " + col("version") + ", " + col("agent") + ", " + col("model") + ", " +
		col("time_created") + ", time_updated, " + col("time_archived") + " FROM session "
}

func (r *dbPass) scanSession(rows *sql.Rows) (Session, int64, error) {
	var s Session
	var slug, title, dir, project, parent, version, agent, model sql.NullString
	var created, archived sql.NullInt64
	var updated int64
	if err := rows.Scan(&s.Row, &s.ID, &slug, &title, &dir, &project, &parent, &version, &agent, &model, &created, &updated, &archived); err != nil {
		return s, 0, err
	}
	s.Slug, s.Title, s.Directory, s.ProjectID = slug.String, title.String, dir.String, project.String
	s.ParentID, s.Version, s.Agent = parent.String, version.String, agent.String
	if model.Valid {
		var m struct {
			ID         string `json:"id"`
			ProviderID string `json:"providerID"`
		}
		if json.Unmarshal([]byte(model.String), &m) == nil {
			s.Model, s.Provider = m.ID, m.ProviderID
		}
	}
	s.Created, s.Updated, s.Archived = msVal(created), time.UnixMilli(updated).UTC(), msVal(archived)
	return s, updated, nil
}

// fullSession reports one session and everything it holds, in
// conversation order.
func (r *dbPass) fullSession(id string) error {
	rows, err := r.tx.QueryContext(r.ctx, r.sessionSelect()+"WHERE id = ?", id)
	if err != nil {
		return err
	}
	var sess *Session
	for rows.Next() {
		s, upd, err := r.scanSession(rows)
		if err != nil {
			rows.Close()
			return err
		}
		r.next.Session = max(r.next.Session, upd)
		sess = &s
	}
	rows.Close()
	if err := rows.Err(); err != nil || sess == nil {
		return err
	}
	sess.Complete = true
	type msgRow struct {
		row  int64
		info *messageJSON
	}
	var msgs []msgRow
	mrows, err := r.tx.QueryContext(r.ctx, "SELECT rowid, id, session_id, time_updated, data FROM message WHERE session_id = ? ORDER BY time_created, id", id)
	if err != nil {
		return err
	}
	for mrows.Next() {
		m, row, upd, err := r.scanMessage(mrows)
		if err != nil {
			mrows.Close()
			return err
		}
		r.next.Message = max(r.next.Message, upd)
		if m != nil {
			msgs = append(msgs, msgRow{row, m})
		}
	}
	mrows.Close()
	if err := mrows.Err(); err != nil {
		return err
	}
	if sess.Model == "" {
		for i := len(msgs) - 1; i >= 0; i-- {
			if msgs[i].info.Role == "assistant" {
				sess.Model, sess.Provider = msgs[i].info.model()
				break
			}
		}
	}
	if r.e.h.Session != nil {
		if err := r.e.h.Session(*sess); err != nil {
			return err
		}
	}
	// One query for the session's parts, in the messages' order; each
	// message's own records follow its parts.
	rows, err = r.tx.QueryContext(r.ctx, `SELECT p.rowid, p.id, p.message_id, p.session_id, p.time_updated, p.data
		FROM part p JOIN message m ON m.id = p.message_id WHERE p.session_id = ? ORDER BY m.time_created, m.id, p.id`, id)
	if err != nil {
		return err
	}
	defer rows.Close()
	known := make(map[string]bool, len(msgs))
	for _, m := range msgs {
		known[m.info.ID] = true
	}
	next, hasStep := 0, false
	finish := func() error {
		m := msgs[next]
		next++
		step := hasStep
		hasStep = false
		return r.e.message(m.info, step, where{row: m.row, desc: "message " + m.info.ID})
	}
	for rows.Next() {
		if err := r.ctx.Err(); err != nil {
			return err
		}
		var pr partRow
		if err := rows.Scan(&pr.row, &pr.ids.ID, &pr.ids.MessageID, &pr.ids.SessionID, &pr.updated, &pr.data); err != nil {
			return err
		}
		var info *messageJSON
		if known[pr.ids.MessageID] { // else its message row did not parse
			for msgs[next].info.ID != pr.ids.MessageID {
				if err := finish(); err != nil {
					return err
				}
			}
			info = msgs[next].info
		}
		step, err := r.part(pr, info)
		if err != nil {
			return err
		}
		hasStep = hasStep || step
	}
	if err := rows.Err(); err != nil {
		return err
	}
	for next < len(msgs) {
		if err := finish(); err != nil {
			return err
		}
	}
	return nil
}

type partRow struct {
	row, updated int64
	ids          partJSON
	data         []byte
}

func (r *dbPass) part(pr partRow, msg *messageJSON) (bool, error) {
	r.next.Part = max(r.next.Part, pr.updated)
	return r.e.part(pr.data, msg, pr.ids, where{row: pr.row, loc: Locator{Source: SourceDB, PartID: pr.ids.ID},
		desc: fmt.Sprintf("part %s (row %d)", pr.ids.ID, pr.row)})
}

func (r *dbPass) scanMessage(rows *sql.Rows) (*messageJSON, int64, int64, error) {
	var row, upd int64
	var id, sid string
	var data []byte
	if err := rows.Scan(&row, &id, &sid, &upd, &data); err != nil {
		return nil, 0, 0, err
	}
	var m messageJSON
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, row, upd, r.e.bad(where{row: row, desc: "message " + id}, err)
	}
	m.ID, m.SessionID = id, sid
	return &m, row, upd, nil
}

// parts reports the part rows the clause selects, each with its message's
// info looked up.
func (r *dbPass) parts(clause string, args ...any) error {
	rows, err := r.tx.QueryContext(r.ctx, "SELECT rowid, id, message_id, session_id, time_updated, data FROM part "+clause, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var pr partRow
		if err := rows.Scan(&pr.row, &pr.ids.ID, &pr.ids.MessageID, &pr.ids.SessionID, &pr.updated, &pr.data); err != nil {
			return err
		}
		m, err := r.message(pr.ids.MessageID)
		if err != nil {
			return err
		}
		if _, err := r.part(pr, m); err != nil {
			return err
		}
	}
	return rows.Err()
}

// message looks up one message's info, once per pass.
func (r *dbPass) message(id string) (*messageJSON, error) {
	if m, ok := r.msgs[id]; ok {
		return m, nil
	}
	var sid string
	var data []byte
	err := r.tx.QueryRowContext(r.ctx, "SELECT session_id, data FROM message WHERE id = ?", id).Scan(&sid, &data)
	if err == sql.ErrNoRows {
		r.msgs[id] = nil
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var m messageJSON
	if json.Unmarshal(data, &m) != nil {
		r.msgs[id] = nil
		return nil, nil
	}
	m.ID, m.SessionID = id, sid
	r.msgs[id] = &m
	return &m, nil
}

func (r *dbPass) changedSessions(skip map[string]bool) error {
	rows, err := r.tx.QueryContext(r.ctx, r.sessionSelect()+"WHERE time_updated >= ? ORDER BY time_updated, id", r.from.Session)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		s, upd, err := r.scanSession(rows)
		if err != nil {
			return err
		}
		r.next.Session = max(r.next.Session, upd)
		if skip[s.ID] || r.e.h.Session == nil {
			continue
		}
		if err := r.e.h.Session(s); err != nil {
			return err
		}
	}
	return rows.Err()
}

func (r *dbPass) changedParts(skip map[string]bool) error {
	rows, err := r.tx.QueryContext(r.ctx, "SELECT id, session_id FROM part WHERE time_updated >= ? ORDER BY time_updated, id", r.from.Part)
	if err != nil {
		return err
	}
	var ids []string
	for rows.Next() {
		var id, sid string
		if err := rows.Scan(&id, &sid); err != nil {
			rows.Close()
			return err
		}
		if !skip[sid] {
			ids = append(ids, id)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	// One row at a time: the changed rows' data is read after the list so
	// a large pass never holds more than one part.
	for _, id := range ids {
		if err := r.ctx.Err(); err != nil {
			return err
		}
		if err := r.parts("WHERE id = ?", id); err != nil {
			return err
		}
	}
	return nil
}

func (r *dbPass) changedMessages(skip map[string]bool) error {
	rows, err := r.tx.QueryContext(r.ctx, "SELECT rowid, id, session_id, time_updated, data FROM message WHERE time_updated >= ? ORDER BY time_updated, id", r.from.Message)
	if err != nil {
		return err
	}
	type msgRow struct {
		row  int64
		info *messageJSON
	}
	var msgs []msgRow
	for rows.Next() {
		m, row, upd, err := r.scanMessage(rows)
		if err != nil {
			rows.Close()
			return err
		}
		r.next.Message = max(r.next.Message, upd)
		if m != nil && !skip[m.SessionID] && m.Role == "assistant" {
			msgs = append(msgs, msgRow{row, m})
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, m := range msgs {
		var hasStep bool
		err := r.tx.QueryRowContext(r.ctx, `SELECT EXISTS (SELECT 1 FROM part WHERE message_id = ? AND json_valid(data) AND json_extract(data, '$.type') = 'step-finish')`, m.info.ID).Scan(&hasStep)
		if err != nil {
			return err
		}
		if err := r.e.message(m.info, hasStep, where{row: m.row, desc: "message " + m.info.ID}); err != nil {
			return err
		}
	}
	return nil
}

// readDBResult reads one part row back by its id.
func readDBResult(ctx context.Context, path string, loc Locator) (Result, error) {
	db, _, err := readkit.OpenReadOnly(path)
	if err != nil {
		return Result{}, err
	}
	defer db.Close()
	var ids partJSON
	var data []byte
	err = db.QueryRowContext(ctx, "SELECT id, message_id, session_id, data FROM part WHERE id = ?", loc.PartID).Scan(&ids.ID, &ids.MessageID, &ids.SessionID, &data)
	if err == sql.ErrNoRows {
		return Result{}, fmt.Errorf("%w: part %s", ErrResultGone, loc.PartID)
	}
	if err != nil {
		return Result{}, err
	}
	return resultFromPart(data, ids, loc, "part "+loc.PartID)
}

// DetectDB reports whether the file at path is an OpenCode database: a
// SQLite file with session, message and part tables.
func DetectDB(path string) bool {
	if !readkit.IsSQLite(path) {
		return false
	}
	db, _, err := readkit.OpenReadOnly(path)
	if err != nil {
		return false
	}
	defer db.Close()
	var n int
	err = db.QueryRow(`SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN ('session', 'message', 'part')`).Scan(&n)
	return err == nil && n == 3
}

func msVal(v sql.NullInt64) time.Time {
	if !v.Valid || v.Int64 <= 0 {
		return time.Time{}
	}
	return time.UnixMilli(v.Int64).UTC()
}

func setOf(m map[string]int64) map[string]bool {
	out := make(map[string]bool, len(m))
	for k := range m {
		out[k] = true
	}
	return out
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
