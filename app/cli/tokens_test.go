package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"spillscope/retention"
)

func runTokensCmd(t *testing.T, stdin string, args ...string) (int, []tokensLine, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := Run(Env{Stdin: strings.NewReader(stdin), Stdout: &out, Stderr: &errb}, append([]string{"tokens"}, args...))
	var lines []tokensLine
	sc := bufio.NewScanner(&out)
	for sc.Scan() {
		var l tokensLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("line %q: %v", sc.Text(), err)
		}
		lines = append(lines, l)
	}
	return code, lines, errb.String()
}

func TestTokensCommand(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"plain.txt":   "hello world, this is a test\n",
		"cjk.txt":     "日本語のテキスト",
		"invalid.txt": "ok \xff\xfe bytes",
		"empty.txt":   "",
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	path := func(n string) string { return filepath.Join(dir, n) }
	tests := []struct {
		name  string
		stdin string
		args  []string
		want  []string // files, in order
		code  int
	}{
		{"stdin", "from stdin", nil, []string{"-"}, exitOK},
		{"dash is stdin", "from stdin", []string{path("plain.txt"), "-"}, []string{path("plain.txt"), "-"}, exitOK},
		{"several files", "", []string{path("plain.txt"), path("cjk.txt"), path("invalid.txt"), path("empty.txt")}, []string{path("plain.txt"), path("cjk.txt"), path("invalid.txt"), path("empty.txt")}, exitOK},
		{"cl100k", "", []string{"--encoding", "cl100k_base", path("plain.txt")}, []string{path("plain.txt")}, exitOK},
		{"missing file is skipped", "", []string{path("nope.txt"), path("plain.txt")}, []string{path("plain.txt")}, exitFail},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, lines, stderr := runTokensCmd(t, tt.stdin, tt.args...)
			if code != tt.code {
				t.Fatalf("exit %d, want %d (stderr %q)", code, tt.code, stderr)
			}
			if len(lines) != len(tt.want) {
				t.Fatalf("%d lines, want %d", len(lines), len(tt.want))
			}
			enc := retention.DefaultEncoding
			if len(tt.args) > 1 && tt.args[0] == "--encoding" {
				enc = tt.args[1]
			}
			tk, _ := retention.Encoder(enc)
			for i, l := range lines {
				if l.File != tt.want[i] {
					t.Fatalf("line %d file %q, want %q", i, l.File, tt.want[i])
				}
				body := tt.stdin
				if l.File != "-" {
					body = files[filepath.Base(l.File)]
				}
				if l.Bytes != len(body) || l.Tokens != len(tk.EncodeOrdinary(body)) {
					t.Fatalf("%s: bytes %d tokens %d, want %d and %d", l.File, l.Bytes, l.Tokens, len(body), len(tk.EncodeOrdinary(body)))
				}
			}
			if code == exitFail && !strings.Contains(stderr, "nope.txt") {
				t.Fatalf("stderr %q does not name the missing file", stderr)
			}
		})
	}
}

func TestTokensUsage(t *testing.T) {
	code, _, stderr := runTokensCmd(t, "", "--encoding", "gpt2")
	if code != exitUsage || !strings.Contains(stderr, "--encoding") {
		t.Fatalf("exit %d stderr %q", code, stderr)
	}
	var out bytes.Buffer
	if c := Run(Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &out}, []string{"tokens", "-h"}); c != exitOK || !strings.Contains(out.String(), "usage: spillscope tokens") {
		t.Fatalf("help: exit %d %q", c, out.String())
	}
}
