package retention

import (
	"encoding/json"
	"regexp"
	"strconv"
)

// Reading a token-era complete result file back: dsh-tokens writes every
// text block as it is and a line for each image (DshImageLine), so the
// file gives the original back with its images named by path. Adjacent
// text blocks of the original cannot be told apart in the file (their
// texts are written one after the other), so each run of text is one
// block; dsh's results put text and images in turn, where this loses
// nothing.

// dshImageLine matches DshImageLine's output: the JSON-quoted path, the
// media type and the dimensions.
var dshImageLine = regexp.MustCompile(`\n\[Image: ("(?:[^"\\\n]|\\.)*"); ([^;\n]+); ([0-9]+)x([0-9]+)\. Use read_image to view it\.\]\n`)

// DshCompleteImage is one image line of a complete result file.
type DshCompleteImage struct {
	Path      string
	MediaType string
	Width     int
	Height    int
}

// ParseDshComplete splits a token-era complete result file into blocks:
// text runs, and an image block (MimeType and Path from its line) for each
// line whose path isImage accepts, which lets only paths the harness's
// layout writes stand for images; any other line stays text. images holds
// each image line's facts by block index.
func ParseDshComplete(text string, isImage func(path string) bool) (blocks []Block, images map[int]DshCompleteImage) {
	images = map[int]DshCompleteImage{}
	at := 0
	flush := func(end int) {
		if end > at {
			blocks = append(blocks, Block{Type: TypeText, Text: text[at:end]})
		}
	}
	for _, m := range dshImageLine.FindAllStringSubmatchIndex(text, -1) {
		var path string
		if json.Unmarshal([]byte(text[m[2]:m[3]]), &path) != nil || isImage == nil || !isImage(path) {
			continue
		}
		w, errW := strconv.Atoi(text[m[6]:m[7]])
		h, errH := strconv.Atoi(text[m[8]:m[9]])
		if errW != nil || errH != nil {
			continue
		}
		flush(m[0])
		images[len(blocks)] = DshCompleteImage{Path: path, MediaType: text[m[4]:m[5]], Width: w, Height: h}
		blocks = append(blocks, Block{Type: TypeImage, MimeType: text[m[4]:m[5]], Path: path})
		at = m[1]
	}
	flush(len(text))
	return blocks, images
}
