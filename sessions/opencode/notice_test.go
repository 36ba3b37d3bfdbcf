package opencode

import (
	"reflect"
	"strings"
	"testing"
)

// The texts are built the way tool/truncation.ts and the shell tool build
// them, from the source's template strings.
func TestRecogniseNotice(t *testing.T) {
	path := "/home/u/.local/share/opencode/tool-output/tool_c3eee3824001r2ysEXPDkHoY3U"
	lead := "The tool call succeeded but the output was truncated. Full output saved to: " + path + "\n"
	preview := strings.Repeat("line of output\n", 2000)
	tests := []struct {
		name string
		text string
		want Notice
		ok   bool
	}{
		{"head, Task hint", preview + "\n\n...4589116 bytes truncated...\n\n" + lead + hintTask,
			Notice{Kind: NoticeTruncate, Path: path, Removed: 4589116, Unit: "bytes", Direction: "head", Hint: "task"}, true},
		{"head, Grep hint", "a\nb\n\n...12 lines truncated...\n\n" + lead + hintGrep,
			Notice{Kind: NoticeTruncate, Path: path, Removed: 12, Unit: "lines", Direction: "head", Hint: "grep"}, true},
		{"tail", "...7 lines truncated...\n\n" + lead + hintGrep + "\n\n" + preview,
			Notice{Kind: NoticeTruncate, Path: path, Removed: 7, Unit: "lines", Direction: "tail", Hint: "grep"}, true},
		{"shell", "...output truncated...\n\nFull output saved to: " + path + "\n\ntail line\n\n<shell_metadata>\nUser aborted the command\n</shell_metadata>",
			Notice{Kind: NoticeShell, Path: path, Direction: "tail"}, true},
		{"plain output", "ok\n", Notice{}, false},
		{"the hint quoted mid-text is not a notice", "see: " + lead + "and more text after it\n" + strings.Repeat("x", 10000), Notice{}, false},
		{"shell notice without a path", "...output truncated...\n\nFull output saved to: \n\nx", Notice{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := RecogniseNotice(tt.text)
			if ok != tt.ok || !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %+v %v, want %+v %v", got, ok, tt.want, tt.ok)
			}
		})
	}
}

func FuzzRecogniseNotice(f *testing.F) {
	f.Add("x\n\n...1 lines truncated...\n\n" + hintLead + "/p/tool_a\n" + hintGrep)
	f.Add(shellLead + "/p\n\nx")
	f.Fuzz(func(t *testing.T, s string) {
		n, ok := RecogniseNotice(s)
		if ok && (n.Path == "" || !strings.Contains(s, n.Path)) {
			t.Fatalf("notice %+v names a path not in the text", n)
		}
	})
}
