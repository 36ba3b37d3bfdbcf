package dsh

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Layouts a session log was found in.
const (
	LayoutProject = "project" // --<projectKey>--/<encoded id>/session[.vN].jsonl[.zstd]
	LayoutNoCwd   = "no-cwd"  // _no-cwd/<encoded id>/…
	LayoutFlat    = "flat"    // before 2026-07-24: <12-hex cwd hash>/<id>.jsonl[.zstd]
)

// File is one session log found under a root. What it says of the session
// (id, cwd) comes from its folder and is only a hint: the header is the
// authority, and a project key is lossy.
type File struct {
	Path   string `json:"path"`
	Root   string `json:"root"`
	Layout string `json:"layout"`
	// Project is the --key-- folder of the project layout.
	Project string `json:"project,omitempty"`
	// EncodedID is the session folder (or, flat, the file stem); ID its
	// decoding, or EncodedID itself when it does not decode.
	EncodedID string `json:"encodedId"`
	ID        string `json:"id"`
	LogName
	// Superseded lists older generations beside a live one (full paths).
	Superseded []string `json:"superseded,omitempty"`
}

// Discover walks one sessions root ($DSH_HOME/sessions, a ./.sessions
// folder or a root the user added) and calls fn for each live session log,
// in a stable order. It reads folder listings only; whether a file really
// is a dsh log is IsSessionFile's to say. A folder that cannot be listed is
// skipped rather than stopping the walk; only the root itself must list.
func Discover(root string, fn func(File) error) error {
	entries, err := os.ReadDir(root)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		name := e.Name()
		dir := filepath.Join(root, name)
		switch {
		case name == NoCwdFolder || len(name) > 4 && strings.HasPrefix(name, "--") && strings.HasSuffix(name, "--"):
			layout, project := LayoutProject, name
			if name == NoCwdFolder {
				layout, project = LayoutNoCwd, ""
			}
			if err := discoverProject(root, dir, layout, project, fn); err != nil {
				return err
			}
		case isHex(name, 12):
			if err := discoverFlat(root, dir, fn); err != nil {
				return err
			}
		}
	}
	return nil
}

func discoverProject(root, dir, layout, project string, fn func(File) error) error {
	sessions, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	for _, s := range sessions {
		if !s.IsDir() {
			continue
		}
		sdir := filepath.Join(dir, s.Name())
		names, err := listFiles(sdir)
		if err != nil {
			continue
		}
		live, older, ok := LiveLog(names)
		if !ok {
			continue
		}
		ln, _ := ParseLogName(live)
		f := File{Path: filepath.Join(sdir, live), Root: root, Layout: layout, Project: project,
			EncodedID: s.Name(), ID: decodedOr(s.Name()), LogName: ln}
		for _, o := range older {
			f.Superseded = append(f.Superseded, filepath.Join(sdir, o))
		}
		if err := fn(f); err != nil {
			return err
		}
	}
	return nil
}

func discoverFlat(root, dir string, fn func(File) error) error {
	names, err := listFiles(dir)
	if err != nil {
		return nil
	}
	for _, n := range names {
		stem, zstd := strings.CutSuffix(n, ".zstd")
		stem, ok := strings.CutSuffix(stem, ".jsonl")
		if !ok || stem == "" {
			continue
		}
		f := File{Path: filepath.Join(dir, n), Root: root, Layout: LayoutFlat,
			EncodedID: stem, ID: decodedOr(stem), LogName: LogName{Zstd: zstd}}
		if err := fn(f); err != nil {
			return err
		}
	}
	return nil
}

func listFiles(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range entries {
		if e.Type().IsRegular() {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	return names, nil
}

func decodedOr(seg string) string {
	if id, err := DecodeSegment(seg); err == nil && id != "" {
		return id
	}
	return seg
}

// IsSuperseded says whether a newer generation sits beside the log at path,
// which makes path an old generation that dsh no longer appends to.
func IsSuperseded(path string) (bool, error) {
	base := filepath.Base(path)
	if _, ok := ParseLogName(base); !ok {
		return false, nil
	}
	names, err := listFiles(filepath.Dir(path))
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	live, _, ok := LiveLog(names)
	return ok && live != base, nil
}
