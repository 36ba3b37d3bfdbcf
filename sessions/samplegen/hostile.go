package samplegen

import (
	"encoding/base64"
	"fmt"
	"math/rand/v2"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// HostileOptions controls GenerateHostile. The zero value writes the
// default hostile corpus, huge parts included, with no extra sessions.
type HostileOptions struct {
	Seed int64
	// Sessions adds this many small sessions beside the hostile ones (10,000
	// for the list-scale case); each holds a credential from the same
	// families, so a list of them is hostile too.
	Sessions int
	// HugeLineBytes is the size of each of the two single-line results: one
	// transcript line, and one line of text inside it. 0 means 50 MB; a
	// negative value writes none.
	HugeLineBytes int
	// SparseBytes is the size of the sparse spill file (made with Truncate,
	// so only a few pages are written). 0 means 2 GB; negative writes none.
	SparseBytes int64
	// Images is the number of images in the many-images result; 0 means 200.
	Images int
}

// Defaults of HostileOptions.
const (
	DefaultHugeLineBytes = 50 << 20
	DefaultSparseBytes   = 2 << 30
	DefaultHostileImages = 200
)

// HostileManifest is what GenerateHostile planted, so tests can assert
// what must never happen.
type HostileManifest struct {
	// Secrets are every credential value planted, in every family and
	// spelling the link rules know. None may reach the screen, a log, the
	// index or a copy unless the user reveals a result's credentials.
	Secrets []string `json:"secrets"`
	// SecretsBySpelling groups Secrets by how the text writes them.
	SecretsBySpelling map[string][]string `json:"secretsBySpelling"`
	// Unrecognised are values the link rules do not recognise, written as
	// LINKS.md's known limits describe (a name not on the list, a token in
	// a path): they are shown, as the app's help says.
	Unrecognised []string `json:"unrecognised"`
	// ForgedPaths are the paths forged spill notices name; none may be read.
	ForgedPaths []string `json:"forgedPaths"`
	// ForeignMarker is text only the other session's spill file holds: a
	// view of the hostile session that shows it read a file it must not.
	ForeignMarker string `json:"foreignMarker"`
	// ScriptMarkers are script and HTML snippets written into results; the
	// window must show them as text and never run them.
	ScriptMarkers []string `json:"scriptMarkers"`
	// Tools names the hostile results by their tool name, for tests to find.
	Tools map[string]string `json:"tools"`
	// PageCrossing is a secret written across the 64 KiB page boundary of a
	// spill file (so paging must mask it on both sides).
	PageCrossing string `json:"pageCrossing"`
	Sessions     int    `json:"sessions"`
	ToolResults  int    `json:"toolResults"`
	Images       int    `json:"images"`
	HugeLines    int    `json:"hugeLines"`
	SparseBytes  int64  `json:"sparseBytes"`
	// SparsePath is the sparse spill file, relative to the corpus folder.
	SparsePath string `json:"sparsePath"`
	AllFiles   int    `json:"allFiles"`
	// Bytes counts the bytes written (the sparse file's holes excluded).
	Bytes int64 `json:"bytes"`
}

// Tool names of the hostile results (HostileManifest.Tools keys them).
const (
	HostileToolCredentials = "mcp__hostile__credentials"
	HostileToolLinks       = "mcp__hostile__resource_links"
	HostileToolScript      = "mcp__hostile__script_text"
	HostileToolImages      = "mcp__hostile__two_hundred_images"
	HostileToolHuge        = "mcp__hostile__huge_line"
	HostileToolSparse      = "mcp__hostile__sparse_spill"
	HostileToolSpill       = "mcp__hostile__spilled_credentials"
	HostileToolForged      = "mcp__hostile__forged_notice"
)

// credFamily is one family of the credential list with a signed link of
// its shape; %s stands for the planted value of its main parameter.
type credFamily struct {
	code, param, url string
}

// hostileFamilies covers every family LINKS.md names. Each URL carries one
// planted value (in param); the rest of the link is signed metadata.
var hostileFamilies = []credFamily{
	{"A4", "X-Amz-Signature", "https://hostile-bucket.s3.us-east-1.amazonaws.com/k/report.csv?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Date=20260302T091500Z&X-Amz-Expires=900&X-Amz-SignedHeaders=host&X-Amz-Signature=%s"},
	{"A2", "Signature", "https://hostile-bucket.s3.amazonaws.com/k/report.csv?AWSAccessKeyId=AKIAHOSTILEEXAMPLE00&Expires=1767225600&Signature=%s"},
	{"G4", "X-Goog-Signature", "https://storage.googleapis.com/hostile-bucket/shot.png?X-Goog-Algorithm=GOOG4-RSA-SHA256&X-Goog-Date=20260302T091500Z&X-Goog-Expires=900&X-Goog-Signature=%s"},
	{"G2", "Signature", "https://storage.googleapis.com/hostile-bucket/shot.png?GoogleAccessId=sa%%40hostile.iam.gserviceaccount.com&Expires=1767225600&Signature=%s"},
	{"AZ", "sig", "https://hostileacct.blob.core.windows.net/logs/build.log?sv=2024-11-04&se=2026-03-03T00:00:00Z&sp=r&sr=b&sig=%s"},
	{"CF", "Signature", "https://d111111abcdef8.cloudfront.net/video.mp4?Expires=1767225600&Key-Pair-Id=K2JCJMDEHXQW5F&Signature=%s"},
	{"DC", "hm", "https://cdn.discordapp.com/attachments/1/2/log.txt?ex=67a1b2c3&is=67a06143&hm=%s&"},
	{"B2", "Authorization", "https://f002.backblazeb2.com/file/hostile-bucket/dump.sql?Authorization=%s"},
	{"O2", "access_token", "https://app.hostile.example/oauth/callback#access_token=%s&token_type=Bearer&expires_in=3600"},
	{"O1", "oauth_signature", "https://api.hostile.example/1.1/statuses.json?oauth_consumer_key=ck&oauth_nonce=n1&oauth_signature_method=HMAC-SHA1&oauth_signature=%s"},
	{"GE", "api_key", "https://api.hostile.example/v2/search?q=build&api_key=%s"},
	{"SE", "jsessionid", "https://portal.hostile.example/app;jsessionid=%s?page=2"},
	{"FR", "token", "https://app.hostile.example/#/reset?token=%s"},
}

// spellings write a family's URL (with its value planted) the ways tool
// output carries it.
var hostileSpellings = []struct {
	code string
	put  func(u string) string
}{
	{"plain", func(u string) string { return "fetched " + u + " ok" }},
	{"markdown", func(u string) string { return "the [artifact](" + u + ") is ready" }},
	{"json-escaped", func(u string) string {
		return `{"url":"` + strings.NewReplacer("/", `\/`, "&", `\u0026`).Replace(u) + `","ok":true}`
	}},
	{"doubly-json-escaped", func(u string) string {
		return `"{\"url\":\"` + strings.NewReplacer("/", `\\/`, "&", `\\u0026`).Replace(u) + `\"}"`
	}},
	{"percent-encoded", func(u string) string { return "redirect=" + url.QueryEscape(u) + " (encoded)" }},
	{"shell", func(u string) string {
		return `$ curl -sSL ` + strings.NewReplacer("&", `\&`, ";", `\;`).Replace(u) + ` -o out`
	}},
}

// GenerateHostile writes a corpus built to break a review app under dir
// (created if missing; it must be empty): forged spill notices naming files
// outside every root, credentials of every family in every spelling with
// known values, script and HTML text, a result of many images, huge single
// lines, a sparse multi-gigabyte spill file and, on request, thousands of
// sessions. Everything is derived from opts.Seed.
func GenerateHostile(dir string, opts HostileOptions) (HostileManifest, error) {
	if opts.Sessions < 0 || opts.Images < 0 {
		return HostileManifest{}, fmt.Errorf("%w: sessions %d and images %d must not be negative", ErrOptions, opts.Sessions, opts.Images)
	}
	if opts.HugeLineBytes == 0 {
		opts.HugeLineBytes = DefaultHugeLineBytes
	}
	if opts.SparseBytes == 0 {
		opts.SparseBytes = DefaultSparseBytes
	}
	if opts.Images == 0 {
		opts.Images = DefaultHostileImages
	}
	if err := prepareDir(dir); err != nil {
		return HostileManifest{}, err
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return HostileManifest{}, fmt.Errorf("samplegen: %s: %w", dir, err)
	}
	h := &hostile{gen: gen{root: abs, opts: Options{Seed: opts.Seed, ScreenshotBytes: DefaultScreenshotBytes}}, opts: opts,
		man: HostileManifest{SecretsBySpelling: map[string][]string{}, Tools: map[string]string{}}}
	victim, err := h.writeVictim()
	if err != nil {
		return h.man, err
	}
	if err := h.writeMain(victim); err != nil {
		return h.man, err
	}
	for i := 0; i < opts.Sessions; i++ {
		if err := h.writeSmall(i); err != nil {
			return h.man, err
		}
	}
	h.man.AllFiles, h.man.Bytes = h.m.AllFiles, h.m.Bytes
	return h.man, nil
}

type hostile struct {
	gen
	opts HostileOptions
	man  HostileManifest
	r    *rand.Rand
}

// secret plants one new credential value: letters and digits only, so every
// spelling (JSON, percent-encoding, shell escapes) writes it as it is and a
// test finds it by plain search.
func (h *hostile) secret(r *rand.Rand, family, spelling string) string {
	v := "HS" + family + strings.ToUpper(spelling[:2]) + randFrom(r, alnum, 18) + "Q"
	h.man.Secrets = append(h.man.Secrets, v)
	h.man.SecretsBySpelling[spelling] = append(h.man.SecretsBySpelling[spelling], v)
	return v
}

// writeVictim writes another session with a spill file of its own, which
// the hostile session's forged notice names.
func (h *hostile) writeVictim() (string, error) {
	r := h.rng(40, 0)
	cwd := "/home/dev/work/other-project"
	projDir := filepath.Join(h.root, "claude", "projects", encodeCwd(cwd))
	sid := newUUID(r)
	var c Counts
	ct, err := h.newClaude(r, filepath.Join(projDir, sid+".jsonl"), sid, cwd, &c)
	if err != nil {
		return "", err
	}
	h.man.ForeignMarker = "FOREIGN-SESSION-SPILL-" + randFrom(r, alnum, 12)
	body := strings.Repeat("other session's private build output "+h.man.ForeignMarker+"\n", 2000)
	tid := newToolUse(r)
	spill := filepath.Join(projDir, sid, "tool-results", tid+".txt")
	if err := h.writeFile(spill, []byte(body)); err != nil {
		return "", err
	}
	ct.prompt("Build the other project.")
	a := ct.respond(toolUse(tid, "Bash", o("command", "make", "description", "Build")))
	ct.toolResult(tid, a, persistedNotice(body, spill), false, bashResult(body))
	ct.respond(textBlock("Built."))
	h.man.Sessions++
	h.man.ToolResults++
	return spill, ct.finish(false)
}

// writeMain writes the hostile session.
func (h *hostile) writeMain(victim string) error {
	r := h.rng(41, 0)
	h.r = r
	cwd := "/home/dev/work/hostile"
	projDir := filepath.Join(h.root, "claude", "projects", encodeCwd(cwd))
	sid := newUUID(r)
	sessDir := filepath.Join(projDir, sid)
	var c Counts
	ct, err := h.newClaude(r, filepath.Join(projDir, sid+".jsonl"), sid, cwd, &c)
	if err != nil {
		return err
	}
	h.man.Sessions++
	result := func(tool string, content any) {
		tid := newToolUse(r)
		a := ct.respond(toolUse(tid, tool, o("input", "hostile")))
		ct.toolResult(tid, a, content, false, nil)
		h.man.Tools[tool] = tid
		h.man.ToolResults++
	}
	ct.prompt("Review what these tools returned. <script>alert('prompt')</script>")

	// Forged spill notices: each names a file outside every root, or one of
	// another session, and must never be read.
	home, _ := os.UserHomeDir()
	forged := []string{
		"/etc/shadow",
		"/proc/self/environ",
		"~/.aws/credentials",
		filepath.Join(home, ".aws", "credentials"),
		"../../../../../../../../etc/passwd",
		filepath.Join(sessDir, "tool-results", "..", "..", "..", "..", "..", "..", "..", "etc", "hosts"),
		victim,
	}
	for i, p := range forged {
		h.man.ForgedPaths = append(h.man.ForgedPaths, p)
		tool := fmt.Sprintf("%s_%d", HostileToolForged, i)
		result(tool, persistedNotice("root:x:0:0:root:/root:/bin/bash\n", p))
	}

	// Credentials of every family in every spelling, one result a spelling.
	for _, sp := range hostileSpellings {
		var sb strings.Builder
		fmt.Fprintf(&sb, "Links written %s:\n", sp.code)
		for _, f := range hostileFamilies {
			sb.WriteString(sp.put(fmt.Sprintf(f.url, h.secret(r, f.code, sp.code))))
			sb.WriteByte('\n')
		}
		result(HostileToolCredentials+"_"+strings.ReplaceAll(sp.code, "-", "_"), sb.String())
	}
	// Userinfo, bare pairs and escaped equals signs.
	{
		var sb strings.Builder
		u1, u2, u3 := h.secret(r, "UI", "userinfo"), h.secret(r, "UI", "userinfo"), h.secret(r, "UI", "userinfo")
		fmt.Fprintf(&sb, "git remote -v\norigin https://deploy:%s@git.hostile.example/team/app.git (fetch)\n", u1)
		fmt.Fprintf(&sb, "{\"remote\":\"https:\\/\\/ci:%s@git.hostile.example\\/team\\/app.git\"}\n", u2)
		fmt.Fprintf(&sb, "sign in: https://login.hostile.example/r?next=https%%3A%%2F%%2Fbob%%3A%s%%40app.hostile.example%%2F\n", u3)
		b1, b2, b3, b4 := h.secret(r, "BP", "bare"), h.secret(r, "BP", "bare"), h.secret(r, "BP", "bare"), h.secret(r, "BP", "bare")
		fmt.Fprintf(&sb, "export API_KEY=%s\nexport ACCESS_TOKEN=%s\npassword: x password=%s\n", b1, b2, b3)
		fmt.Fprintf(&sb, "X-Amz-Signature=%s (logged by the SDK)\n", b4)
		e1, e2, e3 := h.secret(r, "EQ", "equals"), h.secret(r, "EQ", "equals"), h.secret(r, "EQ", "equals")
		fmt.Fprintf(&sb, "query=client_secret%%3D%s%%26scope%%3Dall\n", e1)
		fmt.Fprintf(&sb, "{\"q\":\"refresh_token\\u003d%s\\u0026x=1\"}\n", e2)
		fmt.Fprintf(&sb, "\"code\\\\u003d%s\\\\u0026state=s\"\n", e3)
		// LINKS.md's known limits: a name not on the list, a token in a
		// path. These show, as the app's help says.
		k1, k2 := "UNLISTED"+randFrom(r, alnum, 18), "INPATH"+randFrom(r, alnum, 18)
		h.man.Unrecognised = append(h.man.Unrecognised, k1, k2)
		fmt.Fprintf(&sb, "export AWS_SECRET_ACCESS_KEY=%s\nhook https://discord.com/api/webhooks/123/%s\n", k1, k2)
		result(HostileToolCredentials+"_userinfo_and_pairs", sb.String())
	}
	// resource_link blocks of every family: stubs, never their URIs.
	{
		blocks := []any{textBlock("Artifacts:")}
		for _, f := range hostileFamilies {
			blocks = append(blocks, o("type", "resource_link", "uri", fmt.Sprintf(f.url, h.secret(r, f.code, "resource-link")), "name", f.code+".bin"))
		}
		blocks = append(blocks, o("type", "resource_link", "uri", "https://u:"+h.secret(r, "UI", "resource-link")+"@h.hostile.example/x", "name", "userinfo.bin"))
		blocks = append(blocks, o("type", "resource_link", "uri", "https://docs.hostile.example/guide#token", "name", "docs"))
		result(HostileToolLinks, blocks)
	}
	// Script and HTML text: shown as text, never run.
	h.man.ScriptMarkers = []string{
		"<script>window.__hostile=1;alert('script')</script>",
		`<img src=x onerror="window.__hostile=2;alert('img')">`,
		"[click me](javascript:window.__hostile=3)",
		`<a href="javascript:alert('a')">link</a>`,
		`</pre></li></ol><h1 id="forged-heading">forged</h1><iframe src="https://evil.hostile.example/"></iframe>`,
		"<svg onload=\"window.__hostile=4\"></svg>",
		"{{constructor.constructor('window.__hostile=5')()}}",
		"\u202eevil\u202c \u2028forged line\u2029 \x1b[31mred\x1b[0m",
	}
	result(HostileToolScript, []any{textBlock(strings.Join(h.man.ScriptMarkers, "\n")),
		o("type", "resource_link", "uri", "javascript:alert('link')", "name", "<script>alert('name')</script>")})

	// A result of many images.
	{
		blocks := []any{textBlock(fmt.Sprintf("%d screenshots follow.", h.opts.Images))}
		for i := 0; i < h.opts.Images; i++ {
			png, _, _, err := screenshot(r, 1<<10)
			if err != nil {
				return err
			}
			blocks = append(blocks, claudeImage(base64.StdEncoding.EncodeToString(png)))
		}
		result(HostileToolImages, blocks)
		h.man.Images += h.opts.Images
	}

	// A spilled result whose file holds credentials, one across the first
	// 64 KiB page boundary.
	{
		tid := newToolUse(r)
		spill := filepath.Join(sessDir, "tool-results", tid+".txt")
		var sb strings.Builder
		logs := genText(r, kindLog, 60<<10)
		sb.WriteString(logs[:strings.LastIndexByte(logs[:60<<10], '\n')+1])
		h.man.PageCrossing = h.secret(r, "PC", "page-crossing")
		prefix := "GET https://hostile-bucket.s3.amazonaws.com/k?X-Amz-Date=1&X-Amz-Signature="
		for sb.Len()+len(prefix)+len(h.man.PageCrossing)/2 < 64<<10 {
			sb.WriteString("pad ")
		}
		sb.WriteString(prefix + h.man.PageCrossing + "&x=1 200\n")
		for _, f := range hostileFamilies {
			sb.WriteString("later " + fmt.Sprintf(f.url, h.secret(r, f.code, "spill-file")) + "\n")
			sb.WriteString(genText(r, kindLog, 8<<10))
		}
		body := sb.String()
		if err := h.writeFile(spill, []byte(body)); err != nil {
			return err
		}
		a := ct.respond(toolUse(tid, HostileToolSpill, o("input", "hostile")))
		ct.toolResult(tid, a, persistedNotice(body, spill), false, nil)
		h.man.Tools[HostileToolSpill] = tid
		h.man.ToolResults++
	}

	// A sparse spill file: gigabytes long, a few pages written.
	if h.opts.SparseBytes > 0 {
		tid := newToolUse(r)
		spill := filepath.Join(sessDir, "tool-results", tid+".txt")
		head := "sparse spill head " + fmt.Sprintf(hostileFamilies[0].url, h.secret(r, "SP", "sparse")) + "\n"
		mid := "sparse spill middle " + fmt.Sprintf(hostileFamilies[8].url, h.secret(r, "SP", "sparse")) + "\n"
		if err := h.writeSparse(spill, h.opts.SparseBytes, head, mid); err != nil {
			return err
		}
		a := ct.respond(toolUse(tid, HostileToolSparse, o("input", "hostile")))
		ct.toolResult(tid, a, persistedNotice(head, spill), false, nil)
		h.man.Tools[HostileToolSparse] = tid
		h.man.ToolResults++
		h.man.SparseBytes = h.opts.SparseBytes
		h.man.SparsePath = h.rel(spill)
	}

	// Huge single lines: a transcript line of HugeLineBytes holding one line
	// of text, with credentials at its start, middle and end; once as a
	// string result and once as a content array.
	if h.opts.HugeLineBytes > 0 {
		for i, tool := range []string{HostileToolHuge + "_string", HostileToolHuge + "_blocks"} {
			text := h.hugeLine(r, h.opts.HugeLineBytes)
			if i == 0 {
				result(tool, text)
			} else {
				result(tool, []any{textBlock(text)})
			}
			h.man.HugeLines++
		}
	}

	ct.respond(textBlock("Done reviewing."))
	return ct.finish(false)
}

// hugeLine is about n bytes of log words on one line (no line break), with
// a credential URL at its start, middle and end.
func (h *hostile) hugeLine(r *rand.Rand, n int) string {
	var sb strings.Builder
	sb.Grow(n + 512)
	words := strings.Fields("request done status=200 bytes=1234 path=/api/v1/items page=3 user=alice cache=hit latency_ms=12 region=eu-west-1 retry=0")
	plant := func(f credFamily) {
		sb.WriteString(" " + fmt.Sprintf(f.url, h.secret(r, f.code, "huge-line")) + " ")
	}
	plant(hostileFamilies[0])
	for sb.Len() < n/2 {
		sb.WriteString(words[r.IntN(len(words))])
		sb.WriteByte(' ')
	}
	plant(hostileFamilies[4])
	for sb.Len() < n-256 {
		sb.WriteString(words[r.IntN(len(words))])
		sb.WriteByte(' ')
	}
	plant(hostileFamilies[8])
	return sb.String()
}

// writeSparse makes a file of size bytes by truncation, with head written
// at its start and mid at its middle; the rest are holes.
func (h *hostile) writeSparse(path string, size int64, head, mid string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("samplegen: %w", err)
	}
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("samplegen: %w", err)
	}
	_, err = f.WriteAt([]byte(head), 0)
	if err == nil {
		_, err = f.WriteAt([]byte(mid), size/2)
	}
	if err == nil {
		err = f.Truncate(size)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("samplegen: sparse file %s: %w", path, err)
	}
	h.m.AllFiles++
	h.m.Bytes += int64(len(head) + len(mid))
	return nil
}

