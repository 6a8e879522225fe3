package main

import (
	"errors"
	"fmt"
	"log/slog"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	goredis "github.com/redis/go-redis/v9"
	"github.com/rlpkit/rlpkit/limit"
	"github.com/rlpkit/rlpkit/rls"
)

// settings is the environment of the reference, read once at start.
type settings struct {
	runtimeRoot, runtimeSubdirectory, runtimeAppDirectory string
	runtimeWatchRoot, runtimeIgnoreDotFiles               bool
	mergeDomainConfig                                     bool

	grpcHost  string
	grpcPort  int
	host      string
	port      int
	debugHost string
	debugPort int

	grpcTLS                         bool
	grpcTLSCert, grpcTLSKey, grpcCA string
	grpcClientSAN                   string        // GRPC_CLIENT_TLS_SAN
	grpcUDS                         string        // GRPC_UDS: a Unix socket instead of GRPC_HOST:GRPC_PORT
	grpcMaxAge, grpcMaxAgeGrace     time.Duration // GRPC_MAX_CONNECTION_AGE, _GRACE

	logLevel  slog.Level
	logFormat string

	backendType                string
	redisSocketType            string
	redisURL                   string
	redisType                  string
	redisPoolSize              int
	redisAuth                  string
	redisTLS                   bool
	redisTLSCACert             string
	redisTLSCert               string
	redisTLSKey                string
	redisTLSSkipVerifyHostname bool
	redisTimeout               time.Duration
	redisHealthCheck           bool // REDIS_HEALTH_CHECK_ACTIVE_CONNECTION
	cacheKeyPrefix             string
	redisHashTag               limit.TagBy // RLPKIT_REDIS_HASH_TAG, rlpkit's own
	refKeys                    refKeys     // RLPKIT_REDIS_KEYS, rlpkit's own
	// redisHook, when set, is added to the Redis client; tests use it to
	// count what is sent. No variable sets it.
	redisHook goredis.Hook

	localCacheBytes int
	nearLimitRatio  float64
	shadowMode      bool
	quotaMode       bool // QUOTA_MODE
	dynamicMetadata bool // RESPONSE_DYNAMIC_METADATA
	caps            rls.RequestCaps

	responseHeaders                           bool
	headerLimit, headerRemaining, headerReset string

	useStatsd          bool
	statsdHost         string
	statsdPort         int
	statsdProtocol     string // STATSD_PROTOCOL: tcp (gostats' default) or udp, 4 or 6 optional
	statsFlush         time.Duration
	extraTags          []string // "k:v", sorted
	usePrometheus      bool
	prometheusAddr     string
	prometheusPath     string
	prometheusMapper   string // PROMETHEUS_MAPPER_YAML
	prometheusRTMillis bool   // PROMETHEUS_RESPONSE_TIME_AS_MILLISECONDS
	disableStats       bool
	statsMaxKeys       int
	healthyWithConfig  bool
	forceStartNoConfig bool

	configType string // CONFIG_TYPE: FILE or GRPC_XDS_SOTW
	xds        xdsSettings
	tracing    tracingSettings // TRACING_*

	redis redisSettings // the second Redis, batching, the first connection (redisenv.go)

	bounds boundsSettings // the listeners' timeouts and connection bounds (boundsenv.go)
}

