package retention

import (
	"fmt"
	"strings"
	"testing"
)

// The cases of OpenCode's, goose's and Gemini CLI's own tests, transcribed:
// their inputs and what they assert, plus the exact text the source writes
// for them (the harnesses' tests assert substrings; the source fixes the
// rest).

const (
	harnessSpill = "/home/u/.local/share/opencode/tool-output/tool_0123456789abcdefABCDEF"
	goosePath    = "/home/u/.local/share/goose/mcp_responses/mcp_response_20260101_120000.000000_x1.txt"
	geminiPath   = "/home/u/.gemini/tmp/p/tool-outputs/session-s/run_shell_command_c1.txt"
)

// decideOwn runs policy on content with params, on the policy's own
// estimator, the call naming locator and tool.
func decideOwn(t testing.TB, policy string, params Params, tool, locator string, content ...Block) Outcome {
	t.Helper()
	p := mustPolicy(t, policy)
	est, err := LookupEstimator(p.Info().Estimator)
	if err != nil {
		t.Fatal(err)
	}
	a, err := Analyse(Result{Content: content}, est, "", AnalyseOptions{Call: Call{ToolName: tool, Spill: SpillRef{Locator: locator}}})
	if err != nil {
		t.Fatal(err)
	}
	o, err := a.Decide(policy, params)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

func numbered(prefix string, n int, sep string) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = fmt.Sprintf("%s%d", prefix, i)
	}
	return strings.Join(parts, sep)
}

// numbered1 is console.log of 1..n joined by newlines: a trailing newline.
func numbered1(from, to int) string {
	var b strings.Builder
	for i := from; i <= to; i++ {
		fmt.Fprintf(&b, "%d\n", i)
	}
	return b.String()
}

