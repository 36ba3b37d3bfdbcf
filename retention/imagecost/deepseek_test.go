package imagecost

import (
	"errors"
	"testing"
)

// The vectors are the ones IMAGE-PRICING.md lists for dsh's ports of
// DeepSeek's calculator (v4: cyg720/deepseek-harness @ 3159ab3f, v4.1:
// knyazev741/deepseek-harness @ 8173fb8d,
// packages/llm/llm-deepseek/src/image-tokens.ts), on the size given.
func TestDeepSeekCalculators(t *testing.T) {
	cases := []struct {
		name       string
		calc       Calculator
		w, h, want int
	}{
		{"v4 100x100", DeepSeekV4Tokens, 100, 100, 117},
		{"v4 640x480", DeepSeekV4Tokens, 640, 480, 209},
		{"v4 1920x1080", DeepSeekV4Tokens, 1920, 1080, 369},
		{"v4 300x50", DeepSeekV4Tokens, 300, 50, 101},
		{"v4.1 100x100", DeepSeekV41Tokens, 100, 100, 184},
		{"v4.1 640x480", DeepSeekV41Tokens, 640, 480, 206},
		{"v4.1 1920x1080", DeepSeekV41Tokens, 1920, 1080, 968},
		{"v4.1 300x50", DeepSeekV41Tokens, 300, 50, 200},
		{"v4.1 route 1920x1080 priced at 1066x600", DeepSeekV41RouteTokens, 1920, 1080, 407},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.calc(tc.w, tc.h)
			if err != nil || got != tc.want {
				t.Errorf("%dx%d = %d, %v; want %d", tc.w, tc.h, got, err, tc.want)
			}
		})
	}
}

func TestDeepSeekCaps(t *testing.T) {
	for _, sz := range [][2]int{{1, 1}, {1, 32768}, {32768, 1}, {8000, 8000}, {16384, 16384}, {4096, 2}, {3, 5000}} {
		if n, err := DeepSeekV4Tokens(sz[0], sz[1]); err != nil || n > 384 || n <= 0 {
			t.Errorf("v4 %dx%d = %d, %v: want 1..384", sz[0], sz[1], n, err)
		}
		if n, err := DeepSeekV41Tokens(sz[0], sz[1]); err != nil || n > 1024 || n <= 0 {
			t.Errorf("v4.1 %dx%d = %d, %v: want 1..1024", sz[0], sz[1], n, err)
		}
	}
	if _, err := DeepSeekV4Tokens(0, 10); !errors.Is(err, ErrDimensions) {
		t.Errorf("0x10: err = %v, want ErrDimensions", err)
	}
}

func TestDeepSeekRequestSize(t *testing.T) {
	cases := []struct {
		w, h, px, ww, wh int
	}{
		{1920, 1080, DeepSeekRequestPixels, 1066, 600},
		{800, 800, DeepSeekRequestPixels, 800, 800},    // exactly the budget: unchanged
		{100, 50, DeepSeekRequestPixels, 100, 50},      // never enlarged
		{1080, 1920, DeepSeekRequestPixels, 600, 1066}, // portrait: the long edge is the height
		{4000, 3000, DeepSeekLowDetailPixels, 591, 443},
	}
	for _, tc := range cases {
		gw, gh := DeepSeekRequestSize(tc.w, tc.h, tc.px)
		if gw != tc.ww || gh != tc.wh {
			t.Errorf("DeepSeekRequestSize(%d, %d, %d) = %dx%d, want %dx%d", tc.w, tc.h, tc.px, gw, gh, tc.ww, tc.wh)
		}
		if gw*gh > tc.px && (tc.w*tc.h > tc.px) {
			t.Errorf("%dx%d exceeds %d pixels", gw, gh, tc.px)
		}
	}
}

func TestDeepSeekRoutes(t *testing.T) {
	for _, tc := range []struct {
		route string
		want  int
	}{{RouteDeepSeekV4, 0}, {RouteDeepSeekV41, 407}} {
		r, err := Lookup(tc.route)
		if err != nil || !r.Priced() || r.Encoding != MeterEstimator {
			t.Fatalf("Lookup(%s) = %+v, %v", tc.route, r, err)
		}
		if w, h := r.RequestSize(1920, 1080); w != 1066 || h != 600 {
			t.Errorf("%s request size of 1920x1080 = %dx%d, want 1066x600", tc.route, w, h)
		}
		got, err := r.Calc(1920, 1080)
		want := tc.want
		if want == 0 {
			want, _ = DeepSeekV4Tokens(1066, 600)
		}
		if err != nil || got != want {
			t.Errorf("%s 1920x1080 = %d, %v; want %d", tc.route, got, err, want)
		}
	}
}

func FuzzDeepSeekTokens(f *testing.F) {
	f.Add(100, 100)
	f.Add(1920, 1080)
	f.Add(1, 32768)
	f.Fuzz(func(t *testing.T, w, h int) {
		if CheckDimensions(w, h) != nil {
			return
		}
		if n, err := DeepSeekV4Tokens(w, h); err == nil && (n <= 0 || n > 384) {
			t.Fatalf("v4 %dx%d = %d", w, h, n)
		}
		if n, err := DeepSeekV41Tokens(w, h); err == nil && (n <= 0 || n > 1024) {
			t.Fatalf("v4.1 %dx%d = %d", w, h, n)
		}
		pw, ph := DeepSeekRequestSize(w, h, DeepSeekRequestPixels)
		if pw > w || ph > h || pw < 1 || ph < 1 {
			t.Fatalf("request %dx%d -> %dx%d", w, h, pw, ph)
		}
	})
}
