package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/imagebot/imagebot/internal/drift"
	"github.com/imagebot/imagebot/internal/job"
)

// driftOptions are the flags of `drift`.
type driftOptions struct {
	commonOptions
	Output     *choice
	Kubeconfig string
	Context    string
}

func newDriftCmd(f *factory, runF func(context.Context, *driftOptions) error) *cobra.Command {
	o := &driftOptions{commonOptions: newCommonOptions(f), Output: newChoice("text", "text", "json", "markdown")}
	cmd := &cobra.Command{
		Use:   "drift [DIR]",
		Short: "Compare what the clusters run with the repository and the registry (read-only)",
		Long: `Drift reads the running pods of the clusters in .imagebot.yaml's clusters:
(without it, the kubeconfig's context over the whole repository), read-only,
and compares each container's running digest (status.imageID) with the image
references of the paths that cluster runs and with the registry. It reports
mixed (one workload's pods run several digests), stale (the running digest
is not what the tag resolves to now), gone (the running digest is no longer
served), undeclared (a workload runs an image no reference names) and
not-running (a reference its workload does not run), each with file:line,
workload and pods. It changes nothing: neither the cluster nor the files.

The exit status is 0 when nothing drifted, 2 when something did or a
cluster could not be read (the rest are still reported), and 1 for a bad
config or flag.`,
		Example: `  # The clusters of .imagebot.yaml, through a kubeconfig
  imagebot drift --kubeconfig ~/.kube/config

  # One context, as JSON
  imagebot drift ./gitops --kubeconfig kc.yaml --context prod-eu --output json`,
		Args: repoArg(&o.Repo),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return orDefault(runF, runDrift)(cmd.Context(), o)
		},
	}
	o.commonOptions.bind(cmd.Flags())
	cmd.Flags().VarP(o.Output, "output", "o", "output `FORMAT`: text, json or markdown")
	bindKubeconfig(cmd, &o.Kubeconfig)
	cmd.Flags().StringVar(&o.Context, "context", "", "only the clusters of this kubeconfig `CONTEXT`")
	return cmd
}

func runDrift(ctx context.Context, o *driftOptions) error {
	rep, err := job.Drift(ctx, job.DriftOptions{Options: o.job(), Kubeconfig: o.Kubeconfig, Context: o.Context})
	if rep == nil {
		return err
	}
	if werr := writeDrift(o.IO.Out, rep, o.Output.value); werr != nil {
		return werr
	}
	return err
}

func writeDrift(w io.Writer, rep *drift.Report, format string) error {
	switch format {
	case "json":
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		return enc.Encode(rep)
	case "markdown":
		_, err := io.WriteString(w, rep.Markdown())
		return err
	case "text":
		return rep.WriteText(w)
	}
	return fmt.Errorf("--output: want text, json or markdown, got %q", format)
}

// bindKubeconfig binds --kubeconfig, of the commands that read clusters
// (drift, and run and serve when the config has clusters:).
func bindKubeconfig(cmd *cobra.Command, dst *string) {
	cmd.Flags().StringVar(dst, "kubeconfig", "", "the kubeconfig `FILE` for the config's clusters: (default: KUBECONFIG, else ~/.kube/config)")
}
