package controller

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/rlpkit/rlpkit/kuadrant"
	"github.com/rlpkit/rlpkit/merge"
	"github.com/rlpkit/rlpkit/policyapi"
	policyapis "github.com/rlpkit/rlpkit/policyapi/apis"
)

// DefaultStatusWorkers is the number of writes Sync runs at once when Options.StatusWorkers
// is 0.
const DefaultStatusWorkers = 16

// Options tune Sync. The zero value reads every policy API (AllAPIs), compiles with merge's
// and kuadrant's defaults, and writes ConfigMaps only.
type Options struct {
	// APIs are the policy APIs read; none means all (AllAPIs). An API whose CRD
	// the API server does not serve fails Read: leave it out (see DetectAPIs).
	APIs []API
	// Merge are the options of merge.Compile, for apim.kuadrant.io/v1alpha1. Merge.Now is
	// ignored: Sync stamps changed conditions with the time it runs.
	Merge merge.Options
	// Kuadrant are the options of kuadrant.Compile, for kuadrant.io (kuadrant-operator's
	// settings: service endpoints, failure modes, timeouts). Kuadrant.Now is ignored, as
	// Merge.Now is.
	Kuadrant kuadrant.Options
	// DataPlane says whether Sync also wires the Gateways' proxies (WasmPlugins, ...); the
	// zero value does not.
	DataPlane DataPlaneOptions
	// StatusWorkers bounds the writes Sync sends at once: status patches, and the outputs
	// of different Gateways (those of one Gateway are written in order). 0 means
	// DefaultStatusWorkers. The client's rate limiter (its QPS and burst) still paces them.
	StatusWorkers int
	// Now returns the current time; nil means time.Now.
	Now func() time.Time
}

// Summary says what one Sync did.
type Summary struct {
	// Gateways, Routes, Policies (apim.kuadrant.io/v1alpha1 RateLimitPolicies), PoliciesV1
	// (kuadrant.io/v1 RateLimitPolicies) and TokenPolicies (kuadrant.io/v1alpha1
	// TokenRateLimitPolicies) are the numbers of objects read.
	Gateways, Routes, Policies, PoliciesV1, TokenPolicies int
	// AuthPolicies is the number of kuadrant.io/v1 AuthPolicies read (their statuses are
	// not written).
	AuthPolicies int
	// StatusPatches is the number of policy statuses patched.
	StatusPatches int
	// ConfigMapsCreated, ConfigMapsUpdated and ConfigMapsDeleted count the ConfigMap
	// writes (a deleted ConfigMap is a part a split output no longer needs).
	ConfigMapsCreated, ConfigMapsUpdated, ConfigMapsDeleted int
	// DataPlaneCreated, DataPlaneUpdated and DataPlaneDeleted count the writes of
	// data-plane objects.
	DataPlaneCreated, DataPlaneUpdated, DataPlaneDeleted int
	// Warnings are the compiled APIs' warnings (policyapi.Compiled.Warnings): policies
	// not accepted or not enforced, routes and policies that apply to no request, and why.
	Warnings []policyapi.Warning
}

// Writes returns the number of write requests the summary counts.
func (s Summary) Writes() int {
	return s.StatusPatches + s.ConfigMapsCreated + s.ConfigMapsUpdated + s.ConfigMapsDeleted +
		s.DataPlaneCreated + s.DataPlaneUpdated + s.DataPlaneDeleted
}

// Syncer runs Sync and remembers a digest of what it last wrote, so that a cache that has
// not yet seen its own write does not cause the same write again. The zero value is ready to use; a Syncer
// must not run Sync concurrently with itself (a controller's work queue guarantees it).
type Syncer struct {
	mem memory
	// maxOne, maxPart and maxInline, when not 0, replace MaxConfigMapBytes, MaxPartBytes
	// and MaxInlineBytes (tests).
	maxOne, maxPart, maxInline int
}

// configMaps returns the ConfigMaps of out at the Syncer's sizes.
func (s *Syncer) configMaps(out GatewayOutput) ([]*corev1.ConfigMap, error) {
	if s.maxOne == 0 {
		return ConfigMaps(out)
	}
	return configMaps(out, s.maxOne, s.maxPart)
}

