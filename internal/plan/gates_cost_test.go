package plan_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/imagebot/imagebot/internal/gate"
)

// TestGatesCost: minAge on 50 images costs, per candidate inspected, one
// manifest GET and one config GET, each digest once, and nothing for the
// candidates after the first that passes; no HEAD, no signature request.
func TestGatesCost(t *testing.T) {
	w := newGateWorld(t)
	const images = 50
	specs := map[string]gate.Spec{}
	var refs []string
	for i := range images {
		repo := fmt.Sprintf("acme/app%02d", i)
		w.push(t, repo, "1.0.0", ago(30*day))
		w.push(t, repo, "1.1.0", ago(20*day))
		w.push(t, repo, "1.1.1", ago(10*day)) // passes: 1.1.0 is never inspected
		w.push(t, repo, "1.2.0", ago(time.Hour))
		specs["ghcr.io/"+repo] = gate.Spec{MinAge: 3 * day}
		refs = append(refs, "ghcr.io/"+repo+":1.0.0")
	}
	files := map[string]string{}
	for i := range 3 { // every image referenced three times: one decision
		files[fmt.Sprintf("f%d.yaml", i)] = pod(refs...)
	}
	w.srv.Reset()
	p := w.build(t, files, specs)
	if len(p.Updates) != images || len(p.Problems) != 0 {
		t.Fatalf("%d updates, problems %v; want %d updates", len(p.Updates), p.Problems, images)
	}
	for _, u := range p.Updates {
		if u.To != "1.1.1" || u.Evidence == nil || u.Evidence.Age == nil {
			t.Fatalf("update %+v, want 1.1.1 with the age's evidence", u)
		}
	}
	inspected := 2 * images // 1.2.0 held, 1.1.1 passed
	manifests, blobs := map[string]int{}, map[string]int{}
	for _, r := range w.srv.Requests() {
		switch {
		case r.Method == http.MethodGet && strings.Contains(r.Path, "/manifests/"):
			manifests[r.Path]++
		case r.Method == http.MethodGet && strings.Contains(r.Path, "/blobs/"):
			blobs[r.Path]++
		case r.Method == http.MethodHead, strings.Contains(r.Path, "/referrers/"):
			t.Errorf("%s %s: minAge needs no HEAD nor signature", r.Method, r.Path)
		}
	}
	for what, m := range map[string]map[string]int{"manifest": manifests, "config": blobs} {
		if len(m) != inspected {
			t.Errorf("%d %s GETs, want %d: one per candidate inspected", len(m), what, inspected)
		}
		for path, n := range m {
			if n > 1 {
				t.Errorf("GET %s %d times, want once", path, n)
			}
		}
	}
}
