package retention

import (
	"crypto/sha256"
	"encoding/hex"
	"path"
	"strconv"
	"strings"
	"unicode/utf16"
)

// Where dsh's local spill backend writes (deepseek-harness
// packages/spill/spill-local/src/store.ts, knyazev741/deepseek-harness @
// 1376315f): <root>/session-<sha256(session id)[:12]>/<12 hex>-<encodeSegment(tool + ".txt")>,
// files 0600 in 0700 folders. The names are pure functions, so Spillscope
// writes files that read as dsh's; writing them is the caller's job.

// DshSessionFolder is the spill folder name of a session: "session-" and the
// first 12 hex digits of the SHA-256 of its id.
func DshSessionFolder(sessionID string) string {
	sum := sha256.Sum256([]byte(sessionID))
	return "session-" + hex.EncodeToString(sum[:])[:12]
}

// DshSpillName is a spill file's name: 12 hex digits (dsh draws them at
// random), a dash, and the encoded suggested name "<tool>.txt".
func DshSpillName(id12, toolName string) string {
	return id12 + "-" + EncodeSegment(toolName+".txt")
}

// DshSpillLocator joins root, the session folder and the file name with "/"
// as dsh's locators read on the systems it runs on.
func DshSpillLocator(root, sessionID, id12, toolName string) string {
	return path.Join(root, DshSessionFolder(sessionID), DshSpillName(id12, toolName))
}

// EncodeSegment is dsh's encodeSegment: every UTF-16 code unit outside
// [A-Za-z0-9._-] (and "~" itself) becomes ~XXXX in upper-case hex, "." and
// ".." are escaped whole and "" becomes "~", so the mapping is injective and
// never traverses.
func EncodeSegment(raw string) string {
	switch raw {
	case "":
		return "~"
	case ".":
		return "~002E"
	case "..":
		return "~002E~002E"
	}
	var b strings.Builder
	for _, r := range raw {
		if r < 0x80 && (r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-') {
			b.WriteRune(r)
			continue
		}
		units := []uint16{uint16(r)}
		if r > 0xFFFF {
			hi, lo := utf16.EncodeRune(r)
			units = []uint16{uint16(hi), uint16(lo)}
		}
		for _, u := range units {
			h := strings.ToUpper(strconv.FormatUint(uint64(u), 16))
			b.WriteString("~" + strings.Repeat("0", 4-len(h)) + h)
		}
	}
	return b.String()
}