// TestOpenCodeCases: packages/opencode/test/tool/truncation.test.ts @
// 0a3427d9 ("Truncate" › "output") and test/tool/shell.test.ts @ 9e3d245c
// ("tool.shell truncation"), anomalyco/opencode.
func TestOpenCodeCases(t *testing.T) {
	hundred := numbered("line", 100, "\n")
	ten := numbered("line", 10, "\n")
	bigJSON := `{"models":[` + strings.Repeat(`{"id":"model-x","cost":{"input":1.5}},`, 1600) + `{}]}`
	grep := "\n" + openCodeHintLead + harnessSpill + "\n" + openCodeHintGrep
	task := "\n" + openCodeHintLead + harnessSpill + "\n" + openCodeHintTask
	cases := []struct {
		name        string
		text        string
		tool        string
		params      Params
		status      string
		want        string   // the whole text, when set
		contains    []string // what the harness's test asserts
		notContains []string
	}{
		{name: "truncates large json file by bytes", text: bigJSON, status: StatusNoticeOnly,
			want:     "\n\n..." + itoa(len(bigJSON)) + " bytes truncated...\n" + task,
			contains: []string{"truncated...", "bytes truncated..."}},
		{name: "returns content unchanged when under limits", text: "line1\nline2\nline3", status: StatusWithinBudget, want: "line1\nline2\nline3"},
		{name: "truncates by line count", text: hundred, params: Params{"maxLines": "10"}, status: StatusReplaced,
			want:     numbered("line", 10, "\n") + "\n\n...90 lines truncated...\n" + task,
			contains: []string{"...90 lines truncated..."}},
		{name: "truncates by byte count", text: strings.Repeat("a", 1000), params: Params{"maxBytes": "100"}, status: StatusNoticeOnly,
			want: "\n\n...1000 bytes truncated...\n" + task, contains: []string{"truncated..."}},
		{name: "truncates from head by default", text: ten, params: Params{"maxLines": "3"}, status: StatusReplaced,
			want:        "line0\nline1\nline2\n\n...7 lines truncated...\n" + task,
			contains:    []string{"line0", "line1", "line2"},
			notContains: []string{"line9"}},
		{name: "truncates from tail when direction is tail", text: ten, params: Params{"maxLines": "3", "direction": "tail"}, status: StatusReplaced,
			want:        "...7 lines truncated...\n" + task + "\n\nline7\nline8\nline9",
			contains:    []string{"line7", "line8", "line9"},
			notContains: []string{"line0"}},
		{name: "output() truncates to configured max_lines", text: hundred, params: Params{"maxLines": "10", "maxBytes": itoa(1024 * 1024)}, status: StatusReplaced,
			contains: []string{"...90 lines truncated..."}},
		{name: "output() truncates to configured max_bytes", text: strings.Repeat("a", 1000), params: Params{"maxLines": "1000000", "maxBytes": "100"}, status: StatusNoticeOnly,
			contains: []string{"bytes truncated..."}},
		{name: "per-call options still override config", text: numbered("line", 50, "\n"), params: Params{"maxLines": "1000", "maxBytes": itoa(1024 * 1024)}, status: StatusWithinBudget},
		{name: "large single-line file truncates with byte message", text: bigJSON, status: StatusNoticeOnly, contains: []string{"bytes truncated..."}},
		{name: "writes full output to file when truncated", text: hundred, params: Params{"maxLines": "10", "task": "false"}, status: StatusReplaced,
			want:     numbered("line", 10, "\n") + "\n\n...90 lines truncated...\n" + grep,
			contains: []string{"The tool call succeeded but the output was truncated", "Grep", "tool_"}},
		{name: "suggests Task tool when agent has task permission", text: hundred, params: Params{"maxLines": "10", "task": "true"}, status: StatusReplaced,
			contains: []string{"Grep", "Task tool"}},
		{name: "omits Task tool hint when agent lacks task permission", text: hundred, params: Params{"maxLines": "10", "task": "false"}, status: StatusReplaced,
			contains: []string{"Grep"}, notContains: []string{"Task tool"}},
		{name: "does not write file when not truncated", text: "short content", status: StatusWithinBudget, want: "short content"},
		// The byte limit stops a head walk on the line that would pass it.
		{name: "bytes stop before lines", text: "aaaa\nbbbb\ncccc", params: Params{"maxBytes": "9"}, status: StatusReplaced,
			want: "aaaa\nbbbb\n\n...5 bytes truncated...\n" + task},
		// tool.shell truncation: console.log of 1..2500 (MAX_LINES + 500)
		// keeps the last 2,000 of its 2,501 split lines.
		{name: "shell truncates output exceeding line limit", text: numbered1(1, 2500), tool: "bash", status: StatusReplaced,
			want:     "...output truncated...\n\nFull output saved to: " + harnessSpill + "\n\n" + numbered1(502, 2500),
			contains: []string{"...output truncated...", "Full output saved to: "}},
		{name: "shell truncates output exceeding byte limit", text: strings.Repeat("a", OpenCodeMaxBytes+10000), tool: "bash", status: StatusReplaced,
			want: "...output truncated...\n\nFull output saved to: " + harnessSpill + "\n\n" + strings.Repeat("a", OpenCodeMaxBytes)},
		{name: "shell does not truncate small output", text: "1\n", tool: "bash", status: StatusWithinBudget, want: "1\n"},
		{name: "shell keeps the last bytes of one long line on a code point", text: strings.Repeat("é", 40), tool: "shell", params: Params{"maxBytes": "5"}, status: StatusReplaced,
			want: "...output truncated...\n\nFull output saved to: " + harnessSpill + "\n\néé"},
		{name: "shell says no output when only a trailing newline fits", text: strings.Repeat("x", 200) + "\n", tool: "bash", params: Params{"maxBytes": "100"}, status: StatusNoticeOnly,
			want: "...output truncated...\n\nFull output saved to: " + harnessSpill + "\n\n(no output)"},
		{name: "read passes through", text: hundred, tool: "read", params: Params{"maxLines": "10"}, status: StatusPassThrough, want: hundred},
		{name: "grep caps itself", text: hundred, tool: "grep", params: Params{"maxLines": "10"}, status: StatusPassThrough, want: hundred},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o := decideOwn(t, "opencode", tc.params, tc.tool, harnessSpill, textBlock(tc.text))
			if o.Status != tc.status {
				t.Fatalf("status %s, want %s (%v)", o.Status, tc.status, o.Diagnostics)
			}
			got := textOf(o.Content)
			if tc.want != "" && got != tc.want {
				t.Fatalf("content\n%q\nwant\n%q", clip(got), clip(tc.want))
			}
			for _, s := range tc.contains {
				if !strings.Contains(got, s) {
					t.Errorf("content lacks %q", s)
				}
			}
			for _, s := range tc.notContains {
				if strings.Contains(got, s) {
					t.Errorf("content holds %q", s)
				}
			}
			switch o.Status {
			case StatusReplaced, StatusNoticeOnly:
				if o.Recovery.Kind != RecoverFile || o.Recovery.Locator != harnessSpill || o.CompleteFile != tc.text {
					t.Errorf("recovery %+v, file of %d bytes; want the whole output in %s", o.Recovery, len(o.CompleteFile), harnessSpill)
				}
				if r, ok := RecogniseOpenCodeTruncation(got); !ok || r.Path != harnessSpill {
					t.Errorf("the recogniser reads %+v, %v", r, ok)
				}
			default:
				if o.Recovery.Kind != "" || o.CompleteFile != "" {
					t.Errorf("an output left whole names a file: %+v", o.Recovery)
				}
			}
		})
	}
	t.Run("uses default MAX_LINES and MAX_BYTES", func(t *testing.T) {
		info := mustPolicy(t, "opencode").Info()
		got := map[string]string{}
		for _, p := range info.Params {
			got[p.Name] = p.Default
		}
		if got["maxLines"] != "2000" || got["maxBytes"] != "51200" {
			t.Fatalf("defaults %v", got)
		}
	})
}

