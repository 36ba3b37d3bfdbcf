// Package dsh reads the session logs of dsh, the DeepSeek Harness: where
// they live, how their zstd frames and JSONL events are laid out in format
// versions 0 to 4, and what each tool result held, what the model last saw
// of it, which event replaced it, and which spill file its notice names.
//
// The package is pure reading: no SQL, no Wails, no writes, and it never
// opens a spill file or an attachment (it only says where they would be, so
// the app's file rule decides). Reading is streaming with bounded memory and
// resumable from a Cursor, so a growing session is read only where it grew.
package dsh
