package sessions

import (
	"path/filepath"
	"strings"
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
}

// TestSweepPoliciesPointError: a point whose parameters cannot hold (dsh-
// pruner's head and tail no longer fit its threshold low on the slider, or
// a parameter no budget makes valid) carries the error and no figures, as
// Compare's column does; the series' other points and the other series go
// on as they would alone.
func TestSweepPoliciesPointError(t *testing.T) {
	d := sampleDB(t)
	specs := []SweepSpec{
		{Policy: "dsh-pruner", Budgets: []int64{1000, 8192}},
		{Policy: "dsh-tokens", Budgets: []int64{1000, 8192}},
		{Policy: "goose", Budgets: []int64{5}, Params: retention.Params{"era": "x"}},
	}
	series, err := d.SweepPolicies(t.Context(), specs, SweepOptions{Estimator: retention.EncodingO200k})
	if err != nil {
		t.Fatal(err)
	}
	alone, err := d.SweepPolicies(t.Context(), []SweepSpec{{Policy: "dsh-pruner", Budgets: []int64{8192}}, specs[1]}, SweepOptions{Estimator: retention.EncodingO200k})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		row    SeriesRow
		want   SeriesRow // zero Error: the figures must equal these
		errHas string
	}{
		{"dsh-pruner below its head and tail", series[0].Rows[0], SeriesRow{}, "thresholdChars"},
		{"dsh-pruner at its default", series[0].Rows[1], alone[0].Rows[0], ""},
		{"dsh-tokens low", series[1].Rows[0], alone[1].Rows[0], ""},
		{"dsh-tokens at 8192", series[1].Rows[1], alone[1].Rows[1], ""},
		{"goose with a bad era", series[2].Rows[0], SeriesRow{}, "era"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.errHas == "" {
				if tt.row != tt.want || tt.row.Results == 0 {
					t.Fatalf("got %+v, alone %+v", tt.row, tt.want)
				}
				return
			}
			if !strings.Contains(tt.row.Error, tt.errHas) || tt.row.Results != 0 || tt.row.InlineTokens != 0 || tt.row.YardstickTokens != 0 {
				t.Fatalf("point %+v: want an error naming %s and no figures", tt.row, tt.errHas)
			}
		})
	}
	if series[0].Rows[0].Budget != 1000 {
		t.Errorf("the failing point lost its budget: %+v", series[0].Rows[0])
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
