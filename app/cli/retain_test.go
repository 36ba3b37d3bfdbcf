package cli

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"spillscope/retention"
	"spillscope/sessions"
)

// retainOut mirrors the printed object, decoded strictly enough to check
// every field CLI.md names.
type retainOut struct {
	Status              string            `json:"status"`
	Content             []json.RawMessage `json:"content"`
	Notice              *string           `json:"notice"`
	OmittedBytes        *int64            `json:"omittedBytes"`
	OmittedImages       *int              `json:"omittedImages"`
	Tokens              *retention.Tokens `json:"tokens"`
	OriginalTokens      *int              `json:"originalTokens"`
	OriginalTokensExact bool              `json:"originalTokensExact"`
	SpillPath           *string           `json:"spillPath"`
	Diagnostics         []string          `json:"diagnostics"`
	Route               string            `json:"route"`
	Estimator           string            `json:"estimator"`
	Policy              string            `json:"policy"`
	BudgetUnit          string            `json:"budgetUnit"`
}

func runRetainCmd(t *testing.T, stdin string, args ...string) (int, retainOut, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := Run(Env{Stdin: strings.NewReader(stdin), Stdout: &out, Stderr: &errb}, append([]string{"retain"}, args...))
	var o retainOut
	if code == exitOK {
		dec := json.NewDecoder(bytes.NewReader(out.Bytes()))
		dec.DisallowUnknownFields()
		var raw map[string]json.RawMessage
		if err := json.Unmarshal(out.Bytes(), &raw); err != nil {
			t.Fatalf("stdout is not one JSON object: %v\n%s", err, out.String())
		}
		for _, k := range []string{"policy", "status", "content", "notice", "omittedBytes", "omittedImages", "tokens", "originalTokens", "spillPath", "diagnostics", "estimator", "budgetUnit", "recovery"} {
			if _, ok := raw[k]; !ok {
				t.Fatalf("output lacks %q: %s", k, out.String())
			}
		}
		if err := json.Unmarshal(out.Bytes(), &o); err != nil {
			t.Fatal(err)
		}
		if strings.Count(strings.TrimSpace(out.String()), "\n") != 0 {
			t.Fatalf("output is not one line: %q", out.String())
		}
	}
	return code, o, out.String(), errb.String()
}

func pngB64(t *testing.T, w, h int) string {
	t.Helper()
	var buf bytes.Buffer
	if err := png.Encode(&buf, image.NewGray(image.Rect(0, 0, w, h))); err != nil {
		t.Fatal(err)
	}
	return base64.StdEncoding.EncodeToString(buf.Bytes())
}

