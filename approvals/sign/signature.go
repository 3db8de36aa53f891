package sign

import (
	"crypto/ed25519"
	"encoding/base64"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Signature is a parsed signature: v1.<signer>.<unix seconds>.<base64url
// of the Ed25519 signature>.
type Signature struct {
	Signer string
	At     int64
	Sig    []byte
}

// Time is when it was signed.
func (s Signature) Time() time.Time { return time.Unix(s.At, 0).UTC() }

var signerName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_-]*$`)

// Sign signs a as signer (a person's name, or config.ConsoleSigner) at
// time at, with signer's private key.
func Sign(key ed25519.PrivateKey, a Approval, signer string, at time.Time) (string, error) {
	return signWith(key, signer, at, func(signer string, at int64) ([]byte, error) { return Message(a, signer, at) })
}

// signWith signs the message message makes for signer at time at.
func signWith(key ed25519.PrivateKey, signer string, at time.Time, message func(signer string, at int64) ([]byte, error)) (string, error) {
	if err := ValidSigner(signer); err != nil {
		return "", err
	}
	msg, err := message(signer, at.Unix())
	if err != nil {
		return "", err
	}
	sig := ed25519.Sign(key, msg)
	return strings.Join([]string{version, signer, strconv.FormatInt(at.Unix(), 10), base64.RawURLEncoding.EncodeToString(sig)}, "."), nil
}

// ValidSigner says whether signer can name a key in a signature.
func ValidSigner(signer string) error {
	if !signerName.MatchString(signer) {
		return fmt.Errorf("signer %q: use letters, digits, _ or -", signer)
	}
	return nil
}

// Parse reads a signature's parts without checking it.
func Parse(text string) (Signature, error) {
	parts := strings.Split(text, ".")
	if len(parts) != 4 || parts[0] != version {
		return Signature{}, errors.New("want v1.<signer>.<unix seconds>.<base64url signature>")
	}
	s := Signature{Signer: parts[1]}
	if !signerName.MatchString(s.Signer) {
		return Signature{}, fmt.Errorf("signer %q is not a name", s.Signer)
	}
	at, err := strconv.ParseInt(parts[2], 10, 64)
	if err != nil || at <= 0 {
		return Signature{}, fmt.Errorf("signing time %q is not unix seconds", parts[2])
	}
	s.At = at
	if s.Sig, err = base64.RawURLEncoding.DecodeString(parts[3]); err != nil || len(s.Sig) != ed25519.SignatureSize {
		return Signature{}, fmt.Errorf("the signature is not %d bytes of base64url", ed25519.SignatureSize)
	}
	return s, nil
}
