package app

import (
	"context"

	"github.com/wailsapp/wails/v2/pkg/runtime"

	"spillscope/internal/startuptrace"
)

// ListenStartupMarks writes the page's start-up moments into trace when the
// page sends them (once, after its first rows have painted); a nil trace
// listens for nothing.
func ListenStartupMarks(ctx context.Context, trace *startuptrace.Trace) {
	if trace == nil {
		return
	}
	runtime.EventsOnce(ctx, startuptrace.EventPageMarks, func(data ...any) {
		if len(data) > 0 {
			trace.Page(data[0])
		}
	})
}
