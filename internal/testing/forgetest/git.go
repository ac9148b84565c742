package forgetest

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// GitBackend is what the fake needs to know about repository content: which
// commit a branch is at, how two revisions relate, and how to land a pull
// request. BareRepos implements it over the bare repositories of
// gittest, so the branches imagebot pushes are the branches the fake sees.
type GitBackend interface {
	// BranchSHA returns the commit branch points at, and false when the
	// branch does not exist.
	BranchSHA(owner, repo, branch string) (sha string, ok bool)
	// Compare relates base and head (branch names or full commit SHAs) as
	// GitHub's compare API does. A missing revision is ErrNoBranch.
	Compare(owner, repo, base, head string) (Comparison, error)
	// Merge lands m.Head on m.Base with GitHub's method and returns the new
	// tip of m.Base. A conflict is ErrMergeConflict and leaves Base alone.
	Merge(owner, repo string, m MergeRequest) (sha string, err error)
	// DeleteBranch removes branch; a missing branch is ErrNoBranch.
	DeleteBranch(owner, repo, branch string) error
}

// Comparison is how head relates to base.
type Comparison struct {
	AheadBy   int  // commits on head that base lacks; 0 is "No commits between"
	BehindBy  int  // commits on base that head lacks
	Mergeable bool // head merges into base without conflicts
}

// MergeRequest asks a GitBackend to land a pull request.
type MergeRequest struct {
	Base, Head string // branch names
	Method     string // "merge", "squash" or "rebase", as GitHub's merge_method
	Title      string // commit title (merge and squash)
	Message    string // commit body (merge and squash)
	// When is the commit time of what the merge makes (zero: now), the
	// fake's clock: a soak or lead measured from a merge is tested in the
	// test's time.
	When time.Time
}

// Errors a GitBackend returns so that the fake can answer as GitHub does.
var (
	ErrNoBranch      = errors.New("no such branch")
	ErrMergeConflict = errors.New("merge conflict")
)

// BareRepos is a GitBackend over bare repositories on disk, driven by the
// git CLI (merge-tree needs git >= 2.38). Pass gittest's Dir method:
// githubtest.BareRepos(gs.Dir).
type BareRepos func(owner, repo string) (dir string)

var _ GitBackend = BareRepos(nil)

// BranchSHA implements GitBackend, in process (gitread.go).
func (b BareRepos) BranchSHA(owner, repo, branch string) (string, bool) {
	st, err := b.storage(owner, repo)
	if err != nil {
		return "", false
	}
	// Pushes only ever point branches at commits, so the ref is read as
	// it is, without peeling: reading the commit too doubled the cost.
	ref, err := st.Reference(plumbing.NewBranchReferenceName(branch))
	if err != nil {
		return "", false
	}
	return ref.Hash().String(), true
}

// Compare implements GitBackend.
func (b BareRepos) Compare(owner, repo, base, head string) (Comparison, error) {
	var c Comparison
	baseSHA, err := b.resolve(owner, repo, base)
	if err != nil {
		return c, err
	}
	headSHA, err := b.resolve(owner, repo, head)
	if err != nil {
		return c, err
	}
	st, err := b.storage(owner, repo)
	if err != nil {
		return c, err
	}
	if c.BehindBy, c.AheadBy, err = leftRight(st, baseSHA, headSHA); err != nil {
		return c, fmt.Errorf("compare %s...%s: %w", base, head, err)
	}
	if c.BehindBy == 0 { // fast-forward: nothing to conflict with
		c.Mergeable = true
		return c, nil
	}
	_, err = b.mergeTree(owner, repo, baseSHA, headSHA)
	c.Mergeable = err == nil
	if err != nil && !errors.Is(err, ErrMergeConflict) {
		return c, err
	}
	return c, nil
}

// Merge implements GitBackend with GitHub's semantics: "merge" always makes
// a merge commit (never a fast-forward), "squash" one commit on top of base
// with the merged tree, "rebase" replays head's commits onto base as new
// commits. Base moves only if nobody moved it meanwhile.
func (b BareRepos) Merge(owner, repo string, m MergeRequest) (string, error) {
	baseSHA, err := b.resolve(owner, repo, m.Base)
	if err != nil {
		return "", err
	}
	headSHA, err := b.resolve(owner, repo, m.Head)
	if err != nil {
		return "", err
	}
	var sha string
	switch m.Method {
	case "merge", "squash":
		tree, err := b.mergeTree(owner, repo, baseSHA, headSHA)
		if err != nil {
			return "", err
		}
		args := []string{"commit-tree", tree, "-p", baseSHA}
		if m.Method == "merge" {
			args = append(args, "-p", headSHA)
		}
		args = append(args, "-m", m.Title)
		if m.Message != "" {
			args = append(args, "-m", m.Message)
		}
		out, err := b.Git(owner, repo, dated(m.When, true), args...)
		if err != nil {
			return "", err
		}
		sha = strings.TrimSpace(out)
	case "rebase":
		// A rebase keeps each commit's author date, as GitHub's does.
		if sha, err = b.rebase(owner, repo, baseSHA, headSHA, dated(m.When, false)); err != nil {
			return "", err
		}
	default:
		return "", fmt.Errorf("merge method %q", m.Method)
	}
	if _, err := b.Git(owner, repo, nil, "update-ref", "refs/heads/"+m.Base, sha, baseSHA); err != nil {
		return "", err
	}
	return sha, nil
}

