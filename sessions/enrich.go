package sessions

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"spillscope/retention"
)

// EnrichOptions tune the phases after the structure pass.
type EnrichOptions struct {
	// Workers reading and tokenising results; 0 means every core.
	Workers int
	// Progress, when set, is called as results are done.
	Progress func(Progress)
	// SkipSearch leaves the full-text index alone (token estimates only).
	SkipSearch bool
	// SkipSummaries leaves the sweep summaries alone.
	SkipSummaries bool
	// Sessions, when not nil, limits every phase to the results of these
	// session rows (a watcher's pass: the sessions it wrote to, whose
	// waiting results are the ones it added or changed, and any an earlier
	// phase could not read back as the file moved under it); others
	// waiting are left to a whole pass.
	Sessions []int64
}

// only is the JSON list of opts.Sessions for the queries that take it.
func (o EnrichOptions) only() string {
	b, _ := json.Marshal(o.Sessions)
	return string(b)
}

// Enrich runs the slow phases over results that lack them: token estimates
// on each session's route, the full-text index of redacted text, then the
// sweep summaries (Summarise). All are stored, so an unchanged result is
// never tokenised twice; the app is usable while they run.
func (d *DB) Enrich(ctx context.Context, opts EnrichOptions) error {
	if err := d.EstimateTokens(ctx, opts); err != nil {
		return err
	}
	if opts.SkipSearch {
		return nil
	}
	if err := d.IndexText(ctx, opts); err != nil {
		return err
	}
	if opts.SkipSummaries {
		return nil
	}
	return d.Summarise(ctx, opts)
}

type todo struct {
	id            int64
	loc           Locator
	harness, path string
	callID, route string
	sig           string
	textBytes     int64
}

// heavy reports a result read back one at a time (heavyBytes).
func (t todo) heavy() bool { return t.loc.Length > heavyBytes || t.textBytes > heavyBytes }

// The two pending-work queries differ in their condition and order; both
// are constants so no SQL is ever assembled at run time. Tokens go largest
// first, so the top of every "most tokens" ranking turns exact earliest;
// search goes in file order, for read locality.
// The ...Of variants take the JSON list of the only sessions to do.
const (
	// todoFrom is what every list reads, in todos' scan order.
	todoFrom = `SELECT r.id, s.harness, f.path, r.src_offset, r.src_length, r.src_index, r.src_key, r.call_id, s.route, r.content_sig, r.text_bytes
FROM tool_results r JOIN sessions s ON s.id = r.session_id JOIN files f ON f.id = r.file_id
`
	todoTokens   = todoFrom + `WHERE r.est_tokens IS NULL ORDER BY r.approx_tokens DESC, r.id`
	todoSearch   = todoFrom + `WHERE r.fts_done = 0 ORDER BY r.file_id, r.src_offset`
	todoTokensOf = todoFrom + `WHERE r.est_tokens IS NULL AND r.session_id IN (SELECT value FROM json_each(?)) ORDER BY r.approx_tokens DESC, r.id`
	todoSearchOf = todoFrom + `WHERE r.fts_done = 0 AND r.session_id IN (SELECT value FROM json_each(?)) ORDER BY r.file_id, r.src_offset`
)

// pending lists the results a phase still has to do: all of them, or
// those of opts.Sessions (of's last parameter). args are both queries'
// first parameters.
func (d *DB) pending(ctx context.Context, opts EnrichOptions, all, of string, args ...any) ([]todo, error) {
	if opts.Sessions == nil {
		return d.todos(ctx, all, args...)
	}
	if len(opts.Sessions) == 0 {
		return nil, nil
	}
	return d.todos(ctx, of, append(args, opts.only())...)
}

func (d *DB) todos(ctx context.Context, query string, args ...any) ([]todo, error) {
	rows, err := d.db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("sessions: pending results: %w", err)
	}
	defer rows.Close()
	var out []todo
	for rows.Next() {
		var t todo
		if err := rows.Scan(&t.id, &t.harness, &t.path, &t.loc.Offset, &t.loc.Length, &t.loc.Index, &t.loc.Key, &t.callID, &t.route, &t.sig, &t.textBytes); err != nil {
			return nil, fmt.Errorf("sessions: pending results: %w", err)
		}
		out = append(out, t)
	}
	return out, rows.Err()
}

