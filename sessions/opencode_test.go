package sessions

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"spillscope/sessions/opencode"
	"spillscope/sessions/samplegen"
)

// ocDB is an OpenCode database being written as OpenCode writes it (the
// schema samplegen keeps), with a clock for the rows' times.
type ocDB struct {
	*liveDB
	now int64
}

func newOCDB(t *testing.T, path string) *ocDB {
	return &ocDB{liveDB: openLive(t, path, samplegen.OpenCodeSchema+";INSERT INTO project VALUES ('p1', '/w', 1, 1)"), now: 1773867600000}
}

func (o *ocDB) tick() int64 { o.now += 1000; return o.now }

func (o *ocDB) session(t *testing.T, sid string) {
	at := o.tick()
	o.exec(t, `INSERT INTO session (id, project_id, slug, directory, title, version, time_created, time_updated) VALUES (?, 'p1', 's', '/w/'||?, 't', '1.2.27', ?, ?)`, sid, sid, at, at)
}

func (o *ocDB) message(t *testing.T, sid, mid, role string, extra ...any) {
	at := o.tick()
	info := map[string]any{"role": role, "time": map[string]any{"created": at}, "modelID": "claude-sonnet-4-5", "providerID": "anthropic"}
	for i := 0; i+1 < len(extra); i += 2 {
		info[extra[i].(string)] = extra[i+1]
	}
	o.exec(t, `INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?)`, mid, sid, at, at, mustJSON(info))
}

func (o *ocDB) part(t *testing.T, sid, mid, pid string, data map[string]any) {
	at := o.tick()
	o.exec(t, `INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?, ?)`, pid, mid, sid, at, at, mustJSON(data))
}

func (o *ocDB) update(t *testing.T, pid string, data map[string]any) {
	o.exec(t, `UPDATE part SET data = ?, time_updated = ? WHERE id = ?`, mustJSON(data), o.tick(), pid)
}

// ocTool is a tool part as OpenCode stores it.
func ocTool(call, tool, status, output string, metadata map[string]any) map[string]any {
	state := map[string]any{"status": status, "input": map[string]any{"command": "x"}, "title": tool,
		"time": map[string]any{"start": 1773867655218, "end": 1773867655223}}
	if metadata != nil {
		state["metadata"] = metadata
	}
	switch status {
	case "error":
		state["error"] = output
	case "completed":
		state["output"] = output
	}
	return map[string]any{"type": "tool", "callID": call, "tool": tool, "state": state}
}

func ocStep(in, out, read, write int64) map[string]any {
	return map[string]any{"type": "step-finish", "tokens": map[string]any{"input": in, "output": out, "reasoning": 7, "cache": map[string]any{"read": read, "write": write}}}
}

// ocNotice is OpenCode's truncation of an output saved to path.
func ocNotice(path string) string {
	return "line 1\nline 2\n\n...4000 lines truncated...\n\nThe tool call succeeded but the output was truncated. Full output saved to: " + path +
		"\nUse Grep to search the full content or Read with offset/limit to view specific sections."
}

