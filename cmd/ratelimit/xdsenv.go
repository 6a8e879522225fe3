package main

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// xdsSettings are the variables of CONFIG_TYPE=GRPC_XDS_SOTW.
type xdsSettings struct {
	serverURL     string
	nodeID        string
	nodeMetadata  map[string]string // CONFIG_GRPC_XDS_NODE_METADATA, k=v,k=v
	headers       []string          // CONFIG_GRPC_XDS_CLIENT_ADDITIONAL_HEADERS as key, value, key, value...
	retryInterval time.Duration     // CONFIG_GRPC_XDS_SERVER_CONNECT_RETRY_INTERVAL

	useTLS          bool
	tlsCert, tlsKey string
	tlsCA, tlsSAN   string
	backoffInitial  time.Duration
	backoffMax      time.Duration
	backoffFactor   float64
	backoffJitter   bool
	maxRecvMsgBytes int // 0: gRPC's default

	// rlpkit's own (RLPKIT_XDS_CLIENT_*): the reference dials without a
	// bound of its own and never pings, so a management server gone
	// without a FIN holds its stream, silent, for ever.
	connectTimeout   time.Duration // a connection's TCP, TLS and HTTP/2 handshake
	keepaliveTime    time.Duration // ping the management server after this long without a frame
	keepaliveTimeout time.Duration // and end the stream when the ping is not answered within this
}

// xdsDefaults are the xDS variables with their defaults, the reference's.
var xdsDefaults = map[string]string{
	"CONFIG_GRPC_XDS_SERVER_URL": "localhost:18000", "CONFIG_GRPC_XDS_NODE_ID": "default",
	"CONFIG_GRPC_XDS_NODE_METADATA": "", "CONFIG_GRPC_XDS_CLIENT_ADDITIONAL_HEADERS": "",
	"CONFIG_GRPC_XDS_SERVER_CONNECT_RETRY_INTERVAL": "3s",
	"CONFIG_GRPC_XDS_SERVER_USE_TLS":                "false", "CONFIG_GRPC_XDS_CLIENT_TLS_CERT": "", "CONFIG_GRPC_XDS_CLIENT_TLS_KEY": "",
	"CONFIG_GRPC_XDS_SERVER_TLS_CACERT": "", "CONFIG_GRPC_XDS_SERVER_TLS_SAN": "",
	"XDS_CLIENT_BACKOFF_INITIAL_INTERVAL": "10s", "XDS_CLIENT_BACKOFF_MAX_INTERVAL": "60s",
	"XDS_CLIENT_BACKOFF_RANDOM_FACTOR": "0.5", "XDS_CLIENT_BACKOFF_JITTER": "true",
	"XDS_CLIENT_MAX_MSG_SIZE_IN_BYTES": "",
	// rlpkit's own. The keepalive is gRPC's default server enforcement's
	// least interval, 5 minutes, so that any management server accepts it.
	"RLPKIT_XDS_CLIENT_CONNECT_TIMEOUT": "20s", "RLPKIT_XDS_CLIENT_KEEPALIVE_TIME": "5m",
	"RLPKIT_XDS_CLIENT_KEEPALIVE_TIMEOUT": "20s",
}

func init() {
	for k, v := range xdsDefaults {
		implemented[k] = v
	}
}

// xds reads the xDS variables; they are checked in every mode, as the
// reference reads them whatever CONFIG_TYPE is.
func (r *envReader) xds(s *settings) {
	x := &s.xds
	x.serverURL, x.nodeID = r.str("CONFIG_GRPC_XDS_SERVER_URL"), r.str("CONFIG_GRPC_XDS_NODE_ID")
	// As the reference: entries without '=' are skipped.
	for _, kv := range strings.Split(r.str("CONFIG_GRPC_XDS_NODE_METADATA"), ",") {
		if k, v, ok := strings.Cut(kv, "="); ok {
			if x.nodeMetadata == nil {
				x.nodeMetadata = map[string]string{}
			}
			x.nodeMetadata[k] = v
		}
	}
	x.headers = r.pairs("CONFIG_GRPC_XDS_CLIENT_ADDITIONAL_HEADERS")
	x.retryInterval = r.duration("CONFIG_GRPC_XDS_SERVER_CONNECT_RETRY_INTERVAL")
	x.useTLS = r.bool("CONFIG_GRPC_XDS_SERVER_USE_TLS")
	x.tlsCert, x.tlsKey = r.str("CONFIG_GRPC_XDS_CLIENT_TLS_CERT"), r.str("CONFIG_GRPC_XDS_CLIENT_TLS_KEY")
	x.tlsCA, x.tlsSAN = r.str("CONFIG_GRPC_XDS_SERVER_TLS_CACERT"), r.str("CONFIG_GRPC_XDS_SERVER_TLS_SAN")
	if (x.tlsCert == "") != (x.tlsKey == "") {
		r.errs = append(r.errs, fmt.Errorf("CONFIG_GRPC_XDS_CLIENT_TLS_CERT and CONFIG_GRPC_XDS_CLIENT_TLS_KEY: set both or neither"))
	}
	x.backoffInitial = r.duration("XDS_CLIENT_BACKOFF_INITIAL_INTERVAL")
	x.backoffMax = r.duration("XDS_CLIENT_BACKOFF_MAX_INTERVAL")
	factor := r.str("XDS_CLIENT_BACKOFF_RANDOM_FACTOR")
	f, err := strconv.ParseFloat(factor, 64)
	if err != nil || f <= 0 {
		r.errs = append(r.errs, fmt.Errorf("XDS_CLIENT_BACKOFF_RANDOM_FACTOR=%q: want a number above 0", factor))
	}
	x.backoffFactor = f
	x.backoffJitter = r.bool("XDS_CLIENT_BACKOFF_JITTER")
	x.connectTimeout = r.duration("RLPKIT_XDS_CLIENT_CONNECT_TIMEOUT")
	x.keepaliveTime = r.duration("RLPKIT_XDS_CLIENT_KEEPALIVE_TIME")
	x.keepaliveTimeout = r.duration("RLPKIT_XDS_CLIENT_KEEPALIVE_TIMEOUT")
	if r.str("XDS_CLIENT_MAX_MSG_SIZE_IN_BYTES") != "" {
		x.maxRecvMsgBytes = r.int("XDS_CLIENT_MAX_MSG_SIZE_IN_BYTES", 0, 1<<31-1)
	}
}

// pairs reads "key:value,key:value" (the reference's map syntax), each key
// in lower case as gRPC metadata wants it; an entry without ':' is an error.
func (r *envReader) pairs(name string) []string {
	s := r.str(name)
	if s == "" {
		return nil
	}
	var out []string
	for _, kv := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(kv, ":")
		if !ok || strings.TrimSpace(k) == "" {
			r.errs = append(r.errs, fmt.Errorf("%s=%q: want key:value pairs separated by commas", name, s))
			return nil
		}
		out = append(out, strings.ToLower(strings.TrimSpace(k)), strings.TrimSpace(v))
	}
	return slices.Clip(out)
}
