package kubeexec_test

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/tools/cache"

	"github.com/almanac-sh/almanac/internal/api/apitype"
	"github.com/almanac-sh/almanac/internal/clock"
	"github.com/almanac-sh/almanac/internal/kubespec"
	"github.com/almanac-sh/almanac/internal/kubetest"
)

// BenchmarkKubernetesBurst measures the latency from a scheduled instant
// to its Kubernetes Job's creation when 100 jobs are due at the same
// second: the daemon runs in-process against the shared control plane,
// and a watch of the namespace records when each Job appears. It reports
// the p50 and p99 over the 100 Jobs (docs/performance.md).
func BenchmarkKubernetesBurst(b *testing.B) {
	const jobs = 100
	k := kubetest.Shared(b)
	for range b.N {
		ns := k.Namespace(b)
		c := startDaemon(b, k, clock.Real{})
		ctx := context.Background()
		seen := map[string]time.Time{}
		var mu sync.Mutex
		all := make(chan struct{})
		f := informers.NewSharedInformerFactoryWithOptions(k.Client, 0, informers.WithNamespace(ns))
		inf := f.Batch().V1().Jobs().Informer()
		inf.AddEventHandler(cache.ResourceEventHandlerFuncs{AddFunc: func(o any) {
			now := time.Now()
			mu.Lock()
			defer mu.Unlock()
			seen[o.(*batchv1.Job).Name] = now
			if len(seen) == jobs {
				close(all)
			}
		}})
		stop := make(chan struct{})
		f.Start(stop)
		f.WaitForCacheSync(stop)
		due := time.Now().Add(5 * time.Second).Truncate(time.Second)
		for i := range jobs {
			name := "burst-" + strconv.Itoa(i)
			if _, _, err := c.JobPut(ctx, name, kubeJob(ns, podTemplate(`{}`), func(s *apitype.JobSpec) { s.Cron, s.At = "", &due })); err != nil {
				b.Fatal(err)
			}
		}
		select {
		case <-all:
		case <-time.After(2 * time.Minute):
			b.Fatalf("%d of %d Jobs created", len(seen), jobs)
		}
		close(stop)
		var lat []time.Duration
		for i := range jobs {
			name := kubespec.JobName("burst-"+strconv.Itoa(i), due, 1)
			lat = append(lat, seen[name].Sub(due))
		}
		slices.Sort(lat)
		b.ReportMetric(float64(lat[len(lat)/2].Milliseconds()), "p50-ms")
		b.ReportMetric(float64(lat[len(lat)*99/100].Milliseconds()), "p99-ms")
		b.ReportMetric(float64(lat[len(lat)-1].Milliseconds()), "max-ms")
	}
}

// BenchmarkKubernetesDaemonMemory measures the resident memory of the
// almanac binary serving 1,000 Kubernetes jobs: after they are created
// (none due), and after 100 of them ran a Job each (informers and their
// caches live). Reported in MiB (docs/performance.md).
func BenchmarkKubernetesDaemonMemory(b *testing.B) {
	k := kubetest.Shared(b)
	for range b.N {
		ns := k.Namespace(b)
		d := serveBinary(b, k, b.TempDir())
		ctx := context.Background()
		for i := range 1000 {
			if _, _, err := d.JobPut(ctx, fmt.Sprintf("mem-%04d", i), kubeJob(ns, podTemplate(`{annotations: {almanac.test/duration: 100ms}}`), nil)); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(rssMiB(b, d.cmd.Process.Pid), "rss-1000-jobs-MiB")
		var ids []int64
		for i := range 100 {
			r, err := d.JobTrigger(ctx, fmt.Sprintf("mem-%04d", i))
			if err != nil {
				b.Fatal(err)
			}
			ids = append(ids, r.ID)
		}
		for _, id := range ids {
			finished(b, d.testDaemon, id)
		}
		b.ReportMetric(rssMiB(b, d.cmd.Process.Pid), "rss-after-100-runs-MiB")
	}
}

// rssMiB reads a process's resident set size.
func rssMiB(b *testing.B, pid int) float64 {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		b.Fatal(err)
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, _ := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 64)
			return kb / 1024
		}
	}
	b.Fatal("no VmRSS")
	return 0
}
