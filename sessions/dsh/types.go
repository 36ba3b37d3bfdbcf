package dsh

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"spillscope/retention"
)

// Sentinel errors of this package.
var (
	// ErrNotSession reports a file whose first line is not a dsh session
	// header.
	ErrNotSession = errors.New("dsh: not a dsh session log")
	// ErrLocator reports a locator that does not name a tool result of the
	// file it is used on.
	ErrLocator = errors.New("dsh: locator does not name a tool result")
)

// Header is the storage record on line 1 of a log.
type Header struct {
	ID        string `json:"id"`
	Version   int    `json:"version"`
	CreatedAt int64  `json:"createdAt"`
	// Cwd is the session's real working directory; HasCwd is false for the
	// sessions dsh files under _no-cwd.
	Cwd    string `json:"cwd,omitempty"`
	HasCwd bool   `json:"hasCwd"`
	// ParentSession is set for subagents (Origin "subagent") and for
	// continuations (no Origin), such as ralph-loop rounds.
	ParentSession string `json:"parentSession,omitempty"`
	Origin        string `json:"origin,omitempty"`
	// DelegationDepth is the parent's depth + 1 for a subagent; HasDepth is
	// false when the header lacks it (some continuations do).
	DelegationDepth int    `json:"delegationDepth"`
	HasDepth        bool   `json:"hasDepth"`
	AgentPreset     string `json:"agentPreset,omitempty"`
	// SeedLength (v0–v1) or IsSeeded (v2+): the session began with events
	// copied from another.
	SeedLength int64 `json:"seedLength,omitempty"`
	IsSeeded   bool  `json:"isSeeded"`
}

// Descriptor is a subagent's subagent/descriptor event.
type Descriptor struct {
	Version       int    `json:"version"`
	Mode          string `json:"mode"`
	Provider      string `json:"provider,omitempty"`
	Label         string `json:"label,omitempty"`
	AgentProvider string `json:"agentProvider,omitempty"`
	AgentModel    string `json:"agentModel,omitempty"`
	Seq           int64  `json:"seq"`
	Line          int64  `json:"line"`
}

// Session is what a log says of its session: the header, and the latest
// title, route and context window read so far.
type Session struct {
	Header
	Title string `json:"title,omitempty"`
	// Provider and Model are the latest request/header config (or
	// request/context route); ContextWindow the latest request/context one.
	Provider      string      `json:"provider,omitempty"`
	Model         string      `json:"model,omitempty"`
	ContextWindow int64       `json:"contextWindow,omitempty"`
	Descriptor    *Descriptor `json:"descriptor,omitempty"`
}

// Locator says where a tool result's event sits in its file, so it can be
// read back after the index forgot its content. In a zstd log it is the
// frame the line starts in (byte offset) and how many of that frame's lines
// come before it; in a raw log the line's byte offset. Line is the 1-based
// line number, for display only.
type Locator struct {
	Zstd   bool  `json:"zstd"`
	Offset int64 `json:"offset"`
	Frame  int   `json:"frame,omitempty"`
	Skip   int   `json:"skip,omitempty"`
	Line   int64 `json:"line"`
}

// String is the locator's opaque, stable text form: zstd:<offset>:<frame>:
// <skip>:<line> or raw:<offset>:<line>.
func (l Locator) String() string {
	if l.Zstd {
		return fmt.Sprintf("zstd:%d:%d:%d:%d", l.Offset, l.Frame, l.Skip, l.Line)
	}
	return fmt.Sprintf("raw:%d:%d", l.Offset, l.Line)
}

// ParseLocator reads Locator.String's form.
func ParseLocator(s string) (Locator, error) {
	parts := strings.Split(s, ":")
	nums := make([]int64, 0, 4)
	for _, p := range parts[1:] {
		n, err := strconv.ParseInt(p, 10, 64)
		if err != nil || n < 0 {
			return Locator{}, fmt.Errorf("%w: %q", ErrLocator, s)
		}
		nums = append(nums, n)
	}
	switch {
	case parts[0] == "zstd" && len(nums) == 4 && nums[1] >= 1:
		return Locator{Zstd: true, Offset: nums[0], Frame: int(nums[1]), Skip: int(nums[2]), Line: nums[3]}, nil
	case parts[0] == "raw" && len(nums) == 2:
		return Locator{Offset: nums[0], Line: nums[1]}, nil
	}
	return Locator{}, fmt.Errorf("%w: %q", ErrLocator, s)
}

