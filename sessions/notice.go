package sessions

import (
	"regexp"
	"strings"

	"spillscope/retention"
)

// Spill notice kinds: which convention a recognised notice follows. A
// recognised notice is a text convention, not proof that a harness wrote it.
const (
	NoticeClaudePersisted = "claude-persisted-output"
	NoticeClaudeMCP       = "claude-mcp-saved"
	NoticeOpenCode        = "opencode"
	NoticeGemini          = "gemini-cli"
	NoticeGeminiLegacy    = "gemini-cli-legacy"
	NoticeGoose           = "goose"
	NoticeSpillscope      = "spillscope"
)

// SpillNotice is a spill notice recognised in tool-result text: its
// convention and the path it names, exactly as written.
type SpillNotice struct {
	Kind string `json:"kind"`
	Path string `json:"path"`
}

type noticeRule struct {
	kind   string
	marker string // cheap substring that must be present before the regexp runs
	re     *regexp.Regexp
}

// Paths end at a newline; trailing punctuation the notice itself adds is
// trimmed by the rule's pattern.
var noticeRules = []noticeRule{
	{NoticeClaudePersisted, "<persisted-output>", regexp.MustCompile(`<persisted-output>[\s\S]*?(?:Full output saved to|Tool result saved to):[ \t]*([^\n]+?)[ \t]*(?:\n|</persisted-output>|$)`)},
	{NoticeClaudeMCP, "exceeds maximum allowed tokens", regexp.MustCompile(`exceeds maximum allowed tokens\. Output has been saved to ([^\n]+?)\.?[ \t]*(?:\n|$)`)},
	{NoticeOpenCode, "Full output saved to:", regexp.MustCompile(`(?:The tool call succeeded but the output was truncated\. |\.\.\.output truncated\.\.\.\s*)Full output saved to:[ \t]*([^\n]+?)[ \t]*(?:\n|$)`)},
	{NoticeGemini, "For full output see:", regexp.MustCompile(`Output too large\. Showing first [^\n]*? For full output see:[ \t]*([^\n]+?)[ \t]*(?:\n|$)`)},
	{NoticeGeminiLegacy, "The full output has been saved to:", regexp.MustCompile(`Tool output was too large and has been truncated\.\s*The full output has been saved to:[ \t]*([^\n]+?)[ \t]*(?:\n|$)`)},
	{NoticeGoose, "goose", nil},
}

var gooseRe = regexp.MustCompile(`larger \(\d+ characters\) and is stored in the file which you can use other tools to examine or search in:[ \t]*([^\n]+?)[ \t]*(?:\n|$)`)

// RecogniseSpill finds the first spill notice of a known harness in text.
// Only bounded windows of very long text are searched: every known notice
// sits at the start or the end of the result it replaced.
func RecogniseSpill(text string) (SpillNotice, bool) {
	// This project's own notice has one recogniser, in retention.
	if strings.Contains(text, "Full formatted result stored at:") {
		if m, ok := retention.RecogniseNotice(text); ok && m.Path != "" {
			return SpillNotice{Kind: NoticeSpillscope, Path: m.Path}, true
		}
	}
	const window = 16 << 10
	if len(text) > 2*window {
		if n, ok := recogniseIn(text[:window]); ok {
			return n, true
		}
		return recogniseIn(text[len(text)-window:])
	}
	return recogniseIn(text)
}

func recogniseIn(text string) (SpillNotice, bool) {
	// Every known notice says "saved to", "stored" or "full output see";
	// most results say none of them, and three scans beat seven.
	if !strings.Contains(text, "saved to") && !strings.Contains(text, "stored") && !strings.Contains(text, "full output see") {
		return SpillNotice{}, false
	}
	for _, r := range noticeRules {
		var re *regexp.Regexp
		switch {
		case r.kind == NoticeGoose:
			if !strings.Contains(text, "is stored in the file which you can use") {
				continue
			}
			re = gooseRe
		case !strings.Contains(text, r.marker):
			continue
		default:
			re = r.re
		}
		m := re.FindStringSubmatch(text)
		if m == nil {
			continue
		}
		p := strings.TrimSpace(m[1])
		if p == "" {
			continue
		}
		return SpillNotice{Kind: r.kind, Path: p}, true
	}
	return SpillNotice{}, false
}
