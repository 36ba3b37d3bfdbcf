package sessions

import (
	"os"
	"strconv"
)

// fdPath is the path the kernel opened for f, read from /proc.
func fdPath(f *os.File) (string, bool) {
	p, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(int(f.Fd())))
	return p, err == nil
}
