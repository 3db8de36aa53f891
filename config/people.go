package config

import (
	"crypto/ed25519"
	"encoding/base64"
	"fmt"
	"slices"
	"sort"
	"strings"
)

// People are who may answer approvals (people:): groups of people by
// name, and the public keys that prove an approval came from them. A key
// proves its own name's approvals; the key named ConsoleSigner is the
// console's, trusted to sign for whoever it authenticated. Public keys
// are not secrets: a run carries those it may need (Resolved.People), so
// an approval is checked the same when its history replays.
type People struct {
	Groups map[string][]string `yaml:"groups" json:"groups,omitempty"`
	Keys   map[string]string   `yaml:"keys" json:"keys,omitempty"`
}

// ConsoleSigner is the name of the console's key in people.keys.
const ConsoleSigner = "console"

// keyPrefix starts a public key as people.keys writes it.
const keyPrefix = "ed25519:"

// PublicKey reads a key as people.keys writes it: ed25519:<base64 of the
// 32-byte public key>.
func PublicKey(text string) (ed25519.PublicKey, error) {
	b64, ok := strings.CutPrefix(text, keyPrefix)
	if !ok {
		return nil, fmt.Errorf("want %s<base64 of the 32-byte public key> (unstuck people keygen writes one)", keyPrefix)
	}
	raw, err := base64.StdEncoding.DecodeString(b64)
	if err != nil || len(raw) != ed25519.PublicKeySize {
		return nil, fmt.Errorf("want %s<base64 of the %d-byte public key>, got %d bytes", keyPrefix, ed25519.PublicKeySize, len(raw))
	}
	return ed25519.PublicKey(raw), nil
}

// KeyText writes a public key as people.keys reads it.
func KeyText(pub ed25519.PublicKey) string {
	return keyPrefix + base64.StdEncoding.EncodeToString(pub)
}

// Members are the distinct people of groups, sorted.
func (p *People) Members(groups []string) []string {
	var out []string
	for _, g := range groups {
		for _, m := range p.Groups[g] {
			if !slices.Contains(out, m) {
				out = append(out, m)
			}
		}
	}
	sort.Strings(out)
	return out
}

// Key is the public key of signer (a person, or ConsoleSigner).
func (p *People) Key(signer string) (ed25519.PublicKey, bool) {
	if p == nil {
		return nil, false
	}
	text, ok := p.Keys[signer]
	if !ok {
		return nil, false
	}
	pub, err := PublicKey(text)
	return pub, err == nil
}

// peopleFor are the people a run needs to check its approvals and
// replies: the groups its tools and its waits for a reply (human) name,
// and the keys of their members and of the console (nil: none names by).
func (f *File) peopleFor(tools []Tool, human []Approval) *People {
	if f.People == nil {
		return nil
	}
	asks := slices.Clone(human)
	for _, t := range tools {
		asks = append(asks, t.Approval)
	}
	var out *People
	for _, a := range asks {
		for _, g := range a.Groups() {
			if out == nil {
				out = &People{Groups: map[string][]string{}, Keys: map[string]string{}}
			}
			members := f.People.Groups[g]
			out.Groups[g] = slices.Clone(members)
			for _, m := range members {
				if k, ok := f.People.Keys[m]; ok {
					out.Keys[m] = k
				}
			}
		}
	}
	if k, ok := f.People.Keys[ConsoleSigner]; ok && out != nil {
		out.Keys[ConsoleSigner] = k
	}
	return out
}
