package app

import (
	"testing"

	"spillscope/retention"
)

// TestBlockViewsShowEveryKind: blocks that are neither text nor image reach
// the panes as a line saying what they were, never dropped: a tool reference
// names its tool, an unreadable image says it could not be read.
func TestBlockViewsShowEveryKind(t *testing.T) {
	blocks := []retention.Block{
		{Type: retention.TypeText, Text: "found"},
		{Type: retention.TypeToolReference, Name: "mcp__github__create_issue", Raw: []byte(`{"type":"tool_reference","tool_name":"mcp__github__create_issue"}`)},
		{Type: "invalid:image", MimeType: "image/png", Raw: []byte(`{"type":"input_image","image_url":"data:image/png;base64,REDACTED"}`)},
	}
	views, _ := blockViews(blocks, t.TempDir(), false, textPages{})
	want := []struct{ kind, text string }{
		{"text", "found"},
		{"marker", "[tool reference: mcp__github__create_issue]"},
		{"marker", `[Content not shown: a "image" block that could not be read.]`},
	}
	if len(views) != len(want) {
		t.Fatalf("%d views for %d blocks", len(views), len(blocks))
	}
	for i, w := range want {
		if views[i].Kind != w.kind || views[i].Text != w.text || views[i].Index != i {
			t.Errorf("block %d: %q %q, want %q %q", i, views[i].Kind, views[i].Text, w.kind, w.text)
		}
	}
}
