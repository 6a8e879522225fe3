package main

import (
	"log/slog"
	"net"
)

// warnExposedDebug logs, once at start, a warning when the debug port
// listens beyond loopback (the default DEBUG_HOST, 0.0.0.0, as the
// reference's): it serves profiles and the configuration to whoever
// reaches it.
func warnExposedDebug(log *slog.Logger, addr net.Addr) {
	if a, ok := addr.(*net.TCPAddr); ok && a.IP.IsLoopback() {
		return
	}
	log.Warn("the debug port listens beyond loopback: it serves /debug/pprof/ (profiles, traces, the command line), /rlconfig (the configuration), /stats and /metrics to whoever reaches it; set DEBUG_HOST=127.0.0.1 to keep it local, or restrict the port with a network policy or firewall",
		"addr", addr.String())
}
