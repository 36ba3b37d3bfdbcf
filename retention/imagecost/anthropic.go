package imagecost

import "math"

const (
	sourceAnthropic       = "Anthropic, \"Vision\" (platform.claude.com/docs/en/build-with-claude/vision), section on image costs, read 2026-11-30"
	sourceAnthropicLegacy = "Anthropic, \"Vision\" (docs.anthropic.com/en/docs/build-with-claude/vision), Claude 3 era \"Evaluate image size\" / \"Calculate image costs\", read 2026-11-30"
)

// Anthropic patch-rule limits.
const (
	anthropicPatch          = 28
	anthropicStdLongEdge    = 1568
	anthropicStdTokens      = 1568
	anthropicHiresLongEdge  = 2576
	anthropicHiresTokens    = 4784
	anthropicLegacyLongEdge = 1568
	// anthropicLegacyPixels is the legacy area cap: the docs say an image
	// over "~1,600 tokens" is scaled down, and 1,600 tokens at 750 px per
	// token is 1,200,000 px (the "about 1.15 megapixels" of the advice).
	anthropicLegacyPixels = 1_200_000
)

// AnthropicTokens is Claude's current image rule, standard tier.
//
// Source: Anthropic, "Vision", platform.claude.com/docs/en/build-with-claude/vision
// (read 2026-11-30). The image is cut into 28x28-pixel patches and each patch
// is one visual token: tokens = ceil(w/28) * ceil(h/28). An image whose long
// edge exceeds 1568 px or whose patch count exceeds 1568 is first scaled down,
// keeping its aspect ratio, to the largest size that fits both limits (see
// anthropicFit for the search), and padded up to a multiple of 28.
// Published examples: 200x200 -> 64, 1000x1000 -> 1296.
func AnthropicTokens(width, height int) (int, error) {
	return anthropicPatchTokens(width, height, anthropicStdLongEdge, anthropicStdTokens)
}

// AnthropicHiresTokens is Claude's current image rule on the high-resolution
// tier of the newest models: the same 28x28 patches as AnthropicTokens, with
// the long edge limited to 2576 px and the count to 4784 visual tokens.
//
// Source: as AnthropicTokens. Published examples: 200x200 -> 64,
// 1000x1000 -> 1296 (the same on both tiers: neither is resized).
func AnthropicHiresTokens(width, height int) (int, error) {
	return anthropicPatchTokens(width, height, anthropicHiresLongEdge, anthropicHiresTokens)
}

func anthropicPatchTokens(width, height, maxLong, maxTokens int) (int, error) {
	if err := CheckDimensions(width, height); err != nil {
		return 0, err
	}
	w, h := anthropicFit(width, height, maxLong, maxTokens)
	return patches(w, anthropicPatch) * patches(h, anthropicPatch), nil
}

// anthropicFit returns the size Claude sees: the image itself when it fits
// both limits, otherwise the largest aspect-preserving size that does.
func anthropicFit(width, height, maxLong, maxTokens int) (int, int) {
	fits := func(w, h int) bool {
		return max(w, h) <= maxLong && patches(w, anthropicPatch)*patches(h, anthropicPatch) <= maxTokens
	}
	if fits(width, height) {
		return width, height
	}
	long := max(width, height)
	// scaled gives the size whose long edge is l; the patch count only grows
	// with l, so a binary search finds the largest l that fits.
	scaled := func(l int) (int, int) {
		if width >= height {
			return l, max(1, int(math.Round(float64(height)*float64(l)/float64(long))))
		}
		return max(1, int(math.Round(float64(width)*float64(l)/float64(long)))), l
	}
	lo, hi := 1, min(long, maxLong)
	for lo < hi {
		mid := lo + (hi-lo+1)/2
		if fits(scaled(mid)) {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return scaled(lo)
}

// AnthropicLegacyTokens is the rule Anthropic published for Claude 3 and
// 3.x models: tokens = ceil(w*h/750).
//
// Source: Anthropic, "Vision" (docs.anthropic.com/en/docs/build-with-claude/vision,
// "Evaluate image size" and "Calculate image costs", Claude 3 era; read
// 2026-11-30). "If your image's long edge is more than 1568 pixels, or your
// image is more than ~1,600 tokens, it will first be scaled down, preserving
// aspect ratio, until it's within the size limits"; the advice is to stay
// within 1.15 megapixels and 1568 px. Reading implemented here: scale by
// min(1568/long edge, sqrt(1,200,000/(w*h))) (1,600 tokens * 750 px), floor
// each side, then apply the formula. Published examples: 200x200 -> ~54,
// 1000x1000 -> ~1334, 1092x1092 -> ~1590 (the docs' "~" is the rounding up
// that ceil makes exact).
func AnthropicLegacyTokens(width, height int) (int, error) {
	if err := CheckDimensions(width, height); err != nil {
		return 0, err
	}
	w, h := width, height
	if long := max(w, h); long > anthropicLegacyLongEdge || w*h > anthropicLegacyPixels {
		s := math.Min(float64(anthropicLegacyLongEdge)/float64(long),
			math.Sqrt(float64(anthropicLegacyPixels)/(float64(w)*float64(h))))
		w = max(1, int(math.Floor(float64(w)*s+1e-9)))
		h = max(1, int(math.Floor(float64(h)*s+1e-9)))
	}
	return (w*h + 749) / 750, nil
}

// patches is how many size-pixel patches cover n pixels.
func patches(n, size int) int { return (n + size - 1) / size }
