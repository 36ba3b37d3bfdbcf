package sessions

import (
	"path/filepath"
	"reflect"
	"testing"
)

// TestCompactionPairs: the two records of a compaction are one Compaction
// in every order a harness can give them, by kind and place for a line log
// and by key where the harness links them; a second record without its
// first stands alone.
func TestCompactionPairs(t *testing.T) {
	first := func(p *Parsed, c Compaction) { p.AddCompaction(c) }
	second := func(p *Parsed, c Compaction) { p.CloseCompaction(c) }
	type step struct {
		add func(*Parsed, Compaction)
		c   Compaction
	}
	tests := []struct {
		name  string
		steps []step
		want  []Compaction
	}{
		{"a boundary and its summary", []step{
			{first, Compaction{Kind: "k", At: "t1", Line: 2, Trigger: "auto", TokensBefore: 9}},
			{second, Compaction{Kind: "k", At: "t2", Line: 3}}},
			[]Compaction{{Key: "line:2", Kind: "k", At: "t1", Line: 2, EndLine: 3, Trigger: "auto", TokensBefore: 9}}},
		{"the second record brings the counts", []step{
			{first, Compaction{Kind: "k", Line: 5}},
			{second, Compaction{Kind: "k", Line: 7, TokensBefore: 90, TokensAfter: 8}}},
			[]Compaction{{Key: "line:5", Kind: "k", Line: 5, EndLine: 7, TokensBefore: 90, TokensAfter: 8}}},
		{"a second record alone, and one after a closed pair", []step{
			{second, Compaction{Kind: "k", Line: 1}},
			{first, Compaction{Kind: "k", Line: 2}},
			{second, Compaction{Kind: "k", Line: 3}},
			{second, Compaction{Kind: "k", Line: 4}}},
			[]Compaction{{Key: "line:1", Kind: "k", Line: 1, EndLine: 1}, {Key: "line:2", Kind: "k", Line: 2, EndLine: 3},
				{Key: "line:4", Kind: "k", Line: 4, EndLine: 4}}},
		{"another kind or session is not closed", []step{
			{first, Compaction{Kind: "k", Line: 1}},
			{second, Compaction{Kind: "other", Line: 2}},
			{second, Compaction{Session: "sub", Kind: "k", Line: 3}}},
			[]Compaction{{Key: "line:1", Kind: "k", Line: 1}, {Key: "line:2", Kind: "other", Line: 2, EndLine: 2},
				{Session: "sub", Key: "line:3", Kind: "k", Line: 3, EndLine: 3}}},
		{"linked by key, in order", []step{
			{first, Compaction{Key: "message:u", Kind: "k", At: "t1", Trigger: "manual"}},
			{second, Compaction{Key: "message:u", Kind: "k", At: "t2"}}},
			[]Compaction{{Key: "message:u", Kind: "k", At: "t1", Trigger: "manual"}}},
		{"linked by key, the second first", []step{
			{second, Compaction{Key: "message:u", Kind: "k", At: "t2", Line: 9, TokensAfter: 4}},
			{first, Compaction{Key: "message:u", Kind: "k", At: "t1", Line: 3}}},
			[]Compaction{{Key: "message:u", Kind: "k", At: "t1", Line: 3, EndLine: 9, TokensAfter: 4}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var p Parsed
			for _, s := range tt.steps {
				s.add(&p, s.c)
			}
			got := make([]Compaction, len(p.Compactions))
			for i, c := range p.Compactions {
				c.closing, c.linked = false, false
				got[i] = c
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

// TestOpenCodeCompactionAcrossPasses: OpenCode's compaction part and the
// summary answering it arrive in different passes over its database, and
// the part is written again after: one compaction throughout, keeping the
// part's time and trigger.
func TestOpenCodeCompactionAcrossPasses(t *testing.T) {
	base := t.TempDir()
	data := filepath.Join(base, "xdg", "opencode")
	oc := newOCDB(t, filepath.Join(data, "opencode.db"))
	oc.session(t, "ses_a")
	oc.message(t, "ses_a", "msg_u", "user")
	oc.part(t, "ses_a", "msg_u", "prt_c", map[string]any{"type": "compaction", "auto": false})
	d := openTemp(t)
	d.SetEnv(testEnv(map[string]string{"HOME": base, "XDG_DATA_HOME": filepath.Join(base, "xdg"), "TMPDIR": base}))
	index(t, d, data)
	check := func(pass string) {
		t.Helper()
		s := sessionsOf(t, d, HarnessOpenCode)["ses_a"]
		cs := compactionsOf(t, d, s)
		if len(cs) != 1 || s.Compactions != 1 || cs[0].Key != "message:msg_u" || cs[0].Trigger != "manual" || cs[0].At != "2026-03-18T21:00:02Z" {
			t.Errorf("%s: %d compactions %+v", pass, s.Compactions, cs)
		}
	}
	check("the part alone")
	oc.message(t, "ses_a", "msg_s", "assistant", "summary", true, "parentID", "msg_u", "tokens", map[string]any{"input": 10, "output": 2})
	index(t, d, data)
	check("with its summary")
	oc.update(t, "prt_c", map[string]any{"type": "compaction", "auto": false, "overflow": true})
	index(t, d, data)
	check("the part written again")
}
