package rls

import (
	rlsv3 "github.com/envoyproxy/go-control-plane/envoy/service/ratelimit/v3"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"
)

// kuadrantProtoFile is the name Limitador gives its proto file, under which
// the service's descriptor is registered.
const kuadrantProtoFile = "kuadrantrls.proto"

// init registers kuadrant.service.ratelimit.v1.RateLimitService's
// descriptor in protoregistry.GlobalFiles, built here as Limitador's
// kuadrantrls.proto declares it, so that gRPC reflection (grpcurl list,
// describe and calls) knows the service. Serving needs no descriptor:
// Codec decodes its calls. A program that already registered the file (a
// generated package of Limitador's proto) keeps its own.
func init() {
	if _, err := protoregistry.GlobalFiles.FindFileByPath(kuadrantProtoFile); err == nil {
		return
	}
	if f, err := kuadrantFile(); err == nil {
		_ = protoregistry.GlobalFiles.RegisterFile(f) // a conflicting name leaves the other registered
	}
}

// kuadrantFile builds the descriptor of kuadrantrls.proto over Envoy's
// registered rls.proto.
func kuadrantFile() (protoreflect.FileDescriptor, error) {
	req := "." + string((&rlsv3.RateLimitRequest{}).ProtoReflect().Descriptor().FullName())
	resp := "." + string((&rlsv3.RateLimitResponse{}).ProtoReflect().Descriptor().FullName())
	str := func(s string) *string { return &s }
	fd := &descriptorpb.FileDescriptorProto{
		Name:       str(kuadrantProtoFile),
		Package:    str("kuadrant.service.ratelimit.v1"),
		Dependency: []string{rlsv3.File_envoy_service_ratelimit_v3_rls_proto.Path()},
		Syntax:     str("proto3"),
		Service: []*descriptorpb.ServiceDescriptorProto{{
			Name: str("RateLimitService"),
			Method: []*descriptorpb.MethodDescriptorProto{
				{Name: str("CheckRateLimit"), InputType: str(req), OutputType: str(resp)},
				{Name: str("Report"), InputType: str(req), OutputType: str(resp)},
			},
		}},
	}
	return protodesc.NewFile(fd, protoregistry.GlobalFiles)
}
