// Package rollout decides what the seeds' rollouts ask for beyond the
// registry's newest tag (DESIGN.md "Rollouts from the seeds"): which
// version an environment is promoted to once it soaked in another, when an
// update of a pre-pulled image may roll out, and which tag a rollback goes
// back to (the update `imagebot rollback` proposes, checked against the
// registry).
//
// It keeps no state: every decision is recomputed from the default
// branch's first-parent history (the commits that changed an environment's
// files or the pre-pull DaemonSet, with their times) and from the commit
// statuses and check runs on those commits. It reads them through two
// small interfaces, History and Statuses, which internal/gitops implements
// over the fetched repository and the GitHub API, so the logic is
// table-tested without servers. It never talks to git, GitHub or a
// registry itself (the registry comes as plan.Registry), and never
// writes: it turns a plan into a plan, or a request into an update.
//
// Time is the caller's: Options.Now, never the clock, and a version's age
// is measured from the commit that brought it, so a rerun at the same
// moment decides the same, and a PR body (which quotes only commits and
// their times) stays the same between runs.
package rollout
