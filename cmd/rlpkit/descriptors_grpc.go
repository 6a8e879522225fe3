package main

import (
	"github.com/rlpkit/rlpkit/policyapi"
)

// applyGRPC makes req the gRPC call --grpc names, when given: --url must give the
// authority alone, since the call's path is the method's.
func (f *descriptorsFlags) applyGRPC(req *policyapi.Request) error {
	if f.grpc == "" {
		return nil
	}
	if f.path != "/" && f.path != "" {
		return usagef("--grpc %s gives the request's path; --url %q must give the authority alone, such as http://%s", f.grpc, f.rawURL, f.host)
	}
	if err := req.SetGRPC(f.grpc); err != nil {
		return usagef("--grpc: %v", err)
	}
	return nil
}
