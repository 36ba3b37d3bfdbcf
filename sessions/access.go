package sessions

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
)

// The file rule. Tool results are untrusted, and a spill notice is text in
// one: a forged "Full output saved to: /etc/shadow" must never make
// Spillscope open /etc/shadow. Every reader of a file that a session names
// (the spill pane and its paging, image blocks given by path, the indexer's
// spill resolution, the CLI) goes through FileRule, and nothing else opens
// such a file.
//
// A file may be opened only when its real path (after "..", symlinks and
// the opened descriptor's own identity) lies in one of the locations the
// result's own harness writes for that session, or the locations of the
// notice convention that named it, with that location's file-name shape.
// Anything else is a state (FileOutside), never an error and never read.

// File states, as the result header and the spill pane show them.
const (
	// FileExists: allowed, and a regular file is there.
	FileExists = "exists"
	// FileMissing: allowed, and nothing is there (harnesses and the OS clear
	// old spill files; a copied session folder may lack them).
	FileMissing = "missing"
	// FileOutside: not in any folder the session's harness writes: never
	// opened, whatever is there.
	FileOutside = "outside"
	// FileUnreadable: allowed and present, but not a regular file or not
	// readable.
	FileUnreadable = "unreadable"
	// FileOtherSession: the notice names a file in another session's spill
	// folder (a fork's inherited notice, or a forged one): marked, never
	// opened.
	FileOtherSession = "other-session"
)

// Location is one folder a harness writes spill files or attachments to,
// and the shape of the paths it writes there.
type Location struct {
	// Base is a trusted folder, as its real path: a configured session
	// root, the system temp folder, a data folder.
	Base string
	// Pattern matches a file's slash-separated path under Base: the folder
	// layout and the harness's file-name shape.
	Pattern *regexp.Regexp
	// Shared marks a base other users can write to (the temp folder): a
	// file there must be owned by the user running Spillscope.
	Shared bool
}

// NewLocation builds a location under base, whose symlinks are resolved
// here: base is trusted (configuration, the OS), what lies below it is not.
func NewLocation(base, pattern string, shared bool) Location {
	return Location{Base: realPath(base), Pattern: locationPattern(pattern), Shared: shared}
}

// locationPatterns holds compiled location patterns: a pass builds a
// session's file rule for each of its files with a notice, and the
// patterns repeat (the temp folders' for every session, a session's own
// for each of its subagents' transcripts). A compiled regexp is safe to
// share; the cache is emptied when it reaches locationPatternsMax.
var locationPatterns struct {
	sync.Mutex
	m map[string]*regexp.Regexp
}

const locationPatternsMax = 1024

// locationPattern is regexp.MustCompile(pattern), compiled once.
func locationPattern(pattern string) *regexp.Regexp {
	locationPatterns.Lock()
	defer locationPatterns.Unlock()
	if re, ok := locationPatterns.m[pattern]; ok {
		return re
	}
	if len(locationPatterns.m) >= locationPatternsMax || locationPatterns.m == nil {
		locationPatterns.m = map[string]*regexp.Regexp{}
	}
	re := regexp.MustCompile(pattern)
	locationPatterns.m[pattern] = re
	return re
}

// SessionLocation is a location inside a session root: dir is a folder the
// harness's layout derives from the session's own path (which lies under
// root), and pattern the shape of files below dir. The pattern is anchored
// to dir's place under the root's real path, so a symlink inside the root
// (dir itself, or a link to another session's folder) can never lead out.
func SessionLocation(root, dir, pattern string) (Location, bool) {
	if root == "" || dir == "" {
		return Location{}, false
	}
	rel, err := filepath.Rel(root, dir)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return Location{}, false
	}
	prefix := ""
	if rel != "." {
		prefix = regexp.QuoteMeta(filepath.ToSlash(rel)) + "/"
	}
	return Location{Base: realPath(root), Pattern: locationPattern("^" + prefix + strings.TrimPrefix(pattern, "^"))}, true
}

// RootLocations is a shape allowed at any depth under every configured
// root: for conventions whose files are not per session (a relayed goose or
// OpenCode notice whose file was copied beside the sessions).
func RootLocations(roots []string, pattern string) []Location {
	var out []Location
	for _, r := range roots {
		out = append(out, NewLocation(r, `^(?:[^/]+/)*`+strings.TrimPrefix(pattern, "^"), false))
	}
	return out
}

// TempLocations is a shape in each system temp folder (shared: owned by
// the user).
func TempLocations(env Env, pattern string) []Location {
	var out []Location
	for _, d := range env.TempDirs() {
		out = append(out, NewLocation(d, pattern, true))
	}
	return out
}

// match reports whether real (a real path) lies in l.
func (l Location) match(real string) bool {
	rel, err := filepath.Rel(l.Base, real)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return false
	}
	return l.Pattern.MatchString(filepath.ToSlash(rel))
}

// FileRule is the set of locations one session's files may be opened from.
type FileRule struct {
	locs []Location
}

