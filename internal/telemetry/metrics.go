package telemetry

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	otelprom "go.opentelemetry.io/otel/exporters/prometheus"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.temporal.io/sdk/client"
	temporalotel "go.temporal.io/sdk/contrib/opentelemetry"
)

// MetricsPath is where the Prometheus endpoint answers.
const MetricsPath = "/metrics"

// MetricsServer serves the worker's metrics for Prometheus: the Temporal
// SDK's and the agent's counters, both emitted through Handler.
type MetricsServer struct {
	// Handler goes into client.Options.MetricsHandler: the SDK reports
	// through it, and workflow.GetMetricsHandler hands it to workflow code.
	Handler  client.MetricsHandler
	provider *sdkmetric.MeterProvider
	server   *http.Server
	done     chan error
}

// ServeMetrics binds addr at once, so an address in use fails the start
// with a clear error rather than after the worker began polling, and then
// serves MetricsPath on it.
func ServeMetrics(addr string) (*MetricsServer, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("cannot serve metrics on %s: %w", addr, err)
	}
	// A registry of its own: only what this worker reports, nothing a
	// library registered globally.
	reg := prometheus.NewRegistry()
	exp, err := otelprom.New(otelprom.WithRegisterer(reg))
	if err != nil {
		_ = ln.Close()
		return nil, fmt.Errorf("prometheus exporter: %w", err)
	}
	provider := sdkmetric.NewMeterProvider(sdkmetric.WithReader(exp))
	mux := http.NewServeMux()
	mux.Handle(MetricsPath, promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	m := &MetricsServer{
		Handler: temporalotel.NewMetricsHandler(temporalotel.MetricsHandlerOptions{
			Meter: provider.Meter("unstuck"),
			// Counters only go up: exported as Prometheus counters
			// (name_total) that rate() works on.
			UseMonotonicCounters: true,
			// A metric that cannot be recorded is not worth a crash.
			OnError: func(error) {},
		}),
		provider: provider,
		server:   &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second},
		done:     make(chan error, 1),
	}
	go func() { m.done <- m.server.Serve(ln) }()
	return m, nil
}

// Close stops serving and the meter provider.
func (m *MetricsServer) Close(ctx context.Context) error {
	err := m.server.Shutdown(ctx)
	if serveErr := <-m.done; !errors.Is(serveErr, http.ErrServerClosed) {
		err = errors.Join(err, serveErr)
	}
	return errors.Join(err, m.provider.Shutdown(ctx))
}
