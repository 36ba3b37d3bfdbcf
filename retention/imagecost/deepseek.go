package imagecost

import (
	"errors"
	"fmt"
	"math"
)

// DeepSeek's vision-token accounting as dsh, the DeepSeek Harness, ports it
// from DeepSeek's "Token & Token Usage" page. Two configurations exist: the
// v4 calculator (cap 384 tokens; forks of deepseek-ai/deepseek-harness carrying
// 0.1.5, e.g. cyg720/deepseek-harness @ 3159ab3f,
// packages/llm/llm-deepseek/src/image-tokens.ts) and the v4.1 calculator (cap
// 1,024; knyazev741/deepseek-harness @ 8173fb8d, same path). Both work on a
// 14 px patch grid downsampled 3:1 per axis, scale small images up to a pixel
// floor and, above the cap, solve for the largest aspect-preserving grid that
// fits, iterating the projection to a fixpoint. dsh sends a request-sized
// copy of each image first (DeepSeekRequestSize); the routes price that copy.

const (
	sourceDeepSeek = "DeepSeek API docs, \"Token & Token Usage\" image-token calculator, as dsh ports it (forks of deepseek-ai/deepseek-harness: packages/llm/llm-deepseek/src/image-tokens.ts, packages/attachment/attachment/src/request-projection.ts, packages/llm/llm-deepseek/src/request-pricing.ts), read 2026-12-02"

	dsPatch      = 14
	dsDownsample = 3
	dsCell       = dsPatch * dsDownsample

	dsV4Max       = 384
	dsV4Pad       = 4 - 1 // pricing charges the worst-case pad-to-4 alignment
	dsV4MaxRatio  = 8     // width is clamped to 8x the height
	dsV4MinPixels = 384 * 384

	dsV41Max       = 1024
	dsV41MinPixels = 544 * 544

	dsIterations = 10
)

// Request pixel budgets of dsh's DeepSeek routes: the normal projection and
// the provider's low-detail input.
const (
	DeepSeekRequestPixels   = 640_000
	DeepSeekLowDetailPixels = 512 * 512
)

// errDeepSeekGrid reports a geometry the published solver refuses.
var errDeepSeekGrid = errors.New("imagecost: deepseek: no token grid fits the budget")

type dsGrid struct {
	gridH, gridW, bestH, bestW, tokens int
}

func ceilDivInt(a, b int) int { return (a + b - 1) / b }

func dsCells(padded int) int { return ceilDivInt(padded/dsPatch, dsDownsample) }

// dsGridTokensV41 counts a grid: a separator per row plus two framing tokens.
func dsGridTokensV41(gh, gw int) int { return gh*(gw+1) + 2 }

// dsGridTokensV4 adds v4's odd-row and parity padding to the v4.1 count.
func dsGridTokensV4(gh, gw int) int {
	t := gh*(gw+1) + 2
	if gh%2 == 1 {
		t += gw + 1
	}
	t += (ceilDivInt(gh, 2) * (gw + 1) % 2) * 2
	return t
}

// dsSolve is the published closed-form solve for the largest grid within
// budget tokens at the image's aspect ratio. v4 keeps an even row count.
func dsSolve(height, width, budget int, v4 bool) (dsGrid, error) {
	aspect := float64(height) / float64(width)
	idealW := math.Sqrt(float64(budget-2)/aspect+0.25) - 0.5
	idealH := idealW * aspect
	var bestH, bestW int
	switch {
	case idealW < 1:
		gw := 1
		gh := (budget - 2) / (gw + 1)
		if v4 && gh%2 == 1 {
			gh--
		}
		bestW, bestH = gw*dsCell, gh*dsCell
	case v4 && idealH < 2:
		gh := 2
		gw := (budget-2)/gh - 1
		if gw <= 1 {
			return dsGrid{}, fmt.Errorf("%w (%dx%d)", errDeepSeekGrid, width, height)
		}
		bestW, bestH = gw*dsCell, gh*dsCell
	case !v4 && idealH < 1:
		gh := 1
		gw := (budget-2)/gh - 1
		bestW, bestH = gw*dsCell, gh*dsCell
	default:
		gw := int(math.Trunc(idealW))
		gh := int(math.Trunc(idealH))
		if v4 && gh%2 == 1 {
			gh--
		}
		scale := math.Min(float64(gw*dsCell)/float64(width), float64(gh*dsCell)/float64(height))
		bestW = int(math.Trunc(float64(width)*scale/dsPatch)) * dsPatch
		bestH = int(math.Trunc(float64(height)*scale/dsPatch)) * dsPatch
	}
	g := dsGrid{gridH: dsCells(bestH), gridW: dsCells(bestW), bestH: bestH, bestW: bestW}
	if v4 {
		g.tokens = dsGridTokensV4(g.gridH, g.gridW)
	} else {
		g.tokens = dsGridTokensV41(g.gridH, g.gridW)
	}
	return g, nil
}

