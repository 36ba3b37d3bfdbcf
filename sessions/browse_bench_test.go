package sessions

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"spillscope/retention/links"
	"spillscope/sessions/samplegen"
)

// BenchmarkListPages reads the first and the last page of each list the
// window pages through, with its count, opens the index and counts its
// totals, on an index of
// SPILLSCOPE_BENCH_SESSIONS sessions holding SPILLSCOPE_BENCH_RESULTS results
// (2,000 and 20,000 unless set; the README's figures use 10,000 and 100,000).
func BenchmarkListPages(b *testing.B) {
	n := func(name string, def int) int {
		if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
			return v
		}
		return def
	}
	sessions, results := n("SPILLSCOPE_BENCH_SESSIONS", 2000), n("SPILLSCOPE_BENCH_RESULTS", 20000)
	dir := filepath.Join(b.TempDir(), "corpus")
	if _, err := samplegen.GenerateShape(dir, samplegen.ShapeOptions{Sessions: sessions, Results: results, Seed: 1}); err != nil {
		b.Fatal(err)
	}
	d := openTemp(b)
	index(b, d, dir)
	ctx := b.Context()
	const page = 200
	one, err := d.BrowseSessions(ctx, SessionFilter{Order: OrderTokens, Limit: 1})
	if err != nil || len(one) != 1 {
		b.Fatalf("a session: %v", err)
	}
	for _, bc := range []struct {
		name string
		run  func() error
	}{
		{"sessions/newest/first", func() error { _, err := d.BrowseSessions(ctx, SessionFilter{Limit: page}); return err }},
		{"sessions/newest/last", func() error {
			_, err := d.BrowseSessions(ctx, SessionFilter{Limit: page, Offset: sessions - page})
			return err
		}},
		{"sessions/tokens/first", func() error {
			_, err := d.BrowseSessions(ctx, SessionFilter{Order: OrderTokens, Limit: page})
			return err
		}},
		{"sessions/count", func() error { _, err := d.CountSessions(ctx, SessionFilter{}); return err }},
		{"largest/first", func() error { _, err := d.Results(ctx, ResultFilter{Order: OrderTokens, Limit: page}); return err }},
		{"largest/last", func() error {
			_, err := d.Results(ctx, ResultFilter{Order: OrderTokens, Limit: page, Offset: results - page})
			return err
		}},
		{"largest/count", func() error { _, err := d.CountResults(ctx, ResultFilter{}); return err }},
		{"session/tokens", func() error {
			_, err := d.Results(ctx, ResultFilter{SessionRowID: one[0].ID, Order: OrderTokens, Limit: page})
			return err
		}},
		{"links/first", func() error { _, err := d.BrowseLinks(ctx, LinkFilter{Limit: page}); return err }},
		{"links/count", func() error { _, err := d.CountLinks(ctx, LinkFilter{}); return err }},
		{"links/host/first", func() error { _, err := d.BrowseLinks(ctx, LinkFilter{Host: "example.com", Limit: page}); return err }},
		{"links/family/count", func() error {
			_, err := d.CountLinks(ctx, LinkFilter{Parameters: links.FamilyParams(links.FamilyAWS)})
			return err
		}},
		{"links/facets", func() error { _, err := d.LinkFacets(ctx, 0); return err }},
		// What the window's start waits on: opening the index, and the totals
		// its index panel shows (counted after the first rows).
		{"open", func() error {
			o, err := Open(d.Path())
			if err != nil {
				return err
			}
			return o.Close()
		}},
		{"totals", func() error { _, err := d.Totals(ctx, []string{dir}); return err }},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := bc.run(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
