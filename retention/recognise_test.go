package retention

import (
	"reflect"
	"strings"
	"testing"
)

// The recognisers below are the only ones: the indexer's notice rules and
// the OpenCode, goose and Copilot CLI readers call them. Each table holds
// every spelling either side knew before they were one.

func TestRecogniseOpenCodeTruncationForms(t *testing.T) {
	path := "/home/u/.local/share/opencode/tool-output/tool_c3eee3824001r2ysEXPDkHoY3U"
	lead := openCodeHintLead + path + "\n"
	preview := strings.Repeat("line of output\n", 2000)
	tests := []struct {
		name string
		text string
		want OpenCodeTruncation
		ok   bool
	}{
		{"head, Task hint", preview + "\n\n...4589116 bytes truncated...\n\n" + lead + openCodeHintTask,
			OpenCodeTruncation{Kind: OpenCodeGeneric, Path: path, Removed: 4589116, Unit: "bytes", Direction: "head", Task: true, Preview: preview}, true},
		{"head, Grep hint", "a\nb\n\n...12 lines truncated...\n\n" + lead + openCodeHintGrep,
			OpenCodeTruncation{Kind: OpenCodeGeneric, Path: path, Removed: 12, Unit: "lines", Direction: "head", Preview: "a\nb"}, true},
		{"tail", "...7 lines truncated...\n\n" + lead + openCodeHintGrep + "\n\n" + preview,
			OpenCodeTruncation{Kind: OpenCodeGeneric, Path: path, Removed: 7, Unit: "lines", Direction: "tail", Preview: preview}, true},
		{"shell, with the shell's metadata after the tail", openCodeShellCut + "\n\n" + openCodeShellLead + path + "\n\ntail line\n\n<shell_metadata>\nUser aborted the command\n</shell_metadata>",
			OpenCodeTruncation{Kind: OpenCodeShell, Path: path, Direction: "tail", Preview: "tail line\n\n<shell_metadata>\nUser aborted the command\n</shell_metadata>"}, true},
		{"head, relayed by a shell with a newline after", "Output:\na\n\n...12 bytes truncated...\n\n" + lead + openCodeHintGrep + "\n",
			OpenCodeTruncation{Kind: OpenCodeGeneric, Path: path, Removed: 12, Unit: "bytes", Direction: "head", Preview: "Output:\na"}, true},
		{"plain output", "ok\n", OpenCodeTruncation{}, false},
		{"the hint quoted mid-text is not a notice", "see: " + lead + "and more text after it\n" + strings.Repeat("x", 10000), OpenCodeTruncation{}, false},
		{"shell notice without a path", openCodeShellCut + "\n\n" + openCodeShellLead + "\n\nx", OpenCodeTruncation{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := RecogniseOpenCodeTruncation(tt.text)
			if ok != tt.ok || !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %+v %v, want %+v %v", got, ok, tt.want, tt.ok)
			}
		})
	}
}

func FuzzRecogniseOpenCodeTruncation(f *testing.F) {
	f.Add("x\n\n...1 lines truncated...\n\n" + openCodeHintLead + "/p/tool_a\n" + openCodeHintGrep)
	f.Add(openCodeShellCut + "\n\n" + openCodeShellLead + "/p\n\nx")
	f.Fuzz(func(t *testing.T, s string) {
		n, ok := RecogniseOpenCodeTruncation(s)
		if ok && (n.Path == "" || !strings.Contains(s, n.Path)) {
			t.Fatalf("notice %+v names a path not in the text", n)
		}
	})
}

