package sessions

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"spillscope/retention"
	"spillscope/sessions/samplegen"
)

type jm = map[string]any

// dshFile writes a dsh log with samplegen's writer (dsh's own framing),
// appending what each flush adds.
type dshFile struct {
	t    *testing.T
	log  *samplegen.DshLog
	path string
	v4   bool
	turn int
}

func newDshFile(t *testing.T, path string, header jm, zstd bool) *dshFile {
	t.Helper()
	l, err := samplegen.NewDshLog(header, zstd)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(l.Close)
	v, _ := header["version"].(int)
	f := &dshFile{t: t, log: l, path: path, v4: v >= 4}
	f.flush()
	return f
}

// flush ends the batch and appends it to the file (a frame, for zstd).
func (f *dshFile) flush() { f.appendBytes(f.log.Take()) }

func (f *dshFile) appendBytes(b []byte) {
	f.t.Helper()
	if err := os.MkdirAll(filepath.Dir(f.path), 0o755); err != nil {
		f.t.Fatal(err)
	}
	w, err := os.OpenFile(f.path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		f.t.Fatal(err)
	}
	if _, err := w.Write(b); err != nil {
		f.t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		f.t.Fatal(err)
	}
}

func (f *dshFile) route() {
	f.log.Event("request/header", jm{"header": jm{"config": jm{"provider": "deepseek-official", "model": "deepseek-v4-flash"}}, "reason": "initial"})
}

// call logs a tool call and its result (blocks as dsh logs them) and
// returns the result's seq.
func (f *dshFile) call(id, tool string, blocks ...any) int64 {
	f.turn++
	f.log.Event("assistant/message", jm{"turn": f.turn, "step": 1, "message": jm{"id": "m-" + id, "role": "assistant",
		"content": []any{jm{"type": "tool-call", "id": id, "name": tool, "arguments": "{}"}}},
		"usage": jm{"inputTokens": 100, "outputTokens": 10, "cacheReadTokens": 1000}}, "surfaceOp", "append")
	cs := f.log.Event("tool/call", jm{"turn": f.turn, "step": 1, "callId": id, "name": tool, "arguments": "{}"})
	return f.result(id, cs, blocks, "append")
}

func (f *dshFile) result(id string, callSeq int64, blocks []any, op any) int64 {
	msg := jm{"id": "r-" + id, "role": "user", "source": jm{"kind": "tool", "callId": id},
		"content": []any{jm{"type": "tool-result", "toolCallId": id, "content": blocks, "isError": false}}}
	if f.v4 {
		msg = jm{"id": "r-" + id, "role": "tool", "source": jm{"kind": "tool", "callId": id}, "toolCallId": id, "content": blocks, "isError": false}
	}
	return f.log.Event("tool/result", jm{"turn": f.turn, "step": 1, "message": msg}, "surfaceOp", op, "sourceEventSeqs", []int64{callSeq})
}

func txt(s string) jm { return jm{"type": "text", "text": s} }

func dshHeader(id string, version int) jm {
	return jm{"type": "session", "version": version, "id": id, "createdAt": 1780000000000, "cwd": "/w/" + id, "delegationDepth": 0}
}

func resultsByCall(t *testing.T, d *DB) map[string]ResultRow {
	t.Helper()
	rows, err := d.Results(t.Context(), ResultFilter{})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]ResultRow{}
	for _, r := range rows {
		if _, dup := out[r.CallID]; dup {
			t.Errorf("call %s indexed twice", r.CallID)
		}
		out[r.CallID] = r
	}
	return out
}