func resultJSONText(t *testing.T, blocks ...map[string]any) string {
	t.Helper()
	data, err := json.Marshal(map[string]any{"content": blocks, "isError": false})
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func text(s string) map[string]any { return map[string]any{"type": "text", "text": s} }

func TestRetainCommand(t *testing.T) {
	big := strings.Repeat("GET /api/v1/items?page=3 200 OK in 12ms\n", 2000)
	img := map[string]any{"type": "image", "mimeType": "image/png", "data": pngB64(t, 320, 240)}
	tests := []struct {
		name      string
		stdin     string
		args      []string
		status    string
		diag      string
		wantSpill bool
	}{
		{"no budget disables", resultJSONText(t, text(big)), nil, retention.StatusDisabled, "", false},
		{"within budget", resultJSONText(t, text("short")), []string{"--budget", "100"}, retention.StatusWithinBudget, "", false},
		{"bare content array", `[{"type":"text","text":"short"}]`, []string{"--budget", "100"}, retention.StatusWithinBudget, "", false},
		{"replaced without spill dir", resultJSONText(t, text(big)), []string{"--budget", "500"}, retention.StatusReplaced, "", false},
		{"replaced with spill dir", resultJSONText(t, text(big), img, text(big)), []string{"--budget", "800", "--spill-dir", "SPILL"}, retention.StatusReplaced, "", true},
		{"notice exceeds budget", resultJSONText(t, text(big)), []string{"--budget", "5", "--spill-dir", "SPILL"}, retention.StatusPreserved, "notice exceeds budget", false},
		{"inline image without spill dir is preserved", resultJSONText(t, text(big), img), []string{"--budget", "800"}, retention.StatusPreserved, "no readable attachment path", false},
		{"deepseek has no image pricing", resultJSONText(t, text(big), img), []string{"--budget", "800", "--route", "deepseek", "--spill-dir", "SPILL"}, retention.StatusPreserved, "no image token calculator", false},
		{"deepseek v4.1 prices images", resultJSONText(t, text(big), img, text(big)), []string{"--budget", "800", "--route", "deepseek-v4.1", "--spill-dir", "SPILL"}, retention.StatusReplaced, "", true},
		{"byte era", resultJSONText(t, text(big)), []string{"--policy", "dsh-bytes", "--budget", "2000", "--spill-dir", "SPILL"}, retention.StatusReplaced, "", true},
		{"byte era refuses images", resultJSONText(t, text(big), img), []string{"--policy", "dsh-bytes", "--budget", "2000"}, retention.StatusUnsupported, "all-text", false},
		{"pruner", resultJSONText(t, text(big)), []string{"--policy", "dsh-pruner", "--budget", "8192"}, retention.StatusReplaced, "", false},
		{"pruner parameters", resultJSONText(t, text(big)), []string{"--policy", "dsh-pruner", "--budget", "1000", "--param", "headChars=100", "--param", "tailChars=50"}, retention.StatusReplaced, "", false},
		{"invalid base64", resultJSONText(t, text(big), map[string]any{"type": "image", "mimeType": "image/png", "data": "@@@@"}), []string{"--budget", "800", "--spill-dir", "SPILL"}, retention.StatusPreserved, "invalid base64", false},
		{"read tool passes through", resultJSONText(t, text(big)), []string{"--budget", "50", "--tool", "read_file"}, retention.StatusPassThrough, "read tool", false},
		{"unsupported block", resultJSONText(t, text(big), map[string]any{"type": "audio", "data": "AAAA", "mimeType": "audio/wav"}), []string{"--budget", "50"}, retention.StatusUnsupported, "audio", false},
		{"cl100k", resultJSONText(t, text(big)), []string{"--budget", "500", "--encoding", "cl100k_base"}, retention.StatusReplaced, "", false},
		{"dsh meter", resultJSONText(t, text(big)), []string{"--budget", "500", "--estimator", "dsh-meter"}, retention.StatusReplaced, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			args := append([]string{}, tt.args...)
			for i, a := range args {
				if a == "SPILL" {
					args[i] = dir
				}
			}
			code, o, stdout, stderr := runRetainCmd(t, tt.stdin, args...)
			if code != exitOK {
				t.Fatalf("exit %d, stderr %q", code, stderr)
			}
			if o.Status != tt.status {
				t.Fatalf("status %q, want %q (diagnostics %q)", o.Status, tt.status, o.Diagnostics)
			}
			if tt.diag != "" && !strings.Contains(strings.Join(o.Diagnostics, "\n"), tt.diag) {
				t.Fatalf("diagnostics %q lack %q", o.Diagnostics, tt.diag)
			}
			if strings.Contains(stdout, "iVBOR") {
				t.Fatal("output carries base64 image data")
			}
			if got := *o.SpillPath != ""; got != tt.wantSpill {
				t.Fatalf("spillPath %q, want written=%v", *o.SpillPath, tt.wantSpill)
			}
			checkSpillDir(t, dir, o, tt.wantSpill)
		})
	}
}

