package gitlab

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	gitlab "gitlab.com/gitlab-org/api/client-go/v2"

	"github.com/imagebot/imagebot/internal/gitops/forge"
)

// GroupProjects lists the clone URLs (http_url_to_repo) of the
// projects in the GitLab group (its full path, "group/sub", or its
// numeric ID) on o.APIURL with o.Token: its subgroups' projects too,
// archived ones left out, and projects only shared with the group left
// out (they belong to another group, which may list them itself). One
// request per page of 100; the URLs are sorted, so that a list is the
// same whatever order GitLab answers in.
func GroupProjects(ctx context.Context, o forge.Config, group string) ([]string, error) {
	group = strings.Trim(group, "/")
	if group == "" {
		return nil, errors.New("GitLab group: want its full path, such as acme or acme/platform")
	}
	gl, err := gitlabClient(o.WithDefaults())
	if err != nil {
		return nil, err
	}
	opt := &gitlab.ListGroupProjectsOptions{
		ListOptions:      gitlab.ListOptions{PerPage: gitlabPerPage},
		IncludeSubGroups: gitlab.Ptr(true),
		Archived:         gitlab.Ptr(false),
		WithShared:       gitlab.Ptr(false),
		Simple:           gitlab.Ptr(true),
		// By ID: a project created while the pages are read lands on
		// the last page, and moves no other project to another page.
		OrderBy: gitlab.Ptr("id"),
		Sort:    gitlab.Ptr("asc"),
	}
	var urls []string
	// forge.Pages: a group of thousands of projects is read to its end,
	// but a next page that links back, or pages without end, are errors.
	err = forge.Pages("list the projects of GitLab group "+group, 0, func(page int) (int, error) {
		opt.Page = int64(page)
		ps, resp, err := gl.Groups.ListGroupProjects(group, opt, gitlab.WithContext(ctx))
		if errors.Is(err, gitlab.ErrNotFound) {
			return 0, fmt.Errorf("list the projects of GitLab group %s: no such group, or the token may not see it (404): check the group's full path, as in its URL, "+
				"and that the token is the group's access token or a member's", group)
		}
		if err != nil {
			return 0, fmt.Errorf("list the projects of GitLab group %s: %w", group, glErr(err))
		}
		for _, p := range ps {
			// archived=false is asked for; a GitLab that ignored it
			// still gets no run on an archived project, which cannot
			// take a merge request.
			if !p.Archived && p.HTTPURLToRepo != "" {
				urls = append(urls, p.HTTPURLToRepo)
			}
		}
		return int(resp.NextPage), nil
	})
	if err != nil {
		return nil, err
	}
	slices.Sort(urls)
	return slices.Compact(urls), nil
}
