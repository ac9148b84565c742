package cache_test

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/imagebot/imagebot/internal/registry/cache"
)

func digestOf(b []byte) string {
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// clock is a settable time for TTL tests.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

func newClock() *clock { return &clock{t: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)} }

func open(t *testing.T, dir string, opts ...cache.Option) *cache.Cache {
	t.Helper()
	c, err := cache.Open(dir, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// objectFiles lists the object files under dir.
func objectFiles(t *testing.T, dir string) []string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "v1", "sha256", "*", "*"))
	return files
}

func TestObjects(t *testing.T) {
	dir := t.TempDir()
	c := open(t, dir)
	manifest := []byte(`{"schemaVersion":2}`)
	d := digestOf(manifest)
	if _, ok := c.Get(d); ok {
		t.Fatal("hit in an empty cache")
	}
	want := cache.Object{MediaType: "application/vnd.oci.image.manifest.v1+json", Data: manifest}
	if err := c.Put(d, want); err != nil {
		t.Fatal(err)
	}
	got, ok := c.Get(d)
	if !ok {
		t.Fatal("miss after Put")
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("object (-want +got):\n%s", diff)
	}
	// Another Cache on the directory is another process: it sees it too.
	if _, ok := open(t, dir).Get(d); !ok {
		t.Error("a second Cache on the same directory misses")
	}
	if _, err := os.Stat(filepath.Join(dir, "CACHEDIR.TAG")); err != nil {
		t.Errorf("no CACHEDIR.TAG: %v", err)
	}
}

// TestObjectsNeverAnswerWrong: a caller cannot store content under a digest
// it does not hash to, and a file damaged on disk is a miss (and is
// removed), never an answer.
func TestObjectsNeverAnswerWrong(t *testing.T) {
	dir := t.TempDir()
	c := open(t, dir)
	data := []byte("config")
	if err := c.Put(digestOf([]byte("other")), cache.Object{Data: data}); err == nil {
		t.Error("Put accepted content under another digest")
	}
	for _, bad := range []string{"sha256:../../../etc/passwd", "sha256:ABC", "md5:abc", "", "sha256:" + strings.Repeat("A", 64)} {
		if err := c.Put(bad, cache.Object{Data: data}); err == nil {
			t.Errorf("Put(%q) accepted", bad)
		}
		if _, ok := c.Get(bad); ok {
			t.Errorf("Get(%q) hit", bad)
		}
	}

	d := digestOf(data)
	if err := c.Put(d, cache.Object{MediaType: "x", Data: data}); err != nil {
		t.Fatal(err)
	}
	files := objectFiles(t, dir)
	if len(files) != 1 {
		t.Fatalf("object files %v, want 1", files)
	}
	for name, damage := range map[string][]byte{
		"flipped byte": []byte("x\nconfiG"),
		"truncated":    []byte("x\nconf"),
		"no header":    []byte("config"),
		"empty":        nil,
	} {
		if err := os.WriteFile(files[0], damage, 0o600); err != nil {
			t.Fatal(err)
		}
		if o, ok := c.Get(d); ok {
			t.Errorf("%s: hit %q, want a miss", name, o.Data)
		}
		if _, err := os.Stat(files[0]); !os.IsNotExist(err) {
			t.Errorf("%s: damaged file kept", name)
		}
	}
}

func listing(host, repo string, checked time.Time, tags ...string) *cache.Listing {
	return &cache.Listing{Host: host, Repo: repo, Checked: checked,
		Pages: []cache.Page{{URL: "http://" + host + "/v2/" + repo + "/tags/list", ETag: `"e1"`, Tags: tags}}}
}

