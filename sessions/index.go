package sessions

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
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
}

// IndexOptions tune a structure pass.
type IndexOptions struct {
	// Progress, when set, is called after each file (and at most every
	// 100 ms for very large ones is not needed: files are the unit).
	Progress func(Progress)
}

type fileRow struct {
	id           int64
	path, root   string
	harness      string
	size, mtime  int64
	fingerprint  string
	parsedOffset int64
	parsedLine   int64
}

type candidate struct {
	path, root, harness string
	size, mtime         int64
}

// skipDirs hold spill files and attachments, never transcripts.
var skipDirs = map[string]bool{"tool-results": true, "tool-outputs": true, "attachments": true, ".git": true}

// CleanRoots makes roots absolute and checks that they exist and that the
// database is not inside any of them (nothing is ever written under a
// session root).
func (d *DB) CleanRoots(roots []string) ([]string, error) {
	return cleanRoots(d.path, roots)
}

// CheckDBPath refuses a database path inside any session root. Call it
// before Open: opening creates the file.
func CheckDBPath(dbPath string, roots []string) error {
	abs, err := filepath.Abs(dbPath)
	if err != nil {
		return fmt.Errorf("sessions: database path %q: %w", dbPath, err)
	}
	_, err = cleanRoots(abs, roots)
	return err
}

func cleanRoots(dbPath string, roots []string) ([]string, error) {
	out := make([]string, 0, len(roots))
	attaches := filepath.Join(filepath.Dir(dbPath), "attachments")
	dbReal := realPath(dbPath)
	attReal := realPath(attaches)
	for _, r := range roots {
		abs, err := filepath.Abs(r)
		if err != nil {
			return nil, fmt.Errorf("sessions: root %q: %w", r, err)
		}
		st, err := os.Stat(abs)
		if err != nil {
			return nil, fmt.Errorf("sessions: root %q: %w", r, err)
		}
		if !st.IsDir() {
			return nil, fmt.Errorf("sessions: root %q is not a folder", r)
		}
		rr := realPath(abs)
		if within(dbReal, rr) || within(attReal, rr) || within(dbPath, abs) || within(attaches, abs) {
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
				if path != root && skipDirs[e.Name()] {
					return fs.SkipDir
				}
				return nil
			}
			if !e.Type().IsRegular() || seen[path] {
				return nil
			}
			var pr *fileRow
			if r, ok := prev[path]; ok {
				pr = &r
			}
			h := detectHarness(path, pr)
			if h == "" {
				return nil
			}
			fi, err := e.Info()
			if err != nil {
				return nil
			}
			seen[path] = true
			cands = append(cands, candidate{path: path, root: root, harness: h, size: fi.Size(), mtime: fi.ModTime().UnixNano()})
			total += fi.Size()
			return nil
		})
	}
	sum := Summary{}
	pg := Progress{Phase: PhaseStructure, FilesTotal: len(cands), BytesTotal: total}
	lastReport := time.Now()
	for _, c := range cands {
		if err := ctx.Err(); err != nil {
			return Summary{}, err
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
		changed, err := d.indexFile(ctx, c, pr, roots, onRead)
		if err != nil {
			return Summary{}, err
		}
		if changed {
			sum.ChangedFiles++
		}
		pg.Files++
		pg.Bytes += c.size
		pg.Elapsed = time.Since(started)
		if opts.Progress != nil {
			lastReport = time.Now()
			opts.Progress(pg)
		}
	}
	gone, err := d.dropMissing(ctx, roots, seen, prev)
	if err != nil {
		return Summary{}, err
	}
	sum.ChangedFiles += gone
	t, err := d.Totals(ctx, roots)
	if err != nil {
		return Summary{}, err
	}
	t.ChangedFiles = sum.ChangedFiles
	t.Seconds = time.Since(started).Seconds()
	return t, nil
}

