package retention

import (
	"errors"
	"math/rand"
	"reflect"
	"testing"
)

// randomResult mixes text blocks of many sizes (empty included) with real
// image files of a few sizes.
func randomResult(r *rand.Rand, images []Block) Result {
	var res Result
	for n := 1 + r.Intn(6); n > 0; n-- {
		if r.Intn(4) == 0 {
			res.Content = append(res.Content, images[r.Intn(len(images))])
			continue
		}
		size := r.Intn(3000)
		switch r.Intn(6) {
		case 0:
			size = 0
		case 1:
			size = 8000 + r.Intn(20000)
		}
		res.Content = append(res.Content, textBlock(randomText(r, size)))
	}
	return res
}

func TestRetainProperties(t *testing.T) {
	dir := t.TempDir()
	images := []Block{writePNG(t, dir, 64, 64), writePNG(t, dir, 800, 600), writePNG(t, dir, 30, 1900)}
	r := rand.New(rand.NewSource(20261130))
	routes := []string{"anthropic", "openai-tile", "gemini"}
	for trial := 0; trial < 30; trial++ {
		res := randomResult(r, images)
		opts := Options{SpillPath: testSpill, Route: routes[r.Intn(len(routes))]}
		full := mustRetain(t, res, opts) // disabled: exact original cost
		budgets := make([]int64, 6)
		for i := range budgets {
			budgets[i] = int64(r.Intn(full.OriginalTokens + 50))
		}
		budgets[0] = int64(full.OriginalTokens) // exactly at the boundary
		budgets[1] = int64(full.OriginalTokens - 1)
		sweep, err := Sweep(res, budgets, opts)
		if err != nil {
			t.Fatal(err)
		}
		for i, b := range budgets {
			if b < 0 {
				continue
			}
			o := opts
			o.Budget = &budgets[i]
			single := mustRetain(t, res, o)
			if !reflect.DeepEqual(single, sweep[i]) {
				t.Fatalf("trial %d budget %d: sweep differs from a single run:\nsweep  %+v\nsingle %+v", trial, b, sweep[i].Tokens, single.Tokens)
			}
			switch {
			case int(b) >= full.OriginalTokens:
				if single.Status != StatusWithinBudget {
					t.Fatalf("trial %d: budget %d >= cost %d but status %q", trial, b, full.OriginalTokens, single.Status)
				}
			case single.Status == StatusWithinBudget:
				t.Fatalf("trial %d: budget %d < cost %d but within budget", trial, b, full.OriginalTokens)
			}
			checkReplacement(t, res, o, single)
		}
	}
}

// A sweep with budgets in any order, repeated, gives what single runs give.
func TestSweepOrderIndependent(t *testing.T) {
	r := rand.New(rand.NewSource(5))
	res := Result{Content: []Block{textBlock(randomText(r, 60000)), textBlock(randomText(r, 3000))}}
	budgets := []int64{9000, 50, 3000, 12500, 50, 700, 0, 25000}
	opts := Options{SpillPath: testSpill}
	sweep, err := Sweep(res, budgets, opts)
	if err != nil {
		t.Fatal(err)
	}
	for i := range budgets {
		o := opts
		o.Budget = &budgets[i]
		if single := mustRetain(t, res, o); !reflect.DeepEqual(single, sweep[i]) {
			t.Fatalf("budget %d: sweep %+v, single %+v", budgets[i], sweep[i].Tokens, single.Tokens)
		}
	}
}

func TestSweepRejectsBadBudget(t *testing.T) {
	_, err := Sweep(Result{}, []int64{10, 1 << 53}, Options{})
	if err == nil {
		t.Fatal("want an error naming the bad budget")
	}
}

// Retain shares the tokenizer's tables, merge buffers and rune classes across
// goroutines; run it concurrently under the race detector.
func TestRetainConcurrent(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	texts := []string{randomText(r, 30000), randomText(r, 5000), randomText(r, 70000)}
	want := make([]Outcome, len(texts))
	for i, s := range texts {
		want[i] = mustRetain(t, Result{Content: []Block{textBlock(s)}}, Options{Budget: budget(700), SpillPath: testSpill})
	}
	done := make(chan error, 8)
	for g := 0; g < 8; g++ {
		go func(g int) {
			i := g % len(texts)
			got, err := Retain(Result{Content: []Block{textBlock(texts[i])}}, Options{Budget: budget(700), SpillPath: testSpill})
			if err == nil && !reflect.DeepEqual(got, want[i]) {
				err = errors.New("concurrent run differs from a sequential one")
			}
			done <- err
		}(g)
	}
	for g := 0; g < 8; g++ {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
}
