package app

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"spillscope/sessions"
)

// Opener hands a file to the desktop. The window's Desktop service calls
// it only with a path the index chose and the file rule allowed; tests pass
// a fake that records the path instead of opening it.
type Opener interface {
	// Open opens the file in the system's viewer for its type.
	Open(path string) error
	// Reveal shows the file selected in the file manager.
	Reveal(path string) error
}

// Desktop is the bound service that opens a result's spill file or one of
// its image attachments in the system viewer, or shows it in the file
// manager. The window names a result and a block, never a path: the index
// decides which file that is and the file rule whether it may be opened,
// so nothing a tool result's text names outside the folders its harness
// writes is ever handed to the desktop.
type Desktop struct {
	store  *Store
	opener Opener
}

// NewDesktop builds the Desktop service; main passes SystemOpener.
func NewDesktop(store *Store, opener Opener) *Desktop {
	return &Desktop{store: store, opener: opener}
}

// The kinds of file a FileTarget names.
const (
	FileSpill      = "spill"
	FileAttachment = "attachment"
)

// FileTarget names an indexed file by what it belongs to: the spill file of
// result ResultID (Kind "spill"), or the stored image of its block Block
// (Kind "attachment").
type FileTarget struct {
	ResultID int64  `json:"resultId"`
	Kind     string `json:"kind"`
	Block    int    `json:"block"`
}

// FileAction is what became of a request to open or reveal a file: the
// path the index gave, the file rule's verdict on it ("exists", "missing",
// "outside": not opened, "unreadable"), and whether it was handed to the
// desktop (only in state "exists").
type FileAction struct {
	Path   string `json:"path"`
	State  string `json:"state"`
	Detail string `json:"detail"`
	Done   bool   `json:"done"`
}

// Open opens the target in the system viewer, if the file rule allows it.
func (d *Desktop) Open(t FileTarget) (FileAction, error) {
	return d.hand(t, d.opener.Open)
}

// Reveal shows the target in the file manager, if the file rule allows it.
func (d *Desktop) Reveal(t FileTarget) (FileAction, error) {
	return d.hand(t, d.opener.Reveal)
}

// hand resolves the target through the index and the file rule, and gives
// the allowed file's real path to the desktop.
func (d *Desktop) hand(t FileTarget, do func(string) error) (FileAction, error) {
	if t.ResultID <= 0 {
		return FileAction{}, fmt.Errorf("app: result id %d is not valid", t.ResultID)
	}
	db, err := d.store.DB()
	if err != nil {
		return FileAction{}, err
	}
	ctx := context.Background()
	var c sessions.FileCheck
	switch t.Kind {
	case FileSpill:
		sf, err := db.OpenSpill(ctx, t.ResultID, d.store.Roots())
		if errors.Is(err, sessions.ErrNotFound) {
			return FileAction{}, fmt.Errorf("app: result %d names no spill file: %w", t.ResultID, err)
		}
		if err != nil {
			return FileAction{}, err
		}
		if sf.File != nil {
			sf.File.Close()
		}
		c = sf.FileCheck
	case FileAttachment:
		if t.Block < 0 {
			return FileAction{}, fmt.Errorf("app: block %d is not valid", t.Block)
		}
		if c, err = db.AttachmentFile(ctx, t.ResultID, t.Block); err != nil {
			return FileAction{}, err
		}
	default:
		return FileAction{}, fmt.Errorf("app: file kind %q is not %q or %q", t.Kind, FileSpill, FileAttachment)
	}
	a := FileAction{Path: c.Path, State: c.State, Detail: c.Detail}
	if c.State != sessions.FileExists {
		return a, nil
	}
	// The real path the rule checked, not the one named: a link on the
	// way is not followed again by the viewer.
	path := c.Real
	if path == "" || !filepath.IsAbs(path) {
		return a, nil
	}
	if err := do(path); err != nil {
		return a, fmt.Errorf("app: %s: %w", path, err)
	}
	a.Path, a.Done = path, true
	return a, nil
}
