package githubtest

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"
)

// The Git Data API: blobs, trees, commits and refs written one by one,
// into the repository behind the fake (GitData), so that a fetch over git
// sees exactly what the API made. A commit that a bot creates without
// author, committer or signature is authored by the bot and signed with
// the fake's web-flow key, as GitHub signs them, and shows as verified.

// lockGit is lockRepo for the Git Data API: it resolves the repository's
// GitData and object store too.
func (s *Server) lockGit(w http.ResponseWriter, req *http.Request, in any) (*repo, GitData, storer.EncodedObjectStorer) {
	r := s.lockRepo(w, req, in)
	if r == nil {
		return nil, nil, nil
	}
	gd, ok := r.git.(GitData)
	if !ok {
		s.mu.Unlock()
		notFound(w, req)
		return nil, nil, nil
	}
	st, err := gd.Objects(r.owner, r.name)
	if err != nil {
		s.mu.Unlock()
		writeError(w, http.StatusInternalServerError, err.Error())
		return nil, nil, nil
	}
	return r, gd, st
}

func (s *Server) createBlob(w http.ResponseWriter, req *http.Request) {
	var in struct {
		Content  *string `json:"content"`
		Encoding string  `json:"encoding"`
	}
	r, _, st := s.lockGit(w, req, &in)
	if r == nil {
		return
	}
	defer s.mu.Unlock()
	if in.Content == nil {
		writeInvalid(w, fieldError{Resource: "Blob", Field: "content", Code: "missing_field"})
		return
	}
	content := []byte(*in.Content)
	switch in.Encoding {
	case "", "utf-8":
	case "base64":
		b, err := base64.StdEncoding.DecodeString(*in.Content)
		if err != nil {
			writeError(w, http.StatusBadRequest, "Problems parsing JSON")
			return
		}
		content = b
	default:
		writeInvalid(w, fieldError{Resource: "Blob", Field: "encoding", Code: "invalid"})
		return
	}
	h, err := writeBlob(st, content)
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	writeJSON(w, http.StatusCreated, map[string]string{"sha": h.String(), "url": s.objectURL(r, "blobs", h)})
}

type treeEntryJSON struct {
	Path    string  `json:"path"`
	Mode    string  `json:"mode"`
	Type    string  `json:"type"`
	SHA     *string `json:"sha"`
	Content *string `json:"content,omitempty"`
	Size    *int64  `json:"size,omitempty"`
	URL     string  `json:"url,omitempty"`
}

func (s *Server) createTree(w http.ResponseWriter, req *http.Request) {
	var in struct {
		BaseTree string          `json:"base_tree"`
		Tree     []treeEntryJSON `json:"tree"`
	}
	r, _, st := s.lockGit(w, req, &in)
	if r == nil {
		return
	}
	defer s.mu.Unlock()
	var edits []treeEdit
	for _, e := range in.Tree {
		ed, err := s.edit(st, e)
		if err != nil {
			writeInvalid(w, fieldError{Resource: "Tree", Field: "tree", Code: "invalid", Message: err.Error()})
			return
		}
		edits = append(edits, ed)
	}
	base := plumbing.ZeroHash
	if in.BaseTree != "" {
		base = plumbing.NewHash(in.BaseTree)
		if _, err := object.GetTree(st, base); err != nil {
			writeInvalid(w, fieldError{Resource: "Tree", Field: "base_tree", Code: "invalid", Message: "base_tree is not a valid tree oid"})
			return
		}
	}
	h, err := editTree(st, base, edits)
	if err != nil {
		writeInvalid(w, fieldError{Resource: "Tree", Field: "tree", Code: "invalid", Message: err.Error()})
		return
	}
	t, err := object.GetTree(st, h)
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	out := struct {
		SHA       string          `json:"sha"`
		URL       string          `json:"url"`
		Tree      []treeEntryJSON `json:"tree"`
		Truncated bool            `json:"truncated"`
	}{SHA: h.String(), URL: s.objectURL(r, "trees", h), Tree: []treeEntryJSON{}}
	for _, e := range t.Entries {
		sha, typ := e.Hash.String(), "blob"
		if e.Mode == modeDir {
			typ = "tree"
		}
		out.Tree = append(out.Tree, treeEntryJSON{Path: e.Name, Mode: fmt.Sprintf("%06o", uint32(e.Mode)), Type: typ, SHA: &sha})
	}
	writeJSON(w, http.StatusCreated, out)
}

// edit reads one entry of a tree request: a blob by sha or by content.
// Only blobs are edited; submodules and trees by sha are not modelled.
func (s *Server) edit(st storer.EncodedObjectStorer, e treeEntryJSON) (treeEdit, error) {
	ed := treeEdit{path: strings.Trim(e.Path, "/")}
	if ed.path == "" || strings.Contains(e.Path, "//") {
		return ed, fmt.Errorf("path %q is invalid", e.Path)
	}
	mode, ok := blobModes[e.Mode]
	if !ok || (e.Type != "" && e.Type != "blob") {
		return ed, fmt.Errorf("%s: only blobs (mode 100644, 100755, 120000) are supported, not %s %s", e.Path, e.Type, e.Mode)
	}
	ed.mode = mode
	switch {
	case e.Content != nil:
		h, err := writeBlob(st, []byte(*e.Content))
		if err != nil {
			return ed, err
		}
		ed.hash = h
	case e.SHA != nil:
		ed.hash = plumbing.NewHash(*e.SHA)
		if _, err := st.EncodedObject(plumbing.BlobObject, ed.hash); err != nil {
			return ed, fmt.Errorf("%s: blob %s does not exist", e.Path, *e.SHA)
		}
	default:
		ed.remove = true
	}
	return ed, nil
}

