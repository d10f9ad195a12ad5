// Package kube is a separate module that builds the pieces of a real
// Kubernetes control plane (kube-apiserver, kube-controller-manager,
// kube-scheduler and etcd) from their Go modules, so almanac's Kubernetes
// executor is tested against the real thing. scripts/kube-up builds its
// commands into a cache outside the repository keyed by version and starts
// them; nothing in almanac itself imports this module.
package kube
