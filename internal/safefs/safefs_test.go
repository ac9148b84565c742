//go:build unix

package safefs

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"testing/fstest"
	"time"

	"github.com/google/go-cmp/cmp"
)

// repoWithTraps is a repository next to a directory outside it, with the
// ways out of a repository that config paths were measured to take: a link
// to a file outside, a link to a directory outside, a named pipe.
func repoWithTraps(t *testing.T) (repo, outside string) {
	t.Helper()
	base := t.TempDir()
	repo, outside = filepath.Join(base, "repo"), filepath.Join(base, "outside")
	for _, d := range []string{repo, outside, filepath.Join(repo, "keys")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write(t, filepath.Join(outside, "secret.pub"), "outside")
	write(t, filepath.Join(repo, "keys", "cosign.pub"), "inside")
	must(t, os.Symlink("../../outside/secret.pub", filepath.Join(repo, "keys", "out.pub")))
	must(t, os.Symlink("cosign.pub", filepath.Join(repo, "keys", "in.pub")))
	must(t, os.Symlink("../outside", filepath.Join(repo, ".github")))
	must(t, syscall.Mkfifo(filepath.Join(repo, "keys", "fifo.pub"), 0o644))
	return repo, outside
}

// TestReadStaysInside: a read never leaves the repository, never blocks on
// a named pipe, and stops at its limit.
func TestReadStaysInside(t *testing.T) {
	repo, _ := repoWithTraps(t)
	for _, tc := range []struct {
		name string
		want error
	}{
		{"keys/cosign.pub", nil},
		{"keys/in.pub", nil}, // a link that stays inside is followed
		{"keys/out.pub", ErrOutside},
		{"../outside/secret.pub", ErrOutside},
		{"/etc/hostname", ErrOutside},
		{".github/secret.pub", ErrOutside},
		{"keys/fifo.pub", ErrNotRegular},
		{"keys", ErrNotRegular},
	} {
		done := make(chan error, 1)
		go func() {
			b, err := ReadFile(repo, tc.name, 100)
			if err == nil && string(b) != "inside" {
				t.Errorf("ReadFile(%s) = %q, want the file inside", tc.name, b)
			}
			done <- err
		}()
		select {
		case err := <-done:
			if !errors.Is(err, tc.want) {
				t.Errorf("ReadFile(%s) = %v, want %v", tc.name, err, tc.want)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("ReadFile(%s) blocked", tc.name)
		}
	}
	var tl *TooLargeError
	if _, err := ReadFile(repo, "keys/cosign.pub", 3); !errors.As(err, &tl) || tl.Limit != 3 {
		t.Errorf("ReadFile over the limit = %v, want a *TooLargeError of 3", err)
	}
}

// TestDirFS: the same through the fs.FS that plan scans and reads keys
// from; ReadFS refuses a pipe of any fs.FS without opening it.
func TestDirFS(t *testing.T) {
	repo, _ := repoWithTraps(t)
	fsys := DirFS(repo)
	for name, want := range map[string]error{
		"keys/cosign.pub": nil, "keys/in.pub": nil,
		"keys/out.pub": ErrOutside, ".github/secret.pub": ErrOutside, "keys/fifo.pub": ErrNotRegular,
	} {
		if _, err := ReadFS(fsys, name, 100); !errors.Is(err, want) {
			t.Errorf("ReadFS(DirFS, %s) = %v, want %v", name, err, want)
		}
		if f, err := fsys.Open(name); !errors.Is(err, want) {
			t.Errorf("Open(%s) = %v, want %v", name, err, want)
		} else if err == nil {
			f.Close()
		}
	}
	mem := fstest.MapFS{"p": {Mode: fs.ModeNamedPipe}}
	if _, err := ReadFS(mem, "p", 100); !errors.Is(err, ErrNotRegular) {
		t.Errorf("ReadFS of a pipe = %v, want ErrNotRegular", err)
	}
	clean := t.TempDir()
	write(t, filepath.Join(clean, "a.yaml"), "a")
	must(t, os.Mkdir(filepath.Join(clean, "d"), 0o755))
	write(t, filepath.Join(clean, "d", "b.yaml"), "b")
	if err := fstest.TestFS(DirFS(clean), "a.yaml", "d/b.yaml"); err != nil {
		t.Error(err)
	}
}

// TestWriteStaysInside: init and apply write inside the repository only,
// never through a link, and replace a file whole.
func TestWriteStaysInside(t *testing.T) {
	repo, outside := repoWithTraps(t)
	for name, want := range map[string]error{
		".github/workflows/imagebot.yml": ErrOutside,
		"../outside/x.yaml":              ErrOutside,
		"keys/out.pub":                   ErrSymlink,
		"keys/in.pub":                    ErrSymlink,
	} {
		if err := WriteFile(repo, name, []byte("new"), 0o644); !errors.Is(err, want) {
			t.Errorf("WriteFile(%s) = %v, want %v", name, err, want)
		}
	}
	if got := tree(t, outside); !cmp.Equal(got, []string{"secret.pub"}) {
		t.Errorf("outside the repository now holds %q", got)
	}
	if b, _ := os.ReadFile(filepath.Join(repo, "keys", "cosign.pub")); string(b) != "inside" {
		t.Errorf("the link's target changed to %q", b)
	}

	must(t, WriteFile(repo, "apps/new/web.yaml", []byte("a"), 0o640))
	must(t, WriteFile(repo, "apps/new/web.yaml", []byte("replaced"), 0o640))
	if b, _ := os.ReadFile(filepath.Join(repo, "apps", "new", "web.yaml")); string(b) != "replaced" {
		t.Errorf("apps/new/web.yaml = %q", b)
	}
	if fi, _ := os.Stat(filepath.Join(repo, "apps", "new", "web.yaml")); fi.Mode().Perm() != 0o640 {
		t.Errorf("mode %v, want 0640", fi.Mode().Perm())
	}
	if got := tree(t, filepath.Join(repo, "apps", "new")); !cmp.Equal(got, []string{"web.yaml"}) {
		t.Errorf("temporary files left: %q", got)
	}
}

func tree(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	must(t, err)
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

func write(t *testing.T, p, s string) {
	t.Helper()
	must(t, os.WriteFile(p, []byte(s), 0o644))
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
