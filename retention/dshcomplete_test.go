package retention

import (
	"strings"
	"testing"
)

func TestParseDshComplete(t *testing.T) {
	img := func(p string) Block { return Block{Type: TypeImage, MimeType: "image/png", Path: p} }
	tests := []struct {
		name  string
		parts []Block
	}{
		{"text only", []Block{textBlock("plain\n[Image: not a line]\n")}},
		{"text image text", []Block{textBlock("head"), img("/h/attachments/v1/objects/ab/ab1"), textBlock("tail\n")}},
		{"images at the ends", []Block{img("/h/a \"quoted\" ☃.png"), textBlock("middle"), img("/h/b.png")}},
		{"two images together", []Block{textBlock("x"), img("/h/1.png"), img("/h/2.png")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var sb strings.Builder
			for _, b := range tt.parts {
				if b.Type == TypeText {
					sb.WriteString(b.Text)
				} else {
					sb.WriteString(DshImageLine(b.Path, b.MimeType, 640, 400))
				}
			}
			got, images := ParseDshComplete(sb.String(), func(p string) bool { return strings.HasPrefix(p, "/h/") })
			if len(got) != len(tt.parts) {
				t.Fatalf("got %d blocks %+v, want %d", len(got), got, len(tt.parts))
			}
			for i, b := range got {
				w := tt.parts[i]
				if b.Type != w.Type || b.Text != w.Text || b.Path != w.Path || b.MimeType != w.MimeType {
					t.Errorf("block %d: %+v, want %+v", i, b, w)
				}
				if b.Type == TypeImage && (images[i].Width != 640 || images[i].Height != 400) {
					t.Errorf("image %d: %+v", i, images[i])
				}
			}
		})
	}
	t.Run("a path the harness does not write stays text", func(t *testing.T) {
		text := "a" + DshImageLine("/etc/passwd", "image/png", 1, 1) + "b"
		got, _ := ParseDshComplete(text, func(p string) bool { return strings.HasPrefix(p, "/h/") })
		if len(got) != 1 || got[0].Text != text {
			t.Errorf("%+v", got)
		}
	})
}

// FuzzParseDshComplete: any text parses, and its text blocks and image
// lines put back in order give the text again.
func FuzzParseDshComplete(f *testing.F) {
	f.Add("x" + DshImageLine("/p.png", "image/png", 3, 4) + "y")
	f.Add("\n[Image: \"\\\"\"; a; 1x2. Use read_image to view it.]\n")
	f.Fuzz(func(t *testing.T, text string) {
		blocks, images := ParseDshComplete(text, func(string) bool { return true })
		var sb strings.Builder
		for i, b := range blocks {
			if b.Type == TypeText {
				sb.WriteString(b.Text)
				continue
			}
			im := images[i]
			sb.WriteString(DshImageLine(im.Path, im.MediaType, im.Width, im.Height))
		}
		// A line re-written may spell its path or numbers differently
		// (escapes, leading zeros); then only its facts must match.
		if sb.String() != text {
			again, _ := ParseDshComplete(sb.String(), func(string) bool { return true })
			if len(again) != len(blocks) {
				t.Fatalf("%q: %d blocks, rewritten %d", text, len(blocks), len(again))
			}
		}
	})
}
