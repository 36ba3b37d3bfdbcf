package app

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"spillscope/retention"
	"spillscope/sessions"
)

// Every code a bound method can report has a sentence in the window's
// English catalogue (zh.ts is type-checked against it), so no failure
// reaches the screen as a bare code.
func TestEveryErrorCodeIsTranslated(t *testing.T) {
	en, err := os.ReadFile(filepath.Join("..", "frontend", "src", "i18n", "en.ts"))
	if err != nil {
		t.Skipf("frontend catalogue not found: %v", err)
	}
	start := strings.Index(string(en), "codes: {")
	if start < 0 {
		t.Fatal("en.ts has no errors.codes section")
	}
	section := string(en)[start:]
	section = section[:strings.Index(section, "\n    },")]
	codes := map[string]bool{"failed": true}
	for _, c := range causeCodes {
		codes[c.code] = true
	}
	files, _ := filepath.Glob("*.go")
	call := regexp.MustCompile(`coded\("([a-z-]+)"`)
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range call.FindAllStringSubmatch(string(src), -1) {
			codes[m[1]] = true
		}
	}
	if len(codes) < 20 {
		t.Fatalf("found only %d codes; the scan is broken", len(codes))
	}
	for c := range codes {
		key := regexp.MustCompile(`(?m)^\s*'?` + regexp.QuoteMeta(c) + `'?: '`)
		if !key.MatchString(section) {
			t.Errorf("code %q has no English sentence in errors.codes", c)
		}
	}
}

func TestAsError(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		code string
	}{
		{"a coded error", coded("search-empty"), "search-empty"},
		{"wrapped coded", fmt.Errorf("context: %w", coded("page-invalid", "limit", 0)), "page-invalid"},
		{"gone beats not found", fmt.Errorf("%w: %w", sessions.ErrResultGone, sessions.ErrNotFound), "result-gone"},
		{"a retention sentinel", fmt.Errorf("x: %w", retention.ErrBudget), "budget-invalid"},
		{"anything else", errors.New("disk on fire"), "failed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := AsError(tc.err)
			if got.Code != tc.code || got.Detail == "" && tc.code == "failed" {
				t.Errorf("AsError(%v) = %+v, want code %s with detail", tc.err, got, tc.code)
			}
		})
	}
	if AsError(nil) != nil {
		t.Error("AsError(nil) is not nil")
	}
}
