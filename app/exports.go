package app

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"spillscope/sessions"
)

// Exports is the bound service that writes what a screen shows to a file
// the user chose. It reads through the same services as the screens, so an
// export holds the rows the screen lists (every page of them), and the CLI's
// `spillscope export` reads through it too.
type Exports struct {
	ctx       context.Context
	store     *Store
	sessions  *Sessions
	retention *Retention
	links     *Links
	// saveDialog opens the save dialog; tests replace it (the Wails dialog
	// needs the window).
	saveDialog func(ctx context.Context, title, name string) (string, error)
	now        func() time.Time
}

// NewExports builds the Exports service over the screens' services.
func NewExports(store *Store, s *Sessions, r *Retention, l *Links) *Exports {
	return &Exports{ctx: context.Background(), store: store, sessions: s, retention: r, links: l,
		saveDialog: saveFileDialog, now: time.Now}
}

// Startup receives the Wails context (the save dialog needs it).
func (e *Exports) Startup(ctx context.Context) { e.ctx = ctx }

// ExportPathQuery titles the save dialog and proposes a file name.
type ExportPathQuery struct {
	Title string `json:"title"`
	Name  string `json:"name"`
}

// ChoosePath opens the save dialog and returns the path picked ("" when
// the user cancelled). Nothing is written: Export writes, and refuses a
// path inside a session folder.
func (e *Exports) ChoosePath(q ExportPathQuery) (string, error) {
	p, err := e.saveDialog(e.ctx, q.Title, filepath.Base(q.Name))
	if err != nil {
		return "", coded("dialog-failed").because(err)
	}
	return p, nil
}

// Export renders req and writes it to req.Path, which must be absolute and
// outside every session folder (and the app's own data folder). The file
// is written whole or not at all.
func (e *Exports) Export(req ExportRequest) (ExportResult, error) {
	path, err := e.checkPath(req.Path)
	if err != nil {
		return ExportResult{}, err
	}
	var buf bytes.Buffer
	n, err := e.render(&buf, req)
	if err != nil {
		return ExportResult{}, err
	}
	if err := writeFileAtomic(path, buf.Bytes()); err != nil {
		return ExportResult{}, coded("export-write-failed", "path", path).because(err)
	}
	return ExportResult{Path: path, Rows: n, Bytes: int64(buf.Len())}, nil
}

// checkPath refuses a path an export may not write: relative, a folder,
// inside a session folder (configured, a harness's usual place, or one the
// index has read from) or inside the app's data folder.
func (e *Exports) checkPath(path string) (string, error) {
	if path == "" || !filepath.IsAbs(path) {
		return "", coded("export-path-invalid", "path", path)
	}
	path = filepath.Clean(path)
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return "", coded("export-path-invalid", "path", path)
	}
	if st, err := os.Stat(filepath.Dir(path)); err != nil || !st.IsDir() {
		return "", coded("export-path-invalid", "path", path)
	}
	roots := e.store.Roots()
	for _, r := range DefaultRoots(e.store.cfg) {
		roots = append(roots, r.Path)
	}
	if db, err := e.store.DB(); err == nil {
		if indexed, err := db.IndexedRoots(context.Background()); err == nil {
			roots = append(roots, indexed...)
		}
	}
	if root, in := sessions.RootOf(path, roots); in {
		return "", coded("export-path-in-session", "path", path, "root", root)
	}
	if root, in := sessions.RootOf(path, []string{e.store.DataDir()}); in {
		return "", coded("export-path-in-data", "path", path, "root", root)
	}
	return path, nil
}

