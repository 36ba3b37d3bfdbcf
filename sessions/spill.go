package sessions

import (
	"context"
	"os"
)

// ResolveSpill finds the file a spill notice names for one session and
// judges it by the file rule: the first candidate (the named path, then
// where the harness's layout keeps it beside the session) that exists
// wins; else the named path's own state: missing where the harness would
// have written it, outside anywhere else (a forged notice, or a session
// folder copied from another machine without its spill files). The indexer
// and the window both call this, so the result header's state and the
// spill pane can never disagree.
func ResolveSpill(n SpillNotice, s SessionRef) FileCheck {
	return resolveSpill(n, s, RuleFor(s, n.Kind))
}

// resolveSpill is ResolveSpill with the session's rule for the notice's
// kind already built (the indexer builds it once per session and kind).
func resolveSpill(n SpillNotice, s SessionRef, rule FileRule) FileCheck {
	var cands []string
	if h, ok := LookupHarness(s.Harness); ok {
		if o, ok := h.(SpillOwner); ok && o.OtherSession(n.Path, s) {
			return FileCheck{Path: namedPath(n.Path, s.Path), State: FileOtherSession}
		}
		cands = h.SpillCandidates(n.Path, s)
	} else {
		cands = []string{namedPath(n.Path, s.Path)}
	}
	var named FileCheck
	for i, p := range cands {
		c := rule.Check(p)
		if c.State == FileExists || c.State == FileUnreadable {
			return c
		}
		if i == 0 {
			named = c
		}
	}
	return named
}

// SpillOwner is a harness whose spill paths name the session they belong
// to (dsh's session-<sha12> folders): a notice naming another session's
// folder is marked FileOtherSession and never followed, whatever the rule
// of that other session would allow.
type SpillOwner interface {
	OtherSession(named string, s SessionRef) bool
}

// SpillFile is an indexed result's spill file as the rule judged it now.
type SpillFile struct {
	FileCheck
	Notice SpillNotice
	// File is open only in state FileExists; the caller closes it.
	File *os.File
}

// OpenSpill opens the spill file an indexed result's notice names, if the
// file rule allows it, with roots the configured session roots. A result
// without a notice is ErrNotFound; every state of the file is a verdict in
// the answer, not an error.
func (d *DB) OpenSpill(ctx context.Context, resultID int64, roots []string) (SpillFile, error) {
	row, err := d.Result(ctx, resultID)
	if err != nil {
		return SpillFile{}, err
	}
	if row.Spill == nil {
		return SpillFile{}, ErrNotFound
	}
	ref := d.sessionRef(row.Harness, row.Path, row.Root, row.SessionID, roots)
	c := ResolveSpill(*row.Spill, ref)
	out := SpillFile{FileCheck: c, Notice: *row.Spill}
	if c.State != FileExists {
		return out, nil
	}
	// Open what was resolved, through the rule again: the check above
	// closed its descriptor.
	f, again := RuleFor(ref, row.Spill.Kind).Open(c.Real)
	out.FileCheck.State, out.FileCheck.Detail = again.State, again.Detail
	out.File = f
	return out, nil
}

// sessionRef describes one session for the file rule.
func (d *DB) sessionRef(harness, path, root, sessionID string, roots []string) SessionRef {
	return SessionRef{Harness: harness, Path: path, Root: root, SessionID: sessionID, Roots: roots,
		DataDir: d.dataDir(), Env: d.env}
}
