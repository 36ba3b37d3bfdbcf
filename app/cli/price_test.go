package cli

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"hash/crc32"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"spillscope/retention/imagecost"

	"golang.org/x/image/bmp"
	"golang.org/x/image/tiff"
)

// priceImages writes one generated image per format into dir and returns
// their paths by format. The PNG is saved under a .txt name on purpose: the
// format comes from the bytes.
func priceImages(t *testing.T, dir string) map[string]string {
	t.Helper()
	img := func(w, h int) image.Image {
		m := image.NewRGBA(image.Rect(0, 0, w, h))
		m.Set(0, 0, color.RGBA{255, 0, 0, 255})
		return m
	}
	enc := map[string]func(io.Writer) error{
		"notes.txt": func(w io.Writer) error { return png.Encode(w, img(1000, 1000)) },
		"photo.jpg": func(w io.Writer) error { return jpeg.Encode(w, img(1920, 1080), nil) },
		"anim.gif":  func(w io.Writer) error { return gif.Encode(w, img(200, 200), nil) },
		"old.bmp":   func(w io.Writer) error { return bmp.Encode(w, img(1092, 1092)) },
		"scan.tif":  func(w io.Writer) error { return tiff.Encode(w, img(1075, 1520), nil) },
		"shot.webp": func(w io.Writer) error { _, err := w.Write(webpVP8X(3840, 2160)); return err },
	}
	paths := map[string]string{}
	for name, f := range enc {
		var b bytes.Buffer
		if err := f(&b); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b.Bytes(), 0o600); err != nil {
			t.Fatal(err)
		}
		paths[name] = p
	}
	return paths
}

// webpVP8X is a RIFF WEBP file holding only a VP8X header (24-bit canvas
// sizes), which is all a header read needs; x/image has no WebP encoder.
func webpVP8X(w, h int) []byte {
	x := []byte{0, 0, 0, 0,
		byte(w - 1), byte((w - 1) >> 8), byte((w - 1) >> 16),
		byte(h - 1), byte((h - 1) >> 8), byte((h - 1) >> 16)}
	body := append([]byte("WEBPVP8X"), binary.LittleEndian.AppendUint32(nil, uint32(len(x)))...)
	body = append(body, x...)
	out := append([]byte("RIFF"), binary.LittleEndian.AppendUint32(nil, uint32(len(body)))...)
	return append(out, body...)
}

func runPriceCmd(t *testing.T, stdin io.Reader, args ...string) (int, string, string) {
	t.Helper()
	if stdin == nil {
		stdin = strings.NewReader("")
	}
	var out, errb bytes.Buffer
	code := Run(Env{Stdin: stdin, Stdout: &out, Stderr: &errb}, append([]string{"price"}, args...))
	return code, out.String(), errb.String()
}

func decodePriceLines(t *testing.T, out string) []priceLine {
	t.Helper()
	var lines []priceLine
	dec := json.NewDecoder(strings.NewReader(out))
	dec.DisallowUnknownFields()
	for dec.More() {
		var l priceLine
		if err := dec.Decode(&l); err != nil {
			t.Fatalf("stdout is not JSON lines: %v\n%s", err, out)
		}
		lines = append(lines, l)
	}
	return lines
}

