package gittest

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"
)

// fixtureDate pins the initial commit's dates so the same files give the
// same commit SHA on every run, which keeps golden test output stable.
const fixtureDate = "2024-01-01T00:00:00Z"

// CreateRepo creates the bare repository owner/name with one initial commit
// holding files (slash-separated paths relative to the repository root) on
// branch, which also becomes HEAD, the repository's default branch. An empty
// branch means "main". It returns the bare repository's directory.
func (s *Server) CreateRepo(owner, name string, files map[string][]byte, branch string) (string, error) {
	if branch == "" {
		branch = "main"
	}
	if err := validName(owner); err != nil {
		return "", fmt.Errorf("create repo %s/%s: owner: %w", owner, name, err)
	}
	if err := validName(strings.TrimSuffix(name, ".git")); err != nil {
		return "", fmt.Errorf("create repo %s/%s: name: %w", owner, name, err)
	}
	dir := s.Dir(owner, name)
	if _, err := os.Stat(dir); err == nil {
		return "", fmt.Errorf("create repo %s/%s: already exists", owner, name)
	}
	if err := initialCommit(dir, files, branch); err != nil {
		os.RemoveAll(dir)
		return "", fmt.Errorf("create repo %s/%s: %w", owner, name, err)
	}
	return dir, nil
}

func validName(n string) error {
	if n == "" || n == "." || n == ".." || strings.ContainsAny(n, `/\:`) {
		return fmt.Errorf("invalid name %q", n)
	}
	return nil
}

// initialCommit makes dir a bare repository whose branch holds one commit
// of files, built in process with go-git: the objects, loose, and the
// commit are byte for byte what `git init --bare`, `git add` and `git
// commit` make (TestCreateRepoAsGit), without their five processes per
// repository.
func initialCommit(dir string, files map[string][]byte, branch string) error {
	root := &dirEntry{children: map[string]*dirEntry{}}
	for name, data := range files {
		if !filepath.IsLocal(filepath.FromSlash(name)) {
			return fmt.Errorf("file %q: not a relative path inside the repository", name)
		}
		root.add(strings.Split(path.Clean(name), "/"), data)
	}
	r, err := git.PlainInitWithOptions(dir, &git.PlainInitOptions{
		Bare:        true,
		InitOptions: git.InitOptions{DefaultBranch: plumbing.NewBranchReferenceName(branch)},
	})
	if err != nil {
		return err
	}
	tree, err := root.store(r.Storer)
	if err != nil {
		return err
	}
	when, err := time.Parse(time.RFC3339, fixtureDate)
	if err != nil {
		return err
	}
	who := object.Signature{Name: fixtureName, Email: fixtureEmail, When: when}
	commit, err := storeObject(r.Storer, &object.Commit{Author: who, Committer: who, Message: "Initial commit\n", TreeHash: tree})
	if err != nil {
		return err
	}
	return r.Storer.SetReference(plumbing.NewHashReference(plumbing.NewBranchReferenceName(branch), commit))
}

// The identity of fixture commits, also given to the git CLI's commits.
const (
	fixtureName  = "imagebot fixture"
	fixtureEmail = "fixture@imagebot.invalid"
)

// dirEntry is a directory of the initial tree (children) or a file (data).
type dirEntry struct {
	children map[string]*dirEntry
	data     []byte
}

func (d *dirEntry) add(parts []string, data []byte) {
	if len(parts) == 1 {
		d.children[parts[0]] = &dirEntry{data: data}
		return
	}
	c := d.children[parts[0]]
	if c == nil || c.children == nil {
		c = &dirEntry{children: map[string]*dirEntry{}}
		d.children[parts[0]] = c
	}
	c.add(parts[1:], data)
}

// store writes the directory's blobs and trees and returns its tree's hash.
// Entries are in git's order, where a directory sorts as its name plus "/".
func (d *dirEntry) store(st storer.EncodedObjectStorer) (plumbing.Hash, error) {
	var t object.Tree
	for name, c := range d.children {
		e := object.TreeEntry{Name: name, Mode: filemode.Regular}
		var err error
		if c.children != nil {
			e.Mode = filemode.Dir
			e.Hash, err = c.store(st)
		} else {
			e.Hash, err = storeBlob(st, c.data)
		}
		if err != nil {
			return plumbing.ZeroHash, err
		}
		t.Entries = append(t.Entries, e)
	}
	key := func(e object.TreeEntry) string {
		if e.Mode == filemode.Dir {
			return e.Name + "/"
		}
		return e.Name
	}
	sort.Slice(t.Entries, func(i, j int) bool { return key(t.Entries[i]) < key(t.Entries[j]) })
	return storeObject(st, &t)
}

func storeBlob(st storer.EncodedObjectStorer, data []byte) (plumbing.Hash, error) {
	o := st.NewEncodedObject()
	o.SetType(plumbing.BlobObject)
	w, err := o.Writer()
	if err != nil {
		return plumbing.ZeroHash, err
	}
	if _, err := w.Write(data); err != nil {
		return plumbing.ZeroHash, err
	}
	if err := w.Close(); err != nil {
		return plumbing.ZeroHash, err
	}
	return st.SetEncodedObject(o)
}

func storeObject(st storer.EncodedObjectStorer, obj interface {
	Encode(plumbing.EncodedObject) error
}) (plumbing.Hash, error) {
	o := st.NewEncodedObject()
	if err := obj.Encode(o); err != nil {
		return plumbing.ZeroHash, err
	}
	return st.SetEncodedObject(o)
}

// gitOutput runs the git CLI isolated from the user's configuration (no
// signing, hooks paths or default-branch settings leak into fixtures) and
// returns its stdout.
func gitOutput(dir string, env []string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(isolatedGitEnv(), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		var exit *exec.ExitError
		if errors.As(err, &exit) && msg != "" {
			return "", fmt.Errorf("git %s: %s", args[0], msg)
		}
		return "", fmt.Errorf("git %s: %w", args[0], err)
	}
	return stdout.String(), nil
}

// isolatedGitEnv is the environment minus anything that points git at
// another repository or configuration (GIT_DIR from a hook, a global
// init.defaultBranch, commit signing), plus a fixed identity.
func isolatedGitEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GIT_") {
			env = append(env, kv)
		}
	}
	return append(env,
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_CONFIG_GLOBAL="+os.DevNull,
		"GIT_TERMINAL_PROMPT=0",
		"GIT_AUTHOR_NAME="+fixtureName,
		"GIT_AUTHOR_EMAIL="+fixtureEmail,
		"GIT_COMMITTER_NAME="+fixtureName,
		"GIT_COMMITTER_EMAIL="+fixtureEmail,
	)
}
