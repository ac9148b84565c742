package gitops_test

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/imagebot/imagebot/internal/gitops"
	"github.com/imagebot/imagebot/internal/rollout"
	"github.com/imagebot/imagebot/internal/scan"
	"github.com/imagebot/imagebot/internal/testing/githubtest"
	"github.com/imagebot/imagebot/internal/testing/gittest"
)

// A history whose size is one big file: versions commits, each changing a
// line of a file of size bytes (a generated ConfigMap, as a bundled CRD
// or a dashboard is), beside one small manifest that the root adds and
// nothing changes again. Git keeps it small (each version is a delta of a
// few bytes); a session that inflates every version holds versions × size.

const (
	bigFile   = "envs/staging/dashboards.yaml"
	smallFile = "envs/staging/app.yaml"
)

type bigHistory struct {
	opts     gitops.Options
	versions int
	size     int
}

func newBigHistory(tb testing.TB, versions, size int) *bigHistory {
	tb.Helper()
	gs, err := gittest.New(gittest.TempDir(tb), token)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(gs.Close)
	dir, err := gs.CreateRepo(owner, name, map[string][]byte{smallFile: []byte(deployment("ghcr.io/acme/app:1.0.0"))}, main_)
	if err != nil {
		tb.Fatal(err)
	}
	// The stream goes to git as it is written: the test process holds
	// one version at a time, so that its peak is the session's.
	cmd := exec.Command("git", "--git-dir="+dir, "fast-import", "--quiet")
	in, err := cmd.StdinPipe()
	if err != nil {
		tb.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	w := bufio.NewWriter(in)
	lines := bigLines(size)
	for i := 1; i <= versions; i++ {
		lines[i%len(lines)] = fmt.Sprintf("  k%06d: %032d\n", i%len(lines), i)
		msg := fmt.Sprintf("dashboards %d", i)
		when := historyStart.Add(time.Duration(i) * time.Hour)
		fmt.Fprintf(w, "commit refs/heads/%s\ncommitter %s <%s> %d +0000\ndata %d\n%s\n", main_, human.Name, human.Email, when.Unix(), len(msg), msg)
		if i == 1 {
			fmt.Fprintf(w, "from refs/heads/%s^0\n", main_)
		}
		n := 0
		for _, l := range lines {
			n += len(l)
		}
		fmt.Fprintf(w, "M 100644 inline %s\ndata %d\n", bigFile, n)
		for _, l := range lines {
			w.WriteString(l)
		}
		w.WriteString("\n")
	}
	if err := w.Flush(); err != nil {
		tb.Fatal(err)
	}
	in.Close()
	if err := cmd.Wait(); err != nil {
		tb.Fatalf("git fast-import: %v: %s", err, stderr.String())
	}
	now := historyStart.Add(time.Duration(versions+1) * time.Hour)
	gh := githubtest.New(githubtest.WithToken(token), githubtest.WithClock(func() time.Time { return now }))
	tb.Cleanup(gh.Close)
	gh.AddRepo(owner, name, main_, githubtest.BareRepos(gs.Dir), githubtest.WithCloneURL(gs.URL(owner+"/"+name)))
	return &bigHistory{
		opts:     gitops.Options{URL: gs.URL(owner + "/" + name), Repository: owner + "/" + name, APIURL: gh.URL(), Token: token},
		versions: versions, size: size,
	}
}

// bigLines is a ConfigMap of about size bytes, one random value a line,
// so that no version compresses to nothing.
func bigLines(size int) []string {
	r := rand.New(rand.NewPCG(1, 2))
	lines := []string{"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: dashboards\ndata:\n"}
	for n := len(lines[0]); n < size; {
		l := fmt.Sprintf("  k%06d: %032x\n", len(lines), r.Uint64())
		lines = append(lines, l)
		n += len(l)
	}
	return lines
}

// walk is what rollouts ask of the history at worst: every commit that
// changed the small file (the root, the whole way back) and every version
// of the big one (the first bump added it), each read.
func (h *bigHistory) walk(tb testing.TB, s *gitops.Session) {
	tb.Helper()
	ctx := context.Background()
	var small, big int
	err := s.Changes(ctx, func(f string) bool { return f == smallFile }, func(rollout.Change) bool { small++; return true })
	if err != nil {
		tb.Fatal(err)
	}
	err = s.Changes(ctx, func(f string) bool { return f == bigFile }, func(ch rollout.Change) bool {
		if b := ch.Before[bigFile]; b != nil && len(b) < h.size {
			tb.Errorf("commit %s: %s is %d bytes before it", ch.Short(), bigFile, len(b))
		}
		big++
		return true
	})
	if err != nil {
		tb.Fatal(err)
	}
	if small != 1 || big != h.versions {
		tb.Errorf("walks saw %d commits changing %s and %d changing %s; want 1 and %d", small, smallFile, big, bigFile, h.versions)
	}
}

// BenchmarkSessionBigHistory is a run's session over 300 versions of a
// 1 MiB file: opening it (the fetch: a run without rollouts), and opening
// it and walking its history to the root as rollouts do at worst. Each
// reports the process's peak RSS over that (the high-water mark is reset
// first, where Linux allows), which the shipped manifests' 512Mi limit
// must hold with room for the rest of a run.
func BenchmarkSessionBigHistory(b *testing.B) {
	h := newBigHistory(b, 300, 1<<20)
	for _, walk := range []bool{false, true} {
		b.Run(fmt.Sprintf("walk=%t", walk), func(b *testing.B) {
			runtime.GC()
			resetPeakRSS()
			for b.Loop() {
				s := h.open(b)
				if walk {
					h.walk(b, s)
				}
				closeSession(s)
			}
			if kb, ok := peakRSS(); ok {
				b.ReportMetric(float64(kb)/1024, "peak-RSS-MiB")
			}
		})
	}
}

func (h *bigHistory) open(tb testing.TB) *gitops.Session {
	tb.Helper()
	s, err := gitops.Open(context.Background(), h.opts)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { s.Close() })
	return s
}

