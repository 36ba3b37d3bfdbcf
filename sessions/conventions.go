package sessions

import (
	"crypto/sha256"
	"encoding/hex"
	"path/filepath"
	"regexp"
)

// Where harnesses this build does not read yet write their spill files and
// attachments, as data. A notice of theirs can reach the index before their
// reader does (an MCP bridge relays another harness's notice inside a
// session), so the file rule needs their locations; each moves into its
// harness's file when that harness is added (its Notices then claim the
// kind, and pendingConventions loses the entry). OpenCode's and goose's
// moved into opencode.go and goose.go.

// convention is a notice kind's recogniser and the locations its files
// live in.
type convention struct {
	rule      NoticeRule
	locations func(SessionRef) []Location
}

// pendingConventions maps a notice kind to its convention.
var pendingConventions = map[string]convention{}

// DshHome is dsh's home folder: $DSH_HOME (blank counts as unset), else
// ~/.dsh.
func DshHome(env Env) string {
	return env.Dir("DSH_HOME", filepath.Join(env.Home(), ".dsh"))
}

// DshSessionFolder is the spill folder name dsh gives a session:
// session-<first 12 hex of sha256(session id)>.
func DshSessionFolder(sessionID string) string {
	sum := sha256.Sum256([]byte(sessionID))
	return "session-" + hex.EncodeToString(sum[:])[:12]
}

// DshLocations: dsh's spill store writes
// <tmp>/dsh-spill-XXXXXX/session-<sha12>/<12 hex>-<tool>.txt (one root per
// process run, so one session's files spread over several), and keeps image
// bytes in $DSH_HOME/attachments/v1/objects/<2 hex>/<64 hex> (request-sized
// copies under request-images/). FORMATS.md section 5.
func DshLocations(s SessionRef) []Location {
	spill := `^dsh-spill-[A-Za-z0-9]+/` + regexp.QuoteMeta(DshSessionFolder(s.SessionID)) + `/[0-9a-f]{12}-[^/]+\.txt$`
	att := filepath.Join(DshHome(s.Env), "attachments", "v1")
	return append(TempLocations(s.Env, spill),
		NewLocation(att, `^objects/[0-9a-f]{2}/[0-9a-f]{64}$`, false),
		NewLocation(att, `^request-images/[^/]+$`, false))
}
