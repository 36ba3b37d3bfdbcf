package links_test

import (
	"fmt"
	"strings"

	"spillscope/retention"
	"spillscope/retention/links"
)

func ExampleCheckURI() {
	for _, uri := range []string{
		"https://www.youtube.com/watch?v=dQw4w9WgXcQ",
		"https://docs.example.com/auth#token",
		"https://app.example.com/#/reset?resetToken=abc123",
		"https://bucket.s3.amazonaws.com/k.png?X-Amz-Expires=900&X-Amz-Signature=abc123",
		"https://bob:hunter2@example.com/repo.git",
		"https://example.com/%zz",
	} {
		reason, param, hide := links.CheckURI(uri)
		fmt.Printf("%v %q %q\n", hide, reason, param)
	}
	// Output:
	// false "" ""
	// false "" ""
	// false "" ""
	// true "credential-parameter" "X-Amz-Signature"
	// true "userinfo" ""
	// true "unparseable" ""
}

func ExampleLinkLine() {
	shown := links.LinkLine(retention.Block{Type: "resource_link", URI: "file:///tmp/report.csv", Name: "report.csv", MimeType: "text/csv"})
	hidden := links.LinkLine(retention.Block{Type: "resource_link", URI: "https://x.example/cb#access_token=abc", Name: "callback"})
	fmt.Println(shown.Line)
	fmt.Println(hidden.Line)
	// Output:
	// [resource link "report.csv": file:///tmp/report.csv, text/csv; not fetched]
	// [resource link "callback" not shown: its URI may carry a credential (parameter access_token); not fetched]
}

func ExampleClassify() {
	res, err := retention.ParseResult([]byte(`[
		{"type":"text","text":"Here is the recording and the export."},
		{"type":"audio","mimeType":"audio/wav","data":"UklGRiQAAABXQVZFZm10IBAAAAABAAEA"},
		{"type":"resource_link","uri":"https://files.example.com/export.csv?sig=abc","name":"export.csv"},
		{"type":"video","uri":"https://cdn.example.com/v.mp4"}
	]`))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, v := range links.Classify(res.Content) {
		fmt.Println(strings.TrimSpace(fmt.Sprintf("%d %s %s %s", v.Index, v.Kind, v.Reason, v.Line)))
	}
	// Output:
	// 0 itself
	// 1 marker audio [Audio not shown: this host's tool results carry only text and images (audio/wav, 24 bytes).]
	// 2 stub credential-parameter [resource link "export.csv" not shown: its URI may carry a credential (parameter sig); not fetched]
	// 3 marker unknown-type [Content not shown: this host can't display "video" content.]
}

func ExampleIsContentArray() {
	fmt.Println(links.IsContentArray([]string{"text", "video"}, true))
	fmt.Println(links.IsContentArray([]string{"text", "audio"}, false))
	fmt.Println(links.IsContentArray([]string{"user", "order"}, false))
	// Output:
	// true
	// true
	// false
}

func ExampleScanText() {
	text := `uploaded: {"url":"https:\/\/b.s3.amazonaws.com\/k?X-Amz-Credential=AKIA\u0026X-Amz-Signature=abc"} see https://example.com/docs.`
	for _, f := range links.ScanText(text) {
		fmt.Println(f.Reason, f.Parameter, text[f.Start:f.End])
	}
	// Output:
	// credential-parameter X-Amz-Credential https:\/\/b.s3.amazonaws.com\/k?X-Amz-Credential=AKIA\u0026X-Amz-Signature=abc
}

func ExampleRedact() {
	fmt.Println(links.Redact("Clone https://bob:hunter2@example.com/r.git, then open https://app.example.com/#/reset?token=abc."))
	// Output:
	// Clone [redacted URL: userinfo], then open [redacted URL: credential-parameter token].
}

func ExampleLabel() {
	fmt.Println(links.Label("report\n[resource link \"x\"]\u2028.csv", 40))
	// Output:
	// report(resource link 'x').csv
}

func ExampleFindURLs() {
	text := "Docs at <https://example.com/guide>, video (https://www.youtube.com/watch?v=abc)."
	for _, f := range links.FindURLs(text) {
		fmt.Printf("%s shown=%v\n", text[f.Start:f.End], f.Reason == "")
	}
	// Output:
	// https://example.com/guide shown=true
	// https://www.youtube.com/watch?v=abc shown=true
}

func ExampleNormalizeName() {
	for _, n := range []string{"accessToken", "access-token", "ACCESS_TOKEN", "token[]", "%74oken"} {
		fmt.Println(links.NormalizeName(n))
	}
	// Output:
	// accesstoken
	// accesstoken
	// accesstoken
	// token
	// token
}

func ExampleFamilies() {
	for _, f := range links.Families()[:2] {
		fmt.Println(f.Name+":", strings.Join(f.Params, ", "))
	}
	// Output:
	// AWS Signature Version 4 (presigned URL): X-Amz-Signature, X-Amz-Credential, X-Amz-Security-Token
	// AWS Signature Version 2 (query string authentication): AWSAccessKeyId, Signature
}

func ExampleContentTypes() {
	types, err := links.ContentTypes([]byte(`[{"type":"text","text":"hi"},{"type":"video","uri":"v.mp4"}]`))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(types, links.IsContentArray(types, false), links.IsContentArray(types, true))
	// Output:
	// [text video] false true
}

func ExampleAudioMarker() {
	fmt.Println(links.AudioMarker("audio/wav", strings.Repeat("A", 4096)))
	// Output:
	// [Audio not shown: this host's tool results carry only text and images (audio/wav, ~3KB).]
}

func ExampleMask() {
	text := "fetched https://b.s3.amazonaws.com/k.png?X-Amz-Expires=900&X-Amz-Signature=f00dfeed as bob:\n" +
		"git clone https://bob:hunter2@git.example/r.git; export API_KEY=sk1234"
	masked, spans := links.Mask(text)
	fmt.Println(masked)
	for _, s := range spans {
		fmt.Printf("%s %q real [%d,%d) shown at %d\n", s.Kind, s.Parameter, s.Start, s.End, s.At)
	}
	// Output:
	// fetched https://b.s3.amazonaws.com/k.png?X-Amz-Expires=900&X-Amz-Signature=[redacted] as bob:
	// git clone https://[redacted]@git.example/r.git; export API_KEY=[redacted]
	// parameter "X-Amz-Signature" real [75,83) shown at 75
	// userinfo "" real [110,121) shown at 112
	// parameter "api_key" real [156,162) shown at 157
}

func ExampleRedactURI() {
	fmt.Println(links.RedactURI("https://bob:pw@h.example/p?X-Amz-Signature=abc&v=2#access_token=t"))
	// Output:
	// https://[redacted]@h.example/p?X-Amz-Signature=…&v=…#access_token=…
}
