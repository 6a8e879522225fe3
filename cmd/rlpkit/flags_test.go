package main

import (
	"errors"
	"testing"

	"github.com/rlpkit/rlpkit/policy"
)

func TestRequestTarget(t *testing.T) {
	tests := []struct {
		name, raw, host    string
		wantPath, wantAuth string
		wantUsage          bool
	}{
		{name: "absolute URL", raw: "http://api.example.com/admin?id=1", wantPath: "/admin?id=1", wantAuth: "api.example.com"},
		{name: "absolute URL without path", raw: "http://api.example.com", wantPath: "/", wantAuth: "api.example.com"},
		{name: "absolute URL with port and a Host header", raw: "http://127.0.0.1:8080/x", host: "api.example.com", wantPath: "/x", wantAuth: "127.0.0.1:8080"},
		{name: "path with a Host header", raw: "/admin?id=1", host: "api.example.com", wantPath: "/admin?id=1"},
		{name: "path without a Host header", raw: "/admin", wantUsage: true},
		{name: "no scheme", raw: "api.example.com/admin", host: "api.example.com", wantUsage: true},
		{name: "scheme without host", raw: "mailto:someone", wantUsage: true},
		{name: "unparsable", raw: "http://a b/", wantUsage: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path, auth, err := requestTarget(tc.raw, tc.host)
			var ue *usageError
			if gotUsage := errors.As(err, &ue); gotUsage != tc.wantUsage {
				t.Fatalf("requestTarget(%q, %q) error = %v, want a usage error: %t", tc.raw, tc.host, err, tc.wantUsage)
			}
			if path != tc.wantPath || auth != tc.wantAuth {
				t.Errorf("requestTarget(%q, %q) = %q, %q, want %q, %q", tc.raw, tc.host, path, auth, tc.wantPath, tc.wantAuth)
			}
		})
	}
}

func TestValidRemoteAddress(t *testing.T) {
	tests := []struct {
		addr string
		want bool
	}{
		{"203.0.113.7", true},
		{"203.0.113.7:5678", true},
		{"2001:db8::1", true},
		{"[2001:db8::1]:443", true},
		{"fe80::1%eth0", true},
		{"", false},
		{"client.example.com", false},
		{"client.example.com:80", false},
		{"203.0.113.300", false},
		{"203.0.113.7:port", false},
		{"[2001:db8::1]", false},
	}
	for _, tc := range tests {
		if got := validRemoteAddress(tc.addr); got != tc.want {
			t.Errorf("validRemoteAddress(%q) = %t, want %t", tc.addr, got, tc.want)
		}
	}
}

func TestCheckName(t *testing.T) {
	set, err := policy.Decode("in.yaml", []byte(`
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: mygateway, namespace: gateway-system}
spec: {gatewayClassName: c, listeners: [{name: http, port: 80, protocol: HTTP}]}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: internal, namespace: gateway-system}
spec: {gatewayClassName: c, listeners: [{name: http, port: 80, protocol: HTTP}]}
`))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, value string
		want        string // the usage error, "" for none
	}{
		{name: "well-formed", value: "gateway-system/mygateway"},
		{name: "well-formed, not in the inputs", value: "default/other"},
		{name: "bare name", value: "mygateway", want: `--gateway "mygateway": expected namespace/name; Gateways in the inputs: gateway-system/mygateway, gateway-system/internal`},
		{name: "bare name, closest first", value: "internl", want: `--gateway "internl": expected namespace/name; Gateways in the inputs: gateway-system/internal, gateway-system/mygateway`},
		{name: "empty namespace", value: "/mygateway", want: `--gateway "/mygateway": expected namespace/name; Gateways in the inputs: gateway-system/mygateway, gateway-system/internal`},
		{name: "empty name", value: "gateway-system/", want: `--gateway "gateway-system/": expected namespace/name; Gateways in the inputs: gateway-system/internal, gateway-system/mygateway`},
		{name: "section too", value: "gateway-system/mygateway/http", want: `--gateway "gateway-system/mygateway/http": expected namespace/name; Gateways in the inputs: gateway-system/mygateway, gateway-system/internal`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := ""
			if err := checkName("--gateway", policy.KindGateway, tc.value, set); err != nil {
				got = err.Error()
			}
			if got != tc.want {
				t.Errorf("checkName(%q) = %q, want %q", tc.value, got, tc.want)
			}
		})
	}
}
