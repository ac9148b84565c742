package release

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
)

// Options describe one image build. Build validates them before compiling
// anything, so a typo fails in a second, not after two cross-compilations.
type Options struct {
	// Dir is the module root that Main is relative to.
	Dir string
	// Main is the package to compile into /imagebot, e.g. "./cmd/bot".
	Main string
	// Platforms are the images in the index; linux only, since the base is
	// a Linux filesystem.
	Platforms []v1.Platform
	// Version is stamped into the binary (-X main.version) and the labels.
	Version string
	// Revision is the commit the image is built from (a label).
	Revision string
	// Source is the repository URL (a label; GitHub links the package to it).
	Source string
	// Created is the commit time: the only timestamp in the image, so that
	// one commit always gives one digest.
	Created time.Time
	// Compile builds the executable for one platform; nil means the release
	// build (static, -trimpath, baseline CPU levels). Tests set it to a plain
	// `go build`, which reuses the build cache that `go test` filled: the
	// release flags change every package's build key, so a cold release
	// build recompiles the whole dependency tree (minutes on a 2-core CI).
	Compile func(ctx context.Context, o Options, p v1.Platform) ([]byte, error)
}

// DefaultPlatforms are the platforms of a release image.
var DefaultPlatforms = []v1.Platform{
	{OS: "linux", Architecture: "amd64"},
	{OS: "linux", Architecture: "arm64"},
}

// ParsePlatforms reads a comma-separated list such as
// "linux/amd64,linux/arm64".
func ParsePlatforms(s string) ([]v1.Platform, error) {
	var out []v1.Platform
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		p, err := v1.ParsePlatform(f)
		if err != nil || f == "" {
			return nil, fmt.Errorf("platform %q: want OS/ARCH such as linux/amd64", f)
		}
		out = append(out, *p)
	}
	return out, nil
}

func (o Options) validate() error {
	var errs []error
	if o.Main == "" {
		errs = append(errs, errors.New("no package to build (Main)"))
	}
	if o.Version == "" {
		errs = append(errs, errors.New("no version: pass the release version, e.g. 1.2.3"))
	}
	if o.Created.IsZero() {
		errs = append(errs, errors.New("no creation time: pass the commit time (SOURCE_DATE_EPOCH) so that builds are reproducible"))
	}
	if len(o.Platforms) == 0 {
		errs = append(errs, errors.New("no platforms"))
	}
	seen := map[string]bool{}
	for _, p := range o.Platforms {
		if p.OS != "linux" {
			errs = append(errs, fmt.Errorf("platform %s: the image's base is a Linux filesystem; build linux/ARCH", p))
		}
		if seen[p.String()] {
			errs = append(errs, fmt.Errorf("platform %s given twice", p))
		}
		seen[p.String()] = true
	}
	return errors.Join(errs...)
}
