package telemetry

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"encoding/pem"
	"flag"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	otellog "go.opentelemetry.io/otel/log"
	"go.opentelemetry.io/otel/sdk/instrumentation"
	sdklog "go.opentelemetry.io/otel/sdk/log"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
)

var update = flag.Bool("update", false, "rewrite the golden files of testdata/ from what the encoder writes")

// allKinds is an attribute of every kind the API has.
func allKinds() []attribute.KeyValue {
	return []attribute.KeyValue{
		attribute.String("string", "deny \"rm\" ✓"),
		attribute.Bool("bool", false),
		attribute.Int64("int64", math.MaxInt64),
		attribute.Int("int.negative", -42),
		attribute.Float64("float64", 0.25),
		attribute.Float64("float64.nan", math.NaN()),
		attribute.BoolSlice("bool.slice", []bool{true, false}),
		attribute.Int64Slice("int64.slice", []int64{1, -1, math.MinInt64}),
		attribute.Float64Slice("float64.slice", []float64{1.5, math.Inf(1), math.Inf(-1)}),
		attribute.StringSlice("string.slice", []string{"a", ""}),
		attribute.ByteSlice("bytes", []byte{0, 1, 0xfe, 0xff}),
		attribute.Slice("slice", attribute.StringValue("x"), attribute.Int64Value(7), attribute.MapValue(attribute.Bool("in.map", true))),
		attribute.Map("map", attribute.String("k", "v"), attribute.Slice("list", attribute.Float64Value(2))),
		{Key: "empty"},
	}
}

var (
	traceID   = trace.TraceID{0x5b, 0x8e, 0xff, 0xf7, 0x98, 0x03, 0x81, 0x03, 0xd2, 0x69, 0xb6, 0x33, 0x81, 0x3f, 0xc6, 0x0c}
	spanID    = trace.SpanID{0xee, 0xe1, 0x9b, 0x7e, 0xc3, 0xc1, 0xb1, 0x74}
	parentID  = trace.SpanID{0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x4a}
	at        = time.Date(2026, 12, 6, 23, 50, 0, 123456789, time.UTC)
	goldenRes = resource.NewWithAttributes("https://opentelemetry.io/schemas/1.26.0",
		attribute.String("service.name", "wavehooks"), attribute.String("service.version", "test"))
)

// golden compares got, as the exporter would send it, with the golden file
// name (rewritten with -update).
func golden(t *testing.T, name string, got any) {
	t.Helper()
	b, err := json.MarshalIndent(got, "", "  ")
	require.NoError(t, err)
	path := filepath.Join("testdata", name)
	if *update {
		require.NoError(t, os.WriteFile(path, append(b, '\n'), 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err)
	require.JSONEq(t, string(want), string(b))
	// What is sent is the same JSON, not indented.
	compact, err := json.Marshal(got)
	require.NoError(t, err)
	require.JSONEq(t, string(want), string(compact))
}

func TestOTLPJSONEncoding(t *testing.T) {
	for _, tc := range []struct {
		name   string
		golden string
		encode func(t *testing.T) any
	}{
		{name: "a span with every attribute kind, an event, a link and an error status",
			golden: "otlp-traces.golden.json",
			encode: func(t *testing.T) any {
				ts, err := trace.ParseTraceState("vendor=x")
				require.NoError(t, err)
				span := tracetest.SpanStub{
					Name: SpanHook,
					SpanContext: trace.NewSpanContext(trace.SpanContextConfig{TraceID: traceID, SpanID: spanID,
						TraceFlags: trace.FlagsSampled, TraceState: ts}),
					Parent:     trace.NewSpanContext(trace.SpanContextConfig{TraceID: traceID, SpanID: parentID, Remote: true}),
					SpanKind:   trace.SpanKindInternal,
					StartTime:  at,
					EndTime:    at.Add(1500 * time.Millisecond),
					Attributes: allKinds(),
					Events: []sdktrace.Event{{Name: "exit", Time: at.Add(time.Second),
						Attributes: []attribute.KeyValue{attribute.Int("code", 2)}, DroppedAttributeCount: 1}},
					Links: []sdktrace.Link{{SpanContext: trace.NewSpanContext(trace.SpanContextConfig{TraceID: traceID, SpanID: parentID}),
						Attributes: []attribute.KeyValue{attribute.String("why", "same session")}}},
					Status:               sdktrace.Status{Code: codes.Error, Description: "hook timed out"},
					DroppedAttributes:    3,
					Resource:             goldenRes,
					InstrumentationScope: instrumentation.Scope{Name: scope, Version: "test"},
				}
				plain := span
				plain.Name, plain.Parent, plain.Events, plain.Links, plain.Attributes = SpanEvent, trace.SpanContext{}, nil, nil, nil
				plain.Status, plain.DroppedAttributes = sdktrace.Status{Code: codes.Ok}, 0
				return tracesRequest(tracetest.SpanStubs{span, plain}.Snapshots())
			}},
		{name: "log records with every attribute kind, in a span and not",
			golden: "otlp-logs.golden.json",
			encode: func(t *testing.T) any {
				buf := &recordBuffer{}
				lp := sdklog.NewLoggerProvider(sdklog.WithResource(goldenRes), sdklog.WithProcessor(buf))
				t.Cleanup(func() { _ = lp.Shutdown(context.Background()) })
				l := lp.Logger(scope, otellog.WithInstrumentationVersion("test"))
				ctx := trace.ContextWithSpanContext(context.Background(),
					trace.NewSpanContext(trace.SpanContextConfig{TraceID: traceID, SpanID: spanID, TraceFlags: trace.FlagsSampled}))
				var rec otellog.Record
				rec.SetEventName(EventToolDecision)
				rec.SetTimestamp(at)
				rec.SetObservedTimestamp(at.Add(time.Millisecond))
				rec.SetSeverity(otellog.SeverityInfo)
				rec.SetSeverityText("INFO")
				rec.SetBody(attribute.StringValue(EventToolDecision))
				rec.AddAttributes(allKinds()...)
				l.Emit(ctx, rec)
				var bare otellog.Record
				bare.SetTimestamp(at)
				bare.SetObservedTimestamp(at) // else the SDK sets it to now
				bare.SetBody(attribute.MapValue(attribute.Int64("n", 1)))
				l.Emit(context.Background(), bare)
				return logsRequest(buf.take())
			}},
	} {
		t.Run(tc.name, func(t *testing.T) { golden(t, tc.golden, tc.encode(t)) })
	}
}

// collectorStub answers each request with the next status of answers (the
// last one again when they run out) and keeps what it received.
type collectorStub struct {
	mu       sync.Mutex
	answers  []int
	header   http.Header // sent with every answer
	requests []*http.Request
	bodies   [][]byte
}

func (c *collectorStub) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	c.mu.Lock()
	n := len(c.requests)
	c.requests, c.bodies = append(c.requests, r), append(c.bodies, body)
	code := c.answers[min(n, len(c.answers)-1)]
	c.mu.Unlock()
	for k, v := range c.header {
		w.Header()[k] = v
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_, _ = w.Write([]byte(`{}`))
}

func (c *collectorStub) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.requests)
}

