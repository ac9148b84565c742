package config

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"testing/fstest"
)

func TestFindFS(t *testing.T) {
	bad := &fstest.MapFile{Data: []byte("policies:\n  - match: a.io/x\n    alow: minor\n")}
	tests := []struct {
		name     string
		fsys     fstest.MapFS
		where    string
		wantFile string // Config.File
		wantErr  string
	}{
		{"no config is the default", fstest.MapFS{"apps/x.yaml": {}}, "", "", ""},
		{".imagebot.yaml", fstest.MapFS{".imagebot.yaml": {Data: []byte("schedule: '@daily'\n")}}, "", ".imagebot.yaml", ""},
		{".imagebot.yml", fstest.MapFS{".imagebot.yml": {Data: []byte("schedule: '@daily'\n")}}, "", ".imagebot.yml", ""},
		// Errors name the file by its path in the repository, wherever
		// the tree comes from; a mistake in it, by its line alone.
		{"errors name the path in the repository", fstest.MapFS{".imagebot.yaml": bad}, "main@1a2b3c4d5e6f", "",
			`.imagebot.yaml:3:5: unknown key "alow" (did you mean "allow"?)`},
		{"both names", fstest.MapFS{".imagebot.yaml": {}, ".imagebot.yml": {}}, "", "",
			".imagebot.yml: both .imagebot.yaml and .imagebot.yml exist; keep one"},
		// A checkout may have one of them only: the commit has both.
		{"both names in a commit", fstest.MapFS{".imagebot.yaml": {}, ".imagebot.yml": {}}, "main@1a2b3c4d5e6f", "",
			".imagebot.yml: both .imagebot.yaml and .imagebot.yml exist in main@1a2b3c4d5e6f; keep one"},
		{"a directory is not a config", fstest.MapFS{".imagebot.yaml/x": {}}, "", "", ".imagebot.yaml: is not a regular file"},
		{"too large", fstest.MapFS{".imagebot.yaml": {Data: []byte("#" + strings.Repeat("x", maxSize))}}, "", "",
			".imagebot.yaml: config is larger than 1048576 bytes"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := FindFS(tc.fsys, tc.where)
			if tc.wantErr != "" {
				var errs *Errors
				if !errors.As(err, &errs) || err.Error() != tc.wantErr {
					t.Fatalf("FindFS = %v, want *Errors %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.File != tc.wantFile {
				t.Errorf("File = %q, want %q", c.File, tc.wantFile)
			}
		})
	}
}

// TestLoadFS: --config names a file of a tree (the commit run plans
// from) by its path in the repository, which may not leave it.
func TestLoadFS(t *testing.T) {
	fsys := fstest.MapFS{"ci/imagebot.yaml": {Data: []byte("schedule: '@daily'\n")}}
	for _, file := range []string{"ci/imagebot.yaml", "./ci/imagebot.yaml", "ci/../ci/imagebot.yaml"} {
		c, err := LoadFS(fsys, file, "main@1a2b3c4d5e6f")
		if err != nil || c.Schedule != "@daily" || c.File != "ci/imagebot.yaml" {
			t.Errorf("LoadFS(%q) = %+v, %v; want ci/imagebot.yaml's config", file, c, err)
		}
	}
	_, err := LoadFS(fsys, "ci/missing.yaml", "main@1a2b3c4d5e6f")
	if want := "read config ci/missing.yaml in main@1a2b3c4d5e6f: file does not exist"; !errors.Is(err, fs.ErrNotExist) || err.Error() != want {
		t.Errorf("LoadFS of a missing file = %v, want fs.ErrNotExist as %q", err, want)
	}
	for _, file := range []string{"../imagebot.yaml", "ci/../../imagebot.yaml"} {
		_, err := LoadFS(fsys, file, "main@1a2b3c4d5e6f")
		if want := "config " + file + " is outside the repository: give a path inside it, or an absolute path"; err == nil || err.Error() != want {
			t.Errorf("LoadFS(%q) = %v, want %q", file, err, want)
		}
	}
}

// TestLoadIn checks that --config is resolved against the repository, not
// the working directory, and cannot leave it.
func TestLoadIn(t *testing.T) {
	repo, elsewhere := t.TempDir(), t.TempDir()
	write(t, repo, "ci/imagebot.yaml", "schedule: '@daily'\n")
	write(t, repo, "bad.yaml", "skip: true\n")
	write(t, elsewhere, "secret.yaml", "token: hunter2\n")
	write(t, elsewhere, "ci/imagebot.yaml", "schedule: '@hourly'\n")
	t.Chdir(elsewhere) // a file of the same name here must not be read

	c, err := LoadIn(repo, "ci/imagebot.yaml")
	if err != nil || c.Schedule != "@daily" {
		t.Fatalf("LoadIn(repo, relative) = %+v, %v; want the repository's file", c, err)
	}
	if want := filepath.Join(repo, "ci/imagebot.yaml"); c.File != want {
		t.Errorf("File = %q, want %q", c.File, want)
	}
	_, err = LoadIn(repo, "bad.yaml")
	if want := filepath.Join(repo, "bad.yaml") + `:1:1: unknown key "skip"`; err == nil || err.Error() != want {
		t.Errorf("LoadIn(bad) = %v, want %s", err, want)
	}
	if c, err := LoadIn(repo, filepath.Join(elsewhere, "ci/imagebot.yaml")); err != nil || c.Schedule != "@hourly" {
		t.Errorf("LoadIn(absolute) = %+v, %v; want the named file", c, err)
	}
	if _, err := LoadIn(repo, "../"+filepath.Base(elsewhere)+"/secret.yaml"); err == nil || !strings.Contains(err.Error(), "outside the repository") {
		t.Errorf("LoadIn(../) = %v, want an error saying it is outside the repository", err)
	}
	// A link out of the repository is refused: its content could be any
	// file on the machine, echoed in error messages.
	if err := os.Symlink(filepath.Join(elsewhere, "secret.yaml"), filepath.Join(repo, "link.yaml")); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadIn(repo, "link.yaml"); err == nil || strings.Contains(err.Error(), "hunter2") {
		t.Errorf("LoadIn(link out of the repository) = %v, want a refusal", err)
	}
	if _, err := LoadIn(repo, "missing.yaml"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("LoadIn(missing) = %v, want fs.ErrNotExist", err)
	}
}

func TestFindRefuses(t *testing.T) {
	t.Run("link out of the repository", func(t *testing.T) {
		repo, elsewhere := t.TempDir(), t.TempDir()
		write(t, elsewhere, "environ", "policies: GITHUB_TOKEN=ghp_secret\n")
		if err := os.Symlink(filepath.Join(elsewhere, "environ"), filepath.Join(repo, ".imagebot.yaml")); err != nil {
			t.Fatal(err)
		}
		_, err := Find(repo)
		if err == nil || strings.Contains(err.Error(), "ghp_secret") {
			t.Errorf("Find = %v, want a refusal that does not echo the file", err)
		}
	})
	t.Run("link inside the repository", func(t *testing.T) {
		repo := t.TempDir()
		write(t, repo, "config/imagebot.yaml", "schedule: '@daily'\n")
		if err := os.Symlink("config/imagebot.yaml", filepath.Join(repo, ".imagebot.yaml")); err != nil {
			t.Fatal(err)
		}
		if c, err := Find(repo); err != nil || c.Schedule != "@daily" {
			t.Errorf("Find = %+v, %v", c, err)
		}
	})
	t.Run("a FIFO would block", func(t *testing.T) {
		repo := t.TempDir()
		if err := syscall.Mkfifo(filepath.Join(repo, ".imagebot.yaml"), 0o644); err != nil {
			t.Skipf("mkfifo: %v", err)
		}
		_, err := Find(repo)
		if want := filepath.Join(repo, ".imagebot.yaml") + ": is not a regular file"; err == nil || err.Error() != want {
			t.Errorf("Find = %v, want %s", err, want)
		}
	})
	t.Run("no repository", func(t *testing.T) {
		// Not the default config: a typo in --repo must not pass silently.
		if _, err := Find(filepath.Join(t.TempDir(), "nope")); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("Find = %v, want fs.ErrNotExist", err)
		}
	})
}

func write(t *testing.T, dir, name, data string) {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}
