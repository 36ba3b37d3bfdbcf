package imagecost_test

import (
	"fmt"

	"spillscope/retention/imagecost"
)

func ExamplePrice() {
	for _, route := range []string{"anthropic", "anthropic-hires", "openai-tile", "openai-patch", "gemini"} {
		tokens, err := imagecost.Price(route, 1920, 1080)
		fmt.Println(route, tokens, err)
	}
	_, err := imagecost.Price("deepseek", 1920, 1080)
	fmt.Println(err)
	// Output:
	// anthropic 1560 <nil>
	// anthropic-hires 2691 <nil>
	// openai-tile 1105 <nil>
	// openai-patch 1508 <nil>
	// gemini 1548 <nil>
	// imagecost: route has no published image pricing: deepseek
}

func ExampleSniff() {
	// A GIF's logical screen descriptor is all Sniff needs.
	header := []byte("GIF89a\x80\x02\xe0\x01\x00\x00\x00")
	info, err := imagecost.Sniff(header)
	fmt.Printf("%s %s %dx%d %v\n", info.Format, info.MediaType, info.Width, info.Height, err)
	fmt.Println(imagecost.Contradicts("image/png", info))
	// Output:
	// gif image/gif 640x480 <nil>
	// true
}

func ExampleSniffBase64() {
	// The 1x1 PNG from Anthropic's vision guide, with a line break.
	data := "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AA\nAAMBAQDJ/pLvAAAAAElFTkSuQmCC"
	info, err := imagecost.SniffBase64(data)
	fmt.Println(info.Format, info.Width, info.Height, err)
	// Output: png 1 1 <nil>
}

func ExampleRouteForModel() {
	for _, model := range []string{"claude-sonnet-4-5", "claude-opus-4-7", "gpt-4o", "gpt-5-mini",
		"gemini-2.5-pro", "gemini-3-pro-preview", "deepseek-chat", "some-local-model"} {
		fmt.Printf("%s -> %q\n", model, imagecost.RouteForModel(model))
	}
	// Output:
	// claude-sonnet-4-5 -> "anthropic"
	// claude-opus-4-7 -> "anthropic-hires"
	// gpt-4o -> "openai-tile"
	// gpt-5-mini -> "openai-patch"
	// gemini-2.5-pro -> "gemini"
	// gemini-3-pro-preview -> "gemini3-high"
	// deepseek-chat -> "deepseek"
	// some-local-model -> ""
}

func ExampleLookup() {
	r, err := imagecost.Lookup("openai-patch")
	fmt.Println(r.Name, r.Provider, r.Encoding, r.Priced(), err)
	_, err = imagecost.Lookup("gpt")
	fmt.Println(err != nil)
	// Output:
	// openai-patch openai o200k_base true <nil>
	// true
}

func ExampleAnthropicResize() {
	// The A4 scan from Anthropic's guide: under the edge limit, over the
	// token limit.
	w, h := imagecost.AnthropicResize(1075, 1520, 1568, 1568)
	fmt.Println(w, h)
	// Output: 924 1307
}

func ExampleDeepSeekV41RouteTokens() {
	w, h := imagecost.DeepSeekRequestSize(1920, 1080, imagecost.DeepSeekRequestPixels)
	raw, _ := imagecost.DeepSeekV41Tokens(1920, 1080)
	sent, _ := imagecost.DeepSeekV41RouteTokens(1920, 1080)
	fmt.Println(w, h, raw, sent)
	// Output:
	// 1066 600 968 407
}
