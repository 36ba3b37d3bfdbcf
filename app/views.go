package app

// The types below are what the window receives. They are shaped for the
// screens, not for storage: sessions and retention types are mapped into them
// by the services, so the TypeScript bindings stay stable when a store
// column or a core field changes.

// SessionRow is one indexed transcript in the sessions list.
type SessionRow struct {
	ID      int64  `json:"id"`
	Harness string `json:"harness"`
	// HarnessLabel is the harness's product name, from the harness
	// registry (the harness's own file), for a build whose catalogue lacks it.
	HarnessLabel string `json:"harnessLabel"`
	SessionID    string `json:"sessionId"`
	AgentID      string `json:"agentId"`
	Project      string `json:"project"`
	Model        string `json:"model"`
	Route        string `json:"route"`
	Started      string `json:"started"`
	Ended        string `json:"ended"`
	File         string `json:"file"`
	ToolResults  int    `json:"toolResults"`
	Images       int    `json:"images"`
	SpillNotices int    `json:"spillNotices"`
	TextBytes    int64  `json:"textBytes"`
	// Provider-reported usage: authoritative, shown beside estimates.
	InputTokens      int64 `json:"inputTokens"`
	OutputTokens     int64 `json:"outputTokens"`
	CacheReadTokens  int64 `json:"cacheReadTokens"`
	CacheWriteTokens int64 `json:"cacheWriteTokens"`
	// Tokens sums the results' ranking figures: exact counts where the token
	// phase has run, size-based approximations elsewhere. TokensExact is
	// true once every result is counted.
	Tokens      int64 `json:"tokens"`
	TokensExact bool  `json:"tokensExact"`
	// Title is the session's name as its harness keeps it (Claude Code's
	// custom or generated title, Gemini CLI's summary), "" without one.
	Title string `json:"title"`
	// Kind is "" for a session's own transcript, "subagent" or
	// "compaction"; ParentID is then the row of the parent transcript it
	// nests under (0 when that is not indexed), and AgentType and
	// AgentDescription say what the subagent was, as recorded.
	Kind             string `json:"kind"`
	ParentID         int64  `json:"parentId"`
	AgentType        string `json:"agentType"`
	AgentDescription string `json:"agentDescription"`
	// Facts of the session: model calls, compactions, API errors the
	// harness retried after, aborted turns.
	ModelCalls   int `json:"modelCalls"`
	Compactions  int `json:"compactions"`
	APIErrors    int `json:"apiErrors"`
	AbortedTurns int `json:"abortedTurns"`
}

// SearchQuery is a full-text search of tool results.
type SearchQuery struct {
	// Query holds the words; each is matched as a phrase.
	Query string `json:"query"`
	// Order is "" or "relevance" (best match first, ties by tokens),
	// "tokens" (most tokens first, exact once counted) or "source"
	// (session and file order).
	Order string `json:"order"`
	// Offset and Limit select the page (Limit 1..MaxPage).
	Offset int `json:"offset"`
	Limit  int `json:"limit"`
}

// MaxPage is the most rows one page of any list holds.
const MaxPage = 1000

// PageQuery is one page of a list: Limit rows (1..MaxPage) from Offset.
type PageQuery struct {
	Offset int `json:"offset"`
	Limit  int `json:"limit"`
}

// ResultsQuery is one page of a session's tool results.
type ResultsQuery struct {
	SessionID int64 `json:"sessionId"`
	// Order is "" (file order) or "tokens" (most tokens first).
	Order string `json:"order"`
	// OnlyNotices keeps the results whose text holds a spill notice.
	OnlyNotices bool `json:"onlyNotices"`
	Offset      int  `json:"offset"`
	Limit       int  `json:"limit"`
}

// ResultPage is one page of a list of tool results and the list's length.
type ResultPage struct {
	Rows  []ResultRow `json:"rows"`
	Total int         `json:"total"`
}

