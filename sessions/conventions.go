package sessions

// Where harnesses this build does not read yet write their spill files and
// attachments, as data. A notice of theirs can reach the index before their
// reader does (an MCP bridge relays another harness's notice inside a
// session), so the file rule needs their locations; each moves into its
// harness's file when that harness is added (its Notices then claim the
// kind, and pendingConventions loses the entry). dsh's, OpenCode's and
// goose's moved into dsh.go, opencode.go and goose.go.

// convention is a notice kind's recogniser and the locations its files
// live in.
type convention struct {
	rule      NoticeRule
	locations func(SessionRef) []Location
}

// pendingConventions maps a notice kind to its convention.
var pendingConventions = map[string]convention{}
