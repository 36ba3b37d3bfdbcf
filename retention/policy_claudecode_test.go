package retention

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

// Claude Code is closed source, so these cases come from its documented
// and observed behaviour: the changelog (2.1.2: large outputs persisted to
// disk; 2.1.51: threshold 100K -> 50K characters), anthropics/claude-code
// issues #17944 (Bash persists above 30,000 characters; the preview is
// exactly 2,000 characters when no newline helps) and #23948 (the wrapper's
// shape, "4.8MB"), and the shared fixtures' three notices (141KB, 32.9KB,
// 33.8KB), replayed in policy_claudecode_real_test.go.

func TestClaudeFormatSize(t *testing.T) {
	for _, tc := range []struct {
		n    int64
		want string
	}{
		{0, "0 bytes"}, {1023, "1023 bytes"}, {1024, "1KB"}, {1536, "1.5KB"},
		{ClaudePreviewChars, "2KB"},                             // "Preview (first 2KB)"
		{144356, "141KB"}, {33643, "32.9KB"}, {34572, "33.8KB"}, // the fixtures
		{1280, "1.3KB"},     // 1.25 exactly: toFixed rounds half up
		{1048575, "1024KB"}, // under 1 MiB, printed from the unrounded quotient
		{1048576, "1MB"}, {5033165, "4.8MB"}, {1 << 30, "1GB"}, {3 << 29, "1.5GB"},
	} {
		if got := ClaudeFormatSize(tc.n); got != tc.want {
			t.Errorf("%d: %q, want %q", tc.n, got, tc.want)
		}
		lo, hi := ParseClaudeSize(tc.want)
		if tc.n < lo || tc.n > hi {
			t.Errorf("ParseClaudeSize(%q) = [%d, %d], misses %d", tc.want, lo, hi, tc.n)
		}
		if ClaudeFormatSize(lo) != tc.want || ClaudeFormatSize(hi) != tc.want ||
			(lo > 0 && ClaudeFormatSize(lo-1) == tc.want) || ClaudeFormatSize(hi+1) == tc.want {
			t.Errorf("ParseClaudeSize(%q) = [%d, %d] is not the exact range", tc.want, lo, hi)
		}
	}
	for _, bad := range []string{"1.0KB", "01KB", "1.55KB", "KB", "2048 bytes", "1,5KB", "12"} {
		if lo, hi := ParseClaudeSize(bad); lo != -1 || hi != -1 {
			t.Errorf("ParseClaudeSize(%q) = %d, %d", bad, lo, hi)
		}
	}
}

func TestClaudePreview(t *testing.T) {
	for _, tc := range []struct {
		name       string
		in         string
		end        int
		more, pair bool
	}{
		{"short", strings.Repeat("a", 2000), 2000, false, false},
		{"no newline: exactly 2000 (#17944)", strings.Repeat("A", 1990) + "[1990]" + strings.Repeat("B", 50) + strings.Repeat("D", 3000), 2000, true, false},
		{"last newline past 1000", strings.Repeat("a", 1500) + "\n" + strings.Repeat("b", 3000), 1500, true, false},
		{"newline at unit 1000 does not count", strings.Repeat("a", 1000) + "\n" + strings.Repeat("b", 3000), 2000, true, false},
		{"newline at unit 1001 counts", strings.Repeat("a", 1001) + "\n" + strings.Repeat("b", 3000), 1001, true, false},
		{"the last newline within 2000 wins", strings.Repeat("a", 1200) + "\n" + strings.Repeat("b", 700) + "\n" + strings.Repeat("c", 3000), 1901, true, false},
		{"a newline after 2000 does not", strings.Repeat("a", 2000) + "\n" + strings.Repeat("b", 10), 2000, true, false},
		{"three-byte characters are one unit", strings.Repeat("日", 2500), 6000, true, false},
		{"a surrogate pair split at 2000", strings.Repeat("a", 1999) + "😀" + strings.Repeat("b", 10), 1999, true, true},
		{"a pair that fits", strings.Repeat("a", 1998) + "😀" + strings.Repeat("b", 10), 2002, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			end, more, pair := ClaudePreview(tc.in)
			if end != tc.end || more != tc.more || pair != tc.pair {
				t.Errorf("got (%d, %v, %v), want (%d, %v, %v)", end, more, pair, tc.end, tc.more, tc.pair)
			}
		})
	}
}