// SessionPage is one page of the sessions list. Total counts its rows
// (transcripts: a subagent is its own row); Sessions counts distinct
// sessions among them, as the index totals do.
type SessionPage struct {
	Rows     []SessionRow `json:"rows"`
	Total    int          `json:"total"`
	Sessions int          `json:"sessions"`
}

// LinkPage is one page of the links list with the whole list's counts.
type LinkPage struct {
	Rows  []LinkRow `json:"rows"`
	Total int       `json:"total"`
	// Hidden links reached the model as a stub or marker, without their URI.
	Hidden int `json:"hidden"`
	// InText are credential-bearing links found inside text blocks (they
	// reached the model as written; the views mask their values).
	InText int `json:"inText"`
	// Plain, Redacted, Stubbed and Markers count the list by audit class
	// (sessions.LinkClass): URLs shown as written, credential-bearing URLs
	// in text (masked on screen), links shown as a stub without their URI,
	// and blocks not shown at all (no URL).
	Plain    int `json:"plain"`
	Redacted int `json:"redacted"`
	Stubbed  int `json:"stubbed"`
	Markers  int `json:"markers"`
}

// SessionQuery filters the sessions list.
type SessionQuery struct {
	Harness string `json:"harness"`
	Search  string `json:"search"`
	// Order is "tokens" (most tokens first) or "" (newest first).
	Order string `json:"order"`
	// Limit (1..MaxPage) and Offset select the page.
	Limit  int `json:"limit"`
	Offset int `json:"offset"`
}

// ResultListQuery chooses a list of results: one session's (SessionID, a
// sessions row id), one harness session's (HarnessSessionID, every
// transcript sharing it), or every indexed result (both empty); Order is
// "" or "source" (source order) or "tokens".
type ResultListQuery struct {
	SessionID        int64  `json:"sessionId"`
	HarnessSessionID string `json:"harnessSessionId"`
	Order            string `json:"order"`
}

// ResultRow is one tool result in a session's list.
type ResultRow struct {
	ID        int64 `json:"id"`
	SessionID int64 `json:"sessionId"`
	// Project is the session's project (its working folder), for lists
	// that span sessions.
	Project   string `json:"project"`
	CallID    string `json:"callId"`
	Tool      string `json:"tool"`
	Time      string `json:"time"`
	IsError   bool   `json:"isError"`
	TextBytes int64  `json:"textBytes"`
	Images    int    `json:"images"`
	// EstimatedTokens is -1 until the token phase has priced this result.
	EstimatedTokens int64 `json:"estimatedTokens"`
	// Tokens is what rankings sort by: EstimatedTokens once known
	// (TokensExact), until then an approximation from the text's size and
	// the images' dimensions.
	Tokens      int64 `json:"tokens"`
	TokensExact bool  `json:"tokensExact"`
	// NoticeKind names the spill notice convention found in the text
	// ("claude-persisted-output", "spillscope", "opencode", ...), empty if none.
	NoticeKind       string `json:"noticeKind"`
	NoticePath       string `json:"noticePath"`
	NoticeFileExists bool   `json:"noticeFileExists"`
	// NoticeFileState is the file rule's verdict when the result was
	// indexed: "exists", "missing", "outside" (never opened) or
	// "unreadable". The result view asks again (SpillFile).
	NoticeFileState string `json:"noticeFileState"`
	File            string `json:"file"`
	Line            int64  `json:"line"`
	// CutBy is the product name of a harness that truncated the result
	// itself, inline ("Codex CLI"), "" for none; CutOriginalTokens the
	// original's size it recorded (-1 when it recorded none). HasOriginal
	// says the log keeps the complete output beside it.
	CutBy             string `json:"cutBy"`
	CutOriginalTokens int64  `json:"cutOriginalTokens"`
	HasOriginal       bool   `json:"hasOriginal"`
}

