package redis

import (
	"errors"
	"fmt"
	"net/url"

	goredis "github.com/redis/go-redis/v9"
)

// NewClient returns a go-redis client for a URL, with context deadlines
// honoured (ContextTimeoutEnabled), as a Store needs:
//
//   - redis://[user:password@]host[:port][/db][?options], rediss://...
//     (TLS) or unix:///path: a standalone server (go-redis ParseURL);
//   - with one or more addr=host:port parameters: a Cluster, seeded with
//     the URL's host and every addr (go-redis ParseClusterURL);
//   - with master_name=NAME: Sentinel, the URL's host and every addr being
//     sentinels (go-redis ParseFailoverURL).
//
// The other query parameters are go-redis options in snake case
// (dial_timeout=1s, pool_size=20, ...); an unknown one is an error. It
// speaks DefaultProtocol (RESP2) unless protocol=3 asks for RESP3. The
// caller closes the client.
func NewClient(rawURL string) (goredis.UniversalClient, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // without the URL, which may hold a password
		}
		return nil, fmt.Errorf("limit/redis: Redis URL: %w", err)
	}
	q := u.Query()
	switch {
	case q.Has("master_name"):
		o, err := goredis.ParseFailoverURL(rawURL)
		if err != nil {
			return nil, fmt.Errorf("limit/redis: Sentinel URL %s: %w", redact(u), err)
		}
		o.ContextTimeoutEnabled = true
		o.Protocol = protocol(q, o.Protocol)
		return goredis.NewFailoverClient(o), nil
	case q.Has("addr"):
		o, err := goredis.ParseClusterURL(rawURL)
		if err != nil {
			return nil, fmt.Errorf("limit/redis: Cluster URL %s: %w", redact(u), err)
		}
		o.ContextTimeoutEnabled = true
		o.Protocol = protocol(q, o.Protocol)
		return goredis.NewClusterClient(o), nil
	default:
		o, err := goredis.ParseURL(rawURL)
		if err != nil {
			return nil, fmt.Errorf("limit/redis: Redis URL %s: %w", redact(u), err)
		}
		o.ContextTimeoutEnabled = true
		o.Protocol = protocol(q, o.Protocol)
		return goredis.NewClient(o), nil
	}
}

// DefaultProtocol is the RESP version NewClient speaks unless the URL's
// protocol parameter says otherwise: RESP2, whose replies the stores read
// alike, and with which go-redis does not look for push notifications on
// the connection before every command (RESP3's default, a system call per
// round trip that the stores, which subscribe to nothing, do not need).
const DefaultProtocol = 2

// protocol returns the URL's protocol (parsed by go-redis), or
// DefaultProtocol when it names none.
func protocol(q url.Values, parsed int) int {
	if q.Has("protocol") {
		return parsed
	}
	return DefaultProtocol
}

// redact returns u without its password, for error messages.
func redact(u *url.URL) string {
	return u.Redacted()
}