// detectHarness decides by path where it can and by the first bytes of the
// file otherwise; "" means not a session file.
func detectHarness(path string, prev *fileRow) string {
	base := filepath.Base(path)
	switch {
	case strings.HasSuffix(base, RetainedSuffix):
		return HarnessSpillscope
	case strings.HasSuffix(base, ".json"):
		if strings.HasPrefix(base, "session-") && filepath.Base(filepath.Dir(path)) == "chats" {
			return HarnessGemini
		}
		return ""
	case strings.HasSuffix(base, ".jsonl"):
		if strings.HasPrefix(base, "rollout-") {
			return HarnessCodex
		}
		if prev != nil && (prev.harness == HarnessClaude || prev.harness == HarnessCodex) {
			return prev.harness
		}
		return sniffJSONL(path)
	}
	return ""
}

// sniffJSONL tells Codex rollouts ({timestamp,type,payload}) from Claude
// transcripts by the top-level keys of the first lines that parse. A
// substring test would be fooled by a transcript quoting the other format.
func sniffJSONL(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return HarnessClaude // reported as unreadable when indexed
	}
	defer f.Close()
	lr := NewLineReader(io.LimitReader(f, 64<<20), 0, 1)
	for range 8 {
		l, err := lr.Next()
		if err != nil {
			break
		}
		var payload, typ bool
		var kind string
		_, err = wholeObject(l.Bytes, func(k []byte, vs, ve int) bool {
			switch string(k) {
			case "payload":
				payload = true
			case "type":
				typ = true
				kind, _ = str(l.Bytes[vs:ve])
			case "sessionId", "parentUuid", "message", "uuid":
				kind = "claude"
				return false
			}
			return true
		})
		if err != nil && kind != "claude" {
			continue
		}
		if kind == "claude" {
			return HarnessClaude
		}
		if payload && typ && codexTypes[kind] {
			return HarnessCodex
		}
		if typ && claudeTypes[kind] {
			return HarnessClaude
		}
	}
	return HarnessClaude
}

func (d *DB) fileRows(ctx context.Context) (map[string]fileRow, error) {
	rows, err := d.db.QueryContext(ctx, `SELECT id, path, root, harness, size, mtime_ns, fingerprint, parsed_offset, parsed_line FROM files`)
	if err != nil {
		return nil, fmt.Errorf("sessions: read files: %w", err)
	}
	defer rows.Close()
	out := map[string]fileRow{}
	for rows.Next() {
		var r fileRow
		if err := rows.Scan(&r.id, &r.path, &r.root, &r.harness, &r.size, &r.mtime, &r.fingerprint, &r.parsedOffset, &r.parsedLine); err != nil {
			return nil, fmt.Errorf("sessions: read files: %w", err)
		}
		out[r.path] = r
	}
	return out, rows.Err()
}

// dropMissing removes files under roots that the walk did not find.
func (d *DB) dropMissing(ctx context.Context, roots []string, seen map[string]bool, prev map[string]fileRow) (int, error) {
	var ids []int64
	for p, r := range prev {
		if seen[p] {
			continue
		}
		for _, root := range roots {
			if within(p, root) {
				ids = append(ids, r.id)
				break
			}
		}
	}
	if len(ids) == 0 {
		return 0, nil
	}
	tx, err := d.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, fmt.Errorf("sessions: drop missing files: %w", err)
	}
	defer tx.Rollback()
	for _, id := range ids {
		if _, err := tx.ExecContext(ctx, `DELETE FROM files WHERE id = ?`, id); err != nil {
			return 0, fmt.Errorf("sessions: drop missing file: %w", err)
		}
	}
	if err := tx.Commit(); err != nil {
		return 0, fmt.Errorf("sessions: drop missing files: %w", err)
	}
	return len(ids), nil
}

