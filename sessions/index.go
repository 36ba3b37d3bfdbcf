package sessions

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"spillscope/retention"
	"spillscope/retention/imagecost"
	"spillscope/retention/links"
)

// Progress reports how far a phase has got. The structure phase counts files
// and bytes; the token and search phases count results.
type Progress struct {
	Phase      string        `json:"phase"`
	Files      int           `json:"files"`
	FilesTotal int           `json:"filesTotal"`
	Bytes      int64         `json:"bytes"`
	BytesTotal int64         `json:"bytesTotal"`
	Items      int           `json:"items"`
	ItemsTotal int           `json:"itemsTotal"`
	Elapsed    time.Duration `json:"elapsed"`
}

// Rate is the bytes read per second so far.
func (p Progress) Rate() float64 {
	if p.Elapsed <= 0 {
		return 0
	}
	return float64(p.Bytes) / p.Elapsed.Seconds()
}

// Phase names reported in Progress.
const (
	PhaseStructure = "structure"
	PhaseTokens    = "tokens"
	PhaseSearch    = "search"
	PhaseSummaries = "summaries"
)

// Summary is what the index holds for a set of roots (totals), plus what the
// last pass changed. Field names are the CLI's.
type Summary struct {
	Files            int     `json:"files"`
	Bytes            int64   `json:"bytes"`
	Sessions         int     `json:"sessions"`
	ToolResults      int     `json:"toolResults"`
	ToolResultImages int     `json:"toolResultImages"`
	SpillNotices     int     `json:"spillNotices"`
	Diagnostics      int     `json:"diagnostics"`
	ChangedFiles     int     `json:"changedFiles"`
	Seconds          float64 `json:"seconds"`
	// PerHarness splits the totals by harness name (every registered
	// harness is listed, with zeros where the roots hold none of its files).
	PerHarness map[string]HarnessTotals `json:"perHarness"`
}

// HarnessTotals is one harness's share of a Summary.
type HarnessTotals struct {
	Files            int `json:"files"`
	Sessions         int `json:"sessions"`
	ToolResults      int `json:"toolResults"`
	ToolResultImages int `json:"toolResultImages"`
	SpillNotices     int `json:"spillNotices"`
	Diagnostics      int `json:"diagnostics"`
}

// IndexOptions tune a structure pass.
type IndexOptions struct {
	// Progress, when set, is called after each file (and at most every
	// 100 ms for very large ones is not needed: files are the unit).
	Progress func(Progress)
	// OnChange, when set, is called after each file the pass wrote or
	// dropped, and after each it must read again (Retry), with the rows
	// it touched: a watcher tells the window which lists to reload.
	OnChange func(FileChange)
}

// FileChange is what one source's pass did to the index.
type FileChange struct {
	Path string `json:"path"`
	// Gone: the file left the index (deleted, or no harness reads it now).
	Gone bool `json:"gone,omitempty"`
	// Retry: the source changed under the read; nothing of this pass was
	// written, and a later pass reads it again.
	Retry bool `json:"retry,omitempty"`
	// Sessions are the session rows the pass wrote to or removed.
	Sessions []int64 `json:"sessions,omitempty"`
	// Results are the result rows added, or whose content changed (their
	// token count and search terms are redone).
	Results []int64 `json:"results,omitempty"`
}

type fileRow struct {
	id          int64
	path, root  string
	harness     string
	size, mtime int64
	cursor      string
}

type candidate struct {
	path, root, harness string
	size, mtime         int64
}

// CleanRoots makes roots absolute (NormalizeRoot) and checks that they
// exist and that the database is not inside any of them (nothing is ever
// written under a session root).
func (d *DB) CleanRoots(roots []string) ([]string, error) {
	return cleanRoots(d.path, roots, d.env)
}

// CheckDBPath refuses a database path inside any session root. Call it
// before Open: opening creates the file.
func CheckDBPath(dbPath string, roots []string) error {
	abs, err := filepath.Abs(dbPath)
	if err != nil {
		return fmt.Errorf("sessions: database path %q: %w", dbPath, err)
	}
	_, err = cleanRoots(abs, roots, SystemEnv())
	return err
}

func cleanRoots(dbPath string, roots []string, env Env) ([]string, error) {
	out := make([]string, 0, len(roots))
	attaches := filepath.Join(filepath.Dir(dbPath), "attachments")
	for _, r := range roots {
		abs, err := NormalizeRoot(r, env)
		if err != nil {
			return nil, err
		}
		st, err := os.Stat(abs)
		if err != nil {
			return nil, fmt.Errorf("sessions: root %q: %w", r, err)
		}
		if !st.IsDir() {
			return nil, fmt.Errorf("sessions: root %q is not a folder", r)
		}
		_, dbIn := RootOf(dbPath, []string{abs})
		_, attIn := RootOf(attaches, []string{abs})
		if dbIn || attIn {
			return nil, fmt.Errorf("%w: %s is under %s", ErrDBInsideRoot, dbPath, abs)
		}
		out = append(out, abs)
	}
	return out, nil
}

// realPath resolves symlinks of the longest existing prefix of p.
func realPath(p string) string {
	p = filepath.Clean(p)
	rest := ""
	for q := p; ; q = filepath.Dir(q) {
		if r, err := filepath.EvalSymlinks(q); err == nil {
			return filepath.Join(r, rest)
		}
		if filepath.Dir(q) == q {
			return p
		}
		rest = filepath.Join(filepath.Base(q), rest)
	}
}

// RootOf reports the root of roots that path lies in, comparing both as
// written and with symlinks resolved on each side, so no spelling of a
// session folder slips past: the one check for every file the app writes
// (the index, the attachment store, an export).
func RootOf(path string, roots []string) (string, bool) {
	p, pr := filepath.Clean(path), realPath(path)
	for _, r := range roots {
		if r == "" {
			continue
		}
		if within(p, filepath.Clean(r)) || within(pr, realPath(r)) {
			return r, true
		}
	}
	return "", false
}

// within reports whether p is root or inside it.
func within(p, root string) bool {
	if p == root {
		return true
	}
	r := root
	if !strings.HasSuffix(r, string(filepath.Separator)) {
		r += string(filepath.Separator)
	}
	return strings.HasPrefix(p, r)
}

// Index runs the structure phase over roots: every session file found is
// brought up to date (unchanged files cost one stat), files gone from disk
// leave the index, and the totals for roots are returned. Token estimates
// and full-text search are separate phases (Enrich).
func (d *DB) Index(ctx context.Context, roots []string, opts IndexOptions) (Summary, error) {
	started := time.Now()
	// One structure pass at a time: two passes resuming one file from the
	// same cursor would both add what was appended.
	d.passMu.Lock()
	defer d.passMu.Unlock()
	roots, err := d.CleanRoots(roots)
	if err != nil {
		return Summary{}, err
	}
	prev, err := d.fileRows(ctx)
	if err != nil {
		return Summary{}, err
	}
	var cands []candidate
	seen := map[string]bool{}
	var total int64
	for _, root := range roots {
		filepath.WalkDir(root, func(path string, e fs.DirEntry, err error) error {
			if err != nil {
				// An unreadable folder is skipped; its files cannot be listed
				// to be reported one by one.
				if e != nil && e.IsDir() && path != root {
					return fs.SkipDir
				}
				return nil
			}
			if e.IsDir() {
				if path != root && e.Name() == ".git" {
					return fs.SkipDir
				}
				return nil
			}
			if !e.Type().IsRegular() || seen[path] {
				return nil
			}
			fi, err := e.Info()
			if err != nil {
				return nil
			}
			c, ok := d.candidateFor(path, root, fi, prev)
			if !ok {
				return nil
			}
			seen[path] = true
			cands = append(cands, c)
			total += c.size
			return nil
		})
	}
	build, err := d.deferIndexes(ctx, prev)
	if err != nil {
		return Summary{}, err
	}
	changed, err := d.indexCandidates(ctx, cands, prev, roots, total, started, opts)
	if build != nil {
		err = errors.Join(err, build())
	}
	if err != nil {
		return Summary{}, err
	}
	gone, err := d.dropMissing(ctx, roots, seen, prev, opts.OnChange)
	if err != nil {
		return Summary{}, err
	}
	t, err := d.Totals(ctx, roots)
	if err != nil {
		return Summary{}, err
	}
	t.ChangedFiles = changed + gone
	t.Seconds = time.Since(started).Seconds()
	return t, nil
}

