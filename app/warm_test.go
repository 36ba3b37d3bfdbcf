package app

import (
	"encoding/json"
	"testing"
	"time"
)

// The background walk only grows tables: on the sample's 1 MB result, every
// budget's projection after the walk is what a fresh Retention, whose first
// re-run at that budget grows the tables itself, sends.
func TestWarmKeepsProjectionsExact(t *testing.T) {
	s, r, _, _, _ := newIndexedApp(t)
	page, err := s.Largest(PageQuery{Limit: 1})
	if err != nil || len(page.Rows) == 0 {
		t.Fatalf("largest: %v", err)
	}
	id := page.Rows[0].ID
	for _, est := range []string{"", "o200k_base", "dsh-meter"} {
		t.Run("estimator="+est, func(t *testing.T) {
			if _, err := r.Retain(RetainRequest{ResultID: id, Budget: budget(12500), Estimator: est, Paged: true}); err != nil {
				t.Fatal(err)
			}
			r.cache.warming.Wait()
			for _, b := range []int64{700, 3000, 9000, 41000, 130000, 260000} {
				req := RetainRequest{ResultID: id, Budget: budget(b), Estimator: est, Paged: true}
				got, err := r.Retain(req)
				if err != nil {
					t.Fatal(err)
				}
				fresh := NewRetention(r.store)
				want, err := fresh.Retain(req)
				if err != nil {
					t.Fatal(err)
				}
				fresh.cache.warming.Wait()
				g, _ := json.Marshal(got)
				w, _ := json.Marshal(want)
				if string(g) != string(w) {
					t.Fatalf("budget %d: the readied Analysis projects %d bytes of JSON unlike a fresh one's %d (tokens %+v, want %+v)", b, len(g), len(w), got.Tokens, want.Tokens)
				}
			}
		})
	}
}

// The walk's copy replaces the entry's Analysis once it has walked.
func TestWarmSwapsInTheReadiedAnalysis(t *testing.T) {
	s, r, _, _, _ := newIndexedApp(t)
	page, err := s.Largest(PageQuery{Limit: 1})
	if err != nil || len(page.Rows) == 0 {
		t.Fatalf("largest: %v", err)
	}
	req := RetainRequest{ResultID: page.Rows[0].ID, Budget: budget(12500), Paged: true}
	if _, err := r.Retain(req); err != nil {
		t.Fatal(err)
	}
	db, err := r.store.DB()
	if err != nil {
		t.Fatal(err)
	}
	c, err := r.analysis(db, req)
	if err != nil {
		t.Fatal(err)
	}
	first := c.analysis()
	t0 := time.Now()
	r.cache.warming.Wait()
	t.Logf("walked in %v", time.Since(t0))
	if c.warm.Load() != warmDone || c.analysis() == first {
		t.Fatalf("after the walk: state %d, Analysis replaced %v", c.warm.Load(), c.analysis() != first)
	}
}
