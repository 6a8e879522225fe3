package main

import (
	"crypto/tls"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"time"
)

// certReloader serves the gRPC server's certificate from
// GRPC_SERVER_TLS_CERT and GRPC_SERVER_TLS_KEY and, as the reference does,
// picks up new files: each handshake looks at the two files and, when one
// has changed (replaced, rewritten), loads the pair again. A pair that does
// not load is logged once and the last good certificate kept.
type certReloader struct {
	certFile, keyFile string
	log               *slog.Logger

	mu     sync.Mutex
	cert   *tls.Certificate
	loaded [2]fileStamp // of the pair in cert
	failed [2]fileStamp // of the last pair that did not load
}

// fileStamp is what tells a file changed.
type fileStamp struct {
	ino     uint64
	size    int64
	modTime time.Time
}

func stampOf(path string) (fileStamp, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return fileStamp{}, err
	}
	return fileStamp{ino: inode(fi), size: fi.Size(), modTime: fi.ModTime()}, nil
}

// newCertReloader loads the pair once; an error there stops the start.
func newCertReloader(certFile, keyFile string, log *slog.Logger) (*certReloader, error) {
	r := &certReloader{certFile: certFile, keyFile: keyFile, log: log}
	stamps, err := r.stamps()
	if err == nil {
		err = r.load(stamps)
	}
	if err != nil {
		return nil, fmt.Errorf("GRPC_SERVER_TLS_CERT, GRPC_SERVER_TLS_KEY: %w", err)
	}
	return r, nil
}

func (r *certReloader) stamps() ([2]fileStamp, error) {
	c, err := stampOf(r.certFile)
	if err != nil {
		return [2]fileStamp{}, err
	}
	k, err := stampOf(r.keyFile)
	return [2]fileStamp{c, k}, err
}

func (r *certReloader) load(stamps [2]fileStamp) error {
	cert, err := tls.LoadX509KeyPair(r.certFile, r.keyFile)
	if err != nil {
		return err
	}
	r.cert, r.loaded = &cert, stamps
	return nil
}

// getCertificate is tls.Config.GetCertificate.
func (r *certReloader) getCertificate(*tls.ClientHelloInfo) (*tls.Certificate, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	stamps, err := r.stamps()
	if err != nil || stamps == r.loaded || stamps == r.failed {
		return r.cert, nil
	}
	if err := r.load(stamps); err != nil {
		r.failed = stamps
		r.log.Error("the gRPC server's new certificate does not load; the previous one is kept",
			"cert", r.certFile, "key", r.keyFile, "err", err)
		return r.cert, nil
	}
	r.log.Info("the gRPC server's certificate was reloaded", "cert", r.certFile, "key", r.keyFile)
	return r.cert, nil
}