// TestOpenCodeDatabase: one database, many sessions, read by its rows'
// time_updated while OpenCode holds it open: new rows and sessions join,
// a changed row replaces its result under the same id, a reverted part and
// a deleted session leave the index, and spill files are judged by the
// file rule (OpenCode's own tool-output folder; a forged path is never
// opened).
func TestOpenCodeDatabase(t *testing.T) {
	base := t.TempDir()
	data := filepath.Join(base, "xdg", "opencode")
	spill := filepath.Join(data, "tool-output", "tool_0195a1b2c3d4AbCdEfGhIjKlMn")
	writeFile(t, spill, strings.Repeat("full output\n", 4000))
	oc := newOCDB(t, filepath.Join(data, "opencode.db"))
	oc.session(t, "ses_a")
	oc.session(t, "ses_b")
	oc.message(t, "ses_a", "msg_1", "user")
	oc.message(t, "ses_a", "msg_2", "assistant")
	oc.part(t, "ses_a", "msg_2", "prt_01", ocTool("c_bash", "bash", "completed", ocNotice(spill), map[string]any{"truncated": true}))
	oc.part(t, "ses_a", "msg_2", "prt_02", ocTool("c_read", "read", "error", "File not found: /w/x.go", nil))
	oc.part(t, "ses_a", "msg_2", "prt_03", ocTool("c_forged", "webfetch", "completed", ocNotice("/etc/passwd"), nil))
	oc.part(t, "ses_a", "msg_2", "prt_04", ocTool("c_run", "bash", "running", "", nil))
	oc.part(t, "ses_a", "msg_2", "prt_05", ocStep(100, 20, 300, 40))
	oc.part(t, "ses_a", "msg_2", "prt_06", map[string]any{"type": "compaction", "auto": true})
	oc.part(t, "ses_a", "msg_2", "prt_07", map[string]any{"type": "hologram"})
	oc.message(t, "ses_a", "msg_3", "assistant", "summary", true, "parentID", "msg_2", "tokens", map[string]any{"input": 50, "output": 5})
	oc.message(t, "ses_b", "msg_4", "assistant")
	oc.part(t, "ses_b", "msg_4", "prt_08", ocTool("c_grep", "grep", "completed", "a.go:1: match", nil))

	d := openTemp(t)
	d.SetEnv(testEnv(map[string]string{"HOME": base, "XDG_DATA_HOME": filepath.Join(base, "xdg"), "TMPDIR": base}))
	s := index(t, d, data)
	if s.Files != 1 || s.Sessions != 2 || s.ToolResults != 4 || s.SpillNotices != 2 || s.PerHarness[HarnessOpenCode].Sessions != 2 {
		t.Fatalf("first pass %+v", s)
	}
	if _, err := os.Stat(oc.path + "-wal"); err != nil {
		t.Fatalf("the writer's -wal is gone: %v", err)
	}
	first := rowsOf(t, d, HarnessOpenCode)
	t.Run("results", func(t *testing.T) {
		b, r, f := first["c_bash"], first["c_read"], first["c_forged"]
		if b.ToolName != "bash" || b.SessionID != "ses_a" || b.Spill == nil || b.Spill.Kind != opencode.NoticeTruncate || b.SpillState != FileExists || b.SpillResolved != spill {
			t.Errorf("bash %+v", b)
		}
		if !r.IsError || r.ToolName != "read" || textOf(t, d, r.ID) != "File not found: /w/x.go" {
			t.Errorf("read %+v", r)
		}
		if f.Spill == nil || f.Spill.Path != "/etc/passwd" || f.SpillState != FileOutside {
			t.Errorf("forged %+v", f)
		}
		sf, err := d.OpenSpill(t.Context(), f.ID, []string{data})
		if err != nil || sf.File != nil || sf.State != FileOutside {
			t.Errorf("a forged notice's file was opened: %+v %v", sf, err)
		}
		if got := textOf(t, d, b.ID); got != ocNotice(spill) {
			t.Errorf("bash read back %q", got)
		}
		if _, ok := first["c_run"]; ok {
			t.Error("a running call has a result")
		}
	})
	t.Run("sessions, usage, compactions, diagnostics", func(t *testing.T) {
		ss := sessionsOf(t, d, HarnessOpenCode)
		a := ss["ses_a"]
		// The step-finish part's call, and the summary message's own (it
		// has no step-finish part); output counts the reasoning.
		if a.Project != "/w/ses_a" || a.Model != "claude-sonnet-4-5" || a.Input != 150 || a.CacheRead != 300 || a.CacheWrite != 40 || a.Output != 25+7 ||
			a.Reasoning != 7 || a.ModelCalls != 2 {
			t.Errorf("session a %+v", a)
		}
		mc, err := d.ModelCalls(t.Context(), a.ID)
		if err != nil || len(mc) != 2 || mc[0].Model != "claude-sonnet-4-5" || mc[0].Output != mc[0].Reasoning+20 || mc[1].Key != "msg_3" || mc[1].Input != 50 {
			t.Errorf("model calls %+v %v", mc, err)
		}
		// The compaction part and the summary answering it (its parentID
		// is the part's message) are one compaction.
		cs := compactionsOf(t, d, a)
		if len(cs) != 1 || cs[0].Key != "message:msg_2" || cs[0].Kind != CompactionOpenCode || cs[0].Trigger != "auto" || a.Compactions != 1 {
			t.Errorf("compactions %+v", cs)
		}
		if got := diagCodes(t, d); got[DiagUnknownItem] != 1 || len(got) != 1 {
			t.Errorf("diagnostics %v", got)
		}
	})

	// OpenCode finishes the running call, adds a result to b and starts c.
	oc.update(t, "prt_04", ocTool("c_run", "bash", "completed", "done", nil))
	oc.part(t, "ses_b", "msg_4", "prt_09", ocTool("c_ls", "list", "completed", "a.go\nb.go", nil))
	oc.session(t, "ses_c")
	oc.message(t, "ses_c", "msg_5", "assistant")
	oc.part(t, "ses_c", "msg_5", "prt_10", ocTool("c_glob", "glob", "completed", "x", nil))
	// and rewrites a finished part (as compaction marks it).
	oc.update(t, "prt_08", ocTool("c_grep", "grep", "completed", "a.go:1: match\na.go:9: match", nil))
	s = index(t, d, data)
	if s.Sessions != 3 || s.ToolResults != 7 || s.ChangedFiles != 1 {
		t.Fatalf("second pass %+v", s)
	}
	second := rowsOf(t, d, HarnessOpenCode)
	for call, r := range first {
		if second[call].ID != r.ID {
			t.Errorf("%s: id %d, was %d", call, second[call].ID, r.ID)
		}
	}
	if textOf(t, d, second["c_run"].ID) != "done" || second["c_glob"].SessionID != "ses_c" || textOf(t, d, second["c_grep"].ID) != "a.go:1: match\na.go:9: match" {
		t.Errorf("second pass rows %+v", second)
	}
	if s := index(t, d, data); s.ChangedFiles != 0 {
		t.Errorf("an unchanged database was read again: %+v", s)
	}

	// A revert deletes a part; a deleted session goes with its rows.
	oc.exec(t, `DELETE FROM part WHERE id = 'prt_02'`)
	oc.exec(t, `DELETE FROM part WHERE session_id = 'ses_b'`)
	oc.exec(t, `DELETE FROM message WHERE session_id = 'ses_b'`)
	oc.exec(t, `DELETE FROM session WHERE id = 'ses_b'`)
	s = index(t, d, data)
	third := rowsOf(t, d, HarnessOpenCode)
	if s.Sessions != 2 || s.ToolResults != 4 {
		t.Fatalf("after the deletes %+v (%v)", s, third)
	}
	for _, gone := range []string{"c_read", "c_grep", "c_ls"} {
		if _, ok := third[gone]; ok {
			t.Errorf("%s is still indexed", gone)
		}
	}
	for _, kept := range []string{"c_bash", "c_forged", "c_run", "c_glob"} {
		if third[kept].ID != second[kept].ID {
			t.Errorf("%s: id %d, was %d", kept, third[kept].ID, second[kept].ID)
		}
	}
	if _, ok := sessionsOf(t, d, HarnessOpenCode)["ses_b"]; ok {
		t.Error("the deleted session is still listed")
	}

	// OpenCode quits: the database is quiescent (read immutable) and reads
	// the same.
	oc.close()
	if _, err := os.Stat(oc.path + "-wal"); err == nil {
		t.Fatal("the -wal outlived the writer")
	}
	before := listNames(t, data)
	s = index(t, d, data)
	if s.ToolResults != 4 || s.Sessions != 2 {
		t.Errorf("quiescent pass %+v", s)
	}
	if after := listNames(t, data); strings.Join(after, ",") != strings.Join(before, ",") {
		t.Errorf("reading wrote beside the database: %v, was %v", after, before)
	}
}

