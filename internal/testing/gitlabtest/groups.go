package gitlabtest

import (
	"net/http"
	"slices"
	"strings"
)

// listGroupProjects is GET /groups/:id/projects, :id being the group's
// full path: a group is every namespace of the projects added. As GitLab:
// the group's own projects, its subgroups' too with include_subgroups=true;
// archived=false leaves archived projects out (archived=true keeps only
// them); ordered by id, newest first unless sort=asc; paginated; 404
// "Group Not Found" for a group that does not exist.
func (s *Server) listGroupProjects(c *ctx) {
	group := strings.ToLower(strings.Trim(c.r.PathValue("gid"), "/"))
	q := c.r.URL.Query()
	subgroups := q.Get("include_subgroups") == "true"
	found := false
	var ps []*project
	for _, p := range s.projects {
		ns, _ := splitPath(strings.ToLower(p.path))
		inGroup := ns == group || strings.HasPrefix(ns, group+"/")
		found = found || inGroup
		switch {
		case !inGroup, !subgroups && ns != group:
		case q.Get("archived") == "false" && p.archived, q.Get("archived") == "true" && !p.archived:
		default:
			ps = append(ps, p)
		}
	}
	if !found || c.u.level < Guest {
		c.message(http.StatusNotFound, "404 Group Not Found")
		return
	}
	slices.SortFunc(ps, func(a, b *project) int { return int(a.id - b.id) })
	if q.Get("sort") != "asc" {
		slices.Reverse(ps)
	}
	out := make([]map[string]any, len(ps))
	for i, p := range ps {
		_, name := splitPath(p.path)
		out[i] = map[string]any{
			"id": p.id, "name": name, "path": name, "path_with_namespace": p.path,
			"default_branch": p.defaultBranch, "web_url": s.webURL(p), "http_url_to_repo": s.webURL(p) + ".git",
			"archived": p.archived,
		}
	}
	page(c, out)
}
