package dsh

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf16"
)

// ErrSegment reports a path segment that is not dsh's ~XXXX encoding.
var ErrSegment = errors.New("dsh: not an encoded path segment")

// safeUnit says whether dsh keeps a UTF-16 code unit literal in a path
// segment: [A-Za-z0-9._-], with '~' always escaped so decoding is unique.
func safeUnit(u uint16) bool {
	return u < 0x80 && (u >= 'a' && u <= 'z' || u >= 'A' && u <= 'Z' || u >= '0' && u <= '9' || u == '.' || u == '_' || u == '-')
}

func appendEscape(b []byte, u uint16) []byte {
	const digits = "0123456789ABCDEF"
	return append(b, '~', digits[u>>12], digits[u>>8&15], digits[u>>4&15], digits[u&15])
}

// EncodeSegment is dsh's encodeSegment: every UTF-16 code unit outside
// [A-Za-z0-9._-] (and every '~') becomes ~XXXX in upper-case hex, and the
// whole segments "." and ".." become ~002E and ~002E~002E, so an id can
// never traverse. dsh's session store refuses an empty id; its spill store
// encodes "" as "~", which is what this returns.
func EncodeSegment(raw string) string {
	switch raw {
	case "":
		return "~"
	case ".":
		return "~002E"
	case "..":
		return "~002E~002E"
	}
	b := make([]byte, 0, len(raw)+8)
	for _, u := range utf16.Encode([]rune(raw)) {
		if safeUnit(u) {
			b = append(b, byte(u))
		} else {
			b = appendEscape(b, u)
		}
	}
	return string(b)
}

// DecodeSegment inverts EncodeSegment. A lone surrogate, which Go strings
// cannot hold, decodes to U+FFFD.
func DecodeSegment(seg string) (string, error) {
	if seg == "~" {
		return "", nil
	}
	units := make([]uint16, 0, len(seg))
	for i := 0; i < len(seg); {
		c := seg[i]
		if c != '~' {
			if !safeUnit(uint16(c)) {
				return "", fmt.Errorf("%w: %q has %q at %d", ErrSegment, seg, c, i)
			}
			units = append(units, uint16(c))
			i++
			continue
		}
		if i+5 > len(seg) {
			return "", fmt.Errorf("%w: %q has a short escape at %d", ErrSegment, seg, i)
		}
		h := seg[i+1 : i+5]
		if strings.ToUpper(h) != h {
			return "", fmt.Errorf("%w: %q has a lower-case escape at %d", ErrSegment, seg, i)
		}
		v, err := strconv.ParseUint(h, 16, 16)
		if err != nil {
			return "", fmt.Errorf("%w: %q has a bad escape at %d", ErrSegment, seg, i)
		}
		units = append(units, uint16(v))
		i += 5
	}
	return string(utf16.Decode(units)), nil
}

// ProjectKey is dsh's projectKey(cwd): runs of '/', '\' or ':' become one
// '-', safe code units stay, the rest are ~XXXX escaped, leading '-' are
// stripped, an empty key becomes "root", and the key is cut to 251 bytes
// and wrapped as --key--. It is lossy: the real cwd is the header's.
func ProjectKey(cwd string) string {
	b := make([]byte, 0, len(cwd)+8)
	sep := false
	for _, u := range utf16.Encode([]rune(cwd)) {
		switch {
		case u == '/' || u == '\\' || u == ':':
			if !sep {
				b = append(b, '-')
			}
			sep = true
		case safeUnit(u):
			b = append(b, byte(u))
			sep = false
		default:
			b = appendEscape(b, u)
			sep = false
		}
	}
	slug := strings.TrimLeft(string(b), "-")
	if slug == "" {
		slug = "root"
	}
	if len(slug) > 251 {
		slug = slug[:251]
	}
	return "--" + slug + "--"
}

// NoCwdFolder holds the sessions whose header has no cwd.
const NoCwdFolder = "_no-cwd"

// LockFile is the lease file newer builds keep in a session folder; it is
// not a log.
const LockFile = "session.lock"

// LogName is what a session log's file name says.
type LogName struct {
	Version int  // format generation (0 for session.jsonl)
	Zstd    bool // .jsonl.zstd rather than .jsonl
}

// ParseLogName reads a canonical generation name: session.jsonl or
// session.vN.jsonl (N >= 1, no leading zero, lower case), with an optional
// .zstd suffix. Temporary, upper-case and .v0 names are not logs.
func ParseLogName(name string) (LogName, bool) {
	var ln LogName
	if s, ok := strings.CutSuffix(name, ".zstd"); ok {
		name, ln.Zstd = s, true
	}
	stem, ok := strings.CutSuffix(name, ".jsonl")
	if !ok {
		return LogName{}, false
	}
	if stem == "session" {
		return ln, true
	}
	v, ok := strings.CutPrefix(stem, "session.v")
	if !ok || v == "" || v[0] < '1' || v[0] > '9' || len(v) > 15 {
		return LogName{}, false
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return LogName{}, false
	}
	ln.Version = n
	return ln, true
}

// LiveLog picks the live generation among the names in one session folder:
// the highest version wins (opening an old file migrates it into a new
// generation beside it and leaves the old one as it was); at equal versions
// the zstd file wins, zstd being dsh's default. older lists the other logs.
func LiveLog(names []string) (live string, older []string, ok bool) {
	best := LogName{Version: -1}
	for _, n := range names {
		ln, isLog := ParseLogName(n)
		if !isLog {
			continue
		}
		if ln.Version > best.Version || ln.Version == best.Version && ln.Zstd && !best.Zstd {
			if ok {
				older = append(older, live)
			}
			live, best, ok = n, ln, true
		} else {
			older = append(older, n)
		}
	}
	return live, older, ok
}

