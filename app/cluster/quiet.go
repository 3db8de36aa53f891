package cluster

// quiet is a Temporal SDK logger that drops everything: the cluster's
// clients only probe, and their retries while the server starts are noise.
type quiet struct{}

func (quiet) Debug(string, ...any) {}
func (quiet) Info(string, ...any)  {}
func (quiet) Warn(string, ...any)  {}
func (quiet) Error(string, ...any) {}
