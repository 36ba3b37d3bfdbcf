// Package samplegen writes realistic agent session folders (Claude Code, Codex
// CLI, Gemini CLI, dsh, OpenCode, GitHub Copilot CLI, goose and spillscope's
// own spill layout) for tests, benchmarks and
// for running the app on a machine that has no sessions of its own.
//
// Layout under the corpus folder:
//
//	claude/projects/<encoded cwd>/<sessionId>.jsonl
//	claude/projects/<encoded cwd>/<sessionId>/subagents/agent-<id>.jsonl
//	claude/projects/<encoded cwd>/<sessionId>/tool-results/<file>.txt
//	codex/sessions/YYYY/MM/DD/rollout-<YYYY-MM-DDThh-mm-ss>-<uuid>.jsonl
//	gemini/tmp/<project hash>/chats/session-<YYYY-MM-DDThh-mm>-<id8>.json
//	gemini/tmp/<project hash>/tool-outputs/session-<id>/<tool>_<callId>.txt
//	spillscope/<id>.txt, spillscope/<id>.retained.json, spillscope/attachments/<sha256>.png
//	opencode/opencode.db, opencode/export/<session id>.json, opencode/tool-output/tool_<id>
//	copilot/session-state/<id>/events.jsonl, copilot/tmp/<ms>-copilot-tool-output-<id>.txt
//	goose/sessions/sessions.db, goose/mcp_responses/mcp_response_<ts>_<rand>.txt
//	goose/goose_mcp_responses/mcp_response_<ts>.txt (relayed by an MCP bridge)
//	dsh/home/sessions/--<project key>--/<id>/session[.v4].jsonl[.zstd], dsh/home/attachments/v1/objects/…
//	dsh/tmp/dsh-spill-<6>/session-<sha12>/<12 hex>-<tool>.txt (dsh.go)
//
// Everything is derived from Options.Seed, so the same seed written to the same
// folder gives the same bytes. Generate returns a Manifest holding the counts
// the generator knows it wrote; an indexer test compares its own totals with
// them. The content is invented: no line of a real log is copied (the bench
// corpus replicates real logs from a folder the caller names, at run time).
package samplegen

import (
	"bufio"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"time"
)

// Harness names used as keys of Manifest.PerHarness.
const (
	HarnessClaude     = "claude"
	HarnessCodex      = "codex"
	HarnessGemini     = "gemini"
	HarnessSpillscope = "spillscope"
	HarnessOpenCode   = "opencode"
	HarnessCopilot    = "copilot"
	HarnessGoose      = "goose"
)

// Spill-notice kinds used as keys of Counts.NoticeKinds.
const (
	NoticeClaude     = "claude-persisted-output"
	NoticeClaudeMCP  = "claude-mcp-saved"
	NoticeSpillscope = "spillscope"
	NoticeOpenCode   = "opencode-truncate"
	NoticeGoose      = "goose-large-response"
	NoticeGemini     = "gemini-cli"
	// NoticeOpenCodeShell is the OpenCode shell tool's own notice.
	NoticeOpenCodeShell = "opencode-shell-truncate"
	NoticeCopilot       = "copilot-large-output"
)

// DefaultScreenshotBytes is the PNG size aimed at when Options.ScreenshotBytes
// is zero: small enough for fast tests, large enough to be a real screenshot.
const DefaultScreenshotBytes = 24 << 10

// BenchScreenshotBytes is the screenshot size of the benchmark corpus.
const BenchScreenshotBytes = 500 << 10

// Options controls what Generate writes.
type Options struct {
	// Seed makes the output reproducible: same seed, same folder, same bytes.
	Seed int64
	// Scale multiplies the number of sessions of each kind; 0 or 1 writes the
	// small bundled sample.
	Scale int
	// ScreenshotBytes is the approximate size of each generated PNG
	// screenshot; 0 means DefaultScreenshotBytes.
	ScreenshotBytes int
}

// Usage is provider-reported token usage as a session records it, after the
// dedupe an indexer must do: Claude Code per message.id (last line wins),
// Codex the last running total, Gemini the sum of its per-message records,
// OpenCode its step-finish parts (input without the cache), Copilot CLI its
// messages' output and session.shutdown's input, cache and reasoning, goose
// its usage ledger (input with the cache in it).
// Fields a harness does not report stay zero. As recorded, Claude's
// InputTokens exclude the cache counts, while Codex's and Gemini's include
// CachedInputTokens (and their OutputTokens include ReasoningOutputTokens
// for Codex only; Gemini reports thoughts beside output).
type Usage struct {
	InputTokens              int64 `json:"inputTokens"`
	OutputTokens             int64 `json:"outputTokens"`
	CacheCreationInputTokens int64 `json:"cacheCreationInputTokens"` // Claude
	CacheReadInputTokens     int64 `json:"cacheReadInputTokens"`     // Claude
	CachedInputTokens        int64 `json:"cachedInputTokens"`        // Codex (part of input), Gemini "cached"
	ReasoningOutputTokens    int64 `json:"reasoningOutputTokens"`    // Codex (part of output), Gemini "thoughts"
	ToolTokens               int64 `json:"toolTokens"`               // Gemini "tool"
	TotalTokens              int64 `json:"totalTokens"`              // Codex, Gemini as recorded
}

