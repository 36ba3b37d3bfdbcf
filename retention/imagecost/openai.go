package imagecost

import (
	"math"
	"strings"
)

const sourceOpenAI = "OpenAI, \"Images and vision\", sections \"Model sizing behavior\" and \"Calculating costs\" (https://developers.openai.com/api/docs/guides/images-vision, formerly platform.openai.com/docs/guides/images-vision), read 2026-11-30"

// Constants of OpenAI's tile rule.
const (
	openAITileFit   = 2048
	openAITileShort = 768
	openAITileSize  = 512
	openAIPatchSize = 32
)

// openAITileCost is one row of the tile rule's per-model table.
type openAITileCost struct{ base, perTile int }

// Rows of the "Base tokens / Tile tokens" table.
var (
	tile4o     = openAITileCost{85, 170}    // 4o, 4.1, 4.5
	tileGPT5   = openAITileCost{70, 140}    // gpt-5, gpt-5-chat-latest
	tile4oMini = openAITileCost{2833, 5667} // 4o-mini
	tileO      = openAITileCost{75, 150}    // o1, o1-pro, o3
	tileCUA    = openAITileCost{65, 129}    // computer-use-preview
)

// OpenAITileTokens is OpenAI's tile rule for GPT-4o, GPT-4.1 and GPT-4.5 at
// detail "high".
//
// Source: OpenAI, "Images and vision", "Tile-based image tokenization"
// (https://developers.openai.com/api/docs/guides/images-vision, read
// 2026-11-30): scale to fit in a 2048x2048 square keeping the aspect ratio;
// scale so that the shortest side is 768 px; count the 512 px squares; each
// costs the model's tile tokens (170), plus its base tokens (85). Images are
// only ever scaled down: the 768 px step applies when the shortest side is
// longer (the guide's examples never enlarge an image). Sides are floored to
// whole pixels after each scale.
//
// Published examples: 1024x1024 -> 765 (768x768, 4 tiles),
// 2048x4096 -> 1105 (1024x2048, then 768x1536, 6 tiles).
func OpenAITileTokens(width, height int) (int, error) {
	return openAITile(width, height, tile4o)
}

// OpenAITileGPT5Tokens is the tile rule with gpt-5's row of the table (70
// base, 140 per tile). Source and method as OpenAITileTokens.
// By the published method: 1024x1024 -> 630, 2048x4096 -> 910.
func OpenAITileGPT5Tokens(width, height int) (int, error) {
	return openAITile(width, height, tileGPT5)
}

// OpenAITile4oMiniTokens is the tile rule with gpt-4o-mini's row (2833 base,
// 5667 per tile). Source and method as OpenAITileTokens.
func OpenAITile4oMiniTokens(width, height int) (int, error) {
	return openAITile(width, height, tile4oMini)
}

// OpenAITileOTokens is the tile rule with the o-series row (o1, o1-pro, o3:
// 75 base, 150 per tile). Source and method as OpenAITileTokens.
func OpenAITileOTokens(width, height int) (int, error) {
	return openAITile(width, height, tileO)
}

// OpenAITileCUATokens is the tile rule with computer-use-preview's row (65
// base, 129 per tile). Source and method as OpenAITileTokens.
func OpenAITileCUATokens(width, height int) (int, error) {
	return openAITile(width, height, tileCUA)
}

// OpenAITileLowTokens is detail "low" on GPT-4o / GPT-4.1: a fixed base cost
// of 85 tokens whatever the size. Source as OpenAITileTokens. Published
// example: 4096x8192 at detail low -> 85.
func OpenAITileLowTokens(width, height int) (int, error) {
	if err := CheckDimensions(width, height); err != nil {
		return 0, err
	}
	return tile4o.base, nil
}

func openAITile(width, height int, cost openAITileCost) (int, error) {
	if err := CheckDimensions(width, height); err != nil {
		return 0, err
	}
	w, h := openAITileResize(width, height)
	tiles := patches(w, openAITileSize) * patches(h, openAITileSize)
	return cost.base + cost.perTile*tiles, nil
}

// openAITileResize returns the size the tile rule counts tiles on.
func openAITileResize(width, height int) (int, int) {
	w, h := float64(width), float64(height)
	if long := math.Max(w, h); long > openAITileFit {
		s := openAITileFit / long
		w, h = math.Max(1, floorPx(w*s)), math.Max(1, floorPx(h*s))
	}
	if short := math.Min(w, h); short > openAITileShort {
		s := openAITileShort / short
		w, h = math.Max(1, floorPx(w*s)), math.Max(1, floorPx(h*s))
	}
	return int(w), int(h)
}