// candidateFor is how a pass sees one file found under root: an unchanged
// file keeps the harness that read it (one stat, no read, unless the
// harness says a newer file took its place); anything else is detected
// afresh. ok is false when no harness reads the file.
func (d *DB) candidateFor(path, root string, fi fs.FileInfo, prev map[string]fileRow) (candidate, bool) {
	c := candidate{path: path, root: root, size: fi.Size(), mtime: fi.ModTime().UnixNano()}
	if r, ok := prev[path]; ok {
		if size, mtime := changeStamp(r.harness, path, c.size, c.mtime); r.size == size && r.mtime == mtime {
			if h, ok := LookupHarness(r.harness); ok && !superseded(h, path) {
				c.harness = r.harness
				c.size, c.mtime = size, mtime
				return c, true
			}
		}
	}
	if d.wasUnclaimed(path, c.size, c.mtime) {
		return c, false
	}
	rel, _ := filepath.Rel(root, path)
	probe := &Probe{Path: path, Rel: filepath.ToSlash(rel)}
	c.harness = detect(probe)
	probe.release()
	if c.harness == "" {
		d.markUnclaimed(path, c.size, c.mtime)
		return c, false
	}
	c.size, c.mtime = changeStamp(c.harness, path, c.size, c.mtime)
	return c, true
}

// indexCandidates brings each candidate up to date, reporting progress by
// files and bytes, and returns how many files it wrote.
func (d *DB) indexCandidates(ctx context.Context, cands []candidate, prev map[string]fileRow, roots []string, total int64, started time.Time, opts IndexOptions) (int, error) {
	changed := 0
	pg := Progress{Phase: PhaseStructure, FilesTotal: len(cands), BytesTotal: total}
	lastReport := time.Now()
	b := &writeBatch{d: d, onChange: opts.OnChange}
	defer b.rollback()
	for _, c := range cands {
		if err := ctx.Err(); err != nil {
			return 0, errors.Join(err, b.commit())
		}
		if b.due(c.size) {
			if err := b.commit(); err != nil {
				return 0, err
			}
		}
		var pr *fileRow
		if r, ok := prev[c.path]; ok {
			pr = &r
		}
		base := pg.Bytes
		onRead := func(done int64) {
			// Mid-file progress, so one huge transcript does not stall the bar.
			if opts.Progress == nil || time.Since(lastReport) < 100*time.Millisecond {
				return
			}
			lastReport = time.Now()
			q := pg
			q.Bytes, q.Elapsed = base+min(done, c.size), time.Since(started)
			opts.Progress(q)
		}
		ch, wrote, err := d.indexFileIn(ctx, b, c, pr, roots, onRead)
		if err != nil {
			// What the batch wrote before this file stands unless the
			// file's own write failed (writeFile dropped the batch).
			return 0, errors.Join(err, b.commit())
		}
		if wrote {
			changed++
		}
		if wrote || ch.Retry {
			b.report(ch)
		}
		pg.Files++
		pg.Bytes += c.size
		pg.Elapsed = time.Since(started)
		if opts.Progress != nil {
			lastReport = time.Now()
			opts.Progress(pg)
		}
	}
	if err := b.commit(); err != nil {
		return 0, err
	}
	return changed, nil
}

// Batch bounds: how long a batch may hold the write lock before the next
// file, how many files it gathers, and the size from which a file starts a
// batch of its own (its read would otherwise hold the lock).
const (
	batchAge     = 100 * time.Millisecond
	batchFiles   = 64
	batchBigFile = 4 << 20
)

// writeBatch is the transaction a pass writes its files in, several at a
// time: one commit per file wrote each file's share of every index page
// into the WAL again (a third of the structure pass over many small
// transcripts). A file that raced another pass writes nothing and the
// batch goes on; a file whose write fails takes the batch with it (no
// savepoint per file: its statement journal cost more than the commits
// saved). Changes are reported once committed. The transaction ignores
// the pass's cancellation (checked between files) so what was written is
// committed.
type writeBatch struct {
	d        *DB
	tx       *sql.Tx
	sc       *stmtCache
	began    time.Time
	files    int
	pending  []FileChange
	onChange func(FileChange)
}

// due reports whether the open batch should be committed before the next
// file, of size bytes, is read.
func (b *writeBatch) due(size int64) bool {
	return b.tx != nil && (b.files >= batchFiles || time.Since(b.began) >= batchAge || size >= batchBigFile)
}

// begin opens the batch's transaction if none is open.
func (b *writeBatch) begin(ctx context.Context) error {
	if b.tx != nil {
		return nil
	}
	ctx = context.WithoutCancel(ctx)
	tx, err := b.d.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	b.tx, b.sc, b.began, b.files = tx, &stmtCache{ctx: ctx, d: b.d, tx: tx}, time.Now(), 0
	return nil
}

// report queues a file's change for after the commit (at once when no
// transaction is open: a retry wrote nothing).
func (b *writeBatch) report(ch FileChange) {
	if b.onChange == nil {
		return
	}
	if b.tx == nil {
		b.onChange(ch)
		return
	}
	b.pending = append(b.pending, ch)
}

// commit ends the open transaction, if any, and reports its changes.
func (b *writeBatch) commit() error {
	if b.tx != nil {
		b.sc.close()
		err := b.tx.Commit()
		b.tx, b.sc = nil, nil
		if err != nil {
			b.pending = nil
			return fmt.Errorf("sessions: index: %w", err)
		}
	}
	for _, ch := range b.pending {
		b.onChange(ch)
	}
	b.pending = nil
	return nil
}

// rollback drops an open transaction (a pass that returned early).
func (b *writeBatch) rollback() {
	if b.tx != nil {
		b.sc.close()
		b.tx.Rollback()
		b.tx, b.sc, b.pending = nil, nil, nil
	}
}

// IndexFiles brings the named files up to date as a structure pass does,
// through the same per-file code, without walking the roots: a watcher
// names the files that changed. A path gone from disk leaves the index (a
// folder gone: every file under it). A path no harness reads (a
// database's -wal, a message file beside a storage session) has the
// sources under its root whose harness folds other files into their stamp
// (ChangeStamper) checked too. Paths outside every root are ignored. It
// returns how many files it wrote or dropped; token and search phases are
// Enrich's.
func (d *DB) IndexFiles(ctx context.Context, roots, paths []string, opts IndexOptions) (int, error) {
	started := time.Now()
	d.passMu.Lock()
	defer d.passMu.Unlock()
	roots, err := d.CleanRoots(roots)
	if err != nil {
		return 0, err
	}
	prev := map[string]fileRow{}
	var cands []candidate
	var gone []fileRow
	seen := map[string]bool{}
	recheck := map[string]bool{}
	var total int64
	add := func(c candidate) {
		seen[c.path] = true
		cands = append(cands, c)
		total += c.size
	}
	for _, p := range paths {
		p = filepath.Clean(p)
		root := rootOf(roots, p)
		if root == "" || seen[p] || underGit(root, p) {
			continue
		}
		fi, err := os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			rows, err := d.fileRowsUnder(ctx, p)
			if err != nil {
				return 0, err
			}
			gone = append(gone, rows...)
			continue
		}
		if err != nil || !fi.Mode().IsRegular() {
			continue
		}
		if err := d.fileRowInto(ctx, p, prev); err != nil {
			return 0, err
		}
		if c, ok := d.candidateFor(p, root, fi, prev); ok {
			add(c)
		} else {
			recheck[root] = true
		}
	}
	for root := range recheck {
		rows, err := d.stampedRows(ctx, root)
		if err != nil {
			return 0, err
		}
		for _, r := range rows {
			if seen[r.path] {
				continue
			}
			prev[r.path] = r
			fi, err := os.Lstat(r.path)
			if err != nil {
				if errors.Is(err, fs.ErrNotExist) {
					gone = append(gone, r)
				}
				continue
			}
			if c, ok := d.candidateFor(r.path, root, fi, prev); ok {
				add(c)
			}
		}
	}
	changed, err := d.indexCandidates(ctx, cands, prev, roots, total, started, opts)
	if err != nil {
		return 0, err
	}
	dropped, err := d.dropFiles(ctx, gone, opts.OnChange)
	return changed + dropped, err
}

