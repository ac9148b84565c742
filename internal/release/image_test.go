package release

import (
	"archive/tar"
	"context"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
)

// repoRoot is the module root, seen from this package's directory.
const repoRoot = "../.."

var commitTime = time.Date(2024, 6, 12, 8, 30, 0, 0, time.UTC)

// TestImage builds the real image for the host's architecture into an OCI
// layout, reads it back as `crane push` would, unpacks its filesystem and
// runs the binary in it: what `make image` ships, minus the second platform.
func TestImage(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles imagebot")
	}
	host := v1.Platform{OS: "linux", Architecture: runtime.GOARCH}
	idx, err := Build(context.Background(), Options{
		Dir: repoRoot, Main: "./cmd/bot", Platforms: []v1.Platform{host},
		Version: "1.2.3-test", Revision: "0123456789abcdef0123456789abcdef01234567",
		Source: "https://github.com/imagebot/imagebot", Created: commitTime,
		Compile: hostBuild,
	})
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "image")
	if err := WriteLayout(dir, idx, "1.2.3-test"); err != nil {
		t.Fatal(err)
	}
	img := imageFromLayout(t, dir, host)

	cf, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"/imagebot"}, cf.Config.Entrypoint); diff != "" {
		t.Errorf("entrypoint (-want +got):\n%s", diff)
	}
	if cf.Config.User != "65532:65532" {
		t.Errorf("user = %q, want 65532:65532 (non-root, as deploy/ runs it)", cf.Config.User)
	}
	if !cf.Created.Equal(commitTime) {
		t.Errorf("created = %v, want the commit time %v", cf.Created, commitTime)
	}
	for k, want := range map[string]string{
		"org.opencontainers.image.version":  "1.2.3-test",
		"org.opencontainers.image.revision": "0123456789abcdef0123456789abcdef01234567",
		"org.opencontainers.image.source":   "https://github.com/imagebot/imagebot",
		"org.opencontainers.image.created":  "2024-06-12T08:30:00Z",
	} {
		if got := cf.Config.Labels[k]; got != want {
			t.Errorf("label %s = %q, want %q", k, got, want)
		}
	}

	root := extract(t, img)
	passwd, _ := os.ReadFile(filepath.Join(root, "etc/passwd"))
	if !strings.Contains(string(passwd), "nonroot:x:65532:65532:") {
		t.Errorf("/etc/passwd has no nonroot user 65532:\n%s", passwd)
	}
	group, _ := os.ReadFile(filepath.Join(root, "etc/group"))
	if !strings.Contains(string(group), "nonroot:x:65532:") {
		t.Errorf("/etc/group has no nonroot group 65532:\n%s", group)
	}
	if n := countCerts(t, filepath.Join(root, CAFile)); n < 100 {
		t.Errorf("%s holds %d certificates, want Mozilla's roots (over 100)", CAFile, n)
	}

	if runtime.GOOS != "linux" {
		t.Skipf("the image's binary is for linux; this is %s", runtime.GOOS)
	}
	out, err := exec.Command(filepath.Join(root, "imagebot"), "version").CombinedOutput()
	if err != nil {
		t.Fatalf("imagebot version from the image: %v\n%s", err, out)
	}
	if got := strings.TrimSpace(string(out)); got != "imagebot 1.2.3-test" {
		t.Errorf("imagebot version = %q, want %q", got, "imagebot 1.2.3-test")
	}
}

// imageFromLayout finds the image for p in the layout's one index.
func imageFromLayout(t *testing.T, dir string, p v1.Platform) v1.Image {
	t.Helper()
	l, err := layout.ImageIndexFromPath(dir)
	if err != nil {
		t.Fatal(err)
	}
	m, err := l.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Manifests) != 1 || !m.Manifests[0].MediaType.IsIndex() {
		t.Fatalf("layout holds %v, want one image index", m.Manifests)
	}
	if got := m.Manifests[0].Annotations["org.opencontainers.image.ref.name"]; got != "1.2.3-test" {
		t.Errorf("ref.name = %q", got)
	}
	idx, err := l.ImageIndex(m.Manifests[0].Digest)
	if err != nil {
		t.Fatal(err)
	}
	im, err := idx.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range im.Manifests {
		if d.Platform != nil && d.Platform.Equals(p) {
			img, err := idx.Image(d.Digest)
			if err != nil {
				t.Fatal(err)
			}
			return img
		}
	}
	t.Fatalf("the index has no image for %s: %v", p, im.Manifests)
	return nil
}

// extract unpacks the image's flattened filesystem into a temporary
// directory, checking ownership and modes on the way.
func extract(t *testing.T, img v1.Image) string {
	t.Helper()
	root := t.TempDir()
	rc := mutate.Extract(img)
	defer rc.Close()
	tr := tar.NewReader(rc)
	seen := map[string]*tar.Header{}
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		seen["/"+strings.TrimSuffix(h.Name, "/")] = h
		p := filepath.Join(root, filepath.FromSlash(h.Name))
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
		case tar.TypeReg:
			b, err := io.ReadAll(tr)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, b, os.FileMode(h.Mode).Perm()); err != nil {
				t.Fatal(err)
			}
		default:
			t.Errorf("%s: unexpected tar type %c", h.Name, h.Typeflag)
		}
	}
	for name, want := range map[string]struct {
		mode int64
		uid  int
	}{
		"/imagebot": {0o755, 0}, CAFile: {0o644, 0}, "/etc/passwd": {0o644, 0},
		"/home/nonroot": {0o700, 65532}, "/tmp": {0o1777, 0},
	} {
		h, ok := seen[name]
		switch {
		case !ok:
			t.Errorf("the image has no %s", name)
		case h.Mode != want.mode || h.Uid != want.uid:
			t.Errorf("%s: mode %o uid %d, want mode %o uid %d", name, h.Mode, h.Uid, want.mode, want.uid)
		}
	}
	return root
}

func countCerts(t *testing.T, path string) int {
	t.Helper()
	rest, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for {
		var b *pem.Block
		b, rest = pem.Decode(rest)
		if b == nil {
			break
		}
		if _, err := x509.ParseCertificate(b.Bytes); err != nil {
			t.Errorf("%s: certificate %d: %v", path, n, err)
		}
		n++
	}
	return n
}

// hostBuild compiles Main for the host as `go test` compiles packages, so
// that the build cache the test run already filled serves it: only the link
// is new, and without symbols or DWARF (-s -w) as the release links it,
// which also makes the link a third quicker. The other release flags
// (compile.go) are GoReleaser's, checked by TestGoreleaserConfig; what this
// test checks is the image around the binary.
func hostBuild(ctx context.Context, o Options, p v1.Platform) ([]byte, error) {
	out := filepath.Join(os.TempDir(), fmt.Sprintf("imagebot-test-%d", os.Getpid()))
	defer os.Remove(out)
	cmd := exec.CommandContext(ctx, "go", "build", "-ldflags", "-s -w -X main.version="+o.Version, "-o", out, o.Main)
	cmd.Dir = o.Dir
	if b, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("go build: %v\n%s", err, b)
	}
	return os.ReadFile(out)
}
