package opencode

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"spillscope/sessions/internal/testkit"
)

// writeStorage lays out a storage folder as OpenCode's storage.ts writes
// it: session/<project>/<session>.json, message/<session>/<message>.json,
// part/<message>/<part>.json, each record without the ids its path holds
// being required (OpenCode's own migration takes ids from paths).
func writeStorage(t *testing.T, root string) {
	t.Helper()
	testkit.WriteFile(t, filepath.Join(root, "session", "proj1", "ses_1.json"), testkit.MustJSON(t, map[string]any{"id": "ses_1", "projectID": "proj1",
		"directory": "/w", "title": "Fix it", "version": "1.1.40", "parentID": "ses_0", "time": map[string]any{"created": 1, "updated": 2}}))
	testkit.WriteFile(t, filepath.Join(root, "message", "ses_1", "msg_a.json"), testkit.MustJSON(t, map[string]any{"id": "msg_a", "sessionID": "ses_1",
		"role": "user", "time": map[string]any{"created": 1}, "agent": "build", "model": map[string]any{"providerID": "p", "modelID": "m"}}))
	a := assistantInfo("msg_b", 2)
	a["sessionID"] = "ses_1"
	testkit.WriteFile(t, filepath.Join(root, "message", "ses_1", "msg_b.json"), testkit.MustJSON(t, a))
	testkit.WriteFile(t, filepath.Join(root, "part", "msg_a", "prt_1.json"), testkit.MustJSON(t, map[string]any{"id": "prt_1", "type": "text", "text": "go"}))
	p := toolPart("c1", "read", "completed", "1: a", nil)
	p["id"] = "prt_2"
	testkit.WriteFile(t, filepath.Join(root, "part", "msg_b", "prt_2.json"), testkit.MustJSON(t, p))
	s := stepFinish(1, 2, 3, 4)
	s["id"] = "prt_3"
	testkit.WriteFile(t, filepath.Join(root, "part", "msg_b", "prt_3.json"), testkit.MustJSON(t, s))
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
	if len(c1.Sessions) != 1 || !c1.Sessions[0].Complete || c1.Sessions[0].ParentID != "ses_0" || c1.Sessions[0].Model != "claude-opus-4-6" {
		t.Fatalf("%+v", c1.Sessions)
	}
	if !reflect.DeepEqual(c1.calls(), []string{"c1"}) || c1.Results[0].SessionID != "ses_1" || c1.Results[0].PartID != "prt_2" || c1.Results[0].MessageID != "msg_b" {
		t.Fatalf("%+v", c1.Results)
	}
	if len(c1.Usage) != 1 || c1.Usage[0].Key != "prt_3" || c1.Usage[0].CacheWrite != 4 {
		t.Errorf("%+v", c1.Usage)
	}
	back, err := ReadResult(context.Background(), root, c1.Results[0].Locator)
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
	if err != nil || len(c2.Sessions)+len(c2.Results) != 0 || cur2 != cur {
		t.Fatalf("unchanged pass reported %d sessions %d results, cursor %+v→%+v (%v)", len(c2.Sessions), len(c2.Results), cur, cur2, err)
	}

	// a part rewritten (the call's state moved on) re-reads the session whole
	p := toolPart("c1", "read", "completed", "1: a\n2: b", nil)
	p["id"] = "prt_2"
	path := filepath.Join(root, "part", "msg_b", "prt_2.json")
	testkit.WriteFile(t, path, testkit.MustJSON(t, p))
	later := time.Unix(0, cur.Since).Add(time.Second)
	os.Chtimes(path, later, later)
	var c3 collected
	if _, err := ReadStorage(context.Background(), root, cur, c3.handler()); err != nil {
		t.Fatal(err)
	}
	if len(c3.Sessions) != 1 || !c3.Sessions[0].Complete || len(c3.Results) != 1 || c3.Results[0].Blocks[0].Text != "1: a\n2: b" {
		t.Errorf("after rewrite: %+v %+v", c3.Sessions, c3.Results)
	}

	// a broken part file is one diagnostic; the rest is read
	testkit.WriteFile(t, filepath.Join(root, "part", "msg_b", "prt_9.json"), "{")
	var c4 collected
	if _, err := ReadStorage(context.Background(), root, StorageCursor{}, c4.handler()); err != nil {
		t.Fatal(err)
	}
	if got := c4.Codes(); !reflect.DeepEqual(got, []string{DiagBadJSON}) || len(c4.Results) != 1 {
		t.Errorf("%v %d", got, len(c4.Results))
	}
}