func TestClaudePersistedMessage(t *testing.T) {
	got := ClaudePersistedMessage(144356, "/p/s/tool-results/toolu_1.txt", "line 1\nline 2", true)
	want := "<persisted-output>\nOutput too large (141KB). Full output saved to: /p/s/tool-results/toolu_1.txt\n\nPreview (first 2KB):\nline 1\nline 2\n...\n</persisted-output>"
	if got != want {
		t.Fatalf("got  %q\nwant %q", got, want)
	}
	if got := ClaudePersistedMessage(10, "x", "p", false); !strings.HasSuffix(got, "\np\n</persisted-output>") {
		t.Fatalf("without more: %q", got)
	}
	p, ok := RecogniseClaudePersistedOutput(want + "\nShell cwd was reset to /repo")
	if !ok || p.Kind != ClaudePersistedPreview || p.Size != "141KB" || p.Path != "/p/s/tool-results/toolu_1.txt" || !p.More ||
		want[p.PreviewStart:p.PreviewEnd] != "line 1\nline 2" || p.End != len(want) || p.SizeMin > 144356 || p.SizeMax < 144356 {
		t.Fatalf("recognised %+v", p)
	}
	legacy := "<persisted-output>Tool result saved to: /tmp/x.txt\n\nUse Read to view</persisted-output>"
	if p, ok := RecogniseClaudePersistedOutput(legacy); !ok || p.Kind != ClaudePersistedLegacy || p.Path != "/tmp/x.txt" || p.End != len(legacy) {
		t.Fatalf("legacy %+v %v", p, ok)
	}
}

func claudeRun(t *testing.T, res Result, tool string, params Params, est string) Outcome {
	t.Helper()
	if est == "" {
		est = EstimatorBytes4
	}
	opts := Options{Policy: "claude-code", ToolName: tool, Params: Params{}, Estimator: est, SpillPath: "/p/s/tool-results/toolu_x.txt"}
	for k, v := range params {
		if k == "threshold" {
			n, err := parseInt(v, Param{Unit: "chars", Max: MaxBudget})
			if err != nil {
				t.Fatal(err)
			}
			opts.Budget = &n
			continue
		}
		opts.Params[k] = v
	}
	return mustRetain(t, res, opts)
}

func TestClaudeThresholds(t *testing.T) {
	text := func(n int) Result { return Result{Content: []Block{textBlock(strings.Repeat("x", n))}} }
	for _, tc := range []struct {
		name, tool string
		n          int
		params     Params
		want       string
	}{
		{"Bash at 30000", "Bash", 30000, nil, StatusWithinBudget},
		{"Bash over 30000", "Bash", 30001, nil, StatusReplaced},
		{"Grep over 20000", "Grep", 20001, nil, StatusReplaced},
		{"other at 50000", "Glob", 50000, nil, StatusWithinBudget},
		{"other over 50000", "WebFetch", 50001, nil, StatusReplaced},
		{"Read never", "Read", 1 << 20, nil, StatusPassThrough},
		{"MCP tools clamp 100000 to 50000", "mcp__srv__tool", 50001, nil, StatusReplaced},
		{"tool=Bash picks its threshold", "", 30001, Params{"tool": "Bash"}, StatusReplaced},
		{"the 100K ceiling of 2.1.2-2.1.50", "mcp__srv__tool", 60000, Params{"threshold": "100000"}, StatusWithinBudget},
		{"the ceiling does not lift Bash", "Bash", 31000, Params{"threshold": "100000"}, StatusReplaced},
		{"a lower ceiling", "Bash", 4001, Params{"threshold": "4000"}, StatusReplaced},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if o := claudeRun(t, text(tc.n), tc.tool, tc.params, ""); o.Status != tc.want {
				t.Fatalf("%s, want %s (%v)", o.Status, tc.want, o.Diagnostics)
			}
		})
	}
}

