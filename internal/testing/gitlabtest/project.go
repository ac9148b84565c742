package gitlabtest

import (
	"net/http"
	"strings"
	"time"

	"github.com/imagebot/imagebot/internal/testing/forgetest"
)

// project is a GitLab project and what the fake keeps of it.
type project struct {
	id            int64
	path          string // "group/name", as created
	defaultBranch string
	git           forgetest.GitBackend
	issuesOff     bool
	archived      bool

	mrs       []*mr
	issues    []*issue
	statuses  []*status
	pipelines []*pipeline
}

// ProjectOption configures AddProject.
type ProjectOption func(*project)

// WithIssuesDisabled turns the project's issues off.
func WithIssuesDisabled() ProjectOption { return func(p *project) { p.issuesOff = true } }

// WithArchived archives the project: read-only, and left out of group
// listings that ask for archived=false.
func WithArchived() ProjectOption { return func(p *project) { p.archived = true } }

// AddProject adds the project at path ("group/name") on defaultBranch,
// its branches read from git (forgetest.BareRepos(gs.Dir) serves
// gittest's repository "group"/"name").
func (s *Server) AddProject(path, defaultBranch string, git forgetest.GitBackend, opts ...ProjectOption) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.nextID++
	p := &project{id: s.nextID, path: path, defaultBranch: defaultBranch, git: git}
	for _, o := range opts {
		o(p)
	}
	s.projects[strings.ToLower(path)] = p
	s.byID[p.id] = p
}

func (s *Server) now() time.Time { return s.clock().UTC().Truncate(time.Second) }

func (s *Server) webURL(p *project) string { return s.URL() + "/" + p.path }

func (s *Server) routes() {
	s.handle("GET /api/v4/user", func(c *ctx) { c.json(http.StatusOK, toUser(c.u)) })
	s.handle("GET /api/v4/users", func(c *ctx) {
		out := []userJSON{}
		if u := s.userByName(c.r.URL.Query().Get("username")); u != nil {
			out = append(out, toUser(u))
		}
		page(c, out)
	})
	s.handle("GET /api/v4/projects/{id}", func(c *ctx) { c.json(http.StatusOK, s.projectJSON(c)) })
	s.handle("GET /api/v4/groups/{gid}/projects", s.listGroupProjects)

	s.handle("GET /api/v4/projects/{id}/merge_requests", s.listMRs)
	s.handle("POST /api/v4/projects/{id}/merge_requests", s.createMR)
	s.handle("GET /api/v4/projects/{id}/merge_requests/{iid}", s.getMR)
	s.handle("PUT /api/v4/projects/{id}/merge_requests/{iid}", s.updateMR)
	s.handle("PUT /api/v4/projects/{id}/merge_requests/{iid}/merge", s.acceptMR)
	s.handle("GET /api/v4/projects/{id}/merge_requests/{iid}/notes", s.listNotes)
	s.handle("POST /api/v4/projects/{id}/merge_requests/{iid}/notes", s.createNote)
	s.handle("DELETE /api/v4/projects/{id}/repository/branches/{branch}", s.deleteBranch)

	s.handle("GET /api/v4/projects/{id}/repository/commits/{sha}/statuses", s.listStatuses)
	s.handle("POST /api/v4/projects/{id}/statuses/{sha}", s.postStatus)
	s.handle("GET /api/v4/projects/{id}/pipelines", s.listPipelines)

	s.handle("GET /api/v4/projects/{id}/issues", s.listIssues)
	s.handle("POST /api/v4/projects/{id}/issues", s.createIssue)
	s.handle("PUT /api/v4/projects/{id}/issues/{iid}", s.updateIssue)
}

// projectJSON is GET /projects/:id: the token's role shows in
// permissions.project_access.
func (s *Server) projectJSON(c *ctx) map[string]any {
	p := c.p
	ns, name := splitPath(p.path)
	access := "enabled"
	if p.issuesOff {
		access = "disabled"
	}
	return map[string]any{
		"id": p.id, "name": name, "path": name, "path_with_namespace": p.path,
		"namespace":      map[string]any{"full_path": ns},
		"default_branch": p.defaultBranch, "web_url": s.webURL(p),
		"http_url_to_repo": s.webURL(p) + ".git",
		"archived":         p.archived,
		"issues_enabled":   !p.issuesOff, "issues_access_level": access,
		"permissions": map[string]any{
			"project_access": map[string]any{"access_level": c.u.level, "notification_level": 3},
			"group_access":   nil,
		},
	}
}

func (s *Server) deleteBranch(c *ctx) {
	if !c.write(Developer) {
		return
	}
	ns, name := splitPath(c.p.path)
	if err := c.p.git.DeleteBranch(ns, name, c.r.PathValue("branch")); err != nil {
		c.s.CountWrites(-1)
		c.message(http.StatusNotFound, "404 Branch Not Found")
		return
	}
	c.w.WriteHeader(http.StatusNoContent)
}
