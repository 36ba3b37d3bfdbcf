package imagecost

import (
	"errors"
	"fmt"
	"testing"
)

type calcCase struct {
	name          string
	width, height int
	want          int
}

func runCalcCases(t *testing.T, calc Calculator, cases []calcCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := calc(tc.width, tc.height)
			if err != nil {
				t.Fatalf("calc(%d, %d): %v", tc.width, tc.height, err)
			}
			if got != tc.want {
				t.Errorf("calc(%d, %d) = %d, want %d", tc.width, tc.height, got, tc.want)
			}
		})
	}
}

// Published: Anthropic "Vision", "Calculate image costs" (Sonnet 4.6 table)
// and "How Claude resizes and pads images" (A4 scan).
func TestAnthropicTokens(t *testing.T) {
	runCalcCases(t, AnthropicTokens, []calcCase{
		{"published 200x200", 200, 200, 64},
		{"published 1000x1000", 1000, 1000, 1296},
		{"published 1092x1092", 1092, 1092, 1521},
		{"published 1920x1080", 1920, 1080, 1560},
		{"published 2000x1500", 2000, 1500, 1564},
		{"published 3840x2160", 3840, 2160, 1560},
		{"published A4 1075x1520 resized to 924x1307", 1075, 1520, 33 * 47},
		{"portrait 1080x1920 mirrors landscape", 1080, 1920, 1560},
		{"one pixel", 1, 1, 1},
		{"exactly 28", 28, 28, 1},
		{"29 needs a second patch", 29, 28, 2},
		{"edge limit exactly 1568x100", 1568, 100, 56 * 4},
	})
}

// Published: Anthropic "Vision", "High-resolution image support" (Opus 4.7 /
// 4.8 table).
func TestAnthropicHiresTokens(t *testing.T) {
	runCalcCases(t, AnthropicHiresTokens, []calcCase{
		{"published 200x200", 200, 200, 64},
		{"published 1000x1000", 1000, 1000, 1296},
		{"published 1092x1092", 1092, 1092, 1521},
		{"published 1920x1080", 1920, 1080, 2691},
		{"published 2000x1500", 2000, 1500, 3888},
		{"published 3840x2160", 3840, 2160, 4784},
		{"A4 1075x1520 fits the high tier unresized", 1075, 1520, 2145},
	})
}

func TestAnthropicResize(t *testing.T) {
	cases := []struct {
		name               string
		w, h, edge, tokens int
		wantW, wantH       int
	}{
		{"published 1920x1080 standard", 1920, 1080, 1568, 1568, 1456, 819},
		{"published 2000x1500 standard", 2000, 1500, 1568, 1568, 1270, 952},
		{"published 3840x2160 standard", 3840, 2160, 1568, 1568, 1456, 819},
		{"published A4 scan standard", 1075, 1520, 1568, 1568, 924, 1307},
		{"published 3840x2160 high resolution", 3840, 2160, 2576, 4784, 2576, 1449},
		{"fits unchanged", 1000, 1000, 1568, 1568, 1000, 1000},
		{"very wide keeps a 1 px short side", 8000, 1, 1568, 1568, 1568, 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			gotW, gotH := AnthropicResize(tc.w, tc.h, tc.edge, tc.tokens)
			if gotW != tc.wantW || gotH != tc.wantH {
				t.Errorf("AnthropicResize(%d, %d) = %dx%d, want %dx%d", tc.w, tc.h, gotW, gotH, tc.wantW, tc.wantH)
			}
		})
	}
}

// Published: Anthropic "Vision" (Claude 3 era), "Calculate image costs".
func TestAnthropicLegacyTokens(t *testing.T) {
	runCalcCases(t, AnthropicLegacyTokens, []calcCase{
		{"published 200x200", 200, 200, 54},
		{"published 1000x1000", 1000, 1000, 1334},
		{"published 1092x1092", 1092, 1092, 1590},
		{"published not resized 819x1456", 819, 1456, 1590},
		// Our reading of the resize: scale to 1,600 tokens and 1568 px.
		{"784x1568 scaled to 774x1549", 784, 1568, 1599},
		{"4000x3000 scaled to 1264x948", 4000, 3000, 1598},
		{"3136x100 scaled to 1568x50", 3136, 100, 105},
	})
}

