package sessions

import (
	"path/filepath"
	"testing"

	"spillscope/retention"
	"spillscope/sessions/samplegen"
)

// sampleDB indexes the generated sample corpus into a temporary index.
func sampleDB(t testing.TB) *DB {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "corpus")
	if _, err := samplegen.Generate(dir, samplegen.Options{Seed: 7}); err != nil {
		t.Fatal(err)
	}
	d := openTemp(t)
	index(t, d, dir)
	return d
}

// TestSweepPoliciesMatchesSweep: each series of a multi-policy sweep is,
// on the policy's own estimator, exactly the single-policy sweep; its
// yardstick figures are every outcome priced by retention.Price.
func TestSweepPoliciesMatchesSweep(t *testing.T) {
	d := sampleDB(t)
	var specs []SweepSpec
	for _, p := range retention.Policies() {
		spec := SweepSpec{Policy: p.Name}
		for _, tokens := range []int64{1500, 3000, 30000} {
			v, _ := retention.SliderBudget(p, tokens)
			spec.Budgets = append(spec.Budgets, v)
		}
		specs = append(specs, spec)
	}
	series, err := d.SweepPolicies(t.Context(), specs, SweepOptions{Estimator: retention.EncodingO200k})
	if err != nil {
		t.Fatal(err)
	}
	for i, sp := range specs {
		info := retention.Policies()[i]
		single, err := d.Sweep(t.Context(), sp.Budgets, SweepOptions{Policy: sp.Policy, Estimator: info.Estimator})
		if err != nil {
			t.Fatal(err)
		}
		s := series[i]
		if s.Policy != sp.Policy || s.Estimator != info.Estimator || s.Yardstick != retention.EncodingO200k {
			t.Fatalf("series %d: %s on %s / %s", i, s.Policy, s.Estimator, s.Yardstick)
		}
		for j := range sp.Budgets {
			if s.Rows[j].SweepRow != single[j] {
				t.Fatalf("%s at %d: series %+v, single sweep %+v", sp.Policy, sp.Budgets[j], s.Rows[j].SweepRow, single[j])
			}
			if s.Rows[j].YardstickTokens <= 0 || s.Rows[j].LostBytes > s.Rows[j].OmittedBytes {
				t.Fatalf("%s at %d: %+v", sp.Policy, sp.Budgets[j], s.Rows[j])
			}
		}
		if info.Recoverable == retention.RecoverNone && s.Rows[0].OmittedBytes > 0 && s.Rows[0].LostBytes != s.Rows[0].OmittedBytes {
			t.Fatalf("%s keeps nothing, yet lost %d of %d", sp.Policy, s.Rows[0].LostBytes, s.Rows[0].OmittedBytes)
		}
	}
	if _, err := d.SweepPolicies(t.Context(), []SweepSpec{{Policy: "goose", Budgets: []int64{5}, Params: retention.Params{"era": "x"}}}, SweepOptions{}); err == nil {
		t.Fatal("a bad parameter swept")
	}
}

// BenchmarkSweepPolicies is every registered policy (six without Codex's
// and Claude Code's) over the whole sample index at five slider positions,
// each outcome priced on the o200k_base yardstick.
func BenchmarkSweepPolicies(b *testing.B) {
	d := sampleDB(b)
	var specs []SweepSpec
	for _, p := range retention.Policies() {
		spec := SweepSpec{Policy: p.Name}
		for _, tokens := range []int64{2000, 5000, 12500, 25000, 50000} {
			v, _ := retention.SliderBudget(p, tokens)
			spec.Budgets = append(spec.Budgets, v)
		}
		specs = append(specs, spec)
	}
	rows, _ := d.Results(b.Context(), ResultFilter{})
	b.Logf("%d policies over %d results", len(specs), len(rows))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := d.SweepPolicies(b.Context(), specs, SweepOptions{Estimator: retention.EncodingO200k}); err != nil {
			b.Fatal(err)
		}
	}
}
