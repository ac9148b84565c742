package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// TestDeployKeepsACache: every serve under deploy/ passes --cache on a
// volume it may write, so that a run in the cluster does not fetch the
// Sigstore trust root and the registry answers anew each time the volume
// outlives it. Without --cache, or with it on the read-only root
// filesystem or on /tmp, the test fails.
func TestDeployKeepsACache(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(repoRoot, "deploy", "*", "*.yaml"))
	serves := 0
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
		containers, _ := dig(pod, "containers").([]any)
		for _, c := range containers {
			serves++
			checkCacheVolume(t, f, pod, c)
		}
	}
	if serves != 3 {
		t.Errorf("found %d serve containers under deploy/, want 3", serves)
	}
}

// checkCacheVolume: c's --cache lies on one of pod's emptyDir or
// persistentVolumeClaim volumes, and not on /tmp, which holds scratch
// files only.
func checkCacheVolume(t *testing.T, file string, pod, c any) {
	t.Helper()
	var args []string
	raw, _ := dig(c, "args").([]any)
	for _, a := range raw {
		s, _ := a.(string)
		args = append(args, s)
	}
	if len(args) == 0 || args[0] != "serve" {
		return // TestDeployManifests reports it
	}
	o, err := parseServe(args[1:], environ{GitHubToken: "from-the-secret", JobIndex: "0"})
	if err != nil {
		return // TestDeployManifests reports it
	}
	dir := o.Cache.Dir
	if dir == "" {
		t.Errorf("%s: serve without --cache: every run fetches the trust root and the registry answers anew", file)
		return
	}
	kinds := map[string]string{} // volume name -> emptyDir or persistentVolumeClaim
	vols, _ := dig(pod, "volumes").([]any)
	for _, v := range vols {
		m, _ := v.(map[string]any)
		name, _ := m["name"].(string)
		for _, k := range []string{"emptyDir", "persistentVolumeClaim"} {
			if _, ok := m[k]; ok {
				kinds[name] = k
			}
		}
	}
	mounts, _ := dig(c, "volumeMounts").([]any)
	for _, m := range mounts {
		path, _ := dig(m, "mountPath").(string)
		name, _ := dig(m, "name").(string)
		if dir != path && !strings.HasPrefix(dir, strings.TrimSuffix(path, "/")+"/") {
			continue
		}
		switch {
		case path == "/tmp":
			t.Errorf("%s: --cache %s is on /tmp: put it on the work volume", file, dir)
		case kinds[name] == "":
			t.Errorf("%s: --cache %s is on volume %q, neither an emptyDir nor a PersistentVolumeClaim", file, dir, name)
		case dig(m, "readOnly") == true:
			t.Errorf("%s: --cache %s is on a read-only mount", file, dir)
		}
		return
	}
	t.Errorf("%s: --cache %s is on no volume: the root filesystem is read-only", file, dir)
}
