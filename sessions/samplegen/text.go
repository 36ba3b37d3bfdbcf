package samplegen

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"time"
)

// The text below is invented for the corpus: enough variety (logs, code, JSON,
// prose in several scripts, emoji) that tokenizers, full-text search and
// UTF-8 cut points meet what real tool output holds.

var (
	logLevels   = []string{"INFO ", "INFO ", "INFO ", "DEBUG", "WARN ", "ERROR"}
	logServices = []string{"api", "worker-1", "worker-2", "scheduler", "indexer", "auth", "billing", "gateway"}
	logPaths    = []string{"/api/v1/items", "/api/v1/items/4411", "/healthz", "/api/v2/search", "/login", "/static/app.js", "/api/v1/reports?page=2", "/metrics"}
	logMethods  = []string{"GET", "GET", "GET", "POST", "PUT", "DELETE"}
	logStatus   = []int{200, 200, 200, 201, 204, 304, 400, 404, 500, 503}
	logMessages = []string{
		"cache miss for key user:%d:profile",
		"retrying upstream call (attempt %d of 5)",
		"flushed %d rows to segment store",
		"connection pool exhausted, waiting %dms",
		"compacted %d segments into 1",
		"slow query took %dms: SELECT id, name FROM projects WHERE owner_id = $1",
		"websocket closed by peer after %ds",
		"scheduled job nightly-report finished in %dms",
	}
	identWords = []string{"index", "session", "result", "block", "budget", "token", "image", "notice", "spill", "reader", "writer", "cursor", "offset", "buffer", "record", "store", "batch", "entry", "route", "price"}
	goTypes    = []string{"int", "int64", "string", "[]byte", "error", "bool", "time.Duration", "*Store", "[]Entry", "map[string]int"}
	proseWords = strings.Fields(`the indexer reads each session file once and records where every tool result
begins so the viewer can show it later without keeping a second copy of the text a budget decides how much of
a large result the model sees and the rest is written to a file that the model can read with offset and limit
images are priced by their dimensions while text is estimated with a tokenizer that runs offline reviewers want
to know which results were cut which files still exist and how many tokens each decision saved over a week of work`)
	cjkSentences = []string{
		"索引器只读取每个会话文件一次，并记录每个工具结果的位置。",
		"超出预算的输出会被截断，完整结果写入溢出文件。",
		"图片按照像素尺寸计价，文本由离线分词器估算。",
		"セッションファイルは一行ずつ読み込まれ、壊れた行は診断として記録されます。",
		"トークン予算を超えた結果は先頭と末尾だけが残ります。",
		"도구 결과가 너무 크면 전체 출력이 파일에 저장됩니다.",
		"Ключ доступа никогда не записывается в индекс.",
	}
	emoji = []string{"✅", "🚀", "⚠️", "🔥", "📦", "🧪", "👍🏽", "👨‍💻", "🇯🇵", "❌"}
)

// textKind names a generator of realistic text.
type textKind int

const (
	kindLog textKind = iota
	kindCode
	kindJSON
	kindProse
	kindMixed
)

// genText returns about n bytes (never fewer, at most one line more) of
// text of the given kind. Output is valid UTF-8 and cut only at line ends.
func genText(r *rand.Rand, kind textKind, n int) string {
	var sb strings.Builder
	sb.Grow(n + 256)
	t := baseTime.Add(time.Duration(r.IntN(3600)) * time.Second)
	for sb.Len() < n {
		k := kind
		if kind == kindMixed {
			k = textKind(r.IntN(4))
			fmt.Fprintf(&sb, "\n===== section %d =====\n", sb.Len())
		}
		switch k {
		case kindLog:
			t = writeLogs(&sb, r, t, 20+r.IntN(60))
		case kindCode:
			writeCode(&sb, r, 2+r.IntN(4))
		case kindJSON:
			writeJSONDoc(&sb, r, 5+r.IntN(20))
		default:
			writeProse(&sb, r, 3+r.IntN(6))
		}
	}
	return sb.String()
}

