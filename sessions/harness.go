package sessions

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"sync"

	"spillscope/retention"
)

// Harness is one agent's way of keeping sessions on disk: where they live,
// how to tell its files, how to read them (incrementally where the format
// allows), where it writes spill files and attachments, and how to read one
// tool result back. Each harness is one file (or subpackage) that calls
// Register; nothing else in Spillscope switches on harness names. The model
// is database/sql's driver registry.
//
// A harness owns the meaning of its Source.Cursor and of every Locator it
// writes: the indexer stores them and hands them back, never reads them. A
// line log can keep a byte offset there, a zstd log a frame, a database its
// change marker and row ids.
type Harness interface {
	// Name is the stable id stored in the index and printed by the CLI
	// ("claude-code"). It never changes once released.
	Name() string
	// Label is the harness's product name, for people ("Claude Code").
	Label() string
	// DefaultRoots are the folders this harness writes sessions to on this
	// machine, as its own source resolves them from env. They need not
	// exist.
	DefaultRoots(env Env) []string
	// Detect says whether a file is one of this harness's sources. It must
	// be positive: a file the harness cannot tell is not its own (MatchNone),
	// and is never read as if it were.
	Detect(p *Probe) Match
	// Notices are the spill-notice conventions this harness writes, each
	// with its recogniser (the Kind is SpillNotice.Kind).
	Notices() []NoticeRule
	// Locations are the folders this harness writes spill files and
	// attachments to for one session, with the file-name shape of each. A
	// file a notice names is opened only inside one of these (FileRule).
	Locations(s SessionRef) []Location
	// SpillCandidates are where to look for the file a notice names, best
	// first: the named path itself, and where the harness's own layout
	// puts it beside the session (a copied session folder keeps its spill
	// files, under another absolute path). Each candidate still has to pass
	// the file rule.
	SpillCandidates(named string, s SessionRef) []string
	// Read brings one source up to date from src.Cursor ("" for a first
	// read) into p. Bad input becomes diagnostics in p; an error means the
	// pass must stop (a cancelled context).
	Read(ctx context.Context, src Source, p *Parsed) (ReadState, error)
	// ReadResult reads one tool result back from its source at the locator
	// Read gave it; callID must match.
	ReadResult(path string, loc Locator, callID string) (retention.Result, error)
}

// Superseder is a harness whose sources can be superseded without changing
// (dsh leaves an older generation of a log as it was beside the newer one
// it migrated it to): an unchanged source it says is superseded is
// detected afresh, so it leaves the index rather than being read as a
// second copy of its session.
type Superseder interface {
	Superseded(path string) bool
}

func superseded(h Harness, path string) bool {
	s, ok := h.(Superseder)
	return ok && s.Superseded(path)
}

// OriginalReader is a harness whose log can keep, beside a result it cut
// itself, the complete output (Codex's exec_command_end aggregated_output).
// ReadOriginal reads that output back from the locator Read put in the
// result's Original; callID must match.
type OriginalReader interface {
	ReadOriginal(path string, loc Locator, callID string) (string, error)
}

// Match is how sure a harness is that a file is its own.
type Match int

const (
	// MatchNone: not this harness's file.
	MatchNone Match = iota
	// MatchContent: its first records have this harness's shape.
	MatchContent
	// MatchPath: its name and place are this harness's own layout (a Codex
	// rollout-*.jsonl, a Gemini chats/session-*.json).
	MatchPath
)

// ReadMode says what a pass read, so the indexer knows what to keep.
type ReadMode int

const (
	// ReadAll: the whole source was read; results and sessions not seen
	// are gone from it. Results seen again keep their ids (their natural
	// key matches), so a rewritten file keeps its ids.
	ReadAll ReadMode = iota
	// ReadAppended: only what was added after the cursor; what earlier
	// passes stored stays, and a call id seen again counts on from them.
	ReadAppended
	// ReadChanged: records added or changed since the cursor (a
	// database's change marker); each replaces the stored result with its
	// natural key, and nothing else is dropped.
	ReadChanged
)

