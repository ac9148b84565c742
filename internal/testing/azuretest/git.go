package azuretest

import (
	"slices"
	"strings"
)

// sha is the commit ref ("refs/heads/x") points at, "" for none.
func (s *Server) sha(ref string) string {
	if s.git == nil {
		return s.branches[ref]
	}
	b, ok := strings.CutPrefix(ref, "refs/heads/")
	if !ok {
		return ""
	}
	sha, _ := s.git.BranchSHA(s.gitOwner, s.gitName, b)
	return sha
}

// setRef points ref at sha; zeros delete it. With a git backend only
// deletes are served (the bot pushes over git).
func (s *Server) setRef(ref, sha string) error {
	del := strings.Trim(sha, "0") == ""
	if s.git != nil {
		if !del {
			return errNotServed
		}
		return s.git.DeleteBranch(s.gitOwner, s.gitName, strings.TrimPrefix(ref, "refs/heads/"))
	}
	if del {
		delete(s.branches, ref)
	} else {
		s.branches[ref] = sha
	}
	return nil
}

// refNames are the refs under prefix, sorted; with a git backend, the ref
// named exactly so, if it exists.
func (s *Server) refNames(prefix string) []string {
	if s.git != nil {
		if s.sha(prefix) != "" {
			return []string{prefix}
		}
		return nil
	}
	var names []string
	for n := range s.branches {
		if strings.HasPrefix(n, prefix) {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	return names
}

type notServed string

func (e notServed) Error() string { return string(e) }

const errNotServed = notServed("azuretest: ref updates other than deletes go over git")