// read reads a pending result back from its source. A result whose content
// no longer matches what was indexed (the file changed since) is not read:
// the next structure pass re-indexes it, and nothing is counted from text
// the index does not describe.
func (t todo) read() (retention.Result, bool) {
	res, err := readResult(t.harness, t.path, t.loc, t.callID)
	if err != nil {
		return res, false
	}
	if t.sig != "" && blockSig(res.Content) != t.sig {
		return res, false
	}
	return res, true
}

// EstimateTokens prices every result without an estimate on its session's
// route, as every decision prices the original: each text block on the
// route's estimator, each image through retention.PriceImage on the stored
// attachment, each other block at the estimator's structural price.
func (d *DB) EstimateTokens(ctx context.Context, opts EnrichOptions) error {
	list, err := d.pending(ctx, opts, todoTokens, todoTokensOf)
	if err != nil || len(list) == 0 {
		return err
	}
	return d.estimate(ctx, opts, list)
}

// The stored images of the results waiting for a count (of some of them).
const (
	pendingImages = `SELECT ra.result_id, ra.block_index, a.sha256, a.media_type, a.width, a.height FROM result_attachments ra
JOIN attachments a ON a.sha256 = ra.sha256 JOIN tool_results r ON r.id = ra.result_id WHERE r.est_tokens IS NULL`
	pendingImagesOf = pendingImages + ` AND r.session_id IN (SELECT value FROM json_each(?))`
)

// estimate counts the listed results; the list may be stale by the time a
// count is written (see the write's guard).
func (d *DB) estimate(ctx context.Context, opts EnrichOptions, list []todo) error {
	imgs := map[int64]map[int]Attachment{}
	q, args := pendingImages, []any(nil)
	if opts.Sessions != nil {
		q, args = pendingImagesOf, []any{opts.only()}
	}
	rows, err := d.db.QueryContext(ctx, q, args...)
	if err != nil {
		return fmt.Errorf("sessions: attachment sizes: %w", err)
	}
	for rows.Next() {
		var id int64
		var bi int
		var dm Attachment
		if err := rows.Scan(&id, &bi, &dm.SHA256, &dm.MediaType, &dm.Width, &dm.Height); err != nil {
			rows.Close()
			return fmt.Errorf("sessions: attachment sizes: %w", err)
		}
		if imgs[id] == nil {
			imgs[id] = map[int]Attachment{}
		}
		imgs[id][bi] = dm
	}
	rows.Close()
	type est struct {
		id                 int64
		sig                string
		text, image, total int64
		route              string
		ok                 bool
	}
	work := func(t todo, emit func(est)) {
		e := est{id: t.id, sig: t.sig, route: t.route}
		defer func() { emit(e) }()
		_, rt, estName := routeFor(t.route)
		est, err := retention.LookupEstimator(estName)
		if err != nil {
			return
		}
		res, ok := t.read()
		if !ok {
			return
		}
		e.text, e.image = priceContent(res.Content, est, rt, imgs[t.id])
		e.total, e.ok = e.text+e.image, true
	}
	return runPhase(ctx, d, opts, PhaseTokens, list, work, nil, func(tx *sql.Tx, e est) error {
		if !e.ok {
			return nil
		}
		// The row may have been re-indexed meanwhile with other content,
		// or its session moved to another route: write only while the
		// result holds the content that was counted, and its session is on
		// the route it was counted on.
		_, err := tx.ExecContext(ctx, `UPDATE tool_results SET est_tokens = ?, est_text_tokens = ?, est_image_tokens = ?, est_route = ?
WHERE id = ? AND content_sig = ? AND est_tokens IS NULL
  AND (SELECT route FROM sessions WHERE sessions.id = tool_results.session_id) = ?`,
			e.total, e.text, e.image, e.route, e.id, e.sig, e.route)
		return err
	})
}

