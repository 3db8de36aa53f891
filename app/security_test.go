package app

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"
)

func envOf(kv map[string]string) func(string) string {
	return func(k string) string { return kv[k] }
}

// writeCert writes a self-signed certificate and its key as PEM files.
func writeCert(t *testing.T) (certPath, keyPath string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "worker"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), IsCA: true, BasicConstraintsValid: true}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	require.NoError(t, err)
	keyDER, err := x509.MarshalECPrivateKey(key)
	require.NoError(t, err)
	dir := t.TempDir()
	certPath, keyPath = filepath.Join(dir, "client.pem"), filepath.Join(dir, "client.key")
	require.NoError(t, os.WriteFile(certPath, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600))
	require.NoError(t, os.WriteFile(keyPath, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), 0o600))
	return certPath, keyPath
}

func TestWithSecurity(t *testing.T) {
	base := client.Options{HostPort: "ns.acct.tmprl.cloud:7233", Namespace: "ns.acct"}

	plain, err := WithSecurity(base, envOf(nil))
	require.NoError(t, err)
	require.Nil(t, plain.ConnectionOptions.TLS, "the dev server speaks plain gRPC")
	require.Nil(t, plain.Credentials)

	withKey, err := WithSecurity(base, envOf(map[string]string{EnvAPIKey: "k"}))
	require.NoError(t, err)
	require.NotNil(t, withKey.Credentials)

	cert, key := writeCert(t)
	mtls, err := WithSecurity(base, envOf(map[string]string{EnvTLSCert: cert, EnvTLSKey: key, EnvTLSCA: cert, EnvTLSServerName: "ns.acct.tmprl.cloud"}))
	require.NoError(t, err)
	require.Len(t, mtls.ConnectionOptions.TLS.Certificates, 1)
	require.NotNil(t, mtls.ConnectionOptions.TLS.RootCAs)
	require.Equal(t, "ns.acct.tmprl.cloud", mtls.ConnectionOptions.TLS.ServerName)
}

func TestWithSecurityRefusals(t *testing.T) {
	cert, _ := writeCert(t)
	for _, tc := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{EnvTLSCert: cert}, "TEMPORAL_TLS_CERT and TEMPORAL_TLS_KEY go together"},
		{map[string]string{EnvTLSCert: cert, EnvTLSKey: "/nonexistent.key"}, "TEMPORAL_TLS_CERT/TEMPORAL_TLS_KEY: cannot load the client certificate"},
		{map[string]string{EnvTLSCA: "/nonexistent.pem"}, "TEMPORAL_TLS_CA: open /nonexistent.pem"},
		{map[string]string{EnvTLSCA: os.Args[0]}, "holds no PEM certificate"},
	} {
		_, err := WithSecurity(client.Options{}, envOf(tc.env))
		require.ErrorContains(t, err, tc.want)
	}
}
