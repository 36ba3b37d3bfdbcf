package main

import "errors"

// errNoDisplay is why the window cannot open: GTK needs an X11 or Wayland
// display, and without one it panics with a stack trace instead of saying
// so.
var errNoDisplay = errors.New("no display to open the window on (DISPLAY and WAYLAND_DISPLAY are both unset); " +
	"the subcommands run without one: see `spillscope help`")

// checkDisplay reports errNoDisplay when the environment names no display.
// The launcher checks it before it execs the window binary (a bindings build
// of the window needs no display, so the window does not).
func checkDisplay(getenv func(string) string) error {
	if getenv("DISPLAY") == "" && getenv("WAYLAND_DISPLAY") == "" {
		return errNoDisplay
	}
	return nil
}
