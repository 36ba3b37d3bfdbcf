package sessions

import (
	"path/filepath"
	"slices"
	"testing"

	"spillscope/sessions/samplegen"
)

// pageAll walks a list page by page until a short page, as the window's
// virtualised lists do, and returns every row.
func pageAll[T any](t *testing.T, size int, page func(offset, limit int) ([]T, error)) []T {
	t.Helper()
	var out []T
	for off := 0; ; off += size {
		rows, err := page(off, size)
		if err != nil {
			t.Fatalf("page at %d: %v", off, err)
		}
		out = append(out, rows...)
		if len(rows) < size {
			return out
		}
	}
}

// Every list reaches every row through its pages, in the same order as the
// whole list, and its count says how many rows that is: on a corpus larger
// than any page and than the old silent caps' share of it.
func TestPagedListsReachEveryRowAndCountThem(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "corpus")
	m, err := samplegen.GenerateShape(dir, samplegen.ShapeOptions{Sessions: 230, Results: 1300, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	d := openTemp(t)
	sum := index(t, d, dir)
	if sum.Sessions != m.Sessions || sum.ToolResults != m.ToolResults {
		t.Fatalf("indexed %d sessions %d results, generator wrote %d %d", sum.Sessions, sum.ToolResults, m.Sessions, m.ToolResults)
	}
	ctx := t.Context()
	if err := d.Enrich(ctx, EnrichOptions{}); err != nil {
		t.Fatal(err)
	}
	subagents := m.PerHarness[samplegen.HarnessClaude].Subagents

	t.Run("sessions", func(t *testing.T) {
		for _, f := range []SessionFilter{{}, {Order: OrderTokens}, {Search: "project-07"}, {Harness: HarnessClaude, Order: OrderTokens}, {Harness: "codex"}} {
			whole, err := d.BrowseSessions(ctx, f)
			if err != nil {
				t.Fatal(err)
			}
			paged := pageAll(t, 37, func(off, lim int) ([]SessionSummary, error) {
				g := f
				g.Offset, g.Limit = off, lim
				return d.BrowseSessions(ctx, g)
			})
			if !slices.EqualFunc(paged, whole, func(a, b SessionSummary) bool { return a.ID == b.ID }) {
				t.Errorf("%+v: pages give %d rows, the whole list %d, or another order", f, len(paged), len(whole))
			}
			c, err := d.CountSessions(ctx, f)
			if err != nil {
				t.Fatal(err)
			}
			distinct := map[string]bool{}
			for _, s := range whole {
				distinct[s.Harness+"\x00"+s.SessionID] = true
			}
			if c.Transcripts != len(whole) || c.Sessions != len(distinct) {
				t.Errorf("%+v: counted %+v, want %d transcripts, %d sessions", f, c, len(whole), len(distinct))
			}
		}
		c, err := d.CountSessions(ctx, SessionFilter{})
		if err != nil {
			t.Fatal(err)
		}
		if c.Sessions != sum.Sessions || c.Transcripts != m.Sessions+subagents {
			t.Errorf("whole index: %+v, want the totals' %d sessions and %d transcripts", c, sum.Sessions, m.Sessions+subagents)
		}
	})

	t.Run("results", func(t *testing.T) {
		sess, err := d.BrowseSessions(ctx, SessionFilter{Order: OrderTokens, Limit: 1})
		if err != nil || len(sess) != 1 {
			t.Fatalf("a session: %v", err)
		}
		for _, f := range []ResultFilter{
			{}, {Order: OrderTokens}, {OnlyNotices: true}, {OnlyNotices: true, Order: OrderTokens},
			{SessionRowID: sess[0].ID}, {SessionRowID: sess[0].ID, Order: OrderTokens},
			{SessionID: sess[0].SessionID, Order: OrderTokens},
		} {
			whole, err := d.Results(ctx, f)
			if err != nil {
				t.Fatal(err)
			}
			paged := pageAll(t, 97, func(off, lim int) ([]ResultRow, error) {
				g := f
				g.Offset, g.Limit = off, lim
				return d.Results(ctx, g)
			})
			if len(whole) == 0 || !slices.EqualFunc(paged, whole, func(a, b ResultRow) bool { return a.ID == b.ID }) {
				t.Errorf("%+v: pages give %d rows, the whole list %d, or another order", f, len(paged), len(whole))
			}
			if f.Order == OrderTokens && !slices.IsSortedFunc(whole, func(a, b ResultRow) int { return int(b.Tokens - a.Tokens) }) {
				t.Errorf("%+v: not most tokens first", f)
			}
			n, err := d.CountResults(ctx, f)
			if err != nil || n != len(whole) {
				t.Errorf("%+v: counted %d (%v), want %d", f, n, err, len(whole))
			}
			for _, r := range whole {
				if f.OnlyNotices && r.Spill == nil {
					t.Fatalf("%+v: result %d has no notice", f, r.ID)
				}
				if f.SessionRowID != 0 && r.SessionRowID != f.SessionRowID {
					t.Fatalf("%+v: result %d is another session's", f, r.ID)
				}
			}
		}
		if n, _ := d.CountResults(ctx, ResultFilter{}); n != m.ToolResults {
			t.Errorf("every result: counted %d, generator wrote %d", n, m.ToolResults)
		}
		if n, _ := d.CountResults(ctx, ResultFilter{OnlyNotices: true}); n != m.SpillNotices {
			t.Errorf("results with notices: counted %d, generator wrote %d", n, m.SpillNotices)
		}
	})

	t.Run("search", func(t *testing.T) {
		for _, o := range []Order{"", OrderTokens, OrderSource} {
			whole, err := d.SearchPage(ctx, SearchFilter{Query: `"the"`, Order: o, Limit: 100000})
			if err != nil {
				t.Fatal(err)
			}
			paged := pageAll(t, 61, func(off, lim int) ([]ResultRow, error) {
				return d.SearchPage(ctx, SearchFilter{Query: `"the"`, Order: o, Limit: lim, Offset: off})
			})
			if len(whole) < 200 || !slices.EqualFunc(paged, whole, func(a, b ResultRow) bool { return a.ID == b.ID }) {
				t.Errorf("order %q: pages give %d rows, the whole list %d (want more than the old cap of 200), or another order", o, len(paged), len(whole))
			}
			n, err := d.CountSearch(ctx, `"the"`)
			if err != nil || n != len(whole) {
				t.Errorf("order %q: counted %d (%v), want %d", o, n, err, len(whole))
			}
		}
	})
}
