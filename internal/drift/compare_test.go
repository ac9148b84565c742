package drift_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"k8s.io/client-go/kubernetes/fake"

	"github.com/imagebot/imagebot/internal/drift"
	"github.com/imagebot/imagebot/internal/testing/kubetest"
)

// The five kinds from one repository, one registry and one cluster: web's
// tag moved while one pod kept the old pull (mixed, and stale for that
// pod), api runs a digest the registry deleted (gone), a hand-deployed
// tool (undeclared), and a worker the repository declares that does not
// run (not-running). A pod whose image is not pulled yet is a notice.
func TestCompareFiveKinds(t *testing.T) {
	w := newWorld(t)
	webOld := w.push(t, "acme/web", "1.0", "web-a")
	webNew := w.push(t, "acme/web", "1.0", "web-b") // the tag moved
	apiOld := w.push(t, "acme/api", "2.0", "api-a")
	apiNew := w.push(t, "acme/api", "2.0", "api-b")
	w.reg.Delete(t, "acme/api", apiOld)
	w.push(t, "acme/tool", "1", "tool")

	rs := refs(t, map[string]string{
		"envs/prod/web.yaml":    deployment("prod", "web", w.image("acme/web")+":1.0"),
		"envs/prod/api.yaml":    deployment("prod", "api", w.image("acme/api")+":2.0"),
		"envs/prod/worker.yaml": deployment("prod", "worker", w.image("acme/worker")+":3.0"),
	})
	web, api, tool := w.image("acme/web")+":1.0", w.image("acme/api")+":2.0", w.image("acme/tool")+":1"
	cs := fake.NewClientset(objects(
		replicaSet("prod", "web", "aaa"), replicaSet("prod", "api", "bbb"), replicaSet("prod", "tool", "ccc"),
		pod("prod", "web-aaa-1", "web-aaa", "aaa", web, "docker-pullable://"+w.image("acme/web")+"@"+webOld),
		pod("prod", "web-aaa-2", "web-aaa", "aaa", web, w.image("acme/web")+"@"+webNew),
		pod("prod", "web-aaa-3", "web-aaa", "aaa", web, ""),
		pod("prod", "api-bbb-1", "api-bbb", "bbb", api, w.image("acme/api")+"@"+apiOld),
		pod("prod", "tool-ccc-1", "tool-ccc", "ccc", tool, w.image("acme/tool")+"@"+webNew),
	)...)
	src := &drift.Kube{Client: kubetest.Clientset(cs)}
	pods, notices, err := src.Running(context.Background())
	if err != nil || len(notices) > 0 {
		t.Fatalf("Running: %v %v", notices, err)
	}
	rep := drift.Compare(context.Background(), drift.Input{Cluster: "prod", Refs: rs, Pods: pods, Registry: w.client()})

	got := map[drift.Kind][]drift.Finding{}
	for _, f := range rep.Drift {
		got[f.Kind] = append(got[f.Kind], f)
	}
	one := func(k drift.Kind) drift.Finding {
		t.Helper()
		if len(got[k]) != 1 {
			t.Fatalf("%s: %d findings, want 1: %+v", k, len(got[k]), rep.Drift)
		}
		return got[k][0]
	}
	wantWeb := drift.Workload{Kind: "Deployment", Namespace: "prod", Name: "web"}
	if f := one(drift.Mixed); f.Workload != wantWeb || f.File != "envs/prod/web.yaml" || f.Line != 11 ||
		!slices.Equal(f.Running, sorted(webOld, webNew)) || f.Expected != webNew || len(f.Pods) != 2 {
		t.Errorf("mixed = %+v", f)
	}
	if f := one(drift.Stale); f.Workload != wantWeb || len(f.Pods) != 1 || f.Pods[0].Name != "prod/web-aaa-1" ||
		f.Pods[0].Running != webOld || f.Expected != webNew || f.Tag != "1.0" {
		t.Errorf("stale = %+v", f)
	}
	if f := one(drift.Gone); f.Workload.Name != "api" || f.File != "envs/prod/api.yaml" || !slices.Equal(f.Running, []string{apiOld}) || f.Expected != apiNew {
		t.Errorf("gone = %+v", f)
	}
	if f := one(drift.Undeclared); f.Workload.Name != "tool" || f.File != "" || f.Image != w.image("acme/tool") || f.Pods[0].Name != "prod/tool-ccc-1" {
		t.Errorf("undeclared = %+v", f)
	}
	if f := one(drift.NotRunning); f.Workload.Name != "worker" || f.File != "envs/prod/worker.yaml" || len(f.Pods) != 0 ||
		f.Expected != w.image("acme/worker")+":3.0" {
		t.Errorf("not-running = %+v", f)
	}
	if len(rep.Notices) != 1 || !strings.Contains(rep.Notices[0].Message, "prod/web-aaa-3") || !strings.Contains(rep.Notices[0].Message, "not pulled yet") {
		t.Errorf("notices = %+v", rep.Notices)
	}
}

