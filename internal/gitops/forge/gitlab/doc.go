// Package gitlab is the GitLab driver (gitlab.com, or a self-managed
// instance at any URL, under a path too): a forge.Forge of merge requests
// through GitLab's client-go, and the listing of a group's projects for
// serve. It imports no other driver and not the lifecycle.
package gitlab