func writeLogs(sb *strings.Builder, r *rand.Rand, t time.Time, lines int) time.Time {
	for i := 0; i < lines; i++ {
		t = t.Add(time.Duration(r.IntN(900)) * time.Millisecond)
		lvl := logLevels[r.IntN(len(logLevels))]
		svc := logServices[r.IntN(len(logServices))]
		switch r.IntN(4) {
		case 0:
			fmt.Fprintf(sb, "%s %s [%s] %s\n", isoMillis(t), lvl, svc, fmt.Sprintf(logMessages[r.IntN(len(logMessages))], r.IntN(5000)))
		case 1:
			fmt.Fprintf(sb, "\x1b[90m%s\x1b[0m \x1b[32m%s\x1b[0m %s %s %d %dms request_id=%s\n",
				t.Format("15:04:05.000"), svc, logMethods[r.IntN(len(logMethods))], logPaths[r.IntN(len(logPaths))],
				logStatus[r.IntN(len(logStatus))], r.IntN(800), newHex(r, 16))
		case 2:
			if lvl == "ERROR" {
				fmt.Fprintf(sb, "%s ERROR [%s] panic recovered: runtime error: index out of range [%d] with length %d\n", isoMillis(t), svc, r.IntN(9)+1, r.IntN(1))
				for d := 0; d < 4+r.IntN(6); d++ {
					fmt.Fprintf(sb, "\tgithub.com/example/app/internal/%s.(*%s).%s(...)\n\t\t/src/internal/%s/%s.go:%d +0x%x\n",
						pick(r, identWords), title(pick(r, identWords)), title(pick(r, identWords)), pick(r, identWords), pick(r, identWords), 10+r.IntN(900), r.IntN(4096))
				}
				continue
			}
			fmt.Fprintf(sb, "%s %s [%s] %s %s\n", isoMillis(t), lvl, svc, pick(r, cjkSentences), pick(r, emoji))
		default:
			fmt.Fprintf(sb, "%s %s [%s] processed batch=%d items=%d bytes=%d elapsed=%s\n", isoMillis(t), lvl, svc, r.IntN(100000), r.IntN(500), r.IntN(1<<20), time.Duration(r.IntN(5e9)))
		}
	}
	return t
}

func writeCode(sb *strings.Builder, r *rand.Rand, funcs int) {
	pkg := pick(r, identWords)
	fmt.Fprintf(sb, "package %s\n\nimport (\n\t\"errors\"\n\t\"fmt\"\n\t\"io\"\n)\n\n", pkg)
	for f := 0; f < funcs; f++ {
		name := title(pick(r, identWords)) + title(pick(r, identWords))
		fmt.Fprintf(sb, "// %s %s the %s of one %s; it returns an error when the %s is closed.\n", name, pick(r, proseWords), pick(r, identWords), pick(r, identWords), pick(r, identWords))
		fmt.Fprintf(sb, "func (s *%s) %s(ctx context.Context, %s %s) (%s, error) {\n", title(pick(r, identWords)), name, pick(r, identWords), pick(r, goTypes), pick(r, goTypes))
		for l := 0; l < 3+r.IntN(8); l++ {
			v := pick(r, identWords)
			switch r.IntN(4) {
			case 0:
				fmt.Fprintf(sb, "\tif %s == nil {\n\t\treturn nil, fmt.Errorf(\"%s: %%w\", errors.New(\"%s missing\"))\n\t}\n", v, pkg, v)
			case 1:
				fmt.Fprintf(sb, "\tfor i := 0; i < len(s.%ss); i++ {\n\t\ts.%s += s.%ss[i].%s\n\t}\n", v, pick(r, identWords), v, title(pick(r, identWords)))
			case 2:
				fmt.Fprintf(sb, "\t%s, err := s.%s.Read(ctx, %d) // %s\n\tif err != nil && !errors.Is(err, io.EOF) {\n\t\treturn nil, err\n\t}\n", v, pick(r, identWords), r.IntN(4096), pick(r, cjkSentences))
			default:
				fmt.Fprintf(sb, "\ts.%s = append(s.%s, %s{%s: %d})\n", v, v, title(v), title(pick(r, identWords)), r.IntN(100))
			}
		}
		fmt.Fprintf(sb, "\treturn %s, nil\n}\n\n", pick(r, identWords))
	}
}

func writeJSONDoc(sb *strings.Builder, r *rand.Rand, items int) {
	sb.WriteString("[\n")
	for i := 0; i < items; i++ {
		if i > 0 {
			sb.WriteString(",\n")
		}
		item := o(
			"id", r.IntN(1000000),
			"name", pick(r, identWords)+"-"+pick(r, identWords),
			"status", pick(r, []string{"active", "archived", "pending", "failed"}),
			"owner", o("login", pick(r, identWords)+fmt.Sprint(r.IntN(100)), "avatar_url", "https://avatars.example.com/u/"+fmt.Sprint(r.IntN(99999))),
			"tags", []any{pick(r, identWords), pick(r, identWords)},
			"score", float64(r.IntN(10000))/100,
			"note", pick(r, cjkSentences)+" "+pick(r, emoji),
			"updated_at", isoMillis(baseTime.Add(time.Duration(r.IntN(1e6))*time.Second)),
		)
		sb.WriteString("  ")
		sb.Write(appendJSON(nil, item))
	}
	sb.WriteString("\n]\n")
}

