// Package retention is the pure retention core: it prices ordered text and
// image blocks of a tool result and decides what a model would see under a
// token budget (Retain, Sweep), and owns the omission notice (FormatNotice,
// RecogniseNotice). It reads image headers from attachment paths but writes
// no files, and knows nothing of SQL or Wails.
package retention

import (
	"encoding/json"
	"errors"
	"fmt"
)

// Block types of the Model Context Protocol content array. Anything else is
// kept as TypeUnknown with its raw JSON.
const (
	TypeText         = "text"
	TypeImage        = "image"
	TypeAudio        = "audio"
	TypeResource     = "resource"
	TypeResourceLink = "resource_link"
)

// TypeToolReference is a block of its own beside MCP's: a reference to a
// tool by name (Name), which loads that tool's definition for the model
// (Claude Code's ToolSearch results). It is neither text nor image: it is
// priced by an estimator's structural rule over its raw JSON, and shown as
// a line naming the tool.
const TypeToolReference = "tool_reference"

// Annotations are MCP's optional hints on a block.
type Annotations struct {
	Audience []string `json:"audience,omitempty"`
	Priority *float64 `json:"priority,omitempty"`
}

// Block is one content block of a tool result, in MCP's shape. Images carry
// either base64 Data or a readable Path (an attachment already stored on
// disk); the retention core prefers Path because the complete result file
// names paths, never bytes.
type Block struct {
	Type        string          `json:"type"`
	Text        string          `json:"text,omitempty"`
	MimeType    string          `json:"mimeType,omitempty"`
	Data        string          `json:"data,omitempty"`
	Path        string          `json:"path,omitempty"`
	URI         string          `json:"uri,omitempty"`
	Name        string          `json:"name,omitempty"`
	Title       string          `json:"title,omitempty"`
	Description string          `json:"description,omitempty"`
	Size        *int64          `json:"size,omitempty"`
	Annotations *Annotations    `json:"annotations,omitempty"`
	Resource    json.RawMessage `json:"resource,omitempty"`
	// Raw holds the block's original JSON when it was parsed from JSON; it is
	// what an unknown block is shown as and what passes through untouched.
	Raw json.RawMessage `json:"-"`
}

// Result is one accepted tool result: its ordered content and whether the
// tool reported an error.
type Result struct {
	Content []Block `json:"content"`
	IsError bool    `json:"isError,omitempty"`
}

// ErrInput reports tool-result JSON that is neither a CallToolResult object
// nor a bare content array.
var ErrInput = errors.New("retention: input is not a tool result")

// ParseResult reads an MCP CallToolResult object ({"content":[...]}) or a
// bare content array. Blocks of other types than plain text and image keep
// their raw JSON so they survive untouched. data is not changed.
func ParseResult(data []byte) (Result, error) {
	if res, ok := parseFast(data, false); ok {
		return res, nil
	}
	return parseSlow(data)
}

// ParseResultInPlace is ParseResult for a buffer the caller hands over: the
// strings of text and image blocks are decoded over their own bytes in
// data and share its memory, so a 10 MB text costs no copy. data must not
// be used or changed afterwards.
func ParseResultInPlace(data []byte) (Result, error) {
	if res, ok := parseFast(data, true); ok {
		return res, nil
	}
	// The fast walk changes nothing before it knows it can read the whole
	// input, so data is intact here.
	return parseSlow(data)
}

// parseSlow is ParseResult through encoding/json: any input the fast walk
// does not take, with encoding/json's own errors.
func parseSlow(data []byte) (Result, error) {
	var probe json.RawMessage
	if err := json.Unmarshal(data, &probe); err != nil {
		return Result{}, fmt.Errorf("%w: %v", ErrInput, err)
	}
	var raws []json.RawMessage
	var res Result
	switch firstNonSpace(data) {
	case '[':
		if err := json.Unmarshal(data, &raws); err != nil {
			return Result{}, fmt.Errorf("%w: %v", ErrInput, err)
		}
	case '{':
		var obj struct {
			Content *[]json.RawMessage `json:"content"`
			IsError bool               `json:"isError"`
		}
		if err := json.Unmarshal(data, &obj); err != nil {
			return Result{}, fmt.Errorf("%w: %v", ErrInput, err)
		}
		if obj.Content == nil {
			return Result{}, fmt.Errorf("%w: object has no \"content\" array", ErrInput)
		}
		raws = *obj.Content
		res.IsError = obj.IsError
	default:
		return Result{}, fmt.Errorf("%w: expected an object or an array", ErrInput)
	}
	res.Content = make([]Block, 0, len(raws))
	for i, raw := range raws {
		b, err := ParseBlock(raw)
		if err != nil {
			return Result{}, fmt.Errorf("%w: block %d: %v", ErrInput, i, err)
		}
		res.Content = append(res.Content, b)
	}
	return res, nil
}

// ParseBlock reads one content block, keeping its raw JSON. A block whose
// "type" is missing or not a string is an error; an unrecognised type is not.
func ParseBlock(raw json.RawMessage) (Block, error) {
	var b Block
	if err := json.Unmarshal(raw, &b); err != nil {
		// Fields of unexpected JSON types (a number where a string belongs)
		// still leave the block readable as unknown, so nothing is lost.
		var head struct {
			Type string `json:"type"`
		}
		if err2 := json.Unmarshal(raw, &head); err2 != nil || head.Type == "" {
			return Block{}, fmt.Errorf("not a content block: %v", err)
		}
		b = Block{Type: head.Type}
		b.Raw = append(json.RawMessage(nil), raw...)
		b.Type = "invalid:" + head.Type
		return b, nil
	}
	if b.Type == "" {
		return Block{}, errors.New(`block has no "type"`)
	}
	if b.Type == TypeToolReference && b.Name == "" {
		// Claude's API names the tool in tool_name.
		var ref struct {
			ToolName string `json:"tool_name"`
		}
		if json.Unmarshal(raw, &ref) == nil {
			b.Name = ref.ToolName
		}
	}
	b.Raw = append(json.RawMessage(nil), raw...)
	return b, nil
}

func firstNonSpace(b []byte) byte {
	for _, c := range b {
		switch c {
		case ' ', '\t', '\r', '\n':
			continue
		}
		return c
	}
	return 0
}
