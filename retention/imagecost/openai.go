package imagecost

import "math"

const sourceOpenAI = "OpenAI, \"Images and vision\" guide, section \"Calculating costs\" (platform.openai.com/docs/guides/images-vision), read 2026-11-30"

// Constants of OpenAI's tile rule for the GPT-4o / GPT-4.1 family.
const (
	openAITileFit     = 2048
	openAITileShort   = 768
	openAITileSize    = 512
	openAITileBase    = 85
	openAITilePerTile = 170
	openAIPatchSize   = 32
	openAIPatchBudget = 1536
)

// OpenAITileTokens is OpenAI's tile rule for GPT-4o and GPT-4.1 at detail
// "high".
//
// Source: OpenAI, "Images and vision", "Calculating costs"
// (platform.openai.com/docs/guides/images-vision, read 2026-11-30). The image
// is scaled to fit within a 2048x2048 square keeping its aspect ratio, then,
// if its shortest side is longer than 768 px, scaled so that it is 768 px;
// the cost is 85 base tokens plus 170 per 512 px tile covering the result.
// Sides are floored to whole pixels after each scale. Published examples:
// 1024x1024 -> 765 (4 tiles), 2048x4096 -> 1105 (768x1536, 6 tiles).
func OpenAITileTokens(width, height int) (int, error) {
	return openAITile(width, height, openAITileBase, openAITilePerTile)
}

// OpenAITileLowTokens is OpenAI's detail "low" for the same family: the
// model sees a 512x512 version and the cost is a fixed 85 tokens.
// Source: as OpenAITileTokens. Published example: 4096x8192 at low -> 85.
func OpenAITileLowTokens(width, height int) (int, error) {
	if err := CheckDimensions(width, height); err != nil {
		return 0, err
	}
	return openAITileBase, nil
}

func openAITile(width, height, base, perTile int) (int, error) {
	if err := CheckDimensions(width, height); err != nil {
		return 0, err
	}
	w, h := float64(width), float64(height)
	if long := math.Max(w, h); long > openAITileFit {
		s := openAITileFit / long
		w, h = floorPx(w*s), floorPx(h*s)
	}
	if short := math.Min(w, h); short > openAITileShort {
		s := openAITileShort / short
		w, h = floorPx(w*s), floorPx(h*s)
	}
	tiles := patches(int(w), openAITileSize) * patches(int(h), openAITileSize)
	return base + perTile*tiles, nil
}

// OpenAIPatchTokens is OpenAI's patch rule for gpt-4.1-mini, gpt-4.1-nano,
// o4-mini and the gpt-5 family, reporting the patch count (the image's size
// in the context). Billing multiplies it by a per-model factor; see
// OpenAIPatchBilled.
//
// Source: OpenAI, "Images and vision", "Calculating costs"
// (platform.openai.com/docs/guides/images-vision, read 2026-11-30):
//
//	A. raw_patches = ceil(width/32) * ceil(height/32)
//	B. if raw_patches > 1536, shrink:
//	   r = sqrt(32^2 * 1536 / (width * height))
//	   r = r * min(floor(width*r/32) / (width*r/32), floor(height*r/32) / (height*r/32))
//	C. tokens = ceil(resized_width/32) * ceil(resized_height/32), capped at 1536
//
// Resized sides are floored to whole pixels. Published examples:
// 1024x1024 -> 1024, 1800x2400 -> 1452 (resized to 1056x1408).
func OpenAIPatchTokens(width, height int) (int, error) {
	return openAIPatches(width, height, openAIPatchBudget)
}

func openAIPatches(width, height, budget int) (int, error) {
	if err := CheckDimensions(width, height); err != nil {
		return 0, err
	}
	raw := patches(width, openAIPatchSize) * patches(height, openAIPatchSize)
	if raw <= budget {
		return raw, nil
	}
	w, h := float64(width), float64(height)
	r := math.Sqrt(openAIPatchSize * openAIPatchSize * float64(budget) / (w * h))
	pw, ph := w*r/openAIPatchSize, h*r/openAIPatchSize
	r *= math.Min(math.Floor(pw)/pw, math.Floor(ph)/ph)
	rw, rh := max(1, int(floorPx(w*r))), max(1, int(floorPx(h*r)))
	return min(budget, patches(rw, openAIPatchSize)*patches(rh, openAIPatchSize)), nil
}

// floorPx floors a scaled side to whole pixels, forgiving the last bits of
// float error so that an exact 1056 computed as 1055.9999999 stays 1056.
func floorPx(x float64) float64 {
	return math.Floor(x + 1e-6)
}
