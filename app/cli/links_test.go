package cli

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

type linkOut struct {
	Shown     bool   `json:"shown"`
	Line      string `json:"line"`
	Reason    string `json:"reason"`
	Parameter string `json:"parameter"`
}

func runLinksCmd(t *testing.T, stdin string, args ...string) (code int, out []linkOut, stdout, stderr string) {
	t.Helper()
	var o, e bytes.Buffer
	code = Run(Env{Stdin: strings.NewReader(stdin), Stdout: &o, Stderr: &e}, append([]string{"links"}, args...))
	dec := json.NewDecoder(bytes.NewReader(o.Bytes()))
	for dec.More() {
		var l linkOut
		if err := dec.Decode(&l); err != nil {
			break
		}
		out = append(out, l)
	}
	return code, out, o.String(), e.String()
}

func TestLinksCommand(t *testing.T) {
	presigned := "https://examplebucket.s3.amazonaws.com/test.txt?X-Amz-Date=20130721T201207Z&X-Amz-Signature=SECRETVALUE123"
	cases := []struct {
		name   string
		args   []string
		stdin  string
		code   int
		want   []linkOut
		absent string
	}{
		{"shown", []string{"--name", "report.csv", "--mime-type", "text/csv", "file:///tmp/report.csv"}, "", exitOK,
			[]linkOut{{Shown: true, Line: `[resource link "report.csv": file:///tmp/report.csv, text/csv; not fetched]`}}, ""},
		{"ordinary query shown", []string{"https://www.youtube.com/watch?v=abc"}, "", exitOK,
			[]linkOut{{Shown: true, Line: `[resource link: https://www.youtube.com/watch?v=abc; not fetched]`}}, ""},
		{"presigned", []string{"--name", "test.txt", presigned}, "", exitOK,
			[]linkOut{{Line: `[resource link "test.txt" not shown: its URI may carry a credential (parameter X-Amz-Signature); not fetched]`,
				Reason: "credential-parameter", Parameter: "X-Amz-Signature"}}, "SECRETVALUE123"},
		{"userinfo", []string{"https://bob:SECRETVALUE123@example.com/"}, "", exitOK,
			[]linkOut{{Line: `[resource link not shown: its URI carries a user name or password; not fetched]`, Reason: "userinfo"}}, "SECRETVALUE123"},
		{"unparseable", []string{"https://example.com/%zz"}, "", exitOK,
			[]linkOut{{Line: `[resource link not shown: its URI could not be read, so it may carry a credential; not fetched]`, Reason: "unparseable"}}, ""},
		{"several in order", []string{"https://a.example/?page=2", "https://a.example/#access_token=SECRETVALUE123"}, "", exitOK,
			[]linkOut{
				{Shown: true, Line: `[resource link: https://a.example/?page=2; not fetched]`},
				{Line: `[resource link not shown: its URI may carry a credential (parameter access_token); not fetched]`, Reason: "credential-parameter", Parameter: "access_token"},
			}, "SECRETVALUE123"},
		{"stdin", nil, "https://a.example/?page=2\r\n\n  https://a.example/?sid=SECRETVALUE123  \n", exitOK,
			[]linkOut{
				{Shown: true, Line: `[resource link: https://a.example/?page=2; not fetched]`},
				{Line: `[resource link not shown: its URI may carry a credential (parameter sid); not fetched]`, Reason: "credential-parameter", Parameter: "sid"},
			}, "SECRETVALUE123"},
		{"no uri", nil, "", exitUsage, nil, ""},
		{"bad flag", []string{"--nope", "x"}, "", exitUsage, nil, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, out, stdout, stderr := runLinksCmd(t, tc.stdin, tc.args...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d (stderr %q)", code, tc.code, stderr)
			}
			if len(out) != len(tc.want) {
				t.Fatalf("got %d objects, want %d: %s", len(out), len(tc.want), stdout)
			}
			for i := range out {
				if out[i] != tc.want[i] {
					t.Errorf("object %d = %+v, want %+v", i, out[i], tc.want[i])
				}
			}
			if tc.absent != "" && (strings.Contains(stdout, tc.absent) || strings.Contains(stderr, tc.absent)) {
				t.Errorf("output holds the credential value: %s", stdout)
			}
			if code == exitUsage && stderr == "" {
				t.Errorf("usage error without a message")
			}
		})
	}
}

func TestLinksCommandOutputFields(t *testing.T) {
	_, _, stdout, _ := runLinksCmd(t, "", "https://a.example/")
	var m map[string]any
	if err := json.Unmarshal([]byte(stdout), &m); err != nil {
		t.Fatalf("not one JSON object: %q", stdout)
	}
	for _, k := range []string{"shown", "line", "reason", "parameter"} {
		if _, ok := m[k]; !ok {
			t.Errorf("field %q missing from %s", k, stdout)
		}
	}
	if len(m) != 4 {
		t.Errorf("unexpected fields in %s", stdout)
	}
}

func TestLinksCommandHelp(t *testing.T) {
	for _, flag := range []string{"-h", "--help"} {
		t.Run(flag, func(t *testing.T) {
			code, _, stdout, _ := runLinksCmd(t, "", flag)
			if code != exitOK {
				t.Fatalf("exit %d, want 0", code)
			}
			for _, want := range []string{"usage: spillscope links", "X-Amz-Signature", "Known limits", "--name"} {
				if !strings.Contains(stdout, want) {
					t.Errorf("help lacks %q", want)
				}
			}
		})
	}
}