func writeProse(sb *strings.Builder, r *rand.Rand, sentences int) {
	for s := 0; s < sentences; s++ {
		if r.IntN(5) == 0 {
			sb.WriteString(pick(r, cjkSentences))
			sb.WriteString(" ")
			continue
		}
		words := 8 + r.IntN(14)
		for w := 0; w < words; w++ {
			word := pick(r, proseWords)
			if w == 0 {
				word = title(word)
			}
			sb.WriteString(word)
			if w < words-1 {
				sb.WriteByte(' ')
			}
		}
		sb.WriteString(". ")
		if r.IntN(6) == 0 {
			sb.WriteString(pick(r, emoji) + " ")
		}
	}
	sb.WriteString("\n\n")
}

func pick[T any](r *rand.Rand, xs []T) T { return xs[r.IntN(len(xs))] }

func title(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// Fake credential values inside the credential-bearing links. Each is
// obviously invented (EXAMPLE...) and distinct, so a test can grep an index,
// a log or the screen for any of them.
const (
	SecretAWSAccessKey = "AKIAIOSFODNN7EXAMPLE"
	SecretAWSSignature = "EXAMPLEAWSSIGNATURE000000000000000000000000000000000000000000000"
	SecretGCSSignature = "EXAMPLEGCSSIGNATURE0000000000000000000000"
	SecretAzureSig     = "EXAMPLEAZURESASSIGNATURE00000000"
	SecretOAuthToken   = "EXAMPLEACCESSTOKEN0000000000"
	SecretPassword     = "EXAMPLEPASSWORD"
)

// Secrets lists the fake credential values; none may be written to the
// index, a log or the screen unasked.
var Secrets = []string{SecretAWSAccessKey, SecretAWSSignature, SecretGCSSignature, SecretAzureSig, SecretOAuthToken, SecretPassword}

// Links. The credential-bearing ones carry the fake values above in exactly
// the parameters a real signed link uses, so the link classifier and the
// redactor meet them as they would in the wild.
const (
	LinkAWSPresigned = "https://examplebucket.s3.us-east-1.amazonaws.com/reports/build-4411.tar.gz?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=" + SecretAWSAccessKey + "%2F20260302%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Date=20260302T091500Z&X-Amz-Expires=3600&X-Amz-SignedHeaders=host&X-Amz-Signature=" + SecretAWSSignature
	LinkGCSSigned    = "https://storage.googleapis.com/example-bucket/screens/home.png?X-Goog-Algorithm=GOOG4-RSA-SHA256&X-Goog-Credential=example-sa%40example-project.iam.gserviceaccount.com%2F20260302%2Fauto%2Fstorage%2Fgoog4_request&X-Goog-Date=20260302T091500Z&X-Goog-Expires=900&X-Goog-SignedHeaders=host&X-Goog-Signature=" + SecretGCSSignature
	LinkAzureSAS     = "https://exampleaccount.blob.core.windows.net/artifacts/build.log?sv=2024-11-04&ss=b&srt=o&sp=r&se=2026-03-03T00:00:00Z&st=2026-03-02T00:00:00Z&spr=https&sig=" + SecretAzureSig + "%3D"
	LinkOAuthToken   = "https://app.example.com/oauth/callback#access_token=" + SecretOAuthToken + "&token_type=Bearer&expires_in=3600&state=xyz"
	LinkUserinfo     = "https://deploy:" + SecretPassword + "@git.example.com/team/app.git"
	LinkDocs         = "https://pkg.go.dev/net/http#Client"
	LinkWatch        = "https://www.youtube.com/watch?v=EXAMPLEvid1"
	LinkPage2        = "https://example.com/issues?page=2&per_page=50"
	LinkPlainGuide   = "https://docs.example.com/guide/install#linux"
)

// CredentialLinks are the generated links that carry a credential; each
// appears once in every linkProse text.
var CredentialLinks = []string{LinkAWSPresigned, LinkGCSSigned, LinkAzureSAS, LinkOAuthToken, LinkUserinfo}

// PlainLinks are the generated links that carry none.
var PlainLinks = []string{LinkDocs, LinkWatch, LinkPage2, LinkPlainGuide}

// linkProse is a short report that mentions every link in running text.
func linkProse(r *rand.Rand) string {
	var sb strings.Builder
	sb.WriteString("Deployment notes ")
	sb.WriteString(pick(r, emoji))
	sb.WriteString("\n\nThe build artifact is at " + LinkAWSPresigned + " (valid for one hour).\n")
	sb.WriteString("Screenshot uploaded: " + LinkGCSSigned + "\n")
	sb.WriteString("Log bundle: <" + LinkAzureSAS + ">\n")
	sb.WriteString("After login the browser landed on " + LinkOAuthToken + " and the app stored the token.\n")
	sb.WriteString("Mirror remote: " + LinkUserinfo + "\n\n")
	sb.WriteString("See the docs at " + LinkDocs + ", the walkthrough video " + LinkWatch + ", the second page of open issues " + LinkPage2 + " and the install guide [here](" + LinkPlainGuide + ").\n\n")
	writeProse(&sb, r, 4)
	return sb.String()
}