// underGit reports whether path lies in a .git folder below root, which
// a walk of the roots skips.
func underGit(root, path string) bool {
	rel, err := filepath.Rel(root, path)
	if err != nil {
		return false
	}
	for _, part := range strings.Split(filepath.Dir(rel), string(filepath.Separator)) {
		if part == ".git" {
			return true
		}
	}
	return false
}

// rootOf is the first of roots a path lies under, as a walk of the roots
// in order would find it; "" when none.
func rootOf(roots []string, path string) string {
	for _, r := range roots {
		if within(path, r) {
			return r
		}
	}
	return ""
}

// wasUnclaimed reports whether no harness claimed the file, unchanged
// since, in an earlier pass of this DB.
func (d *DB) wasUnclaimed(path string, size, mtime int64) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	v, ok := d.unclaimed[path]
	return ok && v == [2]int64{size, mtime}
}

func (d *DB) markUnclaimed(path string, size, mtime int64) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.unclaimed == nil {
		d.unclaimed = map[string][2]int64{}
	}
	d.unclaimed[path] = [2]int64{size, mtime}
}

func (d *DB) fileRows(ctx context.Context) (map[string]fileRow, error) {
	rows, err := d.scanFiles(ctx, fileColumns)
	if err != nil {
		return nil, err
	}
	out := make(map[string]fileRow, len(rows))
	for _, r := range rows {
		out[r.path] = r
	}
	return out, nil
}

const fileColumns = `SELECT id, path, root, harness, size, mtime_ns, cursor FROM files`

// fileRowInto adds the stored row of one path, if any, to rows.
func (d *DB) fileRowInto(ctx context.Context, path string, rows map[string]fileRow) error {
	var r fileRow
	err := d.db.QueryRowContext(ctx, fileColumns+` WHERE path = ?`, path).Scan(&r.id, &r.path, &r.root, &r.harness, &r.size, &r.mtime, &r.cursor)
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("sessions: read files: %w", err)
	}
	rows[path] = r
	return nil
}

// fileRowsUnder are the stored rows of path and of every file under it
// (path as a folder).
func (d *DB) fileRowsUnder(ctx context.Context, path string) ([]fileRow, error) {
	dir := path + string(filepath.Separator)
	// Every path under dir sorts between dir and dir with its separator
	// bumped by one, so the range is read through the path index.
	end := path + string(rune(filepath.Separator+1))
	return d.scanFiles(ctx, fileColumns+` WHERE path = ? OR (path >= ? AND path < ?)`, path, dir, end)
}

// stampedRows are the stored sources under root whose harness folds other
// files into their change stamp.
func (d *DB) stampedRows(ctx context.Context, root string) ([]fileRow, error) {
	var names []string
	for _, h := range Harnesses() {
		if _, ok := h.(ChangeStamper); ok {
			names = append(names, h.Name())
		}
	}
	nj, _ := json.Marshal(names)
	return d.scanFiles(ctx, fileColumns+` WHERE root = ? AND harness IN (SELECT value FROM json_each(?))`, root, string(nj))
}