// TestGooseCases: crates/goose/src/agents/large_response_handler.rs tests
// (aaif-goose/goose @ 03b56016; the older sentence's tests at block/goose @
// 12dca033).
func TestGooseCases(t *testing.T) {
	dir := t.TempDir()
	img := writePNG(t, dir, 8, 8)
	large := strings.Repeat("a", GooseThreshold+1000)
	current := "The response returned from the tool call was larger (201000 characters) and is stored in the file: " + goosePath + "\nYou can use other tools to examine or search it."
	older := "The response returned from the tool call was larger (201000 characters) and is stored in the file which you can use other tools to examine or search in: " + goosePath
	cases := []struct {
		name    string
		content []Block
		params  Params
		status  string
		want    []string // each content item's text ("<image>" for an image)
	}{
		{"test_small_text_response_passes_through", []Block{textBlock("This is a small text response")}, nil, StatusWithinBudget, []string{"This is a small text response"}},
		{"test_large_text_response_redirected_to_file", []Block{textBlock(large)}, nil, StatusNoticeOnly, []string{current}},
		{"older sentence", []Block{textBlock(large)}, Params{"era": "older"}, StatusNoticeOnly, []string{older}},
		{"test_image_content_passes_through", []Block{img}, nil, StatusWithinBudget, []string{"<image>"}},
		{"test_mixed_content_handled_correctly", []Block{textBlock("Small text"), textBlock(large), img}, nil, StatusReplaced, []string{"Small text", current, "<image>"}},
		// Characters, not bytes: 200,000 two-byte characters are at the
		// threshold, one more is over it.
		{"counts Unicode characters", []Block{textBlock(strings.Repeat("é", GooseThreshold))}, nil, StatusWithinBudget, []string{strings.Repeat("é", GooseThreshold)}},
		{"one character over", []Block{textBlock(strings.Repeat("é", GooseThreshold+1))}, nil, StatusNoticeOnly,
			[]string{"The response returned from the tool call was larger (200001 characters) and is stored in the file: " + goosePath + "\nYou can use other tools to examine or search it."}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o := decideOwn(t, "goose", tc.params, "", goosePath, tc.content...)
			if o.Status != tc.status {
				t.Fatalf("status %s, want %s", o.Status, tc.status)
			}
			if len(o.Content) != len(tc.want) {
				t.Fatalf("%d items, want %d", len(o.Content), len(tc.want))
			}
			for i, b := range o.Content {
				got := b.Text
				if b.Type == TypeImage {
					got = "<image>"
				}
				if got != tc.want[i] {
					t.Errorf("item %d: %q, want %q", i, clip(got), clip(tc.want[i]))
				}
				if strings.HasPrefix(got, "The response") {
					n, ok := RecogniseGooseNotice(got)
					if !ok || n.Path != goosePath || (n.Characters != 201000 && n.Characters != 200001) {
						t.Errorf("recognised %+v, %v", n, ok)
					}
				}
			}
			if tc.status != StatusWithinBudget && o.CompleteFile != tc.content[len(tc.content)/2].Text && o.CompleteFile != tc.content[0].Text {
				t.Errorf("the file holds %d bytes, not the large item", len(o.CompleteFile))
			}
		})
	}
}

