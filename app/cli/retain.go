package cli

import (
	"crypto/sha256"
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

	"spillscope/app"
	"spillscope/retention"
	"spillscope/retention/imagecost"
	"spillscope/sessions"
)

const retainUsage = `usage: spillscope retain [--policy P] [--budget N] [--estimator E] [--route R] [--tool NAME]
                        [--spill-path P] [--spill-hint H] [--spill-dir DIR] [--param k=v]... < result.json
       spillscope retain --result ID [--db PATH] [--policy P] [--budget N] [--estimator E] [--route R]
                        [--tool NAME] [--param k=v]... [--reveal]

Runs a retention policy on one tool result read from standard input (an MCP
CallToolResult object or a bare content array) and prints the outcome as one
JSON object: policy, status, content (images as {type,mimeType,path}), spans
(each part of the content: kept, marker, notice, with where it comes from),
notice, omittedBytes, omittedImages, recovery, tokens {estimator,total,text,
images,notice}, originalTokens, originalTokensExact, spillPath, diagnostics,
route, estimator, budget, budgetUnit.

Policies: dsh-tokens (dsh 0.1.7+, budget maxInlineTokens in tokens, shipped
12500), dsh-bytes (dsh up to 0.1.5, maxInlineBytes in bytes, shipped 50000),
dsh-pruner (dsh's compaction pruner, thresholdChars in code points, 8192),
codex (Codex CLI, budget limit in the mode's unit; --param mode=bytes|tokens,
model=SLUG, tool_output_token_limit=N, history=true, mcp=true), claude-code
(Claude Code, budget threshold in characters; --param tool=Bash|Grep|Read|mcp|
other, content=string|array, mcp=error|truncate, MAX_MCP_OUTPUT_TOKENS=N),
opencode (maxBytes in bytes, 51200; maxLines, direction, task, form), goose
(LARGE_TEXT_THRESHOLD in characters, 200000; era), gemini-cli
(truncateToolOutputThreshold in characters, 40000; era, tools), and any other
registered policy (spillscope compare -h lists them).
--budget sets the policy's budget in its own unit, as --param under its own
name does (limit=N, threshold=N); without it a dsh policy is off (status
"disabled"), as an omitted dsh setting disables dsh's policy, while codex
takes its model's catalogue limit and claude-code its shipped 50000.
--estimator: any registered estimator (dsh-meter, o200k_base, cl100k_base,
bytes4, utf8-bytes, code-points, utf16-units; default: the route's).

With --result it runs the decision on an indexed tool result (an id from
'spillscope results') as the window's re-run pane does, on the result's own
route and tool unless --route and --tool say otherwise, and prints what that
pane shows as one JSON object: resultId, status, blocks (each part of the
outcome: kept text, the omitted marker, the notice, images; text masked
unless --reveal), notice, omittedBytes, omittedImages, tokens,
originalTokens (the result's row's tokens once the index has counted it),
originalTokensExact, diagnostics, policy, route, estimator, budget,
budgetUnit, recovery, locator, completeFile (shortened and masked), masked,
revealed. Nothing is written.

--spill-path is the locator the notice names and --spill-hint the spill
backend's retrieval hint (default: dsh-spill-local's). With --spill-dir,
inline image data is first stored as DIR/attachments/<sha256>.<ext> so images
have readable paths, and a replaced or notice-only result writes dsh's layout:
DIR/session-<sha12>/<12 hex>-<tool>.txt (mode 0600, folders 0700; sha12 from
--session, the 12 hex digits from the input's SHA-256) and beside it the
record <12 hex>-<tool>.retained.json that the indexer reads. Nothing is
written outside DIR.

Flags:
`

