package sessions

import (
	"path/filepath"
	"regexp"
)

// Where harnesses this build does not read yet write their spill files and
// attachments, as data. A notice of theirs can already reach the index (an
// MCP bridge relays goose's or OpenCode's notice inside another harness's
// session), so the file rule needs their locations now; each moves into its
// harness's file when that harness is added (its NoticeKinds then claim the
// kind, and pendingConventions loses the entry).

// Notice kinds of harnesses this build does not read yet.
const (
	NoticeOpenCode = "opencode"
	NoticeGoose    = "goose"
)

// convention is a notice kind's recogniser and the locations its files
// live in.
type convention struct {
	rule      NoticeRule
	locations func(SessionRef) []Location
}

// pendingConventions maps a notice kind to its convention.
var pendingConventions = map[string]convention{
	// <head>\n\n...N lines truncated...\n\nThe tool call succeeded but the
	// output was truncated. Full output saved to: <path>\n<hint>; the newer
	// bash tool writes ...output truncated...\n\nFull output saved to:
	// <path>\n\n<tail> (packages/opencode/src/tool/truncation.ts).
	NoticeOpenCode: {NoticeRule{Kind: NoticeOpenCode, Marker: "Full output saved to:",
		Pattern: regexp.MustCompile(`(?:The tool call succeeded but the output was truncated\. |\.\.\.output truncated\.\.\.\s*)Full output saved to:[ \t]*([^\n]+?)[ \t]*(?:\n|$)`)},
		OpenCodeLocations},
	// The response returned from the tool call was larger (N characters) and
	// is stored in the file which you can use other tools to examine or
	// search in: <path> (large_response_handler.rs).
	NoticeGoose: {NoticeRule{Kind: NoticeGoose, Marker: "is stored in the file which you can use",
		Pattern: regexp.MustCompile(`larger \(\d+ characters\) and is stored in the file which you can use other tools to examine or search in:[ \t]*([^\n]+?)[ \t]*(?:\n|$)`)},
		GooseLocations},
}

// GooseLocations: goose writes MCP text results over its limit to
// $TMPDIR/goose_mcp_responses/mcp_response_<YYYYmmdd_HHMMSS.ffffff>.txt
// (crates/goose/src/agents/large_response_handler.rs). A relayed notice's
// file may also have been copied beside the sessions, under a root.
func GooseLocations(s SessionRef) []Location {
	const shape = `goose_mcp_responses/mcp_response_[0-9_.]+\.txt$`
	return append(TempLocations(s.Env, "^"+shape), RootLocations(s.Roots, shape)...)
}

// OpenCodeLocations: OpenCode writes truncated tool output to
// $XDG_DATA_HOME/opencode/tool-output/tool_<ascending id>, no extension
// (packages/opencode/src/tool/truncation.ts); or beside the sessions under
// a root.
func OpenCodeLocations(s SessionRef) []Location {
	const shape = `tool-output/tool_[0-9A-Za-z]+$`
	return append([]Location{NewLocation(filepath.Join(s.Env.DataHome(), "opencode"), "^"+shape, false)},
		RootLocations(s.Roots, shape)...)
}