// TestGeminiCases: packages/core/src/utils/fileUtils.test.ts
// ("formatTruncatedToolOutput") and packages/core/src/scheduler/
// tool-executor.test.ts @ 569f972e ("should truncate large shell output"),
// google-gemini/gemini-cli; the older form from coreToolScheduler.ts's
// truncateAndSaveToFile.
func TestGeminiCases(t *testing.T) {
	long := "This is a very long output that should be truncated."
	cases := []struct {
		name     string
		text     string
		tool     string
		params   Params
		status   string
		want     string
		contains []string
	}{
		{name: "does not truncate if within limit", text: "short", params: Params{"truncateToolOutputThreshold": "100"}, status: StatusWithinBudget, want: "short"},
		{name: "truncates content and adds link to file", text: strings.Repeat("A", 1000), params: Params{"truncateToolOutputThreshold": "100"}, status: StatusReplaced,
			want:     "Output too large. Showing first 20 and last 80 characters. For full output see: " + geminiPath + "\n" + strings.Repeat("A", 20) + "\n\n... [900 characters omitted] ...\n\n" + strings.Repeat("A", 80),
			contains: []string{"Output too large", "characters omitted"}},
		{name: "should truncate large shell output", text: long, tool: "run_shell_command", params: Params{"truncateToolOutputThreshold": "10"}, status: StatusReplaced,
			want: "Output too large. Showing first 2 and last 8 characters. For full output see: " + geminiPath + "\nTh\n\n... [" + itoa(len(long)-10) + " characters omitted] ...\n\nuncated."},
		{name: "shipped threshold groups digits", text: strings.Repeat("x", 1_000_000), tool: "run_shell_command", status: StatusReplaced,
			contains: []string{"Showing first 8,000 and last 32,000 characters.", "... [960,000 characters omitted] ..."}},
		{name: "JavaScript characters: a pair counts two", text: strings.Repeat("🙂", 30), params: Params{"truncateToolOutputThreshold": "11"}, status: StatusReplaced,
			// head 2 units = one pair; tail 9 units: four pairs, the half
			// of a fifth left out.
			want: "Output too large. Showing first 2 and last 9 characters. For full output see: " + geminiPath + "\n🙂\n\n... [49 characters omitted] ...\n\n🙂🙂🙂🙂"},
		{name: "shell only", text: strings.Repeat("A", 1000), tool: "read_many_files", params: Params{"truncateToolOutputThreshold": "100", "tools": "shell"}, status: StatusPassThrough},
		{name: "zero never truncates", text: strings.Repeat("A", 1000), params: Params{"truncateToolOutputThreshold": "0"}, status: StatusDisabled},
		{name: "older keeps head and tail lines", text: numbered("l", 20, "\n"), tool: "run_shell_command",
			params: Params{"era": "older", "truncateToolOutputThreshold": "10", "truncateToolOutputLines": "5"}, status: StatusReplaced,
			want: FormatGeminiOlderNotice(geminiPath) + "l0\n... [CONTENT TRUNCATED] ...\nl16\nl17\nl18\nl19"},
		{name: "older wraps long lines", text: strings.Repeat("w", 300), tool: "run_shell_command",
			params: Params{"era": "older", "truncateToolOutputThreshold": "10", "truncateToolOutputLines": "2"}, status: StatusReplaced,
			want: FormatGeminiOlderNotice(geminiPath) + "\n... [CONTENT TRUNCATED] ...\n" + strings.Repeat("w", 120) + "\n" + strings.Repeat("w", 60)},
		{name: "older applies to the shell tool only", text: numbered("l", 20, "\n"), tool: "grep",
			params: Params{"era": "older", "truncateToolOutputThreshold": "10", "truncateToolOutputLines": "5"}, status: StatusPassThrough},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o := decideOwn(t, "gemini-cli", tc.params, tc.tool, geminiPath, textBlock(tc.text))
			if o.Status != tc.status {
				t.Fatalf("status %s, want %s (%v)", o.Status, tc.status, o.Diagnostics)
			}
			got := textOf(o.Content)
			if tc.want != "" && got != tc.want {
				t.Fatalf("content\n%q\nwant\n%q", clip(got), clip(tc.want))
			}
			for _, s := range tc.contains {
				if !strings.Contains(got, s) {
					t.Errorf("content lacks %q", s)
				}
			}
			if o.Status == StatusReplaced {
				g, ok := RecogniseGeminiTruncation(got)
				if !ok || g.Path != geminiPath {
					t.Fatalf("recognised %+v, %v", g, ok)
				}
				if tc.params["era"] != "older" && g.First+g.Last+g.Omitted != int64(utf16Len(tc.text)) {
					t.Errorf("notice figures %+v do not add up to %d characters", g, utf16Len(tc.text))
				}
			}
		})
	}
}

