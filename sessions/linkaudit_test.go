package sessions

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"spillscope/retention/links"
	"spillscope/sessions/samplegen"
)

// The links list pages and counts on the sample under every kind of filter:
// pages join to the whole list, each row meets the filter, the counts are
// the rows' own (by LinkClass, so the SQL class and the Go class agree),
// and a filtered list is the whole list's rows that meet it.
func TestLinkFiltersPagesAndCounts(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "corpus")
	if _, err := samplegen.Generate(dir, samplegen.Options{Seed: 7, Scale: 3}); err != nil {
		t.Fatal(err)
	}
	d := openTemp(t)
	index(t, d, dir)
	all, err := d.BrowseLinks(t.Context(), LinkFilter{Limit: 10000})
	if err != nil {
		t.Fatal(err)
	}
	classes := map[string]int{}
	for _, l := range all {
		classes[LinkClass(l.Shown, l.Reason)]++
	}
	for _, c := range []string{ClassPlain, ClassRedacted, ClassStubbed} {
		if classes[c] == 0 {
			t.Fatalf("the sample has no %s link (%v): the filters would be tested on nothing", c, classes)
		}
	}
	meets := map[string]func(LinkSummary) bool{}
	filters := map[string]LinkFilter{
		"all":     {},
		"flagged": {OnlyFlagged: true},
		"reason":  {Reason: links.ReasonCredentialParameter},
		"aws":     {Parameters: links.FamilyParams(links.FamilyAWS)},
		"oauth2":  {Parameters: links.FamilyParams(links.FamilyOAuth2), OnlyFlagged: true},
		"none":    {Parameters: []string{}},
		"host":    {Host: "Example.COM"},
		"exact":   {Host: "git.example.com"},
		"plain":   {Class: ClassPlain},
		"stubbed": {Class: ClassStubbed},
		"both":    {Class: ClassRedacted, Host: "amazonaws.com"},
	}
	for name, f := range filters {
		meets[name] = func(l LinkSummary) bool {
			h := strings.ToLower(f.Host)
			return (!f.OnlyFlagged || l.Reason != "") && (f.Reason == "" || l.Reason == f.Reason) &&
				(f.Parameters == nil || slices.Contains(f.Parameters, l.Parameter)) &&
				(h == "" || l.Host == h || strings.HasSuffix(l.Host, "."+h)) &&
				(f.Class == "" || LinkClass(l.Shown, l.Reason) == f.Class)
		}
	}
	for name, f := range filters {
		t.Run(name, func(t *testing.T) {
			whole := f
			whole.Limit = 10000
			got, err := d.BrowseLinks(t.Context(), whole)
			if err != nil {
				t.Fatal(err)
			}
			paged := pageAll(t, 7, func(off, lim int) ([]LinkSummary, error) {
				p := f
				p.Offset, p.Limit = off, lim
				return d.BrowseLinks(t.Context(), p)
			})
			if !slices.Equal(paged, got) {
				t.Errorf("pages give %d rows, the whole list %d", len(paged), len(got))
			}
			var want []LinkSummary
			for _, l := range all {
				if meets[name](l) {
					want = append(want, l)
				}
			}
			if !slices.Equal(got, want) {
				t.Errorf("%d rows, want the %d of the whole list that meet the filter", len(got), len(want))
			}
			if name != "none" && len(got) == 0 {
				t.Error("the filter keeps nothing on the sample")
			}
			c, err := d.CountLinks(t.Context(), f)
			if err != nil {
				t.Fatal(err)
			}
			var w LinkCounts
			for _, l := range got {
				w.Total++
				switch LinkClass(l.Shown, l.Reason) {
				case ClassPlain:
					w.Plain++
				case ClassRedacted:
					w.Redacted++
				case ClassStubbed:
					w.Stubbed++
				default:
					w.Markers++
				}
				if l.Shown == links.KindStub || l.Shown == links.KindMarker {
					w.Hidden++
				}
				if l.Shown == LinkInText && l.Reason != "" {
					w.InText++
				}
			}
			if c != w {
				t.Errorf("counted %+v, the rows give %+v", c, w)
			}
		})
	}
	// A safe URL in text is listed with its host and no reason; a link's
	// userinfo never reaches its host.
	var safe, userinfo bool
	for _, l := range all {
		if l.Host == "" && l.Shown != links.KindMarker {
			t.Errorf("a link without a host: %+v", l)
		}
		if strings.ContainsAny(l.Host, "@:/") {
			t.Errorf("host %q", l.Host)
		}
		safe = safe || l.Shown == LinkInText && l.Reason == "" && l.Host == "pkg.go.dev"
		userinfo = userinfo || l.Reason == links.ReasonUserinfo && l.Host == "git.example.com"
	}
	if !safe || !userinfo {
		t.Errorf("safe docs link listed %v, userinfo link with its host %v", safe, userinfo)
	}
}

// The facets count what the filters select: each reason's count is the
// list filtered by it, each host's at most the list under it.
func TestLinkFacets(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "corpus")
	if _, err := samplegen.Generate(dir, samplegen.Options{Seed: 7, Scale: 2}); err != nil {
		t.Fatal(err)
	}
	d := openTemp(t)
	index(t, d, dir)
	fc, err := d.LinkFacets(t.Context(), 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(fc.Reasons) == 0 || len(fc.Parameters) == 0 || len(fc.Hosts) == 0 {
		t.Fatalf("facets %+v", fc)
	}
	for _, r := range fc.Reasons {
		c, err := d.CountLinks(t.Context(), LinkFilter{Reason: r.Value})
		if err != nil || c.Total != r.Count {
			t.Errorf("reason %s: facet %d, list %d (%v)", r.Value, r.Count, c.Total, err)
		}
	}
	for _, p := range fc.Parameters {
		c, err := d.CountLinks(t.Context(), LinkFilter{Parameters: []string{p.Value}})
		if err != nil || c.Total != p.Count {
			t.Errorf("parameter %s: facet %d, list %d (%v)", p.Value, p.Count, c.Total, err)
		}
	}
	for i, h := range fc.Hosts {
		c, err := d.CountLinks(t.Context(), LinkFilter{Host: h.Value})
		if err != nil || c.Total < h.Count {
			t.Errorf("host %s: facet %d, list %d (%v)", h.Value, h.Count, c.Total, err)
		}
		if i > 0 && fc.Hosts[i-1].Count < h.Count {
			t.Errorf("hosts not most linked first: %v", fc.Hosts[:i+1])
		}
	}
}
