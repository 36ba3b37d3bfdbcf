package sessions

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestDiagnosticCodesTranslated: every code has an English message here,
// and an entry with the same placeholders in both UI catalogues, so the
// window never falls back to English for a code this build writes.
func TestDiagnosticCodesTranslated(t *testing.T) {
	placeholders := regexp.MustCompile(`\{(\w+)\}`)
	for _, lang := range []string{"en", "zh"} {
		b, err := os.ReadFile(filepath.Join("..", "frontend", "src", "i18n", lang+".ts"))
		if err != nil {
			t.Skipf("no frontend catalogue: %v", err)
		}
		src := string(b)
		i := strings.Index(src, "diagnostic: {")
		if i < 0 {
			t.Fatalf("%s.ts has no diagnostic section", lang)
		}
		section := src[i:]
		section = section[:strings.Index(section, "\n  },")]
		for _, code := range DiagCodes {
			if diagText(code, map[string]string{}) == code {
				t.Errorf("%s has no English message", code)
			}
			key := code
			if strings.Contains(code, "-") {
				key = "'" + code + "'"
			}
			re := regexp.MustCompile(`(?m)^\s*` + regexp.QuoteMeta(key) + `: '([^']*)'`)
			m := re.FindStringSubmatch(section)
			if m == nil {
				t.Errorf("%s.ts does not word %s", lang, code)
				continue
			}
			for _, p := range placeholders.FindAllStringSubmatch(m[1], -1) {
				if !knownParam(code, p[1]) {
					t.Errorf("%s.ts %s uses {%s}, which the code does not carry", lang, code, p[1])
				}
			}
		}
	}
}

// knownParam reports whether a code's diagnostics carry a param, from a
// diagnostic built the way the readers build it.
func knownParam(code, name string) bool {
	params := map[string][]string{
		DiagNotJSON: {"start"}, DiagUnknownType: {"type", "count", "firstLine"}, DiagNotASession: {"harness", "lines"},
		DiagUnreadable: {"error"}, DiagBadShape: {"part", "want"}, DiagMissingField: {"field"},
		DiagResultProblem: {"callId", "detail"}, DiagBadImage: {"callId", "block", "detail"},
		DiagBadRecord: {"where", "error"}, DiagUnknownItem: {"type", "count", "where"}, DiagOrphanResult: {"callId"},
		DiagNotSource: {"harness", "detail"},
		DiagTornTail:  {"offset"}, DiagLogProblem: {"problem", "detail"},
		DiagUnknownField: {"field", "value", "count", "firstLine"},
	}
	for _, p := range params[code] {
		if p == name {
			return true
		}
	}
	return false
}

func TestSkipTypeCounts(t *testing.T) {
	var p Parsed
	for i, typ := range []string{"a", "b", "a", "a"} {
		p.SkipType(int64(10+i), typ)
	}
	if len(p.Diags) != 2 || p.Diags[0].Params["count"] != "3" || p.Diags[0].Line != 10 || p.Diags[1].Params["count"] != "1" || p.Diags[1].Line != 11 {
		t.Errorf("%+v", p.Diags)
	}
	earlier := Diagnostic{Line: 2, Params: map[string]string{"count": "5"}}
	d := p.Diags[0]
	mergeCount(&d, earlier)
	if d.Params["count"] != "8" || d.Line != 2 || d.Params["firstLine"] != "2" || !strings.Contains(d.Message, "8 lines skipped, the first at line 2") {
		t.Errorf("merged %+v", d)
	}
}
