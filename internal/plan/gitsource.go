package plan

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"

	"github.com/google/go-containerregistry/pkg/name"

	"github.com/imagebot/imagebot/internal/gate"
	"github.com/imagebot/imagebot/internal/imagefacts"
	"github.com/imagebot/imagebot/internal/memo"
	"github.com/imagebot/imagebot/internal/scan"
)

// Git tags (issue 28) are decided as image tags and chart versions are,
// by the same decider, policies and gates. The tags come from the
// repository's ref advertisement (GitRepo), which names no dates: minAge
// measures a git tag from when imagebot first saw it (the dashboard's
// record of first sightings; without a record, from this run), and a
// signature gate holds every git tag (cosign signs OCI artifacts).

// GitRepo is what the plan needs from a client of git repositories
// (internal/gitsource, adapted by internal/job: the plan imports no git
// or HTTP client). Each repository is listed once per run; an error
// names the repository.
type GitRepo interface {
	List(ctx context.Context, repoURL string) (GitListing, error)
	// Serves reports whether a release asset's URL is there (one HEAD).
	Serves(ctx context.Context, assetURL string) (bool, error)
}

// GitListing is what a repository advertises: tags (with their commits)
// and branch names.
type GitListing struct {
	Tags     []GitTag
	Branches []string
}

// GitTag is one tag and the commit it points at.
type GitTag struct{ Name, Commit string }

// KindGitTag is how the plan's JSON names an update of a git tag.
const KindGitTag = "git"

// Reasons a git tag is left alone, besides the images' reasons.
const (
	ReasonNotTag   = scan.SkipNotTag // a branch, HEAD, a commit or no revision: it moves (or stays) by itself
	ReasonNoAsset  = "no-asset"      // the new tag does not serve the release asset the URL names
	ReasonGitCheck = "asset-check"   // the asset could not be checked: the URL moves when it can be
)

// gitRepoName is the name a git repository is decided under: the decider
// keys everything by a name.Repository. It is never contacted (the
// adapter answers for it), and the reserved .invalid domain keeps it from
// ever reaching a registry by mistake.
func gitRepoName(g *scan.GitSource) name.Repository {
	sum := sha256.Sum256([]byte(g.URL))
	repo, err := name.NewRepository("git.invalid/" + hex.EncodeToString(sum[:10]))
	if err != nil {
		panic(err) // a constant host and hex path always parse
	}
	return repo
}

// gitTags answers the decider's questions about one git repository from
// its advertisement, read once.
type gitTags struct {
	git  GitRepo
	src  scan.GitSource
	opts Options
	got  memo.Memo[GitListing]
}

var (
	_ Registry  = (*gitTags)(nil)
	_ Inspector = (*gitTags)(nil)
)

func newGitTags(opts Options, refs []scan.Ref) *gitTags {
	g := &gitTags{git: opts.Git, src: *refs[0].Git, opts: opts}
	for _, r := range refs {
		// The credentials written in any of the repository's URLs.
		if g.src.Credentials.IsZero() && r.Git != nil {
			g.src.Credentials = r.Git.Credentials
		}
	}
	g.src.Asset = ""
	if g.git == nil {
		g.git = noGitRepo{}
	}
	return g
}

func (g *gitTags) load(ctx context.Context) (GitListing, error) {
	return g.got.Get(ctx, "", func(ctx context.Context) (GitListing, error) {
		return g.git.List(ctx, requestURL(g.src))
	})
}

// requestURL is the repository's URL with the credentials it was written
// with: for the request to its host alone, never to be shown.
func requestURL(g scan.GitSource) string {
	return scan.Chart{Repository: g.URL, Credentials: g.Credentials}.RequestURL()
}

// Tags lists the tag names.
func (g *gitTags) Tags(ctx context.Context, _ name.Repository) ([]string, error) {
	l, err := g.load(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(l.Tags))
	for i, t := range l.Tags {
		out[i] = t.Name
	}
	return out, nil
}

// Digest: no git reference writes a digest; a tag's commit is no
// registry digest, and the record of sightings keys a version without
// one by its name (sightingKey).
func (g *gitTags) Digest(ctx context.Context, tag name.Tag) (string, error) {
	if _, ok := g.tag(ctx, tag.TagStr()); !ok {
		return "", fmt.Errorf("git repository %s: tag %s: %w", g.src.URL, tag.TagStr(), gate.ErrNotFound)
	}
	return "", nil
}

func (g *gitTags) tag(ctx context.Context, t string) (GitTag, bool) {
	l, err := g.load(ctx)
	if err != nil {
		return GitTag{}, false
	}
	for _, x := range l.Tags {
		if x.Name == t {
			return x, true
		}
	}
	return GitTag{}, false
}