// retainOutput is the object `spillscope retain` prints; its fields are
// CLI.md's, in camelCase.
type retainOutput struct {
	Policy              string              `json:"policy"`
	Status              string              `json:"status"`
	Content             []any               `json:"content"`
	Spans               []retention.Span    `json:"spans,omitempty"`
	Notice              string              `json:"notice"`
	OmittedBytes        int64               `json:"omittedBytes"`
	OmittedImages       int                 `json:"omittedImages"`
	Recovery            retention.Recovery  `json:"recovery"`
	Tokens              retention.Tokens    `json:"tokens"`
	OriginalTokens      int                 `json:"originalTokens"`
	OriginalTokensExact bool                `json:"originalTokensExact"`
	SpillPath           string              `json:"spillPath"`
	Diagnostics         []string            `json:"diagnostics"`
	Route               string              `json:"route"`
	Estimator           string              `json:"estimator"`
	Budget              *int64              `json:"budget"`
	BudgetUnit          string              `json:"budgetUnit"`
	HeadEnd             *retention.Position `json:"headEnd,omitempty"`
	TailStart           *retention.Position `json:"tailStart,omitempty"`
}

// retainedRecord is the record `retain --spill-dir` writes beside the
// spill file (contracts.md); the indexer reads it as a session of one result.
type retainedRecord struct {
	Version   int             `json:"version"`
	CreatedAt string          `json:"createdAt"`
	ToolName  string          `json:"toolName"`
	Policy    string          `json:"policy"`
	Budget    *int64          `json:"budget"`
	Route     string          `json:"route"`
	Estimator string          `json:"estimator"`
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

// paramFlag collects --param k=v.
type paramFlag retention.Params

func (p paramFlag) String() string { return "" }
func (p paramFlag) Set(s string) error {
	k, v, ok := strings.Cut(s, "=")
	if !ok || strings.TrimSpace(k) == "" {
		return fmt.Errorf("%q is not k=v", s)
	}
	p[strings.TrimSpace(k)] = v
	return nil
}

// parseBudget reads --budget: a non-negative integer no larger than 2^53-1.
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
			return 0, fmt.Errorf("--budget %q is not a number", raw)
		}
	}
	n, err := retention.ValidateBudget(f)
	if err != nil {
		return 0, fmt.Errorf("--budget %q: %w", raw, err)
	}
	return n, nil
}

