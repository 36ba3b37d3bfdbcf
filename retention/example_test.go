package retention_test

import (
	"fmt"
	"strings"

	"spillscope/retention"
)

func ExampleRetain() {
	var lines []string
	for i := 1; i <= 2000; i++ {
		lines = append(lines, fmt.Sprintf("row %d: ok", i))
	}
	res := retention.Result{Content: []retention.Block{{Type: retention.TypeText, Text: strings.Join(lines, "\n")}}}
	budget := int64(120)
	out, err := retention.Retain(res, retention.Options{Budget: &budget, SpillPath: "/spill/abc.txt"})
	if err != nil {
		panic(err)
	}
	fmt.Println(out.Status)
	fmt.Println(out.Tokens.Total <= 120)
	fmt.Println(strings.HasPrefix(out.Content[0].Text, "row 1: ok\nrow 2: ok"))
	fmt.Println(out.Content[1].Text)
	fmt.Println(strings.HasSuffix(out.Content[2].Text, "row 2000: ok"))
	fmt.Println(out.Notice == out.Content[3].Text)
	// Output:
	// replaced
	// true
	// true
	// [...]
	// true
	// true
}

func ExampleSweep() {
	text := strings.Repeat("The quick brown fox jumps over the lazy dog. ", 500)
	res := retention.Result{Content: []retention.Block{{Type: retention.TypeText, Text: text}}}
	outs, err := retention.Sweep(res, []int64{10, 36, 200, 100000}, retention.Options{SpillPath: "/spill/fox.txt"})
	if err != nil {
		panic(err)
	}
	for _, o := range outs {
		fmt.Println(o.Status)
	}
	// Output:
	// preserved
	// notice_only
	// replaced
	// within_budget
}

func ExampleFormatNotice() {
	fmt.Println(retention.FormatNotice(48213, 0, "/spill/s1/web_fetch.txt"))
	fmt.Println(retention.FormatNotice(1200, 2, "/spill/s1/shot.txt"))
	// Output:
	// (Omitted 48213 bytes. Full formatted result stored at: /spill/s1/web_fetch.txt. Use read with offset/limit, or grep this path to search within it.)
	// (Omitted 1200 bytes and 2 images. Full formatted result stored at: /spill/s1/shot.txt. Use read with offset/limit, or grep this path to search within it; each omitted image is a line in that file naming its attachment path, which read_image can open.)
}

func ExampleRecogniseNotice() {
	recorded := "first lines\n[...]\nlast lines\n(Omitted 5120 bytes. Full formatted result stored at: /tmp/s/x.txt. Use read with offset/limit, or grep this path to search within it.)"
	m, ok := retention.RecogniseNotice(recorded)
	fmt.Println(ok, m.OmittedBytes, m.OmittedImages, m.Path)
	_, ok = retention.RecogniseNotice("no notice here")
	fmt.Println(ok)
	// Output:
	// true 5120 0 /tmp/s/x.txt
	// false
}

func ExampleValidateBudget() {
	for _, v := range []float64{12500, -1, 0.5, 1 << 53} {
		b, err := retention.ValidateBudget(v)
		fmt.Println(b, err)
	}
	// Output:
	// 12500 <nil>
	// 0 retention: invalid maxInlineTokens: -1 is negative
	// 0 retention: invalid maxInlineTokens: 0.5 is fractional
	// 0 retention: invalid maxInlineTokens: 9007199254740992 is above the largest safe integer 9007199254740991
}

func ExampleCountTokens() {
	n, err := retention.CountTokens(retention.EncodingO200k, "hello world")
	fmt.Println(n, err)
	// Output:
	// 2 <nil>
}

func ExampleDescriptor() {
	fmt.Println(retention.Descriptor("image/png", 1280, 720, "/spill/attachments/3f2a.png"))
	// Output:
	// [image image/png 1280x720: /spill/attachments/3f2a.png]
}