func listNames(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range es {
		out = append(out, e.Name())
	}
	return out
}

// TestOpenCodeChangedWhileRead: a quiescent database that OpenCode opens
// and writes to while a pass reads it immutable is a Retry: the pass keeps
// nothing, and the next one reads it again from the same cursor.
func TestOpenCodeChangedWhileRead(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "opencode.db")
	oc := newOCDB(t, path)
	oc.session(t, "ses_a")
	oc.message(t, "ses_a", "msg_1", "assistant")
	oc.part(t, "ses_a", "msg_1", "prt_1", ocTool("c1", "bash", "completed", "one", nil))
	oc.close()
	h, _ := LookupHarness(HarnessOpenCode)
	p := &Parsed{}
	var writer *liveDB
	p.OnResult = func(*ToolResult) {
		if writer == nil { // OpenCode starts while the pass is under way
			writer = openLive(t, path, "")
			writer.exec(t, `INSERT INTO session (id, project_id, slug, directory, title, version, time_created, time_updated) VALUES ('ses_z', 'p1', 's', '/w', 't', '1', 9, 9)`)
		}
	}
	st, err := h.Read(t.Context(), Source{Path: path, Cursor: `{"db":{"part":5}}`}, p)
	if err != nil || !st.Retry || st.Cursor != `{"db":{"part":5}}` {
		t.Fatalf("%+v %v", st, err)
	}
	st, err = h.Read(t.Context(), Source{Path: path}, &Parsed{})
	if err != nil || st.Retry {
		t.Fatalf("a pass with the writer open: %+v %v", st, err)
	}
}