type gitUserJSON struct {
	Name  string `json:"name"`
	Email string `json:"email"`
	Date  string `json:"date,omitempty"`
}

type verificationJSON struct {
	Verified   bool    `json:"verified"`
	Reason     string  `json:"reason"`
	Signature  *string `json:"signature"`
	Payload    *string `json:"payload"`
	VerifiedAt *string `json:"verified_at"`
}

type objectRefJSON struct {
	SHA string `json:"sha"`
	URL string `json:"url"`
}

type gitCommitJSON struct {
	SHA          string           `json:"sha"`
	NodeID       string           `json:"node_id"`
	URL          string           `json:"url"`
	HTMLURL      string           `json:"html_url"`
	Author       gitUserJSON      `json:"author"`
	Committer    gitUserJSON      `json:"committer"`
	Message      string           `json:"message"`
	Tree         objectRefJSON    `json:"tree"`
	Parents      []objectRefJSON  `json:"parents"`
	Verification verificationJSON `json:"verification"`
}

func (s *Server) createCommit(w http.ResponseWriter, req *http.Request) {
	var in struct {
		Message   *string      `json:"message"`
		Tree      string       `json:"tree"`
		Parents   []string     `json:"parents"`
		Author    *gitUserJSON `json:"author"`
		Committer *gitUserJSON `json:"committer"`
		Signature *string      `json:"signature"`
	}
	r, _, st := s.lockGit(w, req, &in)
	if r == nil {
		return
	}
	defer s.mu.Unlock()
	who := actorOf(req)
	if in.Message == nil {
		writeInvalid(w, fieldError{Resource: "Commit", Field: "message", Code: "missing_field"})
		return
	}
	if _, err := object.GetTree(st, plumbing.NewHash(in.Tree)); err != nil {
		writeInvalid(w, fieldError{Resource: "Commit", Field: "tree", Code: "invalid", Message: "Tree SHA does not exist"})
		return
	}
	now := s.now()
	c := &object.Commit{Message: *in.Message, TreeHash: plumbing.NewHash(in.Tree)}
	for _, p := range in.Parents {
		if _, err := object.GetCommit(st, plumbing.NewHash(p)); err != nil {
			writeInvalid(w, fieldError{Resource: "Commit", Field: "parents", Code: "invalid", Message: "Parent SHA does not exist or is not a commit object"})
			return
		}
		c.ParentHashes = append(c.ParentHashes, plumbing.NewHash(p))
	}
	c.Author = signature(in.Author, object.Signature{Name: who.login, Email: NoreplyEmail(who.login), When: now})
	c.Committer = signature(in.Committer, c.Author)
	// GitHub signs a bot's commit only when it wrote the identity itself:
	// any custom author, committer or signature and the commit is as the
	// client made it.
	switch {
	case in.Signature != nil:
		c.PGPSignature = *in.Signature
	case in.Author == nil && in.Committer == nil && who.cred != withJWT:
		if err := s.sign(c); err != nil {
			writeError(w, http.StatusInternalServerError, err.Error())
			return
		}
	}
	obj := st.NewEncodedObject()
	if err := c.Encode(obj); err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	h, err := st.SetEncodedObject(obj)
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	c.Hash = h
	writeJSON(w, http.StatusCreated, s.commitJSON(r, c))
}

// signature is what the request gave, completed as GitHub does: a missing
// date is now; nothing given is def.
func signature(in *gitUserJSON, def object.Signature) object.Signature {
	if in == nil {
		return def
	}
	sig := object.Signature{Name: in.Name, Email: in.Email, When: def.When}
	if t, err := time.Parse(time.RFC3339, in.Date); err == nil {
		sig.When = t
	}
	return sig
}

func (s *Server) getCommit(w http.ResponseWriter, req *http.Request) {
	r, _, st := s.lockGit(w, req, nil)
	if r == nil {
		return
	}
	defer s.mu.Unlock()
	c, err := object.GetCommit(st, plumbing.NewHash(req.PathValue("sha")))
	if err != nil {
		notFound(w, req)
		return
	}
	writeJSON(w, http.StatusOK, s.commitJSON(r, c))
}

func (s *Server) commitJSON(r *repo, c *object.Commit) gitCommitJSON {
	j := gitCommitJSON{
		SHA: c.Hash.String(), NodeID: nodeID("C", c.Hash.String()), URL: s.objectURL(r, "commits", c.Hash),
		HTMLURL:   fmt.Sprintf("%s/%s/%s/commit/%s", s.URL(), r.owner, r.name, c.Hash),
		Author:    gitUserJSON{c.Author.Name, c.Author.Email, stamp(c.Author.When)},
		Committer: gitUserJSON{c.Committer.Name, c.Committer.Email, stamp(c.Committer.When)},
		Message:   c.Message, Tree: objectRefJSON{c.TreeHash.String(), s.objectURL(r, "trees", c.TreeHash)},
		Parents: []objectRefJSON{}, Verification: s.verification(c),
	}
	for _, p := range c.ParentHashes {
		j.Parents = append(j.Parents, objectRefJSON{p.String(), s.objectURL(r, "commits", p)})
	}
	return j
}

func (s *Server) objectURL(r *repo, kind string, h plumbing.Hash) string {
	return fmt.Sprintf("%s/repos/%s/%s/git/%s/%s", s.URL(), r.owner, r.name, kind, h)
}
