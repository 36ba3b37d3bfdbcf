package copilot

import "spillscope/retention"

// NoticeLargeOutput is the kind of the CLI's large-output notice
// (retention.RecogniseCopilotLargeOutput recognises it).
const NoticeLargeOutput = retention.CopilotLargeOutput
