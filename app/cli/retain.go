package cli

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"spillscope/retention"
	"spillscope/retention/imagecost"
	"spillscope/sessions"
)

const retainUsage = `usage: spillscope retain --budget N [--route R] [--encoding E] [--spill-dir DIR] [--tool NAME] < result.json

Runs the retention decision on one tool result read from standard input (an
MCP CallToolResult object or a bare content array) and prints the outcome as
one JSON object: status, content (images as {type,mimeType,path}), notice,
omittedBytes, omittedImages, tokens {total,text,images,notice},
originalTokens, originalTokensExact, spillPath, diagnostics, route, encoding.

Without --budget retention is disabled (status "disabled"). With --spill-dir,
inline image data is first stored as DIR/attachments/<sha256>.<ext> so images
have readable paths, and a replaced or notice-only result writes the complete
result file DIR/<id>.txt and DIR/<id>.retained.json (id: the first 16 hex
digits of the input's SHA-256). Nothing is written outside DIR.

Flags:
`

// retainOutput is the object `spillscope retain` prints; its fields are
// CLI.md's, in camelCase.
type retainOutput struct {
	Status              string              `json:"status"`
	Content             []json.RawMessage   `json:"content"`
	Notice              string              `json:"notice"`
	OmittedBytes        int64               `json:"omittedBytes"`
	OmittedImages       int                 `json:"omittedImages"`
	Tokens              retention.Tokens    `json:"tokens"`
	OriginalTokens      int                 `json:"originalTokens"`
	OriginalTokensExact bool                `json:"originalTokensExact"`
	SpillPath           string              `json:"spillPath"`
	Diagnostics         []string            `json:"diagnostics"`
	Route               string              `json:"route"`
	Encoding            string              `json:"encoding"`
	Budget              *int64              `json:"budget"`
	HeadEnd             *retention.Position `json:"headEnd,omitempty"`
	TailStart           *retention.Position `json:"tailStart,omitempty"`
}

// retainedRecord is DIR/<id>.retained.json (contracts.md).
type retainedRecord struct {
	Version   int             `json:"version"`
	CreatedAt string          `json:"createdAt"`
	ToolName  string          `json:"toolName"`
	Budget    *int64          `json:"budget"`
	Route     string          `json:"route"`
	Encoding  string          `json:"encoding"`
	Input     json.RawMessage `json:"input"`
	Outcome   retainOutput    `json:"outcome"`
}

// budgetFlag records whether --budget was given and keeps its text for
// validation after parsing, so the error names the flag.
type budgetFlag struct {
	set bool
	raw string
}

func (b *budgetFlag) String() string     { return b.raw }
func (b *budgetFlag) Set(s string) error { b.set, b.raw = true, s; return nil }

// parseBudget reads --budget as maxInlineTokens: a non-negative integer no
// larger than 2^53-1.
func parseBudget(raw string) (int64, error) {
	s := strings.TrimSpace(raw)
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		if n < 0 || n > retention.MaxBudget {
			_, verr := retention.ValidateBudget(float64(n))
			if verr == nil {
				verr = fmt.Errorf("%d is out of range", n)
			}
			return 0, fmt.Errorf("--budget %q: %w", raw, verr)
		}
		return n, nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		if errors.Is(err, strconv.ErrRange) {
			f = math.Inf(1)
		} else {
			return 0, fmt.Errorf("--budget %q is not a number of tokens", raw)
		}
	}
	n, err := retention.ValidateBudget(f)
	if err != nil {
		return 0, fmt.Errorf("--budget %q: %w", raw, err)
	}
	return n, nil
}

