package plan

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/google/go-containerregistry/pkg/name"

	"github.com/imagebot/imagebot/internal/gate"
	"github.com/imagebot/imagebot/internal/policy"
	"github.com/imagebot/imagebot/internal/scan"
)

// Plan is the list of updates for one repository: the one value every
// command shares.
type Plan struct {
	Updates  []Update  `json:"updates"`
	Notices  []Notice  `json:"notices"`
	Problems []Problem `json:"problems"`

	// Seen is when each candidate digest the gates inspected was first
	// seen, for the caller to record (Options.FirstSeen), and Held the
	// candidates a gate held back; both nil unless Options.FirstSeen is set.
	Seen map[string]time.Time `json:"-"`
	Held []Held               `json:"-"`
	// Drift is what the clusters of clusters: run that the repository or
	// the registry does not say (the job's drift check), for the
	// dashboard: Reason is the kind, Detail the cluster, workload and
	// digests; File is "" for an image no file names.
	Drift []Notice `json:"-"`
}

// Sort puts the plan in its one order, which every output shows: updates
// by image, kind, environment, tag moved from and to (two scopes of an image
// may move one tag apart: see Options.Scope); notices and problems by
// file and line. Build returns a sorted plan; a step that adds to it
// (internal/rollout) sorts it again.
func (p *Plan) Sort() {
	slices.SortFunc(p.Updates, func(a, b Update) int {
		return cmp.Or(strings.Compare(a.Image, b.Image), strings.Compare(a.Kind, b.Kind), strings.Compare(a.Environment, b.Environment), strings.Compare(a.From, b.From), strings.Compare(a.To, b.To))
	})
	slices.SortFunc(p.Notices, func(a, b Notice) int {
		return cmp.Or(strings.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line), strings.Compare(a.Image, b.Image), strings.Compare(a.Tag, b.Tag))
	})
	slices.SortFunc(p.Problems, func(a, b Problem) int {
		return cmp.Or(strings.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line), strings.Compare(a.Message, b.Message))
	})
}

// Notice accounts for one reference the plan does not update, and says why:
// every reference the scan found ends as a location of an update or as a
// notice (DESIGN.md "Notices"). Reason is one of the Reason constants; Detail
// is a sentence for humans ("22.3.0 only as alpine3.19").
type Notice struct {
	File   string `json:"file"`
	Line   int    `json:"line"`
	Image  string `json:"image"`
	Tag    string `json:"tag"`
	Reason string `json:"reason"`
	Detail string `json:"detail,omitempty"`
}

// Reasons a reference is left alone.
const (
	ReasonUpToDate     = policy.ReasonUpToDate     // nothing newer exists in any shape
	ReasonFloating     = policy.ReasonFloating     // a mutable tag (latest, 1.27 beside 1.27.3); pin: tag fixes it
	ReasonOtherVariant = policy.ReasonOtherVariant // newer versions exist only in other variants
	ReasonNoVersion    = policy.ReasonNoVersion    // a commit id (sha-3f9a2c1) without a version to compare
	// A newer version exists only in another shape; the detail names the
	// highest such tag and why it was passed over.
	ReasonOtherStream     = policy.ReasonOtherStream     // another prefix, or another form of build counter or commit id
	ReasonOtherOS         = policy.ReasonOtherOS         // another Windows OS build, which must match the node's
	ReasonNewerFloating   = policy.ReasonNewerFloating   // a floating tag (an alias that moves)
	ReasonNewerPrerelease = policy.ReasonNewerPrerelease // a prerelease the current tag may not move to
	ReasonLessPrecise     = policy.ReasonLessPrecise     // a tag stating fewer numbers (an alias or another scheme)
	ReasonExcluded        = policy.ReasonExcluded        // left out by the policy's ignore, allow, range, pattern or versioning
	ReasonNoDigestField   = "no-digest-field"            // pin: digest, but the reference has no place for a digest (a tag marker)
	ReasonHeld            = "held"                       // a gate held back every candidate (detail: gate and candidate)
	ReasonNoTag           = "no-tag"                     // no tag written (Kubernetes pulls latest)
	ReasonDigestOnly      = "digest-only"                // name@sha256:... without a tag: nothing to compare
	ReasonVariable        = "variable"                   // ${VAR} or another value that is not a reference
	ReasonInvalid         = "invalid"                    // an image value that is not a valid reference (detail says why)
	ReasonSkipped         = "skipped"                    // a policy says skip
	ReasonRenamed         = "renamed"                    // a kustomization building the file renames the image: its images: entry is the reference
	ReasonFolded          = scan.SkipFolded              // an image in Argo CD helm.values written as a folded or quoted string: found, never written
	ReasonWatched         = "watched"                    // a repository another image automation watches (Flux ImageRepository, Argo CD Image Updater), not an image to pull
	ReasonPattern         = "pattern"                    // the tag does not match the policy's pattern or versioning
	ReasonPromoted        = "promoted"                   // the file's environment takes versions from another one (detail: which, and what holds it)
	ReasonLockstep        = "lockstep"                   // a lockstep group waits for a tag every member has
	ReasonPrepulling      = "prepulling"                 // the new image is being pre-pulled; the rollout waits for the lead
)

