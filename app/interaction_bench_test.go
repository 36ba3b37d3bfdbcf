package app

import (
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"spillscope/sessions/samplegen"
)

// BenchmarkInteraction1MB times what the window calls when the user moves the
// budget, switches the route, estimator or policy, opens a result or scrolls
// a pane to its next page, on the sample's largest result (about 1 MB of
// text): the binding and the JSON encoding of its answer, which is what
// crosses to the window (max-B/answer). The sample is generated and indexed
// once, in the parent benchmark.
func BenchmarkInteraction1MB(b *testing.B) {
	root := b.TempDir()
	corpus := filepath.Join(root, "corpus")
	if _, err := samplegen.Generate(corpus, samplegen.Options{Seed: 7}); err != nil {
		b.Fatal(err)
	}
	store := NewStore(Config{DataDir: filepath.Join(root, "data"), Roots: []string{corpus}, Home: root}, nil)
	b.Cleanup(func() { store.Close() })
	s := NewSessions(store)
	if _, err := s.Index(); err != nil {
		b.Fatal(err)
	}
	for deadline := time.Now().Add(5 * time.Minute); ; time.Sleep(20 * time.Millisecond) {
		st, err := s.Status()
		if err != nil {
			b.Fatal(err)
		}
		if !st.Running {
			break
		}
		if time.Now().After(deadline) {
			b.Fatal("index did not finish")
		}
	}
	page, err := s.Largest(PageQuery{Limit: 1})
	if err != nil || len(page.Rows) == 0 {
		b.Fatalf("largest: %v (%d rows)", err, len(page.Rows))
	}
	row := page.Rows[0]
	if row.TextBytes < 1<<20-100<<10 {
		b.Fatalf("the sample's largest result holds %d bytes; want about 1 MB", row.TextBytes)
	}
	r := NewRetention(store)
	budgets := []int64{1000, 5000, 12500, 50000, 200000}
	// Warm the Analyses every sub-benchmark reuses.
	for _, rt := range []string{"", "openai-tile"} {
		if _, err := r.Retain(RetainRequest{ResultID: row.ID, Budget: &budgets[0], Route: rt, Paged: true}); err != nil {
			b.Fatal(err)
		}
	}
	retain := func(b *testing.B, req func(i int) RetainRequest) {
		b.ReportAllocs()
		var sent int
		for i := 0; b.Loop(); i++ {
			p, err := r.Retain(req(i))
			if err != nil {
				b.Fatal(err)
			}
			data, err := json.Marshal(p)
			if err != nil {
				b.Fatal(err)
			}
			sent = max(sent, len(data))
		}
		b.ReportMetric(float64(sent), "max-B/answer")
	}
	b.Run("budget", func(b *testing.B) {
		retain(b, func(i int) RetainRequest {
			return RetainRequest{ResultID: row.ID, Budget: &budgets[i%len(budgets)], Paged: true}
		})
	})
	b.Run("route", func(b *testing.B) {
		routes := []string{"", "openai-tile"}
		retain(b, func(i int) RetainRequest {
			return RetainRequest{ResultID: row.ID, Budget: &budgets[2], Route: routes[i%2], Paged: true}
		})
	})
	b.Run("estimator", func(b *testing.B) {
		estimators := []string{"dsh-meter", "o200k_base", "cl100k_base"}
		for _, e := range estimators {
			if _, err := r.Retain(RetainRequest{ResultID: row.ID, Budget: &budgets[2], Estimator: e, Paged: true}); err != nil {
				b.Fatal(err)
			}
		}
		retain(b, func(i int) RetainRequest {
			return RetainRequest{ResultID: row.ID, Budget: &budgets[2], Estimator: estimators[i%3], Paged: true}
		})
	})
	// Each policy at its shipped budget, as the window switches to it.
	policies, err := r.Policies()
	if err != nil {
		b.Fatal(err)
	}
	for _, pol := range policies {
		b.Run("policy="+pol.Name, func(b *testing.B) {
			retain(b, func(int) RetainRequest {
				return RetainRequest{ResultID: row.ID, Policy: pol.Name, Budget: &pol.DefaultBudget, Paged: true}
			})
		})
	}
	b.Run("open", func(b *testing.B) {
		b.ReportAllocs()
		var sent int
		for b.Loop() {
			d, err := s.Result(ResultQuery{ID: row.ID, Paged: true})
			if err != nil {
				b.Fatal(err)
			}
			data, err := json.Marshal(d)
			if err != nil {
				b.Fatal(err)
			}
			sent = max(sent, len(data))
		}
		b.ReportMetric(float64(sent), "max-B/answer")
	})
	b.Run("page", func(b *testing.B) {
		b.ReportAllocs()
		var sent int
		for i := 0; b.Loop(); i++ {
			p, err := r.Text(TextQuery{ResultID: row.ID, Block: 0, Offset: int64(i%64) * pageBytes})
			if err != nil {
				b.Fatal(err)
			}
			data, err := json.Marshal(p)
			if err != nil {
				b.Fatal(err)
			}
			sent = max(sent, len(data))
		}
		b.ReportMetric(float64(sent), "max-B/answer")
	})
}