// TestOpenCodeExport: an `opencode export` document is one session read
// whole each time; its parts are found again by their byte ranges.
func TestOpenCodeExport(t *testing.T) {
	root := t.TempDir()
	spill := filepath.Join(root, "opencode", "tool-output", "tool_0195a1b2c3d4AbCdEfGhIjKlMz")
	writeFile(t, spill, "whole\n")
	img := "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
	doc := func(extra ...map[string]any) string {
		parts := []any{
			ocTool("c1", "bash", "completed", "...output truncated...\n\nFull output saved to: "+spill+"\n\nlast line", map[string]any{"truncated": true, "outputPath": spill}),
			ocTool("c2", "read", "completed", "(Showing lines 1-30 of 90. Use offset=31 to continue.)", map[string]any{"truncated": true}),
			ocStep(10, 2, 30, 0),
		}
		att := ocTool("c3", "read", "completed", "Image read", nil)
		att["state"].(map[string]any)["attachments"] = []any{map[string]any{"type": "file", "mime": "image/png", "url": "data:image/png;base64," + img}}
		parts = append(parts, att)
		for _, e := range extra {
			parts = append(parts, e)
		}
		b, _ := json.MarshalIndent(map[string]any{
			"info":     map[string]any{"id": "ses_x", "directory": "/w/docs", "version": "1.2.27", "title": "t", "time": map[string]any{"created": 1773867600000, "updated": 1773867700000}},
			"messages": []any{map[string]any{"info": map[string]any{"id": "msg_1", "sessionID": "ses_x", "role": "assistant", "modelID": "gpt-5", "providerID": "openai"}, "parts": parts}},
		}, "", "  ")
		return string(b)
	}
	path := filepath.Join(root, "opencode", "export", "ses_x.json")
	writeFile(t, path, doc())
	d := openTemp(t)
	s := index(t, d, root)
	rows := rowsOf(t, d, HarnessOpenCode)
	if s.Sessions != 1 || s.ToolResults != 3 || s.SpillNotices != 1 || s.ToolResultImages != 1 {
		t.Fatalf("%+v", s)
	}
	if r := rows["c1"]; r.Spill == nil || r.Spill.Kind != opencode.NoticeShell || r.SpillState != FileExists {
		t.Errorf("shell notice %+v", r)
	}
	if ss := sessionsOf(t, d, HarnessOpenCode)["ses_x"]; ss.Model != "gpt-5" || ss.Project != "/w/docs" || ss.Input != 10 || ss.CacheRead != 30 {
		t.Errorf("session %+v", ss)
	}
	// Exported again with one more part: every result keeps its id, and
	// reads back from its new place.
	writeFile(t, path, doc(ocTool("c4", "glob", "completed", "a.md", nil)))
	bump(t, path)
	s = index(t, d, root)
	again := rowsOf(t, d, HarnessOpenCode)
	if s.ToolResults != 4 {
		t.Fatalf("%+v", s)
	}
	for call, r := range rows {
		if again[call].ID != r.ID {
			t.Errorf("%s: id %d, was %d", call, again[call].ID, r.ID)
		}
	}
	if got := textOf(t, d, again["c4"].ID); got != "a.md" {
		t.Errorf("read back %q", got)
	}
	// A document cut off mid-write is read as far as it goes, with one
	// diagnostic.
	full := doc()
	writeFile(t, path, full[:len(full)*3/4])
	bump(t, path)
	index(t, d, root)
	if got := diagCodes(t, d); got[DiagBadRecord] != 1 {
		t.Errorf("diagnostics %v", got)
	}
}

