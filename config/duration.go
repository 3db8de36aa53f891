package config

import (
	"time"

	"go.yaml.in/yaml/v3"
)

// UnmarshalYAML reads a Go duration string ("10s", "24h"). A bad one is
// reported as a *yaml.TypeError so the decoder keeps going and every
// problem of the file is reported together, each with its line.
func (d *Duration) UnmarshalYAML(n *yaml.Node) error {
	const want = "want a duration such as 10s, 1m30s or 24h"
	if n.Kind != yaml.ScalarNode {
		return typeError(n, "invalid duration: got %s, %s", n.ShortTag(), want)
	}
	v, err := time.ParseDuration(n.Value)
	if err != nil {
		return typeError(n, "invalid duration %q: %s", n.Value, want)
	}
	*d = Duration(v)
	return nil
}

// MarshalYAML writes the duration as a Go duration string, so a File
// written back out reads the same.
func (d Duration) MarshalYAML() (any, error) {
	return time.Duration(d).String(), nil
}
