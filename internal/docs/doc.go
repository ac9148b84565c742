// Package docs holds no code: its tests keep README.md and docs/ honest.
// Every relative link and #anchor must resolve as GitHub renders them, every
// page of docs/ must be reachable from both indexes, the configuration
// reference must name exactly the keys of schema/imagebot.schema.json, and
// the workflow the pages show must be .github/examples/imagebot.yml.
package docs
