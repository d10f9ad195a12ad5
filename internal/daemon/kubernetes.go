package daemon

import (
	"context"
	"flag"
	"log/slog"

	"github.com/almanac-sh/almanac/internal/clock"
	"github.com/almanac-sh/almanac/internal/job"
	"github.com/almanac-sh/almanac/internal/kubeexec"
	"github.com/almanac-sh/almanac/internal/store"
)

// kubeOptions is serve's Kubernetes configuration and the executor it
// makes: jobs with a kubernetes attribute run as Kubernetes Jobs in the
// cluster a kubeconfig names (docs/kubernetes.md).
type kubeOptions struct {
	kubeconfig string
}

func addKubernetesFlags(fs *flag.FlagSet, k *kubeOptions) {
	fs.StringVar(&k.kubeconfig, "kubeconfig", "", "kubeconfig file for jobs with a kubernetes attribute (default: $KUBECONFIG, ~/.kube/config, or the in-cluster configuration in a Pod)")
}

// executor wraps the host executor in the dispatch that sends the runs of
// Kubernetes jobs to the Kubernetes executor, which it returns too so the
// daemon can stop following Jobs at shutdown. Nothing is read from the
// kubeconfig until a job names its cluster.
func (k kubeOptions) executor(st store.Store, host job.Executor, maxOutput int, clk clock.Clock, log *slog.Logger) (job.Executor, *kubeexec.Executor) {
	lookup := func(ctx context.Context, name string) (store.JobSpec, error) {
		j, err := st.JobGet(ctx, name)
		return j.Spec, err
	}
	kx := kubeexec.New(kubeexec.Config{
		Kubeconfig: k.kubeconfig,
		Lookup:     lookup,
		MaxOutput:  maxOutput,
		Clock:      clk,
		Logger:     log.With("component", "kubernetes"),
	})
	return &job.Dispatch{Host: host, Kubernetes: kx, Lookup: lookup}, kx
}