// BlockView is one content block as a screen shows it. Text is untrusted and
// is only ever rendered as text.
type BlockView struct {
	Index int `json:"index"`
	// Kind is "text", "image", "link", "stub", "marker", "omitted" (the
	// [...] marker of a projection) or "notice".
	Kind string `json:"kind"`
	Text string `json:"text"`
	// TextBytes is the block's full size; Text may be shortened for display
	// when Truncated is set (the full text is read with ReadResultText).
	// ShownBytes counts the real bytes Text shows: Text itself has each
	// credential value replaced by [redacted] (Masks say where) unless the
	// result's credentials were revealed.
	TextBytes  int64      `json:"textBytes"`
	ShownBytes int64      `json:"shownBytes"`
	Truncated  bool       `json:"truncated"`
	Masks      []MaskSpan `json:"masks"`
	// Cut is "head" or "tail" when a projection cut this text block.
	Cut string `json:"cut"`
	// SourceStart is where Text begins in its source block's text (a kept
	// piece of a cut block; 0 otherwise), so a byte range of the source
	// block (a link the audit lists) can be found in the piece.
	SourceStart int64 `json:"sourceStart"`
	// Image fields: a URL the window can load (/attachments/<sha>.<ext>),
	// the readable path, media type and dimensions.
	ImageURL    string `json:"imageUrl"`
	Path        string `json:"path"`
	MimeType    string `json:"mimeType"`
	Width       int    `json:"width"`
	Height      int    `json:"height"`
	NotForModel bool   `json:"notForModel"`
	// Link fields: why a URI is not shown, and the matched parameter name.
	Reason    string `json:"reason"`
	Parameter string `json:"parameter"`
	Tokens    int    `json:"tokens"`
	// Src, when set, says the view is paged: it shows the real bytes Src
	// names, Page is the page holding their start, and Text is empty;
	// Masked counts the values masked in all of them (Masks covers the
	// page only).
	Src    *TextSpan `json:"src"`
	Page   *TextPage `json:"page"`
	Masked int       `json:"masked"`
}

// ResultDetail is one tool result read back from its source file.
type ResultDetail struct {
	Row     ResultRow   `json:"row"`
	Session SessionRow  `json:"session"`
	Blocks  []BlockView `json:"blocks"`
	Route   string      `json:"route"`
	// Estimator is the route's text estimator, which the row's figures use.
	Estimator string `json:"estimator"`
	// Masked counts the credential values masked in Blocks; Revealed says
	// they were asked for and shown.
	Masked   int  `json:"masked"`
	Revealed bool `json:"revealed"`
	// Replaced says what took the result's place on the model's surface
	// after it was recorded (dsh's pruner, a compaction summary); nil while
	// the model still sees it as recorded.
	Replaced *ReplacedView `json:"replaced"`
	// Replayable says the result's harness records its decisions, so
	// "Replay as recorded" applies to it (Retention.Replay).
	Replayable bool `json:"replayable"`
}

// ResultQuery asks for one result. Reveal shows its credential values
// instead of masking them; the window asks for it only after the user's
// "Reveal credentials" and never remembers it.
type ResultQuery struct {
	ID     int64 `json:"id"`
	Reveal bool  `json:"reveal"`
	// Paged sends each text block as the page holding its start (Src and
	// Page) instead of its text; the window reads the rest with Text.
	Paged bool `json:"paged"`
}

// RouteInfo describes one pricing route for pickers and labels.
type RouteInfo struct {
	Name       string `json:"name"`
	Provider   string `json:"provider"`
	Estimator  string `json:"estimator"`
	HasImages  bool   `json:"hasImages"`
	Source     string `json:"source"`
	Note       string `json:"note"`
	Calculator string `json:"calculator"`
}