// runRetain runs the retention decision on one tool result from stdin.
func runRetain(env Env, args []string) int {
	fs := flag.NewFlagSet("retain", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var bud budgetFlag
	fs.Var(&bud, "budget", "maxInlineTokens: the token budget (omit to disable retention)")
	route := fs.String("route", retention.DefaultRoute, "image pricing route: "+strings.Join(imagecost.RouteNames(), ", "))
	encoding := fs.String("encoding", "", "text encoding: o200k_base or cl100k_base (default: the route's)")
	spillDir := fs.String("spill-dir", "", "write attachments, the complete result file and the record under this folder")
	tool := fs.String("tool", "", "name of the tool that produced the result (the host's read tool passes through)")
	err := fs.Parse(args)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(env.Stdout, retainUsage)
		fs.SetOutput(env.Stdout)
		fs.PrintDefaults()
		return exitOK
	}
	fail := func(code int, format string, a ...any) int {
		fmt.Fprintf(env.Stderr, "spillscope retain: "+format+"\n", a...)
		if code == exitUsage {
			fmt.Fprintln(env.Stderr, "Run 'spillscope retain -h' for usage.")
		}
		return code
	}
	if err != nil {
		return fail(exitUsage, "%v", err)
	}
	if fs.NArg() > 0 {
		return fail(exitUsage, "unexpected argument %q (the result is read from standard input)", fs.Arg(0))
	}
	var budgetPtr *int64
	if bud.set {
		n, err := parseBudget(bud.raw)
		if err != nil {
			return fail(exitUsage, "%v", err)
		}
		budgetPtr = &n
	}
	rt, err := imagecost.Lookup(*route)
	if err != nil {
		return fail(exitUsage, "--route: %v", err)
	}
	if *encoding != "" && *encoding != retention.EncodingO200k && *encoding != retention.EncodingCL100k {
		return fail(exitUsage, "--encoding %q: want %s or %s", *encoding, retention.EncodingO200k, retention.EncodingCL100k)
	}

	input, err := io.ReadAll(env.Stdin)
	if err != nil {
		return fail(exitFail, "reading standard input: %v", err)
	}
	res, err := retention.ParseResult(input)
	if err != nil {
		return fail(exitFail, "standard input: %v", err)
	}
	sum := sha256.Sum256(input)
	id := hex.EncodeToString(sum[:])[:16]

	var diags []string
	opts := retention.Options{Budget: budgetPtr, Route: rt.Name, Encoding: *encoding, ToolName: *tool}
	var dir string
	if *spillDir != "" {
		dir, err = filepath.Abs(*spillDir)
		if err != nil {
			return fail(exitFail, "--spill-dir: %v", err)
		}
		d, err := storeAttachments(dir, res.Content)
		if err != nil {
			return fail(exitFail, "%v", err)
		}
		diags = d
		opts.SpillPath = filepath.Join(dir, id+".txt")
	}

	out, err := retention.Retain(res, opts)
	if err != nil {
		return fail(exitUsage, "%v", err)
	}
	o := makeOutput(out, budgetPtr)
	o.Diagnostics = append(diags, o.Diagnostics...)
	if o.Diagnostics == nil {
		o.Diagnostics = []string{}
	}
	if dir != "" && (out.Status == retention.StatusReplaced || out.Status == retention.StatusNoticeOnly) {
		if err := writeFile(opts.SpillPath, []byte(out.CompleteFile)); err != nil {
			return fail(exitFail, "%v", err)
		}
		o.SpillPath = opts.SpillPath
		rec := retainedRecord{
			Version: 1, CreatedAt: time.Now().UTC().Format(time.RFC3339), ToolName: *tool,
			Budget: budgetPtr, Route: out.Route, Encoding: out.Encoding,
			Input: resultJSON(res), Outcome: o,
		}
		data, err := json.MarshalIndent(rec, "", "  ")
		if err != nil {
			return fail(exitFail, "%v", err)
		}
		if err := writeFile(filepath.Join(dir, id+".retained.json"), append(data, '\n')); err != nil {
			return fail(exitFail, "%v", err)
		}
	}
	if err := writeJSON(env.Stdout, o); err != nil {
		return fail(exitFail, "%v", err)
	}
	return exitOK
}

