package opencode

import (
	"regexp"
	"strconv"
	"strings"
)

// Notice kinds.
const (
	// NoticeTruncate is the notice of the truncation every tool's output
	// passes through (tool/truncation.ts): the kept lines, "...N lines
	// truncated..." or "...N bytes truncated...", and a hint naming the file
	// holding the whole output. With direction "head" the kept lines come
	// first; with "tail" the marker and hint come first.
	NoticeTruncate = "opencode-truncate"
	// NoticeShell is the shell tool's own notice: "...output truncated...",
	// the file, then the last lines of the output.
	NoticeShell = "opencode-shell-truncate"
)

// Notice is OpenCode's truncation notice recognised in a tool output.
type Notice struct {
	Kind string `json:"kind"`
	// Path is the saved full output, exactly as the notice names it.
	Path string `json:"path"`
	// Removed and Unit ("lines" or "bytes") are what the marker says was cut.
	Removed int64  `json:"removed,omitempty"`
	Unit    string `json:"unit,omitempty"`
	// Direction is "head" or "tail": which end of the output was kept.
	Direction string `json:"direction,omitempty"`
	// Hint is "task" when the notice tells the model to delegate reading
	// the file to the Task tool, "grep" when it suggests Grep and Read.
	Hint string `json:"hint,omitempty"`
}

const (
	hintLead  = "The tool call succeeded but the output was truncated. Full output saved to: "
	hintTask  = "Use the Task tool to have explore agent process this file with Grep and Read (with offset/limit). Do NOT read the full file yourself - delegate to save context."
	hintGrep  = "Use Grep to search the full content or Read with offset/limit to view specific sections."
	shellLead = "...output truncated...\n\nFull output saved to: "
)

var markerRe = regexp.MustCompile(`\.\.\.(\d+) (lines|bytes) truncated\.\.\.\n\n` + regexp.QuoteMeta(hintLead) + `([^\n]+)\n`)

// RecogniseNotice finds OpenCode's truncation notice in a tool output. The
// generic notice sits at the end (head direction) or the start (tail) of
// the output; the shell notice at the start.
func RecogniseNotice(text string) (Notice, bool) {
	if rest, ok := strings.CutPrefix(text, shellLead); ok {
		path, _, _ := strings.Cut(rest, "\n")
		if path = strings.TrimSpace(path); path != "" {
			return Notice{Kind: NoticeShell, Path: path, Direction: "tail"}, true
		}
		return Notice{}, false
	}
	if !strings.Contains(text, hintLead) {
		return Notice{}, false
	}
	// The marker is found in a bounded window: a head notice ends the
	// output, a tail notice starts it, and the kept part can be 50 KB.
	const window = 4 << 10
	var n Notice
	try := func(part string, base int) bool {
		m := markerRe.FindStringSubmatchIndex(part)
		if m == nil {
			return false
		}
		removed, _ := strconv.ParseInt(part[m[2]:m[3]], 10, 64)
		n = Notice{Kind: NoticeTruncate, Path: strings.TrimSpace(part[m[6]:m[7]]), Removed: removed, Unit: part[m[4]:m[5]]}
		after := part[m[1]:]
		switch {
		case strings.HasPrefix(after, hintTask):
			n.Hint = "task"
		case strings.HasPrefix(after, hintGrep):
			n.Hint = "grep"
		}
		if base+m[0] == 0 {
			n.Direction = "tail"
		} else {
			n.Direction = "head"
		}
		return n.Path != ""
	}
	if strings.HasPrefix(text, "...") {
		head := text
		if len(head) > window {
			head = head[:window]
		}
		if try(head, 0) {
			return n, true
		}
	}
	tail, base := text, 0
	if len(tail) > window {
		base = len(tail) - window
		tail = tail[base:]
	}
	if try(tail, base) {
		return n, true
	}
	return Notice{}, false
}