// Sync reads every Gateway, HTTPRoute, policy (of opts.APIs) and Namespace through c,
// compiles them with the policy APIs policyapi/apis.Select gives for the APIs read
// (apim.kuadrant.io/v1alpha1 with package merge, kuadrant.io/v1 and v1alpha1 together
// with package kuadrant, each read API even without policies), takes each compiled API's
// bundles (policyapi.Bundler) and statuses alike, writes each Gateway's output that changed
// (its ConfigMaps, and its data-plane objects when opts.DataPlane wires any), then patches
// each policy's status that changed. A policy is Enforced only once the outputs that
// enforce it are written: one whose output failed to be written is Enforced=False, naming
// the object and the API server's answer (Unenforced). Sync keeps going when one write
// fails and returns every failure, joined, so that the next run retries.
func (s *Syncer) Sync(ctx context.Context, c client.Client, opts Options) (Summary, error) {
	now := time.Now
	if opts.Now != nil {
		now = opts.Now
	}
	s.mem.prune()
	in, err := Read(ctx, c, opts.APIs...)
	if err != nil {
		return Summary{}, err
	}
	if err := opts.DataPlane.check(in.APIs); err != nil {
		return Summary{}, err
	}
	if opts.DataPlane.enabled() {
		if in.DataPlane, err = readDataPlane(ctx, c, opts.DataPlane.Kinds()); err != nil {
			return Summary{}, err
		}
	}
	stamp := metav1.NewTime(now().Truncate(time.Second))
	sum := Summary{Gateways: len(in.Set.Gateways), Routes: len(in.Set.HTTPRoutes), Policies: len(in.Set.Policies), PoliciesV1: len(in.Set.PoliciesV1), TokenPolicies: len(in.Set.TokenPolicies), AuthPolicies: len(in.Set.AuthPolicies)}
	aopts := policyapis.Options{Merge: opts.Merge, Kuadrant: opts.Kuadrant, Served: in.serves}
	aopts.Merge.Now, aopts.Kuadrant.Now = stamp, stamp
	var compiled []Compiled
	for _, api := range policyapis.Select(in.Set, aopts) {
		c, err := api.Compile(in.Set)
		if err != nil {
			return Summary{}, fmt.Errorf("controller: %w", err)
		}
		compiled = append(compiled, Compiled{API: api.Name(), Compiled: c})
		sum.Warnings = append(sum.Warnings, c.Warnings()...)
	}
	outs, err := in.GatewayOutputs(compiled)
	if err != nil {
		return Summary{}, err
	}

	failed, errs := s.writeOutputs(ctx, c, in, outs, opts, &sum)
	statuses := in.Unenforced(in.PolicyStatuses(compiled), outs, failed)
	errs = append(errs, s.patchStatuses(ctx, c, statuses, workers(opts), &sum)...)
	return sum, errors.Join(errs...)
}

// workers returns the bound of concurrent writes.
func workers(opts Options) int {
	if opts.StatusWorkers > 0 {
		return opts.StatusWorkers
	}
	return DefaultStatusWorkers
}

// writeOutputs writes the outputs of the Gateways, several Gateways at once, and returns the
// failures by Gateway and every error.
func (s *Syncer) writeOutputs(ctx context.Context, c client.Client, in *Input, outs []GatewayOutput, opts Options, sum *Summary) (map[string][]WriteFailure, []error) {
	results := make([]gatewayResult, len(outs))
	cms := byOwner(in.ConfigMaps, in.gatewayUIDs)
	dp := byOwner(in.DataPlane, in.gatewayUIDs)
	parallel(len(outs), workers(opts), func(i int) {
		g := gatewayWrite{s: s, c: c, in: in, out: outs[i], opts: opts, res: &results[i]}
		g.run(ctx, cms[outs[i].Gateway.UID], dp[outs[i].Gateway.UID])
	})
	failed := map[string][]WriteFailure{}
	var errs []error
	for i, r := range results {
		sum.add(r.sum)
		if len(r.failures) > 0 {
			failed[outs[i].Name()] = r.failures
		}
		for _, f := range r.failures {
			errs = append(errs, fmt.Errorf("controller: Gateway %s: %w", outs[i].Name(), f.Err))
		}
		errs = append(errs, r.errs...)
	}
	return failed, errs
}

// patchStatuses patches the statuses that changed, several at once.
func (s *Syncer) patchStatuses(ctx context.Context, c client.Client, statuses []PolicyStatus, n int, sum *Summary) []error {
	var mu sync.Mutex
	var errs []error
	parallel(len(statuses), n, func(i int) {
		patched, err := s.patchStatus(ctx, c, statuses[i])
		mu.Lock()
		defer mu.Unlock()
		if err != nil {
			errs = append(errs, err)
		} else if patched {
			sum.StatusPatches++
		}
	})
	return errs
}

// add adds the write counts of o.
func (s *Summary) add(o Summary) {
	s.StatusPatches += o.StatusPatches
	s.ConfigMapsCreated += o.ConfigMapsCreated
	s.ConfigMapsUpdated += o.ConfigMapsUpdated
	s.ConfigMapsDeleted += o.ConfigMapsDeleted
	s.DataPlaneCreated += o.DataPlaneCreated
	s.DataPlaneUpdated += o.DataPlaneUpdated
	s.DataPlaneDeleted += o.DataPlaneDeleted
}

// parallel calls f(0) ... f(n-1) on at most workers goroutines and returns when all have
// returned.
func parallel(n, workers int, f func(i int)) {
	if n == 0 {
		return
	}
	workers = min(workers, n)
	next := make(chan int)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for i := range next {
				f(i)
			}
		})
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
}
