package app

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"spillscope/retention/links"
	"spillscope/sessions"
)

// Over the hostile corpus, every family the audit filters by lists rows
// whose parameter is that family's (by links.FamiliesOf), as many as the
// family's facet counts; the class counts add up; rows carry host and
// families; an unknown family or class is refused by code.
func TestLinksFiltersOnHostileCorpus(t *testing.T) {
	_, _, l, _, _ := newHostileApp(t)
	fc, err := l.Facets(0)
	if err != nil {
		t.Fatal(err)
	}
	if len(fc.Families) < 8 {
		t.Fatalf("only %d families matched in the hostile corpus: %+v", len(fc.Families), fc.Families)
	}
	for _, f := range fc.Families {
		t.Run(f.Value, func(t *testing.T) {
			rows, err := linksAll(l, LinkQuery{Family: f.Value})
			if err != nil {
				t.Fatal(err)
			}
			if len(rows) != f.Count {
				t.Errorf("%d rows, the facet counts %d", len(rows), f.Count)
			}
			for _, r := range rows {
				if !slices.Contains(r.Families, f.Value) || !slices.Equal(r.Families, links.FamiliesOf(r.Parameter)) {
					t.Fatalf("row %+v is not of %s", r, f.Value)
				}
			}
		})
	}
	p, err := l.List(LinkQuery{Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	if p.Plain+p.Redacted+p.Stubbed+p.Markers != p.Total || p.Redacted != p.InText || p.Stubbed == 0 || p.Redacted == 0 {
		t.Errorf("counts %+v do not add up", p)
	}
	for _, c := range []string{sessions.ClassPlain, sessions.ClassRedacted, sessions.ClassStubbed, sessions.ClassMarker} {
		q, err := l.List(LinkQuery{Class: c, Limit: 5})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range q.Rows {
			if r.Class != c {
				t.Errorf("class %s lists %+v", c, r)
			}
		}
	}
	for _, q := range []LinkQuery{{Family: "paypal", Limit: 1}, {Class: "hidden", Limit: 1}} {
		if _, err := l.List(q); err == nil {
			t.Errorf("List(%+v) is not refused", q)
		}
	}
}

// The window names every family the audit filters by, in both languages
// (zh.ts is type-checked against en.ts).
func TestEveryFamilyIsNamedInTheWindow(t *testing.T) {
	en, err := os.ReadFile(filepath.Join("..", "frontend", "src", "i18n", "en.ts"))
	if err != nil {
		t.Skipf("frontend catalogue not found: %v", err)
	}
	s := string(en)
	start := strings.Index(s, "    families: {")
	if start < 0 {
		t.Fatal("en.ts has no links.families")
	}
	section := s[start : start+strings.Index(s[start:], "    },")]
	var got []string
	for _, m := range regexp.MustCompile(`(?m)^\s+'?([a-z0-9-]+)'?: '`).FindAllStringSubmatch(section, -1) {
		got = append(got, m[1])
	}
	if want := links.FamilyKeys(); !slices.Equal(got, want) {
		t.Errorf("en.ts names families %v, Go filters by %v", got, want)
	}
}