// SessionsFolder is the sessions root inside a dsh home.
const SessionsFolder = "sessions"

// LegacyFolder is the per-launch-directory root of TUI builds before
// 2026-07-28.
const LegacyFolder = ".sessions"

// DefaultHome is where dsh keeps its state: $DSH_HOME (blank counts as
// unset), else ~/.dsh under userHome. A profile's own home setting is not
// visible from outside dsh; add such roots by hand.
func DefaultHome(getenv func(string) string, userHome string) string {
	if h := strings.TrimSpace(getenv("DSH_HOME")); h != "" {
		return filepath.Clean(h)
	}
	if userHome == "" {
		return ""
	}
	return filepath.Join(userHome, ".dsh")
}

// DefaultRoots are the session roots dsh's shipped bundle writes to:
// <home>/sessions.
func DefaultRoots(getenv func(string) string, userHome string) []string {
	h := DefaultHome(getenv, userHome)
	if h == "" {
		return nil
	}
	return []string{filepath.Join(h, SessionsFolder)}
}

// LegacyRoot is the ./.sessions root older TUI builds kept in the
// directory they were launched from.
func LegacyRoot(launchDir string) string { return filepath.Join(launchDir, LegacyFolder) }

// HomeForRoot is the dsh home a sessions root belongs to (its parent when
// the root is named "sessions"), or "" when the root says nothing of it.
func HomeForRoot(root string) string {
	root = filepath.Clean(root)
	if filepath.Base(root) == SessionsFolder {
		return filepath.Dir(root)
	}
	return ""
}

const attachmentPrefix = "sha256:"

// AttachmentPath is where dsh keeps the bytes of an attachment:
// <home>/attachments/v1/objects/<hex[0:2]>/<hex>. Only a well-formed id
// (sha256: and 64 lower-case hex digits) gives a path, so no text from a
// log can steer it anywhere else.
func AttachmentPath(home, attachmentID string) (string, bool) {
	h, ok := strings.CutPrefix(attachmentID, attachmentPrefix)
	if !ok || !isHex(h, 64) || home == "" {
		return "", false
	}
	return filepath.Join(home, "attachments", "v1", "objects", h[:2], h), true
}

func isHex(s string, n int) bool {
	if len(s) != n {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// SpillRootPrefix starts the name of each per-process spill root dsh makes
// with mkdtemp in the OS temp folder (dsh-spill-XXXXXX).
const SpillRootPrefix = "dsh-spill-"

// SpillFolder is the folder one session's spills go to inside a spill
// root: session-<first 12 hex of sha256(session id)>.
func SpillFolder(sessionID string) string {
	sum := sha256.Sum256([]byte(sessionID))
	return "session-" + hex.EncodeToString(sum[:])[:12]
}

// SpillFileName is the name dsh gives a spill file: <12 random hex>-
// encodeSegment(tool + ".txt"); rand12 is those 12 hex digits.
func SpillFileName(rand12, tool string) string { return rand12 + "-" + EncodeSegment(tool+".txt") }

// SpillGlob matches every spill file of one session in the default spill
// roots under tmpdir, in every process run that wrote them.
func SpillGlob(tmpdir, sessionID string) string {
	return filepath.Join(tmpdir, SpillRootPrefix+"*", SpillFolder(sessionID), "*")
}

// Spill owners: whose session-<sha12> folder a notice's path points into.
const (
	SpillOwnSession   = "own"     // this session's folder
	SpillOtherSession = "other"   // another session's folder: marked, not followed
	SpillNoFolder     = "unknown" // no session-<sha12> folder in the path
)

// SpillLink is what a notice's path says about the spill file it names. It
// is read from the path alone; nothing is opened or stat'ed.
type SpillLink struct {
	Path string `json:"path"`
	// Folder is the session-<sha12> folder the path points into, Expected
	// the one this session's spills go to.
	Folder   string `json:"folder,omitempty"`
	Expected string `json:"expected"`
	Owner    string `json:"owner"`
	// DshLayout: the file name is <12 hex>-<encoded name> inside a
	// session-<sha12> folder, as dsh's local spill store writes it.
	DshLayout bool `json:"dshLayout"`
	// ToolMatches: the encoded name is encodeSegment(tool + ".txt") of the
	// result's tool.
	ToolMatches bool `json:"toolMatches"`
	// DefaultRoot: the folder sits in a dsh-spill-XXXXXX root (rather than
	// a configured one).
	DefaultRoot bool `json:"defaultRoot"`
}

// ClassifySpillPath links a notice's path to the session that owns it.
// Both separators are accepted, since a log may come from another system.
func ClassifySpillPath(path, sessionID, tool string) SpillLink {
	l := SpillLink{Path: path, Expected: SpillFolder(sessionID), Owner: SpillNoFolder}
	parts := strings.FieldsFunc(path, func(r rune) bool { return r == '/' || r == '\\' })
	if len(parts) < 2 {
		return l
	}
	name, folder := parts[len(parts)-1], parts[len(parts)-2]
	sha, ok := strings.CutPrefix(folder, "session-")
	if !ok || !isHex(sha, 12) {
		return l
	}
	l.Folder = folder
	if folder == l.Expected {
		l.Owner = SpillOwnSession
	} else {
		l.Owner = SpillOtherSession
	}
	if len(name) > 13 && isHex(name[:12], 12) && name[12] == '-' {
		_, err := DecodeSegment(name[13:])
		l.DshLayout = err == nil
		l.ToolMatches = tool != "" && name[13:] == EncodeSegment(tool+".txt")
	}
	if len(parts) >= 3 {
		l.DefaultRoot = strings.HasPrefix(parts[len(parts)-3], SpillRootPrefix)
	}
	return l
}