func TestPriceFormatsAndRoutes(t *testing.T) {
	paths := priceImages(t, t.TempDir())
	cases := []struct {
		name, file, route, format, media string
		w, h, tokens                     int
	}{
		{"png named .txt on anthropic", "notes.txt", "anthropic", "png", "image/png", 1000, 1000, 1296},
		{"jpeg on anthropic", "photo.jpg", "anthropic", "jpeg", "image/jpeg", 1920, 1080, 1560},
		{"jpeg on anthropic-hires", "photo.jpg", "anthropic-hires", "jpeg", "image/jpeg", 1920, 1080, 2691},
		{"gif on anthropic-legacy", "anim.gif", "anthropic-legacy", "gif", "image/gif", 200, 200, 54},
		{"bmp on anthropic-legacy", "old.bmp", "anthropic-legacy", "bmp", "image/bmp", 1092, 1092, 1590},
		{"tiff on anthropic", "scan.tif", "anthropic", "tiff", "image/tiff", 1075, 1520, 1551},
		{"webp on anthropic-hires", "shot.webp", "anthropic-hires", "webp", "image/webp", 3840, 2160, 4784},
		{"png on openai-tile", "notes.txt", "openai-tile", "png", "image/png", 1000, 1000, 765},
		{"png on openai-tile-low", "notes.txt", "openai-tile-low", "png", "image/png", 1000, 1000, 85},
		{"png on openai-patch", "notes.txt", "openai-patch", "png", "image/png", 1000, 1000, 1024},
		{"gif on gemini", "anim.gif", "gemini", "gif", "image/gif", 200, 200, 258},
		{"webp on gemini3-medium", "shot.webp", "gemini3-medium", "webp", "image/webp", 3840, 2160, 560},
		// dsh's DeepSeek routes price the request copy: 1920x1080 is sent as
		// 1066x600 (IMAGE-PRICING.md: 407 on v4.1).
		{"jpeg on deepseek-v4.1", "photo.jpg", "deepseek-v4.1", "jpeg", "image/jpeg", 1920, 1080, 407},
		{"png on deepseek-v4", "notes.txt", "deepseek-v4", "png", "image/png", 1000, 1000, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errs := runPriceCmd(t, nil, "--route", tc.route, paths[tc.file])
			if code != exitOK {
				t.Fatalf("exit %d, stderr %q", code, errs)
			}
			lines := decodePriceLines(t, out)
			est, rw, rh := "o200k_base", tc.w, tc.h
			if strings.HasPrefix(tc.route, "deepseek") {
				est = "dsh-meter"
				rw, rh = imagecost.DeepSeekRequestSize(tc.w, tc.h, imagecost.DeepSeekRequestPixels)
				if tc.tokens == 0 {
					tc.tokens, _ = imagecost.DeepSeekV4Tokens(rw, rh)
				}
			}
			want := priceLine{File: paths[tc.file], Format: tc.format, MediaType: tc.media, Width: tc.w, Height: tc.h,
				RequestWidth: rw, RequestHeight: rh, Route: tc.route, Estimator: est, Tokens: tc.tokens}
			if len(lines) != 1 || lines[0] != want {
				t.Errorf("got %+v, want [%+v]", lines, want)
			}
			if !strings.Contains(out, `"mediaType"`) || !strings.Contains(out, `"tokens"`) {
				t.Errorf("output lacks camelCase fields: %s", out)
			}
		})
	}
}