// checkSpillDir asserts the spill layout of contracts.md and that nothing
// else was written.
func checkSpillDir(t *testing.T, dir string, o retainOut, written bool) {
	t.Helper()
	var files []string
	filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			files = append(files, rel)
		}
		return nil
	})
	sessionDir := filepath.Join(dir, retention.DshSessionFolder("spillscope"))
	for _, f := range files {
		inSession := strings.HasPrefix(filepath.Join(dir, f), sessionDir+string(filepath.Separator)) && (strings.HasSuffix(f, ".txt") || strings.HasSuffix(f, ".retained.json"))
		if !strings.HasPrefix(f, "attachments"+string(filepath.Separator)) && !inSession {
			t.Fatalf("unexpected file %q in the spill dir", f)
		}
	}
	if !written {
		for _, f := range files {
			if !strings.HasPrefix(f, "attachments") {
				t.Fatalf("spill file %q written for status %q", f, o.Status)
			}
		}
		return
	}
	// dsh's layout: session-<sha12>/<12 hex>-<tool>.txt, 0600 in 0700.
	base := filepath.Base(*o.SpillPath)
	if filepath.Dir(*o.SpillPath) != sessionDir || !strings.HasSuffix(base, "-tool.txt") || len(base) != 12+len("-tool.txt") {
		t.Fatalf("spill path %q is not %s/<12 hex>-tool.txt", *o.SpillPath, sessionDir)
	}
	for _, p := range []string{*o.SpillPath, sessionDir} {
		st, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		want := os.FileMode(0o600)
		if st.IsDir() {
			want = 0o700 | os.ModeDir
		}
		if st.Mode()&(os.ModeDir|os.ModePerm) != want {
			t.Errorf("%s has mode %v, want %v", p, st.Mode(), want)
		}
	}
	complete, err := os.ReadFile(*o.SpillPath)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(complete), "iVBOR") {
		t.Fatal("complete result file holds base64")
	}
	m, ok := retention.RecogniseNotice(*o.Notice)
	if !ok || m.Path != *o.SpillPath {
		t.Fatalf("notice %q does not name %q", *o.Notice, *o.SpillPath)
	}
	recPath := strings.TrimSuffix(*o.SpillPath, ".txt") + ".retained.json"
	data, err := os.ReadFile(recPath)
	if err != nil {
		t.Fatal(err)
	}
	var rec struct {
		Version   int             `json:"version"`
		CreatedAt string          `json:"createdAt"`
		Budget    *int64          `json:"budget"`
		Route     string          `json:"route"`
		Estimator string          `json:"estimator"`
		Policy    string          `json:"policy"`
		Input     json.RawMessage `json:"input"`
		Outcome   retainOut       `json:"outcome"`
	}
	if err := json.Unmarshal(data, &rec); err != nil {
		t.Fatal(err)
	}
	if rec.Version != 2 || rec.CreatedAt == "" || rec.Budget == nil || rec.Route == "" || rec.Estimator != o.Estimator || rec.Policy != o.Policy || rec.Outcome.Status != o.Status {
		t.Fatalf("record %s", data)
	}
	if strings.Contains(string(rec.Input), `"data"`) {
		t.Fatal("record input carries base64")
	}
	res, err := retention.ParseResult(rec.Input)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range res.Content {
		if b.Type == retention.TypeImage {
			if _, err := os.Stat(b.Path); err != nil || !strings.HasPrefix(b.Path, filepath.Join(dir, "attachments")) {
				t.Fatalf("image path %q is not a readable attachment", b.Path)
			}
			if !strings.Contains(string(complete), b.Path) {
				t.Fatalf("complete result file does not name %q", b.Path)
			}
		}
	}
}

func TestRetainBudgetErrors(t *testing.T) {
	for _, b := range []string{"-1", "1.5", "9007199254740992", "1e300", "twelve", "", "NaN"} {
		t.Run(b, func(t *testing.T) {
			code, _, _, stderr := runRetainCmd(t, `[{"type":"text","text":"x"}]`, "--budget", b)
			if code != exitUsage || !strings.Contains(stderr, "--budget") {
				t.Fatalf("exit %d, stderr %q; want 2 naming --budget", code, stderr)
			}
		})
	}
	t.Run("largest safe integer", func(t *testing.T) {
		code, o, _, stderr := runRetainCmd(t, `[{"type":"text","text":"x"}]`, "--budget", "9007199254740991")
		if code != exitOK || o.Status != retention.StatusWithinBudget {
			t.Fatalf("exit %d status %q stderr %q", code, o.Status, stderr)
		}
	})
}

