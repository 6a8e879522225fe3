package policytest

import "testing"

// TestParseLogLineProtocol reads the request's protocol from both formats, so that a gRPC
// call replayed from a log is an HTTP/2 request.
func TestParseLogLineProtocol(t *testing.T) {
	for _, tc := range []struct{ name, line, want string }{
		{"text", `[2026-01-01T00:00:00.000Z] "POST /echo.v1.Echo/Say HTTP/2" 200 - 5 7 1 1 "-" "grpc-go/1.70" "id" "echo.local" "10.0.0.1:9000"`, "HTTP/2"},
		{"json", `{"start_time":"2026-01-01T00:00:00.000Z","method":"POST","path":"/echo.v1.Echo/Say","protocol":"HTTP/2"}`, "HTTP/2"},
		{"json without", `{"start_time":"2026-01-01T00:00:00.000Z","method":"GET","path":"/"}`, ""},
		{"json dash", `{"start_time":"2026-01-01T00:00:00.000Z","method":"GET","path":"/","protocol":"-"}`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var e LogEntry
			e.Protocol = "stale"
			if err := ParseLogLine([]byte(tc.line), &e); err != nil {
				t.Fatal(err)
			}
			var in Input
			e.request(&in)
			if e.Protocol != tc.want || in.Protocol != tc.want {
				t.Errorf("ParseLogLine(%s): protocol %q, input %q, want %q", tc.name, e.Protocol, in.Protocol, tc.want)
			}
			if _, ok := e.Headers["protocol"]; ok {
				t.Errorf("ParseLogLine(%s): protocol read as a header", tc.name)
			}
		})
	}
}
