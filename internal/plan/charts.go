package plan

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"time"

	"github.com/google/go-containerregistry/pkg/name"

	"github.com/imagebot/imagebot/internal/gate"
	"github.com/imagebot/imagebot/internal/imagefacts"
	"github.com/imagebot/imagebot/internal/memo"
	"github.com/imagebot/imagebot/internal/scan"
)

// Chart versions (issue 21) are decided as image tags are, by the same
// decider: one policy, lockstep groups, environments, gates, dangling
// checks. What differs is where the versions come from, which an adapter
// hides behind the Registry and Inspector the decider asks:
//   - a chart in an OCI registry is listed by the registry client; Helm
//     writes a version's '+' as '_' in its tag (OCI tags allow no '+'), so
//     the versions a HelmRelease, an Application, a Chart.yaml or a
//     helmCharts entry writes are the tags with '_' read as '+'; a Flux
//     OCIRepository writes the tag itself, which is decided as the version
//     it spells ('_' read as '+', as Flux's semver filter reads it) and
//     written back as a tag (see ChartRef);
//   - a chart in an HTTP repository is listed from the repository's
//     index.yaml (ChartRepo), whose created times are what minAge reads.

// ChartRepo is what the plan needs from a client of HTTP Helm
// repositories (internal/chartrepo, adapted by internal/job: the plan
// imports no HTTP client): each repository's index is fetched once,
// whichever charts of it are asked for. An error names the repository.
type ChartRepo interface {
	Versions(ctx context.Context, repoURL, chart string) (ChartIndex, error)
}

// ChartIndex is what a repository's index says of one chart.
type ChartIndex struct {
	// Versions are newest first; Deprecated as Helm reads it (the
	// newest version says so).
	Versions   []ChartVersion
	Deprecated bool
}

// ChartVersion is one version of a chart as its index lists it.
type ChartVersion struct {
	Version    string // as the index writes it
	Created    time.Time
	AppVersion string
	Digest     string // hex sha256 of the archive
	Home       string
	Sources    []string
}

// KindChart is how the plan's JSON names an update of a chart version
// whose Kind is otherwise "" (see Update.MarshalJSON).
const KindChart = "chart"

// Reasons a chart version is left alone, besides the images' reasons.
const (
	ReasonRange      = scan.SkipRange    // a version range: the tool picks at deploy time
	ReasonNoSource   = scan.SkipNoSource // a HelmRelease whose source is not in the tree
	ReasonNotChart   = scan.SkipNotChart // a git source: its revision is no chart version
	ReasonLocal      = scan.SkipLocal    // a chart read from the tree or through a repository alias
	ReasonDeprecated = "deprecated"      // the chart's repository says it is deprecated
)

// Chart is what an update of a chart version says of the chart: its
// repository and name, and what the repository's index says of the old
// and new versions (HTTP repositories; empty for OCI charts, whose
// metadata is in a blob the plan does not fetch).
type Chart struct {
	Repository     string   `json:"repository"`
	Name           string   `json:"name"`
	AppVersion     string   `json:"appVersion,omitempty"`
	FromAppVersion string   `json:"fromAppVersion,omitempty"`
	Home           string   `json:"home,omitempty"`
	Sources        []string `json:"sources,omitempty"`
}

// chartForm is how the versions of a group of references are listed.
type chartForm int

const (
	formImage   chartForm = iota // an image
	formOCIHelm                  // a Helm chart (or an OCIRepository's artifact) in an OCI registry: '+' is '_' in tags
	formHTTP                     // a chart in an HTTP repository
	formGit                      // a git tag (gitsource.go)
)

func formOf(r scan.Ref) chartForm {
	switch {
	case r.Git != nil:
		return formGit
	case r.Chart == nil:
		return formImage
	case r.Kind == scan.KindOCIRepository:
		return formOCIHelm
	case r.Chart.OCI():
		return formOCIHelm
	}
	return formHTTP
}