// Totals counts what the index holds for files under roots. Sessions are
// distinct harness session ids (a subagent transcript belongs to its parent
// session; each retained record of this project is its own session, as the
// window lists it); images are those stored as attachments (an image whose
// base64 is invalid is a diagnostic).
func (d *DB) Totals(ctx context.Context, roots []string) (Summary, error) {
	rj, _ := json.Marshal(roots)
	var s Summary
	err := d.db.QueryRowContext(ctx, `
WITH f AS (SELECT id, size FROM files WHERE root IN (SELECT value FROM json_each(?)))
SELECT
  (SELECT COUNT(*) FROM f),
  (SELECT COALESCE(SUM(size), 0) FROM f),
  (SELECT COUNT(*) FROM (SELECT DISTINCT harness, session_id FROM sessions WHERE file_id IN (SELECT id FROM f))),
  (SELECT COUNT(*) FROM tool_results WHERE file_id IN (SELECT id FROM f)),
  (SELECT COUNT(*) FROM result_attachments WHERE result_id IN (SELECT id FROM tool_results WHERE file_id IN (SELECT id FROM f))),
  (SELECT COUNT(*) FROM tool_results WHERE file_id IN (SELECT id FROM f) AND spill_kind IS NOT NULL),
  (SELECT COUNT(*) FROM diagnostics WHERE file_id IN (SELECT id FROM f))`, string(rj)).Scan(
		&s.Files, &s.Bytes, &s.Sessions, &s.ToolResults, &s.ToolResultImages, &s.SpillNotices, &s.Diagnostics)
	if err != nil {
		return Summary{}, fmt.Errorf("sessions: totals: %w", err)
	}
	return s, nil
}

// fingerprint hashes the first and last 64 KB of the first n bytes of f,
// and n: enough to tell an append (the parsed prefix unchanged) from a
// rewrite without reading the file.
func fingerprint(f io.ReaderAt, n int64) (string, error) {
	const w = 64 << 10
	h := sha256.New()
	head := min(n, w)
	buf := make([]byte, head)
	if _, err := f.ReadAt(buf, 0); err != nil && !errors.Is(err, io.EOF) {
		return "", err
	}
	h.Write(buf)
	if n > w {
		ts := max(n-w, head)
		tail := make([]byte, n-ts)
		if _, err := f.ReadAt(tail, ts); err != nil && !errors.Is(err, io.EOF) {
			return "", err
		}
		h.Write(tail)
	}
	fmt.Fprintf(h, "|%d", n)
	return hex.EncodeToString(h.Sum(nil)), nil
}

// resultExtra is what the indexer derives from a result's blocks before
// dropping them: stored attachments, link views and the spill file.
type resultExtra struct {
	attach   []attachRef
	links    []linkRow
	resolved string
	exists   bool
	blocks   int
}

type attachRef struct {
	block int
	att   Attachment
}

type linkRow struct {
	block                    int
	shown, reason, parameter string
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

func (d *DB) indexFile(ctx context.Context, c candidate, prev *fileRow, roots []string, onRead func(int64)) (bool, error) {
	if prev != nil && prev.size == c.size && prev.mtime == c.mtime && prev.harness == c.harness {
		if prev.root == c.root {
			return false, nil
		}
		// Found under another root (nested roots): the rows stay, the file
		// only moves to the root it was found under this time.
		if _, err := d.db.ExecContext(ctx, `UPDATE files SET root = ? WHERE id = ?`, c.root, prev.id); err != nil {
			return false, fmt.Errorf("sessions: index %s: %w", c.path, err)
		}
		return false, nil
	}
	p := &Parsed{}
	var extras []resultExtra
	p.OnResult = func(r *ToolResult) {
		extras = append(extras, d.processResult(r, c, p, roots))
	}
	end, endLine := int64(0), int64(1)
	appendMode := false
	var names map[string]string
	f, openErr := os.Open(c.path)
	if openErr != nil {
		p.diag(0, "cannot read file: "+errText(openErr))
	} else {
		defer f.Close()
		jsonl := c.harness == HarnessClaude || c.harness == HarnessCodex
		if prev != nil && jsonl && prev.harness == c.harness && prev.parsedOffset > 0 && c.size >= prev.parsedOffset {
			if fp, err := fingerprint(f, prev.parsedOffset); err == nil && fp == prev.fingerprint {
				appendMode = true
				end, endLine = prev.parsedOffset, prev.parsedLine
				var err error
				if names, err = d.callNames(ctx, prev.id); err != nil {
					return false, err
				}
			}
		}
		switch c.harness {
		case HarnessClaude:
			rd := &ClaudeReader{Names: names}
			end, endLine = readLines(f, end, endLine, c.size, rd.ReadLine, p, onRead)
		case HarnessCodex:
			rd := &CodexReader{Names: names}
			end, endLine = readLines(f, end, endLine, c.size, rd.ReadLine, p, onRead)
		case HarnessGemini, HarnessSpillscope:
			doc, err := io.ReadAll(io.LimitReader(f, c.size))
			if err != nil {
				p.diag(0, "cannot read file: "+errText(err))
				break
			}
			if c.harness == HarnessGemini {
				ReadGeminiDoc(doc, p)
			} else {
				ReadRetained(doc, c.path, p)
			}
			end, endLine = int64(len(doc)), 1+int64(strings.Count(string(doc), "\n"))
		}
	}
	fp := ""
	if f != nil && openErr == nil {
		fp, _ = fingerprint(f, end)
	}
	return true, d.writeFile(ctx, c, prev, appendMode, fp, end, endLine, p, extras)
}

// errText is an error's message without the path (the diagnostic already
// names the file).
func errText(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Op + ": " + pe.Err.Error()
	}
	return err.Error()
}

