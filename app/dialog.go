package app

import (
	"context"

	"github.com/wailsapp/wails/v2/pkg/runtime"
)

// openDirectoryDialog is the window's folder picker.
func openDirectoryDialog(ctx context.Context, title string) (string, error) {
	return runtime.OpenDirectoryDialog(ctx, runtime.OpenDialogOptions{Title: title, CanCreateDirectories: false})
}

// saveFileDialog is the window's save dialog; it only picks a path.
func saveFileDialog(ctx context.Context, title, name string) (string, error) {
	return runtime.SaveFileDialog(ctx, runtime.SaveDialogOptions{Title: title, DefaultFilename: name, CanCreateDirectories: true})
}