func TestPriceManyFilesWithFailures(t *testing.T) {
	dir := t.TempDir()
	paths := priceImages(t, dir)
	text := filepath.Join(dir, "shot.png")
	if err := os.WriteFile(text, []byte("a text file with an image's name\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "absent.png")
	huge := filepath.Join(dir, "huge.png")
	if err := os.WriteFile(huge, lyingPNG(100000, 100000), 0o600); err != nil {
		t.Fatal(err)
	}
	truncated := filepath.Join(dir, "cut.jpg")
	jpg, err := os.ReadFile(paths["photo.jpg"])
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(truncated, jpg[:40], 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errs := runPriceCmd(t, nil, "--route", "anthropic", paths["notes.txt"], text, missing, huge, truncated, paths["photo.jpg"])
	if code != exitFail {
		t.Errorf("exit %d, want %d", code, exitFail)
	}
	lines := decodePriceLines(t, out)
	if len(lines) != 2 || lines[0].File != paths["notes.txt"] || lines[1].File != paths["photo.jpg"] {
		t.Errorf("stdout lines = %+v, want the two images in order", lines)
	}
	for _, name := range []string{text, missing, huge, truncated} {
		if !strings.Contains(errs, name) {
			t.Errorf("stderr %q does not name %s", errs, name)
		}
	}
	for _, why := range []string{"not a supported image", "out of range", "truncated"} {
		if !strings.Contains(errs, why) {
			t.Errorf("stderr %q does not say %q", errs, why)
		}
	}
	if n := strings.Count(errs, "\n"); n != 4 {
		t.Errorf("stderr has %d lines, want one per failed file:\n%s", n, errs)
	}
}

// lyingPNG is a PNG signature and an IHDR chunk (valid CRC) declaring any
// size, followed by nothing.
func lyingPNG(w, h uint32) []byte {
	ihdr := binary.BigEndian.AppendUint32(nil, w)
	ihdr = binary.BigEndian.AppendUint32(ihdr, h)
	ihdr = append(ihdr, 8, 6, 0, 0, 0)
	typed := append([]byte("IHDR"), ihdr...)
	out := binary.BigEndian.AppendUint32([]byte("\x89PNG\r\n\x1a\n"), uint32(len(ihdr)))
	out = append(out, typed...)
	return binary.BigEndian.AppendUint32(out, crc32.ChecksumIEEE(typed))
}

func TestPriceUsageErrors(t *testing.T) {
	paths := priceImages(t, t.TempDir())
	cases := []struct {
		name     string
		args     []string
		wantCode int
		wantErr  string
	}{
		{"unknown route", []string{"--route", "claude", paths["notes.txt"]}, exitUsage, "--route"},
		{"route without pricing", []string{"--route", "deepseek", paths["notes.txt"]}, exitFail, `"deepseek"`},
		{"no files", []string{"--route", "anthropic"}, exitUsage, "no FILE"},
		{"unknown flag", []string{"--budget", "3", paths["notes.txt"]}, exitUsage, "budget"},
		{"unknown model", []string{"--model", "llama-3", paths["notes.txt"]}, exitUsage, "--model"},
		{"route and model", []string{"--route", "gemini", "--model", "gpt-4o", paths["notes.txt"]}, exitUsage, "not both"},
		{"model without pricing", []string{"--model", "deepseek-chat", paths["notes.txt"]}, exitFail, `"deepseek"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errs := runPriceCmd(t, nil, tc.args...)
			if code != tc.wantCode {
				t.Errorf("exit %d, want %d (stderr %q)", code, tc.wantCode, errs)
			}
			if !strings.Contains(errs, tc.wantErr) {
				t.Errorf("stderr %q lacks %q", errs, tc.wantErr)
			}
			if out != "" {
				t.Errorf("stdout %q, want nothing", out)
			}
		})
	}
}

func TestPriceHelpRoutesAndArgs(t *testing.T) {
	paths := priceImages(t, t.TempDir())
	t.Run("help", func(t *testing.T) {
		code, out, _ := runPriceCmd(t, nil, "-h")
		if code != exitOK || !strings.Contains(out, "--route") && !strings.Contains(out, "-route") {
			t.Errorf("exit %d, stdout %q", code, out)
		}
	})
	t.Run("routes", func(t *testing.T) {
		code, out, _ := runPriceCmd(t, nil, "--routes")
		if code != exitOK {
			t.Fatalf("exit %d", code)
		}
		var names []string
		dec := json.NewDecoder(strings.NewReader(out))
		for dec.More() {
			var r routeLine
			if err := dec.Decode(&r); err != nil {
				t.Fatal(err)
			}
			names = append(names, r.Name)
			if r.Name == "deepseek" && r.Priced {
				t.Errorf("deepseek listed as priced")
			}
		}
		for _, want := range []string{"anthropic", "anthropic-hires", "anthropic-legacy", "openai-tile", "openai-patch", "gemini", "deepseek"} {
			if !strings.Contains(strings.Join(names, ","), want) {
				t.Errorf("routes %v lack %s", names, want)
			}
		}
	})
	t.Run("default route is anthropic", func(t *testing.T) {
		code, out, _ := runPriceCmd(t, nil, paths["notes.txt"])
		lines := decodePriceLines(t, out)
		if code != exitOK || len(lines) != 1 || lines[0].Route != "anthropic" || lines[0].Tokens != 1296 {
			t.Errorf("exit %d, %+v", code, lines)
		}
	})
	t.Run("model picks the route", func(t *testing.T) {
		code, out, _ := runPriceCmd(t, nil, "--model", "claude-opus-4-7", paths["photo.jpg"])
		lines := decodePriceLines(t, out)
		if code != exitOK || len(lines) != 1 || lines[0].Route != "anthropic-hires" || lines[0].Tokens != 2691 {
			t.Errorf("exit %d, %+v", code, lines)
		}
	})
	t.Run("flags after files", func(t *testing.T) {
		code, out, _ := runPriceCmd(t, nil, paths["notes.txt"], "--route", "openai-tile", paths["anim.gif"])
		lines := decodePriceLines(t, out)
		if code != exitOK || len(lines) != 2 || lines[0].Route != "openai-tile" || lines[1].Tokens != 255 {
			t.Errorf("exit %d, %+v", code, lines)
		}
	})
	t.Run("stdin", func(t *testing.T) {
		data, err := os.ReadFile(paths["photo.jpg"])
		if err != nil {
			t.Fatal(err)
		}
		code, out, errs := runPriceCmd(t, bytes.NewReader(data), "--route", "gemini", "-")
		lines := decodePriceLines(t, out)
		if code != exitOK || len(lines) != 1 || lines[0].File != "-" || lines[0].Width != 1920 || lines[0].Tokens != 1548 {
			t.Errorf("exit %d, %+v, stderr %q", code, lines, errs)
		}
	})
	t.Run("stdin not an image", func(t *testing.T) {
		code, _, errs := runPriceCmd(t, strings.NewReader("plain text"), "-")
		if code != exitFail || !strings.Contains(errs, "-: ") {
			t.Errorf("exit %d, stderr %q", code, errs)
		}
	})
}
