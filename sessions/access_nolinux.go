//go:build !linux

package sessions

import "os"

// fdPath is not available on this OS; the identity check stands alone.
func fdPath(*os.File) (string, bool) { return "", false }