func TestClaudePersisted(t *testing.T) {
	body := strings.Repeat("line of output\n", 4000)
	o := claudeRun(t, Result{Content: []Block{textBlock(body)}}, "Bash", nil, "")
	end, more, _ := ClaudePreview(body)
	want := ClaudePersistedMessage(int64(len(body)), "/p/s/tool-results/toolu_x.txt", body[:end], more)
	if o.Status != StatusReplaced || len(o.Content) != 1 || o.Content[0].Text != want {
		t.Fatalf("%s %+v", o.Status, o.Content)
	}
	if o.Recovery != (Recovery{Kind: RecoverFile, Locator: "/p/s/tool-results/toolu_x.txt"}) || o.CompleteFile != body ||
		o.OmittedBytes != int64(len(body)-end) || o.Notice != "Output too large (58.6KB). Full output saved to: /p/s/tool-results/toolu_x.txt" {
		t.Fatalf("recovery %+v, omitted %d, notice %q", o.Recovery, o.OmittedBytes, o.Notice)
	}

	// An array of blocks is saved as JSON.stringify(blocks, null, 2) to
	// a .json file, and the preview is of that text; the threshold weighs
	// the texts alone.
	a, b := strings.Repeat("a\"", 13000), strings.Repeat("b", 25000)
	o = mustRetain(t, Result{Content: []Block{textBlock(a), textBlock(b)}}, Options{Policy: "claude-code", ToolName: "mcp__srv__tool", Estimator: EstimatorBytes4})
	file := "[\n  {\n    \"type\": \"text\",\n    \"text\": " + jsString(a) + "\n  },\n  {\n    \"type\": \"text\",\n    \"text\": \"" + b + "\"\n  }\n]"
	if o.Status != StatusReplaced || o.CompleteFile != file || o.Recovery.Locator != "~/.claude/projects/<project>/<session>/tool-results/<tool_use_id>.json" {
		t.Fatalf("%s %q", o.Status, o.Recovery.Locator)
	}
	if !strings.Contains(o.Content[0].Text, "Output too large ("+ClaudeFormatSize(int64(len(file)))+")") || !strings.Contains(o.Content[0].Text, "\n"+file[:2000]+"\n...\n") {
		t.Fatalf("array wrapper %q", o.Content[0].Text[:300])
	}

	// Images are never persisted; other non-text blocks cannot be.
	dir := t.TempDir()
	o = claudeRun(t, Result{Content: []Block{textBlock(b + b + b), writePNG(t, dir, 10, 10)}}, "mcp__srv__tool", nil, "")
	if o.Status != StatusWithinBudget {
		t.Fatalf("with an image: %s", o.Status)
	}
	o = claudeRun(t, Result{Content: []Block{textBlock(b + b + b), {Type: TypeResource, Raw: json.RawMessage(`{"type":"resource"}`)}}}, "mcp__srv__tool", nil, "")
	if o.Status != StatusPreserved {
		t.Fatalf("with a resource: %s", o.Status)
	}
}

func TestClaudeMCP(t *testing.T) {
	big := Result{Content: []Block{textBlock(strings.Repeat("0123456789", 20000))}}
	o := claudeRun(t, big, "mcp__github__list_issues", Params{"mcp": "error"}, "")
	want := `MCP tool "list_issues" response (50000 tokens) exceeds maximum allowed tokens (25000). Please use pagination, filtering, or limit parameters to reduce the response size.`
	if o.Status != StatusNoticeOnly || o.Content[0].Text != want || o.Recovery.Kind != RecoverNone || o.Recovery.LostBytes != 200000 {
		t.Fatalf("%s %+v %+v", o.Status, o.Content, o.Recovery)
	}
	if r, ok := RecogniseClaudeTokenLimit("Error: " + want); !ok || r.Kind != ClaudeLimitMCP || r.Tool != "list_issues" || r.Tokens != 50000 || r.Max != 25000 {
		t.Fatalf("recognised %+v", r)
	}

	// 2.1.x cuts the response to 4 x 25,000 characters and adds its
	// notice; 100,000 characters are then over the 50,000 threshold, so
	// the cut response is persisted and the rest is lost.
	o = claudeRun(t, big, "mcp__github__list_issues", Params{"mcp": "truncate"}, "")
	cut := strings.Repeat("0123456789", 10000) + ClaudeMCPTruncationNotice(25000)
	if o.Status != StatusReplaced || o.CompleteFile != cut || o.Recovery.Kind != RecoverFile || o.Recovery.LostBytes != 100000 {
		t.Fatalf("%s %+v", o.Status, o.Recovery)
	}
	if _, _, max, ok := RecogniseClaudeMCPTruncated(cut); !ok || max != 25000 {
		t.Fatal("truncation notice not recognised")
	}

	// The pre-check: round(length/4) at most half the limit skips the count.
	o = claudeRun(t, Result{Content: []Block{textBlock(strings.Repeat("x", 50000))}}, "mcp__a__b", Params{"mcp": "error", "MAX_MCP_OUTPUT_TOKENS": "25000"}, "")
	if o.Status != StatusWithinBudget {
		t.Fatalf("pre-check: %s", o.Status)
	}
}

