package opencode

import (
	"path/filepath"
	"reflect"
	"testing"
)

func TestDefaultSources(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	s := DefaultSources(env(map[string]string{"HOME": "/home/u"}))
	if s.Data != "/home/u/.local/share/opencode" || s.Storage != s.Data+"/storage" || s.ToolOutput != s.Data+"/tool-output" ||
		!reflect.DeepEqual(s.Databases, []string{s.Data + "/opencode.db"}) {
		t.Errorf("%+v", s)
	}
	s = DefaultSources(env(map[string]string{"HOME": "/home/u", "XDG_DATA_HOME": "/x", DBEnv: "alt.db"}))
	if s.Data != "/x/opencode" || !reflect.DeepEqual(s.Databases, []string{"/x/opencode/opencode.db", "/x/opencode/alt.db"}) {
		t.Errorf("%+v", s)
	}
	roots := DefaultRoots(env(map[string]string{"HOME": "/home/u", DBEnv: "/elsewhere/o.db"}))
	if !reflect.DeepEqual(roots, []string{"/home/u/.local/share/opencode", "/elsewhere"}) {
		t.Errorf("%v", roots)
	}
}

func TestSpill(t *testing.T) {
	r := Spill(func(k string) string { return map[string]string{"HOME": "/home/u"}[k] })
	dir := "/home/u/.local/share/opencode/tool-output"
	for path, want := range map[string]bool{
		filepath.Join(dir, "tool_c3eee3824001r2ysEXPDkHoY3U"):     true,
		filepath.Join(dir, "tool_c3eee3824001r2ysEXPDkHoY3U.txt"): false,
		filepath.Join(dir, "tool_x"):                              false,
		"/tmp/tool_c3eee3824001r2ysEXPDkHoY3U":                    false,
		dir + "/../tool-output/tool_c3eee3824001r2ysEXPDkHoY3U":   true,
		dir + "/../../tool_c3eee3824001r2ysEXPDkHoY3U":            false,
	} {
		if got := r.Match(path); got != want {
			t.Errorf("Match(%q) = %v", path, got)
		}
	}
}
