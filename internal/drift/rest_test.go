package drift_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"

	"github.com/imagebot/imagebot/internal/drift"
)

// NewREST speaks to an API server as client-go does: the paths and query
// of a paginated, field-selected pod list, the ReplicaSets of a namespace
// and a Job, JSON answers decoded into the API types, and a Status error
// (403 on the Job) read as forbidden.
func TestNewREST(t *testing.T) {
	yes := true
	var asked []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked = append(asked, r.URL.Path+"?"+r.URL.RawQuery)
		if r.Header.Get("Authorization") != "Bearer t0ken" {
			t.Errorf("%s without the token", r.URL.Path)
		}
		w.Header().Set("Content-Type", "application/json")
		var v any
		switch {
		case r.URL.Path == "/api/v1/namespaces/web/pods" && r.URL.Query().Get("continue") == "":
			p := pod("web", "site-h-1", "site-h", "h", "nginx:1", "")
			v = &corev1.PodList{TypeMeta: metav1.TypeMeta{Kind: "PodList", APIVersion: "v1"}, ListMeta: metav1.ListMeta{Continue: "next"}, Items: []corev1.Pod{*p}}
		case r.URL.Path == "/api/v1/namespaces/web/pods":
			p := pod("web", "cron-1", "", "", "busybox:1", "")
			p.OwnerReferences = []metav1.OwnerReference{{Kind: "Job", Name: "backup-1", Controller: &yes}}
			v = &corev1.PodList{TypeMeta: metav1.TypeMeta{Kind: "PodList", APIVersion: "v1"}, Items: []corev1.Pod{*p}}
		case r.URL.Path == "/apis/apps/v1/namespaces/web/replicasets":
			v = &appsv1.ReplicaSetList{TypeMeta: metav1.TypeMeta{Kind: "ReplicaSetList", APIVersion: "apps/v1"}, Items: []appsv1.ReplicaSet{*replicaSet("web", "site", "h")}}
		case r.URL.Path == "/apis/batch/v1/namespaces/web/jobs/backup-1":
			w.WriteHeader(http.StatusForbidden)
			v = &metav1.Status{TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"}, Status: "Failure", Reason: metav1.StatusReasonForbidden, Code: 403,
				Message: `jobs.batch "backup-1" is forbidden`}
		default:
			http.NotFound(w, r)
			return
		}
		if err := json.NewEncoder(w).Encode(v); err != nil {
			t.Error(err)
		}
	}))
	defer srv.Close()
	api, err := drift.NewREST(&rest.Config{Host: srv.URL, BearerToken: "t0ken"})
	if err != nil {
		t.Fatal(err)
	}
	pods, notices, err := (&drift.Kube{Client: api, Namespaces: []string{"web"}, PageSize: 1}).Running(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(pods) != 2 || pods[0].Workload != (drift.Workload{Kind: "Deployment", Namespace: "web", Name: "site"}) ||
		pods[1].Workload != (drift.Workload{Kind: "Job", Namespace: "web", Name: "backup-1"}) || pods[0].Containers[0].Image != "nginx:1" {
		t.Errorf("pods = %+v", pods)
	}
	if len(notices) != 1 || !strings.Contains(notices[0], "getting jobs is forbidden") {
		t.Errorf("notices = %q", notices)
	}
	if !strings.Contains(asked[0], "fieldSelector=status.phase%3DRunning") || !strings.Contains(asked[0], "limit=1") ||
		!strings.Contains(strings.Join(asked, " "), "continue=next") || !strings.Contains(strings.Join(asked, " "), "/apis/apps/v1/namespaces/web/replicasets?limit=500") {
		t.Errorf("requests: %q", asked)
	}
}
