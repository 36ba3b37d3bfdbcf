package app_test

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strconv"
	"testing"

	"spillscope/app"
	"spillscope/app/cli"
	"spillscope/retention"
)

// cliCompare runs `spillscope compare` and decodes its output.
func cliCompare(t *testing.T, args ...string) map[string]any {
	t.Helper()
	var out, errb bytes.Buffer
	if code := cli.Run(cli.Env{Stdin: &bytes.Buffer{}, Stdout: &out, Stderr: &errb}, append([]string{"compare"}, args...)); code != 0 {
		t.Fatalf("spillscope compare %v: exit %d: %s", args, code, errb.String())
	}
	var v map[string]any
	if err := json.Unmarshal(out.Bytes(), &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// TestCompareWindowMatchesCLI: on indexed sample results, the window's
// Compare and `spillscope compare --result` give every column the same
// status, figures on both yardsticks, omitted, lost and recoverable parts,
// and parameters; every column shares one yardstick.
func TestCompareWindowMatchesCLI(t *testing.T) {
	s, r, _, _, dataDir := app.NewIndexedApp(t)
	page, err := s.Largest(app.PageQuery{Limit: 6})
	rows := page.Rows
	if err != nil || len(rows) == 0 {
		t.Fatal(rows, err)
	}
	dbPath := filepath.Join(dataDir, "index.db")
	policies := []string{"opencode", "goose", "gemini-cli", "dsh-tokens", "dsh-pruner"}
	slider := int64(1500)
	for _, row := range rows {
		var cols []app.CompareColumnSpec
		for _, p := range policies {
			cols = append(cols, app.CompareColumnSpec{Policy: p})
		}
		cols[0].Params = map[string]string{"direction": "tail"}
		view, err := r.Compare(app.CompareRequest{ResultID: row.ID, Columns: cols, Slider: &slider})
		if err != nil {
			t.Fatal(err)
		}
		got := cliCompare(t, "--result", strconv.FormatInt(row.ID, 10), "--db", dbPath, "--policies", "opencode,goose,gemini-cli,dsh-tokens,dsh-pruner",
			"--param", "opencode.direction=tail", "--budget", "1500")
		if got["yardstick"] != view.Yardstick || got["route"] != view.Route {
			t.Fatalf("CLI %v / %v, window %s / %s", got["yardstick"], got["route"], view.Yardstick, view.Route)
		}
		cc := got["columns"].([]any)
		if len(cc) != len(view.Columns) {
			t.Fatalf("%d CLI columns, %d in the window", len(cc), len(view.Columns))
		}
		for i, w := range view.Columns {
			c := cc[i].(map[string]any)
			num := func(path ...string) int64 {
				var v any = c
				for _, p := range path {
					v = v.(map[string]any)[p]
				}
				return int64(v.(float64))
			}
			if w.Error != "" || c["status"] != w.Status || w.Yardstick.Estimator != view.Yardstick {
				t.Fatalf("result %d %s: CLI %v, window %s (%s) on %s", row.ID, w.Policy, c["status"], w.Status, w.Error, w.Yardstick.Estimator)
			}
			pairs := [][2]int64{
				{num("tokens", "total"), int64(w.Own.Total)}, {num("yardstick", "total"), int64(w.Yardstick.Total)},
				{num("yardstick", "notice"), int64(w.Yardstick.Notice)}, {num("omitted", "bytes"), w.Omitted.Bytes},
				{num("omitted", "lines"), w.Omitted.Lines}, {num("lost", "bytes"), w.Lost.Bytes},
				{num("recoverable", "bytes"), w.Recoverable.Bytes}, {num("originalTokens"), int64(w.OriginalTokens)},
			}
			for k, p := range pairs {
				if p[0] != p[1] {
					t.Fatalf("result %d %s figure %d: CLI %d, window %d", row.ID, w.Policy, k, p[0], p[1])
				}
			}
			for name, v := range w.Params {
				if c["params"].(map[string]any)[name] != v {
					t.Fatalf("%s param %s: CLI %v, window %s", w.Policy, name, c["params"].(map[string]any)[name], v)
				}
			}
			if info, _ := retention.LookupPolicy(w.Policy); info != nil {
				if v, ok := retention.SliderBudget(info.Info(), slider); ok && w.Params[w.BudgetParam] != strconv.FormatInt(v, 10) {
					t.Fatalf("%s: slider %d gave %s=%s, want %d", w.Policy, slider, w.BudgetParam, w.Params[w.BudgetParam], v)
				}
			}
		}
	}
}
