// Command imagebot is imagebot's command line: it wires scan, registry, policy,
// plan, rewrite and gitops together, and owns flags, output formats and exit
// codes. It holds no logic of its own.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// Exit statuses, as DESIGN.md fixes them.
const (
	exitOK      = 0 // everything that could be checked was handled
	exitUsage   = 1 // bad config, bad flags, or a repository that cannot be read
	exitPartial = 2 // some lookups or pull requests failed; the rest were done
)

const usage = `usage: imagebot <command> [flags]

commands:
  plan      scan, look up and decide; print the updates (writes nothing)
  apply     plan, then rewrite the working tree (files only, no git)
  run       plan, then one branch, commit and pull request per update
  rollback  one pull request moving an image back to an earlier tag
  serve     run on a schedule; serves /healthz, /readyz and /metrics
  validate  check the config file
  demo      run the whole job against an embedded registry, git remote and GitHub
  version   print the version

Run 'imagebot <command> -h' for a command's flags.
`

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(Main(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

// Main runs one command and returns its exit status.
func Main(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return exitUsage
	}
	cmds := map[string]func(context.Context, []string, io.Writer, io.Writer) int{
		"plan":     planCmd,
		"apply":    applyCmd,
		"run":      runCmd,
		"rollback": rollbackCmd,
		// The pre-pull DaemonSet's helper, not meant for people.
		"prepull-helper": prepullHelperCmd,
		"serve":          serveCmd,
		"validate":       validateCmd,
		"init":           initCmd,
		"demo":           demoCmd,
		"version":        versionCmd,
	}
	cmd, ok := cmds[args[0]]
	if !ok {
		if args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
			fmt.Fprint(stdout, usage)
			return exitOK
		}
		fmt.Fprintf(stderr, "imagebot: unknown command %q\n\n%s", args[0], usage)
		return exitUsage
	}
	return cmd(ctx, args[1:], stdout, stderr)
}

// parseStatus is the exit status for a flag parsing error: asking for help
// with -h is not a failure.
func parseStatus(err error) int {
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	return exitUsage
}
