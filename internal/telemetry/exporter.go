package telemetry

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel/attribute"
	sdklog "go.opentelemetry.io/otel/sdk/log"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	otellog "go.opentelemetry.io/otel/log"
	"go.opentelemetry.io/otel/trace"

	"github.com/wavehooks/wavehooks/hooks"
)

// The exporter's bounds: how many runs one export carries, and how long
// Close waits for the queue to be sent when its caller gives no deadline
// of its own (one export's bound is the Signal's Timeout).
const (
	maxBatch = 256
	// CloseTimeout is how long a host waits at exit for the runs still
	// queued to be sent: the process ends within it whatever the collector
	// does.
	CloseTimeout = 3 * time.Second
)

// scope is the instrumentation scope of every record and span.
const scope = "github.com/wavehooks/wavehooks"

// Exporter sends runs to an OTLP endpoint off the decision path: a
// hooks.RunObserver whose ObserveRun only queues. One goroutine turns the
// queued runs into log records and spans through the OpenTelemetry SDK and
// hands them in batches to wavehooks' own OTLP/HTTP JSON exporters
// (otlpjson.go), which implement the SDK's exporter interfaces; a run that finds
// the queue full or whose batch fails to export is counted in the counter
// file (Drops).
type Exporter struct {
	queue    chan hooks.EventRun
	dropsDir string // the counter file's directory, "" counts in memory only

	// queueDrops counts runs ObserveRun found no room for, since the
	// worker last wrote them to the counter file.
	queueDrops atomic.Uint64
	closed     atomic.Bool
	dropped    atomic.Uint64 // all drops of this exporter, for tests and Close's caller

	logs    sdklog.Exporter
	traces  sdktrace.SpanExporter
	logger  otellog.Logger
	tracer  trace.Tracer
	records *recordBuffer
	spans   *spanBuffer
	lp      *sdklog.LoggerProvider
	tp      *sdktrace.TracerProvider

	stop      chan struct{}
	done      chan struct{}
	cancel    context.CancelFunc // ends an export in flight when Close runs out of time
	closeOnce sync.Once
}

// New starts an exporter for c, or returns nil when c exports nothing (no
// goroutine, no connection: a nil *Exporter is not to be observed).
// dropsDir is where drops are counted (hooks.RunLogDir of the wave home);
// version is the service.version of every record.
func New(c Config, dropsDir, version string) (*Exporter, error) {
	if !c.Enabled() {
		return nil, nil
	}
	size := c.QueueSize
	if size <= 0 {
		size = DefaultQueueSize
	}
	e := &Exporter{queue: make(chan hooks.EventRun, size), dropsDir: dropsDir,
		records: &recordBuffer{}, spans: &spanBuffer{}, stop: make(chan struct{}), done: make(chan struct{})}
	res := resource.NewWithAttributes("", attribute.String("service.name", "wavehooks"),
		attribute.String("service.version", version))
	if c.Logs.URL != "" {
		x, err := newOTLPJSON(c.Logs)
		if err != nil {
			return nil, fmt.Errorf("OTLP logs exporter: %w", err)
		}
		e.logs = otlpLogExporter{x}
		e.lp = sdklog.NewLoggerProvider(sdklog.WithResource(res), sdklog.WithProcessor(e.records))
		e.logger = e.lp.Logger(scope)
	}
	if c.Traces.URL != "" {
		x, err := newOTLPJSON(c.Traces)
		if err != nil {
			return nil, fmt.Errorf("OTLP traces exporter: %w", err)
		}
		e.traces = otlpSpanExporter{x}
		e.tp = sdktrace.NewTracerProvider(sdktrace.WithResource(res), sdktrace.WithSpanProcessor(e.spans))
		e.tracer = e.tp.Tracer(scope)
	}
	wctx, cancel := context.WithCancel(context.Background())
	e.cancel = cancel
	go e.work(wctx)
	return e, nil
}

// ObserveRun queues r for export, or counts it as dropped when the queue
// is full or the exporter closed. It never blocks.
func (e *Exporter) ObserveRun(r *hooks.EventRun) {
	if e.closed.Load() {
		e.queueDrops.Add(1)
		return
	}
	select {
	case e.queue <- *r:
	default:
		e.queueDrops.Add(1)
	}
}

// Dropped is how many runs this exporter did not export, so far.
func (e *Exporter) Dropped() uint64 { return e.dropped.Load() + e.queueDrops.Load() }

// work is the exporter's one goroutine: it takes what is queued, up to a
// batch, exports it, and writes the drops it counted; at stop it sends what
// is left until Close's deadline ends it.
func (e *Exporter) work(ctx context.Context) {
	defer close(e.done)
	batch := make([]hooks.EventRun, 0, maxBatch)
	for {
		select {
		case r := <-e.queue:
			batch = e.fill(append(batch[:0], r))
			e.export(ctx, batch)
		case <-e.stop:
			for {
				batch = e.fill(batch[:0])
				if len(batch) == 0 {
					return
				}
				if ctx.Err() != nil {
					e.count(uint64(len(batch)), "the process ended before they were sent")
					continue
				}
				e.export(ctx, batch)
			}
		}
		e.countQueueDrops()
	}
}

