package retention

import (
	"encoding/json"
	"unsafe"

	"spillscope/internal/jsontext"
)

// parseFast reads a tool result in one validating pass over its bytes
// (internal/jsontext), without encoding/json's reflection or its copy of
// each block's raw JSON: a text block {"type":"text","text":...} and an
// image block {"type":"image","mimeType":...,"data":...} are read directly;
// any other block goes through ParseBlock on its bytes. It answers false,
// having changed nothing, for anything it does not read exactly as
// ParseResult's encoding/json path would (an error, a duplicate or
// differently spelled key, invalid UTF-8 in a string, deep nesting), which
// that path then reads.
//
// inPlace decodes strings over their own bytes in data (an escape never
// decodes longer than it is written) and returns strings sharing data.
func parseFast(data []byte, inPlace bool) (Result, bool) {
	i := jsontext.SkipSpace(data, 0)
	if i >= len(data) {
		return Result{}, false
	}
	var res Result
	var plans []blockPlan
	readContent := func(at int) (int, bool) {
		return jsontext.Items(data, at, func(vs int) (int, bool) {
			p := blockPlan{start: vs}
			var ok bool
			if data[vs] == '{' {
				p.end, p.kind, ok = classifyBlock(data, vs, &p.fields)
			} else {
				p.end, ok = jsontext.Value(data, vs)
			}
			plans = append(plans, p)
			return p.end, ok
		})
	}
	var end int
	var ok bool
	switch data[i] {
	case '[':
		end, ok = readContent(i)
	case '{':
		seen := map[string]bool{}
		end, ok = jsontext.Fields(data, i, func(key []byte, escaped bool, vs int) (int, bool) {
			k := string(key)
			if escaped || seen[k] {
				return 0, false
			}
			seen[k] = true
			switch k {
			case "content":
				if vs >= len(data) || data[vs] != '[' {
					return 0, false
				}
				return readContent(vs)
			case "isError":
				for _, lit := range []string{"true", "false"} {
					if len(data)-vs >= len(lit) && string(data[vs:vs+len(lit)]) == lit {
						res.IsError = lit == "true"
						return vs + len(lit), true
					}
				}
				return 0, false
			}
			// encoding/json matches keys without regard to case.
			if foldMatch(k, "content") || foldMatch(k, "isError") {
				return 0, false
			}
			return jsontext.Value(data, vs)
		})
		ok = ok && seen["content"]
	}
	if !ok || jsontext.SkipSpace(data, end) != len(data) {
		return Result{}, false
	}
	// Every block's reading is decided before any string is decoded, so
	// nothing has changed when the answer is false.
	res.Content = make([]Block, 0, len(plans))
	for _, p := range plans {
		switch p.kind {
		case fastText:
			res.Content = append(res.Content, Block{Type: TypeText, Text: p.str(data, fieldText, inPlace)})
		case fastImage:
			res.Content = append(res.Content, Block{Type: TypeImage, MimeType: p.str(data, fieldMime, inPlace), Data: p.str(data, fieldData, inPlace)})
		default:
			b, err := ParseBlock(json.RawMessage(data[p.start:p.end]))
			if err != nil {
				return Result{}, false
			}
			res.Content = append(res.Content, b)
		}
	}
	return res, true
}

// blockPlan is how parseFast reads one block: where it is, which kind
// (fastText, fastImage, or 0 for ParseBlock), and its strings.
type blockPlan struct {
	start, end int
	kind       int
	fields     [3]jsontext.Span
}

// The blocks parseFast reads directly, and their strings.
const (
	fastText  = 1
	fastImage = 2

	fieldText = 0
	fieldMime = 1
	fieldData = 2
)

// str decodes string field f of the block ("" when absent).
func (p blockPlan) str(data []byte, f int, inPlace bool) string {
	v := p.fields[f]
	if v.End == 0 {
		return ""
	}
	inner := data[v.Start+1 : v.End-1]
	if !v.Escaped {
		if inPlace {
			return unsafe.String(unsafe.SliceData(inner), len(inner))
		}
		return string(inner)
	}
	dst := inner
	if !inPlace {
		dst = make([]byte, len(inner))
	}
	n, _ := jsontext.Unescape(dst, inner)
	// dst is data handed over (ParseResultInPlace) or a buffer of this
	// string's own: nothing writes to it again, so the string is immutable
	// for as long as it lives.
	return unsafe.String(unsafe.SliceData(dst), n)
}

// classifyBlock validates the block object at data[vs] and reads its
// members without decoding them: a text or image block whose every member
// is one of its own, spelled exactly, once, with a string of valid UTF-8 as
// its value, is fastText or fastImage, with its strings' spans in fields;
// anything else is 0 (for ParseBlock).
func classifyBlock(data []byte, vs int, fields *[3]jsontext.Span) (end, kind int, ok bool) {
	typ := ""
	plain := true
	var seen [4]bool // type, text, mimeType, data
	end, ok = jsontext.Members(data, vs, func(key []byte, escaped bool, v jsontext.Span) bool {
		k, f := -1, -1
		switch string(key) {
		case "type":
			k = 0
		case "text":
			k, f = 1, fieldText
		case "mimeType":
			k, f = 2, fieldMime
		case "data":
			k, f = 3, fieldData
		}
		if escaped || k < 0 || seen[k] || data[v.Start] != '"' || !v.UTF8 {
			plain = false
			return true // still validated to its end
		}
		seen[k] = true
		if k == 0 {
			// A type written with escapes is not "text" or "image" here,
			// and goes to ParseBlock.
			typ = string(data[v.Start+1 : v.End-1])
			return true
		}
		fields[f] = v
		return true
	})
	switch {
	case !ok || !plain:
	case typ == TypeText && !seen[2] && !seen[3]:
		kind = fastText
	case typ == TypeImage && !seen[1]:
		kind = fastImage
	}
	return end, kind, ok
}

// foldMatch reports whether encoding/json could match key k to the field
// name (it folds case, and the Kelvin sign and long s to k and s): any
// non-ASCII key counts, to be safe.
func foldMatch(k, name string) bool {
	for i := 0; i < len(k); i++ {
		if k[i] >= 0x80 {
			return true
		}
	}
	if len(k) != len(name) {
		return false
	}
	for i := 0; i < len(k); i++ {
		if a, b := k[i], name[i]; a != b && a|0x20 != b|0x20 {
			return false
		}
	}
	return true
}
