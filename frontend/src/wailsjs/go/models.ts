export namespace app {
	
	export class BlockView {
	    index: number;
	    kind: string;
	    text: string;
	    textBytes: number;
	    truncated: boolean;
	    cut: string;
	    imageUrl: string;
	    path: string;
	    mimeType: string;
	    width: number;
	    height: number;
	    notForModel: boolean;
	    reason: string;
	    parameter: string;
	    tokens: number;
	
	    static createFrom(source: any = {}) {
	        return new BlockView(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.index = source["index"];
	        this.kind = source["kind"];
	        this.text = source["text"];
	        this.textBytes = source["textBytes"];
	        this.truncated = source["truncated"];
	        this.cut = source["cut"];
	        this.imageUrl = source["imageUrl"];
	        this.path = source["path"];
	        this.mimeType = source["mimeType"];
	        this.width = source["width"];
	        this.height = source["height"];
	        this.notForModel = source["notForModel"];
	        this.reason = source["reason"];
	        this.parameter = source["parameter"];
	        this.tokens = source["tokens"];
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
	export class Diagnostic {
	    file: string;
	    line: number;
	    message: string;
	
	    static createFrom(source: any = {}) {
	        return new Diagnostic(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.file = source["file"];
	        this.line = source["line"];
	        this.message = source["message"];
	    }
	}
	export class FileSlice {
	    path: string;
	    exists: boolean;
	    size: number;
	    offset: number;
	    text: string;
	    eof: boolean;
	
	    static createFrom(source: any = {}) {
	        return new FileSlice(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.path = source["path"];
	        this.exists = source["exists"];
	        this.size = source["size"];
	        this.offset = source["offset"];
	        this.text = source["text"];
	        this.eof = source["eof"];
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
	    }
	}
	export class Root {
	    harness: string;
	    path: string;
	    exists: boolean;
	
	    static createFrom(source: any = {}) {
	        return new Root(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.harness = source["harness"];
	        this.path = source["path"];
	        this.exists = source["exists"];
	    }
	}
	export class Info {
	    version: string;
	    platform: string;
	    dataDir: string;
	    roots: Root[];
	
	    static createFrom(source: any = {}) {
	        return new Info(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.version = source["version"];
	        this.platform = source["platform"];
	        this.dataDir = source["dataDir"];
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
	export class LinkQuery {
	    onlyHidden: boolean;
	    limit: number;
	    offset: number;
	
	    static createFrom(source: any = {}) {
	        return new LinkQuery(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.onlyHidden = source["onlyHidden"];
	        this.limit = source["limit"];
	        this.offset = source["offset"];
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
	    tool: string;
	    project: string;
	    file: string;
	    sourceLine: number;
	
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
	        this.tool = source["tool"];
	        this.project = source["project"];
	        this.file = source["file"];
	        this.sourceLine = source["sourceLine"];
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
	
	    static createFrom(source: any = {}) {
	        return new SessionRow(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.harness = source["harness"];
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
	    file: string;
	    line: number;
	
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
	        this.file = source["file"];
	        this.line = source["line"];
	    }
	}
	export class ResultDetail {
	    row: ResultRow;
	    session: SessionRow;
	    blocks: BlockView[];
	    route: string;
	    estimator: string;
	
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
	
	export class RetainRequest {
	    resultId: number;
	    json: string;
	    policy: string;
	    budget?: number;
	    params: {[key: string]: string};
	    route: string;
	    estimator: string;
	    toolName: string;
	
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
	
	    static createFrom(source: any = {}) {
	        return new SearchQuery(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.query = source["query"];
	        this.order = source["order"];
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
	
	    static createFrom(source: any = {}) {
	        return new Settings(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.language = source["language"];
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

}

