package opencode

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"spillscope/sessions/internal/readkit"
)

// StorageCursor is where a pass over a storage folder stopped: the newest
// modification time (Unix nanoseconds) among the files and folders read.
type StorageCursor struct {
	Since int64 `json:"since"`
}

// ReadStorage reads the JSON storage folder at root (OpenCode's
// <data>/storage). A session whose files and folders are all older than
// the cursor is skipped; any other is read whole (OpenCode rewrites a part's
// file whenever the part changes, and removes files on revert), so its
// Session comes with Complete set.
func ReadStorage(ctx context.Context, root string, from StorageCursor, h Handler) (StorageCursor, error) {
	h = wrapCallbacks(h)
	e := &emitter{h: h}
	next := from
	files, err := filepath.Glob(filepath.Join(root, "session", "*", "*.json"))
	if err != nil {
		return from, err
	}
	sort.Strings(files)
	for _, sf := range files {
		if err := ctx.Err(); err != nil {
			return from, err
		}
		sid := strings.TrimSuffix(filepath.Base(sf), ".json")
		msgs, newest := storageMessages(root, sid)
		if fi, err := os.Stat(sf); err == nil {
			newest = max(newest, fi.ModTime().UnixNano())
		}
		next.Since = max(next.Since, newest)
		if newest <= from.Since {
			continue
		}
		if err := e.storageSession(root, sf, sid, msgs); err != nil {
			return from, readkit.Unwrap(err)
		}
	}
	if err := e.finish(); err != nil {
		return from, readkit.Unwrap(err)
	}
	return next, nil
}

// ReadStorageSession reads one session of the storage folder at root: its
// session file sf (<root>/session/<project>/<id>.json), its messages and
// their parts, reported whole (Complete).
func ReadStorageSession(ctx context.Context, root, sf string, h Handler) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	e := &emitter{h: wrapCallbacks(h)}
	sid := strings.TrimSuffix(filepath.Base(sf), ".json")
	msgs, _ := storageMessages(root, sid)
	if err := e.storageSession(root, sf, sid, msgs); err != nil {
		return readkit.Unwrap(err)
	}
	return readkit.Unwrap(e.finish())
}

// StorageStamp is what changes when OpenCode writes a session of the
// storage folder at root: the newest modification time (Unix nanoseconds)
// among its message and part files and their folders, and how many files
// it has (a revert removes some).
func StorageStamp(root, sid string) (newest int64, files int) {
	msgs, newest := storageMessages(root, sid)
	for _, m := range msgs {
		files += 1 + len(m.parts)
	}
	return newest, files
}

// StorageRoot is the storage folder a session file lies in
// (<root>/session/<project>/<id>.json), or "" when path is not one.
func StorageRoot(path string) string {
	proj := filepath.Dir(path)
	sess := filepath.Dir(proj)
	if filepath.Base(sess) != "session" || !strings.HasSuffix(path, ".json") || !IsStorage(filepath.Dir(sess)) {
		return ""
	}
	return filepath.Dir(sess)
}

type storedMessage struct {
	path  string
	parts []string
}

// storageMessages lists a session's message files and each message's part
// files, and the newest modification time among them and their folders.
func storageMessages(root, sid string) ([]storedMessage, int64) {
	var newest int64
	seen := func(path string) []fs.DirEntry {
		if fi, err := os.Stat(path); err == nil {
			newest = max(newest, fi.ModTime().UnixNano())
		}
		es, _ := os.ReadDir(path)
		return es
	}
	var out []storedMessage
	for _, me := range seen(filepath.Join(root, "message", sid)) {
		if me.IsDir() || !strings.HasSuffix(me.Name(), ".json") {
			continue
		}
		if fi, err := me.Info(); err == nil {
			newest = max(newest, fi.ModTime().UnixNano())
		}
		mid := strings.TrimSuffix(me.Name(), ".json")
		m := storedMessage{path: filepath.Join(root, "message", sid, me.Name())}
		for _, pe := range seen(filepath.Join(root, "part", mid)) {
			if pe.IsDir() || !strings.HasSuffix(pe.Name(), ".json") {
				continue
			}
			if fi, err := pe.Info(); err == nil {
				newest = max(newest, fi.ModTime().UnixNano())
			}
			m.parts = append(m.parts, filepath.Join(root, "part", mid, pe.Name()))
		}
		sort.Strings(m.parts)
		out = append(out, m)
	}
	return out, newest
}

