package rewrite

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/imagebot/imagebot/internal/plan"
	"github.com/imagebot/imagebot/internal/scan"
)

const lockChart = "testdata/charts/original/umbrella/"

// TestChartLockRefusesStale: a lock whose digest does not match Chart.yaml
// before any change (stale, or hashed after resolving a repository alias)
// cannot be kept consistent: Chart.yaml and its lock stay as they were.
func TestChartLockRefusesStale(t *testing.T) {
	work := t.TempDir()
	copyDir(t, lockChart, work)
	lockFile := filepath.Join(work, "Chart.lock")
	stale, _ := os.ReadFile(lockFile)
	stale = []byte(strings.Replace(string(stale), "version: 2.19.2", "version: 2.19.3", 1))
	if err := os.WriteFile(lockFile, stale, 0o644); err != nil {
		t.Fatal(err)
	}
	before := readDir(t, work)
	src, _ := os.ReadFile(filepath.Join(work, "Chart.yaml"))
	res := scan.File("Chart.yaml", src)
	if len(res.Charts) == 0 {
		t.Fatal("no chart dependency found")
	}
	out, err := Files(work, []plan.Change{{Ref: res.Charts[0], Tag: "18.6.2"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Changed) != 0 || len(out.Problems) != 1 || !strings.Contains(out.Problems[0].Message, "out of sync") {
		t.Errorf("changed %v, problems %v; want nothing changed and one out-of-sync problem", out.Changed, out.Problems)
	}
	if after := readDir(t, work); after["Chart.yaml"] != before["Chart.yaml"] || after["Chart.lock"] != before["Chart.lock"] {
		t.Error("files changed")
	}
	if _, err := ChartLock(src, src, stale); !errors.Is(err, ErrLockOutOfSync) {
		t.Errorf("ChartLock: %v, want ErrLockOutOfSync", err)
	}
}

// TestChartLockHelm2: an apiVersion v1 chart whose requirements.lock
// carries Helm 2's digest keeps Helm 2's digest, as helm dependency build
// accepts it for v1 charts.
func TestChartLockHelm2(t *testing.T) {
	req := "apiVersion: v1\ndependencies:\n- name: redis\n  version: 10.5.7\n  repository: https://charts.example.com\n"
	c, _ := loadChart([]byte(req))
	sum, _ := hashV2Req(c.Dependencies, nil)
	lock := "dependencies:\n- name: redis\n  repository: https://charts.example.com\n  version: 10.5.7\ndigest: " + sum + "\ngenerated: 2020-01-01T00:00:00Z\n"
	edited := strings.Replace(req, "10.5.7", "10.5.8", 1)
	out, err := ChartLock([]byte(req), []byte(edited), []byte(lock))
	if err != nil {
		t.Fatal(err)
	}
	c2, _ := loadChart([]byte(edited))
	want, _ := hashV2Req(c2.Dependencies, nil)
	if got := string(out); got != strings.Replace(strings.Replace(lock, "10.5.7", "10.5.8", 1), sum, want, 1) {
		t.Errorf("lock:\n%s", got)
	}
}

// FuzzChartLock: on any lock bytes ChartLock does not panic, and what it
// returns differs from the lock only in versions and the digest.
func FuzzChartLock(f *testing.F) {
	chart, _ := os.ReadFile(lockChart + "Chart.yaml")
	lock, _ := os.ReadFile(lockChart + "Chart.lock")
	f.Add(lock)
	f.Add([]byte(strings.ReplaceAll(string(lock), "\n", "\r\n")))
	f.Add([]byte("digest: x\ndependencies: {}\n"))
	edited := []byte(strings.Replace(string(chart), "18.6.1", "18.6.2", 1))
	f.Fuzz(func(t *testing.T, lock []byte) {
		out, err := ChartLock(chart, edited, lock)
		if err != nil {
			return
		}
		l, err := scan.ReadLock(out)
		if err != nil {
			t.Fatalf("result does not read: %v", err)
		}
		if len(out)-len(lock) != len(l.Digest)-len(mustLock(t, lock).Digest) {
			t.Fatalf("size changed by more than the digest: %q -> %q", lock, out)
		}
	})
}

func mustLock(t *testing.T, src []byte) scan.Lock {
	l, err := scan.ReadLock(src)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// TestLockInMemory: Lock gives a commit built in memory what Files writes
// on disk: the same lock bytes for the same change, nothing for a chart
// without a lock, and an error (both files left alone) for a stale lock.
func TestLockInMemory(t *testing.T) {
	src, _ := os.ReadFile(lockChart + "Chart.yaml")
	lock, _ := os.ReadFile(lockChart + "Chart.lock")
	res := scan.File("umbrella/Chart.yaml", src)
	changes := []plan.Change{{Ref: res.Charts[0], Tag: "18.6.2"}}
	out, _, err := Bytes(src, changes)
	if err != nil {
		t.Fatal(err)
	}
	read := func(name string) ([]byte, bool) { return lock, name == "umbrella/Chart.lock" }
	name, got, err := Lock("umbrella/Chart.yaml", changes, src, out, read)
	if err != nil || name != "umbrella/Chart.lock" {
		t.Fatalf("Lock: %q, %v", name, err)
	}
	work := t.TempDir()
	copyDir(t, lockChart, work)
	if _, err := Files(work, []plan.Change{{Ref: scan.File("Chart.yaml", src).Charts[0], Tag: "18.6.2"}}); err != nil {
		t.Fatal(err)
	}
	if want := readDir(t, work)["Chart.lock"]; string(got) != want {
		t.Errorf("Lock wrote\n%s\nFiles wrote\n%s", got, want)
	}
	if name, _, err := Lock("umbrella/Chart.yaml", changes, src, out, func(string) ([]byte, bool) { return nil, false }); name != "" || err != nil {
		t.Errorf("no lock: %q, %v", name, err)
	}
	stale := []byte(strings.Replace(string(lock), "version: 2.19.2", "version: 2.19.3", 1))
	if _, _, err := Lock("umbrella/Chart.yaml", changes, src, out, func(string) ([]byte, bool) { return stale, true }); !errors.Is(err, ErrLockOutOfSync) {
		t.Errorf("stale lock: %v, want ErrLockOutOfSync", err)
	}
}