func TestRetainUsageErrors(t *testing.T) {
	tests := []struct {
		name  string
		stdin string
		args  []string
		code  int
		want  string
	}{
		{"unknown route", `[]`, []string{"--budget", "5", "--route", "nope"}, exitUsage, "--route"},
		{"unknown encoding", `[]`, []string{"--budget", "5", "--encoding", "p50k_base"}, exitUsage, "--estimator"},
		{"unknown estimator", `[]`, []string{"--budget", "5", "--estimator", "gpt2"}, exitUsage, "gpt2"},
		{"unknown policy", `[]`, []string{"--budget", "5", "--policy", "dsh-v9"}, exitUsage, "--policy"},
		{"unknown parameter", `[]`, []string{"--budget", "5", "--param", "maxInlineByte=3"}, exitUsage, "maxInlineByte"},
		{"bad parameter", `[]`, []string{"--policy", "dsh-pruner", "--budget", "50", "--param", "headChars=40"}, exitUsage, "headChars + marker + tailChars"},
		{"budget twice", `[]`, []string{"--budget", "5", "--param", "maxInlineTokens=5"}, exitUsage, "--budget"},
		{"bad budget as a parameter", `[]`, []string{"--param", "maxInlineTokens=-5"}, exitUsage, "maxInlineTokens"},
		{"not k=v", `[]`, []string{"--param", "headChars"}, exitUsage, "k=v"},
		{"unknown flag", `[]`, []string{"--frob"}, exitUsage, "frob"},
		{"stray argument", `[]`, []string{"result.json"}, exitUsage, "standard input"},
		{"not JSON", `hello`, []string{"--budget", "5"}, exitFail, "standard input"},
		{"object without content", `{"x":1}`, []string{"--budget", "5"}, exitFail, "content"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, _, stderr := runRetainCmd(t, tt.stdin, tt.args...)
			if code != tt.code || !strings.Contains(stderr, tt.want) {
				t.Fatalf("exit %d stderr %q; want %d with %q", code, stderr, tt.code, tt.want)
			}
		})
	}
}

func TestRetainHelp(t *testing.T) {
	var out, errb bytes.Buffer
	if code := Run(Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb}, []string{"retain", "-h"}); code != exitOK {
		t.Fatalf("exit %d", code)
	}
	for _, want := range []string{"--budget", "-spill-dir", "-route", "-encoding", "-tool", "-policy", "-estimator", "-spill-path", "-spill-hint", "-param", "dsh-bytes", "dsh-pruner"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("help lacks %q", want)
		}
	}
}

// A budget that holds the notice at its longest but not its reserve (gap and
// notice) gives a notice-only result, and its files are written.
func TestRetainNoticeOnly(t *testing.T) {
	dir := t.TempDir()
	body := strings.Repeat("GET /api/v1/items?page=3 200 OK in 12ms\n", 500)
	in := resultJSONText(t, text(body))
	sum := sha256.Sum256([]byte(in))
	spill := filepath.Join(dir, retention.DshSessionFolder("spillscope"), hex.EncodeToString(sum[:])[:12]+"-tool.txt")
	notice, err := retention.CountTokens("", retention.FormatSpillNotice(retention.ExactOmission(int64(len(body))), retention.SpillRef{Locator: spill}, 0))
	if err != nil {
		t.Fatal(err)
	}
	code, o, _, stderr := runRetainCmd(t, in, "--budget", strconv.Itoa(notice), "--spill-dir", dir)
	if code != exitOK || o.Status != retention.StatusNoticeOnly {
		t.Fatalf("exit %d status %q stderr %q", code, o.Status, stderr)
	}
	if *o.SpillPath != spill || *o.OmittedBytes != int64(len(body)) || len(o.Content) != 1 {
		t.Fatalf("spill %q omitted %d content %d", *o.SpillPath, *o.OmittedBytes, len(o.Content))
	}
	checkSpillDir(t, dir, o, true)
	complete, _ := os.ReadFile(spill)
	if string(complete) != body {
		t.Fatal("complete result file is not the whole text")
	}
}

