package app

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"os"

	"go.temporal.io/sdk/client"
)

// Environment variables that secure the connection to Temporal, for a
// managed service (Temporal Cloud) or a cluster with TLS:
//
//	TEMPORAL_API_KEY          an API key, sent as a bearer token (TLS on)
//	TEMPORAL_TLS_CERT/_KEY    a client certificate and its key (mTLS), PEM files
//	TEMPORAL_TLS_CA           the server's CA, PEM file (default: the system's)
//	TEMPORAL_TLS_SERVER_NAME  the name to check the server's certificate against
//
// The names are the Temporal CLI's, so one environment serves both.
const (
	EnvAPIKey        = "TEMPORAL_API_KEY"
	EnvTLSCert       = "TEMPORAL_TLS_CERT"
	EnvTLSKey        = "TEMPORAL_TLS_KEY"
	EnvTLSCA         = "TEMPORAL_TLS_CA"
	EnvTLSServerName = "TEMPORAL_TLS_SERVER_NAME"
)

// WithSecurity adds to opts what the environment says about securing the
// connection (see the variables above); without any of them it answers
// opts unchanged (plain gRPC, as the dev server speaks). A file that cannot
// be read is an error naming its variable.
func WithSecurity(opts client.Options, getenv func(string) string) (client.Options, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	cert, key, ca, name := getenv(EnvTLSCert), getenv(EnvTLSKey), getenv(EnvTLSCA), getenv(EnvTLSServerName)
	if (cert == "") != (key == "") {
		return opts, fmt.Errorf("%s and %s go together: set both (a client certificate and its key) or neither", EnvTLSCert, EnvTLSKey)
	}
	if cert != "" || ca != "" || name != "" {
		cfg := &tls.Config{ServerName: name, MinVersion: tls.VersionTLS12}
		if cert != "" {
			pair, err := tls.LoadX509KeyPair(cert, key)
			if err != nil {
				return opts, fmt.Errorf("%s/%s: cannot load the client certificate: %w", EnvTLSCert, EnvTLSKey, err)
			}
			cfg.Certificates = []tls.Certificate{pair}
		}
		if ca != "" {
			pem, err := os.ReadFile(ca)
			if err != nil {
				return opts, fmt.Errorf("%s: %w", EnvTLSCA, err)
			}
			pool := x509.NewCertPool()
			if !pool.AppendCertsFromPEM(pem) {
				return opts, fmt.Errorf("%s: %s holds no PEM certificate", EnvTLSCA, ca)
			}
			cfg.RootCAs = pool
		}
		opts.ConnectionOptions.TLS = cfg
	}
	if k := getenv(EnvAPIKey); k != "" {
		// Turns TLS on when nothing above did: API keys are for TLS
		// endpoints only.
		opts.Credentials = client.NewAPIKeyStaticCredentials(k)
	}
	return opts, nil
}
