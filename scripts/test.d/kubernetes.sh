#!/usr/bin/env bash
# Makes sure the binaries of the Kubernetes control plane the kubeexec
# tests start (scripts/kube-up) are built and cached outside the
# repository: a few minutes the first time on a machine, nothing after.
set -euo pipefail
cd "$(dirname "$0")/../.."
dir=$(scripts/kube-build | tail -n 1)
echo "kubernetes: control plane binaries in $dir"
