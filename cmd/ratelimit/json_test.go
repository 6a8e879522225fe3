package main

import (
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
)

// TestJSONBadRequest: POST /json answers what the service refuses as the
// reference does: 400 with the text "Bad Request".
func TestJSONBadRequest(t *testing.T) {
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "ratelimit", "config", "d.yaml"), limitYAML(5))
	s := start(t, baseEnv(root))
	for _, body := range []string{`not json`, `{"domain":"","descriptors":[{"entries":[{"key":"k","value":"v"}]}]}`, `{"domain":"d"}`} {
		resp, err := http.Post("http://"+s.addrs.http+"/json", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 400 || string(got) != "Bad Request\n" || resp.Header.Get("Content-Type") != "text/plain; charset=utf-8" {
			t.Errorf("POST /json %s = %d %q (%s), want 400 \"Bad Request\" as text/plain", body, resp.StatusCode, got, resp.Header.Get("Content-Type"))
		}
	}
}
