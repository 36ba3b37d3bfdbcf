package opencode

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"
)

// writeStorage lays out a storage folder as OpenCode's storage.ts writes
// it: session/<project>/<session>.json, message/<session>/<message>.json,
// part/<message>/<part>.json, each record without the ids its path holds
// being required (OpenCode's own migration takes ids from paths).
func writeStorage(t *testing.T, root string) {
	t.Helper()
	writeFile(t, filepath.Join(root, "session", "proj1", "ses_1.json"), mustJSON(t, map[string]any{"id": "ses_1", "projectID": "proj1",
		"directory": "/w", "title": "Fix it", "version": "1.1.40", "parentID": "ses_0", "time": map[string]any{"created": 1, "updated": 2}}))
	writeFile(t, filepath.Join(root, "message", "ses_1", "msg_a.json"), mustJSON(t, map[string]any{"id": "msg_a", "sessionID": "ses_1",
		"role": "user", "time": map[string]any{"created": 1}, "agent": "build", "model": map[string]any{"providerID": "p", "modelID": "m"}}))
	a := assistantInfo("msg_b", 2)
	a["sessionID"] = "ses_1"
	writeFile(t, filepath.Join(root, "message", "ses_1", "msg_b.json"), mustJSON(t, a))
	writeFile(t, filepath.Join(root, "part", "msg_a", "prt_1.json"), mustJSON(t, map[string]any{"id": "prt_1", "type": "text", "text": "go"}))
	p := toolPart("c1", "read", "completed", "1: a", nil)
	p["id"] = "prt_2"
	writeFile(t, filepath.Join(root, "part", "msg_b", "prt_2.json"), mustJSON(t, p))
	s := stepFinish(1, 2, 3, 4)
	s["id"] = "prt_3"
	writeFile(t, filepath.Join(root, "part", "msg_b", "prt_3.json"), mustJSON(t, s))
}

func TestStorage(t *testing.T) {
	root := filepath.Join(t.TempDir(), "storage")
	writeStorage(t, root)
	if !IsStorage(root) || Detect(root) != KindStorage {
		t.Fatal("storage folder not detected")
	}
	var c1 collected
	cur, err := ReadStorage(context.Background(), root, StorageCursor{}, c1.handler())
	if err != nil {
		t.Fatal(err)
	}
	if len(c1.sessions) != 1 || !c1.sessions[0].Complete || c1.sessions[0].ParentID != "ses_0" || c1.sessions[0].Model != "claude-opus-4-6" {
		t.Fatalf("%+v", c1.sessions)
	}
	if !reflect.DeepEqual(c1.calls(), []string{"c1"}) || c1.results[0].SessionID != "ses_1" || c1.results[0].PartID != "prt_2" || c1.results[0].MessageID != "msg_b" {
		t.Fatalf("%+v", c1.results)
	}
	if len(c1.usage) != 1 || c1.usage[0].Key != "prt_3" || c1.usage[0].CacheWrite != 4 {
		t.Errorf("%+v", c1.usage)
	}
	back, err := ReadResult(context.Background(), root, c1.results[0].Locator)
	if err != nil || back.CallID != "c1" || back.PartID != "prt_2" {
		t.Errorf("ReadResult = %+v, %v", back, err)
	}
	for _, f := range []string{"../etc/passwd", "part/../../x.json", "/abs/part/m/p.json", "session/proj1/ses_1.json", "part/msg_b/missing.json"} {
		if _, err := ReadResult(context.Background(), root, Locator{Source: SourceStorage, File: f}); !errors.Is(err, ErrResultGone) {
			t.Errorf("ReadResult(%q) = %v", f, err)
		}
	}

	// nothing changed: nothing reported
	var c2 collected
	cur2, err := ReadStorage(context.Background(), root, cur, c2.handler())
	if err != nil || len(c2.sessions)+len(c2.results) != 0 || cur2 != cur {
		t.Fatalf("unchanged pass reported %d sessions %d results, cursor %+v→%+v (%v)", len(c2.sessions), len(c2.results), cur, cur2, err)
	}

	// a part rewritten (the call's state moved on) re-reads the session whole
	p := toolPart("c1", "read", "completed", "1: a\n2: b", nil)
	p["id"] = "prt_2"
	path := filepath.Join(root, "part", "msg_b", "prt_2.json")
	writeFile(t, path, mustJSON(t, p))
	later := time.Unix(0, cur.Since).Add(time.Second)
	os.Chtimes(path, later, later)
	var c3 collected
	if _, err := ReadStorage(context.Background(), root, cur, c3.handler()); err != nil {
		t.Fatal(err)
	}
	if len(c3.sessions) != 1 || !c3.sessions[0].Complete || len(c3.results) != 1 || c3.results[0].Blocks[0].Text != "1: a\n2: b" {
		t.Errorf("after rewrite: %+v %+v", c3.sessions, c3.results)
	}

	// a broken part file is one diagnostic; the rest is read
	writeFile(t, filepath.Join(root, "part", "msg_b", "prt_9.json"), "{")
	var c4 collected
	if _, err := ReadStorage(context.Background(), root, StorageCursor{}, c4.handler()); err != nil {
		t.Fatal(err)
	}
	if got := c4.codes(); !reflect.DeepEqual(got, []string{DiagBadJSON}) || len(c4.results) != 1 {
		t.Errorf("%v %d", got, len(c4.results))
	}
}
