package controller_test

import (
	"context"
	"sync"

	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
)

// countWrites returns interceptor functions that count create, update and patch requests,
// of objects and of their status (Sync sends several at once).
func countWrites(n *int) interceptor.Funcs {
	var mu sync.Mutex
	count := func() {
		mu.Lock()
		*n++
		mu.Unlock()
	}
	return interceptor.Funcs{
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
		SubResourcePatch: func(ctx context.Context, c client.Client, sub string, o client.Object, p client.Patch, opts ...client.SubResourcePatchOption) error {
			count()
			return c.SubResource(sub).Patch(ctx, o, p, opts...)
		},
		SubResourceUpdate: func(ctx context.Context, c client.Client, sub string, o client.Object, opts ...client.SubResourceUpdateOption) error {
			count()
			return c.SubResource(sub).Update(ctx, o, opts...)
		},
	}
}

// readsFrom is a client that reads from reader and writes through Client: a cache that lags
// behind the API server.
type readsFrom struct {
	client.Client
	reader client.Reader
}

func (r readsFrom) Get(ctx context.Context, k client.ObjectKey, o client.Object, opts ...client.GetOption) error {
	return r.reader.Get(ctx, k, o, opts...)
}

func (r readsFrom) List(ctx context.Context, l client.ObjectList, opts ...client.ListOption) error {
	return r.reader.List(ctx, l, opts...)
}