func TestRecogniseGooseNoticeForms(t *testing.T) {
	tests := []struct {
		text string
		want GooseNotice
		ok   bool
	}{
		{"The response returned from the tool call was larger (250123 characters) and is stored in the file: /d/mcp_responses/mcp_response_20260101_000001.123456_Ab12Cd.txt\nYou can use other tools to examine or search it.",
			GooseNotice{Kind: GooseCurrent, Path: "/d/mcp_responses/mcp_response_20260101_000001.123456_Ab12Cd.txt", Characters: 250123}, true},
		{"The response returned from the tool call was larger (200001 characters) and is stored in the file which you can use other tools to examine or search in: /tmp/goose_mcp_responses/mcp_response_20250601_000001.123456.txt",
			GooseNotice{Kind: GooseOlder, Path: "/tmp/goose_mcp_responses/mcp_response_20250601_000001.123456.txt", Characters: 200001}, true},
		{"Tool output was 60000 characters and is saved to /tmp/goose_mcp_responses/mcp_response_20260101_000001.000001.txt. To view portions, use the `read` tool with `path: /tmp/x` (and `line`/`limit` for ranges) if available, or `sed -n 'A,Bp' /tmp/x` via shell. Do NOT re-run the tool to see different slices.",
			GooseNotice{Kind: GooseSavedOutput, Path: "/tmp/goose_mcp_responses/mcp_response_20260101_000001.000001.txt", Characters: 60000}, true},
		{"Tool output was 61234 characters and is saved to /tmp/goose_mcp_responses/mcp_response_20260101_000000.txt. To view portions, use grep or head.",
			GooseNotice{Kind: GooseSavedOutput, Path: "/tmp/goose_mcp_responses/mcp_response_20260101_000000.txt", Characters: 61234}, true},
		{"Tool output was too large and has been truncated.\nThe full output has been saved to: /x", GooseNotice{}, false},
		{"Warning: Failed to write large response to file: denied. Showing full content instead.\n\nxyz", GooseNotice{}, false},
		{"plain", GooseNotice{}, false},
	}
	for _, tt := range tests {
		got, ok := RecogniseGooseNotice(tt.text)
		if ok != tt.ok || got != tt.want {
			t.Errorf("RecogniseGooseNotice(%.40q) = %+v %v, want %+v", tt.text, got, ok, tt.want)
		}
	}
}

func TestRecogniseCopilotLargeOutput(t *testing.T) {
	tests := []struct {
		name, text string
		want       CopilotNotice
		ok         bool
	}{
		{"with guidance and a preview", "Output too large to read at once (30.8 KB). Saved to: /tmp/1776964088893-copilot-tool-output-a1b2c3.txt\nConsider using tools like grep\n\nPreview (first 500 chars):\nabc",
			CopilotNotice{Kind: CopilotLargeOutput, Path: "/tmp/1776964088893-copilot-tool-output-a1b2c3.txt", Size: "30.8 KB"}, true},
		{"alone, trailing spaces", "Output too large to read at once (1.2 MB). Saved to: /tmp/1-copilot-tool-output-x.txt  ",
			CopilotNotice{Kind: CopilotLargeOutput, Path: "/tmp/1-copilot-tool-output-x.txt", Size: "1.2 MB"}, true},
		{"no path", "Output too large to read at once (1 KB). Saved to: \nx", CopilotNotice{}, false},
		{"quoted, not at the start", "the CLI said: Output too large to read at once (1 KB). Saved to: /tmp/a", CopilotNotice{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := RecogniseCopilotLargeOutput(tt.text)
			if ok != tt.ok || got != tt.want {
				t.Errorf("got %+v %v, want %+v %v", got, ok, tt.want, tt.ok)
			}
		})
	}
}