// fill adds what the queue holds now to batch, up to maxBatch.
func (e *Exporter) fill(batch []hooks.EventRun) []hooks.EventRun {
	for len(batch) < maxBatch {
		select {
		case r := <-e.queue:
			batch = append(batch, r)
		default:
			return batch
		}
	}
	return batch
}

// export sends one batch as log records and spans; when either signal
// fails, the batch's runs are counted as dropped once.
func (e *Exporter) export(ctx context.Context, batch []hooks.EventRun) {
	var errs []error
	if e.logs != nil {
		e.records.take()
		for i := range batch {
			emitLogs(ctx, e.logger, &batch[i])
		}
		if err := e.logs.Export(ctx, e.records.take()); err != nil {
			errs = append(errs, fmt.Errorf("logs: %w", err))
		}
	}
	if e.traces != nil {
		e.spans.take()
		for i := range batch {
			emitSpans(ctx, e.tracer, &batch[i])
		}
		if err := e.traces.ExportSpans(ctx, e.spans.take()); err != nil {
			errs = append(errs, fmt.Errorf("traces: %w", err))
		}
	}
	if err := errors.Join(errs...); err != nil {
		e.count(uint64(len(batch)), "export failed: "+clipAttr(err.Error()))
	}
	e.countQueueDrops()
}

// countQueueDrops moves the queue's drops to the counter file.
func (e *Exporter) countQueueDrops() {
	if n := e.queueDrops.Swap(0); n > 0 {
		e.count(n, "the export queue was full")
	}
}

// count adds n drops to this exporter's total and to the counter file.
func (e *Exporter) count(n uint64, why string) {
	e.dropped.Add(n)
	if e.dropsDir != "" {
		_ = addDrops(e.dropsDir, n, why) // a drop that cannot be counted on disk is still in Dropped
	}
}

// Close stops taking runs, sends the queued ones until ctx ends (a host
// passes CloseTimeout), counts what could not be sent, and shuts the
// exporters down. The goroutine has ended when it returns.
func (e *Exporter) Close(ctx context.Context) {
	e.closeOnce.Do(func() {
		e.closed.Store(true)
		close(e.stop)
		stop := context.AfterFunc(ctx, e.cancel)
		<-e.done
		stop()
		e.cancel()
		// A run queued after the worker's last look is counted, not lost.
		n := uint64(len(e.fill(nil)))
		e.count(n+e.queueDrops.Swap(0), "the process ended before they were sent")
		sctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel()
		if e.lp != nil {
			_ = e.lp.Shutdown(sctx)
			_ = e.logs.Shutdown(sctx)
		}
		if e.tp != nil {
			_ = e.tp.Shutdown(sctx)
			_ = e.traces.Shutdown(sctx)
		}
	})
}

// recordBuffer is the logger provider's processor: it keeps the records
// emitted for the batch being built, for the worker to export itself (the
// SDK's batch processor would drop without telling, on a goroutine of its
// own). Only the worker emits, so the buffer needs no lock.
type recordBuffer struct{ recs []sdklog.Record }

func (b *recordBuffer) Enabled(context.Context, sdklog.EnabledParameters) bool { return true }
func (b *recordBuffer) OnEmit(_ context.Context, r *sdklog.Record) error {
	b.recs = append(b.recs, r.Clone())
	return nil
}
func (b *recordBuffer) Shutdown(context.Context) error   { return nil }
func (b *recordBuffer) ForceFlush(context.Context) error { return nil }

// take returns the records kept and empties the buffer.
func (b *recordBuffer) take() []sdklog.Record {
	r := b.recs
	b.recs = nil
	return r
}

// spanBuffer is the tracer provider's processor, as recordBuffer is the
// logger's: it keeps the ended spans of the batch being built.
type spanBuffer struct{ spans []sdktrace.ReadOnlySpan }

func (b *spanBuffer) OnStart(context.Context, sdktrace.ReadWriteSpan) {}
func (b *spanBuffer) OnEnd(s sdktrace.ReadOnlySpan)                   { b.spans = append(b.spans, s) }
func (b *spanBuffer) Shutdown(context.Context) error                  { return nil }
func (b *spanBuffer) ForceFlush(context.Context) error                { return nil }

// take returns the spans kept and empties the buffer.
func (b *spanBuffer) take() []sdktrace.ReadOnlySpan {
	s := b.spans
	b.spans = nil
	return s
}

// Start is what a host calls once it knows its wave home: the exporter the
// configuration asks for, observing h, or nil when nothing is configured. A
// configuration that cannot be used is logged and exports nothing: the
// hooks run as they would without it. getenv is os.Getenv outside tests.
func Start(h *hooks.History, getenv func(string) string, waveHome, version string, log *slog.Logger) *Exporter {
	c, err := Load(getenv, waveHome)
	if err == nil && c.Enabled() {
		dir := ""
		if waveHome != "" {
			dir = hooks.RunLogDir(waveHome)
		}
		var x *Exporter
		if x, err = New(c, dir, version); err == nil {
			h.Observe(x)
			return x
		}
	}
	if err != nil && log != nil {
		log.Warn("telemetry is off: its configuration cannot be used", "err", err)
	}
	return nil
}

// Stop closes x within CloseTimeout; a nil x (nothing configured) is
// nothing to stop.
func Stop(x *Exporter) {
	if x == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), CloseTimeout)
	defer cancel()
	x.Close(ctx)
}
