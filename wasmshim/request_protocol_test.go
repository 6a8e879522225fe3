package wasmshim

import "testing"

func TestRequestProtocol(t *testing.T) {
	for _, tc := range []struct{ protocol, want string }{{"", "HTTP/1.1"}, {"HTTP/2", "HTTP/2"}} {
		got := (&Request{Protocol: tc.protocol}).activation()["request"].(map[string]any)["protocol"]
		if got != tc.want {
			t.Errorf("request.protocol of Request{Protocol: %q} = %v, want %q", tc.protocol, got, tc.want)
		}
	}
}
