package job

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/imagebot/imagebot/internal/config"
	"github.com/imagebot/imagebot/internal/drift"
	"github.com/imagebot/imagebot/internal/testing/kubetest"
	"github.com/imagebot/imagebot/internal/testing/registrytest"
)

// A run whose config has clusters: pins a tag whose pods run mixed
// digests, or a digest the registry deleted, to the digest the tag
// resolves to now, in a pull request of its own (here previewed); an
// image drift.restart names gets the pod template annotation instead, and
// one that does not drift gets nothing.
func TestRunPinsDrift(t *testing.T) {
	reg := registrytest.NewServer(t)
	t0 := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	push := func(repo, tag, seed string) string {
		return reg.Push(t, repo, tag, registrytest.Image(t, seed, t0, nil))
	}
	webOld := push("acme/web", "1.0", "web-a")
	webNew := push("acme/web", "1.0", "web-b")
	jobOld := push("acme/job", "1.0", "job-a")
	push("acme/job", "1.0", "job-b")
	db := push("acme/db", "2.0", "db")
	oldGone := push("acme/old", "3.0", "old-a")
	oldNow := push("acme/old", "3.0", "old-b")
	reg.Delete(t, "acme/old", oldGone)
	img := func(repo string) string { return reg.Host() + "/" + repo }

	dir := t.TempDir()
	files := map[string]string{
		".imagebot.yaml": "registries: {\"" + reg.Host() + "\": {}}\nclusters:\n  - name: prod\n    paths: [\"envs/prod/**\"]\ndrift:\n  restart: [\"" + img("acme/job") + "\"]\n",
		"envs/prod/web.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  namespace: prod\nspec:\n  template:\n    spec:\n      containers:\n" +
			"        - name: web\n          image: " + img("acme/web") + ":1.0\n        - name: job\n          image: " + img("acme/job") + ":1.0\n" +
			"        - name: db\n          image: " + img("acme/db") + ":2.0\n        - name: old\n          image: " + img("acme/old") + ":3.0\n",
	}
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	yes := true
	pod := func(name, web string) runtime.Object {
		return &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Namespace: "prod", Name: name,
				OwnerReferences: []metav1.OwnerReference{{Kind: "StatefulSet", Name: "other", Controller: &yes}}},
			Spec: corev1.PodSpec{Containers: []corev1.Container{
				{Name: "web", Image: img("acme/web") + ":1.0"}, {Name: "job", Image: img("acme/job") + ":1.0"}, {Name: "db", Image: img("acme/db") + ":2.0"}, {Name: "old", Image: img("acme/old") + ":3.0"}}},
			Status: corev1.PodStatus{Phase: corev1.PodRunning, ContainerStatuses: []corev1.ContainerStatus{
				{Name: "web", ImageID: img("acme/web") + "@" + web},
				{Name: "job", ImageID: img("acme/job") + "@" + jobOld},
				{Name: "db", ImageID: img("acme/db") + "@" + db},
				{Name: "old", ImageID: img("acme/old") + "@" + oldGone}}},
		}
	}
	// The pods are the Deployment's: owned by its ReplicaSet.
	cs := fake.NewClientset(pod("web-1", webOld), pod("web-2", webNew))
	for _, name := range []string{"web-1", "web-2"} {
		p, _ := cs.CoreV1().Pods("prod").Get(t.Context(), name, metav1.GetOptions{})
		p.OwnerReferences = []metav1.OwnerReference{{Kind: "ReplicaSet", Name: "web-h", Controller: &yes}}
		p.Labels = map[string]string{"pod-template-hash": "h"}
		if _, err := cs.CoreV1().Pods("prod").Update(t.Context(), p, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	var out bytes.Buffer
	o := Options{Repo: dir, Out: &out, DryRun: true, Kube: Kube{Source: func(config.Cluster) (drift.Source, error) {
		return &drift.Kube{Client: kubetest.Clientset(cs)}, nil
	}}}
	rep, err := Run(t.Context(), o)
	if err != nil {
		t.Fatalf("%v: %+v\n%s", err, rep.Plan.Problems, out.String())
	}
	// web runs two builds (mixed, and stale for the old one); job runs an
	// old build (stale, left to its restart); db is in sync.
	if want := (DriftCount{Mixed: 1, Stale: 2, Gone: 1}); rep.Summary.Drift != want {
		t.Errorf("summary's drift %+v, want %+v", rep.Summary.Drift, want)
	}
	if len(rep.Plan.Drift) != 4 || rep.Plan.Drift[0].Reason != "mixed" ||
		!strings.Contains(rep.Plan.Drift[0].Detail, "cluster prod, Deployment prod/web runs 2 builds of "+img("acme/web")+":1.0") {
		t.Errorf("the dashboard's drift: %+v", rep.Plan.Drift)
	}
	var pins, restarts int
	for _, u := range rep.Plan.Updates {
		if u.Image == img("acme/job") {
			// drift.restart: the tag stays, the pod template's
			// annotation moves to the build the tag serves now.
			restarts++
			if u.Type != "digest" || len(u.Files) != 1 || u.Files[0].Path != "envs/prod/web.yaml" || len(u.Changes) != 1 || u.Changes[0].Digest != "" {
				t.Errorf("restart = %+v", u)
			}
			continue
		}
		if u.Type != "pin" {
			continue
		}
		pins++
		if u.Image == img("acme/old") {
			// gone: moved to the build the tag serves now
			if u.Digest != oldNow || !strings.Contains(strings.Join(u.Grounds, " "), "no longer serves") {
				t.Errorf("gone's pin = %+v", u)
			}
			continue
		}
		if u.Image != img("acme/web") || u.Digest != webNew || len(u.Changes) != 1 || u.Changes[0].Digest != webNew {
			t.Errorf("pin = %+v", u)
		}
		if len(u.Grounds) == 0 || !strings.Contains(u.Grounds[0], "run 2 different builds") {
			t.Errorf("grounds = %q", u.Grounds)
		}
	}
	if pins != 2 {
		t.Fatalf("%d pins, want web's and old's: %+v", pins, rep.Plan.Updates)
	}
	if restarts != 1 || !strings.Contains(out.String(), "+        imagebot.io/restartedAt: \"sha256:") {
		t.Errorf("%d restarts; the preview:\n%s", restarts, out.String())
	}
	if want := img("acme/web") + ":1.0@" + webNew; !strings.Contains(out.String(), "+          image: "+want) {
		t.Errorf("the preview lacks the pinned line %q:\n%s", want, out.String())
	}
}