func (d *DB) scanFiles(ctx context.Context, query string, args ...any) ([]fileRow, error) {
	rows, err := d.db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("sessions: read files: %w", err)
	}
	defer rows.Close()
	var out []fileRow
	for rows.Next() {
		var r fileRow
		if err := rows.Scan(&r.id, &r.path, &r.root, &r.harness, &r.size, &r.mtime, &r.cursor); err != nil {
			return nil, fmt.Errorf("sessions: read files: %w", err)
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// dropMissing removes files under roots that the walk did not find (or no
// harness reads any more).
func (d *DB) dropMissing(ctx context.Context, roots []string, seen map[string]bool, prev map[string]fileRow, onChange func(FileChange)) (int, error) {
	var gone []fileRow
	for p, r := range prev {
		if seen[p] {
			continue
		}
		for _, root := range roots {
			if within(p, root) {
				gone = append(gone, r)
				break
			}
		}
	}
	return d.dropFiles(ctx, gone, onChange)
}

// dropFiles removes files from the index in one transaction, their
// sessions and results with them, reporting each to onChange (nil: none).
func (d *DB) dropFiles(ctx context.Context, gone []fileRow, onChange func(FileChange)) (int, error) {
	if len(gone) == 0 {
		return 0, nil
	}
	tx, err := d.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, fmt.Errorf("sessions: drop missing files: %w", err)
	}
	defer tx.Rollback()
	changes := make([]FileChange, 0, len(gone))
	for _, r := range gone {
		ch := FileChange{Path: r.path, Gone: true}
		if onChange != nil {
			rows, err := tx.QueryContext(ctx, `SELECT id FROM sessions WHERE file_id = ?`, r.id)
			if err != nil {
				return 0, fmt.Errorf("sessions: drop missing file: %w", err)
			}
			for rows.Next() {
				var id int64
				if err := rows.Scan(&id); err != nil {
					rows.Close()
					return 0, fmt.Errorf("sessions: drop missing file: %w", err)
				}
				ch.Sessions = append(ch.Sessions, id)
			}
			rows.Close()
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM files WHERE id = ?`, r.id); err != nil {
			return 0, fmt.Errorf("sessions: drop missing file: %w", err)
		}
		changes = append(changes, ch)
	}
	if err := tx.Commit(); err != nil {
		return 0, fmt.Errorf("sessions: drop missing files: %w", err)
	}
	if onChange != nil {
		for _, ch := range changes {
			onChange(ch)
		}
	}
	return len(gone), nil
}

// Indexed reports whether the index holds any file yet (a pass has run).
func (d *DB) Indexed(ctx context.Context) (bool, error) {
	var ok bool
	if err := d.db.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM files)`).Scan(&ok); err != nil {
		return false, fmt.Errorf("sessions: indexed: %w", err)
	}
	return ok, nil
}

// Totals counts what the index holds for files under roots, in all and per
// harness. Sessions are distinct harness session ids (a subagent transcript
// belongs to its parent session; each retained record of this project is
// its own session, as the window lists it); images are those stored as
// attachments (an image whose base64 is invalid is a diagnostic).
func (d *DB) Totals(ctx context.Context, roots []string) (Summary, error) {
	rj, _ := json.Marshal(roots)
	rows, err := d.db.QueryContext(ctx, `
WITH f AS (SELECT id, size, harness FROM files WHERE root IN (SELECT value FROM json_each(?))),
fc AS (SELECT harness, COUNT(*) AS n, COALESCE(SUM(size), 0) AS b FROM f GROUP BY harness),
sc AS (SELECT f.harness, COUNT(DISTINCT s.session_id) AS n FROM sessions s JOIN f ON f.id = s.file_id GROUP BY f.harness),
rc AS (SELECT f.harness, COUNT(*) AS n, COUNT(r.spill_kind) AS k FROM tool_results r JOIN f ON f.id = r.file_id GROUP BY f.harness),
ic AS (SELECT f.harness, COUNT(*) AS n FROM result_attachments ra JOIN tool_results r ON r.id = ra.result_id JOIN f ON f.id = r.file_id GROUP BY f.harness),
dc AS (SELECT f.harness, COUNT(*) AS n FROM diagnostics dg JOIN f ON f.id = dg.file_id GROUP BY f.harness)
SELECT fc.harness, fc.n, fc.b, COALESCE(sc.n, 0), COALESCE(rc.n, 0), COALESCE(ic.n, 0), COALESCE(rc.k, 0), COALESCE(dc.n, 0)
FROM fc LEFT JOIN sc USING (harness) LEFT JOIN rc USING (harness) LEFT JOIN ic USING (harness) LEFT JOIN dc USING (harness)`, string(rj))
	if err != nil {
		return Summary{}, fmt.Errorf("sessions: totals: %w", err)
	}
	defer rows.Close()
	s := Summary{PerHarness: map[string]HarnessTotals{}}
	for _, h := range Harnesses() {
		s.PerHarness[h.Name()] = HarnessTotals{}
	}
	for rows.Next() {
		var name string
		var h HarnessTotals
		var bytes int64
		if err := rows.Scan(&name, &h.Files, &bytes, &h.Sessions, &h.ToolResults, &h.ToolResultImages, &h.SpillNotices, &h.Diagnostics); err != nil {
			return Summary{}, fmt.Errorf("sessions: totals: %w", err)
		}
		s.PerHarness[name] = h
		s.Files += h.Files
		s.Bytes += bytes
		s.Sessions += h.Sessions
		s.ToolResults += h.ToolResults
		s.ToolResultImages += h.ToolResultImages
		s.SpillNotices += h.SpillNotices
		s.Diagnostics += h.Diagnostics
	}
	if err := rows.Err(); err != nil {
		return Summary{}, fmt.Errorf("sessions: totals: %w", err)
	}
	return s, nil
}

// resultExtra is what the indexer derives from a result's blocks before
// dropping them: stored attachments, link views, the spill file and a
// signature of the content.
type resultExtra struct {
	attach []attachRef
	links  []linkRow
	spill  FileCheck
	blocks int
	sig    string
}

type attachRef struct {
	block int
	att   Attachment
}

type linkRow struct {
	block                          int
	shown, reason, parameter, host string
	ordinal                        int
}

// Attachment is one stored image.
type Attachment struct {
	SHA256    string `json:"sha256"`
	MediaType string `json:"mediaType"`
	Ext       string `json:"ext"`
	Width     int    `json:"width"`
	Height    int    `json:"height"`
	Bytes     int64  `json:"bytes"`
}

// indexFile brings one candidate up to date; wrote says whether it wrote
// the file's rows, and the change names what it touched.
func (d *DB) indexFile(ctx context.Context, c candidate, prev *fileRow, roots []string, onRead func(int64)) (FileChange, bool, error) {
	b := &writeBatch{d: d}
	defer b.rollback()
	ch, wrote, err := d.indexFileIn(ctx, b, c, prev, roots, onRead)
	return ch, wrote, errors.Join(err, b.commit())
}

// indexFileIn is indexFile writing in the batch b.
func (d *DB) indexFileIn(ctx context.Context, b *writeBatch, c candidate, prev *fileRow, roots []string, onRead func(int64)) (ch FileChange, wrote bool, err error) {
	ch.Path = c.path
	if prev != nil && prev.size == c.size && prev.mtime == c.mtime && prev.harness == c.harness {
		if prev.root == c.root {
			return ch, false, nil
		}
		// Found under another root (nested roots): the rows stay, the file
		// only moves to the root it was found under this time.
		err := b.begin(ctx)
		if err == nil {
			_, err = b.sc.ExecContext(ctx, `UPDATE files SET root = ? WHERE id = ?`, c.root, prev.id)
		}
		if err != nil {
			return ch, false, fmt.Errorf("sessions: index %s: %w", c.path, err)
		}
		return ch, false, nil
	}
	h, err := harnessFor(c.harness)
	if err != nil {
		return ch, false, err
	}
	src := Source{Path: c.path, Root: c.root, Size: c.size, ModTime: c.mtime, Progress: onRead, Env: d.env}
	if prev != nil && prev.harness == c.harness {
		src.Cursor = prev.cursor
		id := prev.id
		src.KnownCalls = func() (map[string]string, error) { return d.callNames(ctx, id) }
	}
	p := &Parsed{Transient: true}
	var extras []resultExtra
	rules := map[[2]string]FileRule{}
	p.OnResult = func(r *ToolResult) {
		extras = append(extras, d.processResult(r, c, p, roots, rules))
	}
	st, err := h.Read(ctx, src, p)
	if err != nil {
		return ch, false, err
	}
	if st.Retry {
		// Nothing of a torn read is kept; the stored row still has the
		// earlier stamp, so the next pass reads the source again.
		ch.Retry = true
		return ch, false, nil
	}
	if src.Cursor == "" {
		// Nothing of an earlier pass (or of another harness) carries over.
		st.Mode = ReadAll
	}
	err = d.writeFile(ctx, b, c, prev, st, p, extras, &ch)
	if errors.Is(err, errPassRaced) {
		// Another pass (another process on the same index) wrote the file
		// since this one read its row: what it wrote stands, and the next
		// pass goes on from there.
		return FileChange{Path: c.path, Retry: true}, false, nil
	}
	return ch, err == nil, err
}

// errPassRaced is a file row that changed between a pass reading it and
// writing it.
var errPassRaced = errors.New("sessions: the file was indexed by another pass meanwhile")

// errText is an error's message without the path (the diagnostic already
// names the file).
func errText(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Op + ": " + pe.Err.Error()
	}
	return err.Error()
}

func (d *DB) callNames(ctx context.Context, fileID int64) (map[string]string, error) {
	rows, err := d.db.QueryContext(ctx, `SELECT c.call_id, c.name FROM tool_calls c JOIN sessions s ON s.id = c.session_id WHERE s.file_id = ?`, fileID)
	if err != nil {
		return nil, fmt.Errorf("sessions: read tool calls: %w", err)
	}
	defer rows.Close()
	m := map[string]string{}
	for rows.Next() {
		var id, name string
		if err := rows.Scan(&id, &name); err != nil {
			return nil, fmt.Errorf("sessions: read tool calls: %w", err)
		}
		m[id] = name
	}
	return m, rows.Err()
}

// processResult stores the result's images, classifies its links, resolves
// its spill file, and drops the blocks: the text is read back from the
// source when needed, never held for a whole file.
// rules holds the file rule of each (session, notice kind) met so far in
// this source, so a session with many notices builds it once.
func (d *DB) processResult(r *ToolResult, c candidate, p *Parsed, roots []string, rules map[[2]string]FileRule) resultExtra {
	x := resultExtra{blocks: len(r.Blocks), sig: blockSig(r.Blocks)}
	sid := r.Session
	if sid == "" {
		sid = p.Session.ID
	}
	ref := d.sessionRef(c.harness, c.path, c.root, sid, roots)
	// Names are copied: a text may share a huge line's buffer (strIn),
	// which the rows, kept until the file is written, must not keep alive.
	for _, v := range links.Classify(r.Blocks) {
		if v.Kind != links.KindItself && v.Kind != "" {
			l := linkRow{block: v.Index, shown: v.Kind, reason: v.Reason, parameter: strings.Clone(v.Parameter)}
			if v.Index < len(r.Blocks) && v.Kind != links.KindMarker {
				l.host = strings.Clone(links.URIHost(r.Blocks[v.Index].URI))
			}
			x.links = append(x.links, l)
		}
	}
	for i, b := range r.Blocks {
		switch b.Type {
		case retention.TypeText:
			// Every URL, safe ones too (an empty reason): the audit counts
			// what reached the model as plain text. Names and hosts are
			// cloned so the row never keeps a huge line alive.
			for k, fd := range links.FindURLs(b.Text) {
				x.links = append(x.links, linkRow{block: i, shown: LinkInText, reason: fd.Reason, parameter: strings.Clone(fd.Parameter),
					host: strings.Clone(links.URIHost(links.FoundURI(b.Text, fd))), ordinal: k})
			}
		case retention.TypeImage:
			att, err := d.storeImage(b, ref, r.checkedBytes(i))
			if err != nil {
				p.Diag(r.Line, DiagBadImage, map[string]string{"callId": r.CallID, "block": fmt.Sprint(i), "detail": err.Error()})
				continue
			}
			x.attach = append(x.attach, attachRef{block: i, att: att})
		}
	}
	if r.Notice != nil {
		k := [2]string{sid, r.Notice.Kind}
		rule, ok := rules[k]
		if !ok {
			rule = RuleFor(ref, r.Notice.Kind)
			rules[k] = rule
		}
		x.spill = resolveSpill(*r.Notice, ref, rule)
	}
	r.Blocks, r.Arguments = nil, nil
	return x
}

// blockSig is a short checksum of a result's content as read, so a re-read
// result whose natural key matches tells whether its content changed (and
// its token count and search terms must be redone). CRC-32C (hardware
// accelerated) over length-prefixed fields, with the total size: a change
// detector, not a defence against a forger, whose worst outcome would be a
// stale count of their own result.
func blockSig(blocks []retention.Block) string {
	var crc uint32
	var n int64
	bp := sigBuffers.Get().(*[4 << 10]byte)
	defer sigBuffers.Put(bp)
	buf, num := bp[:], make([]byte, 0, 24)
	for _, b := range blocks {
		for _, f := range [...]string{b.Type, b.Text, b.MimeType, b.Data, b.Path, b.URI, b.Name} {
			num = append(strconv.AppendInt(num[:0], int64(len(f)), 10), ':')
			crc = crc32.Update(crc, castagnoli, num)
			n += int64(len(f))
			// Through a fixed buffer: never a copy of a whole long text.
			for len(f) > 0 {
				k := copy(buf, f)
				crc = crc32.Update(crc, castagnoli, buf[:k])
				f = f[k:]
			}
		}
		num = append(strconv.AppendInt(num[:0], int64(len(b.Raw)), 10), ':')
		crc = crc32.Update(crc, castagnoli, num)
		crc = crc32.Update(crc, castagnoli, b.Raw)
		n += int64(len(b.Raw))
	}
	num = strconv.AppendUint(num[:0], uint64(crc)|1<<32, 16)[1:]
	return string(strconv.AppendInt(append(num, '-'), n, 10))
}

// sigBuffers are blockSig's copy buffers.
var sigBuffers = sync.Pool{New: func() any { return new([4 << 10]byte) }}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// maxImageFile bounds an image block read from a path (a screenshot is a
// few MB; nothing larger is an image a model was shown).
const maxImageFile = 64 << 20

// streamImageBytes is the base64 size above which an image is stored
// straight from its base64 (StoreAttachmentFrom) instead of being decoded
// into memory first.
const streamImageBytes = 1 << 20

// storeImage writes an image block's bytes to the attachment store, once
// per content hash, and describes it. Bytes that are no known image are kept
// too (named by the declared subtype, else .bin), so the block still has an
// attachment row. An image given by path is read only as the file rule
// allows for its session. checked, when not nil, is b.Data decoded by the
// reader's check (checkImage), stored as it is.
func (d *DB) storeImage(b retention.Block, ref SessionRef, checked []byte) (Attachment, error) {
	var data []byte
	switch {
	case checked != nil:
		data = checked
	case len(b.Data) > streamImageBytes:
		r, err := imagecost.Base64Reader(b.Data)
		if err != nil {
			return Attachment{}, fmt.Errorf("%w: invalid base64", ErrImage)
		}
		a, _, err := StoreAttachmentFrom(d.attaches, r, StoreOptions{MediaType: b.MimeType, KeepUnknown: true})
		if errors.Is(err, imagecost.ErrBase64) {
			return Attachment{}, fmt.Errorf("%w: invalid base64", ErrImage)
		}
		return a, err
	case b.Data != "":
		// StoreAttachment hashes and writes the bytes and keeps none.
		bp := getImageBuffer()
		var err error
		data, err = imagecost.AppendBase64((*bp)[:0], b.Data)
		defer func() { putImageBuffer(bp, data) }()
		if err != nil {
			return Attachment{}, fmt.Errorf("%w: invalid base64", ErrImage)
		}
	case b.Path != "":
		var err error
		data, err = RuleFor(ref, "").ReadAllowed(b.Path, maxImageFile)
		if err != nil {
			return Attachment{}, fmt.Errorf("%w: %v", ErrImage, err)
		}
	default:
		return Attachment{}, fmt.Errorf("%w: no data and no path", ErrImage)
	}
	a, _, err := StoreAttachment(d.attaches, data, StoreOptions{MediaType: b.MimeType, KeepUnknown: true})
	return a, err
}

// AttachmentPath is where an attachment's bytes are stored.
func (d *DB) AttachmentPath(a Attachment) string {
	return filepath.Join(d.attaches, a.SHA256+"."+a.Ext)
}

// mergeSession combines what earlier passes stored with what this pass read:
// new non-empty facts win, times widen.
func mergeSession(old, s SessionInfo, c candidate) SessionInfo {
	pick := func(n, o string) string {
		if n != "" {
			return n
		}
		return o
	}
	out := SessionInfo{
		Harness: c.harness,
		ID:      pick(old.ID, s.ID),
		AgentID: pick(old.AgentID, s.AgentID),
		Project: pick(old.Project, s.Project),
		Cwd:     pick(old.Cwd, s.Cwd),
		Model:   pick(s.Model, old.Model),
		Route:   s.Route,
		Started: old.Started,
		Ended:   old.Ended,
		// A later pass's title (a rename) and description win. Both can
		// quote what the user typed, so a credential in them is masked
		// before it reaches the index.
		Title:            maskedLabel(pick(s.Title, old.Title)),
		Kind:             pick(s.Kind, old.Kind),
		AgentType:        maskedLabel(pick(s.AgentType, old.AgentType)),
		AgentDescription: maskedLabel(pick(s.AgentDescription, old.AgentDescription)),
	}
	if s.Started != "" && (out.Started == "" || s.Started < out.Started) {
		out.Started = s.Started
	}
	if s.Ended > out.Ended {
		out.Ended = s.Ended
	}
	if out.ID == "" {
		base := filepath.Base(c.path)
		out.ID = strings.TrimSuffix(strings.TrimSuffix(base, ".jsonl"), ".json")
	}
	if out.Project == "" {
		out.Project = filepath.Base(filepath.Dir(c.path))
	}
	return out
}

// maskedLabel is a session's name or description as stored: every
// credential value in it masked.
func maskedLabel(s string) string {
	m, _ := links.Mask(s)
	return m
}

// writeFile writes everything read from one source in the batch's
// transaction: all of it, or on an error nothing of the batch.
// Sessions and results are matched to what earlier passes stored by their
// natural keys (source and harness session id; session, call id and
// ordinal), so a re-read keeps every id, and a result whose content is
// unchanged keeps its token count and search terms.
//
// The file's row is written only if it is still the one the pass read
// (errPassRaced otherwise): a pass in another process that got there
// first has already added what this one would add again.
func (d *DB) writeFile(ctx context.Context, b *writeBatch, c candidate, prev *fileRow, st ReadState, p *Parsed, extras []resultExtra, ch *FileChange) error {
	if err := b.begin(ctx); err != nil {
		return fmt.Errorf("sessions: index %s: %w", c.path, err)
	}
	if err := d.writeRows(ctx, b.sc, c, prev, st, p, extras, ch); err != nil {
		if !errors.Is(err, errPassRaced) {
			// Part of the file may be written: the batch goes whole, and
			// the next pass reads its files again.
			b.rollback()
		}
		// A raced file wrote nothing (writeRows stops at its file row),
		// so the batch's other files stand.
		ch.Sessions, ch.Results = nil, nil
		return err
	}
	b.files++
	return nil
}

// writeRows is writeFile's work in the batch's transaction. It returns
// errPassRaced before writing anything.
func (d *DB) writeRows(ctx context.Context, sc *stmtCache, c candidate, prev *fileRow, st ReadState, p *Parsed, extras []resultExtra, ch *FileChange) error {
	var err error
	w := &fileWriter{ctx: ctx, tx: sc, sc: sc, c: c, mode: st.Mode, change: ch}
	now := time.Now().UTC().Format(time.RFC3339)
	if prev == nil {
		err = sc.QueryRowContext(ctx, `INSERT INTO files (path, root, harness, size, mtime_ns, cursor, indexed_at) VALUES (?, ?, ?, ?, ?, ?, ?)
ON CONFLICT (path) DO NOTHING RETURNING id`,
			c.path, c.root, c.harness, c.size, c.mtime, st.Cursor, now).Scan(&w.fileID)
		if errors.Is(err, sql.ErrNoRows) {
			return errPassRaced
		}
		w.fresh = err == nil
	} else {
		w.fileID = prev.id
		var res sql.Result
		res, err = sc.ExecContext(ctx, `UPDATE files SET root = ?, harness = ?, size = ?, mtime_ns = ?, cursor = ?, indexed_at = ?
WHERE id = ? AND harness = ? AND size = ? AND mtime_ns = ? AND cursor = ?`,
			c.root, c.harness, c.size, c.mtime, st.Cursor, now, w.fileID, prev.harness, prev.size, prev.mtime, prev.cursor)
		if err == nil {
			if n, _ := res.RowsAffected(); n != 1 {
				return errPassRaced
			}
		}
		if err == nil && prev.harness != c.harness {
			// Another harness reads the file now: the sessions the old one
			// made of it (and their results) are not this one's.
			_, err = sc.ExecContext(ctx, `DELETE FROM sessions WHERE file_id = ?`, w.fileID)
		}
	}
	if err != nil {
		return fmt.Errorf("sessions: index %s: %w", c.path, err)
	}
	steps := []func(*Parsed, []resultExtra) error{w.sessions, w.calls, w.usage, w.modelCalls, w.compactions, w.events, w.results, w.cuts,
		w.replacements, w.diagnostics, w.sessionTotals}
	for _, step := range steps {
		if err := step(p, extras); err != nil {
			return fmt.Errorf("sessions: index %s: %w", c.path, err)
		}
	}
	for row := range w.used {
		ch.Sessions = append(ch.Sessions, row)
	}
	ch.Sessions = append(ch.Sessions, w.removed...)
	return nil
}

// fileWriter writes one source's pass; its steps run in order in one
// transaction.
type fileWriter struct {
	ctx context.Context
	// tx and sc are the same: the transaction through its statements.
	tx     *stmtCache
	sc     *stmtCache
	c      candidate
	fileID int64
	mode   ReadMode
	// fresh says the file's row was made by this pass, so nothing of it
	// is stored yet: a whole read has no earlier rows to clear.
	fresh bool
	// primary is the source's own session row; byID the rows of its other
	// sessions (and the primary) by harness session id; used the rows this
	// pass wrote to.
	primary int64
	own     SessionInfo
	byID    map[string]int64
	used    map[int64]bool
	routes  map[int64]string
	// whole are the session rows a ReadChanged pass read whole.
	whole map[int64]bool
	// change collects the result rows added or changed; removed the
	// session rows deleted.
	change  *FileChange
	removed []int64
}

type storedSession struct {
	row int64
	SessionInfo
}

// sessions matches the pass's sessions to the stored ones: the source's
// own session is the file's first row (its id, once stored, stays), others
// by their harness session id. A session seen before whose route changed
// has its token counts redone.
func (w *fileWriter) sessions(p *Parsed, _ []resultExtra) error {
	stored, err := w.storedSessions()
	if err != nil {
		return err
	}
	w.byID, w.used, w.routes = map[string]int64{}, map[int64]bool{}, map[int64]string{}
	find := func(id string) *storedSession {
		for i := range stored {
			if stored[i].ID == id {
				return &stored[i]
			}
		}
		return nil
	}
	if !p.NotSession {
		old := find(p.Session.ID)
		if old == nil && len(p.Others) == 0 && len(stored) > 0 {
			old = &stored[0]
		}
		if w.primary, w.own, err = w.upsertSession(old, p.Session); err != nil {
			return err
		}
	}
	for _, o := range p.Others {
		if o.ID == "" {
			continue
		}
		if _, _, err := w.upsertSession(find(o.ID), o); err != nil {
			return err
		}
	}
	for _, id := range p.Gone {
		// Its results, calls, usage and compactions go with it (cascade).
		if s := find(id); s != nil && !w.used[s.row] {
			if _, err := w.tx.ExecContext(w.ctx, `DELETE FROM sessions WHERE id = ?`, s.row); err != nil {
				return err
			}
			w.removed = append(w.removed, s.row)
		}
	}
	w.whole = map[int64]bool{}
	if w.mode == ReadChanged {
		for _, id := range p.Whole {
			if row, ok := w.byID[id]; ok {
				w.whole[row] = true
			}
		}
	}
	if w.mode != ReadAll {
		return nil
	}
	for _, s := range stored {
		if !w.used[s.row] {
			if _, err := w.tx.ExecContext(w.ctx, `DELETE FROM sessions WHERE id = ?`, s.row); err != nil {
				return err
			}
			w.removed = append(w.removed, s.row)
		}
	}
	return nil
}

// storedSessions are the session rows an earlier pass made of the file,
// by row: none for a file new to the index.
func (w *fileWriter) storedSessions() ([]storedSession, error) {
	if w.fresh {
		return nil, nil
	}
	rows, err := w.tx.QueryContext(w.ctx, `SELECT id, session_id, agent_id, project, cwd, model, route, started_at, ended_at,
  title, transcript_kind, agent_type, agent_description FROM sessions WHERE file_id = ? ORDER BY id`, w.fileID)
	if err != nil {
		return nil, err
	}
	var stored []storedSession
	for rows.Next() {
		var s storedSession
		if err := rows.Scan(&s.row, &s.ID, &s.AgentID, &s.Project, &s.Cwd, &s.Model, &s.Route, &s.Started, &s.Ended,
			&s.Title, &s.Kind, &s.AgentType, &s.AgentDescription); err != nil {
			rows.Close()
			return nil, err
		}
		stored = append(stored, s)
	}
	rows.Close()
	return stored, rows.Err()
}

func (w *fileWriter) upsertSession(old *storedSession, s SessionInfo) (int64, SessionInfo, error) {
	var prior SessionInfo
	if old != nil {
		prior = old.SessionInfo
	}
	m := mergeSession(prior, s, w.c)
	route := m.Route
	if route == "" {
		route = imagecost.RouteForModel(m.Model)
	}
	var row int64
	if old == nil {
		err := w.tx.QueryRowContext(w.ctx, `INSERT INTO sessions (file_id, harness, session_id, agent_id, project, cwd, model, route, started_at, ended_at,
  title, transcript_kind, agent_type, agent_description)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`, w.fileID, w.c.harness, m.ID, m.AgentID, m.Project, m.Cwd, m.Model, route, m.Started, m.Ended,
			m.Title, m.Kind, m.AgentType, m.AgentDescription).Scan(&row)
		if err != nil {
			return 0, m, fmt.Errorf("session: %w", err)
		}
	} else {
		row = old.row
		if _, err := w.tx.ExecContext(w.ctx, `UPDATE sessions SET harness = ?, session_id = ?, agent_id = ?, project = ?, cwd = ?, model = ?, route = ?, started_at = ?, ended_at = ?,
  title = ?, transcript_kind = ?, agent_type = ?, agent_description = ? WHERE id = ?`,
			w.c.harness, m.ID, m.AgentID, m.Project, m.Cwd, m.Model, route, m.Started, m.Ended, m.Title, m.Kind, m.AgentType, m.AgentDescription, row); err != nil {
			return 0, m, fmt.Errorf("session: %w", err)
		}
		// A session seen before keeps its results: counts made on another
		// route than its own (its model line came later, or an earlier pass
		// saw none) are stale, so the token phase redoes them, and images
		// rank on the new route meanwhile.
		if _, err := w.tx.ExecContext(w.ctx, `UPDATE tool_results SET est_tokens = NULL, est_text_tokens = NULL, est_image_tokens = NULL, est_route = NULL
WHERE session_id = ? AND est_tokens IS NOT NULL AND COALESCE(est_route, '') <> ?`, row, route); err != nil {
			return 0, m, fmt.Errorf("route change: %w", err)
		}
		if old.Route != route {
			if err := reapprox(w.ctx, w.tx.tx, row, route); err != nil {
				return 0, m, fmt.Errorf("route change: %w", err)
			}
		}
	}
	m.Route = route
	w.byID[m.ID] = row
	w.used[row] = true
	w.routes[row] = route
	return row, m, nil
}

// sessionRow is the row of a session a record names ("" is the source's
// own), made on first mention when no pass declared it.
func (w *fileWriter) sessionRow(id string) (int64, string, error) {
	if id == "" || id == w.own.ID {
		if w.primary == 0 {
			row, m, err := w.upsertSession(nil, SessionInfo{})
			if err != nil {
				return 0, "", err
			}
			w.primary, w.own = row, m
		}
		return w.primary, w.own.Route, nil
	}
	if row, ok := w.byID[id]; ok {
		return row, w.routes[row], nil
	}
	var row int64
	var route string
	err := w.tx.QueryRowContext(w.ctx, `SELECT id, route FROM sessions WHERE file_id = ? AND session_id = ?`, w.fileID, id).Scan(&row, &route)
	if errors.Is(err, sql.ErrNoRows) {
		var m SessionInfo
		row, m, err = w.upsertSession(nil, SessionInfo{ID: id})
		route = m.Route
	}
	if err != nil {
		return 0, "", err
	}
	w.byID[id], w.used[row], w.routes[row] = row, true, route
	return row, route, nil
}

// clearsStored says a step drops what earlier passes stored of the file
// before writing this pass's rows: a whole read of a file seen before. Its
// deletes would find nothing in a file new to the index (its rows cascade
// away with any file row deleted before).
func (w *fileWriter) clearsStored() bool { return w.mode == ReadAll && !w.fresh }

// fileSessions is the clause for "every session of this file" in the
// statements that clear a wholly re-read source's calls and usage.
const fileSessions = `session_id IN (SELECT id FROM sessions WHERE file_id = ?)`

func (w *fileWriter) calls(p *Parsed, _ []resultExtra) error {
	if w.clearsStored() {
		if _, err := w.tx.ExecContext(w.ctx, `DELETE FROM tool_calls WHERE `+fileSessions, w.fileID); err != nil {
			return fmt.Errorf("tool calls: %w", err)
		}
	}
	for row := range w.whole {
		if _, err := w.tx.ExecContext(w.ctx, `DELETE FROM tool_calls WHERE session_id = ?`, row); err != nil {
			return fmt.Errorf("tool calls: %w", err)
		}
	}
	b := rowBatch{sc: w.sc, head: `INSERT OR REPLACE INTO tool_calls (session_id, call_id, name) VALUES `, cols: 3}
	for sess, m := range p.Calls {
		row, _, err := w.sessionRow(sess)
		if err != nil {
			return err
		}
		for id, name := range m {
			if err := b.add(row, id, name); err != nil {
				return fmt.Errorf("tool call: %w", err)
			}
		}
	}
	if err := b.flush(); err != nil {
		return fmt.Errorf("tool call: %w", err)
	}
	return nil
}

func (w *fileWriter) usage(p *Parsed, _ []resultExtra) error {
	if w.clearsStored() {
		if _, err := w.tx.ExecContext(w.ctx, `DELETE FROM usage WHERE `+fileSessions, w.fileID); err != nil {
			return fmt.Errorf("usage: %w", err)
		}
	}
	for _, u := range p.Usage {
		row, _, err := w.sessionRow(u.Session)
		if err != nil {
			return err
		}
		if err := w.sc.exec(`INSERT OR REPLACE INTO usage (session_id, key, input, cache_read, cache_write, output, reasoning) VALUES (?, ?, ?, ?, ?, ?, ?)`,
			row, u.Key, u.Input, u.CacheRead, u.CacheWrite, u.Output, u.Reasoning); err != nil {
			return fmt.Errorf("usage: %w", err)
		}
	}
	return nil
}

// resultKey is a result's natural key: its session row, call id and
// ordinal among that session's results with the call id.
type resultKey struct {
	session int64
	callID  string
	ordinal int
}

type storedResult struct {
	id                 int64
	sig                string
	text               int64
	images, blockCount int
}

// changed reports whether a re-read result's content differs from what was
// stored. Rows stored before signatures existed compare by size.
func (s storedResult) changed(r ToolResult, x resultExtra) bool {
	if s.sig != "" {
		return s.sig != x.sig
	}
	return s.text != r.TextBytes || s.images != r.Images || s.blockCount != x.blocks
}

const resultValues = `session_id = ?, tool_name = ?, at = ?, is_error = ?, text_bytes = ?, image_count = ?, block_count = ?,
  spill_kind = ?, spill_path = ?, spill_resolved = ?, spill_state = ?, src_offset = ?, src_length = ?, src_line = ?, src_index = ?, src_key = ?,
  approx_tokens = ?, content_sig = ?`

func (w *fileWriter) results(p *Parsed, extras []resultExtra) error {
	stored := map[resultKey]storedResult{}
	if w.mode != ReadAppended && !w.fresh {
		rows, err := w.tx.QueryContext(w.ctx, `SELECT id, session_id, call_id, ordinal, content_sig, text_bytes, image_count, block_count FROM tool_results WHERE file_id = ?`, w.fileID)
		if err != nil {
			return err
		}
		for rows.Next() {
			var k resultKey
			var s storedResult
			if err := rows.Scan(&s.id, &k.session, &k.callID, &k.ordinal, &s.sig, &s.text, &s.images, &s.blockCount); err != nil {
				rows.Close()
				return err
			}
			stored[k] = s
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
	}
	type sessCall struct {
		session int64
		callID  string
	}
	next := map[sessCall]int{}
	linkRows := rowBatch{sc: w.sc, head: `INSERT INTO links (result_id, block_index, shown, reason, parameter, host, ordinal) VALUES `, cols: 7}
	for i, r := range p.Results {
		x := extras[i]
		sess, route, err := w.sessionRow(r.Session)
		if err != nil {
			return err
		}
		k := sessCall{sess, r.CallID}
		ord, seen := next[k]
		if !seen && w.mode == ReadAppended {
			// An appended pass numbers on from what earlier passes stored.
			if err := w.tx.QueryRowContext(w.ctx, `SELECT COUNT(*) FROM tool_results WHERE session_id = ? AND call_id = ?`, sess, r.CallID).Scan(&ord); err != nil {
				return err
			}
		}
		next[k] = ord + 1
		r.Ordinal = ord
		p.Results[i].Ordinal = ord
		var kind, path, resolved, state any
		if r.Notice != nil {
			kind, path, state = r.Notice.Kind, r.Notice.Path, x.spill.State
			if x.spill.State == FileExists {
				resolved = x.spill.Path
			}
		}
		// One argument list for both statements: the insert's key columns
		// first, then resultValues' columns, then the update's tail.
		args := make([]any, 3, 3+18+6)
		args[0], args[1], args[2] = w.fileID, r.CallID, ord
		args = append(args, sess, r.ToolName, r.Time, r.IsError, r.TextBytes, r.Images, x.blocks, kind, path, resolved, state,
			r.Offset, r.Length, r.Line, r.Index, r.Key, approxTokens(r.TextBytes, x.attach, route), x.sig)
		var rid int64
		key := resultKey{sess, r.CallID, ord}
		if s, ok := stored[key]; ok {
			delete(stored, key)
			rid = s.id
			changed := s.changed(r, x)
			// A result the search phase could not read back (fts_done 2:
			// its file moved under it) is searched again from where this
			// pass found it.
			if err := w.sc.exec(`UPDATE tool_results SET `+resultValues+`,
  est_tokens = CASE WHEN ?19 THEN NULL ELSE est_tokens END, est_text_tokens = CASE WHEN ?19 THEN NULL ELSE est_text_tokens END,
  est_image_tokens = CASE WHEN ?19 THEN NULL ELSE est_image_tokens END, est_route = CASE WHEN ?19 THEN NULL ELSE est_route END,
  fts_done = CASE WHEN ?19 OR fts_done = 2 THEN 0 ELSE fts_done END WHERE id = ?20`, append(args[3:], changed, rid)...); err != nil {
				return fmt.Errorf("line %d: %w", r.Line, err)
			}
			if changed {
				w.change.Results = append(w.change.Results, rid)
			}
			for _, q := range []string{`DELETE FROM result_attachments WHERE result_id = ?`, `DELETE FROM links WHERE result_id = ?`} {
				if err := w.sc.exec(q, rid); err != nil {
					return fmt.Errorf("line %d: %w", r.Line, err)
				}
			}
		} else {
			rid, err = w.sc.insert(`INSERT INTO tool_results (file_id, call_id, ordinal, session_id, tool_name, at, is_error, text_bytes, image_count, block_count,
  spill_kind, spill_path, spill_resolved, spill_state, src_offset, src_length, src_line, src_index, src_key, approx_tokens, content_sig)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, args...)
			if err != nil {
				return fmt.Errorf("line %d: %w", r.Line, err)
			}
			w.change.Results = append(w.change.Results, rid)
		}
		for _, a := range x.attach {
			if err := w.sc.exec(`INSERT OR IGNORE INTO attachments (sha256, media_type, ext, width, height, bytes) VALUES (?, ?, ?, ?, ?, ?)`,
				a.att.SHA256, a.att.MediaType, a.att.Ext, a.att.Width, a.att.Height, a.att.Bytes); err != nil {
				return fmt.Errorf("attachment: %w", err)
			}
			if err := w.sc.exec(`INSERT OR REPLACE INTO result_attachments (result_id, block_index, sha256) VALUES (?, ?, ?)`, rid, a.block, a.att.SHA256); err != nil {
				return fmt.Errorf("attachment: %w", err)
			}
		}
		// Links are queued in their order and written after the results
		// they name (before a gone result's are dropped below).
		for _, l := range x.links {
			if err := linkRows.add(rid, l.block, l.shown, l.reason, l.parameter, l.host, l.ordinal); err != nil {
				return fmt.Errorf("link: %w", err)
			}
		}
	}
	if err := linkRows.flush(); err != nil {
		return fmt.Errorf("link: %w", err)
	}
	for key, s := range stored {
		// What a whole read did not report again is gone: every stored
		// result after a ReadAll, those of the sessions read whole after a
		// ReadChanged.
		if w.mode == ReadAll || w.whole[key.session] {
			if err := w.sc.exec(`DELETE FROM tool_results WHERE id = ?`, s.id); err != nil {
				return err
			}
		}
	}
	return nil
}

// diagnostics replaces a wholly re-read source's diagnostics; a resumed
// pass adds its own, folding counts into the row of the same kind.
func (w *fileWriter) diagnostics(p *Parsed, _ []resultExtra) error {
	switch {
	case w.fresh:
		// A file new to the index has nothing stored to replace.
	case w.clearsStored():
		if _, err := w.tx.ExecContext(w.ctx, `DELETE FROM diagnostics WHERE file_id = ?`, w.fileID); err != nil {
			return fmt.Errorf("diagnostics: %w", err)
		}
	default:
		// A torn tail is where the last pass stopped: this pass read on
		// from there and says again whether the file still ends torn.
		if _, err := w.tx.ExecContext(w.ctx, `DELETE FROM diagnostics WHERE file_id = ? AND code = ?`, w.fileID, DiagTornTail); err != nil {
			return fmt.Errorf("diagnostics: %w", err)
		}
	}
	for _, dg := range p.Diags {
		subject, agg := aggregated(dg)
		if agg && w.mode != ReadAll {
			var id int64
			var earlier Diagnostic
			var params string
			err := w.tx.QueryRowContext(w.ctx, `SELECT id, line, params FROM diagnostics WHERE file_id = ? AND code = ? AND subject = ?`, w.fileID, dg.Code, subject).
				Scan(&id, &earlier.Line, &params)
			if err == nil {
				json.Unmarshal([]byte(params), &earlier.Params)
				mergeCount(&dg, earlier)
				pj, _ := json.Marshal(dg.Params)
				if _, err := w.tx.ExecContext(w.ctx, `UPDATE diagnostics SET line = ?, params = ?, message = ? WHERE id = ?`, dg.Line, string(pj), dg.Message, id); err != nil {
					return fmt.Errorf("diagnostic: %w", err)
				}
				continue
			}
			if !errors.Is(err, sql.ErrNoRows) {
				return fmt.Errorf("diagnostic: %w", err)
			}
		}
		pj, _ := json.Marshal(dg.Params)
		if err := w.sc.exec(`INSERT INTO diagnostics (file_id, line, code, subject, params, message) VALUES (?, ?, ?, ?, ?, ?)`,
			w.fileID, dg.Line, dg.Code, subject, string(pj), dg.Message); err != nil {
			return fmt.Errorf("diagnostic: %w", err)
		}
	}
	return nil
}

// sessionTotals refreshes the counts every session row of the file keeps.
func (w *fileWriter) sessionTotals(*Parsed, []resultExtra) error {
	_, err := w.tx.ExecContext(w.ctx, `UPDATE sessions SET
  tool_results = (SELECT COUNT(*) FROM tool_results r WHERE r.session_id = sessions.id),
  tool_result_images = (SELECT COUNT(*) FROM result_attachments ra JOIN tool_results r ON r.id = ra.result_id WHERE r.session_id = sessions.id),
  spill_notices = (SELECT COUNT(*) FROM tool_results r WHERE r.session_id = sessions.id AND r.spill_kind IS NOT NULL),
  input_tokens = (SELECT COALESCE(SUM(input), 0) FROM usage u WHERE u.session_id = sessions.id)
    + (SELECT COALESCE(SUM(input), 0) FROM model_calls c WHERE c.session_id = sessions.id),
  cache_read_tokens = (SELECT COALESCE(SUM(cache_read), 0) FROM usage u WHERE u.session_id = sessions.id)
    + (SELECT COALESCE(SUM(cache_read), 0) FROM model_calls c WHERE c.session_id = sessions.id),
  cache_write_tokens = (SELECT COALESCE(SUM(cache_write), 0) FROM usage u WHERE u.session_id = sessions.id)
    + (SELECT COALESCE(SUM(cache_write), 0) FROM model_calls c WHERE c.session_id = sessions.id),
  output_tokens = (SELECT COALESCE(SUM(output), 0) FROM usage u WHERE u.session_id = sessions.id)
    + (SELECT COALESCE(SUM(output), 0) FROM model_calls c WHERE c.session_id = sessions.id),
  reasoning_tokens = (SELECT COALESCE(SUM(reasoning), 0) FROM usage u WHERE u.session_id = sessions.id)
    + (SELECT COALESCE(SUM(reasoning), 0) FROM model_calls c WHERE c.session_id = sessions.id),
  model_calls = (SELECT COUNT(*) FROM model_calls c WHERE c.session_id = sessions.id),
  compactions = (SELECT COUNT(*) FROM compactions c WHERE c.session_id = sessions.id),
  api_errors = (SELECT COUNT(*) FROM session_events e WHERE e.session_id = sessions.id AND e.kind = ?2),
  aborted_turns = (SELECT COUNT(*) FROM session_events e WHERE e.session_id = sessions.id AND e.kind = ?3)
WHERE file_id = ?1`, w.fileID, EventAPIError, EventTurnAborted)
	if err != nil {
		return fmt.Errorf("session totals: %w", err)
	}
	return nil
}

// stmtCache is a transaction's view of the statements its writer runs:
// each is prepared once on the DB (DB.prepared) and bound to the
// transaction once, so a pass over thousands of files neither re-parses the
// same SQL per row nor per file. It also answers the writer's one-off
// queries (ExecContext, QueryContext, QueryRowContext) through the same
// statements.
type stmtCache struct {
	ctx context.Context
	d   *DB
	tx  *sql.Tx
	m   map[string]*sql.Stmt
}

func (c *stmtCache) prepare(query string) (*sql.Stmt, error) {
	if st, ok := c.m[query]; ok {
		return st, nil
	}
	parent, err := c.d.prepared(c.ctx, query)
	if err != nil {
		return nil, err
	}
	st := c.tx.StmtContext(c.ctx, parent)
	if c.m == nil {
		c.m = map[string]*sql.Stmt{}
	}
	c.m[query] = st
	return st, nil
}

func (c *stmtCache) exec(query string, args ...any) error {
	_, err := c.ExecContext(c.ctx, query, args...)
	return err
}

// ExecContext runs query in the transaction through its cached statement.
func (c *stmtCache) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	st, err := c.prepare(query)
	if err != nil {
		return nil, err
	}
	return st.ExecContext(ctx, args...)
}

// QueryContext runs query in the transaction through its cached statement.
func (c *stmtCache) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	st, err := c.prepare(query)
	if err != nil {
		return nil, err
	}
	return st.QueryContext(ctx, args...)
}

// QueryRowContext runs query in the transaction through its cached
// statement; a failed prepare surfaces from Scan, as with sql.Tx.
func (c *stmtCache) QueryRowContext(ctx context.Context, query string, args ...any) rowScanner {
	st, err := c.prepare(query)
	if err != nil {
		return errRow{err}
	}
	return st.QueryRowContext(ctx, args...)
}

// rowScanner is what QueryRowContext returns: a row, or the prepare error.
type rowScanner interface{ Scan(dest ...any) error }

type errRow struct{ err error }

func (r errRow) Scan(...any) error { return r.err }

// insert runs an INSERT through the cache and returns the new row's id.
func (c *stmtCache) insert(query string, args ...any) (int64, error) {
	res, err := c.ExecContext(c.ctx, query, args...)
	if err != nil {
		return 0, err
	}
	return res.LastInsertId()
}

// close releases the transaction's bindings; the DB keeps the statements.
func (c *stmtCache) close() {
	for _, st := range c.m {
		st.Close()
	}
}

// prepared is query prepared once on the DB, for every transaction's
// stmtCache to bind (database/sql reuses it on a connection it was already
// prepared on). Only the writer's constant SQL comes here, so the set stays
// small.
func (d *DB) prepared(ctx context.Context, query string) (*sql.Stmt, error) {
	d.stmtMu.Lock()
	defer d.stmtMu.Unlock()
	if st, ok := d.stmts[query]; ok {
		return st, nil
	}
	st, err := d.db.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	if d.stmts == nil {
		d.stmts = map[string]*sql.Stmt{}
	}
	d.stmts[query] = st
	return st, nil
}
