//go:build unix

package sessions

import (
	"io/fs"
	"os"
	"syscall"
)

// openNoFollow opens a file read-only without following a link in its last
// part and without blocking on a FIFO: a path swapped for a link after the
// check fails to open instead of leading elsewhere.
func openNoFollow(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
}

// ownedByUser reports whether the user running Spillscope owns the file.
func ownedByUser(st fs.FileInfo) bool {
	s, ok := st.Sys().(*syscall.Stat_t)
	return ok && int(s.Uid) == os.Geteuid()
}