// TestDshIncremental: a growing log is read where it grew (zstd: frame by
// frame; raw: line by line), every result once with a stable id; a torn
// tail (half a frame, half a line) is one diagnostic until a later pass
// finds it complete.
func TestDshIncremental(t *testing.T) {
	for _, zstd := range []bool{true, false} {
		name := map[bool]string{true: "zstd", false: "raw"}[zstd]
		t.Run(name, func(t *testing.T) {
			root := t.TempDir()
			file := "session.v4.jsonl"
			if zstd {
				file += ".zstd"
			}
			f := newDshFile(t, filepath.Join(root, "sessions", "--w--", "s1", file), dshHeader("s1", 4), zstd)
			f.route()
			f.call("c1", "bash", txt("first output"))
			f.flush()
			d := openTemp(t)
			if s := index(t, d, root); s.ToolResults != 1 || s.Sessions != 1 || s.PerHarness[HarnessDsh].Files != 1 {
				t.Fatalf("first pass %+v", s)
			}
			before := resultsByCall(t, d)

			f.call("c2", "grep", txt("second output"))
			f.flush()
			s := index(t, d, root)
			after := resultsByCall(t, d)
			if s.ToolResults != 2 || s.ChangedFiles != 1 || after["c1"].ID != before["c1"].ID || after["c2"].ToolName != "grep" {
				t.Fatalf("second pass %+v, rows %+v", s, after)
			}
			var cursor string
			if err := d.db.QueryRow(`SELECT cursor FROM files`).Scan(&cursor); err != nil || !strings.Contains(cursor, `"offset"`) {
				t.Errorf("cursor %q %v", cursor, err)
			}

			// Half of the next batch: a torn frame, or a line without its end.
			f.call("c3", "read_file", txt(strings.Repeat("third output ", 400)))
			next := f.log.Take()
			f.appendBytes(next[:len(next)/2])
			s = index(t, d, root)
			if got := diagCodes(t, d); s.ToolResults != 2 || got[DiagTornTail] != 1 || len(got) != 1 {
				t.Fatalf("torn pass %+v, diagnostics %v", s, got)
			}
			f.appendBytes(next[len(next)/2:])
			s = index(t, d, root)
			last := resultsByCall(t, d)
			if got := diagCodes(t, d); s.ToolResults != 3 || len(got) != 0 || last["c1"].ID != before["c1"].ID || last["c2"].ID != after["c2"].ID {
				t.Fatalf("completed pass %+v, diagnostics %v, rows %+v", s, got, last)
			}
			_, res, err := d.LoadResult(t.Context(), last["c3"].ID)
			if err != nil || !strings.HasPrefix(res.Content[0].Text, "third output") {
				t.Errorf("read back %+v %v", res, err)
			}
			// A pass over an unchanged log changes nothing.
			if s := index(t, d, root); s.ChangedFiles != 0 || s.ToolResults != 3 {
				t.Errorf("unchanged pass %+v", s)
			}
		})
	}
}

// TestDshSpillOwner: a notice naming this session's spill folder is
// followed; one naming another session's folder is marked other-session
// and never opened, though the file exists and the other session's rule
// would allow it.
func TestDshSpillOwner(t *testing.T) {
	base := t.TempDir()
	root, tmp := filepath.Join(base, "root"), filepath.Join(base, "tmp")
	env := Env{Getenv: func(k string) string {
		return map[string]string{"HOME": filepath.Join(base, "home"), "TMPDIR": tmp}[k]
	}}
	own := filepath.Join(tmp, "dsh-spill-Ab12Cd", DshSessionFolder("s1"), "0123456789ab-bash.txt")
	other := filepath.Join(tmp, "dsh-spill-Ab12Cd", DshSessionFolder("s2"), "0123456789ab-bash.txt")
	for _, p := range []string{own, other} {
		writeFile(t, p, "the whole output")
	}
	notice := func(p string) string {
		return "head\n\n" + retention.FormatSpillNotice(retention.ExactOmission(9), retention.SpillRef{Locator: p}, 0)
	}
	f := newDshFile(t, filepath.Join(root, "sessions", "--w--", "s1", "session.jsonl"), dshHeader("s1", 0), false)
	f.call("mine", "bash", txt(notice(own)))
	f.call("theirs", "bash", txt(notice(other)))
	f.flush()
	d := openTemp(t)
	d.SetEnv(env)
	index(t, d, root)
	rows := resultsByCall(t, d)
	if r := rows["mine"]; r.SpillState != FileExists || r.Spill.Kind != "dsh-bytes" {
		t.Errorf("own notice %+v %s", r.Spill, r.SpillState)
	}
	r := rows["theirs"]
	if r.SpillState != FileOtherSession {
		t.Fatalf("other session's notice: state %q", r.SpillState)
	}
	ref := d.sessionRef(r.Harness, r.Path, r.Root, r.SessionID, nil)
	if c := RuleFor(ref, r.Spill.Kind).Check(other); c.State != FileOutside {
		t.Errorf("the file rule lets the session open another session's file: %+v", c)
	}
	sf, err := d.OpenSpill(t.Context(), r.ID, nil)
	if err != nil || sf.File != nil || sf.State != FileOtherSession {
		t.Errorf("OpenSpill %+v %v", sf.FileCheck, err)
	}
	if sf.File != nil {
		sf.File.Close()
	}
}

