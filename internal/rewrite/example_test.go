package rewrite_test

import (
	"fmt"

	"github.com/imagebot/imagebot/internal/plan"
	"github.com/imagebot/imagebot/internal/rewrite"
	"github.com/imagebot/imagebot/internal/scan"
)

func ExampleBytes() {
	src := []byte("containers:\r\n  - image: \"nginx:1.25.3\"   # web\r\n")
	refs := scan.File("deploy.yaml", src).Refs
	out, _, err := rewrite.Bytes(src, []plan.Change{{Ref: refs[0], Tag: "1.26.1"}})
	if err != nil {
		panic(err)
	}
	fmt.Printf("%q\n", out)
	// Output: "containers:\r\n  - image: \"nginx:1.26.1\"   # web\r\n"
}

func ExampleApply() {
	out, _ := rewrite.Apply([]byte("tag: 1.25"), []rewrite.Edit{{Span: scan.Span{Start: 5, End: 9}, Text: `"1.30"`}})
	fmt.Println(string(out))
	// Output: tag: "1.30"
}