// implemented lists the variables read here with their defaults.
var implemented = map[string]string{
	"RUNTIME_ROOT": "/srv/runtime_data/current", "RUNTIME_SUBDIRECTORY": "", "RUNTIME_APPDIRECTORY": "config",
	"RUNTIME_WATCH_ROOT": "true", "RUNTIME_IGNOREDOTFILES": "false", "MERGE_DOMAIN_CONFIG": "false",
	"GRPC_HOST": "0.0.0.0", "GRPC_PORT": "8081", "HOST": "0.0.0.0", "PORT": "8080",
	"DEBUG_HOST": "0.0.0.0", "DEBUG_PORT": "6070",
	"GRPC_UDS": "", "GRPC_MAX_CONNECTION_AGE": "24h", "GRPC_MAX_CONNECTION_AGE_GRACE": "1h", "GRPC_CLIENT_TLS_SAN": "",
	"GRPC_SERVER_USE_TLS": "false", "GRPC_SERVER_TLS_CERT": "", "GRPC_SERVER_TLS_KEY": "", "GRPC_CLIENT_TLS_CACERT": "",
	"LOG_LEVEL": "WARN", "LOG_FORMAT": "text",
	"BACKEND_TYPE": "redis", "REDIS_SOCKET_TYPE": "unix", "REDIS_URL": "/var/run/nutcracker/ratelimit.sock",
	"REDIS_TYPE": "SINGLE", "REDIS_POOL_SIZE": "10", "REDIS_AUTH": "", "REDIS_TLS": "false",
	"REDIS_TLS_CACERT": "", "REDIS_TLS_CLIENT_CERT": "", "REDIS_TLS_CLIENT_KEY": "",
	"REDIS_TLS_SKIP_HOSTNAME_VERIFICATION": "false", "REDIS_TIMEOUT": "10s", "REDIS_HEALTH_CHECK_ACTIVE_CONNECTION": "false",
	"CACHE_KEY_PREFIX": "", "EXPIRATION_JITTER_MAX_SECONDS": "300", "LOCAL_CACHE_SIZE_IN_BYTES": "0",
	"NEAR_LIMIT_RATIO": "0.8", "SHADOW_MODE": "false", "QUOTA_MODE": "false", "RESPONSE_DYNAMIC_METADATA": "false",
	"LIMIT_RESPONSE_HEADERS_ENABLED": "false", "LIMIT_LIMIT_HEADER": "RateLimit-Limit",
	"LIMIT_REMAINING_HEADER": "RateLimit-Remaining", "LIMIT_RESET_HEADER": "RateLimit-Reset",
	"USE_STATSD": "true", "STATSD_HOST": "localhost", "STATSD_PORT": "8125", "STATSD_PROTOCOL": "tcp", "GOSTATS_FLUSH_INTERVAL_SECONDS": "5", "STATS_FLUSH_INTERVAL": "10s",
	"EXTRA_TAGS": "", "USE_PROMETHEUS": "false", "PROMETHEUS_ADDR": ":9090", "PROMETHEUS_PATH": "/metrics", "PROMETHEUS_MAPPER_YAML": "", "PROMETHEUS_RESPONSE_TIME_AS_MILLISECONDS": "false",
	"DISABLE_STATS": "false", "HEALTHY_WITH_AT_LEAST_ONE_CONFIG_LOADED": "false",
	"FORCE_START_WITHOUT_INITIAL_CONFIG":      "false",
	"STOP_CACHE_KEY_INCREMENT_WHEN_OVERLIMIT": "false", "CONFIG_TYPE": "FILE",
	// rlpkit's own: the caps on a request, which the reference does not have.
	"RLPKIT_MAX_DESCRIPTORS_PER_REQUEST": strconv.Itoa(rls.DefaultMaxDescriptors),
	"RLPKIT_MAX_ENTRIES_PER_DESCRIPTOR":  strconv.Itoa(rls.DefaultMaxEntries),
	"RLPKIT_MAX_KEY_BYTES_PER_REQUEST":   strconv.Itoa(rls.DefaultMaxKeyBytes),
	// rlpkit's own, named so that no variable of the reference is.
	"RLPKIT_REDIS_HASH_TAG": "domain",
	"RLPKIT_REDIS_KEYS":     "rlpkit",
	"RLPKIT_STATS_MAX_KEYS": "1000",
}

// notImplemented lists variables of the reference that are not read, and
// what happens instead; setting one is reported once at start.
var notImplemented = map[string]string{
	"MEMCACHE_HOST_PORT":                      "memcache is not offered",
	"MEMCACHE_SRV":                            "memcache is not offered",
	"MEMCACHE_MAX_IDLE_CONNS":                 "memcache is not offered",
	"MEMCACHE_SRV_REFRESH":                    "memcache is not offered",
	"MEMCACHE_TLS":                            "memcache is not offered",
	"MEMCACHE_TLS_CACERT":                     "memcache is not offered",
	"MEMCACHE_TLS_CLIENT_CERT":                "memcache is not offered",
	"MEMCACHE_TLS_CLIENT_KEY":                 "memcache is not offered",
	"MEMCACHE_TLS_SKIP_HOSTNAME_VERIFICATION": "memcache is not offered",
	"USE_DOG_STATSD":                          "plain statsd, tags in the name as gostats writes them",
	"USE_DOG_STATSD_MOGRIFIERS":               "plain statsd",
}