// testEndpoint is an endpoint for url with short waits between attempts.
func testEndpoint(t *testing.T, s Signal) *otlpJSON {
	x, err := newOTLPJSON(s)
	require.NoError(t, err)
	x.backoff, x.maxBackoff = time.Millisecond, 5*time.Millisecond
	t.Cleanup(func() { _ = x.Shutdown(context.Background()) })
	return x
}

// The answers the OTLP specification says to retry are retried until one
// succeeds or the export's deadline leaves no time; every other error
// answer is final.
func TestOTLPJSONRetries(t *testing.T) {
	for _, tc := range []struct {
		name         string
		answers      []int
		retryAfter   string
		timeout      time.Duration
		wantErr      string
		wantRequests int // 0: more than one, how many the deadline allowed
	}{
		{name: "success at once", answers: []int{200}, wantRequests: 1},
		{name: "503 then success", answers: []int{503, 200}, wantRequests: 2},
		{name: "each retryable answer, then success", answers: []int{429, 502, 503, 504, 200}, wantRequests: 5},
		{name: "a Retry-After the deadline allows is waited", answers: []int{429, 200}, retryAfter: "1", wantRequests: 2},
		{name: "400 is not retried", answers: []int{400, 200}, wantErr: "400 Bad Request", wantRequests: 1},
		{name: "500 is not retried", answers: []int{500, 200}, wantErr: "500 Internal Server Error", wantRequests: 1},
		{name: "413 is not retried", answers: []int{413, 200}, wantErr: "413", wantRequests: 1},
		{name: "401 is not retried", answers: []int{401}, wantErr: "401 Unauthorized", wantRequests: 1},
		{name: "a Retry-After past the deadline ends the export at once", answers: []int{503, 200}, retryAfter: "3600",
			wantErr: "no time left for another", wantRequests: 1},
		{name: "503 for ever ends at the deadline", answers: []int{503}, timeout: 300 * time.Millisecond,
			wantErr: "503 Service Unavailable"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stub := &collectorStub{answers: tc.answers, header: http.Header{}}
			if tc.retryAfter != "" {
				stub.header.Set("Retry-After", tc.retryAfter)
			}
			srv := httptest.NewServer(stub)
			defer srv.Close()
			x := testEndpoint(t, Signal{URL: srv.URL + "/v1/logs", Timeout: tc.timeout})
			err := x.post(context.Background(), []byte(`{"resourceLogs":[]}`))
			if tc.wantErr == "" {
				require.NoError(t, err)
			} else {
				require.ErrorContains(t, err, tc.wantErr)
			}
			if tc.wantRequests == 0 {
				require.Greater(t, stub.count(), 1)
			} else {
				require.Equal(t, tc.wantRequests, stub.count())
			}
		})
	}
}

