package dsh

import (
	"bytes"
	"encoding/json"
	"fmt"

	"spillscope/retention"
)

// toolResultData is tool/result's data in every format: v0–v3 wrap the
// blocks in one {type:"tool-result", toolCallId, content, isError} block of
// a role "user" message; v4 has a role "tool" message with toolCallId,
// content and isError of its own.
type toolResultData struct {
	Turn    int `json:"turn"`
	Step    int `json:"step"`
	Message struct {
		ID     string `json:"id"`
		Role   string `json:"role"`
		Source struct {
			Kind   string `json:"kind"`
			CallID string `json:"callId"`
		} `json:"source"`
		ToolCallID string            `json:"toolCallId"`
		Content    []json.RawMessage `json:"content"`
		IsError    bool              `json:"isError"`
	} `json:"message"`
	Error *ToolError      `json:"error"`
	Meta  json.RawMessage `json:"meta"`
}

type wrapper struct {
	Type       string            `json:"type"`
	ToolCallID string            `json:"toolCallId"`
	Content    []json.RawMessage `json:"content"`
	IsError    bool              `json:"isError"`
}

// unwrap finds the call id, content blocks and error flag in either shape.
func (d *toolResultData) unwrap() (call string, blocks []json.RawMessage, isError bool, err error) {
	m := &d.Message
	call = m.Source.CallID
	if m.Role != "tool" && len(m.Content) > 0 && bytes.Contains(m.Content[0], []byte(`"tool-result"`)) {
		var w wrapper
		if e := json.Unmarshal(m.Content[0], &w); e == nil && w.Type == "tool-result" {
			if call == "" {
				call = w.ToolCallID
			}
			if len(m.Content) > 1 {
				err = fmt.Errorf("%d blocks beside the tool-result wrapper were ignored", len(m.Content)-1)
			}
			return call, w.Content, w.IsError, err
		}
	}
	if call == "" {
		call = m.ToolCallID
	}
	return call, m.Content, m.IsError, nil
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
func convertBlocks(raws []json.RawMessage, home string) ([]retention.Block, []Image, []blockProblem) {
	blocks := make([]retention.Block, 0, len(raws))
	var images []Image
	var problems []blockProblem
	for i, raw := range raws {
		if bytes.Contains(raw, []byte(`"attachment"`)) {
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
				continue
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
	}
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
	return &Notice{NoticeMatch: m, Block: last, Spill: ClassifySpillPath(m.Path, sessionID, tool)}
}
