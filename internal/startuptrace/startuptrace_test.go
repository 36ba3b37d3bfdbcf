package startuptrace

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseStartNs(t *testing.T) {
	// Fields after the command name: state (3) ... starttime (22).
	tail := func(start string) string {
		f := make([]string, 20)
		for i := range f {
			f[i] = "0"
		}
		f[0], f[19] = "S", start
		return strings.Join(f, " ")
	}
	for _, tc := range []struct {
		name, stat string
		want       int64
		err        string
	}{
		{"plain", "123 (spillscope) " + tail("4567"), 4567 * 1e7, ""},
		{"name with spaces and parentheses", "123 (a (b) c) " + tail("89"), 89 * 1e7, ""},
		{"no command name", "123 spillscope " + tail("1"), 0, "no command name"},
		{"short", "123 (x) S 1 2", 0, "fields after the command name"},
		{"starttime not a number", "123 (x) " + tail("soon"), 0, `starttime "soon"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseStartNs([]byte(tc.stat))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want one naming %q", err, tc.err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("got %d, %v; want %d", got, err, tc.want)
			}
		})
	}
}

func TestOpenUnsetTracesNothing(t *testing.T) {
	tr, err := Open(func(string) string { return "" })
	if err != nil || tr != nil {
		t.Fatalf("Open with %s unset = %v, %v; want nil, nil", Env, tr, err)
	}
	// A nil trace takes every call.
	tr.Mark("main")
	tr.Page(map[string]any{})
	if err := tr.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestOpenRefusesAnUnwritableFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "missing", "trace.jsonl")
	if _, err := Open(func(string) string { return path }); err == nil || !strings.Contains(err.Error(), Env) {
		t.Fatalf("err = %v, want one naming %s", err, Env)
	}
}

func readLines(t *testing.T, path string) []Line {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []Line
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var l Line
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("line %q: %v", sc.Text(), err)
		}
		out = append(out, l)
	}
	return out
}

func TestMarksAndPageMarks(t *testing.T) {
	path := filepath.Join(t.TempDir(), "trace.jsonl")
	tr, err := Open(func(k string) string {
		if k == Env {
			return path
		}
		return ""
	})
	if err != nil {
		t.Fatal(err)
	}
	tr.Mark("main")
	// The page sent its marks 30 ms after "rows-painted" and 130 ms after
	// "bundle", as the runtime decodes an event's payload.
	tr.Page(map[string]any{"marks": map[string]any{"bundle": 100.0, "rows-painted": 200.0}, "now": 230.0, "first": "57549"})
	tr.Page("not the marks")
	if err := tr.Close(); err != nil {
		t.Fatal(err)
	}
	lines := readLines(t, path)
	by := map[string]Line{}
	for _, l := range lines {
		by[l.Mark] = l
	}
	main, arrived := by["main"], by["page:arrived"]
	if main.Ms <= 0 || main.Ms > 60_000 {
		t.Errorf("main at %.3f ms since the process started, want within the test's minute", main.Ms)
	}
	if arrived.Value != "57549" || arrived.Mono < main.Mono {
		t.Errorf("arrived = %+v, want the first row's id, after main", arrived)
	}
	for name, before := range map[string]int64{"page:rows-painted": 30e6, "page:bundle": 130e6} {
		l, ok := by[name]
		if !ok {
			t.Fatalf("no %s in %v", name, lines)
		}
		if got := arrived.Mono - l.Mono; got != before {
			t.Errorf("%s placed %d ns before the arrival, want %d", name, got, before)
		}
		if d := arrived.Ms - l.Ms - float64(before)/1e6; d > 1e-6 || d < -1e-6 {
			t.Errorf("%s: ms and mono disagree by %g ms", name, d)
		}
	}
	if l, ok := by["page:unreadable"]; !ok || l.Value == "" {
		t.Errorf("a payload that is not the marks is noted as unreadable with why: %v", lines)
	}
}
