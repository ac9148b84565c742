package release

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// TestDeployUsesTheImage: every pod under deploy/ runs the image this
// package builds, at a release tag, as the user the image declares, with a
// writable /tmp (the image's root filesystem is mounted read-only there).
func TestDeployUsesTheImage(t *testing.T) {
	release := regexp.MustCompile(`^ghcr\.io/imagebot/imagebot:v\d+\.\d+\.\d+$`)
	files, _ := filepath.Glob(filepath.Join(repoRoot, "deploy", "*", "*.yaml"))
	pods := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		node, err := yaml.Parse(string(b))
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		obj, _ := node.Map()
		var pod any
		switch node.GetKind() {
		case "Deployment", "Job":
			pod = dig(obj, "spec", "template", "spec")
		case "CronJob":
			pod = dig(obj, "spec", "jobTemplate", "spec", "template", "spec")
		default:
			continue
		}
		pods++
		for _, k := range []string{"runAsUser", "runAsGroup"} {
			if got := dig(pod, "securityContext", k); got != uid {
				t.Errorf("%s: securityContext.%s = %v, want %d, the image's user", f, k, got, uid)
			}
		}
		containers, _ := dig(pod, "containers").([]any)
		for _, c := range containers {
			if img, _ := dig(c, "image").(string); !release.MatchString(img) {
				t.Errorf("%s: image %q, want ghcr.io/imagebot/imagebot:vX.Y.Z, the image `make image` builds", f, img)
			}
			tmp := false
			mounts, _ := dig(c, "volumeMounts").([]any)
			for _, m := range mounts {
				tmp = tmp || dig(m, "mountPath") == "/tmp"
			}
			if dig(c, "securityContext", "readOnlyRootFilesystem") == true && !tmp {
				t.Errorf("%s: read-only root filesystem without a volume at /tmp", f)
			}
		}
	}
	if pods != 3 {
		t.Errorf("found %d pod templates under deploy/, want 3", pods)
	}
}