func closeSession(s *gitops.Session) { s.Close() }

// resetPeakRSS resets the process's VmHWM (Linux: clear_refs 5).
func resetPeakRSS() { _ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) }

// peakRSS is the process's VmHWM in KiB.
func peakRSS() (int, bool) {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, false
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			n, err := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")))
			return n, err == nil
		}
	}
	return 0, false
}

// TestSessionFSConcurrent: scan reads the session's tip from several
// goroutines (run with -race); the clone's pack files, read from disk, are
// not safe for that by themselves.
func TestSessionFSConcurrent(t *testing.T) {
	t.Parallel()
	h := newHistoryRepo(t, 4, 40)
	s := h.open(t)
	want, err := scan.FS(context.Background(), s.FS(), h.cfg.Included)
	if err != nil || len(want.Refs) == 0 {
		t.Fatalf("scan: %d references, %v", len(want.Refs), err)
	}
	var wg sync.WaitGroup
	results := make([]int, 8)
	for i := range results {
		wg.Go(func() {
			res, err := scan.FS(context.Background(), s.FS(), h.cfg.Included)
			if err != nil {
				t.Error(err)
			}
			results[i] = len(res.Refs)
		})
	}
	wg.Wait()
	for _, n := range results {
		if n != len(want.Refs) {
			t.Errorf("scans found %v references; want %d each", results, len(want.Refs))
			break
		}
	}
}

// TestSessionReadsWhatIsAsked: a session reads the content of the files a
// question is about, each version once, and nothing else: opening it reads
// no file (the tree's sizes come from pack headers), and a walk about a
// file that never changed reads none of the versions of the big one that
// changed in every commit.
func TestSessionReadsWhatIsAsked(t *testing.T) {
	t.Parallel()
	const versions, size = 30, 256 << 10
	h := newBigHistory(t, versions, size)
	s := h.open(t)
	if n := gitops.BlobBytes(s); n != 0 {
		t.Errorf("Open read %d bytes of files; want none", n)
	}
	ctx := context.Background()
	commits := 0
	err := s.Changes(ctx, func(f string) bool { return f == smallFile }, func(rollout.Change) bool { commits++; return true })
	if err != nil || commits != 1 {
		t.Fatalf("walk of %s: %d commits, %v", smallFile, commits, err)
	}
	if n := gitops.BlobBytes(s); n != 0 {
		t.Errorf("the walk about %s read %d bytes of files; want none", smallFile, n)
	}
	err = s.Changes(ctx, func(f string) bool { return f == bigFile }, func(rollout.Change) bool { return true })
	if err != nil {
		t.Fatal(err)
	}
	// Every version but the last is read once, as it was before the
	// commit after it; the first bump added the file.
	if n, most := gitops.BlobBytes(s), int64((versions-1)*(size+64)); n < int64((versions-1)*size) || n > most {
		t.Errorf("the walk about %s read %d bytes; want each of its %d earlier versions once (%d-%d)", bigFile, n, versions-1, (versions-1)*size, most)
	}
}

// TestSessionMemoryBounded: what a session holds once it has fetched a
// history of 72 versions of a 1 MiB file and walked it all, reading each
// version, is its bounded caches, not the history: the live heap grows by
// at most the object cache's bound and 12 MiB, half the 72 MiB the
// versions take inflated. (It was 100 versions against half their size:
// the same check, the cache's bound written out; BenchmarkSessionBigHistory
// keeps 300 versions in make bench.) Not parallel, so that the heap is
// this test's alone.
func TestSessionMemoryBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("builds 72 MiB of history")
	}
	const versions, size = 72, 1 << 20
	h := newBigHistory(t, versions, size)
	before := liveHeap()
	s := h.open(t)
	h.walk(t, s)
	held := liveHeap() - before
	runtime.KeepAlive(s)
	t.Logf("the session holds %d MiB", held>>20)
	if most := uint64(gitops.ObjectCacheSize + 12<<20); held > most || most > versions*size/2 {
		t.Errorf("the session holds %d MiB after the walk; want at most %d MiB (its caches), half the history", held>>20, most>>20)
	}
	s.Close()
}

// liveHeap is the heap's live bytes after a collection.
func liveHeap() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// TestSessionCloseRemovesClone: the clone lives in TMPDIR until Close.
func TestSessionCloseRemovesClone(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	h := newHistoryRepo(t, 2, 0)
	s := h.open(t)
	if es, _ := os.ReadDir(tmp); len(es) != 1 {
		t.Fatalf("TMPDIR holds %v; want the session's clone", es)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if es, _ := os.ReadDir(tmp); len(es) != 0 {
		t.Errorf("TMPDIR holds %v after Close; want nothing", es)
	}
}
