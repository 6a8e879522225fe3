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
// (dial_timeout=1s, pool_size=20, ...); an unknown one is an error. The
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
		return goredis.NewFailoverClient(o), nil
	case q.Has("addr"):
		o, err := goredis.ParseClusterURL(rawURL)
		if err != nil {
			return nil, fmt.Errorf("limit/redis: Cluster URL %s: %w", redact(u), err)
		}
		o.ContextTimeoutEnabled = true
		return goredis.NewClusterClient(o), nil
	default:
		o, err := goredis.ParseURL(rawURL)
		if err != nil {
			return nil, fmt.Errorf("limit/redis: Redis URL %s: %w", redact(u), err)
		}
		o.ContextTimeoutEnabled = true
		return goredis.NewClient(o), nil
	}
}

// redact returns u without its password, for error messages.
func redact(u *url.URL) string {
	return u.Redacted()
}