// Published: OpenAI "Images and vision", tile-based examples.
func TestOpenAITileTokens(t *testing.T) {
	runCalcCases(t, OpenAITileTokens, []calcCase{
		{"published 1024x1024", 1024, 1024, 765},
		{"published 2048x4096", 2048, 4096, 1105},
		{"small image is not enlarged", 500, 500, 85 + 170},
		{"512x512 one tile", 512, 512, 255},
		{"513x512 two tiles", 513, 512, 85 + 2*170},
		{"shortest side exactly 768 stays", 768, 1536, 85 + 6*170},
	})
	runCalcCases(t, OpenAITileLowTokens, []calcCase{
		{"published low 4096x8192", 4096, 8192, 85},
	})
	runCalcCases(t, OpenAITileGPT5Tokens, []calcCase{
		{"gpt-5 row 1024x1024", 1024, 1024, 70 + 4*140},
		{"gpt-5 row 2048x4096", 2048, 4096, 70 + 6*140},
	})
	runCalcCases(t, OpenAITileOTokens, []calcCase{{"o-series row 1024x1024", 1024, 1024, 75 + 4*150}})
	runCalcCases(t, OpenAITile4oMiniTokens, []calcCase{{"4o-mini row 1024x1024", 1024, 1024, 2833 + 4*5667}})
	runCalcCases(t, OpenAITileCUATokens, []calcCase{{"cua row 1024x1024", 1024, 1024, 65 + 4*129}})
}

// Published: OpenAI "Images and vision", patch-based examples for a model
// with a 1,536-patch budget.
func TestOpenAIPatchTokens(t *testing.T) {
	runCalcCases(t, OpenAIPatchTokens, []calcCase{
		{"published 1024x1024", 1024, 1024, 1024},
		{"published 1800x2400", 1800, 2400, 1452},
		{"published 2400x1800 transposed", 2400, 1800, 1452},
		{"exactly at budget 1536x1024", 1536, 1024, 1536},
		{"one pixel", 1, 1, 1},
		// 4096x128 is 2048 patches: the 2048 px limit (2048x64, 128 patches)
		// is the lesser constraint.
		{"dimension limit wins on a long strip", 4096, 128, 128},
	})
	runCalcCases(t, OpenAIPatchHighTokens, []calcCase{
		{"1024x1024 under 2500", 1024, 1024, 1024},
		{"1800x2400 over 2500 resized to 1368x1824", 1800, 2400, 2451},
	})
	runCalcCases(t, OpenAIPatchOriginalTokens, []calcCase{
		{"1800x2400 under 10000", 1800, 2400, 4275},
		{"6000x6000 over 10000", 6000, 6000, 10000},
	})
}

func TestOpenAIPatchNeverExceedsBudget(t *testing.T) {
	for _, budget := range []int{1536, 2500, 10000} {
		for w := 1; w <= 9000; w += 397 {
			for h := 1; h <= 9000; h += 463 {
				got, err := OpenAIPatchCount(w, h, budget, 6000)
				if err != nil {
					t.Fatal(err)
				}
				if got < 1 || got > budget {
					t.Fatalf("OpenAIPatchCount(%d, %d, %d) = %d, outside [1, %d]", w, h, budget, got, budget)
				}
			}
		}
	}
}

func TestOpenAIPatchMultiplier(t *testing.T) {
	cases := []struct {
		model string
		want  float64
		ok    bool
	}{
		{"gpt-4.1-mini-2025-04-14", 1.62, true},
		{"gpt-4.1-nano", 2.46, true},
		{"o4-mini", 1.72, true},
		{"gpt-5-mini", 1.62, true},
		{"gpt-5-nano", 2.46, true},
		{"gpt-5.4-mini", 1.62, true},
		{"gpt-5.4-nano", 2.46, true},
		{"gpt-4o", 0, false},
	}
	for _, tc := range cases {
		t.Run(tc.model, func(t *testing.T) {
			got, ok := OpenAIPatchMultiplier(tc.model)
			if got != tc.want || ok != tc.ok {
				t.Errorf("OpenAIPatchMultiplier(%q) = %v, %v; want %v, %v", tc.model, got, ok, tc.want, tc.ok)
			}
		})
	}
}