func pngBytes(t *testing.T, w, h int) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewRGBA(image.Rect(0, 0, w, h))); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestDshSessionFacts: the header's cwd and the route's provider and model;
// a subagent nested under its parent with its own spill folder; images
// stored from dsh's attachment store, a missing object a diagnostic; usage
// per (turn, step); and a prune's replacement with what the model saw last.
func TestDshSessionFacts(t *testing.T) {
	root := t.TempDir()
	home := filepath.Join(root, "dsh")
	img := pngBytes(t, 3, 2)
	sum := sha256.Sum256(img)
	hx := hex.EncodeToString(sum[:])
	writeFile(t, filepath.Join(home, "attachments", "v1", "objects", hx[:2], hx), string(img))
	gone := strings.Repeat("ab", 32)
	att := func(h string) jm {
		return jm{"type": "image", "attachment": jm{"attachmentId": "sha256:" + h, "mediaType": "image/png", "bytes": len(img), "width": 3, "height": 2}}
	}
	f := newDshFile(t, filepath.Join(home, "sessions", "--p--", "parent", "session.v4.jsonl.zstd"), dshHeader("parent", 4), true)
	f.route()
	f.call("shot", "read_image", txt("<path>x.png</path>"), att(hx))
	f.call("lost", "read_image", txt("<path>y.png</path>"), att(gone))
	big := strings.Repeat("0123456789abcdef", 1024)
	seq := f.call("big", "bash", txt(big))
	f.flush()
	child := dshHeader("child", 4)
	child["parentSession"], child["origin"], child["delegationDepth"] = "parent", "subagent", 1
	spill := filepath.Join(root, "tmp", "dsh-spill-q1w2e3", DshSessionFolder("child"), "00112233aabb-grep.txt")
	writeFile(t, spill, "whole")
	c := newDshFile(t, filepath.Join(home, "sessions", "--p--", "child", "session.v4.jsonl.zstd"), child, true)
	c.route()
	c.call("g1", "grep", txt("head\n\n[...]\n\ntail\n\n"+retention.FormatSpillNotice(retention.ExactOmission(3), retention.SpillRef{Locator: spill}, 0)))
	c.flush()

	d := openTemp(t)
	s := index(t, d, root)
	if s.Sessions != 1 || s.ToolResults != 4 || s.ToolResultImages != 1 || s.Diagnostics != 1 {
		t.Fatalf("%+v", s)
	}
	ss, _ := d.BrowseSessions(t.Context(), SessionFilter{})
	byAgent := map[string]SessionSummary{}
	for _, x := range ss {
		byAgent[x.AgentID] = x
	}
	p, k := byAgent[""], byAgent["child"]
	if p.SessionID != "parent" || p.Cwd != "/w/parent" || p.Project != "/w/parent" || p.Model != "deepseek-v4-flash" || p.Route != "deepseek-v4" {
		t.Errorf("parent %+v", p)
	}
	if k.SessionID != "parent" || k.Harness != HarnessDsh {
		t.Errorf("child not nested under its parent: %+v", k)
	}
	if p.Input != 300 || p.CacheRead != 3000 || p.Output != 30 {
		t.Errorf("usage %+v", p)
	}
	rows := resultsByCall(t, d)
	if r := rows["g1"]; r.SpillState != FileExists || r.Spill.Kind != "dsh-tokens" {
		t.Errorf("the child's spill file, in its own folder: %+v %s", r.Spill, r.SpillState)
	}
	diags, _ := d.BrowseDiagnostics(t.Context(), 10)
	if len(diags) != 1 || diags[0].Code != DiagBadImage || diags[0].Params["callId"] != "lost" {
		t.Errorf("diagnostics %+v", diags)
	}
	_, res, _ := d.LoadResult(t.Context(), rows["shot"].ID)
	if len(res.Content) != 2 || !strings.HasPrefix(res.Content[1].Path, d.AttachmentDir()) {
		t.Errorf("stored image %+v", res.Content)
	}

	// The pruner replaces the big result; its cut is what the model sees.
	out, err := retention.Retain(retention.Result{Content: []retention.Block{{Type: retention.TypeText, Text: big}}},
		retention.Options{Policy: "dsh-pruner", Budget: ptr(int64(8192))})
	if err != nil || out.Status != retention.StatusReplaced {
		t.Fatalf("pruner %v %v", out.Status, err)
	}
	prune := f.log.Event("compaction/prune", jm{"shadowedRange": jm{"start": seq, "end": seq}, "shadowedSeqs": []int64{seq}, "shadowedTokenCount": 4100})
	f.result("big", seq-1, []any{txt(out.Content[0].Text)}, jm{"op": "replace", "startSeq": seq, "endSeq": seq})
	f.flush()
	if s := index(t, d, root); s.ToolResults != 4 || s.Diagnostics != 1 {
		t.Fatalf("after the prune %+v", s)
	}
	rep, err := d.Replacement(t.Context(), rows["big"].ID)
	if err != nil || rep == nil || rep.Kind != "prune" || rep.EventSeq != prune || rep.Seq != prune+1 || rep.LastSeen == nil ||
		rep.LastSeen.Content[0].Text != out.Content[0].Text {
		t.Fatalf("replacement %+v %v", rep, err)
	}
	if again := resultsByCall(t, d); again["big"].ID != rows["big"].ID {
		t.Errorf("the pruned result changed id")
	}
	if rep, err := d.Replacement(t.Context(), rows["shot"].ID); err != nil || rep != nil {
		t.Errorf("an untouched result has a replacement: %+v %v", rep, err)
	}
}

