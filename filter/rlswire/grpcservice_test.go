package rlswire

import (
	"bytes"
	"testing"

	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	"google.golang.org/protobuf/proto"
)

func TestAppendGrpcService(t *testing.T) {
	for _, cluster := range []string{"", "rate-limit-cluster", "a", "\n", string(bytes.Repeat([]byte("c"), 200))} {
		want, err := proto.Marshal(&corev3.GrpcService{TargetSpecifier: &corev3.GrpcService_EnvoyGrpc_{
			EnvoyGrpc: &corev3.GrpcService_EnvoyGrpc{ClusterName: cluster}}})
		if err != nil {
			t.Fatal(err)
		}
		if got := AppendGrpcService([]byte("prefix"), cluster); !bytes.Equal(got, append([]byte("prefix"), want...)) {
			t.Errorf("AppendGrpcService(%q) = %x, want %x after the prefix", cluster, got, want)
		}
	}
}
