package githubtest

import (
	"fmt"
	"slices"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"
)

const modeDir = filemode.Dir

// blobModes are the modes a tree entry of type blob may have.
var blobModes = map[string]filemode.FileMode{
	"100644": filemode.Regular, "100755": filemode.Executable, "120000": filemode.Symlink,
}

// treeEdit sets (or removes) the blob at a slash path.
type treeEdit struct {
	path   string
	mode   filemode.FileMode
	hash   plumbing.Hash
	remove bool
}

func writeBlob(st storer.EncodedObjectStorer, content []byte) (plumbing.Hash, error) {
	obj := st.NewEncodedObject()
	obj.SetType(plumbing.BlobObject)
	w, err := obj.Writer()
	if err != nil {
		return plumbing.ZeroHash, err
	}
	if _, err := w.Write(content); err != nil {
		return plumbing.ZeroHash, err
	}
	if err := w.Close(); err != nil {
		return plumbing.ZeroHash, err
	}
	return st.SetEncodedObject(obj)
}

// editTree writes the tree base (none when zero) with edits applied, as
// POST /git/trees with base_tree does: intermediate trees are made as
// needed, and a tree left empty by removals disappears.
func editTree(st storer.EncodedObjectStorer, base plumbing.Hash, edits []treeEdit) (plumbing.Hash, error) {
	entries := map[string]object.TreeEntry{}
	if !base.IsZero() {
		t, err := object.GetTree(st, base)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		for _, e := range t.Entries {
			entries[e.Name] = e
		}
	}
	below := map[string][]treeEdit{}
	var dirs []string
	for _, ed := range edits {
		dir, rest, nested := strings.Cut(ed.path, "/")
		if !nested {
			if ed.remove {
				delete(entries, dir)
			} else {
				entries[dir] = object.TreeEntry{Name: dir, Mode: ed.mode, Hash: ed.hash}
			}
			continue
		}
		if below[dir] == nil {
			dirs = append(dirs, dir)
		}
		ed.path = rest
		below[dir] = append(below[dir], ed)
	}
	for _, dir := range dirs {
		sub := plumbing.ZeroHash
		if e, ok := entries[dir]; ok {
			if e.Mode != modeDir {
				return plumbing.ZeroHash, fmt.Errorf("%s is a file, not a directory", dir)
			}
			sub = e.Hash
		}
		h, err := editTree(st, sub, below[dir])
		if err != nil {
			return plumbing.ZeroHash, err
		}
		if h.IsZero() {
			delete(entries, dir)
		} else {
			entries[dir] = object.TreeEntry{Name: dir, Mode: modeDir, Hash: h}
		}
	}
	if len(entries) == 0 && !base.IsZero() {
		return plumbing.ZeroHash, nil
	}
	list := make([]object.TreeEntry, 0, len(entries))
	for _, e := range entries {
		list = append(list, e)
	}
	// git orders a tree's entries by name, a directory's as if it ended
	// in "/"; any other order is a different (and invalid) tree.
	key := func(e object.TreeEntry) string {
		if e.Mode == modeDir {
			return e.Name + "/"
		}
		return e.Name
	}
	slices.SortFunc(list, func(a, b object.TreeEntry) int { return strings.Compare(key(a), key(b)) })
	obj := st.NewEncodedObject()
	if err := (&object.Tree{Entries: list}).Encode(obj); err != nil {
		return plumbing.ZeroHash, err
	}
	return st.SetEncodedObject(obj)
}
