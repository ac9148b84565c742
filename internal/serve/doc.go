// Package serve runs imagebot's job over and over: on a cron schedule, or
// once over many repositories. It keeps each checkout in step with its
// remote before a run (cloning --clone URLs, split across the pods of an
// Indexed Job by --shard), works on several repositories of a run at once
// (Options.Parallel) with what the run shares (a job.Pool of registry
// clients), never lets two runs overlap, lets a stop finish the current
// run, and reports on /healthz, /readyz and /metrics.
//
// It never plans, looks up images or opens pull requests itself: it calls
// job.Run, as `imagebot run` does, on each checkout, and leaves the words
// of its output to Options.Report (cmd/bot's). It never exits the process
// either: a run ends in a Status, which cmd/bot maps to an exit status.
package serve
