package main

import (
	"crypto/x509"
	"fmt"
	"os"
)

// certPool returns the certificates of the PEM file a CA setting (env, its variable) names;
// its errors name the variable, and a file holding no certificate is one.
func certPool(env, file string) (*x509.CertPool, error) {
	pem, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", env, err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("%s=%s: no PEM certificate in the file", env, file)
	}
	return pool, nil
}
