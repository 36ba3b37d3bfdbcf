package retention

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// dshSnapshot reads one of dsh's own snapshot logs: every event as raw JSON.
func dshSnapshot(t *testing.T, rel string) []map[string]json.RawMessage {
	t.Helper()
	f, err := os.Open(filepath.Join(realFixtures(t), "dsh", "snapshots", rel, "session.jsonl"))
	if err != nil {
		t.Skipf("snapshot %s: %v", rel, err)
	}
	defer f.Close()
	var out []map[string]json.RawMessage
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var ev map[string]json.RawMessage
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			t.Fatal(err)
		}
		out = append(out, ev)
	}
	return out
}

// The snapshot acp-agent/bash-spill ran bash with a spill cap of 800 bytes.
// The log holds what the model saw; the tool's full output is stated by the
// log's own tool/call (a node one-liner printing a prefix, a repeated
// character and a suffix), so the test rebuilds it from there.
func TestReplayBashSpillSnapshot(t *testing.T) {
	events := dshSnapshot(t, "acp-agent/bash-spill")
	var command string
	var recorded []Block
	for _, ev := range events {
		var typ string
		json.Unmarshal(ev["type"], &typ)
		switch typ {
		case "tool/call":
			var d struct{ Arguments string }
			json.Unmarshal(ev["data"], &d)
			var args struct{ Command string }
			json.Unmarshal([]byte(d.Arguments), &args)
			command = args.Command
		case "tool/result":
			var d struct {
				Message struct {
					Content []struct {
						Content json.RawMessage `json:"content"`
					} `json:"content"`
				} `json:"message"`
			}
			json.Unmarshal(ev["data"], &d)
			res, err := ParseResult(d.Message.Content[0].Content)
			if err != nil {
				t.Fatal(err)
			}
			recorded = res.Content
		}
	}
	m := regexp.MustCompile(`'([^']*)' \+ '(.)'\.repeat\((\d+)\) \+ '([^']*)'`).FindStringSubmatch(command)
	if m == nil || len(recorded) != 1 {
		t.Fatalf("command %q, %d recorded blocks", command, len(recorded))
	}
	n, _ := strconv.Atoi(m[3])
	full := m[1] + strings.Repeat(m[2], n) + m[4]
	if len(full) != 2022 {
		t.Fatalf("rebuilt output is %d bytes, the snapshot's notes say 2,022", len(full))
	}
	original := Result{Content: []Block{textBlock(full)}}

	t.Run("at the recorded cap", func(t *testing.T) {
		cap := int64(800)
		rep, err := Replay(ReplayInput{Recorded: recorded, Original: original, Policy: "dsh-bytes", Budget: &cap})
		if err != nil {
			t.Fatal(err)
		}
		if !rep.Reproduced || rep.Difference != nil || rep.BudgetSource != BudgetGiven {
			t.Fatalf("not reproduced: %+v", rep.Difference)
		}
		if !strings.Contains(rep.Outcome.Notice, "(Omitted 1417 bytes. ") || rep.Outcome.OmittedBytes != 1417 {
			t.Errorf("notice %q", rep.Outcome.Notice)
		}
	})
	t.Run("with the budget unknown", func(t *testing.T) {
		rep, err := Replay(ReplayInput{Recorded: recorded, Original: original, Policy: "dsh-bytes"})
		if err != nil {
			t.Fatal(err)
		}
		if !rep.Reproduced || rep.BudgetSource != BudgetRange || rep.Range == nil || rep.Range.Min > 800 || rep.Range.Max < 800 {
			t.Fatalf("report %+v", rep)
		}
		// The range is exact: one byte less or more changes the cut.
		for _, b := range []int64{rep.Range.Min - 1, rep.Range.Max + 1} {
			rep2, err := Replay(ReplayInput{Recorded: recorded, Original: original, Policy: "dsh-bytes", Budget: &b})
			if err != nil || rep2.Reproduced {
				t.Errorf("budget %d outside %+v also reproduces", b, *rep.Range)
			}
		}
		t.Logf("bash-spill reproduces for maxInlineBytes %d..%d", rep.Range.Min, rep.Range.Max)
	})
	t.Run("the token era does not read it", func(t *testing.T) {
		rep, err := Replay(ReplayInput{Recorded: recorded, Original: original, Policy: "dsh-tokens"})
		if err != nil {
			t.Fatal(err)
		}
		if rep.Reproduced {
			t.Fatalf("dsh-tokens reproduced a byte-era record at %d", rep.Budget)
		}
	})
}