// ReadState is what one Read did.
type ReadState struct {
	// Cursor is where the next pass resumes, in the harness's own terms.
	Cursor string
	Mode   ReadMode
	// Retry says the source changed under the pass (a database a writer
	// opened while it was read), so what it read may be torn: the indexer
	// keeps what earlier passes stored, writes nothing of this one, and
	// reads the source again on the next pass from the same cursor.
	Retry bool
}

// ChangeStamper is implemented by a harness whose sources change without
// their own file changing: a SQLite database in WAL mode commits into
// <db>-wal and touches the database file only at a checkpoint; a session
// file of a storage folder stays as it is while its messages are written
// beside it. The indexer compares the stamp, not the file's own size and
// modification time, to tell a changed source, so a commit is a change.
type ChangeStamper interface {
	// ChangeStamp folds whatever else the source's content lives in into
	// the file's size and modification time (Unix nanoseconds).
	ChangeStamp(path string, size, mtime int64) (int64, int64)
}

// changeStamp is a source's stamp as its harness defines it.
func changeStamp(harness, path string, size, mtime int64) (int64, int64) {
	if h, ok := LookupHarness(harness); ok {
		if cs, ok := h.(ChangeStamper); ok {
			return cs.ChangeStamp(path, size, mtime)
		}
	}
	return size, mtime
}

// Source is one file (or database) a harness reads, as the indexer found
// it.
type Source struct {
	Path    string
	Root    string
	Size    int64
	ModTime int64
	// Cursor is the one the previous Read of this source returned; "" for
	// a first read, or when the source must be read whole.
	Cursor string
	// KnownCalls returns the tool names of calls stored by earlier passes,
	// for a pass that resumes (a result whose call came earlier).
	KnownCalls func() (map[string]string, error)
	// Progress, when set, takes the bytes read so far of a large source.
	Progress func(done int64)
	// Env is the machine as the harness should see it (its home, the temp
	// folder), for a reader that resolves paths (an attachment store).
	Env Env
}

// Locator is where a tool result sits in its source. Only the harness that
// wrote it gives its fields a meaning: a byte range and the result's place
// within it for line logs and JSON documents; a frame offset and a line for
// a zstd log; a row id for a database (Key holding anything else it needs).
// Offset and Index also order a session's results in source order.
type Locator struct {
	Offset int64  `json:"offset"`
	Length int64  `json:"length"`
	Index  int    `json:"index"`
	Key    string `json:"key,omitempty"`
}

// Probe is what detection sees of a candidate file: its path, its place
// under the root, and (read on first use, once for every harness) its first
// lines.
type Probe struct {
	// Path is the file; Rel its slash-separated path under the root.
	Path, Rel string
	read      bool
	lines     [][]byte
	// buf holds lines, from probeBuffers until release.
	buf *[probeBytes]byte
}

// probeBuffers are the probes' read buffers: a pass detects thousands of
// files, one at a time.
var probeBuffers = sync.Pool{New: func() any { return new([probeBytes]byte) }}

// release hands the probe's read buffer back once detection is done with
// it; its lines are unusable afterwards.
func (p *Probe) release() {
	if p.buf != nil {
		p.lines = nil
		probeBuffers.Put(p.buf)
		p.buf = nil
	}
}

// probeBytes bounds what detection reads of a file: the first records of
// every supported format start within it, whatever follows.
const probeBytes = 64 << 10

// probeLines bounds how many lines detection looks at.
const probeLines = 8

// Lines returns up to the first 8 lines within the first 64 KB (the last
// may be cut short). A file that cannot be read has none.
func (p *Probe) Lines() [][]byte {
	if p.read {
		return p.lines
	}
	p.read = true
	f, err := os.Open(p.Path)
	if err != nil {
		return nil
	}
	defer f.Close()
	p.buf = probeBuffers.Get().(*[probeBytes]byte)
	buf := p.buf[:]
	n, _ := io.ReadFull(f, buf)
	rest := buf[:n]
	for len(rest) > 0 && len(p.lines) < probeLines {
		line := rest
		if i := bytes.IndexByte(rest, '\n'); i >= 0 {
			line, rest = rest[:i], rest[i+1:]
		} else {
			rest = nil
		}
		p.lines = append(p.lines, bytes.TrimSuffix(line, []byte("\r")))
	}
	return p.lines
}

