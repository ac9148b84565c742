package release

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeRelease serves GitHub's release download layout, <base>/<tag>/<asset>,
// with the archives and checksums.txt GoReleaser would publish, and records
// what was asked for.
type fakeRelease struct {
	*httptest.Server
	mu     sync.Mutex
	files  map[string][]byte // URL path -> body
	status map[string]int    // URL path -> forced status
	got    []string
}

func newFakeRelease(t *testing.T) *fakeRelease {
	f := &fakeRelease{files: map[string][]byte{}, status: map[string]int{}}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		defer f.mu.Unlock()
		f.got = append(f.got, r.URL.Path)
		if code := f.status[r.URL.Path]; code != 0 {
			http.Error(w, http.StatusText(code), code)
			return
		}
		b, ok := f.files[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Write(b)
	}))
	t.Cleanup(f.Close)
	return f
}

// edit changes what path serves: a body and a status (0: serve the body).
func (f *fakeRelease) edit(path string, body func([]byte) []byte, status int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.files[path] = body(f.files[path])
	f.status[path] = status
}

func (f *fakeRelease) requests() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.got)
}

// publish adds a release: an archive per platform named as .goreleaser.yaml
// names them, holding a stand-in imagebot that prints its version, and a
// checksums.txt in sha256sum's format.
func (f *fakeRelease) publish(t *testing.T, g goreleaser, tag string) {
	// The handler reads under mu; the tests' requests come from other
	// processes (curl), which the race detector cannot see order anything.
	f.mu.Lock()
	defer f.mu.Unlock()
	version := strings.TrimPrefix(tag, "v")
	var sums strings.Builder
	for _, goos := range []string{"linux", "darwin", "windows"} {
		for _, goarch := range []string{"amd64", "arm64"} {
			name := g.archiveName(t, version, goos, goarch)
			bin := fmt.Sprintf("#!/bin/sh\necho 'imagebot %s (%s/%s)'\n", version, goos, goarch)
			var archive []byte
			if strings.HasSuffix(name, ".zip") {
				archive = zipOf(t, "imagebot.exe", bin)
			} else {
				archive = tarGzOf(t, "imagebot", bin)
			}
			f.files["/download/"+tag+"/"+name] = archive
			fmt.Fprintf(&sums, "%x  %s\n", sha256.Sum256(archive), name)
		}
	}
	f.files["/download/"+tag+"/"+g.checksums] = []byte(sums.String())
}

func tarGzOf(t *testing.T, name, body string) []byte {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for _, e := range []struct{ name, body string }{{"README.md", "# imagebot\n"}, {name, body}} {
		tw.WriteHeader(&tar.Header{Name: e.name, Mode: 0o755, Size: int64(len(e.body)), Typeflag: tar.TypeReg})
		tw.Write([]byte(e.body))
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	zw.Close()
	return buf.Bytes()
}

func zipOf(t *testing.T, name, body string) []byte {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, _ := zw.Create(name)
	w.Write([]byte(body))
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// tagRepo is the project's repository as git ls-remote sees it: v1.2.3
// (annotated), v1.2.3-rc.1 and the major tag v1 on one commit; v1.3.0-rc.1
// on the next; main one commit further, with no tag.
type tagRepo struct {
	dir                    string
	released, rc, untagged string // commit SHAs
}

func newTagRepo(t *testing.T) tagRepo {
	dir := t.TempDir()
	git := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
			"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t",
			"GIT_COMMITTER_EMAIL=t@example.com", "GIT_AUTHOR_DATE=2024-06-12T08:30:00Z",
			"GIT_COMMITTER_DATE=2024-06-12T08:30:00Z")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	git("init", "--quiet", "--initial-branch=main")
	commit := func(msg string) string {
		git("commit", "--quiet", "--allow-empty", "-m", msg)
		return git("rev-parse", "HEAD")
	}
	r := tagRepo{dir: dir}
	r.released = commit("release 1.2.3")
	git("tag", "v1.2.3-rc.1")
	git("tag", "-a", "-m", "v1.2.3", "v1.2.3")
	git("tag", "v1")
	r.rc = commit("1.3.0 candidate")
	git("tag", "v1.3.0-rc.1")
	r.untagged = commit("work in progress")
	return r
}

type installResult struct {
	err     error
	stderr  string
	outputs map[string]string // $GITHUB_OUTPUT
	dest    string
}

// install runs the real scripts/install-action.sh as action.yml does, with
// the download base and the repository pointed at the fakes.
func install(t *testing.T, f *fakeRelease, repo tagRepo, env ...string) installResult {
	t.Helper()
	tmp := t.TempDir()
	r := installResult{dest: filepath.Join(tmp, "imagebot-bin")}
	output := filepath.Join(tmp, "github-output")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", filepath.Join(repoRoot, "scripts", "install-action.sh"))
	cmd.Env = append([]string{
		"PATH=" + os.Getenv("PATH"), "HOME=" + tmp, "GIT_CONFIG_GLOBAL=/dev/null",
		"GITHUB_ACTIONS=true", "GITHUB_OUTPUT=" + output, "RUNNER_TEMP=" + tmp,
		"RUNNER_OS=Linux", "RUNNER_ARCH=X64",
		"IMAGEBOT_RELEASE_URL=" + f.URL + "/download",
		"IMAGEBOT_GIT_URL=" + repo.dir,
	}, env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	r.err = cmd.Run()
	r.stderr = stderr.String()
	r.outputs = map[string]string{}
	b, _ := os.ReadFile(output)
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if k, v, ok := strings.Cut(line, "="); ok {
			r.outputs[k] = v
		}
	}
	return r
}

// needTools skips when the machine lacks what every GitHub runner has and
// the script uses.
func needTools(t *testing.T, tools ...string) {
	t.Helper()
	for _, tool := range tools {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed; GitHub's runners have it", tool)
		}
	}
}

