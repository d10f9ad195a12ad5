// Command kube-scheduler is the upstream kube-scheduler, built from k8s.io/kubernetes for
// almanac's Kubernetes tests (scripts/kube-up).
package main

import (
	"os"

	"k8s.io/component-base/cli"
	"k8s.io/kubernetes/cmd/kube-scheduler/app"
)

func main() {
	os.Exit(cli.Run(app.NewSchedulerCommand()))
}
