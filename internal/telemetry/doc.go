// Package telemetry sets up the worker's and the CLI's OpenTelemetry
// plumbing. It installs the Temporal SDK's tracing interceptor with an OTLP
// exporter when the standard OTEL_EXPORTER_OTLP_* variables ask for one, and
// the Prometheus endpoint that serves the SDK's metrics and the agent's own
// counters (workflows/metrics.go). Exporters come from the OpenTelemetry
// libraries; this package only wires them.
//
// Users: docs/observing.md (Metrics and tracing).
package telemetry
