//go:build desktop

// Command startupfloor is the floor under the window's first paint: the
// same Wails, GTK and WebKitGTK start as spillscope-window, with a page that
// paints one line of text and nothing else (no bundle, no bindings, no
// index). The first-paint trace (frontend/e2e/startup.test.mjs) times it
// with the same marks and the same pixels as the window, so what is left
// above it is ours. Build it with the window's tags:
//
//	go build -tags desktop,production,webkit2_41 -o tmp/startupfloor ./internal/startupfloor
package main

import (
	"context"
	"embed"
	"fmt"
	"os"

	"github.com/wailsapp/wails/v2"
	"github.com/wailsapp/wails/v2/pkg/options"
	"github.com/wailsapp/wails/v2/pkg/options/assetserver"
	"github.com/wailsapp/wails/v2/pkg/options/linux"
	"github.com/wailsapp/wails/v2/pkg/runtime"

	"spillscope/internal/startuptrace"
)

//go:embed all:page
var page embed.FS

func main() {
	trace, err := startuptrace.Open(os.Getenv)
	if err != nil {
		fmt.Fprintln(os.Stderr, "startupfloor:", err)
		os.Exit(1)
	}
	defer trace.Close()
	trace.Mark("main")
	trace.Mark("wails-run")
	// The window's title, size, background and GPU policy, so the harness
	// finds and photographs it the same way and WebKit draws it the same
	// way.
	err = wails.Run(&options.App{
		Title:            "Spillscope",
		Width:            1280,
		Height:           820,
		BackgroundColour: &options.RGBA{R: 248, G: 249, B: 251, A: 255},
		AssetServer:      &assetserver.Options{Assets: page},
		Linux:            &linux.Options{ProgramName: "spillscope", WebviewGpuPolicy: linux.WebviewGpuPolicyNever},
		OnStartup: func(ctx context.Context) {
			trace.Mark("on-startup")
			runtime.EventsOnce(ctx, startuptrace.EventPageMarks, func(data ...any) {
				if len(data) > 0 {
					trace.Page(data[0])
				}
			})
		},
		OnDomReady: func(context.Context) { trace.Mark("dom-ready") },
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "startupfloor:", err)
		os.Exit(1)
	}
}
