// Package readkit holds what the harness readers under sessions/ share and
// nothing else: a line reader for JSONL logs of any line length, the
// diagnostic record with its per-type counter, a JSON token walker that
// reports byte offsets, and the one rule for opening a user's SQLite file
// without ever writing beside it. It knows no harness.
package readkit
