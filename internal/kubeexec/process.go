package kubeexec

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"sync"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/almanac-sh/almanac/internal/job"
	"github.com/almanac-sh/almanac/internal/kubespec"
	"github.com/almanac-sh/almanac/internal/store"
)

// logGrace bounds how long a finished run waits for its Pods' log streams
// to end, so a cluster slow to close them does not hold the outcome back.
const logGrace = 5 * time.Second

// requestTimeout bounds one request of a run's (deleting its Job, listing
// its Pods).
const requestTimeout = 30 * time.Second

// process is one run's Kubernetes Job, as almanac follows it.
type process struct {
	w     *watcher
	run   store.Run
	spec  store.JobSpec
	runID string
	name  string
	out   *output
	done  chan struct{}

	logCtx     context.Context
	cancelLogs context.CancelFunc
	logs       sync.WaitGroup

	mu       sync.Mutex
	uid      types.UID
	pods     map[string]*podState
	deleting bool
	finished bool
	res      job.Result
}

// podState is what the run knows of one of its Pods.
type podState struct {
	phase corev1.PodPhase
	// exit is the exit code of the container that failed (or of the last
	// one that ended), nil until one has.
	exit      *int32
	streaming bool
}

func newProcess(w *watcher, run store.Run, spec store.JobSpec, name string, maxOutput int) *process {
	ctx, cancel := context.WithCancel(context.Background())
	return &process{
		w: w, run: run, spec: spec, name: name,
		runID:  strconv.FormatInt(run.ID, 10),
		out:    &output{max: maxOutput},
		done:   make(chan struct{}),
		pods:   map[string]*podState{},
		logCtx: ctx, cancelLogs: cancel,
	}
}

// Done implements job.Process.
func (p *process) Done() <-chan struct{} { return p.done }

// Result implements job.Process.
func (p *process) Result() job.Result {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.res
}

// Terminate implements job.Process: the Job is deleted, its Pods first
// (foreground propagation), which stops their containers.
func (p *process) Terminate() { p.delete() }

// Kill implements job.Process like Terminate: Kubernetes gives the Pods
// their termination grace period either way.
func (p *process) Kill() { p.delete() }

// OutputSince implements job.LiveOutput.
func (p *process) OutputSince(offset int64) ([]byte, int64) { return p.out.since(offset) }

// Release is called once the run's end is recorded: the run is forgotten
// and the job's finished Jobs beyond its history limits are deleted.
func (p *process) Release() {
	p.w.unregister(p)
	go p.w.prune(p.spec)
}

// Kubernetes describes where the run executes: the cluster's context, the
// namespace, the Job and its Pods with their phases.
func (p *process) Kubernetes() job.KubernetesRun {
	p.mu.Lock()
	defer p.mu.Unlock()
	k := job.KubernetesRun{Context: p.spec.Kubernetes.Context, Namespace: p.w.ns, Job: p.name}
	for _, name := range sortedKeys(p.pods) {
		k.Pods = append(k.Pods, job.KubernetesPod{Name: name, Phase: string(p.pods[name].phase)})
	}
	return k
}

func (p *process) observeJob(j *batchv1.Job) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.finished {
		return
	}
	if p.uid == "" {
		p.uid = j.UID
	} else if j.UID != p.uid {
		return // another Job that reuses the name
	}
	if j.DeletionTimestamp != nil && !p.deleting {
		p.deleting = true
		p.out.notef("Kubernetes Job %s/%s is being deleted", p.w.ns, p.name)
	}
	for _, c := range j.Status.Conditions {
		if c.Status != corev1.ConditionTrue {
			continue
		}
		switch c.Type {
		case batchv1.JobComplete:
			zero := 0
			p.out.notef("Kubernetes Job %s/%s complete", p.w.ns, p.name)
			p.finishLocked(job.Result{ExitCode: &zero, Ended: c.LastTransitionTime.Time}, false)
			return
		case batchv1.JobFailed:
			msg := "the Kubernetes Job failed: " + c.Reason
			if c.Message != "" {
				msg += ": " + c.Message
			}
			p.out.notef("%s", msg)
			p.finishLocked(job.Result{ExitCode: p.exitCodeLocked(), Err: errors.New(msg), Ended: c.LastTransitionTime.Time}, true)
			return
		}
	}
}

// exitCodeLocked is the exit code of the failed container, if one is known.
func (p *process) exitCodeLocked() *int {
	var code *int
	for _, name := range sortedKeys(p.pods) {
		if e := p.pods[name].exit; e != nil {
			c := int(*e)
			if code == nil || c != 0 {
				code = &c
			}
		}
	}
	return code
}

func (p *process) jobDeleted(j *batchv1.Job) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.finished || (p.uid != "" && j.UID != p.uid) {
		return
	}
	msg := fmt.Sprintf("the Kubernetes Job %s/%s was deleted before it finished", p.w.ns, p.name)
	p.out.notef("%s", msg)
	p.finishLocked(job.Result{Err: errors.New(msg)}, false)
}