// RetainRequest asks for a projection of one result: an indexed result by
// ID, or pasted tool-result JSON when ResultID is 0.
type RetainRequest struct {
	ResultID int64  `json:"resultId"`
	JSON     string `json:"json"`
	// Policy names the retention policy ("" is dsh-tokens); Budget is in
	// its unit, nil meaning retention disabled; Params are its other
	// parameters.
	Policy string            `json:"policy"`
	Budget *int64            `json:"budget"`
	Params map[string]string `json:"params"`
	Route  string            `json:"route"`
	// Estimator names the text estimator ("" is the route's).
	Estimator string `json:"estimator"`
	ToolName  string `json:"toolName"`
	// Reveal shows credential values in the projection (see ResultQuery).
	Reveal bool `json:"reveal"`
	// Paged names kept text by its span of the result and sends the page
	// holding its start, and the complete file as its first page (an
	// indexed result only; see ResultQuery).
	Paged bool `json:"paged"`
}

// TokenFigures is what the model would see, split by kind, on the named
// estimator.
type TokenFigures struct {
	Estimator string `json:"estimator"`
	Total     int    `json:"total"`
	Text      int    `json:"text"`
	Images    int    `json:"images"`
	Notice    int    `json:"notice"`
}

// PolicyInfo describes one retention policy for the window's selector.
type PolicyInfo struct {
	Name    string `json:"name"`
	Harness string `json:"harness"`
	Version string `json:"version"`
	Summary string `json:"summary"`
	// Estimator is the policy's own; Budget names its budget parameter, in
	// Unit, shipped at DefaultBudget.
	Estimator     string `json:"estimator"`
	Budget        string `json:"budget"`
	Unit          string `json:"unit"`
	DefaultBudget int64  `json:"defaultBudget"`
	Recoverable   string `json:"recoverable"`
	// RecoverNote says how long the harness keeps its file; Source the
	// code the policy follows.
	RecoverNote string `json:"recoverNote"`
	Source      string `json:"source"`
	// UnitsPerToken maps the shared budget slider (tokens) to Budget's
	// unit (0: it does not).
	UnitsPerToken int64 `json:"unitsPerToken"`
	// Params are the policy's parameters under the harness's own names.
	Params []ParamInfo `json:"params"`
}

// ParamInfo declares one policy parameter: kind "int" (in Unit, Min..Max),
// "bool" or "choice" (one of Choices); Off allows "off".
type ParamInfo struct {
	Name    string   `json:"name"`
	Kind    string   `json:"kind"`
	Unit    string   `json:"unit"`
	Default string   `json:"default"`
	Min     int64    `json:"min"`
	Max     int64    `json:"max"`
	Choices []string `json:"choices"`
	Off     bool     `json:"off"`
	Doc     string   `json:"doc"`
}

// Projection is the retention decision's outcome, as the window shows it.
type Projection struct {
	Status         string       `json:"status"`
	Blocks         []BlockView  `json:"blocks"`
	Notice         string       `json:"notice"`
	OmittedBytes   int64        `json:"omittedBytes"`
	OmittedImages  int          `json:"omittedImages"`
	Tokens         TokenFigures `json:"tokens"`
	OriginalTokens int          `json:"originalTokens"`
	// OriginalTokensExact is false when OriginalTokens is a lower bound (the
	// core stops counting a huge result once it is known to be over budget).
	OriginalTokensExact bool     `json:"originalTokensExact"`
	Diagnostics         []string `json:"diagnostics"`
	Policy              string   `json:"policy"`
	Route               string   `json:"route"`
	Estimator           string   `json:"estimator"`
	Budget              *int64   `json:"budget"`
	BudgetUnit          string   `json:"budgetUnit"`
	// Yardstick prices the same content on the route's estimator when the
	// policy's figures use another, so columns compare.
	Yardstick *TokenFigures `json:"yardstick"`
	// Recovery is "file" (Locator names the complete result), "none" (the
	// omitted parts reach no file) or "" (nothing omitted).
	Recovery string `json:"recovery"`
	Locator  string `json:"locator"`
	// CompleteFile is the complete result file's text (what a spill would
	// hold), shortened to CompleteFileShownBytes real bytes for display and
	// masked as blocks are.
	CompleteFile           string     `json:"completeFile"`
	CompleteFileBytes      int64      `json:"completeFileBytes"`
	CompleteFileShownBytes int64      `json:"completeFileShownBytes"`
	CompleteFileMasks      []MaskSpan `json:"completeFileMasks"`
	// CompleteFilePage is the complete file's first page when paged, and
	// CompleteFileKey names its text: pages read for one key serve every
	// decision that writes the same file.
	CompleteFilePage *TextPage `json:"completeFilePage"`
	CompleteFileKey  string    `json:"completeFileKey"`
	// CompleteFileMasked counts the values masked in the whole paged file.
	CompleteFileMasked int `json:"completeFileMasked"`
	// Masked counts the values masked in Blocks and CompleteFile.
	Masked   int  `json:"masked"`
	Revealed bool `json:"revealed"`
}

