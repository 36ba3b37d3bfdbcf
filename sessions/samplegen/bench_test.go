package samplegen

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"
)

func TestRewriteIDs(t *testing.T) {
	const salt = 42
	for _, tc := range []struct {
		name    string
		line    string
		renewed []string // ids that must be gone from the output
		kept    []string // values that must survive
	}{
		{
			name:    "assistant line",
			line:    `{"parentUuid":"0c9d6d42-2e27-4a34-99be-27adf2147a5e","sessionId":"d6e0bada-1959-4eec-a9d2-0bfade768d8f","message":{"model":"claude-opus-4-6","id":"msg_0167kgZUrgcT7dg7uZK7hVSg","content":[{"type":"tool_use","id":"toolu_018GZVh9ymkrdx1TnR8reg5Y","name":"Bash"}]},"requestId":"req_011CY1DV6ZcyGeWGTb4kSw2L","type":"assistant","uuid":"8565db80-925a-45e5-8912-159a151b6d24"}`,
			renewed: []string{"0c9d6d42-2e27-4a34-99be-27adf2147a5e", "d6e0bada-1959-4eec-a9d2-0bfade768d8f", "msg_0167kgZUrgcT7dg7uZK7hVSg", "toolu_018GZVh9ymkrdx1TnR8reg5Y", "req_011CY1DV6ZcyGeWGTb4kSw2L", "8565db80-925a-45e5-8912-159a151b6d24"},
			kept:    []string{"claude-opus-4-6", `"parentUuid":"`, `"name":"Bash"`},
		},
		{
			name:    "session id inside a spill path is renewed too",
			line:    `{"sessionId":"d6e0bada-1959-4eec-a9d2-0bfade768d8f","message":{"content":[{"tool_use_id":"toolu_bdrk_01ABCDEFGHJKLMNPQRSTUVWX","type":"tool_result","content":"Full output saved to: /p/d6e0bada-1959-4eec-a9d2-0bfade768d8f/tool-results/toolu_bdrk_01ABCDEFGHJKLMNPQRSTUVWX.txt"}]}}`,
			renewed: []string{"d6e0bada-1959-4eec-a9d2-0bfade768d8f", "01ABCDEFGHJKLMNPQRSTUVWX"},
			kept:    []string{"toolu_bdrk_", "/tool-results/", "Full output saved to: /p/"},
		},
		{
			name:    "summary keeps short and free-text values",
			line:    `{"type":"summary","summary":"Fix the build","leafUuid":"6cc4062b-cae5-4d34-b62d-45d7b27f0d09","uuid":"short"}`,
			renewed: []string{"6cc4062b-cae5-4d34-b62d-45d7b27f0d09"},
			kept:    []string{"Fix the build", `"uuid":"short"`},
		},
		{name: "comment line unchanged", line: "// Source: gist", kept: []string{"// Source: gist"}},
		{name: "truncated line unchanged", line: `{"uuid":"6cc4062b-cae5-4d34-b62d`, kept: []string{`{"uuid":"6cc4062b-cae5-4d34-b62d`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := RewriteIDs([]byte(tc.line), salt)
			if len(got) != len(tc.line) {
				t.Errorf("length changed: %d -> %d", len(tc.line), len(got))
			}
			if json.Valid([]byte(tc.line)) != json.Valid(got) {
				t.Errorf("validity changed: %s", got)
			}
			for _, id := range tc.renewed {
				if bytes.Contains(got, []byte(id)) {
					t.Errorf("%s still present in %s", id, got)
				}
			}
			for _, k := range tc.kept {
				if !bytes.Contains(got, []byte(k)) {
					t.Errorf("%q lost from %s", k, got)
				}
			}
			if again := RewriteIDs([]byte(tc.line), salt); !bytes.Equal(again, got) {
				t.Errorf("not deterministic:\n%s\n%s", got, again)
			}
			if other := RewriteIDs([]byte(tc.line), salt+1); len(tc.renewed) > 0 && bytes.Equal(other, got) {
				t.Errorf("another salt gave the same ids")
			}
		})
	}
}

func TestRewriteIDsConsistentAcrossLines(t *testing.T) {
	parent := RewriteIDs([]byte(`{"uuid":"8565db80-925a-45e5-8912-159a151b6d24","type":"assistant"}`), 9)
	child := RewriteIDs([]byte(`{"parentUuid":"8565db80-925a-45e5-8912-159a151b6d24","type":"user"}`), 9)
	var p, c map[string]string
	if err := json.Unmarshal(parent, &p); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(child, &c); err != nil {
		t.Fatal(err)
	}
	if p["uuid"] != c["parentUuid"] {
		t.Errorf("parent link broken: uuid %s, parentUuid %s", p["uuid"], c["parentUuid"])
	}
	if !uuidRe.MatchString(p["uuid"]) {
		t.Errorf("renewed uuid %q lost its shape", p["uuid"])
	}
}

func FuzzRewriteIDs(f *testing.F) {
	for _, s := range []string{
		`{"uuid":"8565db80-925a-45e5-8912-159a151b6d24","parentUuid":null}`,
		`{"message":{"id":"msg_0167kgZUrgcT7dg7uZK7hVSg","content":"msg_0167kgZUrgcT7dg7uZK7hVSg \u00e9"}}`,
		`{"sessionId":"12345678","n":12345678}`,
		`{"requestId":"u00e9abcd","t":"\u00e9abcd"}`,
		`// comment`, `{"a":`, `[1,2]`, `null`,
	} {
		f.Add([]byte(s), uint64(1))
	}
	f.Fuzz(func(t *testing.T, line []byte, salt uint64) {
		out := RewriteIDs(line, salt)
		if json.Valid(line) && !json.Valid(out) {
			t.Fatalf("valid input became invalid:\n in: %q\nout: %q", line, out)
		}
		if len(out) != len(line) {
			t.Fatalf("length changed %d -> %d", len(line), len(out))
		}
	})
}

func TestParseSize(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64
		err  bool
	}{
		{"1048576", 1 << 20, false},
		{"1GB", 1e9, false},
		{"1 GiB", 1 << 30, false},
		{"500MB", 500e6, false},
		{"64k", 64 << 10, false},
		{"2M", 2 << 20, false},
		{"", 0, true},
		{"MB", 0, true},
		{"1.5GB", 0, true},
		{"-1", 0, true},
		{"10TB", 0, true},
		{"99999999999999999999", 0, true},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got, err := ParseSize(tc.in)
			if tc.err {
				if !errors.Is(err, ErrOptions) {
					t.Errorf("ParseSize(%q) = %d, %v; want an ErrOptions error", tc.in, got, err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Errorf("ParseSize(%q) = %d, %v; want %d", tc.in, got, err, tc.want)
			}
		})
	}
}

func TestGenerateBenchCorpusRejectsBadOptions(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts BenchOptions
	}{
		{"no target", BenchOptions{}},
		{"negative screenshot", BenchOptions{TargetBytes: 1, ScreenshotBytes: -1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := GenerateBenchCorpus(t.TempDir(), tc.opts); !errors.Is(err, ErrOptions) {
				t.Errorf("err = %v, want ErrOptions", err)
			}
		})
	}
}
