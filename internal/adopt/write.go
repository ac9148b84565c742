package adopt

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/imagebot/imagebot/internal/config"
	"github.com/imagebot/imagebot/internal/rewrite"
)

// Files are the paths (relative to the repository root) and contents init
// writes: the config under the name the repository already uses, if any,
// and the workflow.
func (r *Result) Files(root string) map[string][]byte {
	name := config.FileNames[0]
	for _, n := range config.FileNames {
		if _, err := os.Lstat(filepath.Join(root, n)); err == nil {
			name = n
			break
		}
	}
	return map[string][]byte{name: r.Config, WorkflowPath: r.Workflow}
}

// Write writes the files below root. Unless force is set, a file that
// exists is never overwritten, and nothing is written when any exists.
// It returns the paths written, config first.
func (r *Result) Write(root string, force bool) ([]string, error) {
	files := r.Files(root)
	if !force {
		if err := Unwritten(root); err != nil {
			return nil, err
		}
	}
	var names []string
	for _, n := range []string{".imagebot.yaml", ".imagebot.yml", WorkflowPath} {
		if _, ok := files[n]; ok {
			names = append(names, n)
		}
	}
	for _, n := range names {
		path := filepath.Join(root, filepath.FromSlash(n))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return nil, fmt.Errorf("init: %w", err)
		}
		if err := rewrite.WriteFile(path, files[n], 0o644); err != nil {
			return nil, fmt.Errorf("init: write %s: %w", n, err)
		}
	}
	return names, nil
}

// Unwritten is nil when root has neither a configuration nor the workflow
// init writes, else the error Write without force returns. init asks it
// before listing any tags, so that a run that cannot write costs nothing.
func Unwritten(root string) error {
	var exist []string
	for _, n := range append(slices.Clone(config.FileNames), WorkflowPath) {
		if _, err := os.Lstat(filepath.Join(root, filepath.FromSlash(n))); err == nil {
			exist = append(exist, n)
		} else if !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("init: %w", err)
		}
	}
	if len(exist) == 0 {
		return nil
	}
	return fmt.Errorf("%s already %s: nothing was written; edit %s, move %s away, run with --stdout to see what init would write, or with --force to replace %s",
		strings.Join(exist, " and "), plural(len(exist), "exists", "exist"), plural(len(exist), "it", "them"), plural(len(exist), "it", "them"), plural(len(exist), "it", "them"))
}