// OpenAIPatchTokens is OpenAI's patch rule for models with a 1,536-patch
// budget and a 2048 px maximum dimension at detail "high": gpt-4.1-mini and
// gpt-4.1-nano (2025-04-14 snapshots), o4-mini, gpt-5-mini, gpt-5-nano,
// gpt-5.4-mini, gpt-5.4-nano, gpt-5.2 and the codex models the guide lists.
// It returns the resized patch count, which is the image's size in the
// context; billing multiplies it by the model's factor (see
// OpenAIPatchMultiplier).
//
// Source: OpenAI, "Images and vision", "Model sizing behavior" and
// "Patch-based image tokenization"
// (https://developers.openai.com/api/docs/guides/images-vision, read
// 2026-11-30):
//
//	A. original_patch_count = ceil(width/32) × ceil(height/32)
//	B. over budget: shrink_factor = sqrt((32^2 * patch_budget) / (width * height))
//	   adjusted_shrink_factor = shrink_factor * min(
//	     floor(width * shrink_factor / 32) / (width * shrink_factor / 32),
//	     floor(height * shrink_factor / 32) / (height * shrink_factor / 32))
//	C. convert to integer pixels; resized_patch_count =
//	   ceil(resized_width/32) × ceil(resized_height/32), capped by the budget
//
// "If either limit is exceeded, we resize the image while preserving aspect
// ratio to fit within the lesser of those two constraints": the scale used is
// the smaller of the budget's adjusted_shrink_factor and maxDim / long edge.
// Integer pixels are floored.
//
// Published examples (1,536-patch budget): 1024x1024 -> 1024,
// 1800x2400 -> 1452 (resized to 1056x1408).
func OpenAIPatchTokens(width, height int) (int, error) {
	return OpenAIPatchCount(width, height, 1536, 2048)
}

// OpenAIPatchHighTokens is the patch rule for gpt-5.4 and gpt-5.5 at detail
// "high" (gpt-5.4's default): up to 2,500 patches or 2048 px. Source and
// method as OpenAIPatchTokens.
func OpenAIPatchHighTokens(width, height int) (int, error) {
	return OpenAIPatchCount(width, height, 2500, 2048)
}

// OpenAIPatchOriginalTokens is the patch rule for gpt-5.4 and gpt-5.5 at
// detail "original" (gpt-5.5's default): up to 10,000 patches or 6000 px.
// Source and method as OpenAIPatchTokens.
func OpenAIPatchOriginalTokens(width, height int) (int, error) {
	return OpenAIPatchCount(width, height, 10000, 6000)
}

// OpenAIPatchCount applies OpenAI's patch rule with a given patch budget and
// maximum dimension; see OpenAIPatchTokens for the published steps.
func OpenAIPatchCount(width, height, budget, maxDim int) (int, error) {
	if err := CheckDimensions(width, height); err != nil {
		return 0, err
	}
	original := patches(width, openAIPatchSize) * patches(height, openAIPatchSize)
	w, h := float64(width), float64(height)
	scale := 1.0
	if long := math.Max(w, h); long > float64(maxDim) {
		scale = float64(maxDim) / long
	}
	if original > budget {
		r := math.Sqrt(openAIPatchSize * openAIPatchSize * float64(budget) / (w * h))
		pw, ph := w*r/openAIPatchSize, h*r/openAIPatchSize
		r *= math.Min(math.Floor(pw)/pw, math.Floor(ph)/ph)
		scale = math.Min(scale, r)
	}
	if scale == 1 {
		return original, nil
	}
	rw := max(1, int(floorPx(w*scale)))
	rh := max(1, int(floorPx(h*scale)))
	return min(budget, patches(rw, openAIPatchSize)*patches(rh, openAIPatchSize)), nil
}

// openAIMultipliers is step D's table of billing multipliers.
var openAIMultipliers = []struct {
	prefix string
	factor float64
}{
	{"gpt-5.4-mini", 1.62},
	{"gpt-5.4-nano", 2.46},
	{"gpt-5-mini", 1.62},
	{"gpt-5-nano", 2.46},
	{"gpt-4.1-mini", 1.62},
	{"gpt-4.1-nano", 2.46},
	{"o4-mini", 1.72},
}

// OpenAIPatchMultiplier returns the factor OpenAI multiplies a patch-rule
// image's patch count by to get billed token units (step D of the patch
// rule), and whether the model has one. The route figures stay in patches:
// they measure the context, not the bill.
func OpenAIPatchMultiplier(model string) (float64, bool) {
	m := normalizeModel(model)
	for _, row := range openAIMultipliers {
		if strings.HasPrefix(m, row.prefix) {
			return row.factor, true
		}
	}
	return 0, false
}

// floorPx floors a scaled side to whole pixels, forgiving float error in
// the last bits so that an exact 1056 computed as 1055.9999999 stays 1056.
func floorPx(x float64) float64 {
	return math.Floor(x + 1e-7)
}
