package sessions

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"
)

func TestZZProfSweep(t *testing.T) {
	p := os.Getenv("SWEEP_DB")
	if p == "" {
		t.Skip()
	}
	db, err := Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	raw, _ := os.ReadFile(os.Getenv("SWEEP_BUDGETS"))
	var budgets []int64
	for _, f := range strings.Split(strings.TrimSpace(string(raw)), ",") {
		v, _ := strconv.ParseInt(f, 10, 64)
		budgets = append(budgets, v)
	}
	var st SweepStats
	_, err = db.Sweep(context.Background(), budgets, SweepOptions{Stats: &st})
	if err != nil {
		t.Fatal(err)
	}
	t.Log(st)
}