// dsResizeOnce is one clamp-scale-pad-project pass; callers iterate it.
func dsResizeOnce(width, height int, v4 bool) (dsGrid, error) {
	w, h := width, height
	minPixels := dsV41MinPixels
	if v4 {
		minPixels = dsV4MinPixels
		if w > h*dsV4MaxRatio {
			w = h * dsV4MaxRatio
		}
	}
	if px := w * h; px < minPixels && px > 0 {
		scale := math.Sqrt(float64(minPixels) / float64(px))
		w = int(math.Trunc(float64(w) * scale))
		h = int(math.Trunc(float64(h) * scale))
	}
	pw := ceilDivInt(w, dsPatch) * dsPatch
	ph := ceilDivInt(h, dsPatch) * dsPatch
	direct := dsGrid{gridH: dsCells(ph), gridW: dsCells(pw), bestH: ph, bestW: pw}
	if !v4 {
		direct.tokens = dsGridTokensV41(direct.gridH, direct.gridW)
		if direct.tokens <= dsV41Max {
			return direct, nil
		}
		g, err := dsSolve(h, w, dsV41Max, false)
		if err != nil {
			return dsGrid{}, err
		}
		if g.tokens > dsV41Max {
			return dsGrid{}, fmt.Errorf("%w (%dx%d)", errDeepSeekGrid, width, height)
		}
		return g, nil
	}
	budget := dsV4Max - dsV4Pad
	direct.tokens = dsGridTokensV4(direct.gridH, direct.gridW)
	g := direct
	if g.tokens > budget {
		var err error
		// The published safety net: shrink the solve budget until it fits.
		for reduced := budget; ; reduced-- {
			if g, err = dsSolve(h, w, reduced, true); err != nil {
				return dsGrid{}, err
			}
			if g.tokens <= budget || reduced <= 3 {
				break
			}
		}
		if g.tokens > budget {
			return dsGrid{}, fmt.Errorf("%w (%dx%d)", errDeepSeekGrid, width, height)
		}
	}
	g.tokens += dsV4Pad
	return g, nil
}

func dsTokens(width, height int, v4 bool) (int, error) {
	if err := CheckDimensions(width, height); err != nil {
		return 0, err
	}
	g, err := dsResizeOnce(width, height, v4)
	if err != nil {
		return 0, err
	}
	for i := 1; i < dsIterations; i++ {
		next, err := dsResizeOnce(g.bestW, g.bestH, v4)
		if err != nil {
			return 0, err
		}
		if next == g {
			return g.tokens, nil
		}
		g = next
	}
	return 0, fmt.Errorf("%w: resize did not converge for %dx%d", errDeepSeekGrid, width, height)
}

// DeepSeekV4Tokens is DeepSeek v4's vision-token price of a width x height
// image as sent (before any request projection): at most 384, the pad-to-4
// alignment charged at its 3-token worst case.
//
// Published vectors (IMAGE-PRICING.md): 100x100 -> 117, 640x480 -> 209,
// 1920x1080 -> 369, 300x50 -> 101.
func DeepSeekV4Tokens(width, height int) (int, error) { return dsTokens(width, height, true) }

// DeepSeekV41Tokens is DeepSeek v4.1's exact vision-token price of a width x
// height image as sent: at most 1,024, no alignment pad, no aspect clamp.
//
// Published vectors: 100x100 -> 184, 640x480 -> 206, 1920x1080 -> 968,
// 300x50 -> 200.
func DeepSeekV41Tokens(width, height int) (int, error) { return dsTokens(width, height, false) }

// DeepSeekRequestSize is dsh's request projection: the largest
// aspect-preserving size within maxPixels, never enlarged. The long edge is
// floored, the short edge rounded from the aspect ratio, and the long edge
// stepped down until the area fits. 1920x1080 within 640,000 is 1066x600.
func DeepSeekRequestSize(width, height, maxPixels int) (int, int) {
	if width <= 0 || height <= 0 || maxPixels <= 0 {
		return width, height
	}
	scale := math.Min(1, math.Sqrt(float64(maxPixels)/(float64(width)*float64(height))))
	if scale == 1 {
		return width, height
	}
	round := func(x float64) int { return max(1, int(math.Round(x))) }
	if width >= height {
		pw := max(1, int(math.Floor(float64(width)*scale)))
		ph := round(float64(pw) * float64(height) / float64(width))
		for pw*ph > maxPixels && pw > 1 {
			pw--
			ph = round(float64(pw) * float64(height) / float64(width))
		}
		return pw, ph
	}
	ph := max(1, int(math.Floor(float64(height)*scale)))
	pw := round(float64(ph) * float64(width) / float64(height))
	for pw*ph > maxPixels && ph > 1 {
		ph--
		pw = round(float64(ph) * float64(width) / float64(height))
	}
	return pw, ph
}

func deepSeekRequest(width, height int) (int, int) {
	return DeepSeekRequestSize(width, height, DeepSeekRequestPixels)
}

// DeepSeekV4RouteTokens prices an image on the deepseek-v4 route: the request
// projection, then DeepSeekV4Tokens.
func DeepSeekV4RouteTokens(width, height int) (int, error) {
	if err := CheckDimensions(width, height); err != nil {
		return 0, err
	}
	return DeepSeekV4Tokens(deepSeekRequest(width, height))
}

// DeepSeekV41RouteTokens prices an image on the deepseek-v4.1 route: the
// request projection, then DeepSeekV41Tokens (1920x1080 -> 1066x600 -> 407).
func DeepSeekV41RouteTokens(width, height int) (int, error) {
	if err := CheckDimensions(width, height); err != nil {
		return 0, err
	}
	return DeepSeekV41Tokens(deepSeekRequest(width, height))
}
