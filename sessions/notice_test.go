package sessions

import (
	"strings"
	"testing"

	"spillscope/retention"
	"spillscope/sessions/copilot"
	"spillscope/sessions/goose"
	"spillscope/sessions/opencode"
)

func TestRecogniseSpill(t *testing.T) {
	tests := []struct {
		name, text string
		kind, path string
	}{
		{"claude persisted-output", "<persisted-output>\nOutput too large (141KB). Full output saved to: /h/.claude/projects/-p/s/tool-results/toolu_1.txt\n\nPreview (first 2KB):\nabc\n...\n</persisted-output>",
			NoticeClaudePersisted, "/h/.claude/projects/-p/s/tool-results/toolu_1.txt"},
		{"claude persisted short form", "<persisted-output>Tool result saved to: /tmp/r.json\n\nUse Read to view</persisted-output>", NoticeClaudePersisted, "/tmp/r.json"},
		{"claude mcp", "result (120000 characters across 1 line) exceeds maximum allowed tokens. Output has been saved to /h/.claude/x/tool-results/mcp-1.txt.\nFormat: Plain text",
			NoticeClaudeMCP, "/h/.claude/x/tool-results/mcp-1.txt"},
		{"opencode generic", "line1\nline2\n\n...120 lines truncated...\n\nThe tool call succeeded but the output was truncated. Full output saved to: /h/.local/share/opencode/tool-output/tool_01ABC\nUse Grep to search the full content or Read with offset/limit to view specific sections.",
			opencode.NoticeTruncate, "/h/.local/share/opencode/tool-output/tool_01ABC"},
		{"opencode bash", "...output truncated...\n\nFull output saved to: /h/.local/share/opencode/tool-output/tool_02\n\ntail", opencode.NoticeShell, "/h/.local/share/opencode/tool-output/tool_02"},
		{"gemini", "Output too large. Showing first 8000 and last 2000 characters. For full output see: /h/.gemini/tmp/p/tool-outputs/session-1/shell_c1.txt\nhead\n\n... [100 characters omitted] ...\n\ntail",
			NoticeGemini, "/h/.gemini/tmp/p/tool-outputs/session-1/shell_c1.txt"},
		{"gemini legacy", "Tool output was too large and has been truncated.\nThe full output has been saved to: /h/.gemini/tmp/p/c1.output\nTo read the complete output, use the read_file tool",
			NoticeGeminiLegacy, "/h/.gemini/tmp/p/c1.output"},
		{"goose", "The response returned from the tool call was larger (250000 characters) and is stored in the file which you can use other tools to examine or search in: /tmp/goose_mcp_responses/mcp_response_20260101_000000.000000.txt",
			goose.NoticeLargeResponse, "/tmp/goose_mcp_responses/mcp_response_20260101_000000.000000.txt"},
		{"goose current", "The response returned from the tool call was larger (250000 characters) and is stored in the file: /h/.local/share/goose/mcp_responses/mcp_response_20260101_000000.000000_a1B2.txt\nYou can use other tools to examine or search it.",
			goose.NoticeLargeResponse, "/h/.local/share/goose/mcp_responses/mcp_response_20260101_000000.000000_a1B2.txt"},
		{"goose saved output", "Tool output was 61234 characters and is saved to /tmp/goose_mcp_responses/mcp_response_20260101_000000.txt. To view portions, use grep or head.",
			goose.NoticeSavedOutput, "/tmp/goose_mcp_responses/mcp_response_20260101_000000.txt"},
		{"copilot", "Output too large to read at once (30.8 KB). Saved to: /tmp/1776964088893-copilot-tool-output-a1b2c3.txt\nConsider using tools like grep\n\nPreview (first 500 chars):\nabc",
			copilot.NoticeLargeOutput, "/tmp/1776964088893-copilot-tool-output-a1b2c3.txt"},
		{"spillscope byte-only", "head\n[...]\ntail\n(Omitted 12345 bytes. Full formatted result stored at: /d/0123456789abcdef.txt. Use read with offset/limit, or grep this path to search within it.)",
			NoticeSpillscope, "/d/0123456789abcdef.txt"},
		{"spillscope path with dot-space", "(Omitted 5 bytes. Full formatted result stored at: /d/a. b/x.txt. Use read with offset/limit, or grep this path to search within it.)",
			NoticeSpillscope, "/d/a. b/x.txt"},
		{"notice at the end of a long text", strings.Repeat("x", 100<<10) + "\n(Omitted 1 bytes. Full formatted result stored at: /d/y.txt. Use read with offset/limit, or grep this path to search within it.)",
			NoticeSpillscope, "/d/y.txt"},
		{"spillscope with images", "head\n[...]\n" + retention.FormatLegacyNotice(10, 2, "/d/z.txt"), NoticeSpillscope, "/d/z.txt"},
		{"plain text", "total 0\ndrwxr-xr-x 2 u u 40 .", "", ""},
		{"mention without a path", "the string <persisted-output> appears in the docs", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n, ok := RecogniseSpill(tt.text)
			if ok != (tt.kind != "") {
				t.Fatalf("recognised %v (%+v), want %v", ok, n, tt.kind != "")
			}
			if n.Kind != tt.kind || n.Path != tt.path {
				t.Errorf("got %q %q, want %q %q", n.Kind, n.Path, tt.kind, tt.path)
			}
		})
	}
}

// A marker is found by its anchor exactly where strings.Contains finds it.
func TestAnchoredMarker(t *testing.T) {
	for _, r := range *noticeRules.Load() {
		t.Run(r.Kind, func(t *testing.T) {
			m := r.Marker
			texts := []string{"", m, m[:len(m)-1], m[1:], "x" + m, m + "y", m[:len(m)/2] + m, strings.Repeat(m[:len(m)-1], 3) + m,
				m[:len(m)-1] + "\x00" + m[1:]}
			if r.marker.at >= 0 {
				texts = append(texts, strings.Repeat(string(m[r.marker.at]), 40))
			}
			for _, text := range texts {
				if got, want := r.marker.in(text), strings.Contains(text, m); got != want {
					t.Errorf("in(%q) = %v, strings.Contains %v", text, got, want)
				}
			}
		})
	}
}

func FuzzAnchoredMarker(f *testing.F) {
	f.Add("exceeds maximum allowed tokens", "xx exceeds maximum allowed tokens")
	f.Add("ab", "aab")
	f.Add("", "x")
	f.Fuzz(func(t *testing.T, marker, text string) {
		if got, want := anchor(marker).in(text), strings.Contains(text, marker); got != want {
			t.Fatalf("anchor(%q).in(%q) = %v, strings.Contains %v", marker, text, got, want)
		}
	})
}
