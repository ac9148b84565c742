package main

import (
	"strings"
	"testing"
)

// checkCacheVolume: a serve under deploy/ passes --cache on one of its
// pod's emptyDir or persistentVolumeClaim volumes, so that a run in the
// cluster does not fetch the Sigstore trust root and the registry
// answers anew each time the volume outlives it; not on the read-only
// root filesystem, and not on /tmp, which holds scratch files only.
func checkCacheVolume(t *testing.T, file string, o *serveOptions, pod, c any) {
	t.Helper()
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