// runRetain runs a retention policy on one tool result from stdin.
func runRetain(env Env, args []string) int {
	if isReplay(args) {
		return runRetainReplay(env, args)
	}
	fs := flag.NewFlagSet("retain", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var bud budgetFlag
	params := paramFlag{}
	fs.Var(&bud, "budget", "the policy's budget in its own unit (tokens, bytes, code points); omit to switch the policy off")
	policy := fs.String("policy", retention.DefaultPolicy, "retention policy: "+policyNames())
	route := fs.String("route", retention.DefaultRoute, "image pricing route: "+strings.Join(imagecost.RouteNames(), ", "))
	estimator := fs.String("estimator", "", "text estimator: "+strings.Join(retention.EstimatorNames(), ", ")+" (default: the route's)")
	fs.StringVar(estimator, "encoding", "", "the same as --estimator")
	spillDir := fs.String("spill-dir", "", "write attachments, the complete result file and the record under this folder, in dsh's layout")
	spillPath := fs.String("spill-path", "", "the locator the notice names (default: the file --spill-dir writes)")
	spillHint := fs.String("spill-hint", retention.LocalSpillHint, "the spill backend's retrieval hint the notice ends with")
	session := fs.String("session", "spillscope", "session id whose spill folder --spill-dir writes into")
	tool := fs.String("tool", "", "name of the tool that produced the result (the host's read tool passes through)")
	fs.Var(params, "param", "a policy parameter k=v (repeatable), under the harness's own name")
	result := fs.String("result", "", "run on this indexed tool result (an id from 'spillscope results') instead of standard input")
	dbPath := fs.String("db", "", "with --result: database file (default: the app's own)")
	reveal := fs.Bool("reveal", false, "with --result: show credential values instead of masking them")
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
		return fail(exitUsage, "unexpected argument %q (the result is read from standard input, or named by --result)", fs.Arg(0))
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if *result == "" {
		for _, name := range []string{"db", "reveal"} {
			if set[name] {
				return fail(exitUsage, "--%s goes with --result", name)
			}
		}
	} else {
		for _, name := range []string{"spill-dir", "spill-path", "spill-hint", "session"} {
			if set[name] {
				return fail(exitUsage, "--%s is for a result read from standard input, not with --result", name)
			}
		}
	}
	pol, err := retention.LookupPolicy(*policy)
	if err != nil {
		return fail(exitUsage, "--policy: %v", err)
	}
	info := pol.Info()
	var budgetPtr *int64
	if _, given := params[info.Budget]; given {
		// The budget under the harness's own name (codex limit=N,
		// claude-code threshold=N) is the same setting as --budget.
		if bud.set {
			return fail(exitUsage, "--budget and --param %s both give the budget; give one", info.Budget)
		}
		s, err := info.Resolve(retention.Params(params))
		if err != nil {
			return fail(exitUsage, "%v", err)
		}
		delete(params, info.Budget)
		if n, on := s.Budget(); on {
			budgetPtr = &n
		}
	} else if bud.set {
		n, err := parseBudget(bud.raw)
		if err != nil {
			return fail(exitUsage, "%v", err)
		}
		budgetPtr = &n
	}
	opts := retention.Options{Policy: info.Name, Budget: budgetPtr, Params: retention.Params(params), Estimator: *estimator, ToolName: *tool, SpillPath: *spillPath, SpillHint: *spillHint}
	if _, _, err := opts.Settings(budgetPtr); err != nil {
		return fail(exitUsage, "%v", err)
	}
	rt, err := imagecost.Lookup(*route)
	if err != nil {
		return fail(exitUsage, "--route: %v", err)
	}
	opts.Route = rt.Name
	if _, err := retention.EstimatorFor(*estimator, rt.Name); err != nil {
		return fail(exitUsage, "--estimator: %v", err)
	}
	if *result != "" {
		id, err := strconv.ParseInt(strings.TrimSpace(*result), 10, 64)
		if err != nil || id <= 0 {
			return fail(exitUsage, "--result %q is not a result id (a positive number)", *result)
		}
		req := app.RetainRequest{ResultID: id, Policy: info.Name, Budget: budgetPtr, Params: params, Estimator: *estimator, ToolName: *tool, Reveal: *reveal}
		if set["route"] {
			req.Route = rt.Name
		}
		return runRetainResult(env, *dbPath, req, fail)
	}

	input, err := readInput(env.Stdin)
	if err != nil {
		return fail(exitFail, "reading standard input: %v", err)
	}
	// The spill file's name comes from the input as given, before its
	// strings are decoded over it.
	var id12 string
	if *spillDir != "" {
		sum := sha256.Sum256(input)
		id12 = hex.EncodeToString(sum[:])[:12]
	}
	// The input is ours alone: its texts are decoded where they lie, so a
	// 10 MB result is not copied again.
	res, err := retention.ParseResultInPlace(input)
	if err != nil {
		return fail(exitFail, "standard input: %v", err)
	}

	var diags []string
	var dir, spillFile string
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
		spillFile = filepath.Join(dir, retention.DshSessionFolder(*session), retention.DshSpillName(id12, orDefault(*tool, "tool")))
		if opts.SpillPath == "" {
			opts.SpillPath = spillFile
		}
	}

	out, err := retention.Retain(res, opts)
	if err != nil {
		return fail(exitUsage, "%v", err)
	}
	o := makeOutput(out)
	o.Diagnostics = append(diags, o.Diagnostics...)
	if o.Diagnostics == nil {
		o.Diagnostics = []string{}
	}
	if dir != "" && (out.Status == retention.StatusReplaced || out.Status == retention.StatusNoticeOnly) && out.Recovery.Kind == retention.RecoverFile {
		if err := writeFile(spillFile, []byte(out.CompleteFile)); err != nil {
			return fail(exitFail, "%v", err)
		}
		o.SpillPath = spillFile
		rec := retainedRecord{
			Version: 2, CreatedAt: time.Now().UTC().Format(time.RFC3339), ToolName: *tool, Policy: out.Policy,
			Budget: budgetPtr, Route: out.Route, Estimator: out.Estimator,
			Input: resultJSON(res), Outcome: o,
		}
		data, err := json.MarshalIndent(rec, "", "  ")
		if err != nil {
			return fail(exitFail, "%v", err)
		}
		if err := writeFile(strings.TrimSuffix(spillFile, ".txt")+sessions.RetainedSuffix, append(data, '\n')); err != nil {
			return fail(exitFail, "%v", err)
		}
	}
	if err := writeJSON(env.Stdout, o); err != nil {
		return fail(exitFail, "%v", err)
	}
	return exitOK
}