// TestListingFreshness: a listing, and the digests resolved with it, are
// answers for the TTL after the registry confirmed it, and only then.
func TestListingFreshness(t *testing.T) {
	clk := newClock()
	dir := t.TempDir()
	c := open(t, dir, cache.WithTTL(time.Hour), cache.WithClock(clk.now))
	d1 := digestOf([]byte("1"))

	// A digest without a listing is not kept: it would outlive nothing.
	if err := c.PutDigest("ghcr.io", "acme/api", "1.0.0", d1); err != nil {
		t.Fatal(err)
	}
	if _, ok := c.Digest("ghcr.io", "acme/api", "1.0.0"); ok {
		t.Error("digest kept without a listing")
	}

	if err := c.PutListing(listing("ghcr.io", "acme/api", clk.now(), "1.0.0", "1.1.0")); err != nil {
		t.Fatal(err)
	}
	if err := c.PutDigest("ghcr.io", "acme/api", "1.0.0", d1); err != nil {
		t.Fatal(err)
	}
	l, ok := c.Listing("ghcr.io", "acme/api")
	if !ok || !c.Fresh(l) {
		t.Fatalf("listing %+v, ok %v: want a fresh one", l, ok)
	}
	if diff := cmp.Diff([]string{"1.0.0", "1.1.0"}, l.Pages[0].Tags); diff != "" {
		t.Errorf("tags (-want +got):\n%s", diff)
	}
	if got, ok := c.Digest("ghcr.io", "acme/api", "1.0.0"); !ok || got != d1 {
		t.Errorf("Digest = %q, %v; want %s", got, ok, d1)
	}
	if _, ok := c.Listing("ghcr.io", "acme/web"); ok {
		t.Error("listing of another repository")
	}

	clk.add(59 * time.Minute)
	if _, ok := c.Digest("ghcr.io", "acme/api", "1.0.0"); !ok {
		t.Error("digest gone within the TTL")
	}
	clk.add(time.Minute)
	l, ok = c.Listing("ghcr.io", "acme/api")
	if !ok || c.Fresh(l) {
		t.Errorf("listing after the TTL: ok %v, fresh %v; want kept (for its validators) but stale", ok, ok && c.Fresh(l))
	}
	if _, ok := c.Digest("ghcr.io", "acme/api", "1.0.0"); ok {
		t.Error("digest served after its listing's TTL")
	}
	if err := c.PutDigest("ghcr.io", "acme/api", "1.1.0", d1); err != nil {
		t.Fatal(err)
	}
	if l, _ := c.Listing("ghcr.io", "acme/api"); l.Digests["1.1.0"] != "" {
		t.Error("digest added to a stale listing")
	}

	// A listing from the future (another machine's clock) is not fresh.
	c.PutListing(listing("ghcr.io", "acme/web", clk.now().Add(2*time.Hour), "1.0.0"))
	if l, _ := c.Listing("ghcr.io", "acme/web"); c.Fresh(l) {
		t.Error("a listing checked in the future counts as fresh")
	}

	// TTL 0: never fresh, always revalidated.
	c0 := open(t, dir, cache.WithTTL(0), cache.WithClock(clk.now))
	c0.PutListing(listing("ghcr.io", "acme/api", clk.now(), "1.0.0"))
	if l, _ := c0.Listing("ghcr.io", "acme/api"); c0.Fresh(l) {
		t.Error("TTL 0: fresh")
	}
}

// TestListingDamaged: a listing file that does not check out is a miss.
func TestListingDamaged(t *testing.T) {
	clk := newClock()
	dir := t.TempDir()
	c := open(t, dir, cache.WithClock(clk.now))
	l := listing("ghcr.io", "acme/api", clk.now(), "1.0.0")
	l.Digests = map[string]string{"1.0.0": digestOf([]byte("1"))}
	if err := c.PutListing(l); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "v1", "tags", "*", "*.json"))
	if len(files) != 1 {
		t.Fatalf("listing files %v", files)
	}
	orig, _ := os.ReadFile(files[0])

	// The same listing under the name of another repository: a copied
	// file must not answer for a repository it is not about.
	c.PutListing(listing("ghcr.io", "acme/web", clk.now(), "9.9.9"))
	other, _ := filepath.Glob(filepath.Join(dir, "v1", "tags", "*", "*.json"))
	other = slices.DeleteFunc(other, func(f string) bool { return f == files[0] })

	for name, damage := range map[string]func() error{
		"flipped byte": func() error {
			b := slices.Clone(orig)
			b[len(b)-3] ^= 1
			return os.WriteFile(files[0], b, 0o600)
		},
		"truncated": func() error { return os.WriteFile(files[0], orig[:len(orig)/2], 0o600) },
		"copied":    func() error { b, _ := os.ReadFile(other[0]); return os.WriteFile(files[0], b, 0o600) },
	} {
		if err := damage(); err != nil {
			t.Fatal(err)
		}
		if got, ok := c.Listing("ghcr.io", "acme/api"); ok {
			t.Errorf("%s: listing %+v, want a miss", name, got)
		}
		if _, ok := c.Digest("ghcr.io", "acme/api", "1.0.0"); ok {
			t.Errorf("%s: digest served", name)
		}
	}
	bad := listing("ghcr.io", "acme/api", clk.now())
	bad.Digests = map[string]string{"1.0.0": "sha256:nope"}
	if err := c.PutListing(bad); err == nil {
		t.Error("PutListing accepted a malformed digest")
	}
}

