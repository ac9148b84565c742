package drift

import (
	"strings"
	"testing"
)

// The restart annotation is set with no other byte changed: replaced
// where it exists (plain or quoted, a comment after it kept), inserted
// into annotations, metadata or the template where they are missing, in
// the document that holds the line, with CRLF kept; a flow mapping or a
// document without a pod template is an error.
func TestSetTemplateAnnotation(t *testing.T) {
	const dep = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  template:\n"
	const ctr = "    spec:\n      containers:\n        - image: web:1.0 # the app\n"
	for _, c := range []struct{ name, in, want, err string }{
		{"no metadata", dep + ctr,
			dep + "    metadata:\n      annotations:\n        imagebot.io/restartedAt: \"sha256:b\"\n" + ctr, ""},
		{"metadata without annotations", dep + "    metadata:\n      labels: {app: web}\n" + ctr,
			dep + "    metadata:\n      annotations:\n        imagebot.io/restartedAt: \"sha256:b\"\n      labels: {app: web}\n" + ctr, ""},
		{"annotations without the key", dep + "    metadata:\n      annotations:\n        a: b # keep\n" + ctr,
			dep + "    metadata:\n      annotations:\n        imagebot.io/restartedAt: \"sha256:b\"\n        a: b # keep\n" + ctr, ""},
		{"plain value", dep + "    metadata:\n      annotations:\n        imagebot.io/restartedAt: sha256:a   # why\n" + ctr,
			dep + "    metadata:\n      annotations:\n        imagebot.io/restartedAt: \"sha256:b\"   # why\n" + ctr, ""},
		{"quoted value", dep + "    metadata:\n      annotations:\n        imagebot.io/restartedAt: 'sha256:a'\n" + ctr,
			dep + "    metadata:\n      annotations:\n        imagebot.io/restartedAt: \"sha256:b\"\n" + ctr, ""},
		{"crlf", strings.ReplaceAll(dep+ctr, "\n", "\r\n"),
			strings.ReplaceAll(dep+"    metadata:\n      annotations:\n        imagebot.io/restartedAt: \"sha256:b\"\n"+ctr, "\n", "\r\n"), ""},
		{"cronjob", "kind: CronJob\nspec:\n  jobTemplate:\n    spec:\n      template:\n        spec:\n          containers: []\n",
			"kind: CronJob\nspec:\n  jobTemplate:\n    spec:\n      template:\n        metadata:\n          annotations:\n            imagebot.io/restartedAt: \"sha256:b\"\n        spec:\n          containers: []\n", ""},
		{"flow annotations", dep + "    metadata:\n      annotations: {a: b}\n" + ctr, "", "not a block mapping"},
		{"no template", "kind: Pod\nspec:\n  containers:\n    - image: web:1.0\n", "", "no pod template"},
	} {
		line := strings.Count(c.in[:strings.Index(c.in, "containers")], "\n") + 1
		got, err := SetTemplateAnnotation([]byte(c.in), line, RestartAnnotation, "sha256:b")
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s: err %v, want %q", c.name, err, c.err)
			}
			continue
		}
		if err != nil || string(got) != c.want {
			t.Errorf("%s: %v\ngot:\n%s\nwant:\n%s", c.name, err, got, c.want)
		}
	}
	// The second document's template, not the first's.
	two := "kind: ConfigMap\nmetadata:\n  name: x\n---\n" + dep + ctr
	got, err := SetTemplateAnnotation([]byte(two), 12, RestartAnnotation, "sha256:b")
	if err != nil || !strings.HasPrefix(string(got), "kind: ConfigMap\nmetadata:\n  name: x\n---\n") || !strings.Contains(string(got), "    metadata:\n      annotations:\n") {
		t.Errorf("two documents: %v\n%s", err, got)
	}
}
