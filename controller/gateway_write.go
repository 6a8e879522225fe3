package controller

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// gatewayResult is what writing one Gateway's output did: the writes counted, the failures
// that leave policies unenforced, and other errors (a stale part not deleted).
type gatewayResult struct {
	sum      Summary
	failures []WriteFailure
	errs     []error
}

// gatewayWrite writes one Gateway's output.
type gatewayWrite struct {
	s    *Syncer
	c    client.Client
	in   *Input
	out  GatewayOutput
	opts Options
	res  *gatewayResult
}

// run writes the Gateway's ConfigMaps, in order, stopping at the first failure; then deletes
// the parts the output no longer has (of owned, the managed ConfigMaps the Gateway controls);
// then writes the data-plane objects and deletes those of ownedDP no longer written.
func (g *gatewayWrite) run(ctx context.Context, owned []*corev1.ConfigMap, ownedDP []*unstructured.Unstructured) {
	apis := g.out.apis()
	cms, err := g.s.configMaps(g.out)
	if err != nil {
		g.fail(apis, err)
	}
	want := map[string]bool{}
	for _, cm := range cms {
		want[key(cm)] = true
		op, err := g.configMap(ctx, cm)
		if err != nil {
			g.fail(apis, err)
			break
		}
		g.count(op, &g.res.sum.ConfigMapsCreated, &g.res.sum.ConfigMapsUpdated)
	}
	if len(g.res.failures) == 0 {
		for _, cm := range owned {
			if _, isPart := cm.Labels[LabelPart]; isPart && !want[key(cm)] {
				g.remove(ctx, cm, &g.res.sum.ConfigMapsDeleted)
			}
		}
	}
	if !g.opts.DataPlane.enabled() {
		return
	}
	wantDP := map[string]bool{}
	maxInline := g.s.maxInline
	if maxInline == 0 {
		maxInline = MaxInlineBytes
	}
	for _, o := range dataPlaneObjects(g.out, g.opts, maxInline) {
		wantDP[describeObject(o.obj)] = true
		if o.err != nil {
			g.fail(o.apis, o.err)
			continue
		}
		op, err := g.dataPlane(ctx, o.obj)
		if err != nil {
			g.fail(o.apis, err)
			continue
		}
		g.count(op, &g.res.sum.DataPlaneCreated, &g.res.sum.DataPlaneUpdated)
	}
	for _, u := range ownedDP {
		if !wantDP[describeObject(u)] {
			g.remove(ctx, u, &g.res.sum.DataPlaneDeleted)
		}
	}
}

// configMap writes one ConfigMap of the output, unless a ConfigMap of its name belongs to
// another Gateway.
func (g *gatewayWrite) configMap(ctx context.Context, want *corev1.ConfigMap) (writeOp, error) {
	have := g.in.ConfigMaps[key(want)]
	if have != nil {
		if err := g.belongs(have); err != nil {
			return wroteNothing, err
		}
	}
	return g.s.writeConfigMap(ctx, g.c, want, have)
}

// dataPlane writes one data-plane object, unless one of its name belongs to another
// Gateway.
func (g *gatewayWrite) dataPlane(ctx context.Context, want *unstructured.Unstructured) (writeOp, error) {
	have := g.in.DataPlane[describeObject(want)]
	if have != nil {
		if err := g.belongs(have); err != nil {
			return wroteNothing, err
		}
	}
	return g.s.writeUnstructured(ctx, g.c, want, have)
}

// belongs reports an object of the name the output wants that another Gateway of the input
// controls (two Gateways whose names make the same object name: "gw" and "gw-part-1"). An
// object whose controlling Gateway is gone is taken over.
func (g *gatewayWrite) belongs(have client.Object) error {
	uid := controllerOf(have)
	if other, ok := g.in.gatewayUIDs[uid]; ok && uid != g.out.Gateway.UID {
		return fmt.Errorf("%s belongs to Gateway %s, whose output has the same name: rename one of the Gateways", describeObject(have), key(other))
	}
	return nil
}

// remove deletes an object the output no longer has.
func (g *gatewayWrite) remove(ctx context.Context, o client.Object, deleted *int) {
	op, err := g.s.remove(ctx, g.c, o)
	if err != nil {
		g.res.errs = append(g.res.errs, fmt.Errorf("controller: Gateway %s: %w", g.out.Name(), err))
	}
	if op == wroteDelete {
		*deleted++
	}
}

// fail records a failure that leaves the policies of apis on the Gateway unenforced.
func (g *gatewayWrite) fail(apis []string, err error) {
	g.res.failures = append(g.res.failures, WriteFailure{APIs: apis, Err: err})
}

// count counts a create or an update.
func (g *gatewayWrite) count(op writeOp, created, updated *int) {
	switch op {
	case wroteCreate:
		*created++
	case wroteUpdate:
		*updated++
	}
}
