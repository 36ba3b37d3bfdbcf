package dsh

import (
	"encoding/json"
	"fmt"
	"strings"

	"spillscope/retention"
)

// toolResultData is tool/result's data in every format: v0–v3 wrap the
// blocks in one {type:"tool-result", toolCallId, content, isError} block of
// a role "user" message; v4 has a role "tool" message with toolCallId,
// content and isError of its own. Content, Error and Meta point into the
// line.
type toolResultData struct {
	Turn, Step int
	ID, Role   string
	SourceCall string
	ToolCallID string
	Content    []byte
	IsError    bool
	Error      []byte
	Meta       []byte
}

func parseToolResult(data []byte) (toolResultData, bool) {
	var d toolResultData
	var message []byte
	good := fields(data, func(k, v []byte) bool {
		switch {
		case string(k) == "turn":
			n, _ := jint(v)
			d.Turn = int(n)
		case string(k) == "step":
			n, _ := jint(v)
			d.Step = int(n)
		case string(k) == "message":
			message = v
		case string(k) == "error":
			d.Error = v
		case string(k) == "meta":
			d.Meta = v
		}
		return true
	})
	if !good || message == nil {
		return d, false
	}
	good = fields(message, func(k, v []byte) bool {
		switch {
		case string(k) == "id":
			d.ID, _ = jstr(v)
		case string(k) == "role":
			d.Role, _ = jstr(v)
		case string(k) == "source":
			if c, ok := field(v, "callId"); ok {
				d.SourceCall, _ = jstr(c)
			}
		case string(k) == "toolCallId":
			d.ToolCallID, _ = jstr(v)
		case string(k) == "content":
			d.Content = v
		case string(k) == "isError":
			d.IsError = jtrue(v)
		}
		return true
	})
	return d, good && d.Content != nil && d.Content[0] == '['
}

// unwrap finds the call id, content blocks and error flag in either shape.
func (d *toolResultData) unwrap() (call string, blocks []byte, isError bool, err error) {
	call = d.SourceCall
	if d.Role != "tool" {
		var first []byte
		n := 0
		items(d.Content, func(v []byte) bool {
			if n == 0 {
				first = v
			}
			n++
			return true
		})
		if t, _ := field(first, "type"); string(t) == `"tool-result"` {
			var wcall string
			var inner []byte
			var werr bool
			fields(first, func(k, v []byte) bool {
				switch {
				case string(k) == "toolCallId":
					wcall, _ = jstr(v)
				case string(k) == "content":
					inner = v
				case string(k) == "isError":
					werr = jtrue(v)
				}
				return true
			})
			if inner != nil && inner[0] == '[' {
				if call == "" {
					call = wcall
				}
				if n > 1 {
					err = fmt.Errorf("%d blocks beside the tool-result wrapper were ignored", n-1)
				}
				return call, inner, werr, err
			}
		}
	}
	if call == "" {
		call = d.ToolCallID
	}
	return call, d.Content, d.IsError, nil
}

type dshImage struct {
	Type       string `json:"type"`
	Attachment *struct {
		AttachmentID string `json:"attachmentId"`
		MediaType    string `json:"mediaType"`
		Bytes        int64  `json:"bytes"`
		Width        int    `json:"width"`
		Height       int    `json:"height"`
		Name         string `json:"name"`
	} `json:"attachment"`
}

const filepathSep = '/'

// blockProblem is a content block that could not be read as it should.
type blockProblem struct {
	code, msg string
	index     int
}

// convertBlocks turns dsh content blocks into retention blocks. An image or
// file block names an attachment: it gets the Path of the attachment's
// bytes under home (never opened here) and, for images, its facts as
// logged. Other blocks keep their JSON so unknown kinds pass through.
func convertBlocks(content []byte, home string) ([]retention.Block, []Image, []blockProblem) {
	blocks := make([]retention.Block, 0, 2)
	var images []Image
	var problems []blockProblem
	i := -1
	items(content, func(raw []byte) bool {
		i++
		var typ, txt []byte
		hasAttachment := false
		fields(raw, func(k, v []byte) bool {
			switch {
			case string(k) == "type":
				typ = v
			case string(k) == "text":
				txt = v
			case string(k) == "attachment":
				hasAttachment = true
			}
			return true
		})
		if string(typ) == `"text"` && !hasAttachment {
			if s, ok := jstr(txt); ok {
				// A text block's JSON is not kept: it says nothing its
				// Text does not, and it would double the memory.
				blocks = append(blocks, retention.Block{Type: retention.TypeText, Text: s})
				return true
			}
		}
		if hasAttachment {
			var im dshImage
			if err := json.Unmarshal(raw, &im); err == nil && im.Attachment != nil && (im.Type == "image" || im.Type == "file") {
				a := im.Attachment
				p, _ := AttachmentPath(home, a.AttachmentID)
				if _, valid := AttachmentPath(string(filepathSep), a.AttachmentID); !valid {
					problems = append(problems, blockProblem{CodeBadAttachment, fmt.Sprintf("block %d names attachment %q, which is not sha256:<64 hex>; no path is given", i, shorten(a.AttachmentID)), i})
				}
				size := a.Bytes
				b := retention.Block{Type: im.Type, MimeType: a.MediaType, Path: p, Name: a.Name, Size: &size,
					Raw: append(json.RawMessage(nil), raw...)}
				blocks = append(blocks, b)
				if im.Type == "image" {
					images = append(images, Image{Block: i, AttachmentID: a.AttachmentID, MediaType: a.MediaType,
						Bytes: a.Bytes, Width: a.Width, Height: a.Height, Name: a.Name, Path: p})
				}
				return true
			}
		}
		b, err := retention.ParseBlock(raw)
		if err != nil {
			problems = append(problems, blockProblem{CodeBadBlock, fmt.Sprintf("block %d: %v", i, err), i})
			b = retention.Block{Type: "invalid", Raw: append(json.RawMessage(nil), raw...)}
		}
		if b.Type == retention.TypeImage && b.Path == "" && b.Data == "" {
			// An image block in another shape than dsh's: say nothing of a
			// file, but still count it.
			images = append(images, Image{Block: i, MediaType: b.MimeType})
		}
		blocks = append(blocks, b)
		return true
	})
	return blocks, images, problems
}

// findNotice looks for a spill notice at the end of the last block when it
// is text (both eras put the notice there) and links its path.
func findNotice(blocks []retention.Block, sessionID, tool string) *Notice {
	if len(blocks) == 0 {
		return nil
	}
	last := len(blocks) - 1
	if blocks[last].Type != retention.TypeText {
		return nil
	}
	m, ok := retention.RecogniseNotice(blocks[last].Text)
	if !ok {
		return nil
	}
	n := &Notice{NoticeMatch: m, Block: last, Spill: ClassifySpillPath(m.Path, sessionID, tool)}
	preview := blocks[last].Text[:m.Start]
	switch {
	case m.OmittedImages > 0 || len(blocks) > 1 || strings.Contains(preview, tokenGap):
		n.Policy = PolicyTokens
	case strings.TrimSpace(preview) != "":
		n.Policy = PolicyBytes
	}
	return n
}

// tokenGap is what the token-era policy puts between head and tail.
const tokenGap = "\n\n[...]\n\n"
