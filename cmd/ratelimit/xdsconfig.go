package main

import (
	"errors"
	"fmt"

	discoveryv3 "github.com/envoyproxy/go-control-plane/envoy/service/discovery/v3"
	rlconf "github.com/envoyproxy/go-control-plane/ratelimit/config/ratelimit/v3"
	"google.golang.org/protobuf/types/known/anypb"

	"github.com/rlpkit/rlpkit/limit/envoyratelimit"
)

// rateLimitConfigType is the type URL of the resources served over xDS.
const rateLimitConfigType = "type.googleapis.com/ratelimit.config.ratelimit.v3.RateLimitConfig"

// loadResources decodes the resources of one xDS response and loads them
// as one configuration, each resource a file keyed by its name. Any
// resource that cannot be decoded or checked refuses the whole response;
// the error names the resource.
func loadResources(resources []*anypb.Any, o envoyratelimit.LoadOptions) (*envoyratelimit.Config, error) {
	files := make([]envoyratelimit.File, 0, len(resources))
	var errs []error
	for i, res := range resources {
		if res.GetTypeUrl() != rateLimitConfigType {
			errs = append(errs, fmt.Errorf("resource %d: type %q, want %s", i, res.GetTypeUrl(), rateLimitConfigType))
			continue
		}
		var pb rlconf.RateLimitConfig
		if err := res.UnmarshalTo(&pb); err != nil {
			errs = append(errs, fmt.Errorf("resource %d: %w", i, err))
			continue
		}
		// The reference turns each resource into its configuration file and
		// loads it as a file, so that a resource is checked, and refused,
		// exactly as a file is.
		file := envoyratelimit.DomainConfig{Domain: pb.GetDomain(), Descriptors: descriptorConfigs(pb.GetDescriptors())}
		data, err := file.Marshal()
		if err != nil {
			errs = append(errs, fmt.Errorf("resource %q: %w", pb.GetName(), err))
			continue
		}
		files = append(files, envoyratelimit.File{Key: pb.GetName(), Data: data})
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return envoyratelimit.Load(files, o)
}

// descriptorConfigs returns the descriptors of a RateLimitConfig resource
// in the configuration file's schema.
func descriptorConfigs(pb []*rlconf.RateLimitDescriptor) []*envoyratelimit.DescriptorConfig {
	out := make([]*envoyratelimit.DescriptorConfig, 0, len(pb))
	for _, d := range pb {
		y := &envoyratelimit.DescriptorConfig{Key: d.GetKey(), Value: d.GetValue(), Descriptors: descriptorConfigs(d.GetDescriptors()),
			ShadowMode: d.GetShadowMode(), DetailedMetric: d.GetDetailedMetric(), QuotaMode: d.GetQuotaMode()}
		if m := d.GetMetadata(); m != nil {
			y.Metadata = m.AsMap()
		}
		if rl := d.GetRateLimit(); rl != nil {
			y.RateLimit = &envoyratelimit.LimitConfig{Unit: rl.GetUnit().String(), RequestsPerUnit: rl.GetRequestsPerUnit(),
				Unlimited: rl.GetUnlimited(), Name: rl.GetName()}
			for _, r := range rl.GetReplaces() {
				y.RateLimit.Replaces = append(y.RateLimit.Replaces, envoyratelimit.ReplaceConfig{Name: r.GetName()})
			}
		}
		out = append(out, y)
	}
	return out
}

// configXDS is CONFIG_TYPE's value for configuration over xDS.
const configXDS = "GRPC_XDS_SOTW"

// applyXDS loads one xDS response and, when valid, applies it whole; a
// refused one counts config_load_error and keeps the configuration in
// force, as a refused file does.
func (srv *instance) applyXDS(resp *discoveryv3.DiscoveryResponse, apply func(*envoyratelimit.Config)) error {
	cfg, err := loadResources(resp.GetResources(), envoyratelimit.LoadOptions{MergeDomains: srv.s.mergeDomainConfig, Keys: srv.s.refKeys.format})
	if err != nil {
		srv.st.configLoadError.Add(1)
		return err
	}
	srv.st.configLoadSuccess.Add(1)
	apply(cfg)
	return nil
}
