package app

// The types below are what the window receives. They are shaped for the
// screens, not for storage: sessions and retention types are mapped into them
// by the services, so the TypeScript bindings stay stable when a store
// column or a core field changes.

// SessionRow is one indexed transcript in the sessions list.
type SessionRow struct {
	ID           int64  `json:"id"`
	Harness      string `json:"harness"`
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
}

// SearchQuery is a full-text search of tool results.
type SearchQuery struct {
	// Query holds the words; each is matched as a phrase.
	Query string `json:"query"`
	// Order is "" or "relevance" (best match first, ties by tokens),
	// "tokens" (most tokens first, exact once counted) or "source"
	// (session and file order).
	Order string `json:"order"`
}

// SessionQuery filters the sessions list.
type SessionQuery struct {
	Harness string `json:"harness"`
	Search  string `json:"search"`
	// Order is "tokens" (most tokens first) or "" (newest first).
	Order  string `json:"order"`
	Limit  int    `json:"limit"`
	Offset int    `json:"offset"`
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
	File             string `json:"file"`
	Line             int64  `json:"line"`
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
	TextBytes int64 `json:"textBytes"`
	Truncated bool  `json:"truncated"`
	// Cut is "head" or "tail" when a projection cut this text block.
	Cut string `json:"cut"`
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
}

// ResultDetail is one tool result read back from its source file.
type ResultDetail struct {
	Row     ResultRow   `json:"row"`
	Session SessionRow  `json:"session"`
	Blocks  []BlockView `json:"blocks"`
	Route   string      `json:"route"`
	// Estimator is the route's text estimator, which the row's figures use.
	Estimator string `json:"estimator"`
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
	// hold), shortened to CompleteFileShown bytes for display.
	CompleteFile      string `json:"completeFile"`
	CompleteFileBytes int64  `json:"completeFileBytes"`
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
// It never carries a redacted URI; Line is set only where the host shows the
// link's line.
type LinkRow struct {
	ResultID  int64  `json:"resultId"`
	SessionID int64  `json:"sessionId"`
	Block     int    `json:"block"`
	Shown     string `json:"shown"`
	Line      string `json:"line"`
	Reason    string `json:"reason"`
	Parameter string `json:"parameter"`
	// InText marks a URL found inside a text block (it reached the model as
	// plain text; the policy does not hide those).
	InText  bool   `json:"inText"`
	Tool    string `json:"tool"`
	Project string `json:"project"`
	File    string `json:"file"`
	Line1   int64  `json:"sourceLine"`
}

// LinkQuery filters the links list.
type LinkQuery struct {
	OnlyHidden bool `json:"onlyHidden"`
	Limit      int  `json:"limit"`
	Offset     int  `json:"offset"`
}

// IndexStatus is the indexer's progress, polled or pushed as an event.
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
}

// Diagnostic is a bad line or file the indexer skipped.
type Diagnostic struct {
	File    string `json:"file"`
	Line    int64  `json:"line"`
	Message string `json:"message"`
}

// FileSlice is part of a spill file or complete result file.
type FileSlice struct {
	Path   string `json:"path"`
	Exists bool   `json:"exists"`
	Size   int64  `json:"size"`
	Offset int64  `json:"offset"`
	Text   string `json:"text"`
	EOF    bool   `json:"eof"`
}