// readLines feeds complete lines of f from offset start (line number line)
// up to limit to fn, and returns where the next pass must resume: after the
// last complete line. An unterminated last line is read only if it is
// already a whole JSON object (a file that does not end in a newline);
// otherwise a writer is still appending it.
func readLines(f *os.File, start, line, limit int64, fn func(Line, *Parsed), p *Parsed, onRead func(int64)) (int64, int64) {
	if _, err := f.Seek(start, io.SeekStart); err != nil {
		p.diag(line, "cannot seek: "+errText(err))
		return start, line
	}
	lr := NewLineReader(io.LimitReader(f, limit-start), start, line)
	end, next := start, line
	reported := start
	for {
		l, err := lr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			p.diag(next, "read error: "+errText(err))
			break
		}
		if !l.Complete {
			if _, err := wholeObject(l.Bytes, func([]byte, int, int) bool { return true }); err != nil {
				break
			}
		}
		fn(l, p)
		end, next = l.Offset+l.Length, l.Number+1
		if onRead != nil && end-reported >= 8<<20 {
			reported = end
			onRead(end)
		}
	}
	return end, next
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
func (d *DB) processResult(r *ToolResult, c candidate, p *Parsed, roots []string) resultExtra {
	x := resultExtra{blocks: len(r.Blocks)}
	for i, v := range links.Classify(r.Blocks) {
		if v.Kind != links.KindItself && v.Kind != "" {
			x.links = append(x.links, linkRow{block: v.Index, shown: v.Kind, reason: v.Reason, parameter: v.Parameter})
		}
		_ = i
	}
	for i, b := range r.Blocks {
		switch b.Type {
		case retention.TypeText:
			for _, fd := range links.ScanText(b.Text) {
				x.links = append(x.links, linkRow{block: i, shown: "text", reason: fd.Reason, parameter: fd.Parameter})
			}
		case retention.TypeImage:
			att, err := d.storeImage(b)
			if err != nil {
				p.diag(r.Line, fmt.Sprintf("tool result %s image block %d: %v", r.CallID, i, err))
				continue
			}
			x.attach = append(x.attach, attachRef{block: i, att: att})
		}
	}
	if r.Notice != nil {
		x.resolved, x.exists = resolveSpill(r.Notice, c, p.Session.ID, roots)
	}
	r.Blocks = nil
	return x
}

