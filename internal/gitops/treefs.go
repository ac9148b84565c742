package gitops

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"
)

// treeFS is a read-only fs.FS over one commit's tree, so that `run` scans
// and reads its config from exactly the commit it commits onto, never from
// a checkout that may be stale or dirty.
//
// It holds the tree's directories and regular files (executable or not).
// Symlinks and submodules are left out: a symlink's target may lie outside
// the commit, and a submodule is another repository's commit; neither is a
// file imagebot could rewrite. The whole tree is indexed up front, because
// go-git's Tree builds a lookup map lazily and so is not safe for the
// concurrent reads that scan makes; afterwards every method is.
type treeFS struct {
	objects storer.EncodedObjectStorer
	when    time.Time // the commit's time: every ModTime
	nodes   map[string]*treeNode
}

type treeNode struct {
	name    string
	mode    filemode.FileMode
	hash    plumbing.Hash
	size    int64
	entries []fs.DirEntry // sorted by name; directories only
	fsys    *treeFS
}

var (
	_ fs.ReadDirFS  = (*treeFS)(nil)
	_ fs.ReadFileFS = (*treeFS)(nil)
	_ fs.StatFS     = (*treeFS)(nil)
)

// newTreeFS indexes c's tree.
func newTreeFS(objects storer.EncodedObjectStorer, c *object.Commit) (*treeFS, error) {
	root, err := c.Tree()
	if err != nil {
		return nil, fmt.Errorf("tree of %s: %w", c.Hash, err)
	}
	t := &treeFS{objects: objects, when: c.Committer.When, nodes: map[string]*treeNode{}}
	rootNode := &treeNode{name: ".", mode: filemode.Dir, hash: root.Hash, fsys: t}
	t.nodes["."] = rootNode
	if err := t.index(root, "", rootNode); err != nil {
		return nil, fmt.Errorf("tree of %s: %w", c.Hash, err)
	}
	return t, nil
}

func (t *treeFS) index(tree *object.Tree, dir string, parent *treeNode) error {
	for _, e := range tree.Entries {
		n := &treeNode{name: e.Name, mode: e.Mode, hash: e.Hash, fsys: t}
		switch {
		case e.Mode == filemode.Dir:
			sub, err := object.GetTree(t.objects, e.Hash)
			if err != nil {
				return fmt.Errorf("%s%s: %w", dir, e.Name, err)
			}
			if err := t.index(sub, dir+e.Name+"/", n); err != nil {
				return err
			}
		case e.Mode.IsFile() && e.Mode != filemode.Symlink:
			size, err := t.blobSize(e.Hash)
			if err != nil {
				return fmt.Errorf("%s%s: %w", dir, e.Name, err)
			}
			n.size = size
		default: // symlink or submodule
			continue
		}
		t.nodes[dir+e.Name] = n
		parent.entries = append(parent.entries, fs.FileInfoToDirEntry(n.info()))
	}
	// Git orders a directory "a" as "a/", after "a.yaml"; fs wants names.
	slices.SortFunc(parent.entries, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return nil
}

// sizer is a storage that tells an object's size from its header (in a
// pack: the delta's), without inflating it: go-git's on-disk storage.
type sizer interface {
	EncodedObjectSize(plumbing.Hash) (int64, error)
}

// blobSize is a blob's size, read without its content where the storage
// can: indexing the tree then costs no file's content, however large.
func (t *treeFS) blobSize(h plumbing.Hash) (int64, error) {
	if s, ok := t.objects.(sizer); ok {
		return s.EncodedObjectSize(h)
	}
	obj, err := t.objects.EncodedObject(plumbing.BlobObject, h)
	if err != nil {
		return 0, err
	}
	return obj.Size(), nil
}

func (t *treeFS) node(op, name string) (*treeNode, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: op, Path: name, Err: fs.ErrInvalid}
	}
	n, ok := t.nodes[name]
	if !ok {
		return nil, &fs.PathError{Op: op, Path: name, Err: fs.ErrNotExist}
	}
	return n, nil
}