func TestClaudeRecognisers(t *testing.T) {
	read := "File content (85812 tokens) exceeds maximum allowed tokens (25000). Please use offset and limit parameters to read specific portions of the file, or use the GrepTool to search for specific content."
	if r, ok := RecogniseClaudeTokenLimit(read); !ok || r.Kind != ClaudeLimitRead || r.Tokens != 85812 || r.Max != 25000 || read[r.Start:r.End] != "File content (85812 tokens) exceeds maximum allowed tokens (25000)" {
		t.Fatalf("read limit %+v", r)
	}
	saved := "Error: result (274,806 characters across 1 line) exceeds maximum allowed tokens. Output has been saved to /h/.claude/projects/p/s/tool-results/mcp-velajs-logs-1789452141463.txt.\nFormat: Plain text\n"
	if s, ok := RecogniseClaudeMCPSaved(saved); !ok || s.Characters != 274806 || s.Lines != 1 || s.Path != "/h/.claude/projects/p/s/tool-results/mcp-velajs-logs-1789452141463.txt" {
		t.Fatalf("saved %+v", s)
	}
	if s, ok := RecogniseClaudeMCPSaved("result (389,752 characters) exceeds maximum allowed tokens. Output has been saved to C:\\x\\y.txt."); !ok || s.Characters != 389752 || s.Lines != -1 || s.Path != `C:\x\y.txt` {
		t.Fatalf("saved without lines %+v", s)
	}
	for _, no := range []string{"", "<persisted-output>", "result (12 characters) exceeds", "MCP tool \"x\" response (n tokens) exceeds maximum allowed tokens (1)"} {
		if _, ok := RecogniseClaudeTokenLimit(no); ok {
			t.Errorf("token limit in %q", no)
		}
		if _, ok := RecogniseClaudePersistedOutput(no); ok {
			t.Errorf("persisted output in %q", no)
		}
		if _, ok := RecogniseClaudeMCPSaved(no); ok {
			t.Errorf("saved notice in %q", no)
		}
	}
}

func TestClaudeMessageBudget(t *testing.T) {
	text := func(n int) Result { return Result{Content: []Block{textBlock(strings.Repeat("x", n))}} }
	img := Result{Content: []Block{textBlock(strings.Repeat("x", 300000)), {Type: TypeImage}}}
	persisted := Result{Content: []Block{textBlock(ClaudePersistedOpen + strings.Repeat("x", 300000))}}
	for _, tc := range []struct {
		name  string
		in    []ClaudeMessageResult
		limit int64
		want  []int
	}{
		{"fits", []ClaudeMessageResult{{"Bash", text(150000)}, {"Bash", text(50000)}}, 0, nil},
		{"largest first until the rest fits", []ClaudeMessageResult{{"Bash", text(60000)}, {"Grep", text(150000)}, {"Bash", text(10000)}}, 0, []int{1}},
		{"several", []ClaudeMessageResult{{"a", text(90000)}, {"b", text(90000)}, {"c", text(90000)}, {"d", text(90000)}}, 0, []int{0, 1}},
		{"Read, images and persisted results neither count nor go", []ClaudeMessageResult{{"Read", text(500000)}, {"x", img}, {"y", persisted}, {"z", text(190000)}}, 0, nil},
		{"a smaller budget", []ClaudeMessageResult{{"a", text(3000)}, {"b", text(2000)}}, 2500, []int{0}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := ClaudeMessageBudget(tc.in, tc.limit); !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
		})
	}
}

func TestClaudeParams(t *testing.T) {
	info := mustPolicy(t, "claude-code").Info()
	for _, bad := range []Params{
		{"threshold": "-1"}, {"threshold": "1.5"}, {"tool": "Write"}, {"content": "list"}, {"mcp": "yes"},
		{"MAX_MCP_OUTPUT_TOKENS": "0"}, {"preview": "1"},
	} {
		_, err := info.Resolve(bad)
		if !errors.Is(err, ErrParam) {
			t.Errorf("%v: error %v, want ErrParam", bad, err)
			continue
		}
		for k := range bad {
			if !strings.Contains(err.Error(), k) {
				t.Errorf("%v: %q does not name %s", bad, err, k)
			}
		}
	}
}
