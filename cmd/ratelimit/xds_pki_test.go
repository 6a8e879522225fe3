package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"path/filepath"
	"testing"
	"time"
)

// testPKI is a CA and one certificate it signed, for 127.0.0.1, good for
// both ends of a connection, as Envoy Gateway's certgen makes one
// certificate per component (ca.crt, tls.crt, tls.key in one Secret).
type testPKI struct {
	dir                   string
	caFile, certFile, key string
	pool                  *x509.CertPool
	pair                  tls.Certificate
}

// newPKI writes a CA and a certificate signed by it under dir; the
// certificate's subject alternative names are 127.0.0.1 and dns.
func newPKI(t *testing.T, dir, dns string) *testPKI {
	t.Helper()
	caKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	caTmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	ca, _ := x509.ParseCertificate(caDER)
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: dns},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, DNSNames: []string{dns},
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	kder, _ := x509.MarshalECPrivateKey(key)
	p := &testPKI{dir: dir, caFile: filepath.Join(dir, "ca.crt"), certFile: filepath.Join(dir, "tls.crt"), key: filepath.Join(dir, "tls.key"), pool: x509.NewCertPool()}
	certPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	keyPEM := pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder})
	writeFile(t, p.caFile, string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER})))
	writeFile(t, p.certFile, string(certPEM))
	writeFile(t, p.key, string(keyPEM))
	p.pool.AddCert(ca)
	if p.pair, err = tls.X509KeyPair(certPEM, keyPEM); err != nil {
		t.Fatal(err)
	}
	return p
}

// serverTLS is a server's TLS that requires a client certificate of the CA.
func (p *testPKI) serverTLS() *tls.Config {
	return &tls.Config{Certificates: []tls.Certificate{p.pair}, ClientCAs: p.pool, ClientAuth: tls.RequireAndVerifyClientCert, MinVersion: tls.VersionTLS12}
}

// clientTLS is a client's TLS presenting the certificate.
func (p *testPKI) clientTLS() *tls.Config {
	return &tls.Config{Certificates: []tls.Certificate{p.pair}, RootCAs: p.pool, MinVersion: tls.VersionTLS12}
}
