package main

import (
	"context"
	"strings"
	"testing"
)

// rollback runs `imagebot rollback ARGS DIR` with the env's mirrors.
func (e *runEnv) rollback(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	line := append(append([]string{"rollback"}, args...), e.args[1:]...) // e.args: run DIR --mirror ...
	stdout, stderr, code = imagebot(t, e.env, line...)
	if strings.Contains(stdout+stderr, runToken) {
		t.Errorf("the token was printed")
	}
	return stdout, stderr, code
}

// TestRollback: `imagebot rollback IMAGE` opens one PR moving every
// reference back to the tag before the current one, leaving the other PRs
// alone; once merged, the version rolled back from is never proposed
// again, and a newer one is proposed as usual.
func TestRollback(t *testing.T) {
	e := newRunEnv(t)
	const (
		nginxBranch    = "imagebot/docker.io-library-nginx"
		rollbackBranch = "imagebot/rollback-docker.io-library-nginx"
	)
	if _, stderr, code := e.run(t); code != exitOK {
		t.Fatalf("run: %d\n%s", code, stderr)
	}
	if err := e.gh.MergePR("acme", "gitops", e.open()[nginxBranch].Number); err != nil {
		t.Fatal(err)
	}

	stdout, stderr, code := e.rollback(t, "nginx")
	if code != exitOK {
		t.Fatalf("rollback: %d\n%s%s", code, stdout, stderr)
	}
	open := e.open()
	pr, ok := open[rollbackBranch]
	if !ok || pr.Title != "Roll back nginx to 1.25.3" {
		t.Fatalf("rollback PR %+v; open: %v", pr, open)
	}
	for _, want := range []string{
		"rolls **docker.io/library/nginx** back from `1.26.1` to `1.25.3`",
		"`1.25.3` is the tag docker.io/library/nginx had before commit",
		"| `apps/web.yaml:7` | `1.26.1` | `1.25.3` | rollback |",
		"Once this is merged, imagebot does not propose `1.26.1` again",
		`"kind":"rollback"`,
	} {
		if !strings.Contains(pr.Body, want) {
			t.Errorf("rollback body lacks %q:\n%s", want, pr.Body)
		}
	}
	if _, ok := open["imagebot/docker.io-library-redis"]; !ok {
		t.Error("rollback closed redis's PR")
	}

	// A scheduled run leaves the rollback PR alone.
	if _, stderr, code := e.run(t); code != exitOK || e.open()[rollbackBranch].Number != pr.Number {
		t.Fatalf("run with the rollback open: %d, %v\n%s", code, e.open(), stderr)
	}

	if err := e.gh.MergePR("acme", "gitops", pr.Number); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code = e.run(t)
	if code != exitOK {
		t.Fatalf("run after the rollback: %d\n%s", code, stderr)
	}
	if _, ok := e.open()[nginxBranch]; ok {
		t.Errorf("1.26.1 proposed again after the rollback:\n%s", stdout)
	}
	if !strings.Contains(stdout, "declined before") || !strings.Contains(stdout, nginxBranch) {
		t.Errorf("run does not say 1.26.1 was declined:\n%s", stdout)
	}

	// A newer version is proposed as usual.
	if _, err := e.reg.Push(context.Background(), "docker.io/library/nginx", "1.26.2"); err != nil {
		t.Fatal(err)
	}
	if _, stderr, code := e.run(t); code != exitOK {
		t.Fatalf("run after 1.26.2: %d\n%s", code, stderr)
	}
	if pr := e.open()[nginxBranch]; pr.Title != "Update nginx to 1.26.2" {
		t.Errorf("after 1.26.2: %+v", pr)
	}
}

// TestRollbackErrors: what rollback refuses, and says why.
func TestRollbackErrors(t *testing.T) {
	e := newRunEnv(t)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"nginx:1.25.3"}, "names a tag or digest: name the image alone, and the tag with --to"},
		{[]string{"busybox"}, "docker.io/library/busybox has no tagged reference on main@"},
		{[]string{"nginx"}, "docker.io/library/nginx came into the repository at 1.25.3 in commit"},
		{[]string{"nginx", "--to", "1.99.0"}, "docker.io/library/nginx:1.99.0 is not in the registry"},
	} {
		_, stderr, code := e.rollback(t, tc.args...)
		if code != exitUsage || !strings.Contains(stderr, tc.want) {
			t.Errorf("rollback %q: %d %q, want %q", tc.args, code, stderr, tc.want)
		}
	}
	if _, stderr, code := imagebot(t, e.env, "rollback"); code != exitUsage || !strings.Contains(stderr, "rollback needs the IMAGE to roll back") {
		t.Errorf("rollback alone: %d %q", code, stderr)
	}
	if len(e.gh.PRs("acme", "gitops")) != 0 {
		t.Error("a refused rollback opened a PR")
	}
}
