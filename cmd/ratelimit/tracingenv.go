package main

import (
	"fmt"
	"net/url"
	"strconv"
)

// tracingSettings are the variables of the OpenTelemetry tracing,
// TRACING_*; the exporters read the OTEL_EXPORTER_OTLP_* variables
// themselves.
type tracingSettings struct {
	enabled           bool
	protocol          string // "http" or "grpc"
	serviceName       string
	serviceNamespace  string
	serviceInstanceID string  // "" draws a random UUID at start, as the reference
	samplingRate      float64 // of the traces that come without a sampled parent
}

// tracingDefaults are the tracing variables with their defaults, the
// reference's.
var tracingDefaults = map[string]string{
	"TRACING_ENABLED": "false", "TRACING_EXPORTER_PROTOCOL": "http",
	"TRACING_SERVICE_NAME": "RateLimit", "TRACING_SERVICE_NAMESPACE": "", "TRACING_SERVICE_INSTANCE_ID": "",
	"TRACING_SAMPLING_RATE": "1",
	// Read by the exporters, checked here; no default: the exporters'
	// (http://localhost:4318 for HTTP, localhost:4317 for gRPC).
	"OTEL_EXPORTER_OTLP_ENDPOINT": "", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "",
}

func init() {
	for k, v := range tracingDefaults {
		implemented[k] = v
	}
}

// tracing reads TRACING_*. TRACING_SAMPLING_RATE must be a number whatever
// TRACING_ENABLED says, as the reference parses it at start; the protocol,
// the rate's range and the endpoints are checked when tracing is enabled.
func (r *envReader) tracing(s *settings) {
	t := &s.tracing
	t.enabled = r.bool("TRACING_ENABLED")
	t.serviceName = r.str("TRACING_SERVICE_NAME")
	t.serviceNamespace = r.str("TRACING_SERVICE_NAMESPACE")
	t.serviceInstanceID = r.str("TRACING_SERVICE_INSTANCE_ID")
	rate := r.str("TRACING_SAMPLING_RATE")
	f, err := strconv.ParseFloat(rate, 64)
	if err != nil {
		r.errs = append(r.errs, fmt.Errorf("TRACING_SAMPLING_RATE=%q: want a number from 0 to 1", rate))
	}
	t.samplingRate = f
	if !t.enabled {
		return
	}
	if err == nil && !(f >= 0 && f <= 1) {
		r.errs = append(r.errs, fmt.Errorf("TRACING_SAMPLING_RATE=%q: want a number from 0 to 1", rate))
	}
	// As the reference, an empty protocol is HTTP.
	t.protocol = "http"
	if _, set := r.lookup("TRACING_EXPORTER_PROTOCOL"); set && r.str("TRACING_EXPORTER_PROTOCOL") != "" {
		t.protocol = r.oneOf("TRACING_EXPORTER_PROTOCOL", "http", "grpc")
	}
	for _, name := range []string{"OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"} {
		if v := r.str(name); v != "" {
			if u, err := url.Parse(v); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
				r.errs = append(r.errs, fmt.Errorf("%s=%q: want a URL such as http://collector:4318 (https:// for TLS)", name, v))
			}
		}
	}
}
