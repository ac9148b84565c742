// Command imagebot is imagebot's command line: it wires scan, registry,
// policy, plan, rewrite, gitops and serve together, and owns flags, output
// formats and exit codes. It holds no logic of its own.
//
// Each command, as in cli/cli, is an options struct, a constructor that
// binds its flags (newPlanCmd), and a run function that returns an error
// (runPlan), which tests call directly. The environment is read once, into
// the options (environ); errors become exit statuses in one place
// (exitCode).
package main