// rebase replays base..head onto base in a throw-away worktree: git 2.39
// has no merge-tree --merge-base, so cherry-pick needs a work tree.
func (b BareRepos) rebase(owner, repo, baseSHA, headSHA string, env []string) (string, error) {
	tmp, err := os.MkdirTemp("", "githubtest-rebase-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	wt := tmp + "/wt"
	if _, err := b.Git(owner, repo, nil, "worktree", "add", "--quiet", "--detach", wt, baseSHA); err != nil {
		return "", err
	}
	defer b.Git(owner, repo, nil, "worktree", "remove", "--force", wt)
	if _, err := gitIn(wt, env, "cherry-pick", "--allow-empty", baseSHA+".."+headSHA); err != nil {
		return "", fmt.Errorf("rebase: %w: %v", ErrMergeConflict, err)
	}
	out, err := gitIn(wt, nil, "rev-parse", "HEAD")
	return strings.TrimSpace(out), err
}

// dated sets the committer date of what git commits, and the author date
// too when author, when a time is given.
func dated(t time.Time, author bool) []string {
	if t.IsZero() {
		return nil
	}
	d := t.UTC().Format(time.RFC3339)
	env := []string{"GIT_COMMITTER_DATE=" + d}
	if author {
		env = append(env, "GIT_AUTHOR_DATE="+d)
	}
	return env
}

// DeleteBranch implements GitBackend.
func (b BareRepos) DeleteBranch(owner, repo, branch string) error {
	sha, ok := b.BranchSHA(owner, repo, branch)
	if !ok {
		return fmt.Errorf("delete %s: %w", branch, ErrNoBranch)
	}
	_, err := b.Git(owner, repo, nil, "update-ref", "-d", "refs/heads/"+branch, sha)
	return err
}

// resolve turns a branch name or full SHA into a commit SHA.
func (b BareRepos) resolve(owner, repo, rev string) (string, error) {
	if len(rev) == 40 && strings.Trim(rev, "0123456789abcdef") == "" {
		st, err := b.storage(owner, repo)
		if err == nil {
			_, err = object.GetCommit(st, plumbing.NewHash(rev))
		}
		if err != nil {
			return "", fmt.Errorf("commit %s: %w", rev, ErrNoBranch)
		}
		return rev, nil
	}
	sha, ok := b.BranchSHA(owner, repo, rev)
	if !ok {
		return "", fmt.Errorf("branch %s: %w", rev, ErrNoBranch)
	}
	return sha, nil
}

// mergeTree computes the tree of merging head into base without touching
// any ref; exit status 1 means conflicts.
func (b BareRepos) mergeTree(owner, repo, base, head string) (string, error) {
	out, err := b.Git(owner, repo, nil, "merge-tree", "--write-tree", "--no-messages", "--name-only", base, head)
	var exit *exec.ExitError
	if errors.As(err, &exit) && exit.ExitCode() == 1 {
		return "", fmt.Errorf("merge %s into %s: %w", head, base, ErrMergeConflict)
	}
	if err != nil {
		return "", err
	}
	tree, _, _ := strings.Cut(out, "\n")
	return tree, nil
}

// Git runs git on the bare repository of owner/repo, with env added to
// its environment (tests write objects and refs with it).
func (b BareRepos) Git(owner, repo string, env []string, args ...string) (string, error) {
	return gitIn("", append(env, "GIT_DIR="+b(owner, repo)), args...)
}

// gitIn runs git isolated from the user's configuration, committing as
// GitHub does for merges it performs itself.
func gitIn(dir string, env []string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GIT_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env,
		"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull, "GIT_TERMINAL_PROMPT=0",
		"GIT_AUTHOR_NAME=GitHub", "GIT_AUTHOR_EMAIL=noreply@github.com",
		"GIT_COMMITTER_NAME=GitHub", "GIT_COMMITTER_EMAIL=noreply@github.com")
	cmd.Env = append(cmd.Env, env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return stdout.String(), &gitError{args: args, stderr: strings.TrimSpace(stderr.String()), err: err}
	}
	return stdout.String(), nil
}

// gitError keeps the exit status reachable through errors.As.
type gitError struct {
	args   []string
	stderr string
	err    error
}

func (e *gitError) Error() string {
	return "git " + e.args[0] + ": " + strconv.Quote(e.stderr) + ": " + e.err.Error()
}

func (e *gitError) Unwrap() error { return e.err }