// notReference lists variables that envoyproxy/ratelimit does not read
// either, though their names suggest it might, with what it does instead;
// setting one is reported once at start.
var notReference = map[string]string{
	"GLOBAL_SHADOW_MODE":   "the global shadow mode is SHADOW_MODE",
	"LOG_TIMESTAMP_FORMAT": "LOG_FORMAT=json writes @timestamp in RFC 3339 with nanoseconds, as the reference does",
}

// envReader reads variables and collects every invalid one.
type envReader struct {
	lookup func(string) (string, bool)
	errs   []error
	warns  []string // values accepted but reported at start
}

func (r *envReader) str(name string) string {
	if v, ok := r.lookup(name); ok {
		return v
	}
	return implemented[name]
}

func (r *envReader) bool(name string) bool {
	s := r.str(name)
	b, err := strconv.ParseBool(s)
	if err != nil {
		r.errs = append(r.errs, fmt.Errorf("%s=%q: want true or false", name, s))
	}
	return b
}

func (r *envReader) int(name string, lo, hi int) int {
	s := r.str(name)
	n, err := strconv.Atoi(s)
	if err != nil || n < lo || n > hi {
		r.errs = append(r.errs, fmt.Errorf("%s=%q: want a whole number from %d to %d", name, s, lo, hi))
	}
	return n
}

func (r *envReader) duration(name string) time.Duration {
	s := r.str(name)
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		r.errs = append(r.errs, fmt.Errorf("%s=%q: want a positive duration such as 10s or 500ms", name, s))
	}
	return d
}

func (r *envReader) oneOf(name string, values ...string) string {
	s := r.str(name)
	for _, v := range values {
		if strings.EqualFold(s, v) {
			return v
		}
	}
	r.errs = append(r.errs, fmt.Errorf("%s=%q: want one of %s", name, s, strings.Join(values, ", ")))
	return values[0]
}

// readSettings reads the environment. It returns every invalid value, each
// naming its variable, and the warnings to log once: variables set that are
// not implemented.
func readSettings(lookup func(string) (string, bool), environ []string) (settings, []string, error) {
	r := &envReader{lookup: lookup}
	var s settings
	r.redisKeys(&s)
	r.server(&s)
	r.bounds(&s)
	r.logAndBackend(&s)
	r.redis(&s)
	r.limitsAndStats(&s)
	r.xds(&s)
	r.tracing(&s)
	return s, r.warnings(environ, s.refKeys.reference()), errors.Join(r.errs...)
}

// server reads the runtime directory and the listeners.
func (r *envReader) server(s *settings) {
	s.runtimeRoot = r.str("RUNTIME_ROOT")
	s.runtimeSubdirectory = r.str("RUNTIME_SUBDIRECTORY")
	s.runtimeAppDirectory = r.str("RUNTIME_APPDIRECTORY")
	s.runtimeWatchRoot = r.bool("RUNTIME_WATCH_ROOT")
	s.runtimeIgnoreDotFiles = r.bool("RUNTIME_IGNOREDOTFILES")
	s.mergeDomainConfig = r.bool("MERGE_DOMAIN_CONFIG")
	s.grpcHost, s.grpcPort = r.str("GRPC_HOST"), r.int("GRPC_PORT", 0, 65535)
	s.host, s.port = r.str("HOST"), r.int("PORT", 0, 65535)
	s.debugHost, s.debugPort = r.str("DEBUG_HOST"), r.int("DEBUG_PORT", 0, 65535)
	s.grpcTLS = r.bool("GRPC_SERVER_USE_TLS")
	s.grpcTLSCert, s.grpcTLSKey, s.grpcCA = r.str("GRPC_SERVER_TLS_CERT"), r.str("GRPC_SERVER_TLS_KEY"), r.str("GRPC_CLIENT_TLS_CACERT")
	s.grpcClientSAN, s.grpcUDS = r.str("GRPC_CLIENT_TLS_SAN"), r.str("GRPC_UDS")
	s.grpcMaxAge, s.grpcMaxAgeGrace = r.duration("GRPC_MAX_CONNECTION_AGE"), r.duration("GRPC_MAX_CONNECTION_AGE_GRACE")
	if s.grpcTLS && (s.grpcTLSCert == "" || s.grpcTLSKey == "") {
		r.errs = append(r.errs, errors.New("GRPC_SERVER_USE_TLS=true needs GRPC_SERVER_TLS_CERT and GRPC_SERVER_TLS_KEY"))
	}
}

