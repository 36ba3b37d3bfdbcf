package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"spillscope/sessions"
	"spillscope/sessions/samplegen"
)

// replayCmd runs `retain --result ID --replay` and decodes its JSON.
func replayCmd(t *testing.T, env Env, out *bytes.Buffer, args ...string) (int, map[string]json.RawMessage, replayOutput) {
	t.Helper()
	out.Reset()
	code := Run(env, append([]string{"retain"}, args...))
	var raw map[string]json.RawMessage
	var o replayOutput
	if code == exitOK {
		if err := json.Unmarshal(out.Bytes(), &raw); err != nil {
			t.Fatalf("stdout is not one JSON object: %v\n%s", err, out.String())
		}
		json.Unmarshal(out.Bytes(), &o)
	}
	return code, raw, o
}

// TestRetainReplay: on the indexed sample, `retain --result ID --replay`
// says each dsh result reproduces (the shipped default where it was cut at
// it, else the budget range), that another budget does not and where it
// first differs, and why a result without its spill file cannot replay.
func TestRetainReplay(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "corpus")
	if _, err := samplegen.Generate(dir, samplegen.Options{Seed: 11}); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(t.TempDir(), "index.db")
	env, out, errb := envFor(t, nil)
	runIndexJSON(t, env, out, "--db", db, "--structure-only", dir)
	d, err := sessions.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := d.Results(context.Background(), sessions.ResultFilter{})
	d.Close()
	if err != nil {
		t.Fatal(err)
	}
	byTool := map[string]sessions.ResultRow{}
	for _, r := range rows {
		if r.Harness == sessions.HarnessDsh && r.Spill != nil {
			byTool[r.ToolName+" "+r.Spill.Kind+" "+r.SpillState] = r
		}
	}
	id := func(k string) string {
		r, ok := byTool[k]
		if !ok {
			t.Fatalf("no %s in %v", k, byTool)
		}
		return strconv.FormatInt(r.ID, 10)
	}
	t.Run("the shipped default", func(t *testing.T) {
		code, raw, o := replayCmd(t, env, out, "--result", id("bash dsh-tokens exists"), "--replay", "--db", db)
		if code != exitOK || !o.Reproduced || o.BudgetSource != "default" || *o.Budget != 12500 || o.BudgetUnit != "tokens" ||
			o.Estimator != "dsh-meter" || o.Route != "deepseek-v4" || o.Difference != nil {
			t.Fatalf("exit %d %+v (%s)", code, o, errb.String())
		}
		for _, k := range []string{"reproduced", "budget", "budgetRange", "difference", "budgetSource"} {
			if _, ok := raw[k]; !ok {
				t.Errorf("output lacks %q: %s", k, out.String())
			}
		}
	})
	t.Run("a budget range", func(t *testing.T) {
		_, _, o := replayCmd(t, env, out, "--result", id("grep dsh-bytes exists"), "--replay", "--db", db)
		if !o.Reproduced || o.BudgetSource != "range" || o.BudgetRange == nil || o.BudgetRange.Min > 8000 || o.BudgetRange.Max < 8000 || o.BudgetUnit != "bytes" {
			t.Fatalf("%+v", o)
		}
	})
	t.Run("another budget differs", func(t *testing.T) {
		_, _, o := replayCmd(t, env, out, "--result", id("grep dsh-bytes exists"), "--replay", "--budget", "7000", "--db", db)
		if o.Reproduced || o.BudgetSource != "given" || o.Difference == nil || o.Difference.Reason == "" {
			t.Fatalf("%+v", o)
		}
	})
	t.Run("a swept spill file", func(t *testing.T) {
		_, _, o := replayCmd(t, env, out, "--result", id("bash dsh-bytes missing"), "--replay", "--db", db)
		if o.Replayable || o.Reproduced || !strings.Contains(o.Reason, "missing") || o.SpillState != "missing" {
			t.Fatalf("%+v", o)
		}
	})
	t.Run("usage errors", func(t *testing.T) {
		for _, args := range [][]string{{"--replay"}, {"--replay", "--result", "x"}, {"--replay", "--result", "3", "--budget", "-1"}} {
			errb.Reset()
			if code := Run(env, append([]string{"retain"}, append(args, "--db", db)...)); code != exitUsage || errb.Len() == 0 {
				t.Errorf("%v: exit %d, stderr %q", args, code, errb.String())
			}
		}
		if code := Run(env, []string{"retain", "--replay", "--result", "999999", "--db", db}); code != exitFail {
			t.Errorf("an unknown id exits %d", code)
		}
		out.Reset()
		if code := Run(env, []string{"retain", "--replay", "-h"}); code != exitOK || !strings.Contains(out.String(), "reproduced") {
			t.Errorf("help: %d %q", code, out.String())
		}
	})
}