func (u *Usage) add(v Usage) {
	u.InputTokens += v.InputTokens
	u.OutputTokens += v.OutputTokens
	u.CacheCreationInputTokens += v.CacheCreationInputTokens
	u.CacheReadInputTokens += v.CacheReadInputTokens
	u.CachedInputTokens += v.CachedInputTokens
	u.ReasoningOutputTokens += v.ReasoningOutputTokens
	u.ToolTokens += v.ToolTokens
	u.TotalTokens += v.TotalTokens
}

// Counts are the totals of one harness (or of the whole corpus).
//
// What is counted, precisely, so an indexer can compare:
//   - Files: transcript files an indexer parses (Claude main and subagent
//     .jsonl, Codex rollouts, Gemini chat .json, spillscope .retained.json,
//     OpenCode's database and export documents, Copilot CLI events.jsonl,
//     goose's database). Spill files, attachments and other harnesses'
//     output files are not.
//   - Sessions: Claude main transcripts (a subagent transcript belongs to its
//     parent session and is counted in Subagents), Codex rollouts, Gemini chat
//     files, each spillscope record (a session of one tool result, the
//     way it is re-run), each session row of the OpenCode and goose
//     databases (a subagent's is a session of its own there), each OpenCode
//     export and each Copilot CLI log.
//   - ToolResults: Claude tool_result blocks on user lines of main and subagent
//     transcripts (never the copies inside progress lines or toolUseResult),
//     Codex function_call_output and custom_tool_call_output items, Gemini
//     toolCalls entries, one per spillscope record, OpenCode tool parts whose
//     call finished (completed or error), Copilot tool.execution_complete
//     events, goose toolResponse items.
//   - ToolResultImages: images with valid base64 (or an attachment path, for
//     spillscope) inside tool results counted above. InvalidImages are image
//     blocks whose data is not valid base64; they are not in ToolResultImages.
//   - SpillNotices: tool results whose model-visible text holds a spill notice
//     (one per result), by kind in NoticeKinds. SpillFilesPresent and
//     SpillFilesMissing split them by whether the file they name exists.
//   - CredentialLinks: occurrences of the credential-bearing links in the
//     model-visible content of those tool results (text and resource_link
//     URIs; not the toolUseResult or resultDisplay copies).
//   - BadLines: lines of a JSONL transcript that are not valid JSON (comment
//     and truncated lines). UnknownLines are valid JSON with a line type no
//     harness defines.
type Counts struct {
	Files             int            `json:"files"`
	Sessions          int            `json:"sessions"`
	Subagents         int            `json:"subagents"`
	ToolResults       int            `json:"toolResults"`
	ToolResultImages  int            `json:"toolResultImages"`
	InvalidImages     int            `json:"invalidImages"`
	SpillNotices      int            `json:"spillNotices"`
	SpillFilesPresent int            `json:"spillFilesPresent"`
	SpillFilesMissing int            `json:"spillFilesMissing"`
	NoticeKinds       map[string]int `json:"noticeKinds"`
	CredentialLinks   int            `json:"credentialLinks"`
	BadLines          int            `json:"badLines"`
	UnknownLines      int            `json:"unknownLines"`
	Usage             Usage          `json:"usage"`
}

func (c *Counts) addNotice(kind string, present bool) {
	c.SpillNotices++
	if c.NoticeKinds == nil {
		c.NoticeKinds = map[string]int{}
	}
	c.NoticeKinds[kind]++
	if present {
		c.SpillFilesPresent++
	} else {
		c.SpillFilesMissing++
	}
}

func (c *Counts) add(v Counts) {
	c.Files += v.Files
	c.Sessions += v.Sessions
	c.Subagents += v.Subagents
	c.ToolResults += v.ToolResults
	c.ToolResultImages += v.ToolResultImages
	c.InvalidImages += v.InvalidImages
	c.SpillNotices += v.SpillNotices
	c.SpillFilesPresent += v.SpillFilesPresent
	c.SpillFilesMissing += v.SpillFilesMissing
	for k, n := range v.NoticeKinds {
		if c.NoticeKinds == nil {
			c.NoticeKinds = map[string]int{}
		}
		c.NoticeKinds[k] += n
	}
	c.CredentialLinks += v.CredentialLinks
	c.BadLines += v.BadLines
	c.UnknownLines += v.UnknownLines
	c.Usage.add(v.Usage)
}

