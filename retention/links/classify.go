package links

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"spillscope/retention"
)

// Kinds of View: how a block reaches the model.
const (
	// KindItself: text, or an image with data (or a readable path) and a
	// media type, shown as it is.
	KindItself = "itself"
	// KindLink: a resource_link shown as its own line, URI included.
	KindLink = "link"
	// KindStub: a resource_link shown without its URI, saying why.
	KindStub = "stub"
	// KindMarker: a block that is not shown, replaced by a line saying what
	// it was and why.
	KindMarker = "marker"
)

// Reasons a marker gives, beside the link reasons of CheckURI.
const (
	ReasonAudio               = "audio"
	ReasonImageWithoutData    = "image-without-data"
	ReasonImageWithoutType    = "image-without-media-type"
	ReasonResourceWithoutLink = "resource-without-link"
	ReasonLinkWithoutURI      = "link-without-uri"
	ReasonUnknownType         = "unknown-type"
	ReasonUnreadableBlock     = "unreadable-block"
)

// Decision is how a resource_link is shown: Shown with its line, or not, with
// the stub (or marker) line and why. Parameter is the list's spelling of the
// matched name, never its value.
type Decision struct {
	Shown     bool   `json:"shown"`
	Line      string `json:"line"`
	Reason    string `json:"reason"`
	Parameter string `json:"parameter"`
}

// View is how one block of a tool result's content array reaches the model.
// Every view (the app's panes, the CLI, the indexer) reads blocks through
// Classify, so they all say the same thing about each block.
type View struct {
	// Index is the block's position in the content array.
	Index int `json:"index"`
	// Kind is one of KindItself, KindLink, KindStub, KindMarker.
	Kind string `json:"kind"`
	// Type is the block's type, as a label.
	Type string `json:"type"`
	// Line is what the model reads in place of the block: the link line,
	// the stub, the marker, or an image's placeholder. It is empty for text,
	// which the model reads as itself.
	Line string `json:"line"`
	// Reason is empty for blocks shown as themselves and for link lines;
	// otherwise a short code (the Reason constants).
	Reason string `json:"reason,omitempty"`
	// Parameter is the matched credential parameter's listed name.
	Parameter string `json:"parameter,omitempty"`
	// NotForModel is set when the block's audience annotation names
	// recipients and the assistant is not among them.
	NotForModel bool `json:"notForModel,omitempty"`
	// Audience and Priority are the block's MCP annotations, carried as
	// given (audience entries as labels).
	Audience []string `json:"audience,omitempty"`
	Priority *float64 `json:"priority,omitempty"`
}

// Classify shows each block of a tool result's content array as itself, a
// link line, a stub or a marker. The result's references are read as one
// first: a URI that any block marks disposition "never" (top level, or in
// its _meta) is stubbed wherever a link names it, whatever the order.
func Classify(blocks []retention.Block) []View {
	never := neverURIs(blocks)
	views := make([]View, len(blocks))
	for i, b := range blocks {
		v := classifyBlock(b, never)
		v.Index = i
		if b.Annotations != nil {
			v.Priority = b.Annotations.Priority
			if len(b.Annotations.Audience) > 0 {
				v.Audience = make([]string, len(b.Annotations.Audience))
				forModel := false
				for j, a := range b.Annotations.Audience {
					v.Audience[j] = Label(a, MaxTypeRunes)
					if a == "assistant" {
						forModel = true
					}
				}
				v.NotForModel = !forModel
			}
		}
		views[i] = v
	}
	return views
}

