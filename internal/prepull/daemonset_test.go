package prepull_test

import (
	"errors"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/imagebot/imagebot/internal/prepull"
)

var dsSpec = prepull.Spec{
	Namespace:    "kube-system",
	NodeSelector: map[string]string{"imagebot.dev/prepull": "true"},
	Helper:       "ghcr.io/imagebot/imagebot:v0.1.0",
}

var entries = []prepull.Entry{
	{Image: "ghcr.io/acme/api", Tag: "v2.0.0", Digest: "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"},
	{Image: "docker.io/library/nginx", Tag: "1.26.1"},
	{Image: "gcr.io/distroless/static", Tag: "nonroot"},
}

// TestRenderValid: the DaemonSet passes strict schema validation, empty
// or with images; and the validation does reject what is wrong.
func TestRenderValid(t *testing.T) {
	for _, es := range [][]prepull.Entry{nil, entries} {
		out, err := prepull.Render(nil, dsSpec, es)
		if err != nil {
			t.Fatal(err)
		}
		if err := validateManifest(out); err != nil {
			t.Errorf("%d entries: invalid DaemonSet: %v\n%s", len(es), err, out)
		}
	}
	out, err := prepull.Render(nil, dsSpec, entries)
	if err != nil {
		t.Fatal(err)
	}
	for name, edit := range map[string]func(string) string{
		"unknown field": func(s string) string { return strings.Replace(s, "imagePullPolicy:", "imagePulPolicy:", 1) },
		"wrong type": func(s string) string {
			return strings.Replace(s, "terminationGracePeriodSeconds: 1", "terminationGracePeriodSeconds: soon", 1)
		},
		"missing name":   func(s string) string { return strings.Replace(s, "- name: helper\n", "- ", 1) },
		"missing select": func(s string) string { return strings.Replace(s, "  selector:\n", "  selectr:\n", 1) },
	} {
		bad := edit(string(out))
		if bad == string(out) {
			t.Fatalf("%s: edit changed nothing", name)
		}
		if err := validateManifest([]byte(bad)); err == nil {
			t.Errorf("%s: validation passed:\n%s", name, bad)
		}
	}
}

// TestRenderAnyImage: every pull runs the static helper copied from the
// imagebot image, never a shell or anything the image brings, so images
// without either (distroless, scratch) pull too.
func TestRenderAnyImage(t *testing.T) {
	out, err := prepull.Render(nil, dsSpec, entries)
	if err != nil {
		t.Fatal(err)
	}
	s := string(out)
	for _, want := range []string{
		"image: ghcr.io/imagebot/imagebot:v0.1.0\n        imagePullPolicy: IfNotPresent\n        command:\n        - /imagebot\n        - prepull-helper\n        - /prepull/imagebot\n",
		"image: gcr.io/distroless/static:nonroot\n        imagePullPolicy: IfNotPresent\n        command:\n        - /prepull/imagebot\n        - version\n",
		"image: ghcr.io/acme/api:v2.0.0@" + entries[0].Digest + "\n",
		"containers:\n      - name: pause\n        image: " + prepull.PauseRef + "\n",
		"imagebot.dev/prepull: \"true\"",
		"namespace: kube-system",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("DaemonSet lacks %q:\n%s", want, s)
		}
	}
	if strings.Contains(s, "/bin/sh") || strings.Contains(s, "sleep") {
		t.Errorf("DaemonSet relies on a shell:\n%s", s)
	}
	names := regexp.MustCompile(`- name: (pull-\S+)`).FindAllStringSubmatch(s, -1)
	label := regexp.MustCompile(`^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$`)
	seen := map[string]bool{}
	for _, n := range names {
		if !label.MatchString(n[1]) || seen[n[1]] {
			t.Errorf("container name %q is not a unique DNS label", n[1])
		}
		seen[n[1]] = true
	}
	if len(names) != len(entries) {
		t.Errorf("%d pull containers, want %d", len(names), len(entries))
	}
}

// TestRenderStable: rendering the file again with the same images gives
// the same bytes whatever the order they come in; a person's additions
// outside the containers stay through any change of images; the entries
// read back are the ones written.
func TestRenderStable(t *testing.T) {
	first, err := prepull.Render(nil, dsSpec, entries)
	if err != nil {
		t.Fatal(err)
	}
	again, err := prepull.Render(first, dsSpec, []prepull.Entry{entries[2], entries[0], entries[1], entries[0]})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(string(first), string(again)); d != "" {
		t.Errorf("re-render changed the file (-first +again):\n%s", d)
	}
	got, err := prepull.Entries(first)
	if err != nil {
		t.Fatal(err)
	}
	want := []prepull.Entry{entries[1], entries[2], entries[0]} // by reference
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("entries (-want +got):\n%s", d)
	}

	edited := strings.Replace(string(first), "      nodeSelector:\n",
		"      # Our image pull secret.\n      imagePullSecrets:\n      - name: ghcr\n      tolerations:\n      - operator: Exists\n      nodeSelector:\n", 1)
	edited = strings.Replace(edited, "maxUnavailable: 20%", "maxUnavailable: 1", 1)
	out, err := prepull.Render([]byte(edited), dsSpec, entries[:1])
	if err != nil {
		t.Fatal(err)
	}
	for _, keep := range []string{"# Our image pull secret.\n      imagePullSecrets:\n      - name: ghcr\n", "tolerations:\n      - operator: Exists\n", "maxUnavailable: 1\n"} {
		if !strings.Contains(string(out), keep) {
			t.Errorf("lost %q:\n%s", keep, out)
		}
	}
	if got, _ := prepull.Entries(out); len(got) != 1 || got[0] != entries[0] {
		t.Errorf("entries after removing two: %v", got)
	}
	if err := validateManifest(out); err != nil {
		t.Errorf("edited DaemonSet invalid: %v", err)
	}
}

// TestRenderNotOurs: a file that holds something else is never overwritten.
func TestRenderNotOurs(t *testing.T) {
	for name, src := range map[string]string{
		"other kind":     "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: imagebot-prepull\n",
		"other name":     "apiVersion: apps/v1\nkind: DaemonSet\nmetadata:\n  name: node-exporter\n",
		"two documents":  "apiVersion: apps/v1\nkind: DaemonSet\nmetadata:\n  name: imagebot-prepull\n---\nkind: Pod\n",
		"not yaml":       "kind: [DaemonSet\n",
		"a list of maps": "- a: 1\n",
	} {
		if _, err := prepull.Render([]byte(src), dsSpec, entries); !errors.Is(err, prepull.ErrNotOurs) {
			t.Errorf("%s: err = %v, want ErrNotOurs", name, err)
		}
	}
	if out, err := prepull.Render([]byte("\n"), dsSpec, nil); err != nil || len(out) == 0 {
		t.Errorf("empty file: %v", err)
	}
}
