// Package serve runs imagebot's job over and over: on a cron schedule, or
// once over many repositories. It keeps each checkout in step with its
// remote before a run (cloning --clone URLs, split across the pods of an
// Indexed Job by --shard), never lets two runs overlap, lets a stop finish
// the current run, and reports on /healthz, /readyz and /metrics.
//
// It never plans, looks up images or opens pull requests itself: the Job
// it is given does that (cmd/bot wires `imagebot run` in). It never exits
// the process either: a run ends in a Status, which cmd/bot maps to an
// exit status.
package serve