// The same input gives the same id, so a re-run overwrites its own files.
func TestRetainSpillIDIsStable(t *testing.T) {
	dir := t.TempDir()
	in := resultJSONText(t, text(strings.Repeat("x y z ", 3000)))
	_, a, _, _ := runRetainCmd(t, in, "--budget", "100", "--spill-dir", dir)
	_, b, _, _ := runRetainCmd(t, in, "--budget", "200", "--spill-dir", dir)
	if *a.SpillPath == "" || *a.SpillPath != *b.SpillPath {
		t.Fatalf("spill paths %q and %q", *a.SpillPath, *b.SpillPath)
	}
}

// FuzzParseBudget: --budget never panics, and whatever it accepts is a whole
// number of tokens in [0, 2^53-1] that reads back the same.
func FuzzParseBudget(f *testing.F) {
	for _, s := range []string{"0", "12500", "-1", "1.5", "1e3", "9007199254740991", "9007199254740992", "NaN", "Inf", " 7 ", "0x10"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := parseBudget(s)
		if err != nil {
			if !strings.Contains(err.Error(), "--budget") {
				t.Fatalf("error %q does not name --budget", err)
			}
			return
		}
		if n < 0 || n > retention.MaxBudget {
			t.Fatalf("accepted %q as %d", s, n)
		}
	})
}

// --spill-dir stores inline images through the sessions store: named by
// hash and sniffed format, once, and private like the rest of the folder.
func TestRetainSpillAttachments(t *testing.T) {
	pngData := pngB64(t, 32, 16)
	pngRaw, _ := base64.StdEncoding.DecodeString(pngData)
	other := []byte("not an image at all")
	name := func(raw []byte, ext string) string {
		sum := sha256.Sum256(raw)
		return hex.EncodeToString(sum[:]) + "." + ext
	}
	tests := []struct {
		name   string
		images []map[string]any
		runs   int
		want   []string // files under DIR/attachments
	}{
		{"png", []map[string]any{{"type": "image", "mimeType": "image/png", "data": pngData}}, 1, []string{name(pngRaw, "png")}},
		{"same image twice in one result", []map[string]any{{"type": "image", "mimeType": "image/png", "data": pngData}, {"type": "image", "mimeType": "image/png", "data": pngData}}, 1, []string{name(pngRaw, "png")}},
		{"same result run twice", []map[string]any{{"type": "image", "mimeType": "image/png", "data": pngData}}, 2, []string{name(pngRaw, "png")}},
		{"unknown bytes kept as bin", []map[string]any{{"type": "image", "mimeType": "image/png", "data": base64.StdEncoding.EncodeToString(other)}}, 1, []string{name(other, "bin")}},
		{"no images, no attachments folder", nil, 1, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "spill")
			blocks := []map[string]any{text("head")}
			blocks = append(blocks, tt.images...)
			for run := 0; run < tt.runs; run++ {
				code, o, _, stderr := runRetainCmd(t, resultJSONText(t, blocks...), "--budget", "100000", "--spill-dir", dir)
				if code != exitOK {
					t.Fatalf("run %d: exit %d: %s", run, code, stderr)
				}
				for _, raw := range o.Content[1:] {
					var b struct{ Path string }
					if err := json.Unmarshal(raw, &b); err != nil || filepath.Dir(b.Path) != filepath.Join(dir, "attachments") {
						t.Errorf("image block %s does not point into DIR/attachments", raw)
					}
				}
			}
			ents, err := os.ReadDir(filepath.Join(dir, "attachments"))
			if tt.want == nil {
				if err == nil {
					t.Errorf("attachments folder created with %d entries", len(ents))
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, e := range ents {
				got = append(got, e.Name())
			}
			if strings.Join(got, ",") != strings.Join(tt.want, ",") {
				t.Errorf("attachments %q, want %q", got, tt.want)
			}
			modes := map[string]os.FileMode{dir: 0o700, filepath.Join(dir, "attachments"): 0o700, filepath.Join(dir, "attachments", tt.want[0]): 0o600}
			for p, want := range modes {
				st, err := os.Stat(p)
				if err != nil {
					t.Fatal(err)
				}
				if st.Mode().Perm() != want {
					t.Errorf("%s: mode %v, want %v", p, st.Mode().Perm(), want)
				}
			}
		})
	}
}