func ptr[T any](v T) *T { return &v }

// TestDshGenerations: dsh migrates a log into a newer generation beside
// it and leaves the old file as it was; the index keeps the live one only,
// as one session.
func TestDshGenerations(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "sessions", "--w--", "g")
	old := newDshFile(t, filepath.Join(dir, "session.jsonl"), dshHeader("g", 0), false)
	old.call("c1", "bash", txt("one"))
	old.flush()
	d := openTemp(t)
	if s := index(t, d, root); s.Files != 1 || s.ToolResults != 1 {
		t.Fatalf("%+v", s)
	}
	live := newDshFile(t, filepath.Join(dir, "session.v1.jsonl"), dshHeader("g", 1), false)
	live.call("c1", "bash", txt("one"))
	live.call("c2", "bash", txt("two"))
	live.flush()
	s := index(t, d, root)
	if s.Files != 1 || s.Sessions != 1 || s.ToolResults != 2 {
		t.Fatalf("after the migration %+v", s)
	}
	ss, _ := d.BrowseSessions(t.Context(), SessionFilter{})
	if len(ss) != 1 || filepath.Base(ss[0].File) != "session.v1.jsonl" {
		t.Errorf("sessions %+v", ss)
	}
}

// TestReplacementColumnsMigration: an index made before migration 0006
// opens with every result "not replaced".
func TestReplacementColumnsMigration(t *testing.T) {
	root := t.TempDir()
	dbPath := filepath.Join(t.TempDir(), "index.db")
	oldIndex(t, dbPath, root)
	d, err := Open(dbPath)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	var n, null int
	if err := d.db.QueryRow(`SELECT COUNT(*), COUNT(*) FILTER (WHERE replaced_kind IS NULL AND last_key = '') FROM tool_results`).Scan(&n, &null); err != nil || n != 2 || null != 2 {
		t.Fatalf("%d rows, %d not replaced: %v", n, null, err)
	}
	for _, id := range []int64{41, 42} {
		if rep, err := d.Replacement(t.Context(), id); err != nil || rep != nil {
			t.Errorf("result %d: %+v %v", id, rep, err)
		}
	}
}