// logAndBackend reads the logging and the counter store's settings.
func (r *envReader) logAndBackend(s *settings) {
	level := r.oneOf("LOG_LEVEL", "DEBUG", "INFO", "WARN", "WARNING", "ERROR", "TRACE", "FATAL", "PANIC")
	s.logLevel = map[string]slog.Level{"DEBUG": slog.LevelDebug, "TRACE": slog.LevelDebug, "INFO": slog.LevelInfo,
		"WARN": slog.LevelWarn, "WARNING": slog.LevelWarn, "ERROR": slog.LevelError, "FATAL": slog.LevelError, "PANIC": slog.LevelError}[level]
	s.logFormat = r.oneOf("LOG_FORMAT", "text", "json")
	s.backendType = r.oneOf("BACKEND_TYPE", "redis", "memory", "memcache")
	s.redisSocketType = r.oneOf("REDIS_SOCKET_TYPE", "unix", "tcp")
	s.redisURL = r.str("REDIS_URL")
	s.redisType = r.oneOf("REDIS_TYPE", "single", "sentinel", "cluster")
	s.redisPoolSize = r.int("REDIS_POOL_SIZE", 1, 1<<20)
	s.redisAuth = r.str("REDIS_AUTH")
	s.redisTLS = r.bool("REDIS_TLS")
	s.redisTLSCACert, s.redisTLSCert, s.redisTLSKey = r.str("REDIS_TLS_CACERT"), r.str("REDIS_TLS_CLIENT_CERT"), r.str("REDIS_TLS_CLIENT_KEY")
	s.redisTLSSkipVerifyHostname = r.bool("REDIS_TLS_SKIP_HOSTNAME_VERIFICATION")
	s.redisTimeout = r.duration("REDIS_TIMEOUT")
	s.redisHealthCheck = r.bool("REDIS_HEALTH_CHECK_ACTIVE_CONNECTION")
	s.cacheKeyPrefix = r.str("CACHE_KEY_PREFIX")
	if strings.ContainsAny(s.cacheKeyPrefix, "{}") && !s.refKeys.reference() {
		r.errs = append(r.errs, fmt.Errorf("CACHE_KEY_PREFIX=%q: must not contain '{' or '}', which would change the keys' Redis Cluster hash tags", s.cacheKeyPrefix))
	}
	s.refKeys.jitterMax = r.int("EXPIRATION_JITTER_MAX_SECONDS", 0, 1<<31-1)
	s.redisHashTag, _ = limit.ParseTagBy(r.oneOf("RLPKIT_REDIS_HASH_TAG", "domain", "first-entry"))
}