// httpRepo is the name an HTTP chart is decided under: the decider keys
// everything by a name.Repository, and an HTTP chart has none. It is never
// contacted (the adapter answers for it), and the reserved .invalid
// domain (RFC 2606) keeps it from ever reaching a registry by mistake.
func httpRepo(c *scan.Chart) name.Repository {
	sum := sha256.Sum256([]byte(c.String()))
	repo, err := name.NewRepository("chart.invalid/" + hex.EncodeToString(sum[:10]))
	if err != nil {
		panic(err) // a constant host and hex path always parse
	}
	return repo
}

// chartOptions are opts with the Registry and Inspector that answer for
// refs' form of versions.
func chartOptions(opts Options, refs []scan.Ref) (Options, *httpChart) {
	switch formOf(refs[0]) {
	case formOCIHelm:
		opts.Registry = plusTags{opts.Registry}
		if opts.Inspector != nil {
			opts.Inspector = plusInspector{opts.Inspector}
		}
	case formHTTP:
		h := &httpChart{repos: opts.Charts, chart: *refs[0].Chart}
		for _, r := range refs {
			// The credentials written in any of the chart's URLs, the
			// same chart whoever wrote them.
			if h.chart.Credentials.IsZero() && r.Chart != nil {
				h.chart.Credentials = r.Chart.Credentials
			}
		}
		if h.repos == nil {
			h.repos = noChartRepo{}
		}
		opts.Registry, opts.Inspector = h, h
		return opts, h
	}
	return opts, nil
}

// plusTags lists a Helm chart's OCI tags as the chart versions they are
// ('_' read as '+') and asks for a version by its tag.
type plusTags struct{ Registry }

func (p plusTags) Tags(ctx context.Context, repo name.Repository) ([]string, error) {
	tags, err := p.Registry.Tags(ctx, repo)
	out := make([]string, len(tags))
	for i, t := range tags {
		out[i] = strings.ReplaceAll(t, "_", "+")
	}
	return out, err
}

func (p plusTags) Digest(ctx context.Context, tag name.Tag) (string, error) {
	return p.Registry.Digest(ctx, ociTag(tag))
}

// Expect passes the repositories on: a Registry that can use them still
// sees them.
func (p plusTags) Expect(repos ...name.Repository) {
	if e, ok := p.Registry.(expecter); ok {
		e.Expect(repos...)
	}
}

// ociTag is a chart version's tag as the registry holds it.
func ociTag(t name.Tag) name.Tag {
	return t.Context().Tag(strings.ReplaceAll(t.TagStr(), "+", "_"))
}

type plusInspector struct{ Inspector }

func (p plusInspector) Facts(ctx context.Context, ref name.Reference, need imagefacts.Need) (imagefacts.Facts, error) {
	if t, ok := ref.(name.Tag); ok {
		ref = ociTag(t)
	}
	return p.Inspector.Facts(ctx, ref, need)
}

// httpChart answers the decider's questions about one chart of an HTTP
// repository from the repository's index, read once.
type httpChart struct {
	repos ChartRepo
	chart scan.Chart
	got   memo.Memo[ChartIndex]
}

var (
	_ Registry  = (*httpChart)(nil)
	_ Inspector = (*httpChart)(nil)
)

func (h *httpChart) load(ctx context.Context) (ChartIndex, error) {
	return h.got.Get(ctx, "", func(ctx context.Context) (ChartIndex, error) {
		// The credentials the URL was written with go to the
		// repository's host alone (chartrepo); errors name the URL
		// without them.
		return h.repos.Versions(ctx, h.chart.RequestURL(), h.chart.Name)
	})
}

// version is what the index says of v; ok false when it lists no such
// version (or could not be read).
func (h *httpChart) version(ctx context.Context, v string) (ChartVersion, bool) {
	c, err := h.load(ctx)
	if err != nil {
		return ChartVersion{}, false
	}
	for _, cv := range c.Versions {
		if cv.Version == v {
			return cv, true
		}
	}
	return ChartVersion{}, false
}