// Published: Gemini "Understand and count tokens" (the 384 px rule); the
// larger figures follow the documented crop reading.
func TestGeminiTokens(t *testing.T) {
	runCalcCases(t, GeminiTokens, []calcCase{
		{"published small 384x384", 384, 384, 258},
		{"published small 1x1", 1, 1, 258},
		{"385 wide is tiled, unit 256", 385, 384, 258 * 4},
		{"1024x1024 unit 682.7", 1024, 1024, 258 * 4},
		{"1920x1080 unit 720", 1920, 1080, 258 * 6},
		{"800x600 unit 400", 800, 600, 258 * 4},
		{"768x768 unit 512", 768, 768, 258 * 4},
		{"3000x300 unit clamped to 256", 3000, 300, 258 * 24},
		{"4000x3000 fit to 3072x2304, unit 768", 4000, 3000, 258 * 4 * 3},
		{"6000x4000 fit to 3072x2048, unit 768", 6000, 4000, 258 * 4 * 3},
		{"3072x3072 unit 768", 3072, 3072, 258 * 16},
		{"10000x100 fit to 3072x30, unit 256", 10000, 100, 258 * 12},
	})
}

func TestGemini3Fixed(t *testing.T) {
	for name, want := range map[string]int{
		RouteGemini3Low: 280, RouteGemini3Medium: 560, RouteGemini3High: 1120, RouteGemini3UltraHigh: 2240,
	} {
		for _, d := range [][2]int{{1, 1}, {384, 384}, {4000, 3000}} {
			t.Run(fmt.Sprintf("%s/%dx%d", name, d[0], d[1]), func(t *testing.T) {
				got, err := Price(name, d[0], d[1])
				if err != nil || got != want {
					t.Errorf("Price(%s, %d, %d) = %d, %v; want %d", name, d[0], d[1], got, err, want)
				}
			})
		}
	}
}

func TestCalculatorsRejectBadDimensions(t *testing.T) {
	for _, r := range Routes() {
		if r.Calc == nil {
			continue
		}
		for _, d := range [][2]int{{0, 10}, {10, 0}, {-1, 5}, {100000, 100000}, {MaxSide + 1, 1}, {30000, 30000}} {
			t.Run(fmt.Sprintf("%s/%dx%d", r.Name, d[0], d[1]), func(t *testing.T) {
				if _, err := r.Calc(d[0], d[1]); !errors.Is(err, ErrDimensions) {
					t.Errorf("err = %v, want ErrDimensions", err)
				}
			})
		}
	}
}

func TestCalculatorsPositiveAcrossSizes(t *testing.T) {
	for _, r := range Routes() {
		if r.Calc == nil {
			continue
		}
		t.Run(r.Name, func(t *testing.T) {
			for w := 1; w <= MaxSide; w = w*3 + 1 {
				for h := 1; h <= MaxSide; h = h*3 + 1 {
					if int64(w)*int64(h) > MaxPixels {
						continue
					}
					got, err := r.Calc(w, h)
					if err != nil || got <= 0 {
						t.Fatalf("%dx%d = %d, %v", w, h, got, err)
					}
				}
			}
		})
	}
}

func TestAnthropicCapsHold(t *testing.T) {
	for _, tier := range []struct {
		name         string
		calc         Calculator
		edge, tokens int
	}{{"standard", AnthropicTokens, 1568, 1568}, {"hires", AnthropicHiresTokens, 2576, 4784}} {
		t.Run(tier.name, func(t *testing.T) {
			for w := 1; w <= 8000; w += 211 {
				for h := 1; h <= 8000; h += 307 {
					got, _ := tier.calc(w, h)
					rw, rh := AnthropicResize(w, h, tier.edge, tier.tokens)
					if got > tier.tokens || rw > tier.edge || rh > tier.edge || rw > w || rh > max(h, 1) {
						t.Fatalf("%dx%d -> %dx%d, %d tokens breaks the tier limits", w, h, rw, rh, got)
					}
				}
			}
		})
	}
}
