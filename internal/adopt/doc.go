// Package adopt writes a first .imagebot.yaml for a repository, and the GitHub
// Actions workflow that runs imagebot: `imagebot init`. It either reads the
// repository as it is (the registries its manifests pull from, and a policy
// for each tag scheme that imagebot's default rule cannot order, learnt from
// the registry's tags) or converts what the user had before: Flux's
// ImagePolicy and ImageRepository objects with their `$imagepolicy` markers,
// or Renovate's docker rules.
//
// A conversion never guesses silently: whatever it cannot express in imagebot's
// terms becomes a Note naming the file and line it came from, which the CLI
// prints and which heads the written file as comments. The generated file is
// built as YAML nodes (comments included) and encoded by kyaml, never from
// string templates, and it is loaded back with internal/config before it is
// returned, so a written file always passes `imagebot validate`.
//
// The package never overwrites a file that exists (unless asked to), never
// re-serializes a user's manifest (Flux markers are extended by splicing bytes
// with internal/rewrite), and talks to registries only through the TagLister
// it is given.
package adopt
