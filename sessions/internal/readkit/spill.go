package readkit

import (
	"path/filepath"
	"regexp"
)

// SpillRule is where a harness writes the complete results it cut: the
// folders and the file-name shape. It is the harness's half of the app's
// file-access rule: a path a notice names is only opened when a rule
// matches it, so nothing in a tool result decides which file is read.
type SpillRule struct {
	Dirs []string       `json:"dirs"`
	Name *regexp.Regexp `json:"-"`
}

// Match reports whether path is absolute, lies directly in one of the
// rule's folders (after cleaning, so "a/../b" cannot climb out) and has a
// name of the rule's shape.
func (r SpillRule) Match(path string) bool {
	if !filepath.IsAbs(path) || r.Name == nil {
		return false
	}
	path = filepath.Clean(path)
	dir := filepath.Dir(path)
	for _, d := range r.Dirs {
		if dir == filepath.Clean(d) {
			return r.Name.MatchString(filepath.Base(path))
		}
	}
	return false
}

// TempDirs is the system temporary folder as a harness's os.tmpdir() or
// std::env::temp_dir() resolves it on this machine ($TMPDIR when absolute,
// else /tmp), followed by /tmp when they differ: a spill written by another
// process with another TMPDIR still lands in one of the two most often.
func TempDirs(getenv func(string) string) []string {
	dirs := []string{}
	if t := getenv("TMPDIR"); t != "" && filepath.IsAbs(t) && filepath.Clean(t) != "/tmp" {
		dirs = append(dirs, filepath.Clean(t))
	}
	return append(dirs, "/tmp")
}
