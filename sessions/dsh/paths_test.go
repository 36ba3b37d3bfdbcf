package dsh

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestEncodeSegment(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"abc-DEF_1.2", "abc-DEF_1.2"},
		{"a/b", "a~002Fb"},
		{"~", "~007E"},
		{".", "~002E"},
		{"..", "~002E~002E"},
		{"...", "..."},
		{"é", "~00E9"},
		{"😀", "~D83D~DE00"},
		{"a b:c\\d", "a~0020b~003Ac~005Cd"},
		{"", "~"},
	} {
		t.Run(c.in, func(t *testing.T) {
			if got := EncodeSegment(c.in); got != c.want {
				t.Errorf("EncodeSegment(%q) = %q, want %q", c.in, got, c.want)
			}
			back, err := DecodeSegment(c.want)
			if err != nil || back != c.in {
				t.Errorf("DecodeSegment(%q) = %q, %v", c.want, back, err)
			}
		})
	}
	for _, bad := range []string{"a/b", "~00e9", "~12", "~GGGG", "a b"} {
		if _, err := DecodeSegment(bad); err == nil {
			t.Errorf("DecodeSegment(%q) accepted", bad)
		}
	}
}

func TestProjectKey(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"/Users/alice/proj", "--Users-alice-proj--"},
		{`D:\DSH`, "--D-DSH--"},
		{"/", "--root--"},
		{"", "--root--"},
		{"//a//b/", "--a-b---"},
		{"/home/u/~x y", "--home-u-~007Ex~0020y--"},
		{"/" + strings.Repeat("a", 300), "--" + strings.Repeat("a", 251) + "--"},
	} {
		if got := ProjectKey(c.in); got != c.want {
			t.Errorf("ProjectKey(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestParseLogName(t *testing.T) {
	for _, c := range []struct {
		name string
		want LogName
		ok   bool
	}{
		{"session.jsonl", LogName{}, true},
		{"session.jsonl.zstd", LogName{Zstd: true}, true},
		{"session.v1.jsonl", LogName{Version: 1}, true},
		{"session.v12.jsonl.zstd", LogName{Version: 12, Zstd: true}, true},
		{"session.v0.jsonl", LogName{}, false},
		{"session.v01.jsonl", LogName{}, false},
		{"session.V2.jsonl", LogName{}, false},
		{"session.v2.jsonl.tmp", LogName{}, false},
		{"session.lock", LogName{}, false},
		{"session.1.jsonl", LogName{}, false},
		{"other.jsonl", LogName{}, false},
	} {
		got, ok := ParseLogName(c.name)
		if ok != c.ok || got != c.want {
			t.Errorf("ParseLogName(%q) = %+v, %v", c.name, got, ok)
		}
	}
	live, older, ok := LiveLog([]string{"session.lock", "session.jsonl.zstd", "session.v3.jsonl", "session.v3.jsonl.zstd", "session.v2.jsonl.zstd"})
	if !ok || live != "session.v3.jsonl.zstd" || !reflect.DeepEqual(older, []string{"session.jsonl.zstd", "session.v3.jsonl", "session.v2.jsonl.zstd"}) {
		t.Errorf("LiveLog = %q %v %v", live, older, ok)
	}
}

func TestRootsAndHome(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	if got := DefaultHome(env(map[string]string{"DSH_HOME": "  "}), "/home/u"); got != "/home/u/.dsh" {
		t.Errorf("blank DSH_HOME: %q", got)
	}
	if got := DefaultRoots(env(map[string]string{"DSH_HOME": "/opt/dsh/"}), "/home/u"); !reflect.DeepEqual(got, []string{"/opt/dsh/sessions"}) {
		t.Errorf("roots %v", got)
	}
	if got := HomeForRoot("/opt/dsh/sessions/"); got != "/opt/dsh" {
		t.Errorf("HomeForRoot %q", got)
	}
	if got := LegacyRoot("/work/p"); got != "/work/p/.sessions" {
		t.Errorf("LegacyRoot %q", got)
	}
	hex := strings.Repeat("ab", 32)
	if p, ok := AttachmentPath("/h", "sha256:"+hex); !ok || p != "/h/attachments/v1/objects/ab/"+hex {
		t.Errorf("AttachmentPath = %q", p)
	}
	for _, bad := range []string{"sha256:../../etc/passwd", "sha256:" + strings.ToUpper(hex), "md5:" + hex, "sha256:" + hex + "/x"} {
		if p, ok := AttachmentPath("/h", bad); ok {
			t.Errorf("AttachmentPath(%q) = %q", bad, p)
		}
	}
}

func TestSpillLayout(t *testing.T) {
	// sha256("abc") = ba7816bf8f01cfea…
	if got := SpillFolder("abc"); got != "session-ba7816bf8f01" {
		t.Errorf("SpillFolder = %q", got)
	}
	if got := SpillFileName("2ce9d7a31a38", "mcp__s/t"); got != "2ce9d7a31a38-mcp__s~002Ft.txt" {
		t.Errorf("SpillFileName = %q", got)
	}
	if got := SpillGlob("/tmp", "abc"); got != "/tmp/dsh-spill-*/session-ba7816bf8f01/*" {
		t.Errorf("SpillGlob = %q", got)
	}
	for _, c := range []struct {
		path, tool string
		want       SpillLink
	}{
		{"/tmp/dsh-spill-Xy12Ab/session-ba7816bf8f01/0123456789ab-bash.txt", "bash",
			SpillLink{Folder: "session-ba7816bf8f01", Owner: SpillOwnSession, DshLayout: true, ToolMatches: true, DefaultRoot: true}},
		{`C:\Users\u\AppData\Local\Temp\dsh-spill-q\session-ba7816bf8f01\0123456789ab-grep.txt`, "bash",
			SpillLink{Folder: "session-ba7816bf8f01", Owner: SpillOwnSession, DshLayout: true, DefaultRoot: true}},
		{"/srv/spills/session-000000000000/0123456789ab-bash.txt", "bash",
			SpillLink{Folder: "session-000000000000", Owner: SpillOtherSession, DshLayout: true, ToolMatches: true}},
		{"/tmp/dsh-spill-a/session-ba7816bf8f01/notes.txt", "bash",
			SpillLink{Folder: "session-ba7816bf8f01", Owner: SpillOwnSession, DefaultRoot: true}},
		{"/spill/bash.txt", "bash", SpillLink{Owner: SpillNoFolder}},
		{"(not saved)", "bash", SpillLink{Owner: SpillNoFolder}},
	} {
		c.want.Path, c.want.Expected = c.path, "session-ba7816bf8f01"
		if got := ClassifySpillPath(c.path, "abc", c.tool); got != c.want {
			t.Errorf("ClassifySpillPath(%q)\n got %+v\nwant %+v", c.path, got, c.want)
		}
	}
}

func TestDiscover(t *testing.T) {
	root := filepath.Join(t.TempDir(), "sessions")
	touch := func(rel string) string {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	key := ProjectKey("/Users/alice/proj")
	id := EncodeSegment("s/1")
	live := touch(key + "/" + id + "/session.v4.jsonl.zstd")
	old := touch(key + "/" + id + "/session.jsonl.zstd")
	touch(key + "/" + id + "/session.lock")
	touch(key + "/" + id + "/session.v5.jsonl.zstd.tmp")
	nocwd := touch("_no-cwd/abc/session.jsonl")
	flat := touch("0123456789ab/legacy-id.jsonl")
	touch("0123456789ab/notes.txt")
	touch("other/abc/session.jsonl")
	touch(key + "/empty/session.lock")
	var got []File
	if err := Discover(root, func(f File) error { got = append(got, f); return nil }); err != nil {
		t.Fatal(err)
	}
	want := []File{
		{Path: live, Root: root, Layout: LayoutProject, Project: key, EncodedID: id, ID: "s/1",
			LogName: LogName{Version: 4, Zstd: true}, Superseded: []string{old}},
		{Path: flat, Root: root, Layout: LayoutFlat, EncodedID: "legacy-id", ID: "legacy-id"},
		{Path: nocwd, Root: root, Layout: LayoutNoCwd, EncodedID: "abc", ID: "abc"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Discover\n got %+v\nwant %+v", got, want)
	}
	for p, want := range map[string]bool{live: false, old: true, nocwd: false} {
		if got, err := IsSuperseded(p); err != nil || got != want {
			t.Errorf("IsSuperseded(%s) = %v, %v", p, got, err)
		}
	}
}
