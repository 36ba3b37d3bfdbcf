package goose

import (
	"regexp"
	"strconv"
	"strings"
)

// Notice kinds.
const (
	// NoticeLargeResponse is large_response_handler.rs's notice for a text
	// item over 200,000 characters: "The response returned from the tool
	// call was larger (N characters) and is stored in the file: <path>\nYou
	// can use other tools to examine or search it." (current), or "… is
	// stored in the file which you can use other tools to examine or search
	// in: <path>" (before the spill moved into the data folder).
	NoticeLargeResponse = "goose-large-response"
	// NoticeSavedOutput is the wording of a variant that lowers the
	// threshold for shell output to 50,000 characters: "Tool output was N
	// characters and is saved to <path>. To view portions, …".
	NoticeSavedOutput = "goose-saved-output"
)

// Notice is goose's large-response notice recognised in a result's text.
type Notice struct {
	Kind string `json:"kind"`
	// Path is the file holding the whole text, exactly as written.
	Path string `json:"path"`
	// Characters is the length the notice states (Unicode characters).
	Characters int64 `json:"characters"`
}

var (
	largeRe = regexp.MustCompile(`^The response returned from the tool call was larger \((\d+) characters\) and is stored in the file(?: which you can use other tools to examine or search in)?: ([^\n]+?)[ \t]*(?:\n|$)`)
	savedRe = regexp.MustCompile(`^Tool output was (\d+) characters and is saved to (.+?)\. To view portions, `)
)

// RecogniseNotice recognises a content item's text that is goose's notice
// in place of a large response (goose replaces the whole item, so the
// notice is the whole text).
func RecogniseNotice(text string) (Notice, bool) {
	var m []string
	var kind string
	switch {
	case strings.HasPrefix(text, "The response returned from the tool call was larger ("):
		m, kind = largeRe.FindStringSubmatch(text), NoticeLargeResponse
	case strings.HasPrefix(text, "Tool output was "):
		line, _, _ := strings.Cut(text, "\n")
		m, kind = savedRe.FindStringSubmatch(line), NoticeSavedOutput
	}
	if m == nil || strings.TrimSpace(m[2]) == "" {
		return Notice{}, false
	}
	n, _ := strconv.ParseInt(m[1], 10, 64)
	return Notice{Kind: kind, Path: strings.TrimSpace(m[2]), Characters: n}, true
}