// SessionUsage is the usage one transcript file records.
type SessionUsage struct {
	Harness   string `json:"harness"`
	SessionID string `json:"sessionId"`
	// Path is relative to the corpus folder, with forward slashes.
	Path string `json:"path"`
	// Subagent is set for a Claude subagent transcript.
	Subagent bool   `json:"subagent,omitempty"`
	Model    string `json:"model"`
	Usage    Usage  `json:"usage"`
}

// Manifest is what Generate knows it wrote. The top-level counts are the sums
// of PerHarness (see Counts for the exact rules).
type Manifest struct {
	Files            int               `json:"files"`
	Sessions         int               `json:"sessions"`
	ToolResults      int               `json:"toolResults"`
	ToolResultImages int               `json:"toolResultImages"`
	SpillNotices     int               `json:"spillNotices"`
	BadLines         int               `json:"badLines"`
	PerHarness       map[string]Counts `json:"perHarness"`
	SessionUsage     []SessionUsage    `json:"sessionUsage"`
	// AllFiles and Bytes cover every file written, spill files and
	// attachments included.
	AllFiles int   `json:"allFiles"`
	Bytes    int64 `json:"bytes"`
	// Replicated counts the copies of real logs in a bench corpus.
	Replicated int `json:"replicated,omitempty"`
}

func (m *Manifest) addHarness(name string, c Counts) {
	if m.PerHarness == nil {
		m.PerHarness = map[string]Counts{}
	}
	cur := m.PerHarness[name]
	cur.add(c)
	m.PerHarness[name] = cur
}

// finish recomputes the top-level totals from PerHarness.
func (m *Manifest) finish() {
	var t Counts
	for _, c := range m.PerHarness {
		t.add(c)
	}
	m.Files, m.Sessions, m.ToolResults = t.Files, t.Sessions, t.ToolResults
	m.ToolResultImages, m.SpillNotices, m.BadLines = t.ToolResultImages, t.SpillNotices, t.BadLines
}

// Sentinel errors.
var (
	// ErrNotEmpty reports a destination folder that already holds files;
	// the generator never writes into someone's folder.
	ErrNotEmpty = errors.New("samplegen: destination folder is not empty")
	// ErrOptions reports invalid options.
	ErrOptions = errors.New("samplegen: invalid options")
)

// Generate writes the sample corpus under dir (created if missing; it must
// be empty) and returns its manifest.
func Generate(dir string, opts Options) (Manifest, error) {
	if opts.Scale < 0 || opts.ScreenshotBytes < 0 {
		return Manifest{}, fmt.Errorf("%w: scale %d and screenshot bytes %d must not be negative", ErrOptions, opts.Scale, opts.ScreenshotBytes)
	}
	if opts.Scale == 0 {
		opts.Scale = 1
	}
	if opts.ScreenshotBytes == 0 {
		opts.ScreenshotBytes = DefaultScreenshotBytes
	}
	if err := prepareDir(dir); err != nil {
		return Manifest{}, err
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return Manifest{}, fmt.Errorf("samplegen: %s: %w", dir, err)
	}
	g := &gen{root: abs, opts: opts}
	for i := 0; i < opts.Scale; i++ {
		if err := g.writeClaudeRich(i); err != nil {
			return g.m, err
		}
		if err := g.writeClaudeSimple(i); err != nil {
			return g.m, err
		}
		if err := g.writeCodex(i); err != nil {
			return g.m, err
		}
		if err := g.writeGemini(i); err != nil {
			return g.m, err
		}
		if err := g.writeSpillscope(i); err != nil {
			return g.m, err
		}
		if err := g.writeDsh(i); err != nil {
			return g.m, err
		}
		if err := g.writeOpenCodeExport(i); err != nil {
			return g.m, err
		}
		if err := g.writeCopilot(i); err != nil {
			return g.m, err
		}
	}
	// OpenCode and goose keep every session in one database.
	if err := g.writeOpenCodeDB(opts.Scale); err != nil {
		return g.m, err
	}
	if err := g.writeGooseDB(opts.Scale); err != nil {
		return g.m, err
	}
	g.m.finish()
	return g.m, nil
}

// prepareDir creates dir, or accepts it when it exists and is empty.
func prepareDir(dir string) error {
	entries, err := os.ReadDir(dir)
	switch {
	case err == nil && len(entries) > 0:
		return fmt.Errorf("%w: %s", ErrNotEmpty, dir)
	case err == nil:
		return nil
	case errors.Is(err, os.ErrNotExist):
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("samplegen: create %s: %w", dir, err)
		}
		return nil
	default:
		return fmt.Errorf("samplegen: read %s: %w", dir, err)
	}
}