// RuleFor builds the rule for files a session names: its harness's own
// locations, plus those of the convention of the notice that named the
// file (noticeKind; "" for none), which may be another harness's (an MCP
// bridge relays goose's notice inside a Claude Code session).
func RuleFor(s SessionRef, noticeKind string) FileRule {
	var r FileRule
	if h, ok := LookupHarness(s.Harness); ok {
		r.locs = append(r.locs, h.Locations(s)...)
	}
	if noticeKind != "" {
		if owner := noticeOwner(noticeKind); owner != nil && owner(s) != nil {
			r.locs = append(r.locs, owner(s)...)
		}
	}
	return r
}

// AttachmentStoreRule allows only files of Spillscope's own attachment
// store in dataDir: for image paths in pasted tool results, which belong to
// no session.
func AttachmentStoreRule(dataDir string) FileRule {
	return FileRule{locs: []Location{NewLocation(filepath.Join(dataDir, "attachments"), "^"+attachmentShape, false)}}
}

// noticeOwner finds the locations of a notice convention: the registered
// harness that writes it, else a convention of a harness this build does
// not read yet (conventions.go).
func noticeOwner(kind string) func(SessionRef) []Location {
	for _, h := range Harnesses() {
		for _, r := range h.Notices() {
			if r.Kind == kind {
				return h.Locations
			}
		}
	}
	if c, ok := pendingConventions[kind]; ok {
		return c.locations
	}
	return nil
}

// FileCheck is the rule's verdict on one path.
type FileCheck struct {
	// Path is the path as named (cleaned); Real its resolved path when it
	// could be resolved.
	Path  string `json:"path"`
	Real  string `json:"real,omitempty"`
	State string `json:"state"`
	// Detail says why a file is unreadable.
	Detail string `json:"detail,omitempty"`
}

// where finds the location real lies in.
func (r FileRule) where(real string) (Location, bool) {
	for _, l := range r.locs {
		if l.match(real) {
			return l, true
		}
	}
	return Location{}, false
}

// Check decides a path's state without opening it.
func (r FileRule) Check(path string) FileCheck {
	f, c := r.Open(path)
	if f != nil {
		f.Close()
	}
	return c
}

// Open opens path for reading if the rule allows it. The file is returned
// only in state FileExists; every other state is a verdict, not an error.
// The checks run on the real path, and again on the opened descriptor (its
// identity and, where the OS says, its path), so a link swapped in between
// cannot lead outside.
func (r FileRule) Open(path string) (*os.File, FileCheck) {
	c := FileCheck{Path: path, State: FileOutside}
	if path == "" || !filepath.IsAbs(path) {
		return nil, c
	}
	c.Path = filepath.Clean(path)
	real, err := filepath.EvalSymlinks(c.Path)
	if errors.Is(err, fs.ErrNotExist) {
		// Missing only where the session's harness would have written it;
		// the longest existing prefix is resolved, so a missing file below
		// a link is judged where the link leads.
		if _, ok := r.where(realPath(c.Path)); ok {
			c.Real, c.State = realPath(c.Path), FileMissing
		}
		return nil, c
	}
	if err != nil {
		return nil, c
	}
	loc, ok := r.where(real)
	if !ok {
		return nil, c
	}
	c.Real = real
	if testHookResolved != nil {
		testHookResolved(real)
	}
	f, err := openNoFollow(real)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			c.State = FileMissing
		} else {
			c.State, c.Detail = FileUnreadable, errText(err)
		}
		return nil, c
	}
	fail := func(state, detail string) (*os.File, FileCheck) {
		f.Close()
		c.State, c.Detail = state, detail
		return nil, c
	}
	st, err := f.Stat()
	if err != nil {
		return fail(FileUnreadable, errText(err))
	}
	if !st.Mode().IsRegular() {
		return fail(FileUnreadable, "not a regular file")
	}
	if loc.Shared && !ownedByUser(st) {
		// Anyone can create files in /tmp: one another user planted is
		// not this user's harness's.
		return fail(FileOutside, "")
	}
	// The descriptor must be the file that was checked: if a folder on the
	// way was swapped for a link after EvalSymlinks, the path the kernel
	// opened differs, or its identity does.
	if now, err := os.Stat(real); err != nil || !os.SameFile(st, now) {
		return fail(FileOutside, "")
	}
	if opened, ok := fdPath(f); ok && opened != real {
		if _, ok := r.where(opened); !ok {
			return fail(FileOutside, "")
		}
	}
	c.State = FileExists
	return f, c
}

// ReadAllowed reads a whole file the rule allows, at most limit bytes; any
// other state is returned as an error naming it (for image blocks given by
// path, which have no state to show).
func (r FileRule) ReadAllowed(path string, limit int64) ([]byte, error) {
	f, c := r.Open(path)
	if f == nil {
		return nil, fmt.Errorf("%w: %s is %s", ErrFileRule, c.Path, c.State)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if st.Size() > limit {
		return nil, fmt.Errorf("%w: %s is %d bytes, more than %d", ErrFileRule, c.Path, st.Size(), limit)
	}
	buf := make([]byte, st.Size())
	n, err := f.ReadAt(buf, 0)
	if err != nil && n < len(buf) {
		return nil, err
	}
	return buf[:n], nil
}

// testHookResolved, set only by tests, runs between the path check and
// the open: where a swapped folder would strike.
var testHookResolved func(real string)

// ErrFileRule reports a file the rule did not let Spillscope open.
var ErrFileRule = errors.New("sessions: file not opened")
