package main

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/rlpkit/rlpkit/internal/redistest"
)

// TestRefRedisAuth restates the reference's driver tests "auth pass",
// "auth user pass", "auth fail" and "auth user pass fail": REDIS_AUTH as
// a password or user:password; with a wrong one the service never serves
// and stops after REDIS_STARTUP_MAX_ELAPSED_TIME, as the reference does.
func TestRefRedisAuth(t *testing.T) {
	srv := redistest.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	admin := goredis.NewClient(&goredis.Options{Addr: srv.Addr})
	defer admin.Close()
	for _, cmd := range [][]any{
		{"ACL", "SETUSER", "alice", "on", ">alicepw", "~*", "&*", "+@all"},
		{"CONFIG", "SET", "requirepass", "password123"},
	} {
		if err := admin.Do(ctx, cmd...).Err(); err != nil {
			t.Fatalf("%v: %v", cmd, err)
		}
	}
	for _, c := range []struct {
		auth string
		ok   bool
	}{{"password123", true}, {"alice:alicepw", true}, {"wrong", false}, {"alice:wrong", false}, {"", false}} {
		t.Run(c.auth, func(t *testing.T) {
			env := redisEnv(t, srv, "single")
			env["REDIS_AUTH"] = c.auth
			env["CACHE_KEY_PREFIX"] = strings.ReplaceAll(c.auth, ":", "-") + ":"
			if !c.ok {
				refusedAtStart(t, env, "REDIS_AUTH="+c.auth)
				return
			}
			s := start(t, env)
			r, err := s.call(t, "d", "k=a")
			if err != nil || r.Statuses[0].LimitRemaining != 1 {
				t.Errorf("REDIS_AUTH=%q: %v %v, want OK with 1 left", c.auth, r, err)
			}
		})
	}
}

