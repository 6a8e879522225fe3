package redis

import (
	"fmt"
	"strings"
	"testing"

	goredis "github.com/redis/go-redis/v9"
)

func TestNewClient(t *testing.T) {
	tests := []struct {
		url      string
		wantType string
		wantErr  string // "" for none
	}{
		{url: "redis://127.0.0.1:6379/0", wantType: "*redis.Client"},
		{url: "redis://user:secret@127.0.0.1:6379?pool_size=3", wantType: "*redis.Client"},
		{url: "rediss://127.0.0.1:6380", wantType: "*redis.Client"},
		{url: "unix:///tmp/redis.sock", wantType: "*redis.Client"},
		{url: "redis://127.0.0.1:7000?addr=127.0.0.1:7001&addr=127.0.0.1:7002", wantType: "*redis.ClusterClient"},
		{url: "redis://127.0.0.1:26379?master_name=mymaster", wantType: "*redis.Client"},
		{url: "http://127.0.0.1:6379", wantErr: "invalid URL scheme"},
		{url: "redis://user:secret@127.0.0.1:6379?bogus=1", wantErr: "bogus"},
		{url: "redis://user:secret@127.0.0.1:6379?addr=x:1&bogus=1", wantErr: "bogus"},
		{url: "redis://user:secret@127.0.0.1:6379?master_name=m&bogus=1", wantErr: "bogus"},
		{url: "redis://user:secret@[::1", wantErr: "Redis URL"},
	}
	for _, tc := range tests {
		t.Run(tc.url, func(t *testing.T) {
			c, err := NewClient(tc.url)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) || !strings.HasPrefix(err.Error(), "limit/redis: ") {
					t.Fatalf("NewClient(%q) = %v, want an error containing %q", tc.url, err, tc.wantErr)
				}
				if strings.Contains(err.Error(), "secret") {
					t.Errorf("NewClient(%q) error %q shows the password", tc.url, err)
				}
				return
			}
			if err != nil {
				t.Fatalf("NewClient(%q): %v", tc.url, err)
			}
			defer c.Close()
			if got := fmt.Sprintf("%T", c); got != tc.wantType {
				t.Errorf("NewClient(%q) = %s, want %s", tc.url, got, tc.wantType)
			}
			if !contextTimeoutEnabled(c) {
				t.Errorf("NewClient(%q) has ContextTimeoutEnabled false, want true", tc.url)
			}
		})
	}
}

func contextTimeoutEnabled(c goredis.UniversalClient) bool {
	switch c := c.(type) {
	case *goredis.Client:
		return c.Options().ContextTimeoutEnabled
	case *goredis.ClusterClient:
		return c.Options().ContextTimeoutEnabled
	}
	return false
}

// TestNewClientProtocol: RESP2 unless the URL asks for RESP3, for every
// kind of client.
func TestNewClientProtocol(t *testing.T) {
	tests := []struct {
		url  string
		want int
	}{
		{"redis://127.0.0.1:6379", 2},
		{"redis://127.0.0.1:6379?protocol=3", 3},
		{"redis://127.0.0.1:7000?addr=127.0.0.1:7001", 2},
		{"redis://127.0.0.1:7000?addr=127.0.0.1:7001&protocol=3", 3},
		{"redis://127.0.0.1:26379?master_name=mymaster", 2},
		{"redis://127.0.0.1:26379?master_name=mymaster&protocol=3", 3},
	}
	for _, tc := range tests {
		c, err := NewClient(tc.url)
		if err != nil {
			t.Fatalf("NewClient(%q): %v", tc.url, err)
		}
		var got int
		switch c := c.(type) {
		case *goredis.Client:
			got = c.Options().Protocol
		case *goredis.ClusterClient:
			got = c.Options().Protocol
		}
		c.Close()
		if got != tc.want {
			t.Errorf("NewClient(%q) speaks RESP%d, want RESP%d", tc.url, got, tc.want)
		}
	}
}
