export namespace app {
	
	export class TextPage {
	    start: number;
	    end: number;
	    size: number;
	    text: string;
	    masks: MaskSpan[];
	
	    static createFrom(source: any = {}) {
	        return new TextPage(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.start = source["start"];
	        this.end = source["end"];
	        this.size = source["size"];
	        this.text = source["text"];
	        this.masks = this.convertValues(source["masks"], MaskSpan);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class TextSpan {
	    block: number;
	    start: number;
	    end: number;
	
	    static createFrom(source: any = {}) {
	        return new TextSpan(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.block = source["block"];
	        this.start = source["start"];
	        this.end = source["end"];
	    }
	}
	export class MaskSpan {
	    start: number;
	    end: number;
	    at: number;
	    kind: string;
	    parameter: string;
	
	    static createFrom(source: any = {}) {
	        return new MaskSpan(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.start = source["start"];
	        this.end = source["end"];
	        this.at = source["at"];
	        this.kind = source["kind"];
	        this.parameter = source["parameter"];
	    }
	}
	export class BlockView {
	    index: number;
	    kind: string;
	    text: string;
	    textBytes: number;
	    shownBytes: number;
	    truncated: boolean;
	    masks: MaskSpan[];
	    cut: string;
	    sourceStart: number;
	    imageUrl: string;
	    path: string;
	    mimeType: string;
	    width: number;
	    height: number;
	    notForModel: boolean;
	    reason: string;
	    parameter: string;
	    tokens: number;
	    src?: TextSpan;
	    page?: TextPage;
	    masked: number;
	
	    static createFrom(source: any = {}) {
	        return new BlockView(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.index = source["index"];
	        this.kind = source["kind"];
	        this.text = source["text"];
	        this.textBytes = source["textBytes"];
	        this.shownBytes = source["shownBytes"];
	        this.truncated = source["truncated"];
	        this.masks = this.convertValues(source["masks"], MaskSpan);
	        this.cut = source["cut"];
	        this.sourceStart = source["sourceStart"];
	        this.imageUrl = source["imageUrl"];
	        this.path = source["path"];
	        this.mimeType = source["mimeType"];
	        this.width = source["width"];
	        this.height = source["height"];
	        this.notForModel = source["notForModel"];
	        this.reason = source["reason"];
	        this.parameter = source["parameter"];
	        this.tokens = source["tokens"];
	        this.src = this.convertValues(source["src"], TextSpan);
	        this.page = this.convertValues(source["page"], TextPage);
	        this.masked = source["masked"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class BudgetRange {
	    min: number;
	    max: number;
	
	    static createFrom(source: any = {}) {
	        return new BudgetRange(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.min = source["min"];
	        this.max = source["max"];
	    }
	}
	export class CalibrationCall {
	    lane: number;
	    call: number;
	    growth: number;
	    output: number;
	    provider: number;
	    estimated: number;
	    ratio: number;
	
	    static createFrom(source: any = {}) {
	        return new CalibrationCall(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.lane = source["lane"];
	        this.call = source["call"];
	        this.growth = source["growth"];
	        this.output = source["output"];
	        this.provider = source["provider"];
	        this.estimated = source["estimated"];
	        this.ratio = source["ratio"];
	    }
	}
	export class Calibration {
	    estimator: string;
	    calls: number;
	    provider: number;
	    estimated: number;
	    ratio: number;
	    error: number;
	    spread: number;
	    exact: boolean;
	    unread: number;
	    perCall: CalibrationCall[];
	
	    static createFrom(source: any = {}) {
	        return new Calibration(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.estimator = source["estimator"];
	        this.calls = source["calls"];
	        this.provider = source["provider"];
	        this.estimated = source["estimated"];
	        this.ratio = source["ratio"];
	        this.error = source["error"];
	        this.spread = source["spread"];
	        this.exact = source["exact"];
	        this.unread = source["unread"];
	        this.perCall = this.convertValues(source["perCall"], CalibrationCall);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	
	export class CalibrationView {
	    sessionId: number;
	    route: string;
	    estimator: string;
	    estimators: Calibration[];
	
	    static createFrom(source: any = {}) {
	        return new CalibrationView(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.sessionId = source["sessionId"];
	        this.route = source["route"];
	        this.estimator = source["estimator"];
	        this.estimators = this.convertValues(source["estimators"], Calibration);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class LossFigures {
	    bytes: number;
	    lines: number;
	    images: number;
	
	    static createFrom(source: any = {}) {
	        return new LossFigures(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.bytes = source["bytes"];
	        this.lines = source["lines"];
	        this.images = source["images"];
	    }
	}
	export class TokenFigures {
	    estimator: string;
	    total: number;
	    text: number;
	    images: number;
	    notice: number;
	
	    static createFrom(source: any = {}) {
	        return new TokenFigures(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.estimator = source["estimator"];
	        this.total = source["total"];
	        this.text = source["text"];
	        this.images = source["images"];
	        this.notice = source["notice"];
	    }
	}
	export class CompareColumn {
	    policy: string;
	    harness: string;
	    error: string;
	    params: {[key: string]: string};
	    budgetParam: string;
	    budgetUnit: string;
	    unitsPerToken: number;
	    status: string;
	    blocks: BlockView[];
	    own: TokenFigures;
	    yardstick: TokenFigures;
	    originalTokens: number;
	    originalTokensExact: boolean;
	    omitted: LossFigures;
	    lost: LossFigures;
	    recoverable: LossFigures;
	    locator: string;
	    recoverNote: string;
	    diagnostics: string[];
	
	    static createFrom(source: any = {}) {
	        return new CompareColumn(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.policy = source["policy"];
	        this.harness = source["harness"];
	        this.error = source["error"];
	        this.params = source["params"];
	        this.budgetParam = source["budgetParam"];
	        this.budgetUnit = source["budgetUnit"];
	        this.unitsPerToken = source["unitsPerToken"];
	        this.status = source["status"];
	        this.blocks = this.convertValues(source["blocks"], BlockView);
	        this.own = this.convertValues(source["own"], TokenFigures);
	        this.yardstick = this.convertValues(source["yardstick"], TokenFigures);
	        this.originalTokens = source["originalTokens"];
	        this.originalTokensExact = source["originalTokensExact"];
	        this.omitted = this.convertValues(source["omitted"], LossFigures);
	        this.lost = this.convertValues(source["lost"], LossFigures);
	        this.recoverable = this.convertValues(source["recoverable"], LossFigures);
	        this.locator = source["locator"];
	        this.recoverNote = source["recoverNote"];
	        this.diagnostics = source["diagnostics"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class CompareColumnSpec {
	    policy: string;
	    params: {[key: string]: string};
	
	    static createFrom(source: any = {}) {
	        return new CompareColumnSpec(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.policy = source["policy"];
	        this.params = source["params"];
	    }
	}
	export class CompareRequest {
	    resultId: number;
	    json: string;
	    columns: CompareColumnSpec[];
	    slider?: number;
	    route: string;
	    estimator: string;
	    toolName: string;
	    reveal: boolean;
	
	    static createFrom(source: any = {}) {
	        return new CompareRequest(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.resultId = source["resultId"];
	        this.json = source["json"];
	        this.columns = this.convertValues(source["columns"], CompareColumnSpec);
	        this.slider = source["slider"];
	        this.route = source["route"];
	        this.estimator = source["estimator"];
	        this.toolName = source["toolName"];
	        this.reveal = source["reveal"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class CompareView {
	    slider?: number;
	    route: string;
	    yardstick: string;
	    harness: string;
	    columns: CompareColumn[];
	
	    static createFrom(source: any = {}) {
	        return new CompareView(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.slider = source["slider"];
	        this.route = source["route"];
	        this.yardstick = source["yardstick"];
	        this.harness = source["harness"];
	        this.columns = this.convertValues(source["columns"], CompareColumn);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class Defaults {
	    budget: number;
	    route: string;
	    estimator: string;
	    readTools: string[];
	
	    static createFrom(source: any = {}) {
	        return new Defaults(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.budget = source["budget"];
	        this.route = source["route"];
	        this.estimator = source["estimator"];
	        this.readTools = source["readTools"];
	    }
	}
	export class Diagnostic {
	    file: string;
	    line: number;
	    code: string;
	    params: {[key: string]: string};
	    message: string;
	    count: number;
	
	    static createFrom(source: any = {}) {
	        return new Diagnostic(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.file = source["file"];
	        this.line = source["line"];
	        this.code = source["code"];
	        this.params = source["params"];
	        this.message = source["message"];
	        this.count = source["count"];
	    }
	}
	export class ExportPathQuery {
	    title: string;
	    name: string;
	
	    static createFrom(source: any = {}) {
	        return new ExportPathQuery(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.title = source["title"];
	        this.name = source["name"];
	    }
	}
	export class ReportRequest {
	    sessionId: number;
	    budgets: number[];
	    policies: string[];
	    route: string;
	    language: string;
	    largest: number;
	
	    static createFrom(source: any = {}) {
	        return new ReportRequest(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.sessionId = source["sessionId"];
	        this.budgets = source["budgets"];
	        this.policies = source["policies"];
	        this.route = source["route"];
	        this.language = source["language"];
	        this.largest = source["largest"];
	    }
	}
	export class LinkQuery {
	    onlyHidden: boolean;
	    sessionId: number;
	    reason: string;
	    family: string;
	    host: string;
	    class: string;
	    limit: number;
	    offset: number;
	
	    static createFrom(source: any = {}) {
	        return new LinkQuery(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.onlyHidden = source["onlyHidden"];
	        this.sessionId = source["sessionId"];
	        this.reason = source["reason"];
	        this.family = source["family"];
	        this.host = source["host"];
	        this.class = source["class"];
	        this.limit = source["limit"];
	        this.offset = source["offset"];
	    }
	}
	export class ResultsExport {
	    list: string;
	    sessionId: number;
	    order: string;
	    onlyNotices: boolean;
	    query: string;
	
	    static createFrom(source: any = {}) {
	        return new ResultsExport(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.list = source["list"];
	        this.sessionId = source["sessionId"];
	        this.order = source["order"];
	        this.onlyNotices = source["onlyNotices"];
	        this.query = source["query"];
	    }
	}
	export class SweepPoliciesRequest {
	    resultId: number;
	    sessionId: number;
	    budgets: number[];
	    columns: CompareColumnSpec[];
	    route: string;
	    estimator: string;
	
	    static createFrom(source: any = {}) {
	        return new SweepPoliciesRequest(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.resultId = source["resultId"];
	        this.sessionId = source["sessionId"];
	        this.budgets = source["budgets"];
	        this.columns = this.convertValues(source["columns"], CompareColumnSpec);
	        this.route = source["route"];
	        this.estimator = source["estimator"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class SweepRequest {
	    resultId: number;
	    sessionId: number;
	    budgets: number[];
	    route: string;
	    policy: string;
	    estimator: string;
	
	    static createFrom(source: any = {}) {
	        return new SweepRequest(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.resultId = source["resultId"];
	        this.sessionId = source["sessionId"];
	        this.budgets = source["budgets"];
	        this.route = source["route"];
	        this.policy = source["policy"];
	        this.estimator = source["estimator"];
	    }
	}
	export class ExportRequest {
	    what: string;
	    format: string;
	    path: string;
	    sweep: SweepRequest;
	    policies: SweepPoliciesRequest;
	    results: ResultsExport;
	    links: LinkQuery;
	    compare: CompareRequest;
	    report: ReportRequest;
	
	    static createFrom(source: any = {}) {
	        return new ExportRequest(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.what = source["what"];
	        this.format = source["format"];
	        this.path = source["path"];
	        this.sweep = this.convertValues(source["sweep"], SweepRequest);
	        this.policies = this.convertValues(source["policies"], SweepPoliciesRequest);
	        this.results = this.convertValues(source["results"], ResultsExport);
	        this.links = this.convertValues(source["links"], LinkQuery);
	        this.compare = this.convertValues(source["compare"], CompareRequest);
	        this.report = this.convertValues(source["report"], ReportRequest);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class ExportResult {
	    path: string;
	    rows: number;
	    bytes: number;
	
	    static createFrom(source: any = {}) {
	        return new ExportResult(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.path = source["path"];
	        this.rows = source["rows"];
	        this.bytes = source["bytes"];
	    }
	}
	export class FacetCount {
	    value: string;
	    count: number;
	
	    static createFrom(source: any = {}) {
	        return new FacetCount(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.value = source["value"];
	        this.count = source["count"];
	    }
	}
	export class FileAction {
	    path: string;
	    state: string;
	    detail: string;
	    done: boolean;
	
	    static createFrom(source: any = {}) {
	        return new FileAction(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.path = source["path"];
	        this.state = source["state"];
	        this.detail = source["detail"];
	        this.done = source["done"];
	    }
	}
	export class FileSlice {
	    path: string;
	    state: string;
	    detail: string;
	    exists: boolean;
	    size: number;
	    offset: number;
	    next: number;
	    text: string;
	    eof: boolean;
	    masks: MaskSpan[];
	    revealed: boolean;
	
	    static createFrom(source: any = {}) {
	        return new FileSlice(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.path = source["path"];
	        this.state = source["state"];
	        this.detail = source["detail"];
	        this.exists = source["exists"];
	        this.size = source["size"];
	        this.offset = source["offset"];
	        this.next = source["next"];
	        this.text = source["text"];
	        this.eof = source["eof"];
	        this.masks = this.convertValues(source["masks"], MaskSpan);
	        this.revealed = source["revealed"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class FileTarget {
	    resultId: number;
	    kind: string;
	    block: number;
	
	    static createFrom(source: any = {}) {
	        return new FileTarget(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.resultId = source["resultId"];
	        this.kind = source["kind"];
	        this.block = source["block"];
	    }
	}
	export class TimelineResult {
	    id: number;
	    callId: string;
	    tool: string;
	    at: string;
	    line: number;
	    tokens: number;
	    tokensExact: boolean;
	    call: number;
	    until: number;
	    replaced: string;
	
	    static createFrom(source: any = {}) {
	        return new TimelineResult(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.callId = source["callId"];
	        this.tool = source["tool"];
	        this.at = source["at"];
	        this.line = source["line"];
	        this.tokens = source["tokens"];
	        this.tokensExact = source["tokensExact"];
	        this.call = source["call"];
	        this.until = source["until"];
	        this.replaced = source["replaced"];
	    }
	}
	export class FilledResult {
	    result: TimelineResult;
	    share: number;
	    inline: number;
	    saved: number;
	    status: string;
	    unread: boolean;
	
	    static createFrom(source: any = {}) {
	        return new FilledResult(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.result = this.convertValues(source["result"], TimelineResult);
	        this.share = source["share"];
	        this.inline = source["inline"];
	        this.saved = source["saved"];
	        this.status = source["status"];
	        this.unread = source["unread"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class Filled {
	    call: number;
	    at: string;
	    prompt: number;
	    results: FilledResult[];
	    tokens: number;
	    others: number;
	    policy: string;
	    budget: number;
	    saved: number;
	
	    static createFrom(source: any = {}) {
	        return new Filled(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.call = source["call"];
	        this.at = source["at"];
	        this.prompt = source["prompt"];
	        this.results = this.convertValues(source["results"], FilledResult);
	        this.tokens = source["tokens"];
	        this.others = source["others"];
	        this.policy = source["policy"];
	        this.budget = source["budget"];
	        this.saved = source["saved"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class FilledQuery {
	    sessionId: number;
	    call: number;
	    budget: number;
	    policy: string;
	    limit: number;
	
	    static createFrom(source: any = {}) {
	        return new FilledQuery(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.sessionId = source["sessionId"];
	        this.call = source["call"];
	        this.budget = source["budget"];
	        this.policy = source["policy"];
	        this.limit = source["limit"];
	    }
	}
	
	export class Root {
	    harness: string;
	    path: string;
	    exists: boolean;
	    source: string;
	
	    static createFrom(source: any = {}) {
	        return new Root(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.harness = source["harness"];
	        this.path = source["path"];
	        this.exists = source["exists"];
	        this.source = source["source"];
	    }
	}
	export class HarnessInfo {
	    name: string;
	    label: string;
	    roots: Root[];
	
	    static createFrom(source: any = {}) {
	        return new HarnessInfo(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.name = source["name"];
	        this.label = source["label"];
	        this.roots = this.convertValues(source["roots"], Root);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class IndexStatus {
	    running: boolean;
	    phase: string;
	    files: number;
	    filesDone: number;
	    bytes: number;
	    bytesDone: number;
	    rateMBs: number;
	    error: string;
	    sessions: number;
	    toolResults: number;
	    images: number;
	    spillNotices: number;
	    diagnostics: number;
	    lastIndexedAgo: string;
	    lastIndexedAt: number;
	    seq: number;
	
	    static createFrom(source: any = {}) {
	        return new IndexStatus(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.running = source["running"];
	        this.phase = source["phase"];
	        this.files = source["files"];
	        this.filesDone = source["filesDone"];
	        this.bytes = source["bytes"];
	        this.bytesDone = source["bytesDone"];
	        this.rateMBs = source["rateMBs"];
	        this.error = source["error"];
	        this.sessions = source["sessions"];
	        this.toolResults = source["toolResults"];
	        this.images = source["images"];
	        this.spillNotices = source["spillNotices"];
	        this.diagnostics = source["diagnostics"];
	        this.lastIndexedAgo = source["lastIndexedAgo"];
	        this.lastIndexedAt = source["lastIndexedAt"];
	        this.seq = source["seq"];
	    }
	}
	export class Info {
	    version: string;
	    platform: string;
	    dataDir: string;
	    configDir: string;
	    roots: Root[];
	    readTools: string[];
	    harnesses: HarnessInfo[];
	
	    static createFrom(source: any = {}) {
	        return new Info(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.version = source["version"];
	        this.platform = source["platform"];
	        this.dataDir = source["dataDir"];
	        this.configDir = source["configDir"];
	        this.roots = this.convertValues(source["roots"], Root);
	        this.readTools = source["readTools"];
	        this.harnesses = this.convertValues(source["harnesses"], HarnessInfo);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class LinkFacets {
	    reasons: FacetCount[];
	    families: FacetCount[];
	    hosts: FacetCount[];
	
	    static createFrom(source: any = {}) {
	        return new LinkFacets(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.reasons = this.convertValues(source["reasons"], FacetCount);
	        this.families = this.convertValues(source["families"], FacetCount);
	        this.hosts = this.convertValues(source["hosts"], FacetCount);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class LinkRow {
	    resultId: number;
	    sessionId: number;
	    block: number;
	    shown: string;
	    line: string;
	    reason: string;
	    parameter: string;
	    inText: boolean;
	    class: string;
	    host: string;
	    families: string[];
	    tool: string;
	    project: string;
	    file: string;
	    sourceLine: number;
	    uri: string;
	    start: number;
	    end: number;
	
	    static createFrom(source: any = {}) {
	        return new LinkRow(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.resultId = source["resultId"];
	        this.sessionId = source["sessionId"];
	        this.block = source["block"];
	        this.shown = source["shown"];
	        this.line = source["line"];
	        this.reason = source["reason"];
	        this.parameter = source["parameter"];
	        this.inText = source["inText"];
	        this.class = source["class"];
	        this.host = source["host"];
	        this.families = source["families"];
	        this.tool = source["tool"];
	        this.project = source["project"];
	        this.file = source["file"];
	        this.sourceLine = source["sourceLine"];
	        this.uri = source["uri"];
	        this.start = source["start"];
	        this.end = source["end"];
	    }
	}
	export class LinkPage {
	    rows: LinkRow[];
	    total: number;
	    hidden: number;
	    inText: number;
	    plain: number;
	    redacted: number;
	    stubbed: number;
	    markers: number;
	
	    static createFrom(source: any = {}) {
	        return new LinkPage(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.rows = this.convertValues(source["rows"], LinkRow);
	        this.total = source["total"];
	        this.hidden = source["hidden"];
	        this.inText = source["inText"];
	        this.plain = source["plain"];
	        this.redacted = source["redacted"];
	        this.stubbed = source["stubbed"];
	        this.markers = source["markers"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	
	
	export class LiveStatus {
	    state: string;
	    paused: boolean;
	    folders: number;
	    unwatched: number;
	    everySeconds: number;
	    setting: string;
	    detail: string;
	
	    static createFrom(source: any = {}) {
	        return new LiveStatus(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.state = source["state"];
	        this.paused = source["paused"];
	        this.folders = source["folders"];
	        this.unwatched = source["unwatched"];
	        this.everySeconds = source["everySeconds"];
	        this.setting = source["setting"];
	        this.detail = source["detail"];
	    }
	}
	
	
	export class PageQuery {
	    offset: number;
	    limit: number;
	
	    static createFrom(source: any = {}) {
	        return new PageQuery(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.offset = source["offset"];
	        this.limit = source["limit"];
	    }
	}
	export class ParamInfo {
	    name: string;
	    kind: string;
	    unit: string;
	    default: string;
	    min: number;
	    max: number;
	    choices: string[];
	    off: boolean;
	    doc: string;
	
	    static createFrom(source: any = {}) {
	        return new ParamInfo(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.name = source["name"];
	        this.kind = source["kind"];
	        this.unit = source["unit"];
	        this.default = source["default"];
	        this.min = source["min"];
	        this.max = source["max"];
	        this.choices = source["choices"];
	        this.off = source["off"];
	        this.doc = source["doc"];
	    }
	}
	export class Place {
	    screen: string;
	    sessionId: number;
	    resultId: number;
	    budget: number;
	    off: boolean;
	
	    static createFrom(source: any = {}) {
	        return new Place(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.screen = source["screen"];
	        this.sessionId = source["sessionId"];
	        this.resultId = source["resultId"];
	        this.budget = source["budget"];
	        this.off = source["off"];
	    }
	}
	export class PolicyInfo {
	    name: string;
	    harness: string;
	    version: string;
	    summary: string;
	    estimator: string;
	    budget: string;
	    unit: string;
	    defaultBudget: number;
	    recoverable: string;
	    recoverNote: string;
	    source: string;
	    unitsPerToken: number;
	    params: ParamInfo[];
	
	    static createFrom(source: any = {}) {
	        return new PolicyInfo(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.name = source["name"];
	        this.harness = source["harness"];
	        this.version = source["version"];
	        this.summary = source["summary"];
	        this.estimator = source["estimator"];
	        this.budget = source["budget"];
	        this.unit = source["unit"];
	        this.defaultBudget = source["defaultBudget"];
	        this.recoverable = source["recoverable"];
	        this.recoverNote = source["recoverNote"];
	        this.source = source["source"];
	        this.unitsPerToken = source["unitsPerToken"];
	        this.params = this.convertValues(source["params"], ParamInfo);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class Projection {
	    status: string;
	    blocks: BlockView[];
	    notice: string;
	    omittedBytes: number;
	    omittedImages: number;
	    tokens: TokenFigures;
	    originalTokens: number;
	    originalTokensExact: boolean;
	    diagnostics: string[];
	    policy: string;
	    route: string;
	    estimator: string;
	    budget?: number;
	    budgetUnit: string;
	    yardstick?: TokenFigures;
	    recovery: string;
	    locator: string;
	    completeFile: string;
	    completeFileBytes: number;
	    completeFileShownBytes: number;
	    completeFileMasks: MaskSpan[];
	    completeFilePage?: TextPage;
	    completeFileKey: string;
	    completeFileMasked: number;
	    masked: number;
	    revealed: boolean;
	
	    static createFrom(source: any = {}) {
	        return new Projection(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.status = source["status"];
	        this.blocks = this.convertValues(source["blocks"], BlockView);
	        this.notice = source["notice"];
	        this.omittedBytes = source["omittedBytes"];
	        this.omittedImages = source["omittedImages"];
	        this.tokens = this.convertValues(source["tokens"], TokenFigures);
	        this.originalTokens = source["originalTokens"];
	        this.originalTokensExact = source["originalTokensExact"];
	        this.diagnostics = source["diagnostics"];
	        this.policy = source["policy"];
	        this.route = source["route"];
	        this.estimator = source["estimator"];
	        this.budget = source["budget"];
	        this.budgetUnit = source["budgetUnit"];
	        this.yardstick = this.convertValues(source["yardstick"], TokenFigures);
	        this.recovery = source["recovery"];
	        this.locator = source["locator"];
	        this.completeFile = source["completeFile"];
	        this.completeFileBytes = source["completeFileBytes"];
	        this.completeFileShownBytes = source["completeFileShownBytes"];
	        this.completeFileMasks = this.convertValues(source["completeFileMasks"], MaskSpan);
	        this.completeFilePage = this.convertValues(source["completeFilePage"], TextPage);
	        this.completeFileKey = source["completeFileKey"];
	        this.completeFileMasked = source["completeFileMasked"];
	        this.masked = source["masked"];
	        this.revealed = source["revealed"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class ReplacedView {
	    kind: string;
	    seq: number;
	    eventSeq: number;
	    line: number;
	    ref: string;
	    lastSeen: BlockView[];
	    lastSeenGone: string;
	
	    static createFrom(source: any = {}) {
	        return new ReplacedView(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.kind = source["kind"];
	        this.seq = source["seq"];
	        this.eventSeq = source["eventSeq"];
	        this.line = source["line"];
	        this.ref = source["ref"];
	        this.lastSeen = this.convertValues(source["lastSeen"], BlockView);
	        this.lastSeenGone = source["lastSeenGone"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class ReplayDifference {
	    block: number;
	    offset: number;
	    reason: string;
	    recorded: string;
	    replayed: string;
	
	    static createFrom(source: any = {}) {
	        return new ReplayDifference(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.block = source["block"];
	        this.offset = source["offset"];
	        this.reason = source["reason"];
	        this.recorded = source["recorded"];
	        this.replayed = source["replayed"];
	    }
	}
	export class ReplayRequest {
	    resultId: number;
	    budget?: number;
	
	    static createFrom(source: any = {}) {
	        return new ReplayRequest(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.resultId = source["resultId"];
	        this.budget = source["budget"];
	    }
	}
	export class ReplayView {
	    replayable: boolean;
	    code: string;
	    reason: string;
	    reproduced: boolean;
	    policy: string;
	    tried: string[];
	    estimator: string;
	    route: string;
	    budget: number;
	    budgetUnit: string;
	    budgetSource: string;
	    budgetRange?: BudgetRange;
	    difference?: ReplayDifference;
	    spillPath: string;
	    spillState: string;
	    notice: string;
	    omittedBytes: number;
	    omittedImages: number;
	
	    static createFrom(source: any = {}) {
	        return new ReplayView(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.replayable = source["replayable"];
	        this.code = source["code"];
	        this.reason = source["reason"];
	        this.reproduced = source["reproduced"];
	        this.policy = source["policy"];
	        this.tried = source["tried"];
	        this.estimator = source["estimator"];
	        this.route = source["route"];
	        this.budget = source["budget"];
	        this.budgetUnit = source["budgetUnit"];
	        this.budgetSource = source["budgetSource"];
	        this.budgetRange = this.convertValues(source["budgetRange"], BudgetRange);
	        this.difference = this.convertValues(source["difference"], ReplayDifference);
	        this.spillPath = source["spillPath"];
	        this.spillState = source["spillState"];
	        this.notice = source["notice"];
	        this.omittedBytes = source["omittedBytes"];
	        this.omittedImages = source["omittedImages"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	
	export class SessionRow {
	    id: number;
	    harness: string;
	    harnessLabel: string;
	    sessionId: string;
	    agentId: string;
	    project: string;
	    model: string;
	    route: string;
	    started: string;
	    ended: string;
	    file: string;
	    toolResults: number;
	    images: number;
	    spillNotices: number;
	    textBytes: number;
	    inputTokens: number;
	    outputTokens: number;
	    cacheReadTokens: number;
	    cacheWriteTokens: number;
	    tokens: number;
	    tokensExact: boolean;
	    title: string;
	    kind: string;
	    parentId: number;
	    agentType: string;
	    agentDescription: string;
	    modelCalls: number;
	    compactions: number;
	    apiErrors: number;
	    abortedTurns: number;
	
	    static createFrom(source: any = {}) {
	        return new SessionRow(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.harness = source["harness"];
	        this.harnessLabel = source["harnessLabel"];
	        this.sessionId = source["sessionId"];
	        this.agentId = source["agentId"];
	        this.project = source["project"];
	        this.model = source["model"];
	        this.route = source["route"];
	        this.started = source["started"];
	        this.ended = source["ended"];
	        this.file = source["file"];
	        this.toolResults = source["toolResults"];
	        this.images = source["images"];
	        this.spillNotices = source["spillNotices"];
	        this.textBytes = source["textBytes"];
	        this.inputTokens = source["inputTokens"];
	        this.outputTokens = source["outputTokens"];
	        this.cacheReadTokens = source["cacheReadTokens"];
	        this.cacheWriteTokens = source["cacheWriteTokens"];
	        this.tokens = source["tokens"];
	        this.tokensExact = source["tokensExact"];
	        this.title = source["title"];
	        this.kind = source["kind"];
	        this.parentId = source["parentId"];
	        this.agentType = source["agentType"];
	        this.agentDescription = source["agentDescription"];
	        this.modelCalls = source["modelCalls"];
	        this.compactions = source["compactions"];
	        this.apiErrors = source["apiErrors"];
	        this.abortedTurns = source["abortedTurns"];
	    }
	}
	export class ResultRow {
	    id: number;
	    sessionId: number;
	    project: string;
	    callId: string;
	    tool: string;
	    time: string;
	    isError: boolean;
	    textBytes: number;
	    images: number;
	    estimatedTokens: number;
	    tokens: number;
	    tokensExact: boolean;
	    noticeKind: string;
	    noticePath: string;
	    noticeFileExists: boolean;
	    noticeFileState: string;
	    file: string;
	    line: number;
	    cutBy: string;
	    cutOriginalTokens: number;
	    hasOriginal: boolean;
	
	    static createFrom(source: any = {}) {
	        return new ResultRow(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.sessionId = source["sessionId"];
	        this.project = source["project"];
	        this.callId = source["callId"];
	        this.tool = source["tool"];
	        this.time = source["time"];
	        this.isError = source["isError"];
	        this.textBytes = source["textBytes"];
	        this.images = source["images"];
	        this.estimatedTokens = source["estimatedTokens"];
	        this.tokens = source["tokens"];
	        this.tokensExact = source["tokensExact"];
	        this.noticeKind = source["noticeKind"];
	        this.noticePath = source["noticePath"];
	        this.noticeFileExists = source["noticeFileExists"];
	        this.noticeFileState = source["noticeFileState"];
	        this.file = source["file"];
	        this.line = source["line"];
	        this.cutBy = source["cutBy"];
	        this.cutOriginalTokens = source["cutOriginalTokens"];
	        this.hasOriginal = source["hasOriginal"];
	    }
	}
	export class ResultDetail {
	    row: ResultRow;
	    session: SessionRow;
	    blocks: BlockView[];
	    route: string;
	    estimator: string;
	    masked: number;
	    revealed: boolean;
	    replaced?: ReplacedView;
	    replayable: boolean;
	
	    static createFrom(source: any = {}) {
	        return new ResultDetail(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.row = this.convertValues(source["row"], ResultRow);
	        this.session = this.convertValues(source["session"], SessionRow);
	        this.blocks = this.convertValues(source["blocks"], BlockView);
	        this.route = source["route"];
	        this.estimator = source["estimator"];
	        this.masked = source["masked"];
	        this.revealed = source["revealed"];
	        this.replaced = this.convertValues(source["replaced"], ReplacedView);
	        this.replayable = source["replayable"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class ResultListQuery {
	    sessionId: number;
	    harnessSessionId: string;
	    order: string;
	
	    static createFrom(source: any = {}) {
	        return new ResultListQuery(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.sessionId = source["sessionId"];
	        this.harnessSessionId = source["harnessSessionId"];
	        this.order = source["order"];
	    }
	}
	export class ResultPage {
	    rows: ResultRow[];
	    total: number;
	
	    static createFrom(source: any = {}) {
	        return new ResultPage(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.rows = this.convertValues(source["rows"], ResultRow);
	        this.total = source["total"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class ResultQuery {
	    id: number;
	    reveal: boolean;
	    paged: boolean;
	
	    static createFrom(source: any = {}) {
	        return new ResultQuery(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.reveal = source["reveal"];
	        this.paged = source["paged"];
	    }
	}
	
	
	export class ResultsQuery {
	    sessionId: number;
	    order: string;
	    onlyNotices: boolean;
	    offset: number;
	    limit: number;
	
	    static createFrom(source: any = {}) {
	        return new ResultsQuery(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.sessionId = source["sessionId"];
	        this.order = source["order"];
	        this.onlyNotices = source["onlyNotices"];
	        this.offset = source["offset"];
	        this.limit = source["limit"];
	    }
	}
	export class RetainRequest {
	    resultId: number;
	    json: string;
	    policy: string;
	    budget?: number;
	    params: {[key: string]: string};
	    route: string;
	    estimator: string;
	    toolName: string;
	    reveal: boolean;
	    paged: boolean;
	
	    static createFrom(source: any = {}) {
	        return new RetainRequest(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.resultId = source["resultId"];
	        this.json = source["json"];
	        this.policy = source["policy"];
	        this.budget = source["budget"];
	        this.params = source["params"];
	        this.route = source["route"];
	        this.estimator = source["estimator"];
	        this.toolName = source["toolName"];
	        this.reveal = source["reveal"];
	        this.paged = source["paged"];
	    }
	}
	
	export class RootsView {
	    roots: Root[];
	    saved: Root[];
	    defaults: Root[];
	    fromEnv: boolean;
	
	    static createFrom(source: any = {}) {
	        return new RootsView(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.roots = this.convertValues(source["roots"], Root);
	        this.saved = this.convertValues(source["saved"], Root);
	        this.defaults = this.convertValues(source["defaults"], Root);
	        this.fromEnv = source["fromEnv"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class RouteInfo {
	    name: string;
	    provider: string;
	    estimator: string;
	    hasImages: boolean;
	    source: string;
	    note: string;
	    calculator: string;
	
	    static createFrom(source: any = {}) {
	        return new RouteInfo(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.name = source["name"];
	        this.provider = source["provider"];
	        this.estimator = source["estimator"];
	        this.hasImages = source["hasImages"];
	        this.source = source["source"];
	        this.note = source["note"];
	        this.calculator = source["calculator"];
	    }
	}
	export class SearchQuery {
	    query: string;
	    order: string;
	    offset: number;
	    limit: number;
	
	    static createFrom(source: any = {}) {
	        return new SearchQuery(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.query = source["query"];
	        this.order = source["order"];
	        this.offset = source["offset"];
	        this.limit = source["limit"];
	    }
	}
	export class SeriesRow {
	    slider: number;
	    budget: number;
	    results: number;
	    replaced: number;
	    noticeOnly: number;
	    preserved: number;
	    inlineTokens: number;
	    omittedBytes: number;
	    omittedImages: number;
	    yardstickTokens: number;
	    lostBytes: number;
	    lostLines: number;
	    lostImages: number;
	    inlineTokensLowerBound: boolean;
	    error?: string;
	
	    static createFrom(source: any = {}) {
	        return new SeriesRow(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.slider = source["slider"];
	        this.budget = source["budget"];
	        this.results = source["results"];
	        this.replaced = source["replaced"];
	        this.noticeOnly = source["noticeOnly"];
	        this.preserved = source["preserved"];
	        this.inlineTokens = source["inlineTokens"];
	        this.omittedBytes = source["omittedBytes"];
	        this.omittedImages = source["omittedImages"];
	        this.yardstickTokens = source["yardstickTokens"];
	        this.lostBytes = source["lostBytes"];
	        this.lostLines = source["lostLines"];
	        this.lostImages = source["lostImages"];
	        this.inlineTokensLowerBound = source["inlineTokensLowerBound"];
	        this.error = source["error"];
	    }
	}
	export class SessionPage {
	    rows: SessionRow[];
	    total: number;
	    sessions: number;
	
	    static createFrom(source: any = {}) {
	        return new SessionPage(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.rows = this.convertValues(source["rows"], SessionRow);
	        this.total = source["total"];
	        this.sessions = source["sessions"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class SessionQuery {
	    harness: string;
	    search: string;
	    order: string;
	    limit: number;
	    offset: number;
	
	    static createFrom(source: any = {}) {
	        return new SessionQuery(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.harness = source["harness"];
	        this.search = source["search"];
	        this.order = source["order"];
	        this.limit = source["limit"];
	        this.offset = source["offset"];
	    }
	}
	
	export class Settings {
	    language: string;
	    roots: string[];
	    defaults: Defaults;
	    last: Place;
	
	    static createFrom(source: any = {}) {
	        return new Settings(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.language = source["language"];
	        this.roots = source["roots"];
	        this.defaults = this.convertValues(source["defaults"], Defaults);
	        this.last = this.convertValues(source["last"], Place);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class Snippet {
	    id: number;
	    text: string;
	    masks: MaskSpan[];
	
	    static createFrom(source: any = {}) {
	        return new Snippet(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.text = source["text"];
	        this.masks = this.convertValues(source["masks"], MaskSpan);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class SnippetQuery {
	    query: string;
	    ids: number[];
	
	    static createFrom(source: any = {}) {
	        return new SnippetQuery(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.query = source["query"];
	        this.ids = source["ids"];
	    }
	}
	export class SpillQuery {
	    resultId: number;
	    offset: number;
	    limit: number;
	    reveal: boolean;
	
	    static createFrom(source: any = {}) {
	        return new SpillQuery(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.resultId = source["resultId"];
	        this.offset = source["offset"];
	        this.limit = source["limit"];
	        this.reveal = source["reveal"];
	    }
	}
	export class SweepCutsRequest {
	    resultId: number;
	    sessionId: number;
	    budget: number;
	    against?: number;
	    route: string;
	    policy: string;
	    params: {[key: string]: string};
	    estimator: string;
	    series: boolean;
	
	    static createFrom(source: any = {}) {
	        return new SweepCutsRequest(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.resultId = source["resultId"];
	        this.sessionId = source["sessionId"];
	        this.budget = source["budget"];
	        this.against = source["against"];
	        this.route = source["route"];
	        this.policy = source["policy"];
	        this.params = source["params"];
	        this.estimator = source["estimator"];
	        this.series = source["series"];
	    }
	}
	
	
	export class SweepRow {
	    budget: number;
	    results: number;
	    replaced: number;
	    noticeOnly: number;
	    preserved: number;
	    inlineTokens: number;
	    omittedBytes: number;
	    omittedImages: number;
	    inlineTokensLowerBound: boolean;
	
	    static createFrom(source: any = {}) {
	        return new SweepRow(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.budget = source["budget"];
	        this.results = source["results"];
	        this.replaced = source["replaced"];
	        this.noticeOnly = source["noticeOnly"];
	        this.preserved = source["preserved"];
	        this.inlineTokens = source["inlineTokens"];
	        this.omittedBytes = source["omittedBytes"];
	        this.omittedImages = source["omittedImages"];
	        this.inlineTokensLowerBound = source["inlineTokensLowerBound"];
	    }
	}
	export class SweepSeries {
	    policy: string;
	    estimator: string;
	    yardstick: string;
	    budgetParam: string;
	    budgetUnit: string;
	    rows: SeriesRow[];
	
	    static createFrom(source: any = {}) {
	        return new SweepSeries(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.policy = source["policy"];
	        this.estimator = source["estimator"];
	        this.yardstick = source["yardstick"];
	        this.budgetParam = source["budgetParam"];
	        this.budgetUnit = source["budgetUnit"];
	        this.rows = this.convertValues(source["rows"], SeriesRow);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	
	export class TextQuery {
	    resultId: number;
	    block: number;
	    offset: number;
	    reveal: boolean;
	    retain?: RetainRequest;
	    fileKey: string;
	
	    static createFrom(source: any = {}) {
	        return new TextQuery(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.resultId = source["resultId"];
	        this.block = source["block"];
	        this.offset = source["offset"];
	        this.reveal = source["reveal"];
	        this.retain = this.convertValues(source["retain"], RetainRequest);
	        this.fileKey = source["fileKey"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	
	export class TimelineCompaction {
	    kind: string;
	    at: string;
	    line: number;
	    endLine: number;
	    trigger: string;
	    tokensBefore: number;
	    tokensAfter: number;
	    call: number;
	    dropsAll: boolean;
	
	    static createFrom(source: any = {}) {
	        return new TimelineCompaction(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.kind = source["kind"];
	        this.at = source["at"];
	        this.line = source["line"];
	        this.endLine = source["endLine"];
	        this.trigger = source["trigger"];
	        this.tokensBefore = source["tokensBefore"];
	        this.tokensAfter = source["tokensAfter"];
	        this.call = source["call"];
	        this.dropsAll = source["dropsAll"];
	    }
	}
	export class TimelineCall {
	    at: string;
	    line: number;
	    input: number;
	    cacheRead: number;
	    cacheWrite: number;
	    output: number;
	    reasoning: number;
	    prompt: number;
	    model: string;
	    contextWindow: number;
	    carried: number;
	    carriedTokens: number;
	
	    static createFrom(source: any = {}) {
	        return new TimelineCall(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.at = source["at"];
	        this.line = source["line"];
	        this.input = source["input"];
	        this.cacheRead = source["cacheRead"];
	        this.cacheWrite = source["cacheWrite"];
	        this.output = source["output"];
	        this.reasoning = source["reasoning"];
	        this.prompt = source["prompt"];
	        this.model = source["model"];
	        this.contextWindow = source["contextWindow"];
	        this.carried = source["carried"];
	        this.carriedTokens = source["carriedTokens"];
	    }
	}
	export class TimelineLane {
	    sessionId: number;
	    agentId: string;
	    kind: string;
	    agentType: string;
	    agentDescription: string;
	    model: string;
	    started: string;
	    calls: TimelineCall[];
	    results: TimelineResult[];
	    compactions: TimelineCompaction[];
	    contextWindow: number;
	    contextWindowSource: string;
	    peak: number;
	    parentCall: number;
	
	    static createFrom(source: any = {}) {
	        return new TimelineLane(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.sessionId = source["sessionId"];
	        this.agentId = source["agentId"];
	        this.kind = source["kind"];
	        this.agentType = source["agentType"];
	        this.agentDescription = source["agentDescription"];
	        this.model = source["model"];
	        this.started = source["started"];
	        this.calls = this.convertValues(source["calls"], TimelineCall);
	        this.results = this.convertValues(source["results"], TimelineResult);
	        this.compactions = this.convertValues(source["compactions"], TimelineCompaction);
	        this.contextWindow = source["contextWindow"];
	        this.contextWindowSource = source["contextWindowSource"];
	        this.peak = source["peak"];
	        this.parentCall = source["parentCall"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class Timeline {
	    session: SessionRow;
	    lane: TimelineLane;
	    subagents: TimelineLane[];
	    calibration: Calibration;
	    estimator: string;
	
	    static createFrom(source: any = {}) {
	        return new Timeline(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.session = this.convertValues(source["session"], SessionRow);
	        this.lane = this.convertValues(source["lane"], TimelineLane);
	        this.subagents = this.convertValues(source["subagents"], TimelineLane);
	        this.calibration = this.convertValues(source["calibration"], Calibration);
	        this.estimator = source["estimator"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	
	
	
	

}

export namespace sessions {
	
	export class CutFigures {
	    budget: number;
	    status: string;
	    cut: boolean;
	    tokensAfter: number;
	    tokensAfterLowerBound?: boolean;
	    omittedBytes: number;
	    omittedImages: number;
	    lostBytes: number;
	    lostLines: number;
	    lostImages: number;
	    recoverable: boolean;
	
	    static createFrom(source: any = {}) {
	        return new CutFigures(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.budget = source["budget"];
	        this.status = source["status"];
	        this.cut = source["cut"];
	        this.tokensAfter = source["tokensAfter"];
	        this.tokensAfterLowerBound = source["tokensAfterLowerBound"];
	        this.omittedBytes = source["omittedBytes"];
	        this.omittedImages = source["omittedImages"];
	        this.lostBytes = source["lostBytes"];
	        this.lostLines = source["lostLines"];
	        this.lostImages = source["lostImages"];
	        this.recoverable = source["recoverable"];
	    }
	}
	export class SweepStats {
	    results: number;
	    summarised: number;
	    noSummary: number;
	    declined: number;
	
	    static createFrom(source: any = {}) {
	        return new SweepStats(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.results = source["results"];
	        this.summarised = source["summarised"];
	        this.noSummary = source["noSummary"];
	        this.declined = source["declined"];
	    }
	}
	export class CutRow {
	    resultId: number;
	    sessionRowId: number;
	    sessionId: string;
	    project: string;
	    toolName: string;
	    tokensBefore: number;
	    tokensBeforeExact: boolean;
	    at: CutFigures;
	    against?: CutFigures;
	    change?: string;
	
	    static createFrom(source: any = {}) {
	        return new CutRow(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.resultId = source["resultId"];
	        this.sessionRowId = source["sessionRowId"];
	        this.sessionId = source["sessionId"];
	        this.project = source["project"];
	        this.toolName = source["toolName"];
	        this.tokensBefore = source["tokensBefore"];
	        this.tokensBeforeExact = source["tokensBeforeExact"];
	        this.at = this.convertValues(source["at"], CutFigures);
	        this.against = this.convertValues(source["against"], CutFigures);
	        this.change = source["change"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class CutList {
	    policy: string;
	    budget: number;
	    against?: number;
	    unit: string;
	    estimator: string;
	    results: number;
	    rows: CutRow[];
	    only: number;
	    stats: SweepStats;
	
	    static createFrom(source: any = {}) {
	        return new CutList(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.policy = source["policy"];
	        this.budget = source["budget"];
	        this.against = source["against"];
	        this.unit = source["unit"];
	        this.estimator = source["estimator"];
	        this.results = source["results"];
	        this.rows = this.convertValues(source["rows"], CutRow);
	        this.only = source["only"];
	        this.stats = this.convertValues(source["stats"], SweepStats);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	

}

