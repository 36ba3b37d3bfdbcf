//go:build !desktop && !dev && !bindings

package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// windowName is the window binary, built with the desktop tags.
const windowName = "spillscope-window"

// openWindow hands the process to the window binary, with the same
// arguments and environment, so a launcher's `spillscope` opens the window
// as it always did.
func openWindow() error {
	if err := checkDisplay(os.Getenv); err != nil {
		return err
	}
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("find the window binary: %w", err)
	}
	win, err := windowBinary(exe)
	if err != nil {
		return err
	}
	args := append([]string{win}, os.Args[1:]...)
	if err := syscall.Exec(win, args, os.Environ()); err != nil {
		return fmt.Errorf("open the window (%s): %w", win, err)
	}
	return nil
}

// windowBinary finds the window binary for this executable: beside it (a
// build folder), or in ../libexec/spillscope/ (the package installs
// /usr/bin/spillscope and /usr/libexec/spillscope/spillscope-window).
func windowBinary(exe string) (string, error) {
	if real, err := filepath.EvalSymlinks(exe); err == nil {
		exe = real
	}
	dir := filepath.Dir(exe)
	tried := []string{
		filepath.Join(dir, windowName),
		filepath.Join(dir, "..", "libexec", "spillscope", windowName),
	}
	for _, p := range tried {
		if info, err := os.Stat(p); err == nil && info.Mode().IsRegular() && info.Mode().Perm()&0o111 != 0 {
			return filepath.Clean(p), nil
		}
	}
	return "", errors.New("the window is not installed: no executable " + windowName + " at " + tried[0] + " or " + filepath.Clean(tried[1]) +
		" (`make build/bin/spillscope` builds both; subcommands run without it, see `spillscope help`)")
}
