package main

import (
	"fmt"
	"strconv"
	"strings"
)

// redisAddr is one address of REDIS_URL: a bare host:port (or socket
// path), or, as the reference's Redis client takes them, a URL
// redis://[user:password@]host:port[/db] (rediss:// with TLS).
type redisAddr struct {
	addr           string
	user, password string
	hasAuth        bool
	tls            bool
	db             int
}

// parseRedisAddr parses one comma-separated part of REDIS_URL.
func parseRedisAddr(part string) (redisAddr, error) {
	var a redisAddr
	rest, ok := strings.CutPrefix(part, "redis://")
	if !ok {
		if rest, ok = strings.CutPrefix(part, "rediss://"); !ok {
			return redisAddr{addr: part}, nil
		}
		a.tls = true
	}
	if i := strings.LastIndexByte(rest, '@'); i >= 0 {
		a.user, a.password, _ = strings.Cut(rest[:i], ":")
		if a.password == "" {
			a.user, a.password = "", a.user // redis://password@host
		}
		a.hasAuth, rest = true, rest[i+1:]
	}
	if host, db, ok := strings.Cut(rest, "/"); ok {
		rest = host
		if db != "" {
			n, err := strconv.Atoi(db)
			if err != nil || n < 0 {
				return redisAddr{}, fmt.Errorf("REDIS_URL=%q: the database after '/' is not a number", maskCredentials(part))
			}
			a.db = n
		}
	}
	if rest == "" {
		return redisAddr{}, fmt.Errorf("REDIS_URL=%q: no host:port", maskCredentials(part))
	}
	a.addr = rest
	return a, nil
}

// checkSocketType refuses, for a single Redis, an address whose form
// contradicts c's SOCKET_TYPE, which would otherwise be dialled as the
// other kind and retried for ever: a redis[s]:// URL (host:port) with
// unix, which would dial a socket file named after the host and port, or
// a path with tcp. A sentinel or a cluster is always dialled over TCP, by
// the reference too, whatever SOCKET_TYPE says.
func checkSocketType(c redisConn, addr string) error {
	url := maskCredentials(addr)
	switch {
	case c.socketType == "unix" && (strings.HasPrefix(addr, "redis://") || strings.HasPrefix(addr, "rediss://")):
		return fmt.Errorf("%s=%q is a URL of a host and port, but %s is unix (its default), which dials a socket file by that name: set %s=tcp, or give the socket's path in %s",
			c.name("URL"), url, c.name("SOCKET_TYPE"), c.name("SOCKET_TYPE"), c.name("URL"))
	case c.socketType == "tcp" && strings.HasPrefix(addr, "/"):
		return fmt.Errorf("%s=%q is a socket path, but %s is tcp, which dials host:port: set %s=unix, or give host:port in %s",
			c.name("URL"), url, c.name("SOCKET_TYPE"), c.name("SOCKET_TYPE"), c.name("URL"))
	}
	return nil
}

// maskCredentials writes REDIS_URL for messages, the credentials of its
// URLs as "*****", as the reference logs it:
// redis://*****@redis1:6379,redis://*****@redis2:6379.
func maskCredentials(url string) string {
	parts := strings.Split(url, ",")
	for i, p := range parts {
		scheme, rest, ok := strings.Cut(p, "://")
		if !ok {
			continue
		}
		if at := strings.LastIndexByte(rest, '@'); at >= 0 {
			parts[i] = scheme + "://*****" + rest[at:]
		}
	}
	return strings.Join(parts, ",")
}
