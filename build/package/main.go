// Command package builds Spillscope's Debian package from the built
// binaries: the CLI on PATH and the window binary it execs, the desktop
// entry, the icon at the usual hicolor sizes and the licence. It uses nfpm as a library, so nothing is downloaded at build time,
// and it lives in its own module so the app's go.mod does not carry nfpm's
// dependencies.
//
// The package's Depends are read off the binaries themselves (their ELF
// NEEDED entries, mapped to the Debian packages that ship them), so they
// name the WebKitGTK and GTK runtime packages the window really links.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
)

func main() {
	var o Options
	flag.StringVar(&o.Binary, "bin", "build/bin/spillscope", "the built CLI (no desktop tags)")
	flag.StringVar(&o.Window, "window", "build/bin/spillscope-window", "the built window binary (desktop tags)")
	flag.StringVar(&o.Repo, "repo", ".", "the repository root (desktop entry, icon, licence)")
	flag.StringVar(&o.OutDir, "out", "build/bin", "folder the .deb is written to")
	flag.Parse()
	path, err := Build(o)
	if err != nil {
		fmt.Fprintln(os.Stderr, "package:", err)
		os.Exit(1)
	}
	abs, _ := filepath.Abs(path)
	fmt.Println(abs)
}