// retainResultOutput is what `retain --result` prints: the window's
// re-run pane for the result.
type retainResultOutput struct {
	ResultID int64 `json:"resultId"`
	app.Projection
}

// runRetainResult runs the decision on an indexed result through the
// window's Retention service (its Analysis, its masking, the row's counted
// original), and prints the projection. A replay of what the harness
// recorded for the result would branch off here, beside the re-run.
func runRetainResult(env Env, dbPath string, req app.RetainRequest, fail func(int, string, ...any) int) int {
	store, err := viewStore(env, dbPath)
	if err != nil {
		return fail(exitFail, "%v", err)
	}
	defer store.Close()
	p, err := app.NewRetention(store).Retain(req)
	if errors.Is(err, sessions.ErrNotFound) {
		return fail(exitFail, "--result %d: no such result in the index", req.ResultID)
	}
	if err != nil {
		return fail(exitFail, "--result %d: %v", req.ResultID, err)
	}
	if err := writeJSON(env.Stdout, retainResultOutput{ResultID: req.ResultID, Projection: p}); err != nil {
		return fail(exitFail, "%v", err)
	}
	return exitOK
}

// readInput reads standard input whole, into a buffer of its size when it
// is a file (no growing copies of a 10 MB result).
func readInput(r io.Reader) ([]byte, error) {
	if f, ok := r.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode().IsRegular() && st.Size() > 0 {
			buf := make([]byte, st.Size())
			n, err := io.ReadFull(f, buf)
			switch {
			case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
				return buf[:n], nil
			case err != nil:
				return nil, err
			}
			// The file grew since: read the rest too.
			rest, err := io.ReadAll(f)
			return append(buf, rest...), err
		}
	}
	return io.ReadAll(r)
}

func policyNames() string {
	var names []string
	for _, p := range retention.Policies() {
		names = append(names, p.Name)
	}
	return strings.Join(names, ", ")
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func makeOutput(out retention.Outcome) retainOutput {
	content := make([]any, len(out.Content))
	for i, b := range out.Content {
		content[i] = blockValue(b)
	}
	return retainOutput{
		Policy: out.Policy, Status: out.Status, Content: content, Spans: out.Spans, Notice: out.Notice,
		OmittedBytes: out.OmittedBytes, OmittedImages: out.OmittedImages, Recovery: out.Recovery,
		Tokens: out.Tokens, OriginalTokens: out.OriginalTokens, OriginalTokensExact: out.OriginalTokensExact,
		Diagnostics: out.Diagnostics, Route: out.Route, Estimator: out.Estimator, Budget: out.Budget, BudgetUnit: out.BudgetUnit,
		HeadEnd: out.HeadEnd, TailStart: out.TailStart,
	}
}

// blockJSON is a block as printed (blockValue), encoded.
func blockJSON(b retention.Block) json.RawMessage {
	data, err := json.Marshal(blockValue(b))
	if err != nil {
		return json.RawMessage(`null`)
	}
	return data
}

// blockValue is a block as printed: text as {type,text}, images as
// {type,mimeType,path} (never base64), anything else as its original JSON.
// Values, not encoded JSON, so the output is encoded once.
func blockValue(b retention.Block) any {
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
	return v
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
		raw, err := imagecost.DecodeBase64(b.Data)
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
