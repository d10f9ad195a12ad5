package kubeexec

import (
	"fmt"
	"strconv"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/tools/cache"

	"github.com/almanac-sh/almanac/internal/kubespec"
	"github.com/almanac-sh/almanac/internal/store"
)

// watcher follows the Jobs almanac made in one namespace of one cluster,
// and their Pods, with one informer each, and hands what it sees to the
// runs' processes. One per namespace, however many runs: a thousand
// Kubernetes jobs cost two watches per namespace, not two thousand.
type watcher struct {
	e          *Executor
	c          *cluster
	ns         string
	jobs, pods cache.SharedIndexInformer
	once       sync.Once
	// stop ends the informers: at the executor's Close, or when the
	// cluster refuses them.
	stop     chan struct{}
	stopOnce sync.Once

	mu    sync.Mutex
	procs map[string]*process // by run id label
}

// watch returns the watcher of namespace ns in cluster c, made on first use.
func (e *Executor) watch(c *cluster, ns string) *watcher {
	c.mu.Lock()
	defer c.mu.Unlock()
	if w := c.ns[ns]; w != nil {
		return w
	}
	w := &watcher{e: e, c: c, ns: ns, procs: map[string]*process{}, stop: make(chan struct{})}
	w.jobs = c.client.informer(jobsResource, ns, kubespec.LabelRunID)
	w.pods = c.client.informer(podsResource, ns, kubespec.LabelRunID)
	c.ns[ns] = w
	return w
}

// start starts the informers, once.
func (w *watcher) start() {
	w.once.Do(func() {
		jobs, pods := w.jobs, w.pods
		jobs.SetWatchErrorHandler(func(_ *cache.Reflector, err error) { w.watchFailed("Jobs", err) })
		pods.SetWatchErrorHandler(func(_ *cache.Reflector, err error) { w.watchFailed("Pods", err) })
		jobs.AddEventHandler(cache.ResourceEventHandlerFuncs{
			AddFunc:    func(o any) { w.onJob(o, false) },
			UpdateFunc: func(_, o any) { w.onJob(o, false) },
			DeleteFunc: func(o any) { w.onJob(o, true) },
		})
		pods.AddEventHandler(cache.ResourceEventHandlerFuncs{
			AddFunc:    func(o any) { w.onPod(o, false) },
			UpdateFunc: func(_, o any) { w.onPod(o, false) },
			DeleteFunc: func(o any) { w.onPod(o, true) },
		})
		go jobs.Run(w.stop)
		go pods.Run(w.stop)
		go func() {
			<-w.e.stop
			w.close()
		}()
	})
}

// close stops the informers, once.
func (w *watcher) close() {
	w.stopOnce.Do(func() { close(w.stop) })
}

// watchFailed ends the runs of the namespace when the cluster refuses to
// let almanac follow them (RBAC): with Kubernetes' own message, instead of
// waiting for events that never come. Other errors (a restarting API
// server) are retried by the informer.
func (w *watcher) watchFailed(what string, err error) {
	if !apierrors.IsForbidden(err) && !apierrors.IsUnauthorized(err) {
		w.e.log.Warn("watching Kubernetes failed; retrying", "namespace", w.ns, "what", what, "err", err)
		return
	}
	// The next run in the namespace tries again with a watcher of its own.
	w.c.mu.Lock()
	if w.c.ns[w.ns] == w {
		delete(w.c.ns, w.ns)
	}
	w.c.mu.Unlock()
	w.close()
	w.mu.Lock()
	ps := make([]*process, 0, len(w.procs))
	for _, p := range w.procs {
		ps = append(ps, p)
	}
	w.mu.Unlock()
	for _, p := range ps {
		p.fail(fmt.Errorf("cannot watch %s in namespace %s: %v", what, w.ns, err))
	}
}

func (w *watcher) register(run store.Run, spec store.JobSpec, name string, maxOutput int) *process {
	p := newProcess(w, run, spec, name, maxOutput)
	w.mu.Lock()
	w.procs[p.runID] = p
	w.mu.Unlock()
	return p
}

func (w *watcher) unregister(p *process) {
	w.mu.Lock()
	if w.procs[p.runID] == p {
		delete(w.procs, p.runID)
	}
	w.mu.Unlock()
}

func (w *watcher) lookup(labels map[string]string) *process {
	id := labels[kubespec.LabelRunID]
	if id == "" {
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.procs[id]
}

func (w *watcher) onJob(o any, deleted bool) {
	if t, ok := o.(cache.DeletedFinalStateUnknown); ok {
		o = t.Obj
	}
	j, err := toJob(o)
	if err != nil {
		return
	}
	p := w.lookup(j.Labels)
	if p == nil || p.name != j.Name {
		return
	}
	if deleted {
		p.jobDeleted(j)
		return
	}
	p.observeJob(j)
}

func (w *watcher) onPod(o any, deleted bool) {
	if t, ok := o.(cache.DeletedFinalStateUnknown); ok {
		o = t.Obj
	}
	pod, err := toPod(o)
	if err != nil {
		return
	}
	if p := w.lookup(pod.Labels); p != nil && pod.Labels[kubespec.LabelAttempt] == strconv.Itoa(p.run.Attempt) {
		p.observePod(pod, deleted)
	}
}