// Update is one image moving from one tag to another. Every place in the
// repository that holds that image at that tag is one of its locations.
type Update struct {
	Image string `json:"image"`
	// Repo is Image as the scan parsed it: what the registry is asked
	// about the new image with (a PR body's details).
	Repo      name.Repository `json:"-"`
	From      string          `json:"from"`
	To        string          `json:"to"`
	Type      string          `json:"type"` // major, minor, patch, build, digest, pin or rollback
	Digest    string          `json:"digest,omitempty"`
	Locations []scan.Location `json:"locations"`
	// Notice is said along with the update: "22.3.0 only as alpine3.19"
	// when the newest version exists only in other variants, "held back
	// 1.27.4: 5h old, minAge 3d" when a gate passed over a better candidate.
	Notice string `json:"notice,omitempty"`
	// Evidence is what the policy's gates saw of the new image; nil when
	// the policy asks for none.
	Evidence *gate.Evidence `json:"evidence,omitempty"`

	// Changes are the edits that carry the update out, one per reference.
	Changes []Change `json:"-"`

	// Rollouts (DESIGN.md "Rollouts from the seeds"): see kind.go.

	// Kind is "" for an image update from the registry, KindChart for a
	// chart version's from its repository, else one of the rollouts' Kind
	// constants: it decides the update's branch and what its PR says.
	Kind string `json:"kind,omitempty"`
	// Chart is set when the update moves a chart version: Image is then
	// the chart as policies match it (REPOSITORY_URL/CHART), and Chart
	// says what its repository says of it.
	Chart *Chart `json:"chart,omitempty"`
	// Group is the config group of the image: a group's updates share one
	// branch and pull request.
	Group string `json:"group,omitempty"`
	// Environment is, for a promotion, the environment it moves into.
	Environment string `json:"environment,omitempty"`
	// Grounds are sentences for the PR body saying why a rollout is due:
	// since when the version soaked and which statuses passed, since when
	// the image has been pre-pulled, which tag a rollback returns to. They
	// depend only on commits and statuses, never on the time of the run,
	// so a rerun writes the same body.
	Grounds []string `json:"grounds,omitempty"`
	// Files are edits of whole files that go with the Changes, such as
	// the pre-pull DaemonSet.
	Files []FileEdit `json:"-"`
	// Order, for a build chosen by a policy's order, says by which and
	// what reading build times cost (builds.go).
	Order *Order `json:"order,omitempty"`
	// PullRequest is what the update's pull request carries as the
	// config's policies say; the job fills it in (nil before).
	PullRequest *PullRequest `json:"pullRequest,omitempty"`
	// Minor is, for a major update planned with
	// Options.SeparateMajorMinor, the newest version within the current
	// major for the same references (nil when there is none): `run`
	// proposes it in a pull request of its own, so that declining the
	// major leaves the minors flowing. apply and the plan's own lists
	// take the update itself, the newest.
	Minor *Update `json:"-"`
}

// PullRequest is what the policies give an update's pull request.
type PullRequest struct {
	Labels    []string `json:"labels"`
	Reviewers []string `json:"reviewers"`
	// Automerge: the update may merge itself once its checks pass.
	Automerge bool `json:"automerge"`
	// Approval: the PR waits on the dashboard until it is ticked.
	Approval bool `json:"approval"`
}

// Change is one reference and the values to write into it.
type Change struct {
	Ref scan.Ref
	Tag string
	// Digest is written when non-empty; a reference that had no digest and
	// does not ask for one keeps having none.
	Digest string
}

// Problem is something that could not be handled: a file that could not be
// read or parsed, a reference that could not be rewritten, or a lookup that
// failed. It names the file and line it concerns.
type Problem struct {
	File    string `json:"file"`
	Line    int    `json:"line"`
	Message string `json:"message"`
	// Kind classifies a problem for tools that act on it: KindDangling,
	// or "" for the others.
	Kind string `json:"kind,omitempty"`
	// Failed is true for lookups that failed (registry errors) as opposed to
	// problems in the user's files; they make the exit status 2.
	Failed bool `json:"-"`
	// Image is the image a failed lookup concerns, so that its open pull
	// requests are kept rather than closed as obsolete.
	Image string `json:"-"`
	// Locations are every reference the problem concerns, File:Line the
	// first, when there is more than one (a failed lookup of an image used
	// in several files); nil otherwise.
	Locations []scan.Location `json:"locations,omitempty"`
}

// Elsewhere lists the places a problem concerns besides File:Line
// ("b.yaml:7, c.yaml:9"), "" when there are none.
func (p Problem) Elsewhere() string {
	var out []string
	for _, l := range p.Locations {
		if l.File == p.File && l.Line == p.Line {
			continue
		}
		out = append(out, fmt.Sprintf("%s:%d", l.File, l.Line))
	}
	return strings.Join(out, ", ")
}