func (p pos) locator(zstd bool, line int64) Locator {
	return Locator{Zstd: zstd, Offset: p.off, Frame: p.frame, Skip: p.skip, Line: line}
}

// Image is an image block of a tool result as the log describes it: dsh
// never logs image bytes, only the attachment's id and facts.
type Image struct {
	// Block is the block's index in the result's content.
	Block        int    `json:"block"`
	AttachmentID string `json:"attachmentId"`
	MediaType    string `json:"mediaType"`
	Bytes        int64  `json:"bytes"`
	Width        int    `json:"width"`
	Height       int    `json:"height"`
	Name         string `json:"name,omitempty"`
	// Path is where the attachment's bytes would be; empty when the id is
	// malformed or no dsh home is known. The reader never opens it.
	Path string `json:"path,omitempty"`
}

// Spill policy eras a notice can show, named as the retention policies
// that replay them.
const (
	PolicyBytes  = "dsh-bytes"  // up to 0.1.5: maxInlineBytes, head and tail joined with no marker
	PolicyTokens = "dsh-tokens" // 0.1.7+: maxInlineTokens, "[...]" gap, images kept whole
)

// Notice is a spill notice found at the end of a result's last text block,
// and what its path says about the spill file. Policy is the era the
// content shows (the image clause, the "[...]" gap or more than one block
// mean dsh-tokens; a preview without a gap means dsh-bytes); it is "" for
// a notice with no preview, which either era writes.
type Notice struct {
	retention.NoticeMatch
	Block  int       `json:"block"`
	Policy string    `json:"policy,omitempty"`
	Spill  SpillLink `json:"spill"`
}

// ToolError is tool/result's error{name, code}.
type ToolError struct {
	Name string `json:"name"`
	Code string `json:"code,omitempty"`
}

// Replacement kinds: what took a result's place on the model's surface.
const (
	ReplacedByPrune      = "prune"      // compaction/prune and its replacing tool/result
	ReplacedByCompaction = "compaction" // a compaction summary shadowed it
	ReplacedByRewrite    = "rewrite"    // another surface event replaced it
)

// Replacement is one change to what the model sees of a result: a pruner
// or other rewrite gives new content (Blocks, Locator); a compaction
// summary shadows it (no Blocks).
type Replacement struct {
	CallID string `json:"callId"`
	Kind   string `json:"kind"`
	// Seq and Line are the replacing surface event's; EventSeq the
	// compaction/prune or compaction/summary event behind it (-1 if none).
	Seq          int64             `json:"seq"`
	Line         int64             `json:"line"`
	EventSeq     int64             `json:"eventSeq"`
	CompactionID string            `json:"compactionId,omitempty"`
	Blocks       []retention.Block `json:"blocks,omitempty"`
	Images       []Image           `json:"images,omitempty"`
	Locator      *Locator          `json:"locator,omitempty"`
}

