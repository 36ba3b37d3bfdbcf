package retention

import (
	"regexp"
	"strings"
)

// CopilotLargeOutput is the kind of Copilot CLI's large-output notice: the
// CLI saved a result too large to pass inline to a temporary file and gave
// the model the file's name and a preview. No policy here writes it; the
// indexer recognises it.
const CopilotLargeOutput = "copilot-large-output"

// CopilotNotice is Copilot CLI's large-output notice recognised in a
// result: its kind, the path it names exactly as written, and the size it
// states.
type CopilotNotice struct {
	Kind string `json:"kind"`
	Path string `json:"path"`
	Size string `json:"size,omitempty"`
}

// The CLI is closed source; the sentence is as users and the SDK's issue
// tracker quote it: "Output too large to read at once (30.8 KB). Saved to:
// /tmp/<ms>-copilot-tool-output-<id>.txt\nConsider using tools like grep
// …\n\nPreview (first 500 chars):\n…".
const copilotLead = "Output too large to read at once"

var copilotLargeRe = regexp.MustCompile(`^` + copilotLead + ` \(([^)\n]*)\)\. Saved to:[ \t]*([^\s][^\n]*?)[ \t]*(?:\n|$)`)

// RecogniseCopilotLargeOutput finds the CLI's large-output notice at the
// start of a result's text.
func RecogniseCopilotLargeOutput(text string) (CopilotNotice, bool) {
	if !strings.HasPrefix(text, copilotLead) {
		return CopilotNotice{}, false
	}
	m := copilotLargeRe.FindStringSubmatch(text)
	if m == nil || m[2] == "" {
		return CopilotNotice{}, false
	}
	return CopilotNotice{Kind: CopilotLargeOutput, Path: m[2], Size: m[1]}, true
}
