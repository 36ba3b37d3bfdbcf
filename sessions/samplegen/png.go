package samplegen

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math/rand/v2"
)

// screenshot draws a fake application window (title bar, sidebar, cards,
// lines standing for text, a photo-like noisy panel) and encodes it as PNG.
// The noisy panel is what makes a PNG large, so its area is sized to land the
// file near target bytes.
func screenshot(r *rand.Rand, target int) ([]byte, int, int, error) {
	w, h := 640, 400
	switch {
	case target > 2<<20:
		w, h = 2560, 1600
	case target > 96<<10:
		w, h = 1280, 800
	}
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	drawUI(img, r)
	// Random RGB does not compress: about 3 bytes per pixel after filtering.
	noise := target / 3
	seed := r.Uint64()
	var out []byte
	for attempt := 0; attempt < 3; attempt++ {
		pr := rand.New(rand.NewPCG(seed, 7))
		frame := img
		if noise > 0 {
			frame = image.NewNRGBA(img.Rect)
			copy(frame.Pix, img.Pix)
			drawNoise(frame, pr, noise)
		}
		var buf bytes.Buffer
		if err := (&png.Encoder{CompressionLevel: png.BestSpeed}).Encode(&buf, frame); err != nil {
			return nil, 0, 0, fmt.Errorf("samplegen: encode screenshot: %w", err)
		}
		out = buf.Bytes()
		diff := target - len(out)
		if diff < target/10 && -diff < target/10 {
			break
		}
		noise += diff / 3
		if noise < 0 {
			noise = 0
		}
	}
	return out, w, h, nil
}

func fill(img *image.NRGBA, rect image.Rectangle, c color.NRGBA) {
	rect = rect.Intersect(img.Rect)
	for y := rect.Min.Y; y < rect.Max.Y; y++ {
		off := img.PixOffset(rect.Min.X, y)
		for x := rect.Min.X; x < rect.Max.X; x++ {
			img.Pix[off], img.Pix[off+1], img.Pix[off+2], img.Pix[off+3] = c.R, c.G, c.B, c.A
			off += 4
		}
	}
}

func drawUI(img *image.NRGBA, r *rand.Rand) {
	w, h := img.Rect.Dx(), img.Rect.Dy()
	bg := color.NRGBA{246, 247, 249, 255}
	fill(img, img.Rect, bg)
	accent := color.NRGBA{uint8(40 + r.IntN(80)), uint8(90 + r.IntN(100)), uint8(160 + r.IntN(90)), 255}
	fill(img, image.Rect(0, 0, w, h/16), color.NRGBA{32, 34, 40, 255})          // title bar
	fill(img, image.Rect(0, h/16, w/5, h), color.NRGBA{230, 232, 236, 255})     // sidebar
	fill(img, image.Rect(w/5, h/16, w/5+2, h), color.NRGBA{210, 212, 218, 255}) // divider
	for i := 0; i < 3; i++ {                                                    // window buttons
		fill(img, image.Rect(10+i*18, h/64, 22+i*18, h/64+12), []color.NRGBA{{237, 106, 94, 255}, {245, 191, 79, 255}, {98, 197, 84, 255}}[i])
	}
	for y := h/16 + 16; y < h-20; y += 28 { // sidebar entries
		fill(img, image.Rect(16, y, 16+w/10+r.IntN(w/14), y+8), color.NRGBA{120, 124, 132, 255})
	}
	sel := h/16 + 16 + 28*r.IntN(6) // the selected sidebar entry
	fill(img, image.Rect(12, sel-6, w/5-12, sel+14), accent)
	// Cards with text lines.
	x0, y0 := w/5+24, h/16+24
	for card := 0; card < 4; card++ {
		cw, ch := (w-x0-48)/2, (h-y0-48)/2
		cx, cy := x0+(card%2)*(cw+16), y0+(card/2)*(ch+16)
		fill(img, image.Rect(cx, cy, cx+cw, cy+ch), color.NRGBA{255, 255, 255, 255})
		fill(img, image.Rect(cx, cy, cx+cw, cy+3), accent)
		for ly := cy + 16; ly < cy+ch-12; ly += 14 {
			fill(img, image.Rect(cx+12, ly, cx+12+r.IntN(cw-24), ly+6), color.NRGBA{60, 64, 72, 255})
		}
	}
}

// drawNoise paints a photo-like panel of about pixels random pixels in the
// lower right card.
func drawNoise(img *image.NRGBA, r *rand.Rand, pixels int) {
	w, h := img.Rect.Dx(), img.Rect.Dy()
	if max := w * h * 9 / 10; pixels > max {
		pixels = max
	}
	pw := w / 2
	if pw*pw < pixels {
		pw = w
	}
	ph := pixels / pw
	if ph > h {
		ph = h
	}
	x0, y0 := w-pw, h-ph
	for y := y0; y < h; y++ {
		off := img.PixOffset(x0, y)
		for x := x0; x < w; x++ {
			v := r.Uint32()
			img.Pix[off], img.Pix[off+1], img.Pix[off+2], img.Pix[off+3] = byte(v), byte(v>>8), byte(v>>16), 255
			off += 4
		}
	}
}
