package kubeexec

import (
	"context"
	"fmt"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
)

// client is the part of the Kubernetes API the executor uses: Jobs and
// Pods in a namespace, and Pods' logs. It speaks through two REST clients
// whose scheme knows only batch/v1 and core/v1. client-go's generated
// clientset and informer factory register every API group Kubernetes has
// at start-up; linked into almanac they would make the binary 60% larger
// and add about 30 MB to the resident size of every almanac command,
// including the ones that never talk to a cluster.
type client struct {
	batch rest.Interface // /apis/batch/v1
	core  rest.Interface // /api/v1
}

// scheme knows the types the client sends and receives; paramCodec turns
// list, watch, create and log options into query parameters.
var (
	scheme     = runtime.NewScheme()
	codecs     = serializer.NewCodecFactory(scheme)
	paramCodec = runtime.NewParameterCodec(scheme)
)

func init() {
	// Both register their group's types and the meta/v1 options with them.
	if err := batchv1.AddToScheme(scheme); err != nil {
		panic(err)
	}
	if err := corev1.AddToScheme(scheme); err != nil {
		panic(err)
	}
}

// newClient makes the client of the API server rc describes.
func newClient(rc *rest.Config) (*client, error) {
	batch, err := restClient(rc, batchv1.SchemeGroupVersion, "/apis")
	if err != nil {
		return nil, err
	}
	core, err := restClient(rc, corev1.SchemeGroupVersion, "/api")
	if err != nil {
		return nil, err
	}
	return &client{batch: batch, core: core}, nil
}

func restClient(rc *rest.Config, gv schema.GroupVersion, apiPath string) (*rest.RESTClient, error) {
	c := rest.CopyConfig(rc)
	c.GroupVersion = &gv
	c.APIPath = apiPath
	c.NegotiatedSerializer = codecs.WithoutConversion()
	if c.UserAgent == "" {
		c.UserAgent = rest.DefaultKubernetesUserAgent()
	}
	r, err := rest.RESTClientFor(c)
	if err != nil {
		return nil, fmt.Errorf("kubernetes %s client: %w", gv, err)
	}
	return r, nil
}

// createJob creates j in namespace ns.
func (c *client) createJob(ctx context.Context, ns string, j *batchv1.Job) (*batchv1.Job, error) {
	out := &batchv1.Job{}
	err := c.batch.Post().Namespace(ns).Resource("jobs").
		VersionedParams(&metav1.CreateOptions{}, paramCodec).Body(j).Do(ctx).Into(out)
	return out, err
}

// getJob reads the Job name of namespace ns.
func (c *client) getJob(ctx context.Context, ns, name string) (*batchv1.Job, error) {
	out := &batchv1.Job{}
	err := c.batch.Get().Namespace(ns).Resource("jobs").Name(name).
		VersionedParams(&metav1.GetOptions{}, paramCodec).Do(ctx).Into(out)
	return out, err
}

// listJobs lists the Jobs of namespace ns that opts selects.
func (c *client) listJobs(ctx context.Context, ns string, opts metav1.ListOptions) (*batchv1.JobList, error) {
	out := &batchv1.JobList{}
	err := c.batch.Get().Namespace(ns).Resource("jobs").
		VersionedParams(&opts, paramCodec).Timeout(listTimeout(opts)).Do(ctx).Into(out)
	return out, err
}

// deleteJob deletes the Job name of namespace ns.
func (c *client) deleteJob(ctx context.Context, ns, name string, opts metav1.DeleteOptions) error {
	return c.batch.Delete().Namespace(ns).Resource("jobs").Name(name).Body(&opts).Do(ctx).Error()
}

// watchJobs watches the Jobs of namespace ns that opts selects.
func (c *client) watchJobs(ctx context.Context, ns string, opts metav1.ListOptions) (watch.Interface, error) {
	opts.Watch = true
	return c.batch.Get().Namespace(ns).Resource("jobs").
		VersionedParams(&opts, paramCodec).Timeout(listTimeout(opts)).Watch(ctx)
}

// listPods lists the Pods of namespace ns that opts selects.
func (c *client) listPods(ctx context.Context, ns string, opts metav1.ListOptions) (*corev1.PodList, error) {
	out := &corev1.PodList{}
	err := c.core.Get().Namespace(ns).Resource("pods").
		VersionedParams(&opts, paramCodec).Timeout(listTimeout(opts)).Do(ctx).Into(out)
	return out, err
}

// watchPods watches the Pods of namespace ns that opts selects.
func (c *client) watchPods(ctx context.Context, ns string, opts metav1.ListOptions) (watch.Interface, error) {
	opts.Watch = true
	return c.core.Get().Namespace(ns).Resource("pods").
		VersionedParams(&opts, paramCodec).Timeout(listTimeout(opts)).Watch(ctx)
}

// podLogs is the request for a Pod's log.
func (c *client) podLogs(ns, pod string, opts *corev1.PodLogOptions) *rest.Request {
	return c.core.Get().Namespace(ns).Resource("pods").Name(pod).SubResource("log").VersionedParams(opts, paramCodec)
}

// listTimeout is the server-side timeout a list or watch asked for, as the
// request's own timeout (0: none).
func listTimeout(opts metav1.ListOptions) time.Duration {
	if opts.TimeoutSeconds == nil {
		return 0
	}
	return time.Duration(*opts.TimeoutSeconds) * time.Second
}

// informer follows the objects of one kind in namespace ns that carry the
// label key selector, like the informer of client-go's factory for it.
func (c *client) informer(ns, selector string, example runtime.Object) cache.SharedIndexInformer {
	narrow := func(o *metav1.ListOptions) { o.LabelSelector = selector }
	var lw *cache.ListWatch
	switch example.(type) {
	case *batchv1.Job:
		lw = &cache.ListWatch{
			ListWithContextFunc: func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
				narrow(&o)
				return c.listJobs(ctx, ns, o)
			},
			WatchFuncWithContext: func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
				narrow(&o)
				return c.watchJobs(ctx, ns, o)
			},
		}
	case *corev1.Pod:
		lw = &cache.ListWatch{
			ListWithContextFunc: func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
				narrow(&o)
				return c.listPods(ctx, ns, o)
			},
			WatchFuncWithContext: func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
				narrow(&o)
				return c.watchPods(ctx, ns, o)
			},
		}
	default:
		panic(fmt.Sprintf("kubeexec: no informer for %T", example))
	}
	return cache.NewSharedIndexInformer(lw, example, 0, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
}