func sorted(s ...string) []string { slices.Sort(s); return s }

// Nothing drifted: every pod runs what its tag resolves to now.
func TestCompareInSync(t *testing.T) {
	w := newWorld(t)
	d := w.push(t, "acme/web", "1.0", "web-a")
	rs := refs(t, map[string]string{"web.yaml": deployment("prod", "web", w.image("acme/web")+":1.0")})
	cs := fake.NewClientset(objects(replicaSet("prod", "web", "h"),
		pod("prod", "web-h-1", "web-h", "h", w.image("acme/web")+":1.0", w.image("acme/web")+"@"+d),
		pod("prod", "web-h-2", "web-h", "h", w.image("acme/web")+":1.0", w.image("acme/web")+"@"+d))...)
	pods, _, err := (&drift.Kube{Client: kubetest.Clientset(cs)}).Running(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	rep := drift.Compare(context.Background(), drift.Input{Cluster: "c", Refs: rs, Pods: pods, Registry: w.client()})
	if len(rep.Drift) != 0 || len(rep.Notices) != 0 {
		t.Fatalf("drift = %+v, notices = %+v", rep.Drift, rep.Notices)
	}
}

// A workload that runs another tag than the repository says is not-running
// (not synced yet), not undeclared: the repository names that image.
func TestCompareOtherTagIsNotRunning(t *testing.T) {
	w := newWorld(t)
	d := w.push(t, "acme/web", "1.0", "web-a")
	w.push(t, "acme/web", "1.1", "web-b")
	rs := refs(t, map[string]string{"web.yaml": deployment("prod", "web", w.image("acme/web")+":1.1")})
	cs := fake.NewClientset(objects(replicaSet("prod", "web", "h"),
		pod("prod", "web-h-1", "web-h", "h", w.image("acme/web")+":1.0", w.image("acme/web")+"@"+d))...)
	pods, _, _ := (&drift.Kube{Client: kubetest.Clientset(cs)}).Running(context.Background())
	rep := drift.Compare(context.Background(), drift.Input{Cluster: "c", Refs: rs, Pods: pods, Registry: w.client()})
	if len(rep.Drift) != 1 || rep.Drift[0].Kind != drift.NotRunning ||
		!slices.Equal(rep.Drift[0].Running, []string{w.image("acme/web") + ":1.0"}) || rep.Drift[0].Pods[0].Name != "prod/web-h-1" {
		t.Fatalf("drift = %+v", rep.Drift)
	}
}

// A reference whose manifest names a namespace that could not be listed
// is not reported as not running: nothing is known of what runs there.
func TestCompareUnreadNamespace(t *testing.T) {
	w := newWorld(t)
	w.push(t, "acme/web", "1.0", "web-a")
	rs := refs(t, map[string]string{
		"secret.yaml": deployment("secret", "web", w.image("acme/web")+":1.0"),
		"open.yaml":   deployment("open", "web", w.image("acme/web")+":1.0"),
	})
	rep := drift.Compare(context.Background(), drift.Input{Cluster: "c", Refs: rs, Registry: w.client(),
		Namespaces: []string{"secret", "open"}, Unread: []string{"secret"}})
	if len(rep.Drift) != 1 || rep.Drift[0].File != "open.yaml" || rep.Drift[0].Kind != drift.NotRunning {
		t.Fatalf("drift = %+v", rep.Drift)
	}
}
