package app

import (
	"encoding/json"
	"sync"
	"testing"
	"time"

	"spillscope/retention"
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
				checkLikeFresh(t, r, RetainRequest{ResultID: id, Budget: budget(b), Estimator: est, Paged: true})
			}
		})
	}
}

// The walk runs to its end once the window asks nothing and swaps its copy
// in, and a walk of another Analysis cancels it, to run again when it is
// next asked.
func TestWarmWalksWhenQuiet(t *testing.T) {
	s, r, _, _, _ := newIndexedApp(t)
	page, err := s.Largest(PageQuery{Limit: 2})
	if err != nil || len(page.Rows) < 2 {
		t.Fatalf("largest: %v", err)
	}
	db, err := r.store.DB()
	if err != nil {
		t.Fatal(err)
	}
	entry := func(id int64) *cached {
		c, err := r.analysis(db, RetainRequest{ResultID: id})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	first, second := page.Rows[0].ID, page.Rows[1].ID
	var before *cached
	if _, err := r.Retain(RetainRequest{ResultID: first, Budget: budget(12500), Paged: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Retain(RetainRequest{ResultID: second, Budget: budget(12500), Paged: true}); err != nil {
		t.Fatal(err)
	}
	before = entry(second)
	old := before.analysis()
	t0 := time.Now()
	r.cache.warming.Wait()
	t.Logf("walked in %v", time.Since(t0))
	if st := entry(first).warm.Load(); st != warmIdle {
		t.Errorf("the first result's walk: state %d, want it cancelled (%d)", st, warmIdle)
	}
	if st := entry(second).warm.Load(); st != warmDone {
		t.Errorf("the second result's walk: state %d, want done (%d)", st, warmDone)
	}
	if before.analysis() == old {
		t.Error("the walked copy did not replace the second result's Analysis")
	}
	if _, err := r.Retain(RetainRequest{ResultID: first, Budget: budget(12500), Paged: true}); err != nil {
		t.Fatal(err)
	}
	r.cache.warming.Wait()
	if st := entry(first).warm.Load(); st != warmDone {
		t.Errorf("the first result asked again: state %d, want done (%d)", st, warmDone)
	}
}

// A walk swaps in twice: first its copies that ran every policy at its
// shipped budget (what a policy switch asks for), then those walked at
// doubling budgets; and a policy switch's projection on either is what a
// fresh Retention sends.
func TestWarmShippedPassFirst(t *testing.T) {
	s, r, _, _, _ := newIndexedApp(t)
	page, err := s.Largest(PageQuery{Limit: 1})
	if err != nil || len(page.Rows) == 0 {
		t.Fatalf("largest: %v", err)
	}
	id := page.Rows[0].ID
	type swap struct {
		pass int
		a    *retention.Analysis
	}
	var mu sync.Mutex
	var swaps []swap
	r.cache.warmed = func(c *cached, pass int) {
		mu.Lock()
		defer mu.Unlock()
		swaps = append(swaps, swap{pass, c.analysis()})
	}
	if _, err := r.Retain(RetainRequest{ResultID: id, Budget: budget(12500), Paged: true}); err != nil {
		t.Fatal(err)
	}
	db, err := r.store.DB()
	if err != nil {
		t.Fatal(err)
	}
	c, err := r.analysis(db, RetainRequest{ResultID: id})
	if err != nil {
		t.Fatal(err)
	}
	first := c.analysis()
	r.cache.warming.Wait()
	mu.Lock()
	got := swaps
	mu.Unlock()
	if len(got) != 2 || got[0].pass != 0 || got[1].pass != 1 {
		t.Fatalf("passes swapped in: %+v, want the shipped pass (0) then the doubling pass (1)", got)
	}
	if got[0].a == first || got[1].a == got[0].a || c.analysis() != got[1].a {
		t.Fatalf("each pass must swap in a copy of its own: built %p, passes %p then %p, now %p", first, got[0].a, got[1].a, c.analysis())
	}
	for _, p := range retention.Policies() {
		b, ok := shippedBudget(p)
		if !ok {
			continue
		}
		checkLikeFresh(t, r, RetainRequest{ResultID: id, Policy: p.Name, Budget: budget(b), Paged: true})
	}
	r.cache.warming.Wait()
}

// checkLikeFresh fails unless r's projection for req, on its readied
// Analysis, is what a fresh Retention, whose first re-run grows the tables
// itself, sends.
func checkLikeFresh(t *testing.T, r *Retention, req RetainRequest) {
	t.Helper()
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
		t.Fatalf("%s at %v: the readied Analysis projects %d bytes of JSON unlike a fresh one's %d (tokens %+v, want %+v)",
			orDefault(req.Policy, retention.DefaultPolicy), *req.Budget, len(g), len(w), got.Tokens, want.Tokens)
	}
}
