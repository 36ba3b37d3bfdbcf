package sessions

import (
	"crypto/sha256"
	"encoding/hex"

	"spillscope/retention"
)

// ReviewSpillRoot is the spill root a re-run's notice names when the record
// names none: a dsh-shaped locator that does not depend on where Spillscope
// keeps its data, so no figure does.
const ReviewSpillRoot = "/tmp/dsh-spill-review"

// ReviewLocator is what a re-run of an indexed result names in its notice:
// the spill file the record itself names, else a dsh-shaped path built from
// the session and call ids. The window and the CLI both take it from here.
func ReviewLocator(row ResultRow) string {
	if row.Spill != nil && row.Spill.Path != "" {
		return row.Spill.Path
	}
	sum := sha256.Sum256([]byte(row.CallID))
	tool := row.ToolName
	if tool == "" {
		tool = "tool"
	}
	return retention.DshSpillLocator(ReviewSpillRoot, row.SessionID, hex.EncodeToString(sum[:])[:12], tool)
}

// ReviewRoute is the route a re-run of row prices on: the one asked for,
// else the session's own.
func ReviewRoute(row ResultRow, route string) string {
	if route != "" {
		return route
	}
	return row.Route
}

// ComparePolicies are the policies a comparison of a harness's result
// starts with: that harness's own (dsh's two eras for dsh's layout) and
// dsh-tokens, the seed's.
func ComparePolicies(harness string) []string {
	if harness == HarnessSpillscope || harness == "dsh" {
		return []string{retention.DefaultPolicy, "dsh-bytes"}
	}
	// A harness's own policy carries the harness's registry name (codex,
	// claude-code, opencode, goose, gemini-cli); its Harness field is a
	// label for people ("Codex CLI") and is matched only as a fallback.
	var out []string
	if own, ok := ownPolicy(harness); ok {
		out = append(out, own)
	}
	if len(out) == 0 || out[0] != retention.DefaultPolicy {
		out = append(out, retention.DefaultPolicy)
	}
	return out
}

// ownPolicy is the policy of the harness named harness: the one of that
// name, else the first whose label is harness.
func ownPolicy(harness string) (string, bool) {
	all := retention.Policies()
	for _, p := range all {
		if p.Name == harness {
			return p.Name, true
		}
	}
	for _, p := range all {
		if p.Harness == harness {
			return p.Name, true
		}
	}
	return "", false
}
