package app

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/godbus/dbus/v5"
)

// SystemOpener opens files with the freedesktop tools every Linux desktop
// has: xdg-open for the viewer, and the file manager's
// org.freedesktop.FileManager1.ShowItems D-Bus call to reveal one (the file
// selected in its folder), falling back to opening the folder where no file
// manager answers that call.
type SystemOpener struct{}

// Open runs xdg-open on path (absolute, so it is never read as an option).
func (SystemOpener) Open(path string) error { return xdgOpen(path) }

// Reveal asks the file manager to show path selected; without one that
// answers, the folder holding it is opened instead.
func (SystemOpener) Reveal(path string) error {
	if err := showItems(path); err == nil {
		return nil
	}
	return xdgOpen(filepath.Dir(path))
}

// xdgOpen starts xdg-open and reaps it in the background: the viewer may
// stay open long after the window asked.
func xdgOpen(path string) error {
	if !filepath.IsAbs(path) {
		return fmt.Errorf("not an absolute path: %q", path)
	}
	cmd := exec.Command("xdg-open", path)
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("xdg-open: %w", err)
	}
	go cmd.Wait()
	return nil
}

// showItems makes the FileManager1 call on the session bus, with a short
// timeout so a bus that does not answer never holds the window.
func showItems(path string) error {
	if !sessionBus() {
		return errors.New("no session bus")
	}
	conn, err := dbus.ConnectSessionBus()
	if err != nil {
		return err
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	uri := (&url.URL{Scheme: "file", Path: path}).String()
	obj := conn.Object("org.freedesktop.FileManager1", "/org/freedesktop/FileManager1")
	return obj.CallWithContext(ctx, "org.freedesktop.FileManager1.ShowItems", 0, []string{uri}, "").Err
}

// sessionBus reports a session bus to talk to. Without one, godbus would
// start its own with dbus-launch, a daemon that outlives the call.
func sessionBus() bool {
	if os.Getenv("DBUS_SESSION_BUS_ADDRESS") != "" {
		return true
	}
	dir := os.Getenv("XDG_RUNTIME_DIR")
	if dir == "" {
		return false
	}
	st, err := os.Stat(filepath.Join(dir, "bus"))
	return err == nil && st.Mode()&os.ModeSocket != 0
}
