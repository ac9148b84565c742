package release

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	v1 "github.com/google/go-containerregistry/pkg/v1"
)

// compile cross-compiles o.Main for p and returns the executable's bytes.
// The flags are GoReleaser's (.goreleaser.yaml), so the binary in the image
// and the one in the release archive are built the same way: static
// (CGO_ENABLED=0, the base has no libc), -trimpath so no build path leaks
// into the image, and the version stamped with -X.
func compile(ctx context.Context, o Options, p v1.Platform) ([]byte, error) {
	tmp, err := os.MkdirTemp("", "imagebot-image-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	out := filepath.Join(tmp, "imagebot")

	// -buildvcs=false and the baseline CPU levels keep the bytes
	// independent of the machine: VCS stamping differs between a clone and
	// a worktree or a dirty tree (the revision is a label instead), and a
	// GOAMD64=v3 left in someone's environment would make an image that
	// crashes on older nodes.
	cmd := exec.CommandContext(ctx, "go", "build", "-trimpath", "-buildvcs=false",
		"-ldflags", "-s -w -X main.version="+o.Version, "-o", out, o.Main)
	cmd.Dir = o.Dir
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS="+p.OS, "GOARCH="+p.Architecture,
		"GOAMD64=v1", "GOARM64=v8.0", "GOARM="+strings.TrimPrefix(p.Variant, "v"))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("go build %s for %s: %w\n%s", o.Main, p, err, tail(stderr.String(), 4000))
	}
	return os.ReadFile(out)
}

// tail keeps the end of a compiler's output, where the error is, so that a
// failing build never floods the log.
func tail(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) <= n {
		return s
	}
	return "..." + s[len(s)-n:]
}
