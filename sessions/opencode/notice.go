package opencode

import "spillscope/retention"

// Notice kinds: the retention core's names for OpenCode's conventions
// (retention.RecogniseOpenCodeTruncation recognises both), which the index
// records.
const (
	// NoticeTruncate is the notice of the truncation every tool's output
	// passes through (tool/truncation.ts).
	NoticeTruncate = retention.OpenCodeGeneric
	// NoticeShell is the shell tool's own notice.
	NoticeShell = retention.OpenCodeShell
)
