package release

import (
	"os"
	"path/filepath"
	"testing"
)

// TestImageHasNoShell: the release image is the binary, CA certificates
// and a user, with no shell: GitLab CI, which runs a job's script in a
// shell, cannot run it as a job's image. The GitLab CI job init writes
// runs in Alpine and installs the release archive instead
// (adopt.GitLabImage, TestGitLabCIImage); docs/gitlab.md says so.
func TestImageHasNoShell(t *testing.T) {
	root := extract(t, assemble(t, []byte("\x7fELF not really"), Options{Main: "./cmd/bot", Version: "1.2.3", Created: commitTime}))
	for _, sh := range []string{"bin/sh", "bin/bash", "bin/busybox", "usr/bin/sh"} {
		if _, err := os.Lstat(filepath.Join(root, sh)); err == nil {
			t.Errorf("the image has /%s: GitLab CI could run it directly; docs/gitlab.md says it cannot", sh)
		}
	}
}
