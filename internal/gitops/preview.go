package gitops

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/imagebot/imagebot/internal/plan"
	"github.com/imagebot/imagebot/internal/rewrite"
	"github.com/rogpeppe/go-internal/diff"
)

// Preview prints the pull requests a run would open, computed from the
// working tree in dir alone: no remote, no API, no token. It is what
// `run --dry-run` shows when it has no GITHUB_TOKEN. separate is
// RunOptions.SeparateMajorMinor.
func Preview(p *plan.Plan, dir, prefix string, separate bool, out io.Writer) error {
	if prefix == "" {
		prefix = "imagebot/"
	}
	for _, g := range groupsSplit(p, prefix, openBranches{}, separate) {
		fmt.Fprintf(out, "--- would open pull request from %s\n%s\n\n%s\n", g.Branch, title(g), body(g))
		for _, fc := range rewrite.ByFile(g.changes()) {
			f := fc.File
			before, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(f)))
			if err != nil {
				return err
			}
			after, _, err := rewrite.Bytes(before, fc.Changes)
			if err != nil {
				return fmt.Errorf("%s: %w", f, err)
			}
			lock, lockAfter, err := rewrite.Lock(f, fc.Changes, before, after, func(name string) ([]byte, bool) {
				b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
				return b, err == nil
			})
			if err != nil {
				fmt.Fprintf(out, "(%v)\n", err)
				continue
			}
			out.Write(diff.Diff("a/"+f, before, "b/"+f, after))
			if lock != "" {
				lockBefore, _ := os.ReadFile(filepath.Join(dir, filepath.FromSlash(lock)))
				out.Write(diff.Diff("a/"+lock, lockBefore, "b/"+lock, lockAfter))
			}
		}
		for _, u := range g.Updates {
			for _, fe := range u.Files {
				before, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(fe.Path)))
				if err != nil && !os.IsNotExist(err) {
					return err
				}
				after, err := fe.Apply(before)
				if err != nil {
					return fmt.Errorf("%s: %w", fe.Path, err)
				}
				out.Write(diff.Diff("a/"+fe.Path, before, "b/"+fe.Path, after))
			}
		}
		fmt.Fprintln(out)
	}
	return nil
}