// fail ends the run with err, its Job as it is.
func (p *process) fail(err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.finished {
		return
	}
	p.out.notef("%v", err)
	p.finishLocked(job.Result{Err: err}, false)
}

// finishLocked records the outcome once; the Pods' log streams get
// logGrace to end before Done closes. lookupExit asks the cluster for the
// failed container's exit code when no Pod event told it.
func (p *process) finishLocked(res job.Result, lookupExit bool) {
	p.finished = true
	p.res = res
	go func() {
		if lookupExit && res.ExitCode == nil {
			if code := p.listExitCode(); code != nil {
				p.mu.Lock()
				p.res.ExitCode = code
				p.mu.Unlock()
			}
		}
		waited := make(chan struct{})
		go func() { p.logs.Wait(); close(waited) }()
		grace := p.w.e.cfg.Clock.NewTimer(logGrace)
		defer grace.Stop()
		select {
		case <-waited:
		case <-grace.C():
			p.cancelLogs()
			p.out.notef("stopped following the Pods' logs %s after the Job ended", logGrace)
		}
		p.cancelLogs()
		p.mu.Lock()
		p.res.Output = p.out.bytes()
		p.mu.Unlock()
		close(p.done)
	}()
}

// listExitCode reads the run's Pods from the cluster for the exit code of
// the container that failed.
func (p *process) listExitCode() *int {
	ctx, cancel := context.WithTimeout(context.Background(), requestTimeout)
	defer cancel()
	pods, err := p.w.c.client.listPods(ctx, p.w.ns, kubespec.LabelRunID+"="+p.runID+","+kubespec.LabelAttempt+"="+strconv.Itoa(p.run.Attempt))
	if err != nil {
		return nil
	}
	var code *int
	for i := range pods {
		if e := containerExit(&pods[i]); e != nil {
			c := int(*e)
			if code == nil || c != 0 {
				code = &c
			}
		}
	}
	return code
}

// containerExit is the exit code of the Pod's container that failed, else
// of one that ended, else nil.
func containerExit(pod *corev1.Pod) *int32 {
	var code *int32
	for _, cs := range pod.Status.ContainerStatuses {
		if t := cs.State.Terminated; t != nil {
			c := t.ExitCode
			if code == nil || c != 0 {
				code = &c
			}
		}
	}
	return code
}

func (p *process) observePod(pod *corev1.Pod, deleted bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	s := p.pods[pod.Name]
	if s == nil {
		s = &podState{}
		p.pods[pod.Name] = s
	}
	if e := containerExit(pod); e != nil {
		s.exit = e
	}
	phase := pod.Status.Phase
	if deleted {
		phase = "Deleted"
	}
	if phase != s.phase {
		s.phase = phase
		note := fmt.Sprintf("Pod %s: %s", pod.Name, phase)
		if s.exit != nil && (phase == corev1.PodSucceeded || phase == corev1.PodFailed) {
			note += fmt.Sprintf(" (exit code %d)", *s.exit)
		}
		p.out.notef("%s", note)
	}
	if !s.streaming && !deleted && !p.finished && (phase == corev1.PodRunning || phase == corev1.PodSucceeded || phase == corev1.PodFailed) {
		s.streaming = true
		for _, c := range pod.Spec.Containers {
			prefix := ""
			if len(pod.Spec.Containers) > 1 {
				prefix = "[" + c.Name + "] "
			}
			p.logs.Add(1)
			go p.streamLogs(pod.Name, c.Name, prefix)
		}
	}
}

// streamLogs copies a container's log into the run's output as the
// cluster serves it, or notes that it does not.
func (p *process) streamLogs(pod, container, prefix string) {
	defer p.logs.Done()
	rc, err := p.w.c.client.podLog(p.logCtx, p.w.ns, pod, container)
	if err != nil {
		if p.logCtx.Err() == nil {
			p.out.notef("the cluster does not serve the log of Pod %s container %s: %v", pod, container, err)
		}
		return
	}
	defer rc.Close()
	if prefix == "" {
		io.Copy(p.out, rc)
		return
	}
	sc := bufio.NewScanner(rc)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		fmt.Fprintf(p.out, "%s%s\n", prefix, sc.Bytes())
	}
}

// delete deletes the run's Job with foreground propagation; the run ends
// when the Job is gone.
func (p *process) delete() {
	p.mu.Lock()
	if p.finished {
		p.mu.Unlock()
		return
	}
	uid := p.uid
	p.mu.Unlock()
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), requestTimeout)
		defer cancel()
		fg := metav1.DeletePropagationForeground
		opts := metav1.DeleteOptions{PropagationPolicy: &fg}
		if uid != "" {
			opts.Preconditions = &metav1.Preconditions{UID: &uid}
		}
		err := p.w.c.client.deleteJob(ctx, p.w.ns, p.name, opts)
		switch {
		case apierrors.IsNotFound(err) || apierrors.IsConflict(err):
			p.fail(fmt.Errorf("the Kubernetes Job %s/%s is gone", p.w.ns, p.name))
		case err != nil:
			p.out.notef("deleting Kubernetes Job %s/%s: %v", p.w.ns, p.name, err)
		}
	}()
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
