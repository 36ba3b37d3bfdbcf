package retention

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// codexRecord is one tool output of a Codex rollout: a function_call_output
// string or an exec_command_end's aggregated_output.
type codexRecord struct {
	file, kind, callID, text string
	// policy is the turn's truncation_policy when the rollout records one.
	policy *CodexTruncation
}

func codexRecords(t *testing.T, path string) []codexRecord {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []codexRecord
	var policy *CodexTruncation
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for line := 1; sc.Scan(); line++ {
		var rec struct {
			Type    string `json:"type"`
			Payload struct {
				Type             string          `json:"type"`
				CallID           string          `json:"call_id"`
				Output           json.RawMessage `json:"output"`
				AggregatedOutput *string         `json:"aggregated_output"`
				Truncation       *struct {
					Mode  string `json:"mode"`
					Limit int64  `json:"limit"`
				} `json:"truncation_policy"`
			} `json:"payload"`
		}
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatalf("%s:%d: %v", path, line, err)
		}
		p := rec.Payload
		switch {
		case rec.Type == "turn_context":
			policy = nil
			if p.Truncation != nil {
				policy = &CodexTruncation{Tokens: p.Truncation.Mode == "tokens", Limit: p.Truncation.Limit}
			}
		case p.Type == "function_call_output":
			var s string
			if json.Unmarshal(p.Output, &s) == nil {
				out = append(out, codexRecord{path, p.Type, p.CallID, s, policy})
			}
		case p.Type == "exec_command_end" && p.AggregatedOutput != nil:
			out = append(out, codexRecord{path, p.Type, p.CallID, *p.AggregatedOutput, policy})
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// codexReplayOriginal builds an original that Codex's exec_command tool, at
// Tokens(limit), would cut to the recorded head and tail: the recorded ends
// around a middle of ASCII that brings the original to 4N bytes (N the
// recorded original token count, so ceil(bytes/4) = N) and L lines (the
// recorded line count). The middle itself is lost; everything the policy
// writes (header, cut points, marker count) is then checked byte for byte.
func codexReplayOriginal(t *testing.T, head, tail string, tokens, lines int64) string {
	t.Helper()
	size := 4 * tokens
	m := size - int64(len(head)) - int64(len(tail))
	k := lines - int64(strings.Count(head, "\n")) - int64(strings.Count(tail, "\n"))
	if !strings.HasSuffix(tail, "\n") {
		k--
	}
	if m < 0 || k < 0 || k > m {
		t.Fatalf("no original of %d bytes and %d lines has these ends (%d and %d bytes)", size, lines, len(head), len(tail))
	}
	return head + strings.Repeat("\n", int(k)) + strings.Repeat("x", int(m-k)) + tail
}

// TestCodexRealTruncations: every Codex output of the shared fixtures that
// carries Codex's header is recognised with its recorded figures, and the
// codex policy reproduces it from an original of the recorded size and line
// count. None of these rollouts keeps a complete original: 0.142.5 writes
// no exec_command_end, and 0.125's exec_command_end aggregated_output is
// itself cut (checked below), so the lost middle is rebuilt as filler.
//
// Redaction: the publishers replaced secrets and high-entropy strings with
// REDACTED after Codex had cut the output, so an end holding REDACTED is
// shorter than Codex left it. Those ends are checked for exactly that (the
// shortfall coincides with REDACTED) and are not replayed.
func TestCodexRealTruncations(t *testing.T) {
	root := realFixtures(t)
	files, _ := filepath.Glob(filepath.Join(root, "codex", "sessions", "*", "*", "*", "*.jsonl"))
	if len(files) == 0 {
		t.Fatal("no Codex rollouts under the fixtures")
	}
	var warned, legacy, replayed, redacted int
	perFile := map[string]int{}
	for _, path := range files {
		for _, r := range codexRecords(t, path) {
			n, ok := RecogniseCodexTruncation(r.text)
			if !ok || n.HeaderStart < 0 {
				continue
			}
			name := filepath.Base(path) + " " + r.callID
			if r.kind != "function_call_output" || n.ExecOriginalTokens < 0 {
				t.Fatalf("%s: a header outside an exec_command output", name)
			}
			if n.Warning {
				warned++
				perFile[filepath.Base(filepath.Dir(path))]++
				if n.OriginalTokens != n.ExecOriginalTokens {
					t.Errorf("%s: header counts %d tokens, the exec wrapper %d", name, n.OriginalTokens, n.ExecOriginalTokens)
				}
			} else {
				legacy++
			}
			if len(n.Markers) != 1 || n.Markers[0].Unit != "tokens" {
				t.Fatalf("%s: markers %+v", name, n.Markers)
			}
			p := tokensPolicy(10000)
			if r.policy != nil {
				p = *r.policy
			}
			mk := n.Markers[0]
			if want := n.ExecOriginalTokens - p.Limit; mk.Count != want {
				t.Errorf("%s: marker counts %d tokens, %s of %d tokens leaves %d", name, mk.Count, p, n.ExecOriginalTokens, want)
			}
			head, tail := r.text[n.HeaderEnd:mk.Start], r.text[mk.End:]
			half := p.ByteBudget() / 2
			short := false
			for _, end := range []string{head, tail} {
				switch {
				case int64(len(end)) > half:
					t.Errorf("%s: an end of %d bytes, over half the budget (%d)", name, len(end), half)
				case int64(len(end)) < half-3:
					short = true
					if !strings.Contains(end, "REDACTED") {
						t.Errorf("%s: an end of %d bytes, more than a character short of %d, with no redaction to explain it", name, len(end), half)
					}
				}
			}
			if short {
				redacted++
				continue
			}
			orig := codexReplayOriginal(t, head, tail, n.ExecOriginalTokens, n.Lines)
			limit := itoa(int(p.Limit))
			mode := "bytes"
			if p.Tokens {
				mode = "tokens"
			}
			o := mustRetain(t, Result{Content: []Block{textBlock(orig)}}, Options{Policy: "codex", Estimator: EstimatorBytes4,
				Budget: budget(p.Limit), Params: Params{"mode": mode}})
			want := r.text[n.HeaderStart:]
			got := o.Content[0].Text
			if !n.Warning {
				// 0.125 predates the Warning line; the rest is the same.
				got = got[strings.Index(got, "\n")+1:]
			}
			if o.Status != StatusReplaced || got != want {
				t.Errorf("%s at %s(%s): not reproduced; first difference %+v", name, mode, limit, CompareContent([]Block{textBlock(want)}, []Block{textBlock(got)}))
			}
			replayed++
		}
	}
	t.Logf("headers: %d with the Warning line, %d without; %d replayed, %d with a redacted end", warned, legacy, replayed, redacted)
	if got := perFile["06"]; got != 13 {
		t.Errorf("the 0.142.5 rollout has %d outputs with the Warning header, want 13", got)
	}
	if replayed == 0 {
		t.Error("nothing replayed")
	}
}

// TestCodexRealExecEnds: 0.125's exec_command_end events keep a cut
// aggregated_output, a Bytes(10000) middle cut with a chars marker (5,000
// bytes each side), so they are not originals. Each is recognised, and the
// policy at Bytes(10000) reproduces it from the recorded ends around a
// middle of the recorded character count; an end shortened by the
// publisher's REDACTED is only checked for that.
func TestCodexRealExecEnds(t *testing.T) {
	root := realFixtures(t)
	files, _ := filepath.Glob(filepath.Join(root, "codex", "sessions", "*", "*", "*", "*.jsonl"))
	cut, replayed := 0, 0
	for _, path := range files {
		for _, r := range codexRecords(t, path) {
			if r.kind != "exec_command_end" {
				continue
			}
			if _, ok := RecogniseCodexPersistenceCut(r.text); ok {
				t.Errorf("%s: a persistence cut in a 0.125 rollout", r.callID)
			}
			n, ok := RecogniseCodexTruncation(r.text)
			if !ok {
				continue
			}
			cut++
			if n.HeaderStart >= 0 || len(n.Markers) != 1 || n.Markers[0].Unit != "chars" {
				t.Fatalf("%s: %+v", r.callID, n)
			}
			mk := n.Markers[0]
			head, tail := r.text[:mk.Start], r.text[mk.End:]
			if len(head) > 5000 || len(tail) > 5000 {
				t.Fatalf("%s: ends of %d and %d bytes", r.callID, len(head), len(tail))
			}
			if len(head) < 4997 || len(tail) < 4997 {
				if !strings.Contains(head+tail, "REDACTED") {
					t.Errorf("%s: ends of %d and %d bytes with no redaction to explain it", r.callID, len(head), len(tail))
				}
				continue
			}
			orig := head + strings.Repeat("x", int(mk.Count)) + tail
			if got := CodexTruncateText(orig, bytesPolicy(10000)); got != r.text {
				t.Errorf("%s: not reproduced at Bytes(10000)", r.callID)
			}
			replayed++
		}
	}
	t.Logf("%d cut aggregated outputs, %d reproduced", cut, replayed)
	if cut == 0 || replayed == 0 {
		t.Errorf("cut %d, reproduced %d", cut, replayed)
	}
}
