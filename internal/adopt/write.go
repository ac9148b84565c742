package adopt

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"

	"github.com/imagebot/imagebot/internal/config"
	"github.com/imagebot/imagebot/internal/safefs"
)

// Files are the paths (relative to the repository root) and contents init
// writes: the config under the name the repository already uses, if any,
// and the workflow.
func (r *Result) Files(root string) map[string][]byte {
	name := config.FileNames[0]
	for _, n := range config.FileNames {
		if _, err := safefs.Lstat(root, n); err == nil {
			name = n
			break
		}
	}
	files := map[string][]byte{name: r.Config}
	if r.Workflow != nil {
		files[r.workflowPath()] = r.Workflow
	}
	return files
}

// workflowPath is where the workflow goes.
func (r *Result) workflowPath() string { return cmp.Or(r.WorkflowPath, WorkflowPath) }

// Write writes the files below root. Unless force is set, a file that
// exists is never overwritten, and nothing is written when any exists.
// Nothing is written outside root, through a link (a committed
// `.github -> ../elsewhere`), or over a link. It returns the paths
// written, config first.
func (r *Result) Write(root string, force bool) ([]string, error) {
	files := r.Files(root)
	if !force {
		if err := Unwritten(root); err != nil {
			return nil, err
		}
	}
	var names []string
	for _, n := range []string{".imagebot.yaml", ".imagebot.yml", r.workflowPath()} {
		if _, ok := files[n]; ok {
			names = append(names, n)
		}
	}
	// Both are checked before either is written: a refused workflow must
	// not leave a config behind.
	for _, n := range names {
		if err := writable(root, n); err != nil {
			return nil, err
		}
	}
	for _, n := range names {
		if err := safefs.WriteFile(root, n, files[n], 0o644); err != nil {
			return nil, fmt.Errorf("init: write %s: %w", n, explainWrite(err))
		}
	}
	return names, nil
}

// Unwritten is nil when root has neither a configuration nor the workflow
// init writes, else the error Write without force returns. init asks it
// before listing any tags, so that a run that cannot write costs nothing.
func Unwritten(root string) error {
	var exist []string
	for _, n := range append(slices.Clone(config.FileNames), WorkflowPath, GiteaWorkflowPath, ForgejoWorkflowPath, GitLabIncludePath, AzurePipelinesPath) {
		if _, err := safefs.Lstat(root, n); err == nil {
			exist = append(exist, n)
		} else if !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("init: %s: %w", n, explainWrite(err))
		}
	}
	if len(exist) == 0 {
		return nil
	}
	return fmt.Errorf("%s already %s: nothing was written; edit %s, move %s away, run with --stdout to see what init would write, or with --force to replace %s",
		strings.Join(exist, " and "), plural(len(exist), "exists", "exist"), plural(len(exist), "it", "them"), plural(len(exist), "it", "them"), plural(len(exist), "it", "them"))
}

// writable is nil when n can be written below root: its directory, as far
// as it exists, stays inside root (a link inside root is followed), and n
// itself is not a link.
func writable(root, n string) error {
	if _, err := fs.Stat(safefs.DirFS(root), path.Dir(n)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("init: %s: %w", n, explainWrite(err))
	}
	if fi, err := safefs.Lstat(root, n); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		return fmt.Errorf("init: %s: %w", n, explainWrite(safefs.ErrSymlink))
	}
	return nil
}

// explainWrite adds what to do to a refusal of safefs.
func explainWrite(err error) error {
	if errors.Is(err, safefs.ErrOutside) || errors.Is(err, safefs.ErrSymlink) {
		return fmt.Errorf("%w; nothing was written: replace the link by a directory (or file) of the repository, or run with --stdout and place the files yourself", err)
	}
	return err
}