// dsh's byte era on the arithmetic of the bash-spill snapshot: a 2,022-byte
// output at a cap of 800 with that snapshot's locator keeps 605 bytes.
func TestRetainByteEraArithmetic(t *testing.T) {
	full := "SPILL_START-" + strings.Repeat("x", 2000) + "-SPILL_END"
	locator := "/tmp/dsh-acp-snap-ee77dff02/session-5e53dc8acfe4/2ce9d7a31a38-bash.txt"
	code, o, _, stderr := runRetainCmd(t, resultJSONText(t, text(full)), "--policy", "dsh-bytes", "--budget", "800", "--tool", "bash", "--spill-path", locator)
	if code != exitOK || o.Status != retention.StatusReplaced {
		t.Fatalf("exit %d status %q stderr %q", code, o.Status, stderr)
	}
	var blocks []struct{ Text string }
	for _, c := range o.Content {
		var b struct{ Text string }
		json.Unmarshal(c, &b)
		blocks = append(blocks, b)
	}
	want := full[:303] + full[len(full)-302:] + "\n\n(Omitted 1417 bytes. Full formatted result stored at: " + locator + ". " + retention.LocalSpillHint + ")"
	if len(blocks) != 1 || blocks[0].Text != want || *o.OmittedBytes != 1417 || o.BudgetUnit != "bytes" || len(want) > 800 {
		t.Fatalf("content %q, want %q", blocks, want)
	}
}

// What `retain --spill-dir` writes in dsh's layout is indexed as a result
// whose notice names the spill file, which exists.
func TestRetainSpillDirIsIndexed(t *testing.T) {
	dir := t.TempDir()
	body := strings.Repeat("GET /api/v1/items?page=3 200 OK in 12ms\n", 2000)
	code, o, _, stderr := runRetainCmd(t, resultJSONText(t, text(body)), "--budget", "900", "--estimator", "dsh-meter", "--tool", "bash", "--spill-dir", dir)
	if code != exitOK || o.Status != retention.StatusReplaced {
		t.Fatalf("exit %d status %q stderr %q", code, o.Status, stderr)
	}
	if !strings.HasSuffix(*o.SpillPath, "-bash.txt") {
		t.Fatalf("spill path %q", *o.SpillPath)
	}
	db := filepath.Join(t.TempDir(), "index.db")
	env, out, _ := envFor(t, nil)
	sum := runIndexJSON(t, env, out, "--db", db, "--structure-only", dir)
	if sum.ToolResults != 1 || sum.SpillNotices != 1 {
		t.Fatalf("summary %+v", sum)
	}
	d, err := sessions.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	rows, err := d.Results(t.Context(), sessions.ResultFilter{})
	if err != nil || len(rows) != 1 {
		t.Fatalf("rows %v, %v", rows, err)
	}
	if r := rows[0]; r.Spill == nil || r.Spill.Path != *o.SpillPath || r.ToolName != "bash" {
		t.Fatalf("row %+v", r)
	}
	_, res, err := d.LoadResult(t.Context(), rows[0].ID)
	if err != nil || len(res.Content) != 1 || res.Content[0].Text != body {
		t.Fatalf("read back %v", err)
	}
}
