package sessions

import (
	"reflect"
	"testing"
)

func TestScanLine(t *testing.T) {
	known := map[string]bool{"user": true, "progress": true}
	tests := []struct {
		name     string
		line     string
		wantOK   bool
		wantDiag string
		code     string
		params   map[string]string
	}{
		{"blank", " \t", false, "", "", nil},
		{"known", `{"type":"user","x":1}`, true, "", "", nil},
		{"not an object", `[1,2]`, false, `not a JSON object (starts with "[1")`, DiagNotJSON, map[string]string{"start": `"[1"`}},
		{"trailing bytes", `{"type":"user"} x`, false, `not a JSON object (starts with "{\"")`, DiagNotJSON, map[string]string{"start": `"{\""`}},
		{"no type", `{"x":1}`, false, `line has no "type"`, DiagNoType, map[string]string{}},
		{"unknown type", `{"type":"other"}`, false, `unknown line type "other": 1 line skipped`, DiagUnknownType, map[string]string{"type": "other", "count": "1", "firstLine": "7"}},
		// fn stops at a type it skips: what follows is never read, so a
		// broken tail is no fault.
		{"stopped early", `{"type":"progress",`, true, "", "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := []byte(tt.line)
			var p Parsed
			var typ string
			got := scanLine(Line{Bytes: b, Number: 7}, &p, known, &typ, func(k []byte, vs, ve int) bool {
				if string(k) == "type" {
					typ, _ = str(b[vs:ve])
					return typ != "progress"
				}
				return true
			})
			if got != tt.wantOK {
				t.Errorf("ok = %v, want %v", got, tt.wantOK)
			}
			var want []Diagnostic
			if tt.wantDiag != "" {
				want = []Diagnostic{{Line: 7, Code: tt.code, Params: tt.params, Message: tt.wantDiag}}
			}
			if !reflect.DeepEqual(p.Diags, want) {
				t.Errorf("diags = %+v, want %+v", p.Diags, want)
			}
		})
	}
}

func TestSplitCached(t *testing.T) {
	tests := []struct {
		name                string
		in, cached          int64
		wantFresh, wantRead int64
	}{
		{"none cached", 100, 0, 100, 0},
		{"part cached", 100, 30, 70, 30},
		{"all cached", 100, 100, 0, 100},
		{"cached above input", 100, 130, 0, 100},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fresh, read := splitCached(tt.in, tt.cached)
			if fresh != tt.wantFresh || read != tt.wantRead {
				t.Errorf("splitCached(%d, %d) = %d, %d; want %d, %d", tt.in, tt.cached, fresh, read, tt.wantFresh, tt.wantRead)
			}
		})
	}
}
