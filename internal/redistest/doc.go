// Package redistest starts a throwaway redis-server for tests: on a free
// 127.0.0.1 port, without persistence, stopped when the test ends. Tests
// can crash it (Kill), bring it back empty on the same address (Restart) and
// freeze it (Pause, Resume) to exercise failure handling. StartDurable
// keeps an append-only file synced on every write, so that a Restart after
// Kill comes back with every acknowledged write.
//
// StartCluster3 starts a real Redis Cluster, three masters with a replica
// each and a short cluster-node-timeout, so that tests can kill a master
// and watch its replica promoted; StartSentinel starts a master, a replica
// and three Sentinels for the same with Sentinel. Do sends one command to
// any of them.
//
// When redis-server is not on PATH, Start skips the test, unless the
// environment sets RLPKIT_REQUIRE_REDIS=1 (as CI does), where it fails it:
// a CI run must never pass by skipping every Redis test.
//
// It is test support only: nothing here is meant for production, and
// nothing it starts listens beyond loopback.
package redistest
