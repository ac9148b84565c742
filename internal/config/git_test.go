package config

import (
	"strconv"
	"strings"
	"testing"
)

// TestCommitMessageErrors checks that a bad template is explained in the
// terms of the file: the fields a template may use, never the Go type
// behind them (issue 13: "can't evaluate field Imgae in type
// config.MessageData").
func TestCommitMessageErrors(t *testing.T) {
	const fields = "a template may use {{.Image}} {{.From}} {{.To}} {{.Type}} {{.Digest}}"
	tests := []struct{ tmpl, want string }{
		{"Update {{.Imgae}} to {{.To}}", "{{.Imgae}} is not a field; " + fields},
		{"{{.image}}", "{{.image}} is not a field; " + fields},
		{"{{.Image", "unclosed action; " + fields},
		{"{{.Image.Name}}", "can't evaluate field Name in type string; " + fields},
		{"{{template \"x\"}}", `template "x" not defined; ` + fields},
		{"{{with .Image}}{{.Tag}}{{end}}", "can't evaluate field Tag in type string; " + fields},
		{"{{range .Nope}}{{end}}", "{{.Nope}} is not a field; " + fields},
	}
	for _, tc := range tests {
		_, err := Parse("f.yaml", []byte("git:\n  commitMessage: "+strconv.Quote(tc.tmpl)+"\n"))
		if err == nil {
			t.Errorf("%q: no error", tc.tmpl)
			continue
		}
		msg := err.Error()
		if !strings.HasSuffix(msg, tc.want) {
			t.Errorf("%q:\n got %s\nwant …%s", tc.tmpl, msg, tc.want)
		}
		if strings.Contains(msg, "config.") || strings.Contains(msg, "MessageData") {
			t.Errorf("%q: error names a Go type: %s", tc.tmpl, msg)
		}
	}
}