// limitsAndStats reads the limits' options, the statistics and the rest.
func (r *envReader) limitsAndStats(s *settings) {
	s.localCacheBytes = r.int("LOCAL_CACHE_SIZE_IN_BYTES", 0, 1<<40)
	ratio := r.str("NEAR_LIMIT_RATIO")
	f, err := strconv.ParseFloat(ratio, 64)
	if err != nil || f <= 0 || f > 1 {
		r.errs = append(r.errs, fmt.Errorf("NEAR_LIMIT_RATIO=%q: want a number above 0 and at most 1", ratio))
	}
	s.nearLimitRatio = f
	s.shadowMode = r.bool("SHADOW_MODE")
	s.quotaMode = r.bool("QUOTA_MODE")
	s.dynamicMetadata = r.bool("RESPONSE_DYNAMIC_METADATA")
	names := rls.EnvoyRateLimit.CapSettings
	s.caps = rls.RequestCaps{
		MaxDescriptors: r.int(names.MaxDescriptors, 1, math.MaxInt32),
		MaxEntries:     r.int(names.MaxEntries, 1, math.MaxInt32),
		MaxKeyBytes:    r.int(names.MaxKeyBytes, 1, math.MaxInt32),
	}
	s.responseHeaders = r.bool("LIMIT_RESPONSE_HEADERS_ENABLED")
	s.headerLimit, s.headerRemaining, s.headerReset = r.str("LIMIT_LIMIT_HEADER"), r.str("LIMIT_REMAINING_HEADER"), r.str("LIMIT_RESET_HEADER")
	s.useStatsd = r.bool("USE_STATSD")
	s.statsdHost, s.statsdPort = r.str("STATSD_HOST"), r.int("STATSD_PORT", 1, 65535)
	// gostats reads STATSD_PROTOCOL itself, an empty value as its default.
	if v, _ := r.lookup("STATSD_PROTOCOL"); v != "" {
		s.statsdProtocol = r.oneOf("STATSD_PROTOCOL", "tcp", "tcp4", "tcp6", "udp", "udp4", "udp6")
	} else {
		s.statsdProtocol = implemented["STATSD_PROTOCOL"]
	}
	// The reference flushes every STATS_FLUSH_INTERVAL; the
	// GOSTATS_FLUSH_INTERVAL_SECONDS of its statistics library, when set,
	// is kept for the configurations that set it.
	s.statsFlush = r.duration("STATS_FLUSH_INTERVAL")
	if _, set := r.lookup("GOSTATS_FLUSH_INTERVAL_SECONDS"); set {
		s.statsFlush = time.Duration(r.int("GOSTATS_FLUSH_INTERVAL_SECONDS", 1, 86400)) * time.Second
	}
	if tags := r.str("EXTRA_TAGS"); tags != "" {
		for _, t := range strings.Split(tags, ",") {
			k, v, ok := strings.Cut(t, ":")
			if !ok || k == "" {
				r.errs = append(r.errs, fmt.Errorf("EXTRA_TAGS=%q: want key:value pairs separated by commas", tags))
				break
			}
			s.extraTags = append(s.extraTags, k+":"+v)
		}
		slices.Sort(s.extraTags)
	}
	s.usePrometheus = r.bool("USE_PROMETHEUS")
	s.prometheusAddr, s.prometheusPath = r.str("PROMETHEUS_ADDR"), r.str("PROMETHEUS_PATH")
	s.prometheusMapper = r.str("PROMETHEUS_MAPPER_YAML")
	s.prometheusRTMillis = r.bool("PROMETHEUS_RESPONSE_TIME_AS_MILLISECONDS")
	s.disableStats = r.bool("DISABLE_STATS")
	s.statsMaxKeys = r.int("RLPKIT_STATS_MAX_KEYS", 0, 1<<20)
	s.healthyWithConfig = r.bool("HEALTHY_WITH_AT_LEAST_ONE_CONFIG_LOADED")
	s.forceStartNoConfig = r.bool("FORCE_START_WITHOUT_INITIAL_CONFIG")
	s.configType = r.oneOf("CONFIG_TYPE", "FILE", "GRPC_XDS_SOTW")
}

// warnings returns the warnings to log once: variables set that are not
// (or not fully) implemented, sorted.
func (r *envReader) warnings(environ []string, referenceKeys bool) []string {
	lookup := r.lookup
	warnings := r.warns
	// true is what happens anyway (a rejected request counts on the
	// counters it is over only); false, the reference's counting of it
	// on every counter, is offered by RLPKIT_REDIS_KEYS=reference only,
	// which honours both variables.
	if referenceKeys {
		warnings = append(warnings, r.referenceKeysWarnings()...)
	} else {
		if _, set := lookup("STOP_CACHE_KEY_INCREMENT_WHEN_OVERLIMIT"); set && !r.bool("STOP_CACHE_KEY_INCREMENT_WHEN_OVERLIMIT") {
			warnings = append(warnings, "STOP_CACHE_KEY_INCREMENT_WHEN_OVERLIMIT=false is not honoured: a rejected request counts only on the counters it is over, as with true; the others do not move here")
		}
		if _, set := lookup("EXPIRATION_JITTER_MAX_SECONDS"); set {
			warnings = append(warnings, "EXPIRATION_JITTER_MAX_SECONDS is read but not used: every key's TTL is the span its counter matters for, set by the store")
		}
	}
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		if why, ok := notImplemented[name]; ok {
			warnings = append(warnings, fmt.Sprintf("%s is not implemented and is ignored: %s", name, why))
		}
		if why, ok := notReference[name]; ok {
			warnings = append(warnings, fmt.Sprintf("%s is not a variable of envoyproxy/ratelimit and is ignored: %s", name, why))
		}
	}
	slices.Sort(warnings)
	return warnings
}
