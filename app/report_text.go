package app

// reportLabels is the audit report's text in one language. Both languages
// fill every field and key (a test holds them to it), as the window's en.ts
// and zh.ts do.
type reportLabels struct {
	Lang, Title, WholeIndex, SessionScope, Generated, Version, Offline string
	Summary, Largest, LargestNote, Sweep, SweepNote, Chart, ChartX     string
	ChartY, Links, LinksNote, LinksCapped, Classes, Families           string
	Reasons, Hosts, Compare, CompareNote, CompareNone, Empty, Notes    string
	Masked, Yes, No                                                    string
	// Cols names the columns shown, by export key; Facts the summary's
	// figures; ClassNames the audit classes, ClassShort the same in a
	// table cell.
	Cols       map[string]string
	Facts      map[string]string
	ClassNames map[string]string
	ClassShort map[string]string
}

var reportText = map[string]reportLabels{
	"en": {
		Lang: "en", Title: "Spillscope audit report", WholeIndex: "the whole index", SessionScope: "session",
		Generated: "Generated", Version: "Spillscope", Offline: "A self-contained file: no script, no request to any server. Credential values are masked ([redacted]); link URIs keep their scheme, host, path and parameter names, never a value (…).",
		Summary: "Summary", Largest: "Largest results", LargestNote: "The tool results that cost the most tokens (exact counts, or size-based approximations marked ≈ until counted).",
		Sweep: "Budget sweep", SweepNote: "The retention decision re-run at each budget over every result in scope: each row is what a single run at that budget gives.",
		Chart: "Tokens kept inline by budget (budgets on a log scale)", ChartX: "budget (tokens, log scale)", ChartY: "inline tokens",
		Links: "Links audit", LinksNote: "Flagged links (a rule matched): how each was shown, why, and where. URLs shown as written are counted, not listed.",
		LinksCapped: "The first %d flagged links are listed; export the links list as CSV for all %d.",
		Classes:     "Every URL found, by how it was shown", Families: "Credential families matched", Reasons: "Reasons", Hosts: "Hosts linked to most",
		Compare: "Policy comparison", CompareNote: "Each policy decided on the largest result at its shipped budget, all priced on one yardstick:",
		CompareNone: "No result to compare.", Empty: "None.", Notes: "Not included",
		Masked: "masked", Yes: "yes", No: "no",
		Cols: map[string]string{
			"rank": "#", "tool": "Tool", "project": "Project", "tokens": "Tokens", "textBytes": "Bytes", "images": "Images",
			"noticeKind": "Spill notice", "source": "Source", "budget": "Budget", "results": "Results", "replaced": "Replaced",
			"noticeOnly": "Notice only", "preserved": "Preserved", "inlineTokens": "Inline tokens", "omittedBytes": "Omitted bytes",
			"omittedImages": "Omitted images", "class": "Shown as", "reason": "Why", "parameter": "Parameter", "families": "Families",
			"host": "Host", "uri": "Redacted URI", "where": "Result / block", "policy": "Policy", "status": "Status",
			"ownTokens": "Own estimate", "yardstickTokens": "Yardstick", "lostBytes": "Lost for good", "recoverableBytes": "In a file",
			"value": "Value", "count": "Count",
		},
		Facts: map[string]string{
			"sessions": "Sessions", "toolResults": "Tool results", "images": "Images", "spillNotices": "Spill notices",
			"files": "Files", "bytes": "Bytes indexed", "diagnostics": "Lines skipped", "harness": "Harness", "sessionId": "Session id",
			"project": "Project", "model": "Model", "route": "Route", "started": "Started", "ended": "Ended",
			"textBytes": "Result text", "tokens": "Result tokens", "inputTokens": "Provider input tokens", "links": "Links",
		},
		ClassNames: map[string]string{"plain": "plain text", "redacted": "redacted (credential in text)", "stubbed": "stubbed (URI hidden)", "marker": "marker (not shown)"},
		ClassShort: map[string]string{"plain": "plain", "redacted": "redacted", "stubbed": "stubbed", "marker": "marker"},
	},
	"zh": {
		Lang: "zh", Title: "Spillscope 审计报告", WholeIndex: "整个索引", SessionScope: "会话",
		Generated: "生成于", Version: "Spillscope", Offline: "独立文件：没有脚本，不向任何服务器发请求。凭据值已遮蔽（[redacted]）；链接 URI 只保留协议、主机、路径和参数名，从不保留值（…）。",
		Summary: "概要", Largest: "最大的结果", LargestNote: "占用 token 最多的工具结果（精确计数；尚未计数的按大小估算，标 ≈）。",
		Sweep: "预算扫描", SweepNote: "在每个预算下对范围内的每个结果重新运行保留决策：每一行都等于在该预算下单独运行一次的结果。",
		Chart: "各预算下内联保留的 token（预算取对数刻度）", ChartX: "预算（token，对数刻度）", ChartY: "内联 token",
		Links: "链接审计", LinksNote: "被标记的链接（命中某条规则）：如何显示、原因和位置。按原样显示的 URL 只计数，不列出。",
		LinksCapped: "列出了前 %d 个被标记的链接；要看全部 %d 个，请把链接列表导出为 CSV。",
		Classes:     "找到的每个 URL，按显示方式", Families: "命中的凭据类别", Reasons: "原因", Hosts: "链接最多的主机",
		Compare: "策略对比", CompareNote: "各策略在最大的结果上按其默认预算作出决策，并以同一把尺子计价：",
		CompareNone: "没有可对比的结果。", Empty: "无。", Notes: "未包含",
		Masked: "已遮蔽", Yes: "是", No: "否",
		Cols: map[string]string{
			"rank": "#", "tool": "工具", "project": "项目", "tokens": "Token", "textBytes": "字节", "images": "图片",
			"noticeKind": "溢出通知", "source": "来源", "budget": "预算", "results": "结果", "replaced": "被替换",
			"noticeOnly": "仅通知", "preserved": "保留", "inlineTokens": "内联 token", "omittedBytes": "省略字节",
			"omittedImages": "省略图片", "class": "显示为", "reason": "原因", "parameter": "参数", "families": "类别",
			"host": "主机", "uri": "脱敏 URI", "where": "结果 / 块", "policy": "策略", "status": "状态",
			"ownTokens": "自身估算", "yardstickTokens": "统一尺子", "lostBytes": "永久丢失", "recoverableBytes": "存于文件",
			"value": "值", "count": "数量",
		},
		Facts: map[string]string{
			"sessions": "会话", "toolResults": "工具结果", "images": "图片", "spillNotices": "溢出通知",
			"files": "文件", "bytes": "已索引字节", "diagnostics": "跳过的行", "harness": "工具链", "sessionId": "会话 ID",
			"project": "项目", "model": "模型", "route": "计价路线", "started": "开始", "ended": "结束",
			"textBytes": "结果文本", "tokens": "结果 token", "inputTokens": "服务商输入 token", "links": "链接",
		},
		ClassNames: map[string]string{"plain": "纯文本", "redacted": "已脱敏（文本中的凭据）", "stubbed": "存根（隐藏 URI）", "marker": "标记（不显示）"},
		ClassShort: map[string]string{"plain": "纯文本", "redacted": "已脱敏", "stubbed": "存根", "marker": "标记"},
	},
}

// labelsFor is the report's text in lang ("" or unknown: English).
func labelsFor(lang string) reportLabels {
	if l, ok := reportText[lang]; ok {
		return l
	}
	return reportText["en"]
}
