package main

import (
	"flag"

	"github.com/rlpkit/rlpkit/policyapi"
)

// addGRPCFlag registers --grpc of "rlpkit descriptors": the request is a gRPC call.
func addGRPCFlag(fs *flag.FlagSet) *bool {
	return fs.Bool("grpc", false, "send the request as a gRPC call: POST (whatever --method says), content-type application/grpc and te: trailers; --url's path names the method, /<package.Service>/<Method>")
}

// asGRPC makes req the gRPC call --grpc asks for.
func asGRPC(req *policyapi.Request) error {
	if err := policyapi.AsGRPC(req); err != nil {
		return usagef("--grpc: %v", err)
	}
	return nil
}
