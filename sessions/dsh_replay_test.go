package sessions

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"spillscope/retention"
	"spillscope/sessions/samplegen"
)

// TestDshSampleReplays: the sample's dsh sessions are written by the
// retention package's own dsh policies; indexed and replayed as recorded,
// every result whose spill file exists reproduces its record byte for
// byte, in both eras, text only and with images (kept and omitted): at the
// shipped default where it was cut at the default, else over the range of
// budgets that contains the one it was cut at. A swept file and a notice
// into another session's folder say why they cannot be replayed.
func TestDshSampleReplays(t *testing.T) {
	for _, seed := range []int64{1, 7, 42} {
		t.Run("seed "+strconv.FormatInt(seed, 10), func(t *testing.T) { sampleReplays(t, seed) })
	}
}

func sampleReplays(t *testing.T, seed int64) {
	dir := filepath.Join(t.TempDir(), "corpus")
	if _, err := samplegen.Generate(dir, samplegen.Options{Seed: seed}); err != nil {
		t.Fatal(err)
	}
	d := openTemp(t)
	index(t, d, dir)
	rows, err := d.Results(t.Context(), ResultFilter{})
	if err != nil {
		t.Fatal(err)
	}
	// The budgets the generator cut at, by tool and era.
	cut := map[string]int64{"bash dsh-bytes": 50000, "grep dsh-bytes": 8000, "bash dsh-tokens": retention.DshTokensDefault,
		"inspect_page dsh-tokens": 4000, "grep dsh-tokens": 2000}
	replayed := map[string]bool{}
	var omittedImages, keptImages int
	for _, r := range rows {
		if r.Harness != HarnessDsh || r.Spill == nil {
			continue
		}
		key := r.ToolName + " " + r.Spill.Kind
		rep, err := d.Replay(t.Context(), r.ID, ReplayOptions{Roots: []string{dir}})
		if err != nil {
			t.Fatal(err)
		}
		t.Run(key+" "+r.SpillState, func(t *testing.T) {
			if r.SpillState != FileExists {
				if rep.Replayable || rep.Reason == "" || !strings.Contains(rep.Reason, "spill file") {
					t.Errorf("%s file: %+v", r.SpillState, rep)
				}
				return
			}
			got := rep.Report
			if !rep.Replayable || !got.Reproduced || got.Difference != nil || rep.Policy != r.Spill.Kind {
				t.Fatalf("not reproduced: %+v", rep)
			}
			want, ok := cut[key]
			if !ok {
				t.Fatalf("unexpected spilled result %s", key)
			}
			switch {
			case got.BudgetSource == retention.BudgetDefault:
				if got.Budget != want {
					t.Errorf("reproduced at the default %d, cut at %d", got.Budget, want)
				}
			case got.BudgetSource == retention.BudgetRange:
				if got.Range == nil || got.Range.Min > want || got.Range.Max < want {
					t.Errorf("range %+v misses %d", got.Range, want)
				}
			default:
				t.Errorf("budget source %q", got.BudgetSource)
			}
			if !strings.HasSuffix(got.Outcome.Notice, retention.LocalSpillHint+")") || got.Outcome.Recovery.Locator != r.Spill.Path {
				t.Errorf("notice %q names %q", got.Outcome.Notice, got.Outcome.Recovery.Locator)
			}
			omittedImages += got.Outcome.OmittedImages
			for _, b := range got.Outcome.Content {
				if b.Type == retention.TypeImage {
					keptImages++
				}
			}
			replayed[key] = true
		})
	}
	if len(replayed) != len(cut) || omittedImages == 0 || keptImages == 0 {
		t.Errorf("replayed %v, %d images omitted and %d kept", replayed, omittedImages, keptImages)
	}
}

