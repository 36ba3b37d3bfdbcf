package imagecost

import (
	"errors"
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

func TestAnthropicTokens(t *testing.T) {
	runCalcCases(t, AnthropicTokens, []calcCase{
		{"published 200x200", 200, 200, 64},
		{"published 1000x1000", 1000, 1000, 1296},
	})
}

func TestAnthropicHiresTokens(t *testing.T) {
	runCalcCases(t, AnthropicHiresTokens, []calcCase{
		{"published 200x200", 200, 200, 64},
		{"published 1000x1000", 1000, 1000, 1296},
	})
}

func TestAnthropicLegacyTokens(t *testing.T) {
	runCalcCases(t, AnthropicLegacyTokens, []calcCase{
		{"published 200x200", 200, 200, 54},
		{"published 1000x1000", 1000, 1000, 1334},
		{"published 1092x1092", 1092, 1092, 1590},
	})
}

func TestOpenAITileTokens(t *testing.T) {
	runCalcCases(t, OpenAITileTokens, []calcCase{
		{"published 1024x1024", 1024, 1024, 765},
		{"published 2048x4096", 2048, 4096, 1105},
	})
}

func TestOpenAIPatchTokens(t *testing.T) {
	runCalcCases(t, OpenAIPatchTokens, []calcCase{
		{"published 1024x1024", 1024, 1024, 1024},
		{"published 1800x2400", 1800, 2400, 1452},
	})
}

func TestGeminiTokens(t *testing.T) {
	runCalcCases(t, GeminiTokens, []calcCase{
		{"small 384x384", 384, 384, 258},
		{"tiled 1000x1000", 1000, 1000, 1032},
	})
}

func TestCalculatorsRejectBadDimensions(t *testing.T) {
	for _, r := range Routes() {
		if r.Calc == nil {
			continue
		}
		for _, d := range [][2]int{{0, 10}, {10, 0}, {-1, 5}, {100000, 100000}} {
			if _, err := r.Calc(d[0], d[1]); !errors.Is(err, ErrDimensions) {
				t.Errorf("%s(%d,%d): err = %v, want ErrDimensions", r.Name, d[0], d[1], err)
			}
		}
	}
}