// Tags lists the chart's versions as the index writes them.
func (h *httpChart) Tags(ctx context.Context, _ name.Repository) ([]string, error) {
	c, err := h.load(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(c.Versions))
	for i, v := range c.Versions {
		out[i] = v.Version
	}
	return out, nil
}

// Digest is the archive's digest, which no chart reference writes: only
// the gates' record of first sightings reads it (Facts).
func (h *httpChart) Digest(ctx context.Context, tag name.Tag) (string, error) {
	v, ok := h.version(ctx, tag.TagStr())
	if !ok {
		return "", fmt.Errorf("chart %s: version %s: %w", h.chart, tag.TagStr(), gate.ErrNotFound)
	}
	return archiveDigest(v), nil
}

func archiveDigest(v ChartVersion) string {
	if v.Digest == "" {
		return ""
	}
	return "sha256:" + v.Digest
}

// Facts says when a version was indexed (the index's created), which is
// what minAge measures.
func (h *httpChart) Facts(ctx context.Context, ref name.Reference, _ imagefacts.Need) (imagefacts.Facts, error) {
	v, ok := h.version(ctx, tagOf(ref))
	if !ok {
		return imagefacts.Facts{}, fmt.Errorf("chart %s: version %s: %w", h.chart, tagOf(ref), gate.ErrNotFound)
	}
	f := imagefacts.Facts{Digest: archiveDigest(v), Created: v.Created}
	if imagefacts.Known(v.Created) {
		f.CreatedFrom = "index"
	}
	return f, nil
}

// Verify holds every version: cosign signs OCI artifacts, and an HTTP
// repository serves none.
func (h *httpChart) Verify(context.Context, name.Digest, gate.Signature) (gate.Signer, error) {
	return gate.Signer{}, fmt.Errorf("%w: an HTTP chart repository holds no cosign signatures (publish the chart to an OCI registry to sign it)", gate.ErrRejected)
}

// Exists: no chart reference pins a digest.
func (h *httpChart) Exists(context.Context, name.Digest) (bool, error) { return true, nil }

// chartInfo is what an update of this chart says of it.
func (h *httpChart) chartInfo(ctx context.Context, from, to string) *Chart {
	info := &Chart{Repository: h.chart.Repository, Name: h.chart.Name}
	if v, ok := h.version(ctx, from); ok {
		info.FromAppVersion = v.AppVersion
	}
	if v, ok := h.version(ctx, to); ok {
		info.AppVersion, info.Home, info.Sources = v.AppVersion, v.Home, v.Sources
	}
	return info
}

// deprecated reports whether the index calls the chart deprecated.
func (h *httpChart) deprecated(ctx context.Context) bool {
	c, err := h.load(ctx)
	return err == nil && c.Deprecated
}

// noChartRepo fails every HTTP chart of a Build without a ChartRepo.
type noChartRepo struct{}

func (noChartRepo) Versions(_ context.Context, repoURL, _ string) (ChartIndex, error) {
	return ChartIndex{}, fmt.Errorf("chart repository %s: no client for HTTP chart repositories", scan.WithoutUserinfo(repoURL))
}

// withChart completes dec, a decision on the chart versions refs: each
// update says which chart it moves, and a deprecated chart is noticed.
func withChart(ctx context.Context, dec decision, refs []scan.Ref, h *httpChart) decision {
	c := refs[0].Chart
	for i, u := range dec.updates {
		for _, v := range []*Update{&dec.updates[i], u.Minor} {
			if v == nil {
				continue
			}
			if h != nil {
				v.Chart = h.chartInfo(ctx, v.From, v.To)
			} else {
				v.Chart = &Chart{Repository: c.Repository, Name: c.Name}
			}
		}
	}
	if h != nil && h.deprecated(ctx) {
		dec.notices = append(dec.notices, notices(refs, ReasonDeprecated, "its repository marks the chart deprecated: it gets no new versions; look for its successor")...)
	}
	return dec
}