// Open implements fs.FS.
func (t *treeFS) Open(name string) (fs.File, error) {
	n, err := t.node("open", name)
	if err != nil {
		return nil, err
	}
	if n.mode == filemode.Dir {
		return &treeDir{node: n, path: name}, nil
	}
	r, err := t.blob("open", name, n)
	if err != nil {
		return nil, err
	}
	return &treeFile{node: n, r: r}, nil
}

// ReadFile implements fs.ReadFileFS.
func (t *treeFS) ReadFile(name string) ([]byte, error) {
	n, err := t.node("read", name)
	if err != nil {
		return nil, err
	}
	if n.mode == filemode.Dir {
		return nil, &fs.PathError{Op: "read", Path: name, Err: errIsDir}
	}
	r, err := t.blob("read", name, n)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	b := make([]byte, n.size)
	if _, err := io.ReadFull(r, b); err != nil {
		return nil, &fs.PathError{Op: "read", Path: name, Err: err}
	}
	return b, nil
}

func (t *treeFS) blob(op, name string, n *treeNode) (io.ReadCloser, error) {
	obj, err := t.objects.EncodedObject(plumbing.BlobObject, n.hash)
	if err != nil {
		return nil, &fs.PathError{Op: op, Path: name, Err: err}
	}
	r, err := obj.Reader()
	if err != nil {
		return nil, &fs.PathError{Op: op, Path: name, Err: err}
	}
	return r, nil
}

var errIsDir = errors.New("is a directory")

// ReadDir implements fs.ReadDirFS.
func (t *treeFS) ReadDir(name string) ([]fs.DirEntry, error) {
	n, err := t.node("readdir", name)
	if err != nil {
		return nil, err
	}
	if n.mode != filemode.Dir {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: errors.New("not a directory")}
	}
	return slices.Clone(n.entries), nil
}

// Stat implements fs.StatFS.
func (t *treeFS) Stat(name string) (fs.FileInfo, error) {
	n, err := t.node("stat", name)
	if err != nil {
		return nil, err
	}
	return n.info(), nil
}

func (n *treeNode) info() fs.FileInfo { return treeInfo{n} }

// treeInfo is the fs.FileInfo of a tree entry: git keeps no times or
// owners, so every entry has the commit's time.
type treeInfo struct{ n *treeNode }

func (i treeInfo) Name() string       { return path.Base(i.n.name) }
func (i treeInfo) Size() int64        { return i.n.size }
func (i treeInfo) ModTime() time.Time { return i.n.fsys.when }
func (i treeInfo) IsDir() bool        { return i.n.mode == filemode.Dir }
func (i treeInfo) Sys() any           { return i.n.hash } // the object's hash

func (i treeInfo) Mode() fs.FileMode {
	switch i.n.mode {
	case filemode.Dir:
		return fs.ModeDir | 0o755
	case filemode.Executable:
		return 0o755
	}
	return 0o644
}

type treeFile struct {
	node *treeNode
	r    io.ReadCloser
}

func (f *treeFile) Stat() (fs.FileInfo, error) { return f.node.info(), nil }
func (f *treeFile) Read(p []byte) (int, error) { return f.r.Read(p) }
func (f *treeFile) Close() error               { return f.r.Close() }

type treeDir struct {
	node *treeNode
	path string
	read int // entries returned by ReadDir so far
}

func (d *treeDir) Stat() (fs.FileInfo, error) { return d.node.info(), nil }
func (d *treeDir) Close() error               { return nil }

func (d *treeDir) Read([]byte) (int, error) {
	return 0, &fs.PathError{Op: "read", Path: d.path, Err: errIsDir}
}

// ReadDir implements fs.ReadDirFile.
func (d *treeDir) ReadDir(n int) ([]fs.DirEntry, error) {
	rest := d.node.entries[d.read:]
	if n > 0 && len(rest) == 0 {
		return nil, io.EOF
	}
	if n > 0 && n < len(rest) {
		rest = rest[:n]
	}
	d.read += len(rest)
	return slices.Clone(rest), nil
}