// TestRefCacheKeys restates TestGenerateCacheKeys, TestGenerateCacheKeysPrefix
// and TestGenerateCacheKeysWithShareThreshold, and TestRedis's EXPIRE: every
// key begins with CACHE_KEY_PREFIX and expires; the values of a
// share_threshold wildcard share one key, other values have one each. (The
// keys are rlpkit's, not "domain_key_value_window": see the migration
// guide.)
func TestRefCacheKeys(t *testing.T) {
	srv := redistest.Start(t)
	env := redisEnv(t, srv, "single")
	writeFile(t, env["RUNTIME_ROOT"]+"/ratelimit/config/a.yaml", `domain: domain
descriptors:
  - key: files
    value: files/*
    share_threshold: true
    rate_limit: {unit: second, requests_per_unit: 10}
  - key: plain
    value: files/*
    rate_limit: {unit: second, requests_per_unit: 10}
  - key: parent
    descriptors:
      - key: files
        value: nested/*
        share_threshold: true
        rate_limit: {unit: hour, requests_per_unit: 10}
`)
	env["CACHE_KEY_PREFIX"] = "prefix:"
	s := start(t, env)
	for _, c := range [][]string{
		{"files=files/a.pdf"}, {"files=files/b.csv"}, {"files=files/subdir/f.txt"},
		{"plain=files/a.pdf"}, {"plain=files/b.csv"},
	} {
		if _, err := s.call(t, "domain", c...); err != nil {
			t.Fatal(err)
		}
	}
	for _, v := range []string{"nested/file1.txt", "nested/file2.csv"} {
		req, err := parseCall("domain parent=value1,files=" + v)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		_, err = s.client.ShouldRateLimit(ctx, req)
		cancel()
		if err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	admin := goredis.NewClient(&goredis.Options{Addr: srv.Addr})
	defer admin.Close()
	keys, err := admin.Keys(ctx, "*").Result()
	if err != nil {
		t.Fatal(err)
	}
	// files: one shared key; plain: one per value; parent/files: one shared.
	if len(keys) != 4 {
		t.Errorf("keys = %q, want 4 (one for files/*, two for plain, one for the nested share)", keys)
	}
	for _, k := range keys {
		if !strings.HasPrefix(k, "prefix:") {
			t.Errorf("key %q does not begin with CACHE_KEY_PREFIX", k)
		}
		if ttl, err := admin.TTL(ctx, k).Result(); err != nil || ttl <= 0 {
			t.Errorf("key %q: TTL %v %v, want one", k, ttl, err)
		}
	}
}

// TestRefMaskCredentialsInURL restates TestMaskCredentialsInUrl,
// TestMaskCredentialsInUrlCluster and TestMaskCredentialsInUrlSentinel.
func TestRefMaskCredentialsInURL(t *testing.T) {
	for in, want := range map[string]string{
		"redis:6379":                 "redis:6379",
		"redis://foo:bar@redis:6379": "redis://*****@redis:6379",
		"redis1:6379,redis2:6379":    "redis1:6379,redis2:6379",
		"redis://foo:bar@redis1:6379,redis://foo:bar@redis2:6379":        "redis://*****@redis1:6379,redis://*****@redis2:6379",
		"redis://foo:b@r@redis1:6379,redis://foo:b@r@redis2:6379":        "redis://*****@redis1:6379,redis://*****@redis2:6379",
		"foobar,redis://foo:bar@redis1:6379,redis://foo:bar@redis2:6379": "foobar,redis://*****@redis1:6379,redis://*****@redis2:6379",
		"foob@r,redis://foo:b@r@redis1:6379,redis://foo:b@r@redis2:6379": "foob@r,redis://*****@redis1:6379,redis://*****@redis2:6379",
	} {
		if got := maskCredentials(in); got != want {
			t.Errorf("maskCredentials(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestRefRedisURLCredentials: REDIS_URL as a redis:// URL carries the
// credentials, as the reference's Redis client reads it (REDIS_AUTH wins
// when set); a bad REDIS_URL is reported without its credentials.
func TestRefRedisURLCredentials(t *testing.T) {
	srv := redistest.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	admin := goredis.NewClient(&goredis.Options{Addr: srv.Addr})
	defer admin.Close()
	for _, cmd := range [][]any{
		{"ACL", "SETUSER", "alice", "on", ">b@d:pw", "~*", "&*", "+@all"},
		{"CONFIG", "SET", "requirepass", "password123"},
	} {
		if err := admin.Do(ctx, cmd...).Err(); err != nil {
			t.Fatalf("%v: %v", cmd, err)
		}
	}
	for _, c := range []struct{ url, auth string }{
		{"redis://alice:b@d:pw@" + srv.Addr, ""},
		{"redis://password123@" + srv.Addr + "/0", ""},
		{"redis://alice:wrong@" + srv.Addr, "password123"},
	} {
		env := redisEnv(t, srv, "single")
		env["REDIS_URL"], env["REDIS_AUTH"] = c.url, c.auth
		s := start(t, env)
		if r, err := s.call(t, "d", "k=a"); err != nil || r.Statuses[0].CurrentLimit == nil {
			t.Errorf("REDIS_URL=%s REDIS_AUTH=%q: %v %v, want an answer", c.url, c.auth, r, err)
		}
	}
	env := redisEnv(t, srv, "single")
	env["REDIS_URL"] = "redis://alice:secret@" + srv.Addr + ",redis://alice:secret@" + srv.Addr
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	var log syncBuffer
	if code := run(context.Background(), lookup, environ(env), &log, nil); code == 0 || strings.Contains(log.String(), "secret") || !strings.Contains(log.String(), "redis://*****@") {
		t.Errorf("two addresses with REDIS_TYPE=single: exit %d, log:\n%s\nwant an error without the password", code, log.String())
	}
}

// enableTLS makes srv listen for TLS too, on a free port it returns, with the
// certificate and key files, the clients' CA file, and client certificates
// required when authClients is set.
func enableTLS(t *testing.T, srv *redistest.Server, certFile, keyFile, caFile string, authClients bool) (port string) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port = strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
	l.Close()
	auth := "no"
	if authClients {
		auth = "yes"
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	admin := goredis.NewClient(&goredis.Options{Addr: srv.Addr})
	defer admin.Close()
	if err := admin.Do(ctx, "CONFIG", "SET", "tls-cert-file", certFile, "tls-key-file", keyFile,
		"tls-ca-cert-file", caFile, "tls-auth-clients", auth, "tls-port", port).Err(); err != nil {
		t.Fatalf("enabling TLS on redis-server: %v", err)
	}
	return port
}

// TestRefRedisTLS restates the integration suite's TestBasicTLSConfig:
// REDIS_TLS with the server's CA in REDIS_TLS_CACERT, the name checked
// unless REDIS_TLS_SKIP_HOSTNAME_VERIFICATION (the chain still is); a
// client that does not trust the server's certificate gets no answer.
func TestRefRedisTLS(t *testing.T) {
	srv := redistest.Start(t)
	certFile, keyFile, _ := selfSigned(t, t.TempDir()) // for 127.0.0.1, its own CA
	otherCA, _, _ := selfSigned(t, t.TempDir())
	tlsPort := enableTLS(t, srv, certFile, keyFile, certFile, false)
	for _, c := range []struct {
		host, ca   string
		skipVerify bool
		ok         bool
	}{
		{"127.0.0.1", certFile, false, true},
		{"localhost", certFile, false, false}, // the certificate is for 127.0.0.1
		{"localhost", certFile, true, true},
		{"localhost", otherCA, true, false}, // the chain is still verified
		{"127.0.0.1", otherCA, false, false},
	} {
		env := redisEnv(t, srv, "single")
		env["REDIS_URL"] = net.JoinHostPort(c.host, tlsPort)
		env["REDIS_TLS"], env["REDIS_TLS_CACERT"] = "true", c.ca
		env["REDIS_TLS_SKIP_HOSTNAME_VERIFICATION"] = strconv.FormatBool(c.skipVerify)
		what := fmt.Sprintf("REDIS_URL=%s, CA %s, skip verify %v", env["REDIS_URL"], filepath.Base(filepath.Dir(c.ca)), c.skipVerify)
		if !c.ok {
			refusedAtStart(t, env, what)
			continue
		}
		s := start(t, env)
		if r, err := s.call(t, "d", "k=a"); err != nil {
			t.Errorf("%s: %v %v, want an answer", what, r, err)
		}
	}
}

// clientCert writes a self-signed client certificate and its key.
func clientCert(t *testing.T, dir string) (certFile, keyFile string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "ratelimit-client"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kder, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile = filepath.Join(dir, "client.pem"), filepath.Join(dir, "client-key.pem")
	writeFile(t, certFile, string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})))
	writeFile(t, keyFile, string(pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder})))
	return certFile, keyFile
}