// TestPrune: beyond the size bound the least recently used files go first;
// files of a killed writer go after an hour; nothing outside the cache's
// own layout is touched.
func TestPrune(t *testing.T) {
	clk := newClock()
	dir := t.TempDir()
	mine := filepath.Join(dir, "notes.txt") // DIR shared with other things
	os.WriteFile(mine, []byte(strings.Repeat("n", 4096)), 0o600)
	c := open(t, dir, cache.WithMaxBytes(12_000), cache.WithClock(clk.now))

	var ds []string
	for i := range 4 {
		data := []byte(fmt.Sprintf("%d%s", i, strings.Repeat("x", 2999)))
		d := digestOf(data)
		ds = append(ds, d)
		if err := c.Put(d, cache.Object{Data: data}); err != nil {
			t.Fatal(err)
		}
		// Each file a minute older than the next; then 0 is read, which
		// makes it the most recently used.
		f := objectFiles(t, dir)
		for _, p := range f {
			if strings.HasSuffix(p, strings.TrimPrefix(d, "sha256:")) {
				os.Chtimes(p, clk.now(), clk.now())
			}
		}
		clk.add(time.Minute)
	}
	if _, ok := c.Get(ds[0]); !ok {
		t.Fatal("miss")
	}
	tmp := filepath.Join(dir, "v1", "sha256", ".tmp-123")
	os.WriteFile(tmp, []byte("half"), 0o600)
	os.Chtimes(tmp, clk.now().Add(-2*time.Hour), clk.now().Add(-2*time.Hour))

	freed, err := c.Prune()
	if err != nil {
		t.Fatal(err)
	}
	var kept []int
	for i, d := range ds {
		if _, ok := c.Get(d); ok {
			kept = append(kept, i)
		}
	}
	// 4 x 3,001 bytes over a bound of 12,000: the least recently used (1)
	// goes, and that is enough.
	if diff := cmp.Diff([]int{0, 2, 3}, kept); diff != "" {
		t.Errorf("objects kept (-want +got):\n%s", diff)
	}
	if freed != 3001+4 {
		t.Errorf("freed %d bytes, want %d", freed, 3001+4)
	}
	if _, err := os.Stat(tmp); !os.IsNotExist(err) {
		t.Error("a stale temporary file was kept")
	}
	if _, err := os.Stat(mine); err != nil {
		t.Errorf("a file outside the cache's layout was removed: %v", err)
	}
}

// TestConcurrentProcesses: two Caches on one directory (two processes)
// writing and reading the same entries at once never see a part of a
// file: every read is a miss or a whole, right answer.
func TestConcurrentProcesses(t *testing.T) {
	dir := t.TempDir()
	a, b := open(t, dir), open(t, dir)
	var wg sync.WaitGroup
	for w := range 8 {
		c := a
		if w%2 == 1 {
			c = b
		}
		wg.Go(func() {
			for i := range 50 {
				data := []byte(strings.Repeat(fmt.Sprint(i%5), 20_000))
				d := digestOf(data)
				if err := c.Put(d, cache.Object{MediaType: "m", Data: data}); err != nil {
					t.Error(err)
				}
				if o, ok := c.Get(d); ok && string(o.Data) != string(data) {
					t.Errorf("wrong content for %s", d)
				}
				tags := []string{fmt.Sprint(w), fmt.Sprint(i)}
				l := listing("ghcr.io", "acme/api", time.Now(), tags...)
				if err := c.PutListing(l); err != nil {
					t.Error(err)
				}
				if err := c.PutDigest("ghcr.io", "acme/api", tags[0], d); err != nil {
					t.Error(err)
				}
				if got, ok := c.Listing("ghcr.io", "acme/api"); ok && len(got.Pages[0].Tags) != 2 {
					t.Errorf("listing read half-written: %+v", got)
				}
			}
		})
	}
	wg.Wait()
	left, _ := filepath.Glob(filepath.Join(dir, "v1", "*", "*", ".tmp-*"))
	if len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
}