// writeFileAtomic writes data beside path and renames it into place, so a
// failed export never leaves half a file where the user looks for one.
func writeFileAtomic(path string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer os.Remove(tmp)
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Chmod(0o644); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// render renders req to w and returns how many rows it holds (the report:
// its largest results).
func (e *Exports) render(w io.Writer, req ExportRequest) (int, error) {
	format := req.Format
	if format == "" {
		format = FormatCSV
		if req.What == ExportReport {
			format = FormatHTML
		}
	}
	switch {
	case req.What == ExportReport && format == FormatCSV,
		req.What != ExportReport && format == FormatHTML,
		format != FormatCSV && format != FormatJSON && format != FormatHTML:
		return 0, coded("export-format-unsupported", "what", req.What, "format", format)
	}
	if req.What == ExportReport {
		rep, err := e.report(req.Report)
		if err != nil {
			return 0, err
		}
		if format == FormatJSON {
			return len(rep.largest.rows), writeReportJSON(w, rep)
		}
		return len(rep.largest.rows), writeReportHTML(w, rep)
	}
	t, err := e.table(req)
	if err != nil {
		return 0, err
	}
	if format == FormatCSV {
		return len(t.rows), writeCSV(w, t)
	}
	b, err := tableJSON(t)
	if err != nil {
		return 0, err
	}
	b = append(b, '\n')
	_, err = w.Write(b)
	return len(t.rows), err
}

// table reads a subject's rows through the screen's own service.
func (e *Exports) table(req ExportRequest) (table, error) {
	switch req.What {
	case ExportSweep:
		if len(req.Policies.Columns) > 0 {
			series, err := e.retention.SweepPolicies(req.Policies)
			if err != nil {
				return table{}, err
			}
			return tableOf(seriesColumns, seriesRows(series)), nil
		}
		rows, err := e.retention.Sweep(req.Sweep)
		if err != nil {
			return table{}, err
		}
		return tableOf(sweepColumns, rows), nil
	case ExportResults:
		rows, err := e.resultRows(req.Results)
		if err != nil {
			return table{}, err
		}
		return tableOf(resultColumns, rows), nil
	case ExportLinks:
		rows, _, err := e.linkRows(req.Links, 0)
		if err != nil {
			return table{}, err
		}
		return tableOf(linkColumns, rows), nil
	case ExportCompare:
		v, err := e.retention.Compare(req.Compare)
		if err != nil {
			return table{}, err
		}
		return tableOf(compareColumns, compareRows(v)), nil
	}
	return table{}, coded("export-what-unknown", "what", req.What)
}

// pages reads every page of a list, MaxPage rows at a time.
func pages[T any](page func(offset, limit int) ([]T, int, error)) ([]T, error) {
	var out []T
	for off := 0; ; off += MaxPage {
		rows, total, err := page(off, MaxPage)
		if err != nil {
			return nil, err
		}
		out = append(out, rows...)
		if len(rows) < MaxPage || len(out) >= total {
			return out, nil
		}
	}
}

// resultRows lists every result of a results list, as its screen does.
func (e *Exports) resultRows(q ResultsExport) ([]ResultRow, error) {
	var page func(off, lim int) (ResultPage, error)
	switch q.List {
	case "", "largest":
		page = func(off, lim int) (ResultPage, error) { return e.sessions.Largest(PageQuery{Offset: off, Limit: lim}) }
	case "session":
		page = func(off, lim int) (ResultPage, error) {
			return e.sessions.Results(ResultsQuery{SessionID: q.SessionID, Order: q.Order, OnlyNotices: q.OnlyNotices, Offset: off, Limit: lim})
		}
	case "search":
		page = func(off, lim int) (ResultPage, error) {
			return e.sessions.Search(SearchQuery{Query: q.Query, Order: q.Order, Offset: off, Limit: lim})
		}
	default:
		return nil, coded("export-list-unknown", "list", q.List)
	}
	return pages(func(off, lim int) ([]ResultRow, int, error) {
		p, err := page(off, lim)
		return p.Rows, p.Total, err
	})
}

// linkRows lists the links list's rows (at most limit when limit > 0) and
// the counts of its first page, which cover the whole filtered list.
func (e *Exports) linkRows(q LinkQuery, limit int) ([]LinkRow, LinkPage, error) {
	var counts LinkPage
	rows, err := pages(func(off, lim int) ([]LinkRow, int, error) {
		if limit > 0 && off >= limit {
			return nil, off, nil
		}
		q.Offset, q.Limit = off, lim
		p, err := e.links.List(q)
		if off == 0 {
			counts = p
			counts.Rows = nil
		}
		return p.Rows, p.Total, err
	})
	if limit > 0 && len(rows) > limit {
		rows = rows[:limit]
	}
	return rows, counts, err
}

// writeReportJSON writes the report's sections as one JSON object.
func writeReportJSON(w io.Writer, r report) error {
	out := map[string]any{
		"scope": r.scope, "generated": r.generated, "version": r.version,
		"summary": r.summaryJSON, "linkCounts": r.linkCounts,
	}
	for name, t := range map[string]table{"largest": r.largest, "sweep": r.sweep, "links": r.links, "compare": r.compare} {
		b, err := tableJSON(t)
		if err != nil {
			return err
		}
		out[name] = json.RawMessage(b)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(out); err != nil {
		return fmt.Errorf("app: report: %w", err)
	}
	return nil
}