// Gemini CLI writes its figures with toLocaleString() in the locale it runs
// in, and older builds wrapped the notice's first two sentences.
func TestRecogniseGeminiTruncationForms(t *testing.T) {
	file := "/h/.gemini/tmp/p/tool-outputs/session-1/shell_c1.txt"
	body := "head\n\n... [100 characters omitted] ...\n\ntail"
	tests := []struct {
		name, text  string
		kind        string
		first, last int64
	}{
		{"en-US grouping", "Output too large. Showing first 8,000 and last 32,000 characters. For full output see: " + file + "\n" + body, GeminiCurrent, 8000, 32000},
		{"no grouping", "Output too large. Showing first 8000 and last 2000 characters. For full output see: " + file + "\n" + body, GeminiCurrent, 8000, 2000},
		{"de-DE grouping", "Output too large. Showing first 8.000 and last 32.000 characters. For full output see: " + file + "\n" + body, GeminiCurrent, 8000, 32000},
		{"fr-FR grouping", "Output too large. Showing first 8\u202f000 and last 32\u202f000 characters. For full output see: " + file + "\n" + body, GeminiCurrent, 8000, 32000},
		{"badly grouped", "Output too large. Showing first 80,00 and last 32,000 characters. For full output see: " + file + "\n" + body, "", 0, 0},
		{"mixed separators", "Output too large. Showing first 1,000.000 and last 32 characters. For full output see: " + file + "\n" + body, "", 0, 0},
		{"older", FormatGeminiOlderNotice(file) + "a" + geminiOlderMarker + "b", GeminiOlder, 0, 0},
		{"older, one line", "Tool output was too large and has been truncated. The full output has been saved to: " + file + "\nTo read the complete output, use the read_file tool", GeminiOlder, 0, 0},
		{"older, path ends the text", "Tool output was too large and has been truncated.\nThe full output has been saved to: " + file, GeminiOlder, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, ok := RecogniseGeminiTruncation(tt.text)
			if tt.kind == "" {
				if ok {
					t.Fatalf("recognised %+v", g)
				}
				return
			}
			if !ok || g.Kind != tt.kind || g.Path != file || g.First != tt.first || g.Last != tt.last {
				t.Fatalf("got %+v %v, want %s %q %d/%d", g, ok, tt.kind, file, tt.first, tt.last)
			}
		})
	}
}

// Claude Code's conventions in the spellings the indexer's rules knew: the
// 2.1.x preview wrapper, the earlier short form and the MCP saved notice.
func TestRecogniseClaudeConventions(t *testing.T) {
	p, ok := RecogniseClaudePersistedOutput("<persisted-output>\nOutput too large (141KB). Full output saved to: /h/.claude/projects/-p/s/tool-results/toolu_1.txt\n\nPreview (first 2KB):\nabc\n...\n</persisted-output>")
	if !ok || p.Kind != ClaudePersistedPreview || p.Path != "/h/.claude/projects/-p/s/tool-results/toolu_1.txt" || !p.More {
		t.Errorf("preview form: %+v %v", p, ok)
	}
	p, ok = RecogniseClaudePersistedOutput("<persisted-output>Tool result saved to: /tmp/r.json\n\nUse Read to view</persisted-output>")
	if !ok || p.Kind != ClaudePersistedLegacy || p.Path != "/tmp/r.json" {
		t.Errorf("short form: %+v %v", p, ok)
	}
	p, ok = RecogniseClaudePersistedOutput("x <persisted-output>\nOutput too large (9KB). Full output saved to: /p/t.txt\n</persisted-output>")
	if !ok || p.Path != "/p/t.txt" || p.Start != 2 || p.PreviewStart != p.PreviewEnd || p.SizeMin < 0 {
		t.Errorf("form without a preview: %+v %v", p, ok)
	}
	if p, ok := RecogniseClaudePersistedOutput("the string <persisted-output> appears in the docs"); ok {
		t.Errorf("a mention read as %+v", p)
	}
	s, ok := RecogniseClaudeMCPSaved("result (120000 characters across 1 line) exceeds maximum allowed tokens. Output has been saved to /h/.claude/x/tool-results/mcp-1.txt.\nFormat: Plain text")
	if !ok || s.Path != "/h/.claude/x/tool-results/mcp-1.txt" || s.Characters != 120000 || s.Lines != 1 {
		t.Errorf("MCP saved: %+v %v", s, ok)
	}
}
