package sessions

import (
	"context"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"spillscope/retention"
)

// enrichedSampleDB is the sample index with every phase run: token counts,
// search terms and sweep summaries.
func enrichedSampleDB(t testing.TB, opts ...EnrichOptions) *DB {
	t.Helper()
	d := sampleDB(t)
	var o EnrichOptions
	if len(opts) > 0 {
		o = opts[0]
	}
	if err := d.Enrich(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	return d
}

// logBudgets are n budgets spread evenly on a log scale over [lo, hi].
func logBudgets(n int, lo, hi float64) []int64 {
	out := make([]int64, n)
	for i := range out {
		out[i] = int64(math.Round(lo * math.Pow(hi/lo, float64(i)/float64(max(n-1, 1)))))
	}
	return out
}

// The property over the sample index: a sweep decided from the summaries
// equals the sweep decided on every result's text, for random budgets, the
// route's estimator and dsh's meter, one series per policy, and cut lists.
func TestSummarisedSweepEqualsText(t *testing.T) {
	t.Run("sample", func(t *testing.T) { checkSummarisedSweep(t, enrichedSampleDB(t)) })
	t.Run("real Claude Code logs", func(t *testing.T) {
		d := openTemp(t)
		index(t, d, filepath.Join(realRoot(t), "claude", "projects"))
		if err := d.Enrich(t.Context(), EnrichOptions{}); err != nil {
			t.Fatal(err)
		}
		checkSummarisedSweep(t, d)
	})
}

func checkSummarisedSweep(t *testing.T, d *DB) {
	ctx := t.Context()
	r := rand.New(rand.NewSource(13))
	budgets := logBudgets(12, 20, 200000)
	for range 8 {
		budgets = append(budgets, int64(r.Intn(60000)))
	}
	type sweepCase struct {
		name string
		opts SweepOptions
	}
	cases := []sweepCase{
		{"route's estimator", SweepOptions{}},
		{"meter", SweepOptions{Estimator: retention.EstimatorMeter}},
		{"another encoding", SweepOptions{Estimator: retention.EncodingCL100k}},
		{"another route", SweepOptions{Route: "openai-tile"}},
	}
	specs := []SweepSpec{{Policy: "dsh-tokens", Budgets: budgets}, {Policy: "dsh-bytes", Budgets: budgets}}
	cut := CutsQuery{Budget: 900, Against: ptr(int64(4000))}
	run := func() (rows [][]SweepRow, series []SweepSeries, cuts CutList, stats []SweepStats) {
		for _, c := range cases {
			var st SweepStats
			o := c.opts
			o.Stats = &st
			got, err := d.Sweep(ctx, budgets, o)
			if err != nil {
				t.Fatal(err)
			}
			rows, stats = append(rows, got), append(stats, st)
		}
		series, err := d.SweepPolicies(ctx, specs, SweepOptions{})
		if err != nil {
			t.Fatal(err)
		}
		cuts, err = d.SweepCuts(ctx, cut, SweepOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return rows, series, cuts, stats
	}
	rows, series, cuts, stats := run()
	if stats[0].Summarised == 0 || stats[1].Summarised == 0 {
		t.Fatalf("no result was decided from its summary: %+v", stats)
	}
	if stats[2].Summarised != 0 || stats[3].Summarised != 0 {
		t.Fatalf("a summary stood for another estimator or route: %+v", stats)
	}
	t.Logf("decided from summaries: %+v", stats)
	if _, err := d.db.ExecContext(ctx, `DELETE FROM result_summaries`); err != nil {
		t.Fatal(err)
	}
	textRows, textSeries, textCuts, textStats := run()
	if textStats[0].Summarised != 0 {
		t.Fatalf("summaries left: %+v", textStats[0])
	}
	for i, c := range cases {
		if !reflect.DeepEqual(rows[i], textRows[i]) {
			t.Fatalf("%s: from summaries\n%+v\non the text\n%+v", c.name, rows[i], textRows[i])
		}
	}
	if !reflect.DeepEqual(series, textSeries) {
		t.Fatalf("series from summaries\n%+v\non the text\n%+v", series, textSeries)
	}
	cuts.Stats, textCuts.Stats = SweepStats{}, SweepStats{}
	if !reflect.DeepEqual(cuts, textCuts) {
		t.Fatalf("cuts from summaries\n%+v\non the text\n%+v", cuts, textCuts)
	}
}

// A cut list is its sweep row, result by result: as many rows as the row
// replaces, its omitted bytes and images, and the rows kept at the other
// budget are the difference of the two rows' counts.
func TestSweepCutsSumToSweep(t *testing.T) {
	d := enrichedSampleDB(t)
	ctx := t.Context()
	for _, b := range []int64{300, 2500, 12500} {
		against := b * 4
		rows, err := d.Sweep(ctx, []int64{b, against}, SweepOptions{})
		if err != nil {
			t.Fatal(err)
		}
		list, err := d.SweepCuts(ctx, CutsQuery{Budget: b, Against: &against}, SweepOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var omitted int64
		images, only := 0, 0
		for _, r := range list.Rows {
			if !r.At.Cut || r.Against == nil || r.TokensBefore <= r.At.TokensAfter {
				t.Fatalf("at %d: row %+v", b, r)
			}
			omitted += r.At.OmittedBytes
			images += r.At.OmittedImages
			if r.Change == CutOnlyHere {
				only++
			}
		}
		if len(list.Rows) != rows[0].Replaced || omitted != rows[0].OmittedBytes || images != rows[0].OmittedImages {
			t.Fatalf("at %d: %d rows, %d bytes, %d images; sweep %+v", b, len(list.Rows), omitted, images, rows[0])
		}
		if list.Only != only || only != rows[0].Replaced-rows[1].Replaced || list.Results != rows[0].Results {
			t.Fatalf("at %d against %d: only %d (%d), sweeps %+v", b, against, list.Only, only, rows)
		}
		if len(list.Rows) > 0 && list.Rows[0].Change != CutOnlyHere && only > 0 {
			t.Fatalf("at %d: the rows the larger budget keeps do not come first", b)
		}
	}
	if _, err := d.SweepCuts(ctx, CutsQuery{Policy: "nope", Budget: 5}, SweepOptions{}); err == nil {
		t.Fatal("an unknown policy listed")
	}
}

// A summary stands for its result only while it describes the content
// indexed now, on its route, in this version; anything else is read back.
func TestStaleSummariesReadBack(t *testing.T) {
	d := enrichedSampleDB(t)
	ctx := t.Context()
	budgets := []int64{500, 5000}
	var st SweepStats
	want, err := d.Sweep(ctx, budgets, SweepOptions{Stats: &st})
	if err != nil {
		t.Fatal(err)
	}
	total := st.Summarised
	for _, tc := range []struct {
		name, sql string
		args      []any
	}{
		{"other content", `UPDATE result_summaries SET content_sig = 'x' WHERE result_id IN (SELECT result_id FROM result_summaries LIMIT 3)`, nil},
		{"other version", `UPDATE result_summaries SET version = version + 1 WHERE result_id IN (SELECT result_id FROM result_summaries WHERE content_sig <> 'x' LIMIT 3)`, nil},
		{"broken bytes", `UPDATE result_summaries SET data = x'0102' WHERE result_id IN (SELECT result_id FROM result_summaries WHERE content_sig <> 'x' AND version = ? LIMIT 3)`, []any{retention.SummaryVersion}},
	} {
		if _, err := d.db.ExecContext(ctx, tc.sql, tc.args...); err != nil {
			t.Fatal(err)
		}
		var st2 SweepStats
		got, err := d.Sweep(ctx, budgets, SweepOptions{Stats: &st2})
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: %+v, want %+v", tc.name, got, want)
		}
		if st2.Summarised >= total {
			t.Fatalf("%s: %d still decided from summaries (of %d)", tc.name, st2.Summarised, total)
		}
		total = st2.Summarised
	}
	// The next enrichment summarises the changed content and version
	// again; bytes broken in place stay read back (nothing marks them).
	if err := d.Summarise(ctx, EnrichOptions{}); err != nil {
		t.Fatal(err)
	}
	var st3 SweepStats
	if _, err := d.Sweep(ctx, budgets, SweepOptions{Stats: &st3}); err != nil || st3.Summarised != st.Summarised-3 {
		t.Fatalf("after summarising again: %+v (%v), want %d", st3, err, st.Summarised-3)
	}
}

// BenchmarkSweepSummaries is a 40-budget sweep of the whole sample index
// (budgets log-spaced from 1,000 to 100,000) decided from the summaries,
// against the same sweep with every result read back from its source.
func BenchmarkSweepSummaries(b *testing.B) {
	budgets := logBudgets(40, 1000, 100000)
	for _, c := range []struct {
		name string
		opts EnrichOptions
	}{{"summaries", EnrichOptions{}}, {"text", EnrichOptions{SkipSummaries: true}}} {
		d := enrichedSampleDB(b, c.opts)
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := d.Sweep(b.Context(), budgets, SweepOptions{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkSweepIndexAt is the same 40-budget sweep (100 to 100,000) over
// the index at $SPILLSCOPE_SWEEP_DB, e.g. the 1 GB benchmark corpus's
// (spillscope sample --bench-bytes 1GB, then spillscope index), opened as
// it is; it reports how many results were read back.
func BenchmarkSweepIndexAt(b *testing.B) {
	path := os.Getenv("SPILLSCOPE_SWEEP_DB")
	if path == "" {
		b.Skip("SPILLSCOPE_SWEEP_DB names no index")
	}
	d, err := Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer d.Close()
	budgets := logBudgets(40, 100, 100000)
	var st SweepStats
	b.ReportAllocs()
	for b.Loop() {
		if _, err := d.Sweep(b.Context(), budgets, SweepOptions{Stats: &st}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(st.Results-st.Summarised), "readback")
}

// A pass limited to some sessions (a watcher's) summarises their results
// alone; an empty list summarises nothing, and a whole pass the rest.
func TestSummariseOnlySessions(t *testing.T) {
	d := enrichedSampleDB(t, EnrichOptions{SkipSummaries: true})
	ctx := t.Context()
	perSession := func() map[int64]int {
		rows, err := d.db.QueryContext(ctx, `SELECT r.session_id, count(*) FROM result_summaries m JOIN tool_results r ON r.id = m.result_id GROUP BY r.session_id`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		out := map[int64]int{}
		for rows.Next() {
			var id int64
			var n int
			if err := rows.Scan(&id, &n); err != nil {
				t.Fatal(err)
			}
			out[id] = n
		}
		return out
	}
	var id int64
	var counted int
	if err := d.db.QueryRowContext(ctx, `SELECT session_id, count(*) FROM tool_results WHERE est_tokens IS NOT NULL GROUP BY session_id ORDER BY count(*) DESC LIMIT 1`).Scan(&id, &counted); err != nil {
		t.Fatal(err)
	}
	if err := d.Summarise(ctx, EnrichOptions{Sessions: []int64{}}); err != nil || len(perSession()) != 0 {
		t.Fatalf("an empty list summarised %v (%v)", perSession(), err)
	}
	if err := d.Summarise(ctx, EnrichOptions{Sessions: []int64{id}}); err != nil {
		t.Fatal(err)
	}
	if got := perSession(); len(got) != 1 || got[id] != counted {
		t.Fatalf("session %d (%d counted results): summarised %v", id, counted, got)
	}
	if err := d.Summarise(ctx, EnrichOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := perSession(); len(got) < 2 || got[id] != counted {
		t.Fatalf("a whole pass: %v", got)
	}
}
