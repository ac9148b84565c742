package bitbuckettest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
)

// dcDo sends method to path with body as JSON and the token as Bearer.
func dcDo(t *testing.T, d *DataCenter, token, method, path string, body any) (int, map[string]any) {
	t.Helper()
	var in bytes.Buffer
	if body != nil {
		json.NewEncoder(&in).Encode(body)
	}
	req, _ := http.NewRequest(method, d.URL()+path, &in)
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	json.NewDecoder(resp.Body).Decode(&out)
	return resp.StatusCode, out
}

const dcPulls = "/rest/api/1.0/projects/OPS/repos/gitops/pull-requests"

func newPR(head string) map[string]any {
	return map[string]any{"title": "Update " + head, "description": "body",
		"fromRef": map[string]any{"id": "refs/heads/" + head}, "toRef": map[string]any{"id": "refs/heads/main"}}
}

// TestDataCenterPullRequests: create, a duplicate's 409 with the existing
// one, start/limit pages, the version lock on update and decline, and
// auto-merge completed by a successful build.
func TestDataCenterPullRequests(t *testing.T) {
	d := NewDataCenter(WithMaxLimit(2), WithDCReadOnlyToken("reader"))
	defer d.Close()
	d.AddRepo("OPS", "gitops", "main")
	for _, b := range []string{"imagebot/a", "imagebot/b", "imagebot/c"} {
		if code, pr := dcDo(t, d, DefaultToken, "POST", dcPulls, newPR(b)); code != 201 || pr["author"].(map[string]any)["user"].(map[string]any)["name"] != DCUser {
			t.Fatalf("create %s: %d %v", b, code, pr)
		}
	}
	code, body := dcDo(t, d, DefaultToken, "POST", dcPulls, newPR("imagebot/a"))
	errs := body["errors"].([]any)[0].(map[string]any)
	if code != http.StatusConflict || errs["exceptionName"] != "com.atlassian.bitbucket.pull.DuplicatePullRequestException" ||
		errs["existingPullRequest"].(map[string]any)["id"] != 1.0 {
		t.Fatalf("duplicate: %d %v", code, body)
	}
	var ids []float64
	for start := 0; ; {
		_, page := dcDo(t, d, DefaultToken, "GET", fmt.Sprintf("%s?state=OPEN&order=OLDEST&limit=50&start=%d", dcPulls, start), nil)
		for _, v := range page["values"].([]any) {
			ids = append(ids, v.(map[string]any)["id"].(float64))
		}
		if page["isLastPage"] == true {
			break
		}
		start = int(page["nextPageStart"].(float64))
	}
	if fmt.Sprint(ids) != "[1 2 3]" {
		t.Fatalf("paged ids %v", ids)
	}
	_, page := dcDo(t, d, DefaultToken, "GET", dcPulls+"?at=refs/heads/imagebot/b&direction=OUTGOING", nil)
	if vs := page["values"].([]any); len(vs) != 1 || vs[0].(map[string]any)["id"] != 2.0 {
		t.Fatalf("at imagebot/b: %v", page)
	}
	if code, _ := dcDo(t, d, DefaultToken, "PUT", dcPulls+"/1", map[string]any{"version": 3, "title": "x"}); code != http.StatusConflict {
		t.Errorf("stale version: %d, want 409", code)
	}
	if code, pr := dcDo(t, d, DefaultToken, "PUT", dcPulls+"/1", map[string]any{"version": 0, "title": "x"}); code != 200 || pr["version"] != 1.0 {
		t.Errorf("update: %d %v", code, pr)
	}
	if code, pr := dcDo(t, d, DefaultToken, "POST", dcPulls+"/1/decline?version=1", nil); code != 200 || pr["state"] != "DECLINED" {
		t.Errorf("decline: %d %v", code, pr)
	}
	if code, _ := dcDo(t, d, DefaultToken, "POST", dcPulls+"/2/auto-merge", nil); code != 200 {
		t.Fatalf("auto-merge: %d", code)
	}
	sha := d.PRs("OPS/gitops")[1].FromCommit
	dcDo(t, d, DefaultToken, "POST", "/rest/build-status/1.0/commits/"+sha, map[string]any{"key": "ci", "state": "INPROGRESS"})
	if s := d.PRs("OPS/gitops")[1].State; s != "OPEN" {
		t.Fatalf("merged on a build in progress: %s", s)
	}
	dcDo(t, d, DefaultToken, "POST", "/rest/build-status/1.0/commits/"+sha, map[string]any{"key": "ci", "state": "SUCCESSFUL"})
	if s := d.PRs("OPS/gitops")[1].State; s != "MERGED" {
		t.Fatalf("auto-merge after a successful build: %s", s)
	}
	if code, _ := dcDo(t, d, "wrong", "GET", dcPulls, nil); code != http.StatusUnauthorized {
		t.Errorf("wrong token: %d", code)
	}
	if code, _ := dcDo(t, d, "reader", "POST", dcPulls, newPR("imagebot/d")); code != http.StatusUnauthorized {
		t.Errorf("read-only token writes: %d", code)
	}
	if code, _ := dcDo(t, d, DefaultToken, "GET", "/rest/api/1.0/projects/OPS/repos/gone", nil); code != http.StatusNotFound {
		t.Errorf("missing repository: %d", code)
	}
}

// TestDataCenterPersonDescribes: a person's pull request (OpenPR, from a
// fork's branch) with the description DescribePR gives it is listed so,
// with a new version.
func TestDataCenterPersonDescribes(t *testing.T) {
	d := NewDataCenter()
	defer d.Close()
	d.AddRepo("OPS", "gitops", "main")
	id := d.OpenPR("OPS/gitops", "imagebot/a", "main", "Update a", "mallory", "~MALLORY/gitops")
	d.DescribePR("OPS/gitops", id, "Totally legit.")
	_, page := dcDo(t, d, DefaultToken, "GET", dcPulls+"?state=OPEN", nil)
	vs := page["values"].([]any)
	if len(vs) != 1 || vs[0].(map[string]any)["description"] != "Totally legit." || vs[0].(map[string]any)["version"] != 1.0 {
		t.Errorf("listed %v", vs)
	}
}