func classifyBlock(b retention.Block, never map[string]bool) View {
	v := View{Type: Label(b.Type, MaxTypeRunes)}
	switch b.Type {
	case retention.TypeText:
		v.Kind = KindItself
	case retention.TypeImage:
		switch {
		case b.Data == "" && !readablePath(b.Path):
			v.Kind, v.Reason = KindMarker, ReasonImageWithoutData
			v.Line = "[Image not shown: it arrived without data.]"
		case b.MimeType == "":
			v.Kind, v.Reason = KindMarker, ReasonImageWithoutType
			v.Line = "[Image not shown: it arrived without a media type.]"
		default:
			v.Kind = KindItself
			v.Line = "[image: " + Label(b.MimeType, MaxTypeRunes) + "]"
		}
	case retention.TypeAudio:
		v.Kind, v.Reason = KindMarker, ReasonAudio
		v.Line = AudioMarker(b.MimeType, b.Data)
	case retention.TypeResourceLink:
		d := linkDecision(b, never)
		v.Line, v.Reason, v.Parameter = d.Line, d.Reason, d.Parameter
		switch {
		case d.Shown:
			v.Kind = KindLink
		case d.Reason == ReasonLinkWithoutURI:
			v.Kind = KindMarker
		default:
			v.Kind = KindStub
		}
	case retention.TypeToolReference:
		// The model is given the named tool's definition: the block reaches
		// it as itself, read here as a line naming the tool.
		v.Kind = KindItself
		v.Line = "[tool reference]"
		if name := Label(b.Name, MaxNameRunes); name != "" {
			v.Line = "[tool reference: " + name + "]"
		}
	case retention.TypeResource:
		v.Kind, v.Reason = KindMarker, ReasonResourceWithoutLink
		v.Line = "[Reference not shown: it arrived without a link.]"
	default:
		v.Kind = KindMarker
		if t, ok := strings.CutPrefix(b.Type, "invalid:"); ok {
			v.Type = Label(t, MaxTypeRunes)
			v.Reason = ReasonUnreadableBlock
			v.Line = fmt.Sprintf("[Content not shown: a %q block that could not be read.]", v.Type)
		} else {
			v.Reason = ReasonUnknownType
			v.Line = fmt.Sprintf("[Content not shown: this host can't display %q content.]", v.Type)
		}
	}
	return v
}

// readablePath reports an image attachment the app can read.
func readablePath(p string) bool {
	if p == "" {
		return false
	}
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}

// AudioMarker is the line inline audio shows as: its media type and its
// approximate decoded size, never its base64.
func AudioMarker(mimeType, data string) string {
	size := ApproxSize(data)
	if mt := Label(mimeType, MaxTypeRunes); mt != "" {
		size = mt + ", " + size
	}
	return "[Audio not shown: this host's tool results carry only text and images (" + size + ").]"
}

// ApproxSize is the decoded size of base64 data, roughly, as a person reads
// it: "empty", "700 bytes", "~3KB", "~1.4MB".
func ApproxSize(b64 string) string {
	n := len(b64) * 3 / 4
	if strings.HasSuffix(b64, "==") {
		n -= 2
	} else if strings.HasSuffix(b64, "=") {
		n--
	}
	switch {
	case n <= 0:
		return "empty"
	case n == 1:
		return "1 byte"
	case n < 1024:
		return fmt.Sprintf("%d bytes", n)
	case n < 1024*1024:
		return fmt.Sprintf("~%dKB", (n+512)/1024)
	}
	return fmt.Sprintf("~%.1fMB", float64(n)/(1024*1024))
}

// LinkLine is how a tool result's resource_link is shown when nothing else in
// the result speaks about its URI: its own line, URI included, when the URI
// cannot carry a credential; otherwise a stub without the URI saying why. It
// reads b's URI, name (or title) and media type whatever b's type, so a
// caller can ask about a bare URI (as the links subcommand does).
func LinkLine(b retention.Block) Decision {
	return linkDecision(b, nil)
}

func linkDecision(b retention.Block, never map[string]bool) Decision {
	name := b.Name
	if name == "" {
		name = b.Title
	}
	name = Label(name, MaxNameRunes)
	mime := Label(b.MimeType, MaxTypeRunes)
	if b.URI == "" {
		return Decision{Line: "[Resource link not shown: it arrived without a URI.]", Reason: ReasonLinkWithoutURI}
	}
	reason, param, hide := CheckURI(b.URI)
	if !hide && never[b.URI] {
		reason, hide = ReasonDispositionNever, true
	}
	if !hide {
		var s strings.Builder
		s.Grow(len("[resource link \"\": , ; not fetched]") + len(name) + len(b.URI) + len(mime))
		s.WriteString("[resource link")
		if name != "" {
			s.WriteString(` "`)
			s.WriteString(name)
			s.WriteByte('"')
		}
		s.WriteString(": ")
		s.WriteString(b.URI)
		if mime != "" {
			s.WriteString(", ")
			s.WriteString(mime)
		}
		s.WriteString("; not fetched]")
		return Decision{Shown: true, Line: s.String()}
	}
	return Decision{Line: StubLine(name, mime, reason, param), Reason: reason, Parameter: param}
}