// SweepRequest re-runs retention over many budgets: for one result
// (ResultID), one session (SessionID), or every indexed result (both 0).
type SweepRequest struct {
	ResultID  int64   `json:"resultId"`
	SessionID int64   `json:"sessionId"`
	Budgets   []int64 `json:"budgets"`
	Route     string  `json:"route"`
	Policy    string  `json:"policy"`
	Estimator string  `json:"estimator"`
}

// SweepRow is one budget's totals, as `spillscope sweep` prints them.
type SweepRow struct {
	Budget        int64 `json:"budget"`
	Results       int   `json:"results"`
	Replaced      int   `json:"replaced"`
	NoticeOnly    int   `json:"noticeOnly"`
	Preserved     int   `json:"preserved"`
	InlineTokens  int64 `json:"inlineTokens"`
	OmittedBytes  int64 `json:"omittedBytes"`
	OmittedImages int   `json:"omittedImages"`
	// InlineTokensLowerBound: some result kept whole was not counted through,
	// so InlineTokens is at least this much.
	InlineTokensLowerBound bool `json:"inlineTokensLowerBound"`
}

// LinkRow is one link of one indexed tool result, for the reviewers' list.
// Line is set only where the host shows the link's line. URI is the
// redacted URI (scheme, host, path, parameter names; never a value),
// computed from the source file for the rows asked for and never stored;
// Start and End are the link's byte range in its text block (-1 for a
// block that is a link of its own), for a view to scroll to.
type LinkRow struct {
	ResultID  int64  `json:"resultId"`
	SessionID int64  `json:"sessionId"`
	Block     int    `json:"block"`
	Shown     string `json:"shown"`
	Line      string `json:"line"`
	Reason    string `json:"reason"`
	Parameter string `json:"parameter"`
	// InText marks a credential-bearing URL found inside a text block (it
	// reached the model as plain text; the policy does not hide those).
	InText bool `json:"inText"`
	// Class is the audit class (plain, redacted, stubbed, marker); Host the
	// link's host; Families the credential families of Parameter
	// (links.FamiliesOf).
	Class    string   `json:"class"`
	Host     string   `json:"host"`
	Families []string `json:"families"`
	Tool     string   `json:"tool"`
	Project  string   `json:"project"`
	File     string   `json:"file"`
	Line1    int64    `json:"sourceLine"`
	URI      string   `json:"uri"`
	Start    int      `json:"start"`
	End      int      `json:"end"`
}

// LinkQuery filters the links list; every filter is optional.
type LinkQuery struct {
	// OnlyHidden keeps the links a rule flagged (each has a reason).
	OnlyHidden bool `json:"onlyHidden"`
	// SessionID keeps one session's links (a sessions row id; 0: all).
	SessionID int64 `json:"sessionId"`
	// Reason keeps one reason code; Family one credential family
	// (links.FamilyKeys); Host one host and its subdomains; Class one
	// audit class.
	Reason string `json:"reason"`
	Family string `json:"family"`
	Host   string `json:"host"`
	Class  string `json:"class"`
	Limit  int    `json:"limit"`
	Offset int    `json:"offset"`
}

