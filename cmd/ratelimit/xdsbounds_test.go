package main

import (
	"fmt"
	"strings"
	"testing"

	rlconf "github.com/envoyproxy/go-control-plane/ratelimit/config/ratelimit/v3"
	"google.golang.org/protobuf/types/known/anypb"

	"github.com/rlpkit/rlpkit/inputlimit"
	"github.com/rlpkit/rlpkit/limit/envoyratelimit"
)

// TestXDSResourceBounds: an xDS resource is loaded as a file, so it is
// refused past the same limits, naming the resource and the limit. A
// resource holds no aliases; nesting and size are what it can exceed.
func TestXDSResourceBounds(t *testing.T) {
	deep := &rlconf.RateLimitDescriptor{Key: "leaf"}
	for range inputlimit.MaxDepth / 2 {
		deep = &rlconf.RateLimitDescriptor{Key: "k", Descriptors: []*rlconf.RateLimitDescriptor{deep}}
	}
	tests := []struct {
		name string
		res  *rlconf.RateLimitConfig
		want string
	}{
		{"nesting", &rlconf.RateLimitConfig{Name: "deep", Domain: "d", Descriptors: []*rlconf.RateLimitDescriptor{deep}},
			"deep:501: error loading config file: collections nest more than 1000 deep"},
		{"size", &rlconf.RateLimitConfig{Name: "big", Domain: "d", Descriptors: []*rlconf.RateLimitDescriptor{{Key: "k", Value: strings.Repeat("v", inputlimit.MaxBytes)}}},
			fmt.Sprintf("big: error loading config file: the input's %d bytes exceed the limit of %d bytes (16 MiB)", inputlimit.MaxBytes+42, inputlimit.MaxBytes)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a, err := anypb.New(tc.res)
			if err != nil {
				t.Fatal(err)
			}
			_, err = loadResources([]*anypb.Any{a}, envoyratelimit.LoadOptions{})
			if err == nil || err.Error() != tc.want {
				t.Fatalf("loadResources = %.300v\nwant %s", err, tc.want)
			}
		})
	}
}
