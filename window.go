//go:build desktop || dev || bindings

package main

import (
	"context"
	"embed"
	"os"
	"path/filepath"

	"github.com/wailsapp/wails/v2"
	"github.com/wailsapp/wails/v2/pkg/options"
	"github.com/wailsapp/wails/v2/pkg/options/assetserver"
	"github.com/wailsapp/wails/v2/pkg/options/linux"

	"spillscope/app"
	"spillscope/internal/startuptrace"
)

//go:embed all:frontend/dist
var assets embed.FS

//go:embed build/appicon.png
var icon []byte

// openWindow wires the bound services with explicit constructors and opens
// the window. Dev builds also accept Wails' own -devserver and -assetdir flags.
func openWindow() error {
	// SPILLSCOPE_TRACE_STARTUP=FILE: the start's moments go to FILE.
	trace, err := startuptrace.Open(os.Getenv)
	if err != nil {
		return err
	}
	defer trace.Close()
	trace.Mark("main")
	cfg, err := app.ConfigFromEnv(os.Getenv)
	if err != nil {
		return err
	}
	settings := app.NewSettingsStore(cfg.ConfigDir)
	appSvc := app.New(cfg, settings)
	store := app.NewStore(cfg, settings)
	defer store.Close()
	sessionsSvc := app.NewSessions(store)
	// The first screen's rows are read while GTK and WebKit start, and go
	// to the page inside its HTML.
	firstPage := app.PrepareFirstPage(sessionsSvc)
	retentionSvc := app.NewRetention(store)
	linksSvc := app.NewLinks(store)
	desktopSvc := app.NewDesktop(store, app.SystemOpener{})
	exportsSvc := app.NewExports(store, sessionsSvc, retentionSvc, linksSvc)
	trace.Mark("wails-run")
	return wails.Run(&options.App{
		Title:            "Spillscope",
		Width:            1280,
		Height:           820,
		MinWidth:         900,
		MinHeight:        560,
		BackgroundColour: &options.RGBA{R: 248, G: 249, B: 251, A: 255},
		AssetServer: &assetserver.Options{
			Assets:     assets,
			Handler:    app.AttachmentHandler{Dir: filepath.Join(cfg.DataDir, "attachments")},
			Middleware: firstPage.Middleware,
		},
		OnStartup: func(ctx context.Context) {
			trace.Mark("on-startup")
			app.ListenStartupMarks(ctx, trace)
			appSvc.Startup(ctx)
			sessionsSvc.Startup(ctx)
			exportsSvc.Startup(ctx)
		},
		OnDomReady: func(context.Context) { trace.Mark("dom-ready") },
		// The live watcher stops before the index closes.
		OnShutdown: func(context.Context) { app.Shutdown(sessionsSvc) },
		Bind:       []interface{}{appSvc, sessionsSvc, retentionSvc, linksSvc, desktopSvc, exportsSvc},
		// Bound methods fail with a code and params the window translates.
		ErrorFormatter: app.FormatError,
		Linux: &linux.Options{
			Icon:        icon,
			ProgramName: "spillscope",
			// Set, or it is the zero value, "always": Wails picks "never"
			// only when no Linux options are given (its workaround for
			// blank windows, wails#2977). "Always" on a machine without a
			// GPU (Xvfb, a VM, a remote desktop) composites every frame in
			// software GL: 0.19 s more before the first rows reach the
			// screen (frontend/e2e/startup.test.mjs).
			WebviewGpuPolicy: linux.WebviewGpuPolicyNever,
		},
	})
}