// chartSkippedNotice accounts for a chart version the scan left alone.
func chartSkippedNotice(s scan.Skipped) Notice {
	n := skippedNotice(s)
	n.Image = s.Image
	if _, v, ok := strings.Cut(s.Value, "@"); ok {
		n.Tag = v
	}
	switch s.Reason {
	case scan.SkipRange:
		n.Reason, n.Detail = ReasonRange, "left alone: a range; pin a version to have it updated"
		if s.Detail != "" {
			n.Detail += " (" + s.Detail + ")"
		}
	case scan.SkipNoSource, scan.SkipNotChart, scan.SkipLocal, scan.SkipNotTag:
		n.Reason, n.Detail = s.Reason, s.Detail
	}
	return n
}

// chartUpdate marks an update that moves a chart version as one (Kind
// KindChart, unless a rollout's kind), with its chart named even when a
// lockstep group decided it.
func chartUpdate(u *Update) {
	if len(u.Changes) == 0 || u.Changes[0].Ref.Chart == nil {
		return
	}
	if u.Kind == "" {
		u.Kind = KindChart
	}
	if u.Chart == nil {
		c := u.Changes[0].Ref.Chart
		u.Chart = &Chart{Repository: c.Repository, Name: c.Name}
	}
}

// chartExpecter is a ChartRepo that can parse an index for the charts
// named alone (internal/chartrepo's Client).
type chartExpecter interface {
	Expect(repoURL string, charts ...string)
}

// expectCharts names the HTTP charts about to be looked up to a ChartRepo
// that can use them, so that a big index is kept only for those.
func expectCharts(opts Options, repos []scoped, byRepo map[scoped][]scan.Ref) {
	e, ok := opts.Charts.(chartExpecter)
	if !ok {
		return
	}
	for _, k := range repos {
		if k.form == formHTTP {
			c := byRepo[k][0].Chart
			e.Expect(c.Repository, c.Name)
		}
	}
}

// ociTagNotices spells the tag of a notice on an OCIRepository's tag as
// the file writes it; at are where those tags are.
func ociTagNotices(notes []Notice, at map[scan.Location]bool) {
	if len(at) == 0 {
		return
	}
	for i, n := range notes {
		if at[scan.Location{File: n.File, Line: n.Line, Col: 0}] {
			notes[i].Tag = strings.ReplaceAll(n.Tag, "+", "_")
		}
	}
}

// ChartRef is a chart reference as the plan decides it: an
// OCIRepository's tag read as the chart version it spells ('_' as '+'),
// so that 6.6.0_build.1 is semver and an update of it joins the
// HelmReleases' of the same chart. Other references are returned as they
// are. WriteChartTags undoes it in an update's changes.
func ChartRef(r scan.Ref) scan.Ref {
	if r.Kind == scan.KindOCIRepository {
		r.Tag = strings.ReplaceAll(r.Tag, "_", "+")
	}
	return r
}

// WriteChartTags writes the changes of u to OCIRepository tags as tags
// ('+' as '_', which Flux then pulls) and gives back the references they
// were decided from (ChartRef): an OCI tag holds no '+', so '+' in its
// version was '_'.
func WriteChartTags(u *Update) {
	for i, c := range u.Changes {
		if c.Ref.Kind == scan.KindOCIRepository {
			u.Changes[i].Ref.Tag = strings.ReplaceAll(c.Ref.Tag, "+", "_")
			u.Changes[i].Tag = strings.ReplaceAll(c.Tag, "+", "_")
		}
	}
}

// VersionsOf is the Registry that lists the versions of r as the plan
// reads them, and the repository to ask it about: an image's tags from
// reg; an OCI chart's tags from reg, '_' read as '+'; an HTTP chart's
// versions from its repository's index, through charts.
func VersionsOf(reg Registry, charts ChartRepo, r scan.Ref) (Registry, name.Repository) {
	if formOf(r) == formGit {
		return gitVersionsOf(charts, r)
	}
	repo := r.Repo
	if formOf(r) == formHTTP {
		repo = httpRepo(r.Chart)
	}
	o, _ := chartOptions(Options{Registry: reg, Charts: charts}, []scan.Ref{r})
	return o.Registry, repo
}
