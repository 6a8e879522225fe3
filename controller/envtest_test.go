package controller

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
)

// The envtest suite runs against a real kube-apiserver and etcd found in
// $KUBEBUILDER_ASSETS (.ci/envtest-assets.sh builds them). Without them the tests that need
// them skip, unless RLPKIT_REQUIRE_ENVTEST=1, when they fail.
var (
	envOnce sync.Once
	envCfg  *rest.Config
	envErr  error
	envStop func() error
	env     *envtest.Environment
)

func TestMain(m *testing.M) {
	code := m.Run()
	if envStop != nil {
		if err := envStop(); err != nil {
			fmt.Fprintln(os.Stderr, "stop envtest:", err)
		}
	}
	os.Exit(code)
}

// apiServer returns the configuration of the shared test API server, starting it the first
// time, or skips the test when the binaries are missing and not required.
func apiServer(t testing.TB) *rest.Config {
	t.Helper()
	assets := os.Getenv("KUBEBUILDER_ASSETS")
	missing := ""
	for _, bin := range []string{"kube-apiserver", "etcd"} {
		if _, err := os.Stat(filepath.Join(assets, bin)); assets == "" || err != nil {
			missing += " " + bin
		}
	}
	if missing != "" {
		if os.Getenv("RLPKIT_REQUIRE_ENVTEST") == "1" {
			t.Fatalf("RLPKIT_REQUIRE_ENVTEST=1 but KUBEBUILDER_ASSETS=%q lacks%s: run .ci/envtest-assets.sh and set KUBEBUILDER_ASSETS to the directory it prints", assets, missing)
		}
		t.Skipf("KUBEBUILDER_ASSETS=%q lacks%s (set RLPKIT_REQUIRE_ENVTEST=1 to fail instead)", assets, missing)
	}
	envOnce.Do(func() {
		gw, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "sigs.k8s.io/gateway-api").Output()
		if err != nil {
			envErr = fmt.Errorf("find the gateway-api module: %w", err)
			return
		}
		env = &envtest.Environment{
			CRDDirectoryPaths: []string{
				filepath.Join(strings.TrimSpace(string(gw)), "config", "crd", "standard"),
				filepath.Join("..", "config", "crd"),
				filepath.Join("testdata", "dataplane-crd"),
				filepath.Join("testdata", "authpolicy-crd"),
			},
			ErrorIfCRDPathMissing:    true,
			ControlPlaneStartTimeout: 2 * time.Minute,
			ControlPlaneStopTimeout:  time.Minute,
		}
		start := time.Now()
		envCfg, envErr = env.Start()
		if envErr == nil {
			envStop = env.Stop
			fmt.Fprintf(os.Stderr, "envtest: kube-apiserver and etcd started in %v\n", time.Since(start).Round(time.Millisecond))
			envCfg.QPS, envCfg.Burst = 1000, 2000
		}
	})
	if envErr != nil {
		t.Fatalf("start envtest: %v", envErr)
	}
	return rest.CopyConfig(envCfg)
}