// TestDshBashSpillSnapshot: dsh's own snapshot acp-agent/bash-spill ran
// bash with maxInlineBytes 800. Through the index (the record as read
// back, its notice's era and locator, dsh's meter) dsh-bytes reproduces it
// and its "Omitted 1417 bytes" exactly, at 800 and over the range found
// without a budget. The snapshot folder holds no spill file, so the full
// output is rebuilt from the log's own tool/call (a node one-liner printing
// a prefix, a repeated character and a suffix).
func TestDshBashSpillSnapshot(t *testing.T) {
	root := filepath.Join(realRoot(t), "dsh", "snapshots", "acp-agent", "bash-spill")
	f, err := os.Open(filepath.Join(root, "session.jsonl"))
	if err != nil {
		t.Skip(err)
	}
	defer f.Close()
	var command string
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var ev struct {
			Type string
			Data struct{ Arguments string }
		}
		if json.Unmarshal(sc.Bytes(), &ev) == nil && ev.Type == "tool/call" {
			var args struct{ Command string }
			json.Unmarshal([]byte(ev.Data.Arguments), &args)
			command = args.Command
		}
	}
	m := regexp.MustCompile(`'([^']*)' \+ '(.)'\.repeat\((\d+)\) \+ '([^']*)'`).FindStringSubmatch(command)
	if m == nil {
		t.Fatalf("command %q", command)
	}
	n, _ := strconv.Atoi(m[3])
	full := retention.Result{Content: []retention.Block{{Type: retention.TypeText, Text: m[1] + strings.Repeat(m[2], n) + m[4]}}}

	d := openTemp(t)
	index(t, d, root)
	rows, _ := d.Results(t.Context(), ResultFilter{})
	var row *ResultRow
	for i := range rows {
		if rows[i].Spill != nil {
			row = &rows[i]
		}
	}
	if row == nil || row.Spill.Kind != "dsh-bytes" || row.ToolName != "bash" {
		t.Fatalf("no byte-era notice indexed: %+v", rows)
	}
	for _, tc := range []struct {
		name   string
		budget *int64
	}{{"at the recorded cap", ptr(int64(800))}, {"with the budget unknown", nil}} {
		t.Run(tc.name, func(t *testing.T) {
			rep, err := d.Replay(t.Context(), row.ID, ReplayOptions{Original: &full, Budget: tc.budget})
			if err != nil {
				t.Fatal(err)
			}
			got := rep.Report
			if !got.Reproduced || got.Difference != nil || rep.Policy != "dsh-bytes" || got.Outcome.OmittedBytes != 1417 ||
				!strings.HasPrefix(got.Outcome.Notice, "(Omitted 1417 bytes. Full formatted result stored at: "+row.Spill.Path+". ") {
				t.Fatalf("%+v", rep)
			}
			if tc.budget == nil && (got.BudgetSource != retention.BudgetRange || got.Range.Min > 800 || got.Range.Max < 800) {
				t.Errorf("range %+v (%s)", got.Range, got.BudgetSource)
			}
		})
	}
	t.Run("the recorded spill file is not there", func(t *testing.T) {
		rep, err := d.Replay(t.Context(), row.ID, ReplayOptions{})
		if err != nil || rep.Replayable || rep.SpillState != FileOtherSession {
			t.Errorf("%+v %v", rep, err)
		}
	})
}

// TestReplayNeedsANotice: a result its harness did not cut has nothing
// to replay, and a harness that records no decision says so.
func TestReplayNeedsANotice(t *testing.T) {
	root := t.TempDir()
	f := newDshFile(t, filepath.Join(root, "sessions", "--w--", "s", "session.jsonl"), dshHeader("s", 0), false)
	f.call("c1", "bash", txt("small"))
	f.flush()
	writeFile(t, filepath.Join(root, "p", "c.jsonl"), cResult("cs", "toolu_1", "claude output"))
	d := openTemp(t)
	index(t, d, root)
	rows, _ := d.Results(t.Context(), ResultFilter{})
	if len(rows) != 2 {
		t.Fatalf("%+v", rows)
	}
	for _, r := range rows {
		rep, err := d.Replay(t.Context(), r.ID, ReplayOptions{})
		if err != nil || rep.Replayable || rep.Reason == "" {
			t.Errorf("%s: %+v %v", r.Harness, rep, err)
		}
	}
}