// A collector that does not answer holds an export no longer than its
// timeout: the export fails with the deadline, and its runs count as
// dropped.
func TestOTLPJSONTimeout(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	defer srv.Close()
	defer close(release)
	x := testEndpoint(t, Signal{URL: srv.URL + "/v1/traces", Timeout: 200 * time.Millisecond})
	err := x.post(context.Background(), []byte(`{}`))
	require.ErrorIs(t, err, context.DeadlineExceeded)
}

// A connection refused is retried (the specification's "cannot connect")
// until the deadline.
func TestOTLPJSONUnreachableIsRetried(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close()
	x := testEndpoint(t, Signal{URL: url + "/v1/logs", Timeout: 200 * time.Millisecond})
	err := x.post(context.Background(), []byte(`{}`))
	require.ErrorContains(t, err, "connection refused")
	require.ErrorContains(t, err, "attempt")
}

// What is sent: a POST of JSON to the signal's URL, with the configured
// headers, gzipped when asked.
func TestOTLPJSONRequest(t *testing.T) {
	for _, tc := range []struct {
		name string
		gzip bool
	}{{name: "plain"}, {name: "gzip", gzip: true}} {
		t.Run(tc.name, func(t *testing.T) {
			stub := &collectorStub{answers: []int{200}}
			srv := httptest.NewServer(stub)
			defer srv.Close()
			x := testEndpoint(t, Signal{URL: srv.URL + "/v1/logs", Headers: map[string]string{"Authorization": "Bearer t"}, Gzip: tc.gzip})
			require.NoError(t, otlpLogExporter{x}.Export(context.Background(), []sdklog.Record{{}}))
			require.Equal(t, 1, stub.count())
			r, body := stub.requests[0], stub.bodies[0]
			require.Equal(t, http.MethodPost, r.Method)
			require.Equal(t, "/v1/logs", r.URL.Path)
			require.Equal(t, "application/json", r.Header.Get("Content-Type"))
			require.Equal(t, "Bearer t", r.Header.Get("Authorization"))
			if tc.gzip {
				require.Equal(t, "gzip", r.Header.Get("Content-Encoding"))
				zr, err := gzip.NewReader(bytes.NewReader(body))
				require.NoError(t, err)
				body, err = io.ReadAll(zr)
				require.NoError(t, err)
			}
			require.JSONEq(t, `{"resourceLogs":[{"resource":{},"scopeLogs":[{"scope":{},"logRecords":[{}]}]}]}`, string(body))
		})
	}
}

func TestRetryAfter(t *testing.T) {
	now := time.Date(2026, 12, 7, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		header string
		want   time.Duration
	}{
		{"", 0}, {"3", 3 * time.Second}, {" 1 ", time.Second}, {"0", 0}, {"-5", 0}, {"soon", 0},
		{now.Add(90 * time.Second).Format(http.TimeFormat), 90 * time.Second},
		{now.Add(-time.Minute).Format(http.TimeFormat), 0},
	} {
		t.Run(tc.header, func(t *testing.T) { require.Equal(t, tc.want, retryAfter(tc.header, now)) })
	}
}

// OTEL_EXPORTER_OTLP_CERTIFICATE's file is what the collector is verified
// with: a collector whose certificate it holds is reached, one it cannot
// read is an error when the exporter is made.
func TestOTLPJSONCertificate(t *testing.T) {
	stub := &collectorStub{answers: []int{200}}
	srv := httptest.NewTLSServer(stub)
	defer srv.Close()
	ca := filepath.Join(t.TempDir(), "ca.pem")
	require.NoError(t, os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o600))
	for _, tc := range []struct {
		name       string
		signal     Signal
		wantNewErr string
		wantErr    string
	}{
		{name: "the collector's certificate is trusted", signal: Signal{URL: srv.URL + "/v1/logs", Certificate: ca}},
		{name: "without it the system's roots refuse it, and that is not retried", signal: Signal{URL: srv.URL + "/v1/logs"},
			wantErr: "certificate"},
		{name: "a certificate file that cannot be read", signal: Signal{URL: srv.URL, Certificate: ca + ".missing"},
			wantNewErr: "the collector's certificate"},
		{name: "a client certificate without its key", signal: Signal{URL: srv.URL, ClientCertificate: ca},
			wantNewErr: "needs both its certificate and its key"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			x, err := newOTLPJSON(tc.signal)
			if tc.wantNewErr != "" {
				require.ErrorContains(t, err, tc.wantNewErr)
				return
			}
			require.NoError(t, err)
			defer func() { _ = x.Shutdown(context.Background()) }()
			err = x.post(context.Background(), []byte(`{}`))
			if tc.wantErr != "" {
				require.ErrorContains(t, err, tc.wantErr)
				require.NotContains(t, err.Error(), "attempt", "a refused certificate is not retried")
				return
			}
			require.NoError(t, err)
		})
	}
}