// Result is one tool result, counted once per call id from its first
// tool/result event (or, Dispatch, from a run_code sub-call's log copy).
type Result struct {
	CallID    string `json:"callId"`
	Tool      string `json:"tool"`
	Arguments string `json:"arguments,omitempty"`
	Turn      int    `json:"turn"`
	Step      int    `json:"step"`
	MessageID string `json:"messageId,omitempty"`
	// Seq is the tool/result event's; CallSeq the tool/call's (-1 when the
	// log has none); Sources the event's sourceEventSeqs, ranges expanded.
	Seq     int64           `json:"seq"`
	CallSeq int64           `json:"callSeq"`
	Sources []int64         `json:"sources,omitempty"`
	At      int64           `json:"at"`
	Line    int64           `json:"line"`
	Locator Locator         `json:"locator"`
	IsError bool            `json:"isError"`
	Error   *ToolError      `json:"error,omitempty"`
	Meta    json.RawMessage `json:"meta,omitempty"`
	// Blocks is the content as first logged (dsh logs it after its spill
	// policy ran, so this is what the model was first shown).
	Blocks []retention.Block `json:"blocks"`
	Images []Image           `json:"images,omitempty"`
	Notice *Notice           `json:"notice,omitempty"`
	// Dispatch marks the log copy of a run_code sub-call
	// (tool/code-dispatch, tool/ptc-dispatch), which the model never sees
	// as such; Root and Parent are its call ids.
	Dispatch   bool   `json:"dispatch,omitempty"`
	RootCall   string `json:"rootCall,omitempty"`
	ParentCall string `json:"parentCall,omitempty"`
	// Inherited marks a result of the seed a forked session starts with
	// (a copy of its parent's events), so it is not counted twice.
	Inherited bool `json:"inherited,omitempty"`
	// LastSeen and ReplacedBy are filled by ReadAll: what the model saw of
	// the result last and the latest event that replaced it (nil: it is
	// still on the surface as first logged). A streaming reader gets them
	// as Replacement events instead.
	LastSeen   []retention.Block `json:"lastSeen,omitempty"`
	ReplacedBy *Replacement      `json:"replacedBy,omitempty"`
}

// TokenUsage is dsh's TokenUsage. The buckets are disjoint: InputTokens is
// uncached input, and reasoning is part of output.
type TokenUsage struct {
	InputTokens      int64 `json:"inputTokens"`
	OutputTokens     int64 `json:"outputTokens"`
	CacheReadTokens  int64 `json:"cacheReadTokens,omitempty"`
	CacheWriteTokens int64 `json:"cacheWriteTokens,omitempty"`
	ReasoningTokens  int64 `json:"reasoningTokens,omitempty"`
	TotalTokens      int64 `json:"totalTokens,omitempty"`
}

// Prompt is the prompt the provider counted: input + cache read + cache
// write.
func (u TokenUsage) Prompt() int64 { return u.InputTokens + u.CacheReadTokens + u.CacheWriteTokens }

// Usage kinds: where a usage record came from.
const (
	UsageMessage    = "message"    // assistant/message usage (or its stream's)
	UsageChunk      = "chunk"      // v0/v1 usage chunk of a step whose message has none
	UsageAttempt    = "attempt"    // a failed attempt: assistant/attempt, or a v0/v1 chunk attempt with no message
	UsageCompaction = "compaction" // the compaction summary call
)

// Usage is one model call's usage, one per (turn, step) attempt, with its
// time (ms) and position for a per-call timeline.
type Usage struct {
	Turn   int        `json:"turn"`
	Step   int        `json:"step"`
	Kind   string     `json:"kind"`
	Failed bool       `json:"failed,omitempty"`
	Tokens TokenUsage `json:"tokens"`
	At     int64      `json:"at"`
	Seq    int64      `json:"seq"`
	Line   int64      `json:"line"`
	// Provider and Model of the call (the message's source, else the
	// request/header in force); ContextWindow the request/context in force.
	Provider      string `json:"provider,omitempty"`
	Model         string `json:"model,omitempty"`
	ContextWindow int64  `json:"contextWindow,omitempty"`
	CompactionID  string `json:"compactionId,omitempty"`
	// Inherited: the call is the parent's, copied with a fork's seed.
	Inherited bool `json:"inherited,omitempty"`
}

// Compaction kinds.
const (
	CompactionSummary = "summary" // compaction/summary
	CompactionPrune   = "prune"   // compaction/prune
	CompactionFailed  = "failed"  // compaction/end without a summary
)

