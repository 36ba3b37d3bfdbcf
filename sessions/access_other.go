//go:build !unix

package sessions

import (
	"io/fs"
	"os"
)

// openNoFollow opens a file read-only; this OS has no O_NOFOLLOW, so the
// identity check after opening is what guards against a swapped link.
func openNoFollow(path string) (*os.File, error) { return os.Open(path) }

// ownedByUser cannot be told here; shared temp folders are per user on
// this OS.
func ownedByUser(fs.FileInfo) bool { return true }
