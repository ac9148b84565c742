package serve

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/imagebot/imagebot/internal/job"
)

// TestJobOptions: each clone's run is for the repository it was cloned
// from, with the checkout as its directory, serve's DryRun, the
// repository's output and the run's pool; the template is not changed.
func TestJobOptions(t *testing.T) {
	s := &Server{o: Options{DryRun: true, Job: job.Options{Repo: "ignored", GitHub: job.GitHub{Repository: "someone/else", Token: "t0ken"}}}}
	pool := job.NewPool(s.o.Job)
	var out bytes.Buffer
	type got struct {
		Repo, Repository, Token string
		DryRun, Pool, Out       bool
	}
	of := func(o job.Options) got {
		return got{o.Repo, o.GitHub.Repository, o.GitHub.Token, o.DryRun, o.Pool == pool, o.Out == &out}
	}
	for _, tc := range []struct {
		t    Target
		want got
	}{
		{Target{URL: "https://github.com/acme/app", Dir: "/work/acme_app", Repository: "acme/app"}, got{"/work/acme_app", "acme/app", "t0ken", true, true, true}},
		// The user's own checkout: GITHUB_REPOSITORY, or origin, names it.
		{Target{Dir: "checkout"}, got{"checkout", "someone/else", "t0ken", true, true, true}},
	} {
		if diff := cmp.Diff(tc.want, of(s.jobOptions(tc.t, pool, &out))); diff != "" {
			t.Errorf("%+v (-want +got):\n%s", tc.t, diff)
		}
	}
	if s.o.Job.Repo != "ignored" || s.o.Job.GitHub.Repository != "someone/else" {
		t.Errorf("the template changed: %+v", s.o.Job)
	}
}

// TestJobPass: a run of job.Run hands each repository's report and error
// to Report, on that repository's output, and its error becomes the
// repository's status.
func TestJobPass(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "gone")
	var out bytes.Buffer
	var reported []string
	s := &Server{o: Options{DryRun: true, Out: &out, Report: func(w io.Writer, rep *job.RunReport, err error) {
		reported = append(reported, fmt.Sprint(err))
		fmt.Fprintf(w, "report: %v\n", err)
	}}}
	p := s.jobPass()
	sum, st := p.each(context.Background(), Target{Dir: missing})
	if st != Failed || sum != (job.Summary{}) {
		t.Errorf("a checkout that is not there: %v, %+v; want failed", st, sum)
	}
	want := "repository " + missing + ": not a readable directory"
	if len(reported) != 1 || reported[0] != want || !strings.Contains(out.String(), "report: "+want) {
		t.Errorf("reported %q, output %q; want %q once", reported, out.String(), want)
	}
	if cost := p.done(); len(cost) != 0 {
		t.Errorf("cost %+v of a run that asked nothing", cost)
	}
}

// TestStatusOf: a run's error is its status, as imagebot's exit status.
func TestStatusOf(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want Status
	}{
		{nil, OK},
		{&job.PartialError{}, Partial},
		{fmt.Errorf("run: %w", &job.PartialError{Err: errors.New("timeout")}), Partial},
		{job.ErrNoToken, Failed},
		{errors.New("bad config"), Failed},
	} {
		if got := statusOf(tc.err); got != tc.want {
			t.Errorf("%v: %v, want %v", tc.err, got, tc.want)
		}
	}
}
