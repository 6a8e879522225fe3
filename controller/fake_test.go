package controller

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/rlpkit/rlpkit/policy"
	"github.com/rlpkit/rlpkit/policy/kuadrantv1"
	"github.com/rlpkit/rlpkit/policy/kuadrantv1alpha1"
)

// fakeOf returns a fake client holding objs, with the status subresource of both policy
// APIs, through the interceptor functions (nil for none). Gateways get their name as UID,
// which the fake client does not give.
func fakeOf(t *testing.T, funcs *interceptor.Funcs, objs ...client.Object) client.Client {
	t.Helper()
	for _, o := range objs {
		if o.GetUID() == "" {
			o.SetUID(types.UID("uid-" + key(o)))
		}
	}
	b := fake.NewClientBuilder().WithScheme(testScheme(t)).WithObjects(objs...).
		WithStatusSubresource(&policy.RateLimitPolicy{}, &kuadrantv1.RateLimitPolicy{}, &kuadrantv1alpha1.TokenRateLimitPolicy{})
	if funcs != nil {
		b = b.WithInterceptorFuncs(*funcs)
	}
	return b.Build()
}

// routesWithPolicies returns n HTTPRoutes of Gateway gw, each with a policy (of the v1
// API when v1), named r0000...
func routesWithPolicies(t *testing.T, ns, gw string, n int, v1 bool) []client.Object {
	t.Helper()
	var objs []client.Object
	for i := range n {
		name := fmt.Sprintf("r%04d", i)
		objs = append(objs, route(ns, name, name+".example.com", "/", gw))
		if v1 {
			objs = append(objs, rlpV1(t, ns, name, "HTTPRoute", name, limitsV1("route", i+1, "1m")))
		} else {
			objs = append(objs, rlp(t, ns, name, "HTTPRoute", name, limits("default", i+1, 60)))
		}
	}
	return objs
}

// writeCounter returns interceptor functions counting every write request in n, calling
// fail first (nil: none) to refuse some. Calls are serialized.
func writeCounter(n *int, fail func(verb string, o client.Object) error) *interceptor.Funcs {
	var mu sync.Mutex
	check := func(verb string, o client.Object) error {
		mu.Lock()
		defer mu.Unlock()
		*n++
		if fail != nil {
			return fail(verb, o)
		}
		return nil
	}
	return &interceptor.Funcs{
		Create: func(ctx context.Context, c client.WithWatch, o client.Object, opts ...client.CreateOption) error {
			if err := check("create", o); err != nil {
				return err
			}
			return c.Create(ctx, o, opts...)
		},
		Update: func(ctx context.Context, c client.WithWatch, o client.Object, opts ...client.UpdateOption) error {
			if err := check("update", o); err != nil {
				return err
			}
			return c.Update(ctx, o, opts...)
		},
		Delete: func(ctx context.Context, c client.WithWatch, o client.Object, opts ...client.DeleteOption) error {
			if err := check("delete", o); err != nil {
				return err
			}
			return c.Delete(ctx, o, opts...)
		},
		SubResourcePatch: func(ctx context.Context, c client.Client, sub string, o client.Object, p client.Patch, opts ...client.SubResourcePatchOption) error {
			if err := check("patch status", o); err != nil {
				return err
			}
			return c.SubResource(sub).Patch(ctx, o, p, opts...)
		},
	}
}
