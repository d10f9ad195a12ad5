package kubeexec

import (
	"context"
	"sort"
	"strconv"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/almanac-sh/almanac/internal/kubespec"
	"github.com/almanac-sh/almanac/internal/store"
)

// Default history limits, as for a job's runs (and a CronJob's Jobs).
const (
	defaultSuccessfulLimit = 3
	defaultFailedLimit     = 1
)

// prune deletes the job's finished Jobs in the namespace beyond its
// history limits, the oldest first, as the CronJob controller does.
func (w *watcher) prune(spec store.JobSpec) {
	keepOK, keepFailed := defaultSuccessfulLimit, defaultFailedLimit
	if l := spec.SuccessfulJobsHistoryLimit; l != nil {
		keepOK = *l
	}
	if l := spec.FailedJobsHistoryLimit; l != nil {
		keepFailed = *l
	}
	ctx, cancel := context.WithTimeout(context.Background(), requestTimeout)
	defer cancel()
	list, err := w.c.client.listJobs(ctx, w.ns, kubespec.LabelJob+"="+kubespec.LabelValue(spec.Name))
	if err != nil {
		w.e.log.Warn("list Kubernetes Jobs to prune", "namespace", w.ns, "job", spec.Name, "err", err)
		return
	}
	var ok, failed []batchv1.Job
	for _, j := range list {
		if j.Annotations[kubespec.AnnotationJob] != spec.Name || j.DeletionTimestamp != nil {
			continue
		}
		switch finished(&j) {
		case batchv1.JobComplete:
			ok = append(ok, j)
		case batchv1.JobFailed:
			failed = append(failed, j)
		}
	}
	bg := metav1.DeletePropagationBackground
	for _, group := range []struct {
		jobs []batchv1.Job
		keep int
	}{{ok, keepOK}, {failed, keepFailed}} {
		sortNewestFirst(group.jobs)
		for _, j := range group.jobs[min(group.keep, len(group.jobs)):] {
			uid := j.UID
			err := w.c.client.deleteJob(ctx, w.ns, j.Name, metav1.DeleteOptions{
				PropagationPolicy: &bg, Preconditions: &metav1.Preconditions{UID: &uid}})
			if err != nil {
				w.e.log.Warn("delete a Kubernetes Job beyond the history limit", "namespace", w.ns, "job", j.Name, "err", err)
			}
		}
	}
}

// finished returns JobComplete or JobFailed for a finished Job, "" else.
func finished(j *batchv1.Job) batchv1.JobConditionType {
	for _, c := range j.Status.Conditions {
		if c.Status == corev1.ConditionTrue && (c.Type == batchv1.JobComplete || c.Type == batchv1.JobFailed) {
			return c.Type
		}
	}
	return ""
}

// sortNewestFirst orders Jobs by scheduled instant, then attempt, newest
// first.
func sortNewestFirst(jobs []batchv1.Job) {
	key := func(j *batchv1.Job) (int64, int) {
		s, _ := strconv.ParseInt(j.Labels[kubespec.LabelInstant], 10, 64)
		a, _ := strconv.Atoi(j.Labels[kubespec.LabelAttempt])
		return s, a
	}
	sort.Slice(jobs, func(a, b int) bool {
		sa, aa := key(&jobs[a])
		sb, ab := key(&jobs[b])
		if sa != sb {
			return sa > sb
		}
		return aa > ab
	})
}
