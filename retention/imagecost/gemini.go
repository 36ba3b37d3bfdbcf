package imagecost

const (
	sourceGemini  = "Google, Gemini API \"Understand and count tokens\" (ai.google.dev/gemini-api/docs/tokens), image section, read 2026-11-30"
	sourceGemini3 = "Google, Gemini API \"Media resolution\" (ai.google.dev/gemini-api/docs/media-resolution), Gemini 3 token table, read 2026-11-30"
)

const (
	geminiSmall   = 384
	geminiTile    = 768
	geminiPerTile = 258
)

// GeminiTokens is Google's image rule for Gemini 2.x models.
//
// Source: Google, Gemini API "Understand and count tokens"
// (ai.google.dev/gemini-api/docs/tokens, read 2026-11-30): "images with both
// dimensions <= 384 pixels are counted as 258 tokens. Images larger in one or
// both dimensions are cropped and scaled as needed into tiles of 768x768
// pixels, each counted as 258 tokens." Google does not publish how it crops.
// Reading implemented here: the image is covered by whole 768x768 tiles
// without rescaling, tiles = ceil(w/768) * ceil(h/768), tokens = 258 * tiles.
// Worked figures (ours, from that reading): 384x384 -> 258, 385x100 -> 258,
// 1000x1000 -> 1032, 1536x768 -> 516.
func GeminiTokens(width, height int) (int, error) {
	if err := CheckDimensions(width, height); err != nil {
		return 0, err
	}
	if width <= geminiSmall && height <= geminiSmall {
		return geminiPerTile, nil
	}
	return geminiPerTile * patches(width, geminiTile) * patches(height, geminiTile), nil
}
