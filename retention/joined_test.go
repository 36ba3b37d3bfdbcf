package retention

import (
	"strings"
	"testing"
)

// One join type serves OpenCode's Array.join and Codex's push loop: the
// rules differ only in leading empty blocks, and both map offsets back to
// blocks the same way.
func TestJoinedText(t *testing.T) {
	res := Result{Content: []Block{textBlock(""), textBlock("ab"), textBlock(""), textBlock("cd")}}
	e, err := LookupEstimator(EstimatorMeter)
	if err != nil {
		t.Fatal(err)
	}
	a, err := Analyse(res, e, "", AnalyseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, sep string
		rule      int
		text      string
		positions map[int64]Position
	}{
		{"between", "\n\n", joinBetween, "\n\nab\n\n\n\ncd", map[int64]Position{
			0: {Block: 1}, 1: {Block: 1}, 3: {Block: 1, Offset: 1}, 4: {Block: 2}, 7: {Block: 3}, 9: {Block: 3, Offset: 1}, 10: {Block: 4},
		}},
		{"after text", "\n", joinAfterText, "ab\n\ncd", map[int64]Position{
			0: {Block: 1}, 1: {Block: 1, Offset: 1}, 2: {Block: 2}, 3: {Block: 3}, 5: {Block: 3, Offset: 1}, 6: {Block: 4},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			j := a.joined(tt.sep, tt.rule)
			if j.text != tt.text {
				t.Fatalf("text %q, want %q", j.text, tt.text)
			}
			if got, want := j.lines, strings.Count(tt.text, "\n")+1; got != want {
				t.Errorf("lines %d, want %d", got, want)
			}
			if got := j.chars(a.codePoints()); got != int64(len(tt.text)) {
				t.Errorf("chars %d, want %d", got, len(tt.text))
			}
			for off, want := range tt.positions {
				if got := j.position(off, len(res.Content)); got != want {
					t.Errorf("position(%d) = %+v, want %+v", off, got, want)
				}
			}
			// The whole join comes back as kept spans for the blocks and
			// wrapper spans for the separators, in order.
			var c contentBuilder
			kept := j.add(&c, 0, int64(len(j.text)))
			if kept != 4 || len(c.blocks) != 1 || c.blocks[0].Text != tt.text {
				t.Fatalf("add kept %d bytes into %+v", kept, c.blocks)
			}
			for _, sp := range c.spans {
				part := c.blocks[0].Text[sp.OutStart:sp.OutEnd]
				switch sp.Kind {
				case SpanKept:
					if src := res.Content[sp.Block].Text[sp.Start:sp.End]; src != part {
						t.Errorf("kept span %+v is %q, block has %q", sp, part, src)
					}
				case SpanWrapper:
					if strings.Trim(part, "\n") != "" {
						t.Errorf("wrapper span %+v is %q", sp, part)
					}
				default:
					t.Errorf("span %+v", sp)
				}
			}
		})
	}
}

// The builder's open block grows in place: text already handed out (an
// earlier block, or the open block as it was) never changes, and every
// span points at its own part.
func TestContentBuilderParts(t *testing.T) {
	var c contentBuilder
	var want []string
	for i := range 1000 {
		s := strings.Repeat(string(rune('a'+i%26)), i%7)
		c.text(SpanKept, i, 0, s)
		want = append(want, s)
	}
	first := c.blocks[0].Text
	c.other(1000, Block{Type: "resource"})
	c.text(SpanNotice, -1, 0, "notice")
	c.end()
	c.text(SpanMarker, -1, 0, "marker")
	if got := strings.Join(want, ""); first != got || c.blocks[0].Text != got {
		t.Fatalf("first block changed: %d bytes, want %d", len(c.blocks[0].Text), len(got))
	}
	if len(c.blocks) != 4 || c.blocks[2].Text != "notice" || c.blocks[3].Text != "marker" {
		t.Fatalf("blocks %+v", c.blocks[1:])
	}
	for i, sp := range c.spans[:1000] {
		if got := c.blocks[sp.Out].Text[sp.OutStart:sp.OutEnd]; got != want[i] || sp.End-sp.Start != int64(len(want[i])) {
			t.Fatalf("span %d is %q, want %q", i, got, want[i])
		}
	}
}
