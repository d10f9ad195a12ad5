// Package kubetest gives tests a real Kubernetes control plane: the one
// scripts/kube-up starts (etcd, kube-apiserver, kube-controller-manager,
// kube-scheduler, kwok with one simulated node), once per test binary and
// shared by its tests, each of which works in a namespace of its own.
// Under scripts/test (ALMANAC_TEST_STRICT=1) a control plane that cannot
// start fails the test; otherwise a test skips when the control plane's
// binaries are not built yet (scripts/kube-build builds them, once per
// machine, in several minutes).
package kubetest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/almanac-sh/almanac/internal/testenv"
)

// Version is the Kubernetes version the control plane runs (scripts/kube-build).
const Version = "v1.34.2"

// Cluster is a running control plane.
type Cluster struct {
	// Kubeconfig is its kubeconfig file: context "test", a token in
	// system:masters.
	Kubeconfig string
	// Client is a client with that kubeconfig.
	Client kubernetes.Interface
	dir    string
	root   string
}

var (
	once    sync.Once
	shared  *Cluster
	missing error // the binaries are not built
	failed  error // they are, and the control plane did not start
)

// Main runs a test binary's tests and stops the control plane if one was
// started: func TestMain(m *testing.M) { os.Exit(kubetest.Main(m)) }.
func Main(m *testing.M) int {
	code := m.Run()
	Stop()
	return code
}

// Stop stops the control plane if one was started, for a TestMain that
// runs its tests otherwise (servetest.Main).
func Stop() {
	if shared != nil {
		shared.stop()
	}
}

// Shared returns the test binary's control plane, starting it on first
// use, or stops t as testenv.Need does.
func Shared(t testing.TB) *Cluster {
	t.Helper()
	once.Do(func() { shared, missing, failed = start() })
	testenv.Need(t, "a Kubernetes control plane (scripts/kube-build)", "run scripts/kube-build once on this machine", missing)
	if failed != nil {
		t.Fatal(failed)
	}
	return shared
}

// repoRoot finds the repository from the working directory of a test (a
// package directory inside it).
func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "scripts", "kube-up")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no scripts/kube-up above the working directory")
		}
		dir = parent
	}
}

// BinDir is where scripts/kube-build keeps the control plane's binaries.
func BinDir() (string, error) {
	if d := os.Getenv("ALMANAC_KUBE_CACHE"); d != "" {
		return filepath.Join(d, Version), nil
	}
	out, err := exec.Command("go", "env", "GOCACHE").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOCACHE: %w", err)
	}
	return filepath.Join(strings.TrimSpace(string(out)), "..", "almanac-kube", Version), nil
}

func start() (*Cluster, error, error) {
	root, err := repoRoot()
	if err != nil {
		return nil, nil, err
	}
	bin, err := BinDir()
	if err != nil {
		return nil, err, nil
	}
	for _, b := range []string{"etcd", "kube-apiserver", "kube-controller-manager", "kube-scheduler", "kwok"} {
		if _, err := os.Stat(filepath.Join(bin, b)); err != nil {
			return nil, fmt.Errorf("%s is not built: %w", b, err), nil
		}
	}
	// A second try gets new ports: a port taken between kube-up's check
	// and a component's bind fails the first.
	c, err := up(root)
	if err != nil {
		c, err = up(root)
	}
	return c, nil, err
}

// up runs scripts/kube-up once.
func up(root string) (*Cluster, error) {
	dir, err := os.MkdirTemp("", "almanac-kube")
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(filepath.Join(root, "scripts", "kube-up"), dir)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	c := &Cluster{dir: dir, root: root}
	if err != nil {
		c.stop()
		return nil, fmt.Errorf("scripts/kube-up: %v\n%s", err, stderr.String())
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	c.Kubeconfig = lines[len(lines)-1]
	rc, err := clientcmd.BuildConfigFromFlags("", c.Kubeconfig)
	if err != nil {
		c.stop()
		return nil, err
	}
	rc.QPS, rc.Burst = 100, 200
	if c.Client, err = kubernetes.NewForConfig(rc); err != nil {
		c.stop()
		return nil, err
	}
	return c, nil
}

func (c *Cluster) stop() {
	exec.Command(filepath.Join(c.root, "scripts", "kube-down"), c.dir).Run()
}

// Namespace creates a namespace for t, named after it, ready for Pods (its
// default service account exists), and deletes it when t ends.
func (c *Cluster) Namespace(t testing.TB) string {
	t.Helper()
	ctx := context.Background()
	ns, err := c.Client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{
		ObjectMeta: metav1.ObjectMeta{GenerateName: "t-"},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create namespace: %v", err)
	}
	t.Cleanup(func() {
		c.Client.CoreV1().Namespaces().Delete(context.Background(), ns.Name, metav1.DeleteOptions{})
	})
	deadline := time.Now().Add(30 * time.Second)
	for {
		_, err := c.Client.CoreV1().ServiceAccounts(ns.Name).Get(ctx, "default", metav1.GetOptions{})
		if err == nil {
			return ns.Name
		}
		if !apierrors.IsNotFound(err) || time.Now().After(deadline) {
			t.Fatalf("the default service account of namespace %s: %v", ns.Name, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
