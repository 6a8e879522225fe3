package main

import (
	"strings"
	"testing"
)

// The tracing variables are read, so none is reported as not implemented.
func TestTracingVariablesImplemented(t *testing.T) {
	for _, name := range []string{"TRACING_ENABLED", "TRACING_EXPORTER_PROTOCOL", "TRACING_SERVICE_NAME",
		"TRACING_SERVICE_NAMESPACE", "TRACING_SERVICE_INSTANCE_ID", "TRACING_SAMPLING_RATE", "OTEL_EXPORTER_OTLP_ENDPOINT"} {
		if why, ok := notImplemented[name]; ok {
			t.Errorf("%s reported as not implemented: %s", name, why)
		}
		if _, ok := implemented[name]; !ok {
			t.Errorf("%s not among the variables read", name)
		}
	}
	env := map[string]string{"TRACING_ENABLED": "false", "TRACING_SERVICE_NAME": "x", "TRACING_SAMPLING_RATE": "0.5"}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	s, warnings, err := readSettings(lookup, environ(env))
	if err != nil || len(warnings) != 0 {
		t.Fatalf("readSettings = %v, %q; want no error, no warning", err, warnings)
	}
	if s.tracing.enabled || s.tracing.serviceName != "x" || s.tracing.samplingRate != 0.5 {
		t.Errorf("tracing settings %+v", s.tracing)
	}
}

func TestTracingDefaults(t *testing.T) {
	env := map[string]string{"TRACING_ENABLED": "true"}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	s, _, err := readSettings(lookup, environ(env))
	if err != nil {
		t.Fatal(err)
	}
	want := tracingSettings{enabled: true, protocol: "http", serviceName: "RateLimit", samplingRate: 1}
	if s.tracing != want {
		t.Errorf("tracing settings %+v, want %+v", s.tracing, want)
	}
	env["TRACING_EXPORTER_PROTOCOL"] = "GRPC"
	if s, _, _ = readSettings(lookup, environ(env)); s.tracing.protocol != "grpc" {
		t.Errorf("TRACING_EXPORTER_PROTOCOL=GRPC: protocol %q", s.tracing.protocol)
	}
}

// An invalid value stops the service with an error naming the variable;
// with tracing off only the rate must be a number, as for the reference.
func TestTracingInvalidValues(t *testing.T) {
	for _, tc := range []struct {
		env  map[string]string
		want string // "" for no error
	}{
		{map[string]string{"TRACING_ENABLED": "true", "TRACING_EXPORTER_PROTOCOL": "ftp"}, `TRACING_EXPORTER_PROTOCOL="ftp": want one of http, grpc`},
		{map[string]string{"TRACING_ENABLED": "true", "TRACING_SAMPLING_RATE": "1.5"}, `TRACING_SAMPLING_RATE="1.5": want a number from 0 to 1`},
		{map[string]string{"TRACING_ENABLED": "true", "TRACING_SAMPLING_RATE": "-0.1"}, `TRACING_SAMPLING_RATE="-0.1"`},
		{map[string]string{"TRACING_ENABLED": "true", "TRACING_SAMPLING_RATE": "NaN"}, `TRACING_SAMPLING_RATE="NaN"`},
		{map[string]string{"TRACING_SAMPLING_RATE": "half"}, `TRACING_SAMPLING_RATE="half"`},
		{map[string]string{"TRACING_ENABLED": "yes please"}, `TRACING_ENABLED="yes please": want true or false`},
		{map[string]string{"TRACING_ENABLED": "true", "OTEL_EXPORTER_OTLP_ENDPOINT": "collector:4317"}, `OTEL_EXPORTER_OTLP_ENDPOINT="collector:4317": want a URL`},
		{map[string]string{"TRACING_ENABLED": "true", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "ftp://c/v1/traces"}, `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT="ftp://c/v1/traces"`},
		{map[string]string{"TRACING_ENABLED": "true", "TRACING_EXPORTER_PROTOCOL": "", "OTEL_EXPORTER_OTLP_ENDPOINT": "https://c:4318"}, ""},
		{map[string]string{"TRACING_EXPORTER_PROTOCOL": "ftp", "TRACING_SAMPLING_RATE": "7"}, ""},
	} {
		lookup := func(k string) (string, bool) { v, ok := tc.env[k]; return v, ok }
		_, _, err := readSettings(lookup, environ(tc.env))
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("readSettings(%v) = %v, want no error", tc.env, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("readSettings(%v) = %v, want an error with %q", tc.env, err, tc.want)
		}
	}
}

// The whole service refuses to start on one, exit code 1.
func TestTracingInvalidStopsTheService(t *testing.T) {
	env := baseEnv(t.TempDir())
	env["TRACING_ENABLED"], env["TRACING_EXPORTER_PROTOCOL"] = "true", "ftp"
	var out syncBuffer
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	if code := run(t.Context(), lookup, environ(env), &out, nil); code != 1 || !strings.Contains(out.String(), "TRACING_EXPORTER_PROTOCOL") {
		t.Errorf("run = %d, %q; want 1 and an error naming TRACING_EXPORTER_PROTOCOL", code, out.String())
	}
}
