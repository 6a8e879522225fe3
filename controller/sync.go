package controller

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/rlpkit/rlpkit/kuadrant"
	"github.com/rlpkit/rlpkit/merge"
)

// Options tune Sync. The zero value reads both RateLimitPolicy APIs and compiles with
// merge's and kuadrant's defaults.
type Options struct {
	// APIs are the RateLimitPolicy APIs read; none means all (AllAPIs). An API whose CRD
	// the API server does not serve fails Read: leave it out (see DetectAPIs).
	APIs []API
	// Merge are the options of merge.Compile, for apim.kuadrant.io/v1alpha1. Merge.Now is
	// ignored: Sync stamps changed conditions with the time it runs.
	Merge merge.Options
	// Kuadrant are the options of kuadrant.Compile, for kuadrant.io/v1 (kuadrant-operator's
	// settings: service endpoints, failure modes, timeouts). Kuadrant.Now is ignored, as
	// Merge.Now is.
	Kuadrant kuadrant.Options
	// Now returns the current time; nil means time.Now.
	Now func() time.Time
}

// Summary says what one Sync did.
type Summary struct {
	// Gateways, Routes, Policies (apim.kuadrant.io/v1alpha1) and PoliciesV1
	// (kuadrant.io/v1) are the numbers of objects read.
	Gateways, Routes, Policies, PoliciesV1 int
	// StatusPatches is the number of policy statuses patched.
	StatusPatches int
	// ConfigMapsCreated and ConfigMapsUpdated count the ConfigMap writes.
	ConfigMapsCreated, ConfigMapsUpdated int
	// Warnings are merge's warnings: routes and policies that apply to no request, and why.
	Warnings []merge.Warning
}

// Syncer runs Sync and remembers what it wrote, so that a cache that has not yet seen its
// own write does not cause the same write again. The zero value is ready to use; a Syncer
// must not run Sync concurrently with itself (a controller's work queue guarantees it).
type Syncer struct {
	mu      sync.Mutex
	written map[types.UID]writeRecord
}

// writeRecord is one write: the resourceVersion the object had when Sync wrote it (empty
// for a create, recorded under "create namespace/name"), and what it wrote.
type writeRecord struct {
	from    string
	content string
	at      time.Time
}

// Sync reads every Gateway, HTTPRoute, RateLimitPolicy (of opts.APIs) and Namespace
// through c, compiles the apim.kuadrant.io/v1alpha1 policies with merge.Compile and the
// kuadrant.io/v1 policies with kuadrant.Compile, patches each policy's status that changed,
// and creates or updates each Gateway's ConfigMap whose content changed. It keeps going
// when one write fails and returns every failure, joined.
func (s *Syncer) Sync(ctx context.Context, c client.Client, opts Options) (Summary, error) {
	now := time.Now
	if opts.Now != nil {
		now = opts.Now
	}
	in, err := Read(ctx, c, opts.APIs...)
	if err != nil {
		return Summary{}, err
	}
	stamp := metav1.NewTime(now().Truncate(time.Second))
	sum := Summary{Gateways: len(in.Set.Gateways), Routes: len(in.Set.HTTPRoutes), Policies: len(in.Set.Policies), PoliciesV1: len(in.Set.PoliciesV1)}
	var res *merge.Result
	if in.Reads(APIV1alpha1) {
		mopts := opts.Merge
		mopts.Now = stamp
		if res, err = merge.Compile(in.Set, mopts); err != nil {
			return Summary{}, fmt.Errorf("controller: %w", err)
		}
		sum.Warnings = res.Warnings
	}
	var v1 *kuadrant.Result
	if in.Reads(APIV1) {
		kopts := opts.Kuadrant
		kopts.Now = stamp
		v1 = kuadrant.Compile(in.Set, kopts)
	}

	var errs []error
	for _, st := range in.Statuses(res, v1) {
		patched, err := s.patchStatus(ctx, c, st)
		if err != nil {
			errs = append(errs, err)
		} else if patched {
			sum.StatusPatches++
		}
	}
	for _, out := range in.Outputs(res, v1) {
		created, updated, err := s.writeConfigMap(ctx, c, out, in.ConfigMaps)
		if err != nil {
			errs = append(errs, err)
		}
		if created {
			sum.ConfigMapsCreated++
		}
		if updated {
			sum.ConfigMapsUpdated++
		}
	}
	return sum, errors.Join(errs...)
}

// staleAfter bounds how long a write is remembered: a cache lags behind its API server by
// far less, and an object deleted before the cache saw it is written again after that.
const staleAfter = time.Minute

// seen says whether the object, at the resourceVersion the cache has, is one Sync already
// wrote content to: the cache has not caught up with the write yet.
func (s *Syncer) seen(uid types.UID, resourceVersion, content string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	w, ok := s.written[uid]
	return ok && w.from == resourceVersion && w.content == content && time.Since(w.at) < staleAfter
}

// created says whether Sync created the object recorded under key (a create has no
// resourceVersion), whatever the content, less than staleAfter ago.
func (s *Syncer) created(key types.UID) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	w, ok := s.written[key]
	return ok && w.from == "" && time.Since(w.at) < staleAfter
}

// wrote records that Sync wrote content to an object at resourceVersion, and forgets the
// writes older than staleAfter.
func (s *Syncer) wrote(uid types.UID, resourceVersion, content string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.written == nil {
		s.written = map[types.UID]writeRecord{}
	}
	for k, w := range s.written {
		if time.Since(w.at) >= staleAfter {
			delete(s.written, k)
		}
	}
	s.written[uid] = writeRecord{from: resourceVersion, content: content, at: time.Now()}
}