// IndexText adds each result's text, with every credential-bearing URL
// replaced by a placeholder and every listed credential value scrubbed, to
// the full-text index, in parts for a long one (searchParts). The index is
// contentless: only terms are stored, never the text.
func (d *DB) IndexText(ctx context.Context, opts EnrichOptions) error {
	list, err := d.pending(ctx, opts, todoSearch, todoSearchOf)
	if err != nil || len(list) == 0 {
		return err
	}
	// A doc is one part of a result's text (part 0 first; part < 0 for a
	// result whose source is gone); the writer marks the result done at
	// part 0 and adds later parts only when that mark took.
	type doc struct {
		id        int64
		sig, body string
		part      int
	}
	work := func(t todo, emit func(doc)) {
		res, ok := t.read()
		if !ok {
			emit(doc{id: t.id, sig: t.sig, part: -1})
			return
		}
		k := 0
		searchParts(res.Content, func(body string) error {
			emit(doc{id: t.id, sig: t.sig, body: body, part: k})
			k++
			return nil
		})
		if k == 0 {
			emit(doc{id: t.id, sig: t.sig})
		}
	}
	accepted := map[int64]bool{}
	return runPhase(ctx, d, opts, PhaseSearch, list, work, func(dc doc) int { return len(dc.body) }, func(tx *sql.Tx, dc doc) error {
		if dc.part > 0 {
			if !accepted[dc.id] {
				return nil
			}
			_, err := tx.ExecContext(ctx, `INSERT INTO result_fts (rowid, body) VALUES (?, ?)`, partRowID(dc.id, dc.part), dc.body)
			return err
		}
		delete(accepted, dc.id)
		state := 1
		if dc.part < 0 {
			state = 2 // source gone; the next structure pass re-reads the file
		}
		// Mark first: if the row was re-indexed meanwhile, nothing matches
		// and no stray search entry is written for its id.
		res, err := tx.ExecContext(ctx, `UPDATE tool_results SET fts_done = ? WHERE id = ? AND content_sig = ? AND fts_done = 0`,
			state, dc.id, dc.sig)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			return err
		}
		if state == 1 && dc.body != "" {
			accepted[dc.id] = true
			_, err = tx.ExecContext(ctx, `INSERT INTO result_fts (rowid, body) VALUES (?, ?)`, dc.id, dc.body)
		}
		return err
	})
}

// runPhase fans work out to workers and writes their outputs from one
// goroutine in batches, each batch one transaction: SQLite has one writer,
// and a killed phase keeps every batch it committed. A worker emits one
// output or several (the parts of a long text), written in the order it
// emits them. Heavy results (todo.heavy) are worked on one at a time, and a
// batch is written once weight (nil for none) says it holds batchBytes, so
// neither the results in flight nor a batch grows with a result's size.
func runPhase[T any](ctx context.Context, d *DB, opts EnrichOptions, phase string, list []todo, work func(todo, func(T)), weight func(T) int, write func(*sql.Tx, T) error) error {
	workers := opts.Workers
	if workers <= 0 {
		workers = runtime.NumCPU()
	}
	started := time.Now()
	jobs := make(chan todo)
	outs := make(chan T, 4)
	heavy := make(chan struct{}, 1)
	var done atomic.Int64
	var wg sync.WaitGroup
	emit := func(o T) { outs <- o }
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for t := range jobs {
				if t.heavy() {
					heavy <- struct{}{}
					work(t, emit)
					// Its outputs are handed over: what the result held
					// is garbage, collected before the next heavy read.
					runtime.GC()
					<-heavy
				} else {
					work(t, emit)
				}
				done.Add(1)
			}
		}()
	}
	go func() {
		defer close(jobs)
		for _, t := range list {
			select {
			case jobs <- t:
			case <-ctx.Done():
				return
			}
		}
	}()
	go func() { wg.Wait(); close(outs) }()
	pg := Progress{Phase: phase, ItemsTotal: len(list)}
	const batch = 256
	const batchBytes = 4 << 20
	var pending []T
	pendingBytes := 0
	var firstErr error
	flush := func() {
		if len(pending) == 0 || firstErr != nil {
			pending, pendingBytes = pending[:0], 0
			return
		}
		tx, err := d.db.BeginTx(ctx, nil)
		if err != nil {
			firstErr = fmt.Errorf("sessions: %s phase: %w", phase, err)
			return
		}
		defer tx.Rollback()
		for _, o := range pending {
			if err := write(tx, o); err != nil {
				firstErr = fmt.Errorf("sessions: %s phase: %w", phase, err)
				return
			}
		}
		if err := tx.Commit(); err != nil {
			firstErr = fmt.Errorf("sessions: %s phase: %w", phase, err)
			return
		}
		// Done counts results whose outputs are all emitted; a result's last
		// outputs may still wait for the next batch.
		pg.Items = min(int(done.Load()), len(list))
		pg.Elapsed = time.Since(started)
		if opts.Progress != nil {
			opts.Progress(pg)
		}
		clear(pending)
		pending, pendingBytes = pending[:0], 0
	}
	for o := range outs {
		pending = append(pending, o)
		if weight != nil {
			pendingBytes += weight(o)
		}
		if len(pending) >= batch || pendingBytes >= batchBytes {
			flush()
		}
	}
	flush()
	if firstErr != nil {
		return firstErr
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	// Every output is written: the last report counts every result.
	if pg.Items != len(list) && opts.Progress != nil {
		pg.Items, pg.Elapsed = len(list), time.Since(started)
		opts.Progress(pg)
	}
	return nil
}