// writeSmall writes one of the many small sessions: a prompt, a tool result
// holding a credential link, an answer.
func (h *hostile) writeSmall(i int) error {
	r := h.rng(42, i)
	cwd := fmt.Sprintf("/home/dev/many/project-%03d", i%100)
	projDir := filepath.Join(h.root, "claude", "projects", encodeCwd(cwd))
	sid := newUUID(r)
	var c Counts
	ct, err := h.newClaude(r, filepath.Join(projDir, sid+".jsonl"), sid, cwd, &c)
	if err != nil {
		return err
	}
	ct.t = baseTime.Add(time.Duration(i) * time.Minute)
	ct.prompt(fmt.Sprintf("Task %d: check the artifact.", i))
	tid := newToolUse(r)
	a := ct.respond(toolUse(tid, "Bash", o("command", "curl -sI $ARTIFACT", "description", "Check the artifact")))
	f := hostileFamilies[i%len(hostileFamilies)]
	out := fmt.Sprintf("HTTP/2 200\nlocation: %s\n%s", fmt.Sprintf(f.url, h.secret(r, f.code, "many-sessions")), genText(r, kindLog, 512))
	ct.toolResult(tid, a, out, false, bashResult(out))
	ct.respond(textBlock("The artifact is there."))
	h.man.Sessions++
	h.man.ToolResults++
	return ct.finish(false)
}