// Facts dates a tag by its first sighting: the advertisement gives no
// dates, and a tag's date would cost a fetch of its objects.
func (g *gitTags) Facts(ctx context.Context, ref name.Reference, _ imagefacts.Need) (imagefacts.Facts, error) {
	if _, ok := g.tag(ctx, tagOf(ref)); !ok {
		return imagefacts.Facts{}, fmt.Errorf("git repository %s: tag %s: %w", g.src.URL, tagOf(ref), gate.ErrNotFound)
	}
	first := g.opts.now
	if s := g.opts.seen; s != nil {
		first, _ = s.firstSeen(sightingKey(gitRepoName(&g.src), ref, ""))
	}
	return imagefacts.Facts{Created: first, CreatedFrom: "first seen (git gives no tag dates)"}, nil
}

// Verify holds every tag: cosign signs OCI artifacts, not git tags.
func (g *gitTags) Verify(context.Context, name.Digest, gate.Signature) (gate.Signer, error) {
	return gate.Signer{}, fmt.Errorf("%w: a git tag carries no cosign signature", gate.ErrRejected)
}

// Exists: no git reference pins a digest.
func (g *gitTags) Exists(context.Context, name.Digest) (bool, error) { return true, nil }

// branches takes out of refs those whose revision the repository
// advertises as a branch and not as a tag: notices, not references.
func (g *gitTags) branches(ctx context.Context, refs []scan.Ref) ([]scan.Ref, []Notice) {
	l, err := g.load(ctx)
	if err != nil {
		return refs, nil // the decider reports the failed lookup
	}
	tags, heads := map[string]bool{}, map[string]bool{}
	for _, t := range l.Tags {
		tags[t.Name] = true
	}
	for _, b := range l.Branches {
		heads[b] = true
	}
	var kept []scan.Ref
	var notes []Notice
	for _, r := range refs {
		if heads[r.Tag] && !tags[r.Tag] {
			notes = append(notes, notice(r, ReasonNotTag, fmt.Sprintf("%s is a branch of %s, not a tag: it follows the branch; write a tag to have it updated", r.Tag, g.src.URL)))
			continue
		}
		kept = append(kept, r)
	}
	return kept, notes
}

// withGit completes dec, a decision on the git tags refs: an update's
// release-asset URLs move only where the new tag serves the same asset
// (one HEAD per URL); the others stay, with a notice.
func withGit(ctx context.Context, dec decision, git GitRepo) decision {
	if git == nil {
		git = noGitRepo{}
	}
	ups := dec.updates[:0]
	for _, u := range dec.updates {
		kept := u.Changes[:0]
		for _, c := range u.Changes {
			to := c.Ref.Git.AssetFor(c.Ref.Tag, c.Tag)
			if to == "" {
				kept = append(kept, c)
				continue
			}
			ok, err := git.Serves(ctx, to)
			switch {
			case err != nil:
				dec.notices = append(dec.notices, notice(c.Ref, ReasonGitCheck, fmt.Sprintf("%s is there, but whether it serves this asset could not be checked: %v", c.Tag, err)))
			case !ok:
				dec.notices = append(dec.notices, notice(c.Ref, ReasonNoAsset, fmt.Sprintf("%s does not serve %s (HEAD answered not found): the URL stays until a tag serves it; write the new asset's URL to move", c.Tag, scan.WithoutUserinfo(to))))
			default:
				kept = append(kept, c)
			}
		}
		u.Changes = kept
		if len(kept) > 0 {
			ups = append(ups, u)
		}
	}
	dec.updates = ups
	return dec
}

// gitUpdate marks an update that moves a git tag as one.
func gitUpdate(u *Update) {
	if len(u.Changes) > 0 && u.Changes[0].Ref.Git != nil && u.Kind == "" {
		u.Kind = KindGitTag
	}
}

// noGitRepo fails every git reference of a Build without a GitRepo.
type noGitRepo struct{}

func (noGitRepo) List(_ context.Context, repoURL string) (GitListing, error) {
	return GitListing{}, fmt.Errorf("git repository %s: no client for git repositories", scan.WithoutUserinfo(repoURL))
}

func (noGitRepo) Serves(_ context.Context, assetURL string) (bool, error) {
	return false, fmt.Errorf("%s: no client for git repositories", scan.WithoutUserinfo(assetURL))
}

// decideGit decides the references to one git repository with decide
// (the lockstep-aware decider): those naming a branch are notices, the
// rest are decided from the repository's tags, and a release asset moves
// only where the new tag serves it.
func decideGit(ctx context.Context, refs []scan.Ref, opts Options, decide func(context.Context, []scan.Ref, Options) decision) decision {
	g := newGitTags(opts, refs)
	o := opts
	o.Registry = g
	if o.Inspector != nil {
		o.Inspector = g
	}
	refs, notes := g.branches(ctx, refs)
	var dec decision
	if len(refs) > 0 {
		dec = withGit(ctx, decide(ctx, refs, o), opts.Git)
	}
	dec.notices = append(dec.notices, notes...)
	return dec
}

// gitVersionsOf is VersionsOf for a git reference: its tags, listed by
// charts when it also lists git tags (GitRepo, as internal/job's does for
// rollbacks).
func gitVersionsOf(charts ChartRepo, r scan.Ref) (Registry, name.Repository) {
	g, _ := charts.(GitRepo)
	return newGitTags(Options{Git: g}, []scan.Ref{r}), gitRepoName(r.Git)
}