// LinkFacets are the values the links filters offer, with how many links
// carry each (over the whole list, or one session's).
type LinkFacets struct {
	Reasons  []FacetCount `json:"reasons"`
	Families []FacetCount `json:"families"`
	Hosts    []FacetCount `json:"hosts"`
}

// FacetCount is one filter value and how many links carry it.
type FacetCount struct {
	Value string `json:"value"`
	Count int    `json:"count"`
}

// IndexStatus is the indexer's progress and the index's totals, asked for
// once and then pushed with events (EventIndexProgress, EventIndexChanged).
type IndexStatus struct {
	Running        bool    `json:"running"`
	Phase          string  `json:"phase"`
	Files          int     `json:"files"`
	FilesDone      int     `json:"filesDone"`
	Bytes          int64   `json:"bytes"`
	BytesDone      int64   `json:"bytesDone"`
	RateMBs        float64 `json:"rateMBs"`
	Error          string  `json:"error"`
	Sessions       int     `json:"sessions"`
	ToolResults    int     `json:"toolResults"`
	Images         int     `json:"images"`
	SpillNotices   int     `json:"spillNotices"`
	Diagnostics    int     `json:"diagnostics"`
	LastIndexedAgo string  `json:"lastIndexedAgo"`
	// LastIndexedAt is when the last pass (manual or live) ended, in Unix
	// ms (0: none since start): the window shows the moment, which stays
	// true between events (an "ago" would need asking again).
	LastIndexedAt int64 `json:"lastIndexedAt"`
	// Seq orders statuses: each pushed one has a higher number, a Status
	// answer the number of the last pushed, and the window keeps the
	// newest.
	Seq int64 `json:"seq"`
}

// Diagnostic is a bad line or file the indexer skipped: a stable code and
// its params for the window to translate, and the English message.
type Diagnostic struct {
	File    string            `json:"file"`
	Line    int64             `json:"line"`
	Code    string            `json:"code"`
	Params  map[string]string `json:"params"`
	Message string            `json:"message"`
	// Count is how many diagnostics of this code (and subject) the file
	// has: this row, the first, stands for all of them.
	Count int `json:"count"`
}

// SpillQuery asks for part of an indexed result's spill file. The index
// decides which file that is; the window never names a path. Reveal shows
// credential values (see ResultQuery).
type SpillQuery struct {
	ResultID int64 `json:"resultId"`
	Offset   int64 `json:"offset"`
	Limit    int64 `json:"limit"`
	Reveal   bool  `json:"reveal"`
}

// FileSlice is part of a spill file or complete result file. Offset and
// Next are byte offsets in the real file (the next page starts at Next);
// Text is the page with credential values masked (Masks say where) unless
// revealed, so its length is not the page's.
type FileSlice struct {
	Path string `json:"path"`
	// State is the file rule's verdict, asked at this read: "exists",
	// "missing", "outside" (the notice names a file outside the folders
	// the session's harness writes: not opened) or "unreadable".
	State    string     `json:"state"`
	Detail   string     `json:"detail"`
	Exists   bool       `json:"exists"`
	Size     int64      `json:"size"`
	Offset   int64      `json:"offset"`
	Next     int64      `json:"next"`
	Text     string     `json:"text"`
	EOF      bool       `json:"eof"`
	Masks    []MaskSpan `json:"masks"`
	Revealed bool       `json:"revealed"`
}

// SnippetQuery asks for a line of text around the first of the words in
// each of the results, as search hits show it.
type SnippetQuery struct {
	Query string  `json:"query"`
	IDs   []int64 `json:"ids"`
}

// Snippet is a few words of one result's text around a match, always
// masked.
type Snippet struct {
	ID    int64      `json:"id"`
	Text  string     `json:"text"`
	Masks []MaskSpan `json:"masks"`
}
