package kubeexec

import (
	"context"
	"fmt"
	"io"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
)

// The executor talks to the API server through the dynamic client and
// converts to the batch/v1 and core/v1 types itself, rather than through
// client-go's typed clientset: the clientset registers every API group
// of Kubernetes when the program starts, which would cost every almanac
// command (not only the daemon) tens of megabytes.

var (
	jobsResource = schema.GroupVersionResource{Group: "batch", Version: "v1", Resource: "jobs"}
	podsResource = schema.GroupVersionResource{Version: "v1", Resource: "pods"}
)

// client is one cluster's API: Jobs and Pods, and Pods' logs.
type client struct {
	dyn  dynamic.Interface
	core rest.Interface // the core group, for logs
}

func newClient(rc *rest.Config) (*client, error) {
	dyn, err := dynamic.NewForConfig(rc)
	if err != nil {
		return nil, err
	}
	cc := rest.CopyConfig(rc)
	cc.APIPath = "/api"
	cc.GroupVersion = &schema.GroupVersion{Version: "v1"}
	cc.NegotiatedSerializer = serializer.NewCodecFactory(runtime.NewScheme()).WithoutConversion()
	core, err := rest.RESTClientFor(cc)
	if err != nil {
		return nil, err
	}
	return &client{dyn: dyn, core: core}, nil
}

func (c *client) jobs(ns string) dynamic.ResourceInterface {
	return c.dyn.Resource(jobsResource).Namespace(ns)
}

func (c *client) createJob(ctx context.Context, j *batchv1.Job) (*batchv1.Job, error) {
	obj, err := runtime.DefaultUnstructuredConverter.ToUnstructured(j)
	if err != nil {
		return nil, err
	}
	u := &unstructured.Unstructured{Object: obj}
	u.SetAPIVersion("batch/v1")
	u.SetKind("Job")
	got, err := c.jobs(j.Namespace).Create(ctx, u, metav1.CreateOptions{})
	if err != nil {
		return nil, err
	}
	return toJob(got)
}

func (c *client) getJob(ctx context.Context, ns, name string) (*batchv1.Job, error) {
	got, err := c.jobs(ns).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	return toJob(got)
}

func (c *client) listJobs(ctx context.Context, ns, selector string) ([]batchv1.Job, error) {
	list, err := c.jobs(ns).List(ctx, metav1.ListOptions{LabelSelector: selector})
	if err != nil {
		return nil, err
	}
	out := make([]batchv1.Job, 0, len(list.Items))
	for i := range list.Items {
		j, err := toJob(&list.Items[i])
		if err != nil {
			return nil, err
		}
		out = append(out, *j)
	}
	return out, nil
}

func (c *client) deleteJob(ctx context.Context, ns, name string, opts metav1.DeleteOptions) error {
	return c.jobs(ns).Delete(ctx, name, opts)
}

func (c *client) listPods(ctx context.Context, ns, selector string) ([]corev1.Pod, error) {
	list, err := c.dyn.Resource(podsResource).Namespace(ns).List(ctx, metav1.ListOptions{LabelSelector: selector})
	if err != nil {
		return nil, err
	}
	out := make([]corev1.Pod, 0, len(list.Items))
	for i := range list.Items {
		p, err := toPod(&list.Items[i])
		if err != nil {
			return nil, err
		}
		out = append(out, *p)
	}
	return out, nil
}

// informer follows the objects of a resource in namespace ns that match
// selector, with no resync.
func (c *client) informer(gvr schema.GroupVersionResource, ns, selector string) cache.SharedIndexInformer {
	r := c.dyn.Resource(gvr).Namespace(ns)
	lw := &cache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
			o.LabelSelector = selector
			return r.List(ctx, o)
		},
		WatchFuncWithContext: func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
			o.LabelSelector = selector
			return r.Watch(ctx, o)
		},
	}
	return cache.NewSharedIndexInformer(lw, &unstructured.Unstructured{}, 0, cache.Indexers{})
}

// podLog follows a container's log.
func (c *client) podLog(ctx context.Context, ns, pod, container string) (io.ReadCloser, error) {
	return c.core.Get().Namespace(ns).Resource("pods").Name(pod).SubResource("log").
		Param("container", container).Param("follow", "true").Stream(ctx)
}

func toJob(o any) (*batchv1.Job, error) {
	u, ok := o.(*unstructured.Unstructured)
	if !ok {
		return nil, fmt.Errorf("not a Job: %T", o)
	}
	var j batchv1.Job
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &j); err != nil {
		return nil, err
	}
	return &j, nil
}

func toPod(o any) (*corev1.Pod, error) {
	u, ok := o.(*unstructured.Unstructured)
	if !ok {
		return nil, fmt.Errorf("not a Pod: %T", o)
	}
	var p corev1.Pod
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &p); err != nil {
		return nil, err
	}
	return &p, nil
}
