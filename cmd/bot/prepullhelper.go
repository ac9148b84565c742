package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"
)

// newPrepullHelperCmd is `imagebot prepull-helper DEST`, the first init
// container of the pre-pull DaemonSet: it copies this static binary to
// DEST, on the volume the pull containers share, so that each of them can
// run it (`DEST version`) in an image that has no shell or binary of its
// own. It is hidden: not meant to be run by hand.
func newPrepullHelperCmd(f *factory) *cobra.Command {
	return &cobra.Command{
		Use:    "prepull-helper DEST",
		Short:  "Copy this binary to DEST, for the pre-pull DaemonSet",
		Hidden: true,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 1 || !filepath.IsAbs(args[0]) {
				return usagef("prepull-helper takes one absolute DEST")
			}
			return nil
		},
		RunE: func(_ *cobra.Command, args []string) error {
			self, err := os.Executable()
			if err == nil {
				err = copyExecutable(self, args[0])
			}
			if err != nil {
				return err
			}
			fmt.Fprintf(f.IO.Out, "copied %s to %s\n", self, args[0])
			return nil
		},
	}
}

// copyExecutable copies src to dst, readable and executable by every user:
// the pulled images may run as any of them.
func copyExecutable(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	tmp := dst + ".tmp"
	out, err := os.OpenFile(tmp, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	if err := out.Close(); err != nil {
		return err
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		return err
	}
	return os.Rename(tmp, dst)
}
