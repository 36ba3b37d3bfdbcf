// Command spillscope is a desktop review app for how LLM agents' oversized
// tool results were retained. With no arguments it opens the window; with a
// subcommand it runs headless.
//
// The window is its own binary, built with the desktop tags (window.go):
// this one, built without them, links no GUI library, so a subcommand starts
// without the dynamic loader mapping WebKitGTK and GTK, and opening the
// window hands the process over to the window binary (window_exec.go).
// Builds with the dev or desktop tags are both in one.
package main

import (
	"fmt"
	"os"

	"github.com/mattn/go-isatty"

	"spillscope/app/cli"
)

func main() {
	if cli.Headless(os.Args[1:]) {
		os.Exit(cli.Run(cli.Env{
			Stdin:            os.Stdin,
			Stdout:           os.Stdout,
			Stderr:           os.Stderr,
			StderrIsTerminal: isatty.IsTerminal(os.Stderr.Fd()),
		}, os.Args[1:]))
	}
	if err := openWindow(); err != nil {
		fmt.Fprintln(os.Stderr, "spillscope:", err)
		os.Exit(1)
	}
}
