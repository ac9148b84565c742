// Command imagebot is imagebot's command line. It holds flags, words (help
// texts and the messages that say what to do), the environment (environ),
// output formats (plan, run, cost, GitHub Actions annotations, step summary
// and outputs), progress rendering and exit statuses; internal/job does the
// work of plan, apply, run, rollback and serve's runs. It holds no logic of
// its own (layering_test.go checks that it calls job rather than the stages).
//
// Each command, as in cli/cli, is an options struct, a constructor that
// binds its flags (newPlanCmd), and a run function that returns an error
// (runPlan), which tests call directly. The environment is read once, into
// the options (environ); errors become exit statuses in one place
// (exitCode), a *job.PartialError exit status 2.
package main