func (e *emitter) storageSession(root, sf, sid string, msgs []storedMessage) error {
	rel := func(p string) string { r, _ := filepath.Rel(root, p); return filepath.ToSlash(r) }
	raw, err := os.ReadFile(sf)
	if err != nil {
		return e.bad(where{desc: rel(sf)}, err)
	}
	var sj sessionJSON
	if err := json.Unmarshal(raw, &sj); err != nil {
		return e.bad(where{desc: rel(sf)}, err)
	}
	if sj.ID == "" {
		sj.ID = sid // ids come from file names, as OpenCode's own migration takes them
	}
	type loaded struct {
		m     messageJSON
		parts []string
		path  string
	}
	var all []loaded
	for _, m := range msgs {
		b, err := os.ReadFile(m.path)
		var mj messageJSON
		if err == nil {
			err = json.Unmarshal(b, &mj)
		}
		if err != nil {
			if err := e.bad(where{desc: rel(m.path)}, err); err != nil {
				return err
			}
			continue
		}
		if mj.ID == "" {
			mj.ID = strings.TrimSuffix(filepath.Base(m.path), ".json")
		}
		if mj.SessionID == "" {
			mj.SessionID = sid
		}
		all = append(all, loaded{mj, m.parts, m.path})
	}
	sort.SliceStable(all, func(i, j int) bool {
		a, b := all[i].m, all[j].m
		ta, tb := ms(a.Time.Created), ms(b.Time.Created)
		if !ta.Equal(tb) {
			return ta.Before(tb)
		}
		return a.ID < b.ID
	})
	s := sj.session()
	s.Complete = true
	for i := len(all) - 1; i >= 0; i-- {
		if all[i].m.Role == "assistant" {
			s.Model, s.Provider = all[i].m.model()
			break
		}
	}
	if e.h.Session != nil {
		if err := e.h.Session(s); err != nil {
			return err
		}
	}
	for _, l := range all {
		hasStep := false
		for _, pp := range l.parts {
			b, err := os.ReadFile(pp)
			if err != nil {
				if err := e.bad(where{desc: rel(pp)}, err); err != nil {
					return err
				}
				continue
			}
			ids := partJSON{ID: strings.TrimSuffix(filepath.Base(pp), ".json"), SessionID: sid, MessageID: l.m.ID}
			step, err := e.part(b, &l.m, ids, where{loc: Locator{Source: SourceStorage, File: rel(pp)}, desc: rel(pp)})
			if err != nil {
				return err
			}
			hasStep = hasStep || step
		}
		if err := e.message(&l.m, hasStep, where{desc: rel(l.path)}); err != nil {
			return err
		}
	}
	return nil
}

// readStorageResult reads the part file a storage locator names, refusing
// any name that is not a part file inside the folder.
func readStorageResult(root string, loc Locator) (Result, error) {
	rel := filepath.FromSlash(loc.File)
	parts := strings.Split(filepath.ToSlash(filepath.Clean(rel)), "/")
	if filepath.IsAbs(rel) || len(parts) != 3 || parts[0] != "part" || parts[1] == ".." || !strings.HasSuffix(parts[2], ".json") {
		return Result{}, fmt.Errorf("%w: %q is not a part file", ErrResultGone, loc.File)
	}
	b, err := os.ReadFile(filepath.Join(root, rel))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return Result{}, fmt.Errorf("%w: %s", ErrResultGone, loc.File)
		}
		return Result{}, err
	}
	ids := partJSON{ID: strings.TrimSuffix(parts[2], ".json"), MessageID: parts[1]}
	return resultFromPart(b, ids, loc, loc.File)
}

// IsStorage reports whether dir is an OpenCode storage folder: it holds
// session/ and message/ (or part/) folders.
func IsStorage(dir string) bool {
	isDir := func(p string) bool { fi, err := os.Stat(p); return err == nil && fi.IsDir() }
	return isDir(filepath.Join(dir, "session")) && (isDir(filepath.Join(dir, "message")) || isDir(filepath.Join(dir, "part")))
}
