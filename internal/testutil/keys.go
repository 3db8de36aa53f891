package testutil

import (
	"crypto/ed25519"
	"strings"
)

// PersonKey is a private key of people.keys made from seed, the same in
// every test: seed 0 is one person's, 1 another's.
func PersonKey(seed byte) ed25519.PrivateKey {
	return ed25519.NewKeyFromSeed([]byte(strings.Repeat(string(rune('a'+seed)), ed25519.SeedSize)))
}
