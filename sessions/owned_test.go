package sessions

import (
	"encoding/base64"
	"reflect"
	"strings"
	"testing"
)

// A Claude Code line read from a buffer of its own (its long strings
// decoded in place) gives the results a shared buffer gives: texts with
// escapes, a content string, image data, and a block of another type whose
// "text" member must stay intact for the block's own parse.
func TestClaudeOwnedLineMatchesShared(t *testing.T) {
	big := strings.Repeat("line of \"output\"\twith é and \\ slashes\n", ownedMin/16)
	img := base64.StdEncoding.EncodeToString([]byte(strings.Repeat("\x89PNG....", ownedMin/4)))
	tests := []struct {
		name    string
		content any
	}{
		{"content string", big},
		{"text blocks", []any{map[string]any{"type": "text", "text": big}, map[string]any{"type": "text", "text": "small"}}},
		{"image data", []any{map[string]any{"type": "image", "source": map[string]any{"type": "base64", "media_type": "image/png", "data": img}}}},
		{"other block with text", []any{map[string]any{"text": big, "type": "resource", "resource": map[string]any{"uri": "file:///x", "text": big}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			line := cResult("s", "t1", tt.content)
			read := func(owned bool) []ToolResult {
				p := &Parsed{}
				(&ClaudeReader{}).ReadLine(Line{Bytes: []byte(line), Length: int64(len(line)) + 1, Number: 1, Complete: true, Owned: owned}, p)
				return p.Results
			}
			shared, owned := read(false), read(true)
			if len(shared) != 1 || len(shared[0].Blocks) == 0 {
				t.Fatalf("the shared read found %d results", len(shared))
			}
			if !reflect.DeepEqual(owned, shared) {
				t.Errorf("the owned read differs:\n got %.200v\nwant %.200v", owned, shared)
			}
		})
	}
}

// The same for a Codex CLI line: an output string, an array with a text
// and a data-URL image, and an item of another type kept raw.
func TestCodexOwnedLineMatchesShared(t *testing.T) {
	big := strings.Repeat("Process output \"quoted\"\tand é\n", ownedMin/16)
	img := "data:image/png;base64," + base64.StdEncoding.EncodeToString([]byte(strings.Repeat("\x89PNG....", ownedMin/4)))
	tests := []struct {
		name   string
		output any
	}{
		{"output string", big},
		{"text and image", []any{map[string]any{"type": "input_text", "text": big}, map[string]any{"type": "input_image", "image_url": img}}},
		{"other item with text", []any{map[string]any{"text": big, "type": "input_file", "image_url": img}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			line := mustJSON(map[string]any{"timestamp": "2026-01-01T00:00:00Z", "type": "response_item",
				"payload": map[string]any{"type": "function_call_output", "call_id": "c1", "output": tt.output}})
			read := func(owned bool) []ToolResult {
				p := &Parsed{}
				(&CodexReader{}).ReadLine(Line{Bytes: []byte(line), Length: int64(len(line)) + 1, Number: 1, Complete: true, Owned: owned}, p)
				return p.Results
			}
			shared, owned := read(false), read(true)
			if len(shared) != 1 || len(shared[0].Blocks) == 0 {
				t.Fatalf("the shared read found %d results", len(shared))
			}
			if !reflect.DeepEqual(owned, shared) {
				t.Errorf("the owned read differs")
			}
		})
	}
}