// TestRefRedisTLSClientCert restates TestBasicTLSConfig's WithClientCert:
// a Redis that verifies client certificates answers with
// REDIS_TLS_CLIENT_CERT and REDIS_TLS_CLIENT_KEY, and not without them.
func TestRefRedisTLSClientCert(t *testing.T) {
	srv := redistest.Start(t)
	dir := t.TempDir()
	certFile, keyFile, _ := selfSigned(t, dir)
	cliCert, cliKey := clientCert(t, dir)
	serverPEM, err := os.ReadFile(certFile)
	if err != nil {
		t.Fatal(err)
	}
	clientPEM, err := os.ReadFile(cliCert)
	if err != nil {
		t.Fatal(err)
	}
	bundle := filepath.Join(dir, "cas.pem")
	writeFile(t, bundle, string(serverPEM)+string(clientPEM))
	tlsPort := enableTLS(t, srv, certFile, keyFile, bundle, true)
	for _, withCert := range []bool{true, false} {
		env := redisEnv(t, srv, "single")
		env["REDIS_URL"] = net.JoinHostPort("127.0.0.1", tlsPort)
		env["REDIS_TLS"], env["REDIS_TLS_CACERT"] = "true", certFile
		if withCert {
			env["REDIS_TLS_CLIENT_CERT"], env["REDIS_TLS_CLIENT_KEY"] = cliCert, cliKey
		}
		if !withCert {
			refusedAtStart(t, env, "without a client certificate")
			continue
		}
		s := start(t, env)
		if r, err := s.call(t, "d", "k=a"); err != nil {
			t.Errorf("with a client certificate: %v %v, want an answer", r, err)
		}
	}
}

// refusedAtStart runs the service with env, whose Redis refuses it: as the
// reference, it never serves, and exits 1 once
// REDIS_STARTUP_MAX_ELAPSED_TIME has passed.
func refusedAtStart(t *testing.T, env map[string]string, what string) {
	t.Helper()
	env = fastStartup(env)
	env["REDIS_STARTUP_MAX_ELAPSED_TIME"] = "200ms"
	code, log := runPending(t, env).exit(t)
	if code != 1 || !strings.Contains(log, "timed out waiting for Redis connection") {
		t.Errorf("%s: run = %d, log:\n%s\nwant 1 and timed out waiting for Redis connection", what, code, log)
	}
}
