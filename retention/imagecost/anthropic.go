package imagecost

import "math"

const (
	sourceAnthropic       = "Anthropic, \"Vision\", sections \"Evaluate image size\", \"Calculate image costs\" and \"How Claude resizes and pads images\" (https://platform.claude.com/docs/en/build-with-claude/vision), read 2026-11-30"
	sourceAnthropicLegacy = "Anthropic, \"Vision\" as published for the Claude 3 family, sections \"Evaluate image size\" and \"Calculate image costs\" (https://docs.anthropic.com/en/docs/build-with-claude/vision), read 2026-11-30"
)

// Anthropic patch-rule limits.
const (
	anthropicPatch         = 28
	anthropicStdEdge       = 1568
	anthropicStdTokens     = 1568
	anthropicHiresEdge     = 2576
	anthropicHiresTokens   = 4784
	anthropicLegacyEdge    = 1568
	anthropicLegacyPerTok  = 750
	anthropicLegacyMaxToks = 1600
)

// AnthropicTokens is Claude's current image rule on the standard tier (every
// model without high-resolution support).
//
// Source: Anthropic, "Vision" (https://platform.claude.com/docs/en/build-with-claude/vision,
// read 2026-11-30). "Claude views images in patches instead of pixels. Each
// patch is a 28×28 pixel block of the image, referred to as a visual token. An
// image therefore costs ⌈width / 28⌉ × ⌈height / 28⌉ visual tokens." The
// native resolution of these models is 1568 tokens and at most 1568 px on the
// long edge; a larger image is first resized to the largest aspect-preserving
// size within both limits (AnthropicResize reproduces the page's reference
// implementation), then padded to a multiple of 28 px, which the ceilings
// already count.
//
// Published examples (Claude Sonnet 4.6 table): 200x200 -> 64,
// 1000x1000 -> 1296, 1092x1092 -> 1521, 1920x1080 -> 1560 (resized to
// 1456x819), 2000x1500 -> 1564 (1270x952), 3840x2160 -> 1560 (1456x819); and
// the A4 scan 1075x1520, resized to 924x1307.
func AnthropicTokens(width, height int) (int, error) {
	return anthropicTokens(width, height, anthropicStdEdge, anthropicStdTokens)
}

// AnthropicHiresTokens is Claude's current image rule on the high-resolution
// tier (Claude Opus 4.7, Opus 4.8, Fable 5, Mythos 5 and later): the same
// 28x28 patches with a native resolution of 4784 tokens and at most 2576 px
// on the long edge.
//
// Source: as AnthropicTokens, "High-resolution image support". Published
// examples (Claude Opus 4.7 / 4.8 table): 200x200 -> 64, 1000x1000 -> 1296,
// 1092x1092 -> 1521, 1920x1080 -> 2691, 2000x1500 -> 3888,
// 3840x2160 -> 4784 (resized to 2576x1449).
func AnthropicHiresTokens(width, height int) (int, error) {
	return anthropicTokens(width, height, anthropicHiresEdge, anthropicHiresTokens)
}

func anthropicTokens(width, height, maxEdge, maxTokens int) (int, error) {
	if err := CheckDimensions(width, height); err != nil {
		return 0, err
	}
	w, h := AnthropicResize(width, height, maxEdge, maxTokens)
	return anthropicPatches(w, h), nil
}

func anthropicPatches(w, h int) int {
	return patches(w, anthropicPatch) * patches(h, anthropicPatch)
}

// AnthropicResize returns the size Claude resizes a width x height image to
// before padding, for a model whose native resolution is maxTokens visual
// tokens and maxEdge px (1568/1568 standard, 2576/4784 high resolution). An
// image within both limits comes back unchanged.
//
// It follows the reference implementation published on the Vision page
// ("Resize your image before uploading") step for step: an image fits when
// each side padded to a multiple of 28 is at most maxEdge and its patch count
// at most maxTokens; a portrait image is handled as its transpose; otherwise
// a binary search over the long edge (lo = 1 always fits, hi = the long edge
// never does) keeps the largest long edge whose aspect-preserving short edge,
// rounded half to even as Python's round() does and at least 1, fits.
func AnthropicResize(width, height, maxEdge, maxTokens int) (int, int) {
	fits := func(w, h int) bool {
		return patches(w, anthropicPatch)*anthropicPatch <= maxEdge &&
			patches(h, anthropicPatch)*anthropicPatch <= maxEdge &&
			anthropicPatches(w, h) <= maxTokens
	}
	if fits(width, height) {
		return width, height
	}
	if height > width {
		h, w := AnthropicResize(height, width, maxEdge, maxTokens)
		return w, h
	}
	aspect := float64(width) / float64(height)
	short := func(long int) int { return max(int(math.RoundToEven(float64(long)/aspect)), 1) }
	lo, hi := 1, width
	for lo+1 < hi {
		mid := (lo + hi) / 2
		if fits(mid, short(mid)) {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo, short(lo)
}

// AnthropicLegacyTokens is the area rule Anthropic published while the
// Claude 3 family was current: tokens = (width px * height px) / 750.
//
// Source: Anthropic, "Vision" (https://docs.anthropic.com/en/docs/build-with-claude/vision,
// Claude 3 era, read 2026-11-30 from archived copies). "If your image's long
// edge is more than 1568 pixels, or your image is more than ~1,600 tokens, it
// will first be scaled down, preserving aspect ratio, until it's within the
// size limits", with the advice to stay within 1.15 megapixels and 1568 px.
// That page published no exact resize, so the reading implemented here is:
// scale by min(1568 / long edge, sqrt(1600 * 750 / (w * h))), floor each side
// (at least 1 px), then tokens = ceil(w * h / 750), rounding up as the
// published figures do.
//
// The same page's table of the largest sizes that are "not resized" (1092x1092,
// 951x1268, 896x1344, 819x1456, 784x1568) fits no single area cap: 1092x1092
// is the 1:1 maximum at 1.19 MP while 784x1568 is 1.23 MP. Every row is within
// the 28 px patch rule's limits instead (1092x1092 is 1521 patches and
// 1093x1093 would be 1600; 784x1568 is exactly 1568), so the area formula
// reads as an approximation of the rule the current page states. No model
// maps to this route; it exists to reproduce figures computed under the old
// text.
// Under this reading 819x1456 and 1092x1092 are unchanged, while 951x1268,
// 896x1344 and 784x1568 (1,606 to 1,640 tokens) are scaled by under 2.5%.
//
// Published examples: 200x200 -> ~54, 1000x1000 -> ~1334,
// 1092x1092 -> ~1590.
func AnthropicLegacyTokens(width, height int) (int, error) {
	if err := CheckDimensions(width, height); err != nil {
		return 0, err
	}
	w, h := width, height
	const maxPixels = anthropicLegacyMaxToks * anthropicLegacyPerTok
	if long := max(w, h); long > anthropicLegacyEdge || w*h > maxPixels {
		s := math.Min(float64(anthropicLegacyEdge)/float64(long),
			math.Sqrt(float64(maxPixels)/(float64(w)*float64(h))))
		w = max(1, int(floorPx(float64(w)*s)))
		h = max(1, int(floorPx(float64(h)*s)))
	}
	return (w*h + anthropicLegacyPerTok - 1) / anthropicLegacyPerTok, nil
}

// patches is how many size-pixel patches (or tiles) cover n pixels.
func patches(n, size int) int { return (n + size - 1) / size }
