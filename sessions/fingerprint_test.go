package sessions

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fpInputs are a small file and one past both 64 KB windows.
func fpInputs() (small, big []byte) {
	return []byte("{\"a\":1}\n{\"b\":2}\n"), bytes.Repeat([]byte("0123456789abcdef{\"k\":\"v\"}\n"), 10000)
}

// Fingerprints an index wrote before the CRC pair (sha256 hex, taken from
// that build) still match the same bytes, and no longer match once the
// head, the tail or the length changes: an index written then resumes.
func TestLegacyFingerprintsStillMatch(t *testing.T) {
	small, big := fpInputs()
	for _, tc := range []struct {
		name string
		b    []byte
		n    int64
		fp   string
	}{
		{"small whole", small, 16, "c58a357e882f774aa1ea4daa06aceb14a77ca151c6f1e3a157c9bae73d0b2c86"},
		{"small prefix", small, 8, "88de571766c474878582d8e30c66f465acd428422661925533c60a3d4633f409"},
		{"big whole", big, int64(len(big)), "74151f411452e3f88a56301c94adeb14d6d3eb66c995b27dd435efee10be29d2"},
		{"big prefix", big, 70000, "460e8625eddf0988b895fe212ebf51659367bbdc4d7719273061466b73d9f401"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if !sameFingerprint(bytes.NewReader(tc.b), tc.n, tc.fp) {
				t.Fatalf("the sha256 fingerprint of the first %d bytes no longer matches", tc.n)
			}
			head := bytes.Clone(tc.b)
			head[0] ^= 1
			tail := bytes.Clone(tc.b)
			tail[tc.n-1] ^= 1
			for what, b := range map[string][]byte{"head": head, "tail": tail} {
				if sameFingerprint(bytes.NewReader(b), tc.n, tc.fp) {
					t.Errorf("a changed %s still matches", what)
				}
			}
			if tc.n > 1 && sameFingerprint(bytes.NewReader(tc.b), tc.n-1, tc.fp) {
				t.Error("a shorter prefix still matches")
			}
		})
	}
}

// The CRC-pair fingerprint names its scheme, is the same for the same
// prefix whatever follows it (an append), and changes with the head, the
// tail and the length.
func TestFingerprintTellsChanges(t *testing.T) {
	small, big := fpInputs()
	for _, tc := range []struct {
		name string
		b    []byte
		n    int64
	}{
		{"small whole", small, int64(len(small))},
		{"small prefix", small, 8},
		{"big whole", big, int64(len(big))},
		{"big prefix", big, 70000},
		{"big within one window", big, 1000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fp, err := fingerprint(bytes.NewReader(tc.b), tc.n)
			if err != nil || !strings.HasPrefix(fp, fpCRC) || len(fp) != len(fpCRC)+16 {
				t.Fatalf("fingerprint = %q, %v", fp, err)
			}
			appended := append(bytes.Clone(tc.b), "{\"more\":true}\n"...)
			if !sameFingerprint(bytes.NewReader(appended), tc.n, fp) {
				t.Error("bytes after the prefix changed its fingerprint")
			}
			for _, at := range []int64{0, tc.n - 1} {
				b := bytes.Clone(tc.b)
				b[at] ^= 0x20
				if sameFingerprint(bytes.NewReader(b), tc.n, fp) {
					t.Errorf("a change at byte %d kept the fingerprint", at)
				}
			}
			if other, _ := fingerprint(bytes.NewReader(tc.b), tc.n-1); other == fp {
				t.Error("a shorter prefix has the same fingerprint")
			}
		})
	}
}

// A line log whose cursor an older build wrote (a sha256 fingerprint)
// resumes after its last line instead of being read whole, and the cursor
// it leaves has the new scheme.
func TestLineLogResumesLegacyCursor(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.jsonl")
	first := "{\"type\":\"a\"}\n{\"type\":\"b\"}\n"
	if err := os.WriteFile(path, []byte(first), 0o600); err != nil {
		t.Fatal(err)
	}
	sum := sha256.New()
	sum.Write([]byte(first))
	fmt.Fprintf(sum, "|%d", len(first))
	legacy := fmt.Sprintf("%d:3:%s", len(first), hex.EncodeToString(sum.Sum(nil)))
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("{\"type\":\"c\"}\n")
	f.Close()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	var seen []int64
	st, err := readLineLog(context.Background(), Source{Path: path, Size: fi.Size(), Cursor: legacy}, &Parsed{}, "test",
		func(map[string]string) func(Line, *Parsed) {
			return func(l Line, _ *Parsed) { seen = append(seen, l.Number) }
		})
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode != ReadAppended || len(seen) != 1 || seen[0] != 3 {
		t.Fatalf("mode %v, lines %v: want the appended line 3 alone", st.Mode, seen)
	}
	if c, ok := parseLineCursor(st.Cursor); !ok || !strings.HasPrefix(c.fp, fpCRC) || c.offset != fi.Size() || c.line != 4 {
		t.Fatalf("next cursor %q: want the CRC-pair scheme after the last line", st.Cursor)
	}
}