// TestOpenCodeStorage: a session of the JSON storage folder older versions
// wrote is read whole when any of its files changes, and leaves the index
// once OpenCode has migrated it into a database beside it.
func TestOpenCodeStorage(t *testing.T) {
	data := t.TempDir()
	st := filepath.Join(data, "storage")
	sf := filepath.Join(st, "session", "proj1", "ses_s.json")
	writeFile(t, sf, `{"id":"ses_s","directory":"/w/old","version":"1.1.0","time":{"created":1773867600000,"updated":1773867600000}}`)
	writeFile(t, filepath.Join(st, "message", "ses_s", "msg_1.json"), `{"id":"msg_1","sessionID":"ses_s","role":"assistant","modelID":"claude-sonnet-4-5","time":{"created":1773867601000}}`)
	part := func(id, call, out string) {
		p := ocTool(call, "bash", "completed", out, nil)
		p["id"], p["messageID"], p["sessionID"] = id, "msg_1", "ses_s"
		writeFile(t, filepath.Join(st, "part", "msg_1", id+".json"), mustJSON(p))
	}
	part("prt_1", "c1", "one")
	d := openTemp(t)
	if s := index(t, d, data); s.Files != 1 || s.Sessions != 1 || s.ToolResults != 1 {
		t.Fatalf("%+v", s)
	}
	first := rowsOf(t, d, HarnessOpenCode)["c1"]
	part("prt_2", "c2", "two")
	if s := index(t, d, data); s.ToolResults != 2 || s.ChangedFiles != 1 {
		t.Fatalf("a new part file was not read: %+v", s)
	}
	rows := rowsOf(t, d, HarnessOpenCode)
	if rows["c1"].ID != first.ID || textOf(t, d, rows["c2"].ID) != "two" {
		t.Errorf("%+v", rows)
	}
	oc := newOCDB(t, filepath.Join(data, "opencode.db"))
	oc.session(t, "ses_s")
	oc.close()
	s := index(t, d, data)
	if s.Sessions != 1 || s.ToolResults != 0 || s.PerHarness[HarnessOpenCode].Sessions != 1 {
		t.Errorf("after the migration the storage session is still read: %+v", s)
	}
	if ss := sessionsOf(t, d, HarnessOpenCode); ss["ses_s"].File != oc.path {
		t.Errorf("the session is not the database's: %+v", ss)
	}
}

// TestOpenCodeExportCallStart: a step's call is placed at its step-start
// part, before the tools it called (its step-finish comes after them), so
// each result is first carried by the next step's call.
func TestOpenCodeExportCallStart(t *testing.T) {
	root := t.TempDir()
	step := func(id string, in int64) map[string]any { p := ocStep(in, 2, 30, 0); p["id"] = id; return p }
	parts := []any{map[string]any{"type": "step-start"}, ocTool("c1", "bash", "completed", "one", nil), step("prt_f1", 10),
		map[string]any{"type": "step-start"}, ocTool("c2", "read", "completed", "two", nil), step("prt_f2", 20)}
	b, _ := json.MarshalIndent(map[string]any{
		"info":     map[string]any{"id": "ses_s", "directory": "/w", "version": "1.2.27", "time": map[string]any{"created": 1773867600000, "updated": 1773867700000}},
		"messages": []any{map[string]any{"info": map[string]any{"id": "msg_1", "sessionID": "ses_s", "role": "assistant", "modelID": "gpt-5", "providerID": "openai"}, "parts": parts}},
	}, "", "  ")
	path := filepath.Join(root, "opencode", "export", "ses_s.json")
	writeFile(t, path, string(b))
	d := openTemp(t)
	index(t, d, root)
	s := sessionsOf(t, d, HarnessOpenCode)["ses_s"]
	tl, err := d.Timeline(t.Context(), s.ID)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(b), "\n")
	startLine := func(n int) int64 {
		for i, l := range lines {
			if strings.Contains(l, `"step-start"`) {
				if n--; n < 0 {
					return int64(i + 1)
				}
			}
		}
		return -1
	}
	if len(tl.Calls) != 2 || tl.Calls[0].Line > startLine(0)+2 || tl.Calls[1].Line > startLine(1)+2 || tl.Calls[1].Line < startLine(1)-2 {
		t.Fatalf("calls %+v, step-starts at %d and %d", tl.Calls, startLine(0), startLine(1))
	}
	got := map[string]int{}
	for _, r := range tl.Results {
		got[r.CallID] = r.Call
	}
	if got["c1"] != 1 || got["c2"] != -1 {
		t.Errorf("results carried by %v, want c1 by call 1 and c2 by none", got)
	}
}