// StubLine is the line a link shows in place of its URI. name and mimeType
// must already be labels (see Label).
func StubLine(name, mimeType, reason, parameter string) string {
	words := reasonWords(reason, parameter)
	var s strings.Builder
	s.Grow(len("[resource link \"\" () not shown: ; not fetched]") + len(name) + len(mimeType) + len(words))
	s.WriteString("[resource link")
	if name != "" {
		s.WriteString(` "`)
		s.WriteString(name)
		s.WriteByte('"')
	}
	if mimeType != "" {
		s.WriteString(" (")
		s.WriteString(mimeType)
		s.WriteByte(')')
	}
	s.WriteString(" not shown: ")
	s.WriteString(words)
	s.WriteString("; not fetched]")
	return s.String()
}

func reasonWords(reason, parameter string) string {
	switch reason {
	case ReasonUserinfo:
		return "its URI carries a user name or password"
	case ReasonCredentialParameter:
		return "its URI may carry a credential (parameter " + Label(parameter, MaxTypeRunes) + ")"
	case ReasonUnparseable:
		return "its URI could not be read, so it may carry a credential"
	case ReasonDispositionNever:
		return "a reference in this result marks its URI never to be shown"
	}
	return "its URI may carry a credential"
}

// neverURIs collects the URIs a block of the result marks disposition
// "never", at its top level, in its _meta (a "disposition" key, bare or
// namespaced as ".../disposition"), or on an embedded resource. Fields are
// read one by one, so a malformed neighbour cannot lose a "never".
func neverURIs(blocks []retention.Block) map[string]bool {
	var never map[string]bool
	add := func(uri string) {
		if uri == "" {
			return
		}
		if never == nil {
			never = make(map[string]bool)
		}
		never[uri] = true
	}
	for _, b := range blocks {
		if !bytes.Contains(b.Raw, []byte("disposition")) {
			continue
		}
		top, ok := readRef(b.Raw)
		if !ok {
			continue
		}
		res, hasRes := readRef(top.resource)
		if top.never {
			// A block's own disposition covers the URI it names, whether at
			// its top level or on the resource it embeds.
			add(top.uri)
			add(b.URI)
			if hasRes {
				add(res.uri)
			}
		}
		if hasRes && res.never {
			add(res.uri)
		}
	}
	return never
}

type refFields struct {
	uri      string
	never    bool
	resource json.RawMessage
}

// readRef reads the fields of an object that speak about a reference.
func readRef(raw json.RawMessage) (refFields, bool) {
	var r refFields
	var obj map[string]json.RawMessage
	if len(raw) == 0 || json.Unmarshal(raw, &obj) != nil {
		return r, false
	}
	_ = json.Unmarshal(obj["uri"], &r.uri)
	r.resource = obj["resource"]
	r.never = isNever(obj["disposition"])
	var meta map[string]json.RawMessage
	if json.Unmarshal(obj["_meta"], &meta) == nil {
		for k, v := range meta {
			if (k == "disposition" || strings.HasSuffix(k, "/disposition")) && isNever(v) {
				r.never = true
			}
		}
	}
	return r, true
}

func isNever(raw json.RawMessage) bool {
	var s string
	return len(raw) > 0 && json.Unmarshal(raw, &s) == nil && strings.EqualFold(s, "never")
}

// mcpTypes are the five block types of MCP's content array.
var mcpTypes = map[string]bool{
	retention.TypeText: true, retention.TypeImage: true, retention.TypeAudio: true,
	retention.TypeResource: true, retention.TypeResourceLink: true,
}

// IsContentArray decides whether an array in a tool result is content (shown
// block by block through Classify) or data (shown as JSON). A protocol
// result's array is content whatever its types; any other array is content
// only when every element is one of MCP's five block types, so a list of
// records of other types is never hidden behind markers.
func IsContentArray(types []string, fromProtocol bool) bool {
	if fromProtocol {
		return true
	}
	for _, t := range types {
		if !mcpTypes[t] {
			return false
		}
	}
	return true
}

// ContentTypes reads the "type" of each element of a JSON array, for
// IsContentArray: "" for an element that is not an object or whose type is
// not a string. It fails when data is not a JSON array.
func ContentTypes(data []byte) ([]string, error) {
	var raws []json.RawMessage
	if err := json.Unmarshal(data, &raws); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNotArray, err)
	}
	types := make([]string, len(raws))
	for i, raw := range raws {
		var head struct {
			Type any `json:"type"`
		}
		if json.Unmarshal(raw, &head) == nil {
			if s, ok := head.Type.(string); ok {
				types[i] = s
			}
		}
	}
	return types, nil
}