func clip(s string) string {
	if len(s) > 400 {
		return s[:200] + " … " + s[len(s)-200:]
	}
	return s
}

// TestRecognisers: each convention as its harness writes it (the formats
// of ../shared/fixtures/FORMATS.md §3), and texts that only look alike.
func TestRecognisers(t *testing.T) {
	masked := "<tool_output_masked>\nOutput too large. Showing first 8,000 and last 32,000 characters. For full output see: " + geminiPath + "\nOutput: HEAD\n...\nTAIL\n</tool_output_masked>"
	cases := []struct {
		name string
		text string
		kind string // "" for none
		path string
	}{
		{"opencode head, grep ending", "a\nb\n\n...3 lines truncated...\n\n" + FormatOpenCodeHint(harnessSpill, false), OpenCodeGeneric, harnessSpill},
		{"opencode tail, task ending", "...12 bytes truncated...\n\n" + FormatOpenCodeHint(harnessSpill, true) + "\n\nxyz", OpenCodeGeneric, harnessSpill},
		{"opencode shell", "...output truncated...\n\nFull output saved to: " + harnessSpill + "\n\nlast line", OpenCodeShell, harnessSpill},
		{"opencode read paging is not a truncation", "<content>\n1: x\n\n(Showing lines 1-10 of 158. Use offset=11 to continue.)\n</content>", "", ""},
		{"opencode marker without its hint", "x\n\n...3 lines truncated...\n\nsomething else", "", ""},
		{"goose current", FormatGooseNotice(250000, goosePath, "current"), GooseCurrent, goosePath},
		{"goose older", FormatGooseNotice(250000, goosePath, "older"), GooseOlder, goosePath},
		{"goose sentence inside other text", "prefix " + FormatGooseNotice(250000, goosePath, "current"), "", ""},
		{"gemini current", FormatGeminiNotice(8000, 32000, geminiPath) + "h\n\n... [1,000 characters omitted] ...\n\nt", GeminiCurrent, geminiPath},
		{"gemini masked", masked, GeminiCurrent, geminiPath},
		{"gemini older", FormatGeminiOlderNotice(geminiPath) + "a" + geminiOlderMarker + "b", GeminiOlder, geminiPath},
		{"gemini badly grouped figures", "Output too large. Showing first 80,00 and last 32,000 characters. For full output see: x\n", "", ""},
		{"dsh notice is none of these", "x\n\n(Omitted 5 bytes. Full formatted result stored at: /s. " + LocalSpillHint + ")", "", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			kind, path := "", ""
			if r, ok := RecogniseOpenCodeTruncation(tc.text); ok {
				kind, path = r.Kind, r.Path
			}
			if g, ok := RecogniseGooseNotice(tc.text); ok {
				kind, path = g.Kind, g.Path
			}
			if g, ok := RecogniseGeminiTruncation(tc.text); ok {
				kind, path = g.Kind, g.Path
				if tc.name == "gemini masked" && (!g.Masked || g.First != 8000 || g.Last != 32000) {
					t.Errorf("masked notice read as %+v", g)
				}
				if tc.name == "gemini current" && g.Omitted != 1000 {
					t.Errorf("omitted %d", g.Omitted)
				}
			}
			if kind != tc.kind || path != tc.path {
				t.Fatalf("recognised %q %q, want %q %q", kind, path, tc.kind, tc.path)
			}
		})
	}
}