func TestInstallAction(t *testing.T) {
	needTools(t, "bash", "curl", "git", "tar", "sha256sum")
	g := loadGoreleaser(t)
	f := newFakeRelease(t)
	f.publish(t, g, "v1.2.3")
	f.publish(t, g, "v1.3.0-rc.1")
	f.publish(t, g, "v1.2.4")
	delete(f.files, "/download/v1.2.4/"+g.archiveName(t, "1.2.4", "linux", "arm64"))
	repo := newTagRepo(t)

	tests := []struct {
		name string
		env  []string
		// tag is the release installed; "" means the script must choose
		// the source build.
		tag, archive, runs string
	}{
		{name: "version tag", env: []string{"IMAGEBOT_REF=v1.2.3"},
			tag: "v1.2.3", archive: "imagebot_1.2.3_linux_amd64.tar.gz", runs: "imagebot 1.2.3 (linux/amd64)"},
		{name: "macOS arm64 runner", env: []string{"IMAGEBOT_REF=v1.2.3", "RUNNER_OS=macOS", "RUNNER_ARCH=ARM64"},
			tag: "v1.2.3", archive: "imagebot_1.2.3_darwin_arm64.tar.gz", runs: "imagebot 1.2.3 (darwin/arm64)"},
		{name: "Windows runner gets the zip", env: []string{"IMAGEBOT_REF=v1.2.3", "RUNNER_OS=Windows"},
			tag: "v1.2.3", archive: "imagebot_1.2.3_windows_amd64.zip", runs: "imagebot 1.2.3 (windows/amd64)"},
		{name: "major tag: the release on its commit, not the rc beside it", env: []string{"IMAGEBOT_REF=v1"},
			tag: "v1.2.3", archive: "imagebot_1.2.3_linux_amd64.tar.gz", runs: "imagebot 1.2.3 (linux/amd64)"},
		{name: "SHA pin of a release commit", env: []string{"IMAGEBOT_REF=" + repo.released},
			tag: "v1.2.3", archive: "imagebot_1.2.3_linux_amd64.tar.gz", runs: "imagebot 1.2.3 (linux/amd64)"},
		{name: "SHA pin of a prerelease", env: []string{"IMAGEBOT_REF=" + repo.rc},
			tag: "v1.3.0-rc.1", archive: "imagebot_1.3.0-rc.1_linux_amd64.tar.gz", runs: "imagebot 1.3.0-rc.1 (linux/amd64)"},
		{name: "empty action_ref: the runner's action path names it",
			env: []string{"GITHUB_ACTION_PATH=/home/runner/work/_actions/imagebot/imagebot/v1.2.3"},
			tag: "v1.2.3", archive: "imagebot_1.2.3_linux_amd64.tar.gz", runs: "imagebot 1.2.3 (linux/amd64)"},

		{name: "branch", env: []string{"IMAGEBOT_REF=main"}},
		{name: "repository unreachable: cannot tell which release", env: []string{"IMAGEBOT_REF=v1", "IMAGEBOT_GIT_URL=" + filepath.Join(t.TempDir(), "gone")}},
		{name: "unreleased commit", env: []string{"IMAGEBOT_REF=" + repo.untagged}},
		{name: "tag without a release", env: []string{"IMAGEBOT_REF=v9.9.9"}},
		{name: "release without this platform", env: []string{"IMAGEBOT_REF=v1.2.4", "RUNNER_ARCH=ARM64"}},
		{name: "local action (uses: ./)", env: []string{"GITHUB_ACTION_PATH=/home/runner/work/app/app"}},
		{name: "32-bit runner", env: []string{"IMAGEBOT_REF=v1.2.3", "RUNNER_ARCH=X86"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if strings.HasSuffix(tc.archive, ".zip") {
				needTools(t, "unzip")
			}
			before := len(f.requests())
			r := install(t, f, repo, tc.env...)
			if r.err != nil {
				t.Fatalf("install: %v\n%s", r.err, r.stderr)
			}
			got := f.requests()[before:]
			if tc.tag == "" {
				if r.outputs["method"] != "source" || r.outputs["path"] != "" {
					t.Errorf("outputs %v, want method=source and no path\n%s", r.outputs, r.stderr)
				}
				if !strings.Contains(r.stderr, "::notice::") || !strings.Contains(r.stderr, "building imagebot from the Action's source") {
					t.Errorf("no notice saying why it builds from source:\n%s", r.stderr)
				}
				if entries, _ := os.ReadDir(r.dest); len(entries) > 0 {
					t.Errorf("%s holds %v after choosing the source build", r.dest, entries)
				}
				return
			}
			bin := filepath.Join(r.dest, "imagebot")
			if strings.HasSuffix(tc.archive, ".zip") {
				bin += ".exe"
			}
			if r.outputs["method"] != "release" || r.outputs["path"] != bin || r.outputs["version"] != tc.tag {
				t.Errorf("outputs %v, want method=release path=%s version=%s\n%s", r.outputs, bin, tc.tag, r.stderr)
			}
			want := []string{"/download/" + tc.tag + "/checksums.txt", "/download/" + tc.tag + "/" + tc.archive}
			if !slices.Equal(got, want) {
				t.Errorf("downloads %v, want %v", got, want)
			}
			out, err := exec.Command(bin).Output()
			if err != nil || strings.TrimSpace(string(out)) != tc.runs {
				t.Errorf("installed binary prints %q (%v), want %q", out, err, tc.runs)
			}
		})
	}
}