// gen holds the state of one Generate run.
type gen struct {
	root string
	opts Options
	m    Manifest
}

// rng returns the random source of one session: each session has its own,
// so adding sessions (a larger Scale) leaves the earlier ones unchanged.
func (g *gen) rng(kind uint64, index int) *rand.Rand {
	return rand.New(rand.NewPCG(uint64(g.opts.Seed), kind<<32|uint64(index)))
}

// rel turns an absolute path under the corpus into a manifest path.
func (g *gen) rel(path string) string {
	r, err := filepath.Rel(g.root, path)
	if err != nil {
		return path
	}
	return filepath.ToSlash(r)
}

// writeFile writes a whole file and records it.
func (g *gen) writeFile(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("samplegen: %w", err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		return fmt.Errorf("samplegen: %w", err)
	}
	g.m.AllFiles++
	g.m.Bytes += int64(len(data))
	return nil
}

// mkdir creates the folder a file goes in.
func (g *gen) mkdir(path string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("samplegen: %w", err)
	}
	return nil
}

// recordFile records a file written by other means (a database).
func (g *gen) recordFile(path string) error {
	fi, err := os.Stat(path)
	if err != nil {
		return fmt.Errorf("samplegen: %w", err)
	}
	g.m.AllFiles++
	g.m.Bytes += fi.Size()
	return nil
}

// lineFile streams a JSONL file: lines are encoded into one reused buffer and
// written through a bufio.Writer, so memory stays bounded by the largest line.
type lineFile struct {
	g    *gen
	f    *os.File
	w    *bufio.Writer
	buf  []byte
	n    int64
	err  error
	path string
}

func (g *gen) createLines(path string) (*lineFile, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("samplegen: %w", err)
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("samplegen: %w", err)
	}
	return &lineFile{g: g, f: f, w: bufio.NewWriterSize(f, 256<<10), path: path}, nil
}

// line writes v as one JSON line.
func (lf *lineFile) line(v obj) {
	lf.buf = appendJSON(lf.buf[:0], v)
	lf.buf = append(lf.buf, '\n')
	lf.raw(lf.buf)
}

// raw writes bytes as they are (bad lines, already-encoded lines).
func (lf *lineFile) raw(b []byte) {
	if lf.err != nil {
		return
	}
	n, err := lf.w.Write(b)
	lf.n += int64(n)
	lf.err = err
}

func (lf *lineFile) close() error {
	if lf.err == nil {
		lf.err = lf.w.Flush()
	}
	if err := lf.f.Close(); lf.err == nil {
		lf.err = err
	}
	if lf.err != nil {
		return fmt.Errorf("samplegen: write %s: %w", lf.path, lf.err)
	}
	lf.g.m.AllFiles++
	lf.g.m.Bytes += lf.n
	return nil
}

// baseTime is when the generated sessions start; fixed so output is
// reproducible.
var baseTime = time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)

func isoMillis(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

const (
	alnum  = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	base58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
	hexLow = "0123456789abcdef"
)

func randFrom(r *rand.Rand, alphabet string, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[r.IntN(len(alphabet))]
	}
	return string(b)
}

// newUUID is a random (version 4) UUID.
func newUUID(r *rand.Rand) string {
	var b [16]byte
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return formatUUID(b)
}

// newUUIDv7 is a time-ordered UUID as Codex uses for rollouts.
func newUUIDv7(r *rand.Rand, t time.Time) string {
	var b [16]byte
	ms := uint64(t.UnixMilli())
	for i := 0; i < 6; i++ {
		b[i] = byte(ms >> (40 - 8*i))
	}
	for i := 6; i < 16; i++ {
		b[i] = byte(r.Uint32())
	}
	b[6] = b[6]&0x0f | 0x70
	b[8] = b[8]&0x3f | 0x80
	return formatUUID(b)
}

func formatUUID(b [16]byte) string {
	out := make([]byte, 0, 36)
	for i, c := range b {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			out = append(out, '-')
		}
		out = append(out, hexLow[c>>4], hexLow[c&0xf])
	}
	return string(out)
}

func newMsgID(r *rand.Rand) string   { return "msg_01" + randFrom(r, base58, 22) }
func newReqID(r *rand.Rand) string   { return "req_011C" + randFrom(r, base58, 20) }
func newToolUse(r *rand.Rand) string { return "toolu_01" + randFrom(r, base58, 22) }
func newCallID(r *rand.Rand) string  { return "call_" + randFrom(r, alnum, 24) }
func newHex(r *rand.Rand, n int) string {
	return randFrom(r, hexLow, n)
}
