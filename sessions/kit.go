package sessions

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"spillscope/retention"
	"spillscope/sessions/internal/readkit"
)

// What the adapters of the harness subpackages (opencode, copilot, goose)
// share: their diagnostics under this package's codes, their spill rules as
// file-rule locations, and the cursor of a line log they read.

// kitDiag records a diagnostic of a harness subpackage (its own code, for
// its own tests) under this package's code for the same fault, as, so the
// window words it in every language. Params carry over under this
// package's names; a place given as a database row becomes the "where" an
// English reader needs. Any code without a match of its own is a bad
// record.
func kitDiag(p *Parsed, label string, d readkit.Diagnostic, as string) {
	at := func() string {
		if d.Row > 0 {
			return fmt.Sprintf("row %d", d.Row)
		}
		return fmt.Sprintf("line %d", d.Line)
	}
	var params map[string]string
	switch as {
	case DiagNotJSON:
		params = map[string]string{"start": d.Params["start"]}
	case DiagNoType:
		params = map[string]string{}
	case DiagUnknownType:
		params = map[string]string{"type": d.Params["type"], "count": d.Params["count"], "firstLine": fmt.Sprint(d.Line)}
	case DiagUnknownItem:
		params = map[string]string{"type": d.Params["type"], "count": d.Params["count"], "where": at()}
	case DiagOrphanResult:
		params = map[string]string{"callId": d.Params["call"]}
	case DiagNotSource:
		params = map[string]string{"harness": label, "detail": d.Message}
	default:
		as = DiagBadRecord
		where := d.Params["where"]
		if where == "" {
			where = at()
			if t := d.Params["type"]; t != "" {
				where += " (" + t + " event)"
			}
		}
		msg := d.Params["error"]
		if msg == "" {
			msg = d.Message
		}
		params = map[string]string{"where": where, "error": msg}
	}
	p.Diag(d.Line, as, params)
}

// spillLocations are a subpackage's spill rule as the file rule's
// locations: each of its folders with its file-name shape (shared for the
// temp folder, where a file must be the user's own), and the same shape at
// any depth under the configured roots, under folder when it is not ""
// (spill files copied beside the sessions, as a copied data folder keeps
// them).
func spillLocations(r readkit.SpillRule, shared bool, roots []string, folder string) []Location {
	var out []Location
	for _, d := range r.Dirs {
		out = append(out, NewLocation(d, r.Name.String(), shared))
	}
	shape := strings.TrimPrefix(r.Name.String(), "^")
	if folder != "" {
		shape = folder + "/" + shape
	}
	return append(out, RootLocations(roots, shape)...)
}

// kitNotice is a notice rule whose recogniser is a subpackage's: kind is
// the one kind of the rule (recognise may tell several apart).
func kitNotice(kind, marker string, recognise func(string) (kind, path string, ok bool)) NoticeRule {
	return NoticeRule{Kind: kind, Marker: marker, Match: func(text string) (string, bool) {
		k, path, ok := recognise(text)
		return path, ok && k == kind
	}}
}

// logCursor is where a subpackage's pass over a line log stopped: the
// subpackage's own cursor, with the byte offset it covers and a
// fingerprint of those bytes (linelog.go's), which tells an append (the
// prefix unchanged) from a rewrite.
type logCursor struct {
	Offset int64           `json:"offset"`
	FP     string          `json:"fp"`
	Sub    json.RawMessage `json:"sub"`
}

// resumeLog decodes the subpackage's cursor into sub when the log at path
// only grew since the cursor's pass (ReadAppended); else sub stays zero and
// the log is read whole (ReadAll).
func resumeLog(src Source, sub any) ReadMode {
	var c logCursor
	if src.Cursor == "" || json.Unmarshal([]byte(src.Cursor), &c) != nil || c.Offset <= 0 || c.Offset > src.Size {
		return ReadAll
	}
	f, err := os.Open(src.Path)
	if err != nil {
		return ReadAll
	}
	defer f.Close()
	if !sameFingerprint(f, c.Offset, c.FP) || json.Unmarshal(c.Sub, sub) != nil {
		return ReadAll
	}
	return ReadAppended
}

// nextLog is the cursor after a pass that stopped at offset.
func nextLog(path string, offset int64, sub any) string {
	c := logCursor{Offset: offset}
	if offset > 0 {
		if f, err := os.Open(path); err == nil {
			c.FP, _ = fingerprint(f, offset)
			f.Close()
		}
	}
	c.Sub, _ = json.Marshal(sub)
	b, _ := json.Marshal(c)
	return string(b)
}

// kitTime is a subpackage's time as the index stores times; "" for none.
func kitTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339Nano)
}

// kitLocator packs a subpackage's locator into the index's: Key holds it
// whole, Offset and Index order the session's results.
func kitLocator(sub any, offset, length int64, index int) Locator {
	b, _ := json.Marshal(sub)
	return Locator{Offset: offset, Length: length, Index: index, Key: string(b)}
}

// isSQLite reports whether a probe's first bytes are the SQLite header.
func isSQLite(p *Probe) bool {
	l := p.Lines()
	return len(l) > 0 && strings.HasPrefix(string(l[0]), "SQLite format 3\x00")
}

// beside reports whether a regular file named name sits in dir.
func beside(dir, name string) (os.FileInfo, bool) {
	fi, err := os.Stat(dir + string(os.PathSeparator) + name)
	return fi, err == nil && fi.Mode().IsRegular()
}

// kitResult is what a subpackage read back, checked to be the result
// asked for.
func kitResult(got string, blocks []retention.Block, isError bool, err, gone error, path, callID string) (retention.Result, error) {
	if errors.Is(err, gone) {
		return retention.Result{}, fmt.Errorf("%w: %v", ErrResultGone, err)
	}
	if err != nil {
		return retention.Result{}, err
	}
	if got != callID {
		return retention.Result{}, fmt.Errorf("%w: %s holds %q there, not %q", ErrResultGone, path, got, callID)
	}
	return retention.Result{Content: blocks, IsError: isError}, nil
}

// walStamp folds a SQLite database's -wal file into its stamp: commits
// land there, and the database file changes only at a checkpoint.
func walStamp(path string, size, mtime int64) (int64, int64) {
	if fi, ok := beside(filepath.Dir(path), filepath.Base(path)+"-wal"); ok {
		return size + fi.Size(), max(mtime, fi.ModTime().UnixNano())
	}
	return size, mtime
}

// dbRead decides what a pass over a database that ended in err keeps;
// done is false when the pass succeeded and the caller goes on. A pass that saw
// the database change under it (readkit.ErrChangedWhileRead), or that
// failed after earlier passes stored it, writes nothing and retries next
// time, so nothing stored is lost; a first pass that cannot read it keeps
// what it read with a diagnostic saying why, and no cursor. A cancelled
// pass stops.
func dbRead(ctx context.Context, src Source, p *Parsed, err error, label string) (ReadState, bool, error) {
	switch {
	case err == nil:
		return ReadState{}, false, nil
	case ctx.Err() != nil:
		return ReadState{}, true, ctx.Err()
	case errors.Is(err, readkit.ErrChangedWhileRead) || src.Cursor != "":
		return ReadState{Cursor: src.Cursor, Mode: ReadChanged, Retry: true}, true, nil
	}
	p.Diag(0, DiagUnreadable, map[string]string{"error": label + " database: " + errText(err)})
	return ReadState{Mode: ReadAll}, true, nil
}

// kitGone is the error of a locator the index holds that no subpackage
// can read.
func kitGone(path string) error {
	return fmt.Errorf("%w: %s: bad locator", ErrResultGone, path)
}
