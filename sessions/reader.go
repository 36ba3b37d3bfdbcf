package sessions

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"sync"

	"spillscope/internal/jsontext"
	"spillscope/retention"
	"spillscope/retention/imagecost"
	"spillscope/sessions/internal/readkit"
)

// scanLine is the envelope check every JSONL reader (Claude Code, Codex)
// makes before it looks inside a line. It scans l as one JSON object,
// passing each top-level field to fn, which stores the line's type through
// typ and may stop early once it knows the line is to be skipped. It reports
// false for a blank line, and, having recorded one diagnostic, for a line
// that is not an object or whose type is missing or not in known: a bad line
// never stops the file, and both formats word the fault the same way.
func scanLine(l Line, p *Parsed, known map[string]bool, typ *string, fn func(k []byte, vs, ve int) bool) bool {
	b := l.Bytes
	return walkLine(l, p, known, typ, func(k []byte, vs int) (int, bool, bool) {
		ve, ok := jsontext.SkipValue(b, vs)
		if !ok {
			return 0, false, false
		}
		return ve, !fn(k, vs, ve), true
	})
}

// walkLine is scanLine for a reader that walks the values it wants as the
// line's walk meets them (walkObject).
func walkLine(l Line, p *Parsed, known map[string]bool, typ *string, fn func(k []byte, vs int) (ve int, stop, ok bool)) bool {
	b := l.Bytes
	if jsontext.SkipSpace(b, 0) == len(b) {
		return false
	}
	// A stop means fn had what it needed; the rest of the line may be
	// anything, as it is never read.
	p.lines++
	if stopped, err := walkObject(b, fn); err != nil && !stopped {
		p.Diag(l.Number, DiagNotJSON, map[string]string{"start": lineStart(b)})
		return false
	}
	switch {
	case *typ == "":
		p.Diag(l.Number, DiagNoType, nil)
		return false
	case !known[*typ]:
		p.SkipType(l.Number, *typ)
		return false
	}
	p.records++
	return true
}

// notASession replaces a fully read file's line diagnostics with one, when
// not one of its lines was a record of its harness: a file claimed by its
// name that holds something else is one diagnostic, not one per line, and
// no session.
func notASession(p *Parsed, label string) {
	if p.records > 0 || p.lines == 0 {
		return
	}
	p.NotSession = true
	p.Diags = p.Diags[:0]
	p.skipped = nil
	p.Diag(0, DiagNotASession, map[string]string{"harness": label, "lines": strconv.Itoa(p.lines)})
}

// lineStart quotes the first bytes of a bad line so a diagnostic says what
// was there without echoing a whole (possibly secret-bearing) line.
func lineStart(b []byte) string {
	const n = 2
	if len(b) > n {
		b = b[:n]
	}
	return fmt.Sprintf("%q", b)
}

// resultProblems records what did not convert in a tool result's content as
// diagnostics on the result's line, each naming the call.
func resultProblems(p *Parsed, line int64, callID string, problems []string) {
	for _, m := range problems {
		p.Diag(line, DiagResultProblem, map[string]string{"callId": callID, "detail": m})
	}
}

// splitCached splits an input count that includes its cache reads (as Codex
// and Gemini CLI report it) into the fresh part and the cached part, the way
// Claude reports them. A cached count above the input is held to the input,
// so neither part goes negative.
func splitCached(in, cached int64) (fresh, read int64) {
	return readkit.Uncached(in, cached, 0), min(cached, max(in, 0))
}

// imageBlock is a base64 image a reader found in a tool result, checked
// the one way every reader checks it: bytes imagecost.DecodeBase64 turns
// out, whose header imagecost.Sniff reads as an image of a known format and
// whose body imagecost.CheckIntact finds whole. Anything else (a damaged or
// redacted screenshot) is not an image: the block is kept as an unreadable
// one, so no attachment is stored for it and it is counted nowhere as an
// image, and the reason is returned for a diagnostic naming the call.
//
// Its raw JSON is not kept: the data may have been decoded in place in the
// line's buffer (strIn), and a damaged image's megabytes of base64 are no
// use to anyone. An image over heavyImageData of base64 has only its header
// checked here, streaming, so a huge inline screenshot is never decoded
// twice (the indexer stores it streaming too).
func imageBlock(mime, data string, _ []byte) (retention.Block, string) {
	b, why, img := checkImage(mime, data)
	img.release()
	return b, why
}

// checkedImage is an image's bytes as checkImage decoded them, in a pooled
// buffer, for the indexer to store without decoding the base64 again; the
// block is its index among the result's blocks. release hands the buffer
// back; nothing may hold the bytes after.
type checkedImage struct {
	block int
	bp    *[]byte
	bytes []byte
}

func (c checkedImage) release() {
	if c.bp != nil {
		putImageBuffer(c.bp, c.bytes)
	}
}

// checkImage is imageBlock keeping the decoded bytes of an image that
// passed (none for one over heavyImageData, which is only sniffed).
func checkImage(mime, data string) (retention.Block, string, checkedImage) {
	var err error
	var kept checkedImage
	if len(data) > heavyImageData {
		var r io.Reader
		if r, err = imagecost.Base64Reader(data); err == nil {
			head := make([]byte, imagecost.MaxHeaderBytes)
			n, rerr := io.ReadFull(r, head)
			if rerr != nil && rerr != io.ErrUnexpectedEOF {
				err = rerr
			} else {
				_, err = imagecost.Sniff(head[:n])
			}
		}
	} else {
		bp := getImageBuffer()
		var b []byte
		if b, err = imagecost.AppendBase64((*bp)[:0], data); err == nil {
			var info imagecost.Info
			if info, err = imagecost.Sniff(b[:min(len(b), imagecost.MaxHeaderBytes)]); err == nil {
				err = imagecost.CheckIntact(b, info)
			}
		}
		if err == nil {
			kept = checkedImage{bp: bp, bytes: b}
		} else {
			putImageBuffer(bp, b)
		}
	}
	if err != nil {
		raw, _ := json.Marshal(map[string]string{"type": retention.TypeImage, "mimeType": mime})
		return retention.Block{Type: "invalid:" + retention.TypeImage, MimeType: mime, Raw: raw}, err.Error(), checkedImage{}
	}
	return retention.Block{Type: retention.TypeImage, MimeType: mime, Data: data}, "", kept
}

// imageBuffers hold decoded images that are checked or stored and then
// dropped (imageBlock, storeImage): a screenshot a result would otherwise
// allocate twice and leave to the collector.
var imageBuffers = sync.Pool{New: func() any { return new([]byte) }}

func getImageBuffer() *[]byte { return imageBuffers.Get().(*[]byte) }

// putImageBuffer hands b (grown from *bp) back; nothing may hold b after.
// A buffer past heavyImageData's decoded size is let go.
func putImageBuffer(bp *[]byte, b []byte) {
	if cap(b) > heavyImageData {
		return
	}
	if cap(b) > cap(*bp) {
		*bp = b[:0]
	}
	imageBuffers.Put(bp)
}

// heavyImageData is the base64 length over which imageBlock checks only an
// image's header (1 MiB of base64, 768 KiB of image).
const heavyImageData = 1 << 20

// badImage is an image block that imageBlock refused: its index among the
// result's blocks and why.
type badImage struct {
	block  int
	detail string
}

// badImages records each refused image as a diagnostic on the result's
// line, naming the call and the block.
func badImages(p *Parsed, line int64, callID string, bad []badImage) {
	for _, b := range bad {
		p.Diag(line, DiagBadImage, map[string]string{"callId": callID, "block": strconv.Itoa(b.block), "detail": b.detail})
	}
}