// TestInstallActionRefuses: a release that exists but cannot be verified
// fails the step, says why, and leaves no binary, not even an older one.
func TestInstallActionRefuses(t *testing.T) {
	needTools(t, "bash", "curl", "git", "tar", "sha256sum")
	g := loadGoreleaser(t)
	f := newFakeRelease(t)
	archive := func(tag string) string {
		return "/download/" + tag + "/" + g.archiveName(t, strings.TrimPrefix(tag, "v"), "linux", "amd64")
	}
	f.publish(t, g, "v2.0.0")
	pwned := tarGzOf(t, "imagebot", "#!/bin/sh\necho pwned\n")
	f.edit(archive("v2.0.0"), func([]byte) []byte { return pwned }, 0)
	f.publish(t, g, "v2.0.1")
	sums := "/download/v2.0.1/checksums.txt"
	f.edit(sums, func(b []byte) []byte { return []byte(strings.ReplaceAll(string(b), "linux_amd64", "linux_amd64.old")) }, 0)
	f.publish(t, g, "v2.0.2")
	f.edit(archive("v2.0.2"), func(b []byte) []byte { return b }, http.StatusForbidden)
	repo := newTagRepo(t)

	tests := []struct{ ref, want string }{
		{"v2.0.0", "::error::checksum mismatch for " + f.URL + archive("v2.0.0") + ": checksums.txt says sha256 "},
		{"v2.0.1", "::error::checksums.txt of release v2.0.1 lists no imagebot_2.0.1_linux_amd64.tar.gz; refusing"},
		{"v2.0.2", "::error::downloading " + f.URL + archive("v2.0.2") + ": HTTP 403"},
	}
	for _, tc := range tests {
		t.Run(tc.ref, func(t *testing.T) {
			r := install(t, f, repo, "IMAGEBOT_REF="+tc.ref)
			var exit *exec.ExitError
			if !errors.As(r.err, &exit) || exit.ExitCode() != 1 {
				t.Fatalf("install exited with %v, want status 1\n%s", r.err, r.stderr)
			}
			if !strings.Contains(r.stderr, tc.want) {
				t.Errorf("stderr does not say %q:\n%s", tc.want, r.stderr)
			}
			if strings.Contains(r.stderr, "pwned") {
				t.Error("the unverified binary was run")
			}
			if len(r.outputs) > 0 {
				t.Errorf("outputs %v after a refused install; action.yml must not go on", r.outputs)
			}
			if entries, _ := os.ReadDir(r.dest); len(entries) > 0 {
				t.Errorf("%s holds %v after a refused install", r.dest, entries)
			}
		})
	}

	// A binary left by an earlier install in the same job is removed too,
	// so no later step can run it by mistake.
	tmp := t.TempDir()
	dest := filepath.Join(tmp, "bin")
	os.MkdirAll(dest, 0o755)
	os.WriteFile(filepath.Join(dest, "imagebot"), []byte("#!/bin/sh\necho old\n"), 0o755)
	r := install(t, f, repo, "IMAGEBOT_REF=v2.0.0", "IMAGEBOT_INSTALL_DIR="+dest)
	if r.err == nil {
		t.Fatal("a mismatching download was installed")
	}
	if _, err := os.Stat(filepath.Join(dest, "imagebot")); err == nil {
		t.Error("the older imagebot is still there after a refused install")
	}
}