// Compaction is one compaction event: a summary that shadows a span of the
// surface, a prune of one result, or a compaction that ended without one.
type Compaction struct {
	Kind     string `json:"kind"`
	ID       string `json:"id,omitempty"`
	Turn     int    `json:"turn"`
	StartSeq int64  `json:"startSeq"` // compaction/start (-1 if none)
	Seq      int64  `json:"seq"`
	Line     int64  `json:"line"`
	At       int64  `json:"at"`
	// The shadowed surface span, its nodes and their price.
	ShadowedStart  int64           `json:"shadowedStart"`
	ShadowedEnd    int64           `json:"shadowedEnd"`
	ShadowedSeqs   []int64         `json:"shadowedSeqs,omitempty"`
	ShadowedTokens int64           `json:"shadowedTokens"`
	Provider       string          `json:"provider,omitempty"`
	Model          string          `json:"model,omitempty"`
	Usage          *TokenUsage     `json:"usage,omitempty"`
	Error          json.RawMessage `json:"error,omitempty"`
	Inherited      bool            `json:"inherited,omitempty"`
}

// Subagent link sources.
const (
	LinkHeader  = "header"  // the child's header names its parent
	LinkCatalog = "catalog" // the parent's subagent/catalog names the child
)

// SubagentLink ties a child session to its parent.
type SubagentLink struct {
	Parent string `json:"parent"`
	Child  string `json:"child"`
	Source string `json:"source"`
	// Origin is "subagent", or "" for a continuation that names a parent.
	Origin         string `json:"origin,omitempty"`
	Depth          int    `json:"depth"`
	HasDepth       bool   `json:"hasDepth"`
	Mode           string `json:"mode,omitempty"`
	Label          string `json:"label,omitempty"`
	ChildCreatedAt int64  `json:"childCreatedAt,omitempty"`
	Seq            int64  `json:"seq"`
	Line           int64  `json:"line"`
}

// Diagnostic codes. They are stable: the app translates them.
const (
	CodeTornFrame     = "torn-frame"       // incomplete last zstd frame (normal after a crash or mid-write)
	CodePartialLine   = "partial-line"     // raw log ends inside a line (read once complete)
	CodeFrameChecksum = "frame-checksum"   // a frame fails its checksum; skipped
	CodeBadFrame      = "bad-frame"        // a frame cannot be decoded; skipped, or reading stopped
	CodeSkippedBytes  = "skipped-bytes"    // bytes that are no frame, skipped to the next frame
	CodeLineTooLong   = "line-too-long"    // a line over Options.MaxLine; skipped
	CodeBadJSON       = "bad-json"         // a line that is not a JSON object
	CodeBadEvent      = "bad-event"        // a known event whose fields have the wrong shape
	CodeUnknownEvent  = "unknown-event"    // event types this reader does not know, not ignorable (one per type, with its count)
	CodeSeqGap        = "seq-gap"          // seq not contiguous
	CodeSecondHeader  = "second-header"    // a session record after line 1
	CodeBadSurfaceOp  = "bad-surface-op"   // a replace op whose range is not on the surface
	CodeOrphanResult  = "orphan-result"    // a tool/result with no call id
	CodeDuplicate     = "duplicate-result" // a second appended tool/result for one call id
	CodeBadAttachment = "bad-attachment"   // an image whose attachment id is malformed
	CodeBadBlock      = "bad-block"        // a content block without a type
	CodeNewerVersion  = "newer-version"    // a header version above 4: read as far as the known shapes go
)

// Diagnostic is a problem found in a log. Reading never stops for one
// unless the message says so. Line is 1-based (0: none), Frame the 1-based
// zstd frame (0: none), Offset the frame's or line's byte offset, Seq the
// event's (-1: none). Params carry the message's values for translation.
type Diagnostic struct {
	Code    string            `json:"code"`
	Message string            `json:"message"`
	Params  map[string]string `json:"params,omitempty"`
	Line    int64             `json:"line,omitempty"`
	Frame   int               `json:"frame,omitempty"`
	Offset  int64             `json:"offset"`
	Seq     int64             `json:"seq"`
}

// String is the diagnostic as one English line, with where it was found.
func (d Diagnostic) String() string {
	var b strings.Builder
	if d.Line > 0 {
		fmt.Fprintf(&b, "line %d: ", d.Line)
	}
	if d.Frame > 0 {
		fmt.Fprintf(&b, "frame %d: ", d.Frame)
	}
	b.WriteString(d.Message)
	return b.String()
}