// Base is the file's name.
func (p *Probe) Base() string { return filepath.Base(p.Path) }

// SessionRef names one session for the file rule and spill resolution: its
// harness, the source it was read from, and the harness's session id.
type SessionRef struct {
	Harness   string
	Path      string
	Root      string
	SessionID string
	// Roots are the configured session roots; DataDir is Spillscope's own
	// data folder (its attachment store).
	Roots   []string
	DataDir string
	Env     Env
}

var registry = struct {
	sync.RWMutex
	byName map[string]Harness
}{byName: map[string]Harness{}}

// Register makes a harness available to the indexer, the CLI and the
// window. It panics on a duplicate or empty name, as database/sql does: two
// harnesses with one name is a programming error found at start-up.
func Register(h Harness) {
	registry.Lock()
	defer registry.Unlock()
	name := h.Name()
	if name == "" {
		panic("sessions: Register of a harness with no name")
	}
	if _, dup := registry.byName[name]; dup {
		panic("sessions: Register called twice for harness " + name)
	}
	registry.byName[name] = h
	rebuildNoticeRules(sortedHarnesses())
}

// Harnesses lists the registered harnesses by name.
func Harnesses() []Harness {
	registry.RLock()
	defer registry.RUnlock()
	return sortedHarnesses()
}

// sortedHarnesses lists the registry by name; the caller holds its lock.
func sortedHarnesses() []Harness {
	out := make([]Harness, 0, len(registry.byName))
	for _, h := range registry.byName {
		out = append(out, h)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name() < out[j].Name() })
	return out
}

// LookupHarness finds a registered harness by name.
func LookupHarness(name string) (Harness, bool) {
	registry.RLock()
	defer registry.RUnlock()
	h, ok := registry.byName[name]
	return h, ok
}

// HarnessLabel is a harness's label, or its name when it is not
// registered (an index written by a build that had it).
func HarnessLabel(name string) string {
	if h, ok := LookupHarness(name); ok {
		return h.Label()
	}
	return name
}

// detect picks the harness that is surest a file is its own (a layout
// match beats a content match; a tie goes to the first name, so the choice
// never depends on registration order). "" means no harness reads it.
func detect(p *Probe) string {
	best, name := MatchNone, ""
	for _, h := range Harnesses() {
		if m := h.Detect(p); m > best {
			best, name = m, h.Name()
		}
	}
	return name
}

// harnessFor is the registered harness of an indexed row.
func harnessFor(name string) (Harness, error) {
	h, ok := LookupHarness(name)
	if !ok {
		return nil, fmt.Errorf("sessions: no harness %q in this build", name)
	}
	return h, nil
}

// RootStatus is one default root of a harness on this machine.
type RootStatus struct {
	Path   string `json:"path"`
	Exists bool   `json:"exists"`
}

// HarnessInfo describes a registered harness for the CLI and settings.
type HarnessInfo struct {
	Name        string       `json:"name"`
	Label       string       `json:"label"`
	Roots       []RootStatus `json:"roots"`
	NoticeKinds []string     `json:"noticeKinds"`
}

// DescribeHarnesses lists every registered harness with its default roots
// on this machine and which of them exist.
func DescribeHarnesses(env Env) []HarnessInfo {
	var out []HarnessInfo
	for _, h := range Harnesses() {
		info := HarnessInfo{Name: h.Name(), Label: h.Label(), Roots: []RootStatus{}, NoticeKinds: []string{}}
		for _, r := range h.Notices() {
			info.NoticeKinds = append(info.NoticeKinds, r.Kind)
		}
		for _, r := range h.DefaultRoots(env) {
			st, err := os.Stat(r)
			info.Roots = append(info.Roots, RootStatus{Path: r, Exists: err == nil && st.IsDir()})
		}
		out = append(out, info)
	}
	return out
}

// DefaultRoots are every registered harness's default roots that exist on
// this machine, each once, in harness order.
func DefaultRoots(env Env) []string {
	var out []string
	seen := map[string]bool{}
	for _, h := range DescribeHarnesses(env) {
		for _, r := range h.Roots {
			if r.Exists && !seen[r.Path] {
				seen[r.Path] = true
				out = append(out, r.Path)
			}
		}
	}
	return out
}
