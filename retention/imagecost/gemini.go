package imagecost

const (
	sourceGemini  = "Google, Gemini API \"Understand and count tokens\" (https://ai.google.dev/gemini-api/docs/tokens, \"Count multimodal tokens\"); crop rule and 3072 px fit from \"Image understanding\" (https://ai.google.dev/gemini-api/docs/image-understanding, \"Tokens\", Gemini 1.5) and Firebase \"Supported input files and requirements for the Vertex AI Gemini API\" (https://firebase.google.com/docs/vertex-ai/input-file-requirements); read 2026-11-30"
	sourceGemini3 = "Google, Gemini API \"Media resolution\" (https://ai.google.dev/gemini-api/docs/media-resolution, \"Token counts\") and the Gemini 3 developer guide (https://ai.google.dev/gemini-api/docs/gemini-3, \"Media resolution\", image column: unspecified (default) 1120, low 280, medium 560, high 1120; ultra_high 2240 per part), read 2026-11-30"
)

const (
	geminiSmall   = 384
	geminiTileMin = 256
	geminiTileMax = 768
	geminiPerTile = 258
	geminiMaxSide = 3072
)

// GeminiTokens is Google's image rule for Gemini 2.x models.
//
// Source: Google, Gemini API "Understand and count tokens"
// (https://ai.google.dev/gemini-api/docs/tokens, read 2026-11-30): "Image
// inputs with both dimensions <=384 pixels are counted as 258 tokens. Images
// larger in one or both dimensions are cropped and scaled as needed into
// tiles of 768x768 pixels, each counted as 258 tokens."
//
// Google does not say how it crops for Gemini 2.x. The only crop rule it has
// published is the one for Gemini 1.5 ("Image understanding", "Tokens";
// the same text is in Firebase's "Supported input files and requirements for
// the Vertex AI Gemini API"): "Each tile size defaults to the smallest
// dimension (width or height) divided by 1.5. If necessary, each tile is
// adjusted so that it's not smaller than 256 pixels and not greater than 768
// pixels. Each tile is then resized to 768x768 and uses 258 tokens." The
// Firebase page adds that "larger images are scaled down and padded to fit a
// maximum resolution of 3072 x 3072 while preserving their original aspect
// ratio". That rule both crops and scales, as the Gemini 2 sentence says, so
// it is the reading implemented here: fit within 3072x3072 (sides floored),
// unit = clamp(min(w, h) / 1.5, 256, 768), tiles = ceil(w/unit) * ceil(h/unit),
// tokens = 258 * tiles. (Covering the image with 768 px tiles without
// scaling, ceil(w/768) * ceil(h/768), agrees for square images and differs
// for elongated ones.)
//
// Published example: 384x384 and smaller -> 258. Worked figures of this
// reading: 1024x1024 -> 1032 (unit 682.7, 2x2 tiles), 1920x1080 -> 1548
// (unit 720, 3x2), 800x600 -> 1032 (unit 400, 2x2), 3000x300 -> 6192
// (unit clamped to 256, 12x2), 6000x4000 -> 3096 (fit to 3072x2048, unit
// 768, 4x3).
func GeminiTokens(width, height int) (int, error) {
	if err := CheckDimensions(width, height); err != nil {
		return 0, err
	}
	if width <= geminiSmall && height <= geminiSmall {
		return geminiPerTile, nil
	}
	if long := max(width, height); long > geminiMaxSide {
		s := float64(geminiMaxSide) / float64(long)
		width = max(1, int(floorPx(float64(width)*s)))
		height = max(1, int(floorPx(float64(height)*s)))
	}
	return geminiPerTile * geminiTiles(width, height), nil
}

// geminiTiles counts crop units of side clamp(short/1.5, 256, 768) covering
// the image, in integer arithmetic: w / (short/1.5) = 3w / (2 short).
func geminiTiles(width, height int) int {
	short := min(width, height)
	across := func(n int) int {
		switch {
		case 2*short < 3*geminiTileMin: // short/1.5 < 256
			return patches(n, geminiTileMin)
		case 2*short > 3*geminiTileMax: // short/1.5 > 768
			return patches(n, geminiTileMax)
		}
		return (3*n + 2*short - 1) / (2 * short)
	}
	return across(width) * across(height)
}

// Gemini 3 media_resolution levels for images. Google's table gives the
// tokens allocated per image at each level (the maximum; it notes that
// count_tokens is an estimate), and the spec prices each level as that fixed
// cost. An unspecified level is high for images.
const (
	Gemini3LowTokens       = 280
	Gemini3MediumTokens    = 560
	Gemini3HighTokens      = 1120
	Gemini3UltraHighTokens = 2240
)