// storeImage writes an image block's bytes to the attachment store, once
// per content hash, and describes it. Bytes that are no known image are kept
// too (named by the declared subtype, else .bin), so the block still has an
// attachment row.
func (d *DB) storeImage(b retention.Block) (Attachment, error) {
	var data []byte
	switch {
	case b.Data != "":
		var err error
		data, err = imagecost.DecodeBase64(b.Data)
		if err != nil {
			return Attachment{}, fmt.Errorf("%w: invalid base64", ErrImage)
		}
	case b.Path != "":
		var err error
		data, err = os.ReadFile(b.Path)
		if err != nil {
			return Attachment{}, fmt.Errorf("%w: %s", ErrImage, errText(err))
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

// resolveSpill finds the file a notice names: the named path itself when it
// lies under an indexed root, else where the harness keeps spill files
// beside the transcript (a copied session folder keeps them there, under a
// different absolute path). Nothing outside the roots is looked at.
func resolveSpill(n *SpillNotice, c candidate, sessionID string, roots []string) (string, bool) {
	var cands []string
	named := n.Path
	if filepath.IsAbs(named) {
		cands = append(cands, filepath.Clean(named))
	} else {
		cands = append(cands, filepath.Join(filepath.Dir(c.path), named))
	}
	base := filepath.Base(filepath.FromSlash(named))
	dir := filepath.Dir(c.path)
	switch c.harness {
	case HarnessClaude:
		if sessionID == "" {
			sessionID = strings.TrimSuffix(filepath.Base(c.path), ".jsonl")
		}
		cands = append(cands,
			filepath.Join(dir, sessionID, "tool-results", base),
			filepath.Join(filepath.Dir(dir), "tool-results", base)) // from <session>/subagents/
	case HarnessGemini:
		proj := filepath.Dir(dir)
		if _, rest, ok := strings.Cut(filepath.ToSlash(named), "/tool-outputs/"); ok {
			cands = append(cands, filepath.Join(proj, "tool-outputs", filepath.FromSlash(rest)))
		}
		cands = append(cands, filepath.Join(proj, base))
	case HarnessSpillscope:
		cands = append(cands, filepath.Join(dir, base))
	}
	for _, p := range cands {
		inside := false
		for _, r := range roots {
			if within(p, r) {
				inside = true
				break
			}
		}
		if !inside {
			continue
		}
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
			return p, true
		}
	}
	return "", false
}

// writeFile commits everything read from one file in one transaction.
func (d *DB) writeFile(ctx context.Context, c candidate, prev *fileRow, appendMode bool, fp string, end, endLine int64, p *Parsed, extras []resultExtra) error {
	tx, err := d.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("sessions: index %s: %w", c.path, err)
	}
	defer tx.Rollback()
	now := time.Now().UTC().Format(time.RFC3339)
	var fileID, sessID int64
	if appendMode {
		fileID = prev.id
		if _, err := tx.ExecContext(ctx, `UPDATE files SET root = ?, size = ?, mtime_ns = ?, fingerprint = ?, parsed_offset = ?, parsed_line = ?, indexed_at = ? WHERE id = ?`,
			c.root, c.size, c.mtime, fp, end, endLine, now, fileID); err != nil {
			return fmt.Errorf("sessions: index %s: %w", c.path, err)
		}
	} else {
		if prev != nil {
			if _, err := tx.ExecContext(ctx, `DELETE FROM files WHERE id = ?`, prev.id); err != nil {
				return fmt.Errorf("sessions: index %s: %w", c.path, err)
			}
		}
		err := tx.QueryRowContext(ctx, `INSERT INTO files (path, root, harness, size, mtime_ns, fingerprint, parsed_offset, parsed_line, indexed_at)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`, c.path, c.root, c.harness, c.size, c.mtime, fp, end, endLine, now).Scan(&fileID)
		if err != nil {
			return fmt.Errorf("sessions: index %s: %w", c.path, err)
		}
	}
	sc := &stmtCache{ctx: ctx, tx: tx}
	defer sc.close()
	s := p.Session
	s.Harness = c.harness
	var old SessionInfo
	err = tx.QueryRowContext(ctx, `SELECT id, session_id, agent_id, project, cwd, model, route, started_at, ended_at FROM sessions WHERE file_id = ?`, fileID).
		Scan(&sessID, &old.ID, &old.AgentID, &old.Project, &old.Cwd, &old.Model, &old.Route, &old.Started, &old.Ended)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		sessID = 0
	case err != nil:
		return fmt.Errorf("sessions: index %s: %w", c.path, err)
	}
	s = mergeSession(old, s, c)
	route := s.Route
	if route == "" {
		route = imagecost.RouteForModel(s.Model)
	}
	existed := sessID != 0
	if !existed {
		err = tx.QueryRowContext(ctx, `INSERT INTO sessions (file_id, harness, session_id, agent_id, project, cwd, model, route, started_at, ended_at)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`, fileID, c.harness, s.ID, s.AgentID, s.Project, s.Cwd, s.Model, route, s.Started, s.Ended).Scan(&sessID)
	} else {
		_, err = tx.ExecContext(ctx, `UPDATE sessions SET session_id = ?, agent_id = ?, project = ?, cwd = ?, model = ?, route = ?, started_at = ?, ended_at = ? WHERE id = ?`,
			s.ID, s.AgentID, s.Project, s.Cwd, s.Model, route, s.Started, s.Ended, sessID)
	}
	if err != nil {
		return fmt.Errorf("sessions: index %s: session: %w", c.path, err)
	}
	for id, name := range p.Calls {
		if err := sc.exec(`INSERT OR REPLACE INTO tool_calls (session_id, call_id, name) VALUES (?, ?, ?)`, sessID, id, name); err != nil {
			return fmt.Errorf("sessions: index %s: tool call: %w", c.path, err)
		}
	}
	for _, u := range p.Usage {
		if err := sc.exec(`INSERT OR REPLACE INTO usage (session_id, key, input, cache_read, cache_write, output, reasoning) VALUES (?, ?, ?, ?, ?, ?, ?)`,
			sessID, u.Key, u.Input, u.CacheRead, u.CacheWrite, u.Output, u.Reasoning); err != nil {
			return fmt.Errorf("sessions: index %s: usage: %w", c.path, err)
		}
	}
	// A session seen before keeps its results: counts made on another route
	// than its own (its model line came later, or an earlier pass saw none)
	// are stale, so the token phase redoes them, and images rank on the new
	// route meanwhile. A new session has nothing to redo.
	if existed {
		if _, err := tx.ExecContext(ctx, `UPDATE tool_results SET est_tokens = NULL, est_text_tokens = NULL, est_image_tokens = NULL, est_route = NULL
WHERE session_id = ? AND est_tokens IS NOT NULL AND COALESCE(est_route, '') <> ?`, sessID, route); err != nil {
			return fmt.Errorf("sessions: index %s: route change: %w", c.path, err)
		}
		if old.Route != route {
			if err := reapprox(ctx, tx, sessID, route); err != nil {
				return fmt.Errorf("sessions: index %s: route change: %w", c.path, err)
			}
		}
	}
	insResult, err := tx.PrepareContext(ctx, `INSERT INTO tool_results (session_id, file_id, call_id, tool_name, at, is_error, text_bytes, image_count, block_count,
  spill_kind, spill_path, spill_resolved, spill_exists, src_offset, src_length, src_line, src_index, approx_tokens)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return fmt.Errorf("sessions: index %s: %w", c.path, err)
	}
	defer insResult.Close()
	for i, r := range p.Results {
		x := extras[i]
		var kind, path, resolved, exists any
		if r.Notice != nil {
			kind, path, exists = r.Notice.Kind, r.Notice.Path, x.exists
			if x.exists {
				resolved = x.resolved
			}
		}
		res, err := insResult.ExecContext(ctx, sessID, fileID, r.CallID, r.ToolName, r.Time, r.IsError, r.TextBytes, r.Images, x.blocks,
			kind, path, resolved, exists, r.Offset, r.Length, r.Line, r.Index, approxTokens(r.TextBytes, x.attach, route))
		if err != nil {
			return fmt.Errorf("sessions: index %s line %d: %w", c.path, r.Line, err)
		}
		rid, err := res.LastInsertId()
		if err != nil {
			return fmt.Errorf("sessions: index %s line %d: %w", c.path, r.Line, err)
		}
		for _, a := range x.attach {
			if err := sc.exec(`INSERT OR IGNORE INTO attachments (sha256, media_type, ext, width, height, bytes) VALUES (?, ?, ?, ?, ?, ?)`,
				a.att.SHA256, a.att.MediaType, a.att.Ext, a.att.Width, a.att.Height, a.att.Bytes); err != nil {
				return fmt.Errorf("sessions: index %s: attachment: %w", c.path, err)
			}
			if err := sc.exec(`INSERT OR REPLACE INTO result_attachments (result_id, block_index, sha256) VALUES (?, ?, ?)`, rid, a.block, a.att.SHA256); err != nil {
				return fmt.Errorf("sessions: index %s: attachment: %w", c.path, err)
			}
		}
		for _, l := range x.links {
			if err := sc.exec(`INSERT INTO links (result_id, block_index, shown, reason, parameter) VALUES (?, ?, ?, ?, ?)`,
				rid, l.block, l.shown, l.reason, l.parameter); err != nil {
				return fmt.Errorf("sessions: index %s: link: %w", c.path, err)
			}
		}
	}
	for _, dg := range p.Diags {
		if err := sc.exec(`INSERT INTO diagnostics (file_id, line, message) VALUES (?, ?, ?)`, fileID, dg.Line, dg.Message); err != nil {
			return fmt.Errorf("sessions: index %s: diagnostic: %w", c.path, err)
		}
	}
	if _, err := tx.ExecContext(ctx, `UPDATE sessions SET
  tool_results = (SELECT COUNT(*) FROM tool_results WHERE session_id = ?1),
  tool_result_images = (SELECT COUNT(*) FROM result_attachments ra JOIN tool_results r ON r.id = ra.result_id WHERE r.session_id = ?1),
  spill_notices = (SELECT COUNT(*) FROM tool_results WHERE session_id = ?1 AND spill_kind IS NOT NULL),
  input_tokens = (SELECT COALESCE(SUM(input), 0) FROM usage WHERE session_id = ?1),
  cache_read_tokens = (SELECT COALESCE(SUM(cache_read), 0) FROM usage WHERE session_id = ?1),
  cache_write_tokens = (SELECT COALESCE(SUM(cache_write), 0) FROM usage WHERE session_id = ?1),
  output_tokens = (SELECT COALESCE(SUM(output), 0) FROM usage WHERE session_id = ?1),
  reasoning_tokens = (SELECT COALESCE(SUM(reasoning), 0) FROM usage WHERE session_id = ?1)
WHERE id = ?1`, sessID); err != nil {
		return fmt.Errorf("sessions: index %s: session totals: %w", c.path, err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("sessions: index %s: %w", c.path, err)
	}
	return nil
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
	}
	if s.Started != "" && (out.Started == "" || s.Started < out.Started) {
		out.Started = s.Started
	}
	if s.Ended > out.Ended {
		out.Ended = s.Ended
	}
	if c.harness == HarnessSpillscope && out.Route == "" {
		out.Route = old.Route
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

// stmtCache prepares each statement once per transaction: a file with
// thousands of results would otherwise re-prepare the same SQL per row.
type stmtCache struct {
	ctx context.Context
	tx  *sql.Tx
	m   map[string]*sql.Stmt
}

func (c *stmtCache) exec(query string, args ...any) error {
	st, ok := c.m[query]
	if !ok {
		var err error
		if st, err = c.tx.PrepareContext(c.ctx, query); err != nil {
			return err
		}
		if c.m == nil {
			c.m = map[string]*sql.Stmt{}
		}
		c.m[query] = st
	}
	_, err := st.ExecContext(c.ctx, args...)
	return err
}

func (c *stmtCache) close() {
	for _, st := range c.m {
		st.Close()
	}
}
