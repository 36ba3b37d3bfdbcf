package copilot

import (
	"regexp"
	"strings"
)

// Notice kinds.
const (
	// NoticeLargeOutput: the CLI saved a result too large to pass inline to
	// a temporary file and gave the model the file's name and a preview.
	NoticeLargeOutput = "copilot-large-output"
)

// Notice is a harness notice recognised in a result: its kind, the path
// it names exactly as written, and the size it states.
type Notice struct {
	Kind string `json:"kind"`
	Path string `json:"path"`
	Size string `json:"size,omitempty"`
}

// The CLI is closed source; the sentence is as users and the SDK's issue
// tracker quote it: "Output too large to read at once (30.8 KB). Saved to:
// /tmp/<ms>-copilot-tool-output-<id>.txt\nConsider using tools like grep
// …\n\nPreview (first 500 chars):\n…".
var largeOutputRe = regexp.MustCompile(`^Output too large to read at once \(([^)\n]*)\)\. Saved to:[ \t]*([^\n]+?)[ \t]*(?:\n|$)`)

// RecogniseNotice finds the CLI's large-output notice at the start of a
// result's text.
func RecogniseNotice(text string) (Notice, bool) {
	if !strings.HasPrefix(text, "Output too large to read at once") {
		return Notice{}, false
	}
	m := largeOutputRe.FindStringSubmatch(text)
	if m == nil || m[2] == "" {
		return Notice{}, false
	}
	return Notice{Kind: NoticeLargeOutput, Path: m[2], Size: m[1]}, true
}