// The search queries: every match's bm25 rank is computed (FTS5's rank
// column), a result's parts (searchParts) fold into the result with their
// best rank, then the chosen order is applied over the joined rows. Results
// deleted since their text was indexed drop out in the join.
const (
	searchRanked = `WITH m AS (SELECT CASE WHEN rowid < 0 THEN (-rowid) >> 16 ELSE rowid END AS id, MIN(rank) AS score
FROM result_fts WHERE result_fts MATCH ?1 GROUP BY 1)
SELECT ` + resultFields + ` FROM m JOIN tool_results r ON r.id = m.id` + resultJoins
	searchUnranked = `WITH m AS (SELECT DISTINCT CASE WHEN rowid < 0 THEN (-rowid) >> 16 ELSE rowid END AS id
FROM result_fts WHERE result_fts MATCH ?1)
SELECT ` + resultFields + ` FROM m JOIN tool_results r ON r.id = m.id` + resultJoins
	searchByRelevance = searchRanked + `
ORDER BY m.score, r.rank_tokens DESC, r.id LIMIT ?2 OFFSET ?3`
	searchByTokens = searchUnranked + `
ORDER BY r.rank_tokens DESC, r.id LIMIT ?2 OFFSET ?3`
	searchBySource = searchUnranked + `
ORDER BY r.session_id, r.src_offset, r.src_index LIMIT ?2 OFFSET ?3`
)

// Search returns the results whose redacted text matches an FTS5 query, in
// the given order (relevance when empty), at most limit of them (100 when
// limit <= 0). Only results the search phase has reached can match.
// SearchPage pages through the same list.
func (d *DB) Search(ctx context.Context, query string, order Order, limit int) ([]ResultRow, error) {
	return d.SearchPage(ctx, SearchFilter{Query: query, Order: order, Limit: limit})
}

// SearchFilter is one page of a full-text search.
type SearchFilter struct {
	// Query is an FTS5 query (the window quotes each word as a phrase).
	Query string
	// Order is relevance (empty), OrderTokens or OrderSource.
	Order Order
	// Limit caps the page (100 when <= 0); Offset skips that many matches.
	Limit, Offset int
}

// SearchPage returns one page of the results whose redacted text matches
// f.Query, in f.Order; CountSearch counts the whole list.
func (d *DB) SearchPage(ctx context.Context, f SearchFilter) ([]ResultRow, error) {
	query, order, limit := f.Query, f.Order, f.Limit
	if limit <= 0 {
		limit = 100
	}
	q := searchByRelevance
	switch order {
	case OrderTokens:
		q = searchByTokens
	case OrderSource:
		q = searchBySource
	}
	// The query is not echoed: people search for values they would not
	// want in a log.
	return d.queryResults(ctx, "search", q, query, limit, max(f.Offset, 0))
}