// testScheme is the controller's scheme.
func testScheme(t testing.TB) *runtime.Scheme {
	t.Helper()
	s, err := NewScheme()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// direct returns a client that talks to the API server without a cache.
func direct(t testing.TB, cfg *rest.Config) client.Client {
	t.Helper()
	c, err := client.New(cfg, client.Options{Scheme: testScheme(t)})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// running is a controller started for a test: its manager, and the writes its client sent.
type running struct {
	writes atomic.Int64
	syncs  atomic.Int64
	mu     sync.Mutex
	errs   []error
	stop   func()
}

// writeCount returns the number of write requests the controller sent.
func (r *running) writeCount() int64 { return r.writes.Load() }

// startController starts a manager running the Reconciler, watching only the given
// namespaces (tests share one API server), with a client that counts every write request.
func startController(t *testing.T, cfg *rest.Config, namespaces ...string) *running {
	t.Helper()
	return startControllerWith(t, cfg, nil, namespaces...)
}

// startControllerWith is startController with the manager's options changed by tune.
func startControllerWith(t *testing.T, cfg *rest.Config, tune func(*ctrl.Options), namespaces ...string) *running {
	t.Helper()
	return startControllerSyncing(t, cfg, Options{}, tune, namespaces...)
}

// startControllerSyncing is startControllerWith with the Reconciler's options.
func startControllerSyncing(t *testing.T, cfg *rest.Config, sopts Options, tune func(*ctrl.Options), namespaces ...string) *running {
	t.Helper()
	opts := CacheOptions(sopts.DataPlane.Kinds()...)
	opts.DefaultNamespaces = map[string]cache.Config{}
	for _, ns := range namespaces {
		opts.DefaultNamespaces[ns] = cache.Config{}
	}
	mopts := ctrl.Options{
		Scheme:                 testScheme(t),
		Cache:                  opts,
		Client:                 ClientOptions(),
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
	}
	if tune != nil {
		tune(&mopts)
	}
	mgr, err := ctrl.NewManager(cfg, mopts)
	if err != nil {
		t.Fatal(err)
	}
	run := &running{}
	count := func() { run.writes.Add(1) }
	c := interceptor.NewClient(withoutWatch{mgr.GetClient()}, interceptor.Funcs{
		Create: func(ctx context.Context, c client.WithWatch, o client.Object, opts ...client.CreateOption) error {
			count()
			return c.Create(ctx, o, opts...)
		},
		Update: func(ctx context.Context, c client.WithWatch, o client.Object, opts ...client.UpdateOption) error {
			count()
			return c.Update(ctx, o, opts...)
		},
		Patch: func(ctx context.Context, c client.WithWatch, o client.Object, p client.Patch, opts ...client.PatchOption) error {
			count()
			return c.Patch(ctx, o, p, opts...)
		},
		Delete: func(ctx context.Context, c client.WithWatch, o client.Object, opts ...client.DeleteOption) error {
			count()
			return c.Delete(ctx, o, opts...)
		},
		Apply: func(ctx context.Context, c client.WithWatch, o runtime.ApplyConfiguration, opts ...client.ApplyOption) error {
			count()
			return c.Apply(ctx, o, opts...)
		},
		SubResourceUpdate: func(ctx context.Context, c client.Client, sub string, o client.Object, opts ...client.SubResourceUpdateOption) error {
			count()
			return c.SubResource(sub).Update(ctx, o, opts...)
		},
		SubResourcePatch: func(ctx context.Context, c client.Client, sub string, o client.Object, p client.Patch, opts ...client.SubResourcePatchOption) error {
			count()
			return c.SubResource(sub).Patch(ctx, o, p, opts...)
		},
	})
	r := &Reconciler{Client: c, Options: sopts, skipNameValidation: true, OnSync: func(_ Summary, err error) {
		run.syncs.Add(1)
		if err != nil {
			run.mu.Lock()
			run.errs = append(run.errs, err)
			run.mu.Unlock()
		}
	}}
	if err := r.SetupWithManager(mgr); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	var once sync.Once
	run.stop = func() {
		once.Do(func() {
			cancel()
			if err := <-done; err != nil {
				t.Errorf("manager: %v", err)
			}
		})
	}
	t.Cleanup(run.stop)
	return run
}

// syncErrors returns the errors of the controller's runs so far.
func (r *running) syncErrors() []error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]error(nil), r.errs...)
}

// eventually retries check until it returns nil or the timeout passes, then fails with its
// last error.
func eventually(t testing.TB, timeout time.Duration, check func() error) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		err := check()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("after %v: %v", timeout, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// namespace creates a namespace for one test and deletes it at the end.
func namespace(t testing.TB, c client.Client, name string) string {
	t.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
	if err := c.Create(context.Background(), ns); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Delete(context.Background(), ns) })
	return name
}

// create creates the objects, failing the test on the first error.
func create(t testing.TB, c client.Client, objs ...client.Object) {
	t.Helper()
	for _, o := range objs {
		if err := c.Create(context.Background(), o); err != nil {
			t.Fatalf("create %T %s: %v", o, key(o), err)
		}
	}
}

var errNotYet = errors.New("not yet")

// withoutWatch adapts a client.Client to the client.WithWatch interceptor.NewClient takes;
// the controller never watches through its client.
type withoutWatch struct{ client.Client }

func (withoutWatch) Watch(context.Context, client.ObjectList, ...client.ListOption) (watch.Interface, error) {
	return nil, errors.New("the controller's client does not watch")
}
