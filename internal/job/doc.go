// Package job conducts imagebot's pipeline for every command: it loads
// the config, builds the registry client, scans, plans, and then rewrites
// the working tree (Apply), or opens pull requests from the default
// branch's tip (Run, Rollback). The CLI (cmd/bot), serve and the demo call
// the same functions.
//
// It never prints: a command's result is a Report or RunReport that
// cmd/bot words and formats, and its logs go to Options.Logger. It never
// exits either: an error is a *PartialError when the rest was done (exit
// status 2), anything else when nothing could be (exit status 1). It reads
// no environment variable itself: Options carry what the environment said.
package job