// blocksJSON is content as a log would hold it, and back.
func roundTrip(t *testing.T, blocks []Block) []Block {
	t.Helper()
	var raws []json.RawMessage
	for _, b := range blocks {
		var v any
		if b.Type == TypeText {
			v = map[string]string{"type": b.Type, "text": b.Text}
		} else {
			v = map[string]string{"type": b.Type, "mimeType": b.MimeType, "path": b.Path}
		}
		raw, _ := json.Marshal(v)
		raws = append(raws, raw)
	}
	data, _ := json.Marshal(raws)
	res, err := ParseResult(data)
	if err != nil {
		t.Fatal(err)
	}
	return res.Content
}

// Generate with dsh-tokens, read the record back, replay: identical.
func TestReplayTokenEraRoundTrip(t *testing.T) {
	dir := t.TempDir()
	original := Result{Content: []Block{
		textBlock(strings.Repeat("log line 42 ok\n", 4000)), writePNG(t, dir, 640, 480),
		textBlock(strings.Repeat("trace 😀 é\n", 700)), writePNG(t, dir, 1920, 1080), textBlock("exit 0"),
	}}
	locator := DshSpillLocator("/tmp/dsh-spill-Ab12Cd", "session-1", "0123456789ab", "inspect")
	for _, tc := range []struct {
		name   string
		budget int64
		route  string
		source string
	}{
		{"shipped default", DshTokensDefault, "deepseek-v4.1", BudgetDefault},
		{"other budget on v4", 2300, "deepseek-v4", BudgetRange},
		{"notice only", 75, "deepseek-v4.1", BudgetRange},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := tc.budget
			rec := mustRetain(t, original, Options{Budget: &b, Route: tc.route, Estimator: EstimatorMeter, SpillPath: locator})
			if rec.Status != StatusReplaced && rec.Status != StatusNoticeOnly {
				t.Fatalf("status %s", rec.Status)
			}
			rep, err := Replay(ReplayInput{Recorded: roundTrip(t, rec.Content), Original: original, Route: tc.route})
			if err != nil {
				t.Fatal(err)
			}
			if !rep.Reproduced || rep.BudgetSource != tc.source {
				t.Fatalf("not reproduced (%s): %+v", rep.BudgetSource, rep.Difference)
			}
			if tc.source == BudgetRange && (rep.Range.Min > b || rep.Range.Max < b) {
				t.Errorf("range %+v misses %d", *rep.Range, b)
			}
			if rep.Outcome.Notice != rec.Notice || rep.Outcome.Recovery.Locator != locator {
				t.Errorf("notice %q, want %q", rep.Outcome.Notice, rec.Notice)
			}
		})
	}
}

func TestReplayFirstDifference(t *testing.T) {
	original := Result{Content: []Block{textBlock(strings.Repeat("abcdefghij", 1000))}}
	b := int64(300)
	rec := mustRetain(t, original, Options{Budget: &b, Estimator: EstimatorMeter, SpillPath: "/spill/x.txt"})
	tampered := roundTrip(t, rec.Content)
	at := strings.Index(tampered[0].Text, "[...]") + 20
	tampered[0].Text = tampered[0].Text[:at] + "Z" + tampered[0].Text[at+1:]
	rep, err := Replay(ReplayInput{Recorded: tampered, Original: original, Budget: &b})
	if err != nil {
		t.Fatal(err)
	}
	d := rep.Difference
	if rep.Reproduced || d == nil || d.Block != 0 || d.Offset != int64(at) || !strings.HasPrefix(d.Recorded, "Z") || strings.HasPrefix(d.Replayed, "Z") {
		t.Fatalf("difference %+v", d)
	}
	if d := CompareContent(rec.Content, rec.Content[:0]); d == nil || d.Reason != "the record has more blocks than the replay" {
		t.Errorf("missing block: %+v", d)
	}
}