func makeOutput(out retention.Outcome, budget *int64) retainOutput {
	content := make([]json.RawMessage, len(out.Content))
	for i, b := range out.Content {
		content[i] = blockJSON(b)
	}
	return retainOutput{
		Status: out.Status, Content: content, Notice: out.Notice,
		OmittedBytes: out.OmittedBytes, OmittedImages: out.OmittedImages,
		Tokens: out.Tokens, OriginalTokens: out.OriginalTokens, OriginalTokensExact: out.OriginalTokensExact,
		Diagnostics: out.Diagnostics, Route: out.Route, Encoding: out.Encoding, Budget: budget,
		HeadEnd: out.HeadEnd, TailStart: out.TailStart,
	}
}

// blockJSON is a block as printed: text as {type,text}, images as
// {type,mimeType,path} (never base64), anything else as its original JSON.
func blockJSON(b retention.Block) json.RawMessage {
	var v any
	switch b.Type {
	case retention.TypeText:
		v = struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}{b.Type, b.Text}
	case retention.TypeImage:
		v = struct {
			Type     string `json:"type"`
			MimeType string `json:"mimeType"`
			Path     string `json:"path"`
		}{b.Type, b.MimeType, b.Path}
	default:
		if len(b.Raw) > 0 {
			return b.Raw
		}
		v = b
	}
	data, err := json.Marshal(v)
	if err != nil {
		return json.RawMessage(`null`)
	}
	return data
}

// resultJSON is the input result with images as paths, for the record.
func resultJSON(res retention.Result) json.RawMessage {
	blocks := make([]json.RawMessage, len(res.Content))
	for i, b := range res.Content {
		blocks[i] = blockJSON(b)
	}
	data, _ := json.Marshal(struct {
		Content []json.RawMessage `json:"content"`
		IsError bool              `json:"isError"`
	}{blocks, res.IsError})
	return data
}

// storeAttachments writes each inline image's bytes to
// dir/attachments/<sha256>.<ext> and points the block at that file, so the
// complete result file can name a readable path. Data that is not valid
// base64 (or holds no bytes) stays inline with a diagnostic; the decision then
// keeps the original. Bytes that are no known image are stored as .bin: the
// path still lets the decision name them.
func storeAttachments(dir string, blocks []retention.Block) ([]string, error) {
	var diags []string
	attDir := filepath.Join(dir, "attachments")
	made := false
	for i := range blocks {
		b := &blocks[i]
		if b.Type != retention.TypeImage || b.Data == "" || b.Path != "" {
			continue
		}
		raw, err := decodeBase64(b.Data)
		if err != nil {
			diags = append(diags, fmt.Sprintf("image block %d: not stored as an attachment: invalid base64: %v", i, err))
			continue
		}
		if !made {
			// Private like the rest of the spill dir: the store would
			// create its folder world-readable.
			if err := os.MkdirAll(attDir, 0o700); err != nil {
				return nil, fmt.Errorf("spill dir: %w", err)
			}
			made = true
		}
		_, path, err := sessions.StoreAttachment(attDir, raw, sessions.StoreOptions{KeepUnknown: true})
		if errors.Is(err, sessions.ErrImage) {
			diags = append(diags, fmt.Sprintf("image block %d: not stored as an attachment: %v", i, err))
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("spill dir: %w", err)
		}
		b.Path, b.Data = path, ""
	}
	return diags, nil
}

func decodeBase64(s string) ([]byte, error) {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "data:") {
		if i := strings.IndexByte(s, ','); i >= 0 {
			s = s[i+1:]
		}
	}
	s = strings.Map(func(r rune) rune {
		if r == ' ' || r == '\n' || r == '\r' || r == '\t' {
			return -1
		}
		return r
	}, s)
	enc := base64.StdEncoding
	if strings.ContainsAny(s, "-_") {
		enc = base64.URLEncoding
	}
	if !strings.HasSuffix(s, "=") {
		enc = enc.WithPadding(base64.NoPadding)
	}
	return enc.DecodeString(s)
}

// writeFile writes a private file (the result may hold anything the tool
// printed), creating its folder.
func writeFile(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("spill dir: %w", err)
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		return fmt.Errorf("spill dir: %w", err)
	}
	return nil
}
