package dsh

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
)

// fuzzRead reads data as a log and checks what must hold for any input:
// no error but the not-a-session one, a cursor inside the data, and every
// result read back from its locator as the same call.
func fuzzRead(t *testing.T, data []byte) []string {
	t.Helper()
	src := bytes.NewReader(data)
	var calls []string
	var locs []Locator
	h := Handler{Result: func(r *Result) error {
		calls = append(calls, r.CallID)
		locs = append(locs, r.Locator)
		return nil
	}}
	p, err := read(src, int64(len(data)), "fuzz", nil, Options{Home: "/h", MaxLine: 1 << 16}, h)
	if err != nil {
		return nil
	}
	if p.Cursor.Offset < 0 || p.Cursor.Offset > int64(len(data)) || p.Cursor.Line < 1 {
		t.Fatalf("cursor %+v outside %d bytes", p.Cursor, len(data))
	}
	for i, loc := range locs {
		back, err := readResultAt(src, int64(len(data)), "fuzz", loc, Options{Home: "/h", MaxLine: 1 << 16})
		if err != nil {
			t.Fatalf("result %s at %s does not read back: %v", calls[i], loc, err)
		}
		if back.CallID != calls[i] {
			t.Fatalf("%s reads back %s, want %s", loc, back.CallID, calls[i])
		}
	}
	// Reading on from the cursor finds nothing more.
	var more int
	if _, err := read(src, int64(len(data)), "fuzz", &p.Cursor, Options{MaxLine: 1 << 16},
		Handler{Result: func(*Result) error { more++; return nil }}); err != nil || more != 0 {
		t.Fatalf("reading on from the end: %d results, %v", more, err)
	}
	return calls
}

func seedLogs(t testing.TB) []*logBuilder {
	return []*logBuilder{v2Session(t), v3Session(t), v4Parent(t), v4Child(t), manySession(t, 3)}
}

// FuzzFrameReader feeds arbitrary bytes after a valid header frame: torn,
// damaged and garbage frames must never panic, loop or lose the cursor.
func FuzzFrameReader(f *testing.F) {
	for _, l := range seedLogs(f) {
		z := l.zstdBytes()
		f.Add(z[len(zstdFrames(f, l.frames()[0])):])
		f.Add(z[len(zstdFrames(f, l.frames()[0])) : len(z)-3])
	}
	f.Add([]byte{0x28, 0xB5, 0x2F, 0xFD, 0x08})
	f.Add([]byte{0x50, 0x2A, 0x4D, 0x18, 0xFF, 0xFF, 0xFF, 0x7F})
	header := zstdFrames(f, []byte(`{"type":"session","version":3,"id":"fz","createdAt":0,"isSeeded":false,"delegationDepth":0}`+"\n"))
	f.Fuzz(func(t *testing.T, tail []byte) {
		fuzzRead(t, append(bytes.Clone(header), tail...))
	})
}

// FuzzEventReader feeds arbitrary lines after a valid header, raw and cut
// into zstd frames at points the input chooses: both must read the same.
func FuzzEventReader(f *testing.F) {
	for _, l := range seedLogs(f) {
		raw := l.rawBytes()
		f.Add(raw[bytes.IndexByte(raw, '\n')+1:], uint16(97))
	}
	f.Add([]byte(`{"type":"tool/result","data":{"message":{"role":"tool","toolCallId":"x","content":[{"type":"image","attachment":{"attachmentId":"sha256:zz"}}]}},"surfaceOp":{"op":"replace","startSeq":0,"endSeq":0}}`+"\n"), uint16(5))
	f.Add([]byte(`{"type":"text-chunks","seq0":5,"data":{"texts":["a","b","c"]}}`+"\n"+`{"type":"tool/result","sourceEventSeqs":[[0,99999999999]],"data":{}}`+"\n"), uint16(3))
	header := []byte(`{"type":"session","version":2,"id":"fz","createdAt":0,"isSeeded":false,"delegationDepth":0}` + "\n")
	f.Fuzz(func(t *testing.T, body []byte, step uint16) {
		raw := append(bytes.Clone(header), body...)
		got := fuzzRead(t, raw)
		n := int(step)%4096 + 1
		frames := [][]byte{header}
		for i := 0; i < len(body); i += n {
			frames = append(frames, body[i:min(i+n, len(body))])
		}
		z := fuzzRead(t, zstdFrames(t, frames...))
		if !reflect.DeepEqual(got, z) {
			t.Fatalf("raw read %v, zstd read %v", got, z)
		}
	})
}

// FuzzJSONScan checks the in-place scanner against encoding/json: a string
// literal decodes to the same text, an integer to the same number, and the
// members of an object are the same keys with the same values.
func FuzzJSONScan(f *testing.F) {
	for _, s := range []string{`"a\nb"`, `"\ud83d\ude00 \u00e9"`, `"\ud800x"`, "\"\xff\"", `{"a":1,"b":[1,{"c":"}"}],"d":"\\"}`, `-12`, `[1,"]",{}]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var s string
		if json.Unmarshal(b, &s) == nil {
			got, ok := jstr(bytes.TrimSpace(b))
			if !ok || got != s {
				t.Fatalf("jstr(%q) = %q, %v; encoding/json says %q", b, got, ok, s)
			}
		}
		var n int64
		if json.Unmarshal(b, &n) == nil && bytes.IndexAny(b, ".eE") < 0 {
			if got, ok := jint(bytes.TrimSpace(b)); !ok || got != n {
				t.Fatalf("jint(%q) = %d, %v; encoding/json says %d", b, got, ok, n)
			}
		}
		var m map[string]json.RawMessage
		if json.Unmarshal(b, &m) == nil && m != nil {
			seen := map[string]string{}
			if !fields(b, func(k, v []byte) bool {
				key, _ := jstr(append(append([]byte{'"'}, k...), '"'))
				seen[key] = string(v)
				return true
			}) {
				t.Fatalf("fields could not walk %q", b)
			}
			if len(seen) != len(m) {
				t.Fatalf("fields found %d keys in %q, encoding/json %d", len(seen), b, len(m))
			}
			for k, v := range m {
				if seen[k] != string(v) {
					t.Fatalf("key %q: fields %q, encoding/json %q", k, seen[k], v)
				}
			}
		}
		items(b, func([]byte) bool { return true })
	})
}
