package gitops

import (
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"
)

// writeBlob stores content and returns its hash.
func writeBlob(s storer.EncodedObjectStorer, content []byte) (plumbing.Hash, error) {
	obj := s.NewEncodedObject()
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
	return s.SetEncodedObject(obj)
}

// editTree returns the hash of a tree equal to root except that the files
// named in blobs (slash paths) hold the given blobs: existing files keep
// their mode, missing ones (and their directories) are added as regular
// files, such as the pre-pull DaemonSet the first time. Only the trees on
// the way to a changed file are written anew; order stays git's.
func editTree(s storer.EncodedObjectStorer, root *object.Tree, blobs map[string]plumbing.Hash) (plumbing.Hash, error) {
	here := map[string]plumbing.Hash{}
	below := map[string]map[string]plumbing.Hash{}
	for p, h := range blobs {
		dir, rest, nested := strings.Cut(p, "/")
		if !nested {
			here[dir] = h
			continue
		}
		if below[dir] == nil {
			below[dir] = map[string]plumbing.Hash{}
		}
		below[dir][rest] = h
	}
	entries := make([]object.TreeEntry, len(root.Entries))
	copy(entries, root.Entries)
	found := map[string]bool{}
	for i, e := range entries {
		if h, ok := here[e.Name]; ok {
			if !e.Mode.IsFile() {
				return plumbing.ZeroHash, fmt.Errorf("%s is not a file in the tree", e.Name)
			}
			entries[i].Hash = h
			found[e.Name] = true
		}
		if sub, ok := below[e.Name]; ok {
			if e.Mode != filemode.Dir {
				return plumbing.ZeroHash, fmt.Errorf("%s is not a directory in the tree", e.Name)
			}
			t, err := object.GetTree(s, e.Hash)
			if err != nil {
				return plumbing.ZeroHash, err
			}
			if entries[i].Hash, err = editTree(s, t, sub); err != nil {
				return plumbing.ZeroHash, fmt.Errorf("%s/%w", e.Name, err)
			}
			found[e.Name] = true
		}
	}
	for name, h := range here {
		if !found[name] {
			entries = append(entries, object.TreeEntry{Name: name, Mode: filemode.Regular, Hash: h})
		}
	}
	for name, sub := range below {
		if found[name] {
			continue
		}
		h, err := editTree(s, &object.Tree{}, sub)
		if err != nil {
			return plumbing.ZeroHash, fmt.Errorf("%s/%w", name, err)
		}
		entries = append(entries, object.TreeEntry{Name: name, Mode: filemode.Dir, Hash: h})
	}
	// Git orders a tree's entries by name, a directory's name as if it
	// ended in "/".
	sort.Slice(entries, func(i, j int) bool { return treeKey(entries[i]) < treeKey(entries[j]) })
	obj := s.NewEncodedObject()
	if err := (&object.Tree{Entries: entries}).Encode(obj); err != nil {
		return plumbing.ZeroHash, err
	}
	return s.SetEncodedObject(obj)
}

func treeKey(e object.TreeEntry) string {
	if e.Mode == filemode.Dir {
		return e.Name + "/"
	}
	return e.Name
}

// fileAt reads a file of a commit's tree, or reports it absent.
func fileAt(c *object.Commit, p string) ([]byte, bool) {
	f, err := c.File(path.Clean(p))
	if err != nil {
		return nil, false
	}
	s, err := f.Contents()
	if err != nil {
		return nil, false
	}
	return []byte(s), true
}

// writeCommit stores a commit of tree on top of parent.
func writeCommit(s storer.EncodedObjectStorer, tree, parent plumbing.Hash, msg string, who object.Signature) (plumbing.Hash, error) {
	c := &object.Commit{
		Author:       who,
		Committer:    who,
		Message:      msg,
		TreeHash:     tree,
		ParentHashes: []plumbing.Hash{parent},
	}
	obj := s.NewEncodedObject()
	if err := c.Encode(obj); err != nil {
		return plumbing.ZeroHash, err
	}
	return s.SetEncodedObject(obj)
}
