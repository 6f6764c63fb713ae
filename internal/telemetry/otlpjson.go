package telemetry

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdkinstrumentation "go.opentelemetry.io/otel/sdk/instrumentation"
	sdklog "go.opentelemetry.io/otel/sdk/log"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// This file is wavehooks' own OTLP exporter: OTLP/HTTP with the JSON
// encoding (the OTLP specification's http/json), for the SDK's log records
// and spans. The official exporters send binary protobuf, and the OTLP
// protobuf packages they import bring gRPC and the protobuf runtime into
// every wavehooks process, configured or not (docs/telemetry.md, "What it
// costs"); this one needs encoding/json and net/http, which every process
// links anyway.
//
// The JSON is the proto3 JSON mapping of ExportLogsServiceRequest and
// ExportTraceServiceRequest with OTLP's deviations: trace and span ids are
// hex strings, enums are integers, keys are lowerCamelCase; 64-bit
// integers (intValue, the *TimeUnixNano fields) are decimal strings, as
// proto3 JSON writes them. Fields at their zero value are left out, as
// proto3 JSON does.

// otlpJSON is one signal's OTLP/HTTP JSON endpoint: it posts what it is
// given and retries what the specification says to retry.
type otlpJSON struct {
	url     string
	headers map[string]string
	timeout time.Duration // one export, retries included
	gzip    bool
	client  *http.Client
	// backoff is the first wait between attempts (doubling up to
	// maxBackoff, with jitter) when the answer has no Retry-After.
	backoff, maxBackoff time.Duration
}

// Retry bounds of one export: the waits between attempts (the official
// exporters' defaults scaled to the export's bound).
const (
	retryInitial = 250 * time.Millisecond
	retryMax     = time.Second
	// maxResponseBytes bounds what is read of a collector's answer (an
	// ExportServiceResponse or a Status: a line or two).
	maxResponseBytes = 64 << 10
)

// otlpLogExporter is the sdklog.Exporter of an otlpJSON endpoint.
type otlpLogExporter struct{ *otlpJSON }

// otlpSpanExporter is the sdktrace.SpanExporter of an otlpJSON endpoint.
type otlpSpanExporter struct{ *otlpJSON }

var (
	_ sdklog.Exporter       = otlpLogExporter{}
	_ sdktrace.SpanExporter = otlpSpanExporter{}
)

// Export posts the records as one ExportLogsServiceRequest.
func (x otlpLogExporter) Export(ctx context.Context, records []sdklog.Record) error {
	if len(records) == 0 {
		return nil
	}
	body, err := json.Marshal(logsRequest(records))
	if err != nil {
		return err
	}
	return x.post(ctx, body)
}

// ForceFlush has nothing to flush: Export sends before it returns.
func (x otlpLogExporter) ForceFlush(context.Context) error { return nil }

// ExportSpans posts the spans as one ExportTraceServiceRequest.
func (x otlpSpanExporter) ExportSpans(ctx context.Context, spans []sdktrace.ReadOnlySpan) error {
	if len(spans) == 0 {
		return nil
	}
	body, err := json.Marshal(tracesRequest(spans))
	if err != nil {
		return err
	}
	return x.post(ctx, body)
}

// Shutdown closes the endpoint's idle connections.
func (x *otlpJSON) Shutdown(context.Context) error {
	x.client.CloseIdleConnections()
	return nil
}

// retryableStatus are the answers the OTLP specification says to retry;
// every other 4xx and 5xx must not be.
func retryableStatus(code int) bool {
	switch code {
	case http.StatusTooManyRequests, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return true
	}
	return false
}

// post sends body within the endpoint's timeout, retrying a failed
// connection and a retryable answer with exponential backoff (or the
// answer's Retry-After) while the deadline allows another attempt.
func (x *otlpJSON) post(ctx context.Context, body []byte) error {
	ctx, cancel := context.WithTimeout(ctx, x.timeout)
	defer cancel()
	payload, encoding := body, ""
	if x.gzip {
		var err error
		if payload, err = gzipped(body); err != nil {
			return err
		}
		encoding = "gzip"
	}
	wait := x.backoff
	var last error // the previous attempt's, for when the deadline ends the next one
	for attempt := 1; ; attempt++ {
		retry, after, err := x.attempt(ctx, payload, encoding)
		if err != nil && last != nil && ctx.Err() != nil {
			return fmt.Errorf("%w (attempt %d; the one before: %v)", err, attempt, last)
		}
		if err == nil || !retry {
			return err
		}
		last = err
		if after <= 0 {
			after = wait/2 + rand.N(wait/2+1) // jitter: [wait/2, wait]
			wait = min(2*wait, x.maxBackoff)
		}
		if d, ok := ctx.Deadline(); ok && time.Until(d) < after {
			return fmt.Errorf("%w (attempt %d; no time left for another)", err, attempt)
		}
		t := time.NewTimer(after)
		select {
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("%w (attempt %d): %w", err, attempt, ctx.Err())
		case <-t.C:
		}
	}
}

// attempt posts once; it says whether a failure may be retried, and after
// how long when the collector said so (Retry-After).
func (x *otlpJSON) attempt(ctx context.Context, payload []byte, encoding string) (retry bool, after time.Duration, err error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, x.url, bytes.NewReader(payload))
	if err != nil {
		return false, 0, err
	}
	for k, v := range x.headers {
		req.Header.Set(k, v)
	}
	req.Header.Set("Content-Type", "application/json")
	if encoding != "" {
		req.Header.Set("Content-Encoding", encoding)
	}
	resp, err := x.client.Do(req)
	if err != nil {
		// Not connected, or the connection dropped without an answer:
		// the specification says to retry, unless the deadline is what
		// ended it or the collector's certificate is refused (it will be
		// again).
		var refused *tls.CertificateVerificationError
		return ctx.Err() == nil && !errors.As(err, &refused), 0, fmt.Errorf("POST %s: %w", x.url, err)
	}
	answer, _ := io.ReadAll(io.LimitReader(resp.Body, maxResponseBytes))
	_ = resp.Body.Close()
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		return false, 0, nil
	}
	err = fmt.Errorf("POST %s: %s: %s", x.url, resp.Status, strings.TrimSpace(string(answer)))
	if !retryableStatus(resp.StatusCode) {
		return false, 0, err
	}
	return true, retryAfter(resp.Header.Get("Retry-After"), time.Now()), err
}

// retryAfter reads a Retry-After header: seconds, or an HTTP date; zero
// when there is none or it cannot be read.
func retryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if s, err := strconv.Atoi(v); err == nil {
		if s <= 0 {
			return 0
		}
		return time.Duration(s) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}

// The request's JSON shapes: opentelemetry-proto's messages, with the
// fields wavehooks has (the rest stay at their zero value and are left out).

// jsonInt64 is an int64 written as proto3 JSON writes 64-bit integers: a
// decimal string.
type jsonInt64 int64

// MarshalJSON writes the integer as a JSON string.
func (v jsonInt64) MarshalJSON() ([]byte, error) {
	return strconv.AppendQuote(nil, strconv.FormatInt(int64(v), 10)), nil
}

// jsonUint64 is a fixed64 (a time in Unix nanoseconds) as a decimal
// string.
type jsonUint64 uint64

// MarshalJSON writes the integer as a JSON string.
func (v jsonUint64) MarshalJSON() ([]byte, error) {
	return strconv.AppendQuote(nil, strconv.FormatUint(uint64(v), 10)), nil
}

// jsonDouble is a double as proto3 JSON writes it: a number, or "NaN",
// "Infinity", "-Infinity", which JSON numbers cannot carry.
type jsonDouble float64

// MarshalJSON writes the double.
func (v jsonDouble) MarshalJSON() ([]byte, error) {
	f := float64(v)
	switch {
	case math.IsNaN(f):
		return []byte(`"NaN"`), nil
	case math.IsInf(f, 1):
		return []byte(`"Infinity"`), nil
	case math.IsInf(f, -1):
		return []byte(`"-Infinity"`), nil
	}
	return json.Marshal(f)
}

type anyValue struct {
	StringValue *string       `json:"stringValue,omitempty"`
	BoolValue   *bool         `json:"boolValue,omitempty"`
	IntValue    *jsonInt64    `json:"intValue,omitempty"`
	DoubleValue *jsonDouble   `json:"doubleValue,omitempty"`
	ArrayValue  *arrayValue   `json:"arrayValue,omitempty"`
	KvlistValue *keyValueList `json:"kvlistValue,omitempty"`
	BytesValue  *[]byte       `json:"bytesValue,omitempty"` // base64, as proto3 JSON writes bytes
}

type arrayValue struct {
	Values []anyValue `json:"values"`
}

type keyValueList struct {
	Values []keyValue `json:"values"`
}

type keyValue struct {
	Key   string   `json:"key"`
	Value anyValue `json:"value"`
}

type otlpResource struct {
	Attributes []keyValue `json:"attributes,omitempty"`
}

type otlpScope struct {
	Name       string     `json:"name,omitempty"`
	Version    string     `json:"version,omitempty"`
	Attributes []keyValue `json:"attributes,omitempty"`
}

type exportLogsRequest struct {
	ResourceLogs []resourceLogs `json:"resourceLogs"`
}

type resourceLogs struct {
	Resource  otlpResource `json:"resource"`
	ScopeLogs []scopeLogs  `json:"scopeLogs"`
	SchemaURL string       `json:"schemaUrl,omitempty"`
}

type scopeLogs struct {
	Scope      otlpScope   `json:"scope"`
	LogRecords []logRecord `json:"logRecords"`
	SchemaURL  string      `json:"schemaUrl,omitempty"`
}

type logRecord struct {
	TimeUnixNano           jsonUint64 `json:"timeUnixNano,omitempty"`
	ObservedTimeUnixNano   jsonUint64 `json:"observedTimeUnixNano,omitempty"`
	SeverityNumber         int        `json:"severityNumber,omitempty"`
	SeverityText           string     `json:"severityText,omitempty"`
	Body                   *anyValue  `json:"body,omitempty"`
	Attributes             []keyValue `json:"attributes,omitempty"`
	DroppedAttributesCount int        `json:"droppedAttributesCount,omitempty"`
	Flags                  uint32     `json:"flags,omitempty"`
	TraceID                string     `json:"traceId,omitempty"`
	SpanID                 string     `json:"spanId,omitempty"`
	EventName              string     `json:"eventName,omitempty"`
}

type exportTraceRequest struct {
	ResourceSpans []resourceSpans `json:"resourceSpans"`
}

type resourceSpans struct {
	Resource   otlpResource `json:"resource"`
	ScopeSpans []scopeSpans `json:"scopeSpans"`
	SchemaURL  string       `json:"schemaUrl,omitempty"`
}

type scopeSpans struct {
	Scope     otlpScope  `json:"scope"`
	Spans     []otlpSpan `json:"spans"`
	SchemaURL string     `json:"schemaUrl,omitempty"`
}

type otlpSpan struct {
	TraceID                string      `json:"traceId"`
	SpanID                 string      `json:"spanId"`
	TraceState             string      `json:"traceState,omitempty"`
	ParentSpanID           string      `json:"parentSpanId,omitempty"`
	Flags                  uint32      `json:"flags,omitempty"`
	Name                   string      `json:"name"`
	Kind                   int         `json:"kind,omitempty"`
	StartTimeUnixNano      jsonUint64  `json:"startTimeUnixNano,omitempty"`
	EndTimeUnixNano        jsonUint64  `json:"endTimeUnixNano,omitempty"`
	Attributes             []keyValue  `json:"attributes,omitempty"`
	DroppedAttributesCount int         `json:"droppedAttributesCount,omitempty"`
	Events                 []spanEvent `json:"events,omitempty"`
	DroppedEventsCount     int         `json:"droppedEventsCount,omitempty"`
	Links                  []spanLink  `json:"links,omitempty"`
	DroppedLinksCount      int         `json:"droppedLinksCount,omitempty"`
	Status                 *spanStatus `json:"status,omitempty"`
}

type spanEvent struct {
	TimeUnixNano           jsonUint64 `json:"timeUnixNano,omitempty"`
	Name                   string     `json:"name"`
	Attributes             []keyValue `json:"attributes,omitempty"`
	DroppedAttributesCount int        `json:"droppedAttributesCount,omitempty"`
}

type spanLink struct {
	TraceID                string     `json:"traceId"`
	SpanID                 string     `json:"spanId"`
	TraceState             string     `json:"traceState,omitempty"`
	Attributes             []keyValue `json:"attributes,omitempty"`
	DroppedAttributesCount int        `json:"droppedAttributesCount,omitempty"`
	Flags                  uint32     `json:"flags,omitempty"`
}

type spanStatus struct {
	Message string `json:"message,omitempty"`
	Code    int    `json:"code,omitempty"`
}

// OTLP's enum and flag values that differ from the Go API's.
const (
	statusCodeOk    = 1 // STATUS_CODE_OK (codes.Ok is 2 in Go)
	statusCodeError = 2 // STATUS_CODE_ERROR (codes.Error is 1 in Go)
	// spanFlagsHasIsRemote and spanFlagsIsRemote are SpanFlags' bits
	// saying whether the parent is known to be remote, and is.
	spanFlagsHasIsRemote = 0x100
	spanFlagsIsRemote    = 0x200
)

// unixNano is t in Unix nanoseconds, 0 (left out) for the zero time.
func unixNano(t time.Time) jsonUint64 {
	if t.IsZero() || t.UnixNano() < 0 {
		return 0
	}
	return jsonUint64(t.UnixNano())
}

func traceIDHex(id trace.TraceID) string {
	if !id.IsValid() {
		return ""
	}
	return hex.EncodeToString(id[:])
}

func spanIDHex(id trace.SpanID) string {
	if !id.IsValid() {
		return ""
	}
	return hex.EncodeToString(id[:])
}

// value is an attribute value as an OTLP AnyValue; an empty value is an
// AnyValue with nothing set.
func value(v attribute.Value) anyValue {
	switch v.Type() {
	case attribute.BOOL:
		b := v.AsBool()
		return anyValue{BoolValue: &b}
	case attribute.INT64:
		i := jsonInt64(v.AsInt64())
		return anyValue{IntValue: &i}
	case attribute.FLOAT64:
		f := jsonDouble(v.AsFloat64())
		return anyValue{DoubleValue: &f}
	case attribute.STRING:
		s := v.AsString()
		return anyValue{StringValue: &s}
	case attribute.BYTESLICE:
		b := v.AsByteSlice()
		if b == nil {
			b = []byte{}
		}
		return anyValue{BytesValue: &b}
	case attribute.BOOLSLICE:
		return array(v.AsBoolSlice(), attribute.BoolValue)
	case attribute.INT64SLICE:
		return array(v.AsInt64Slice(), attribute.Int64Value)
	case attribute.FLOAT64SLICE:
		return array(v.AsFloat64Slice(), attribute.Float64Value)
	case attribute.STRINGSLICE:
		return array(v.AsStringSlice(), attribute.StringValue)
	case attribute.SLICE:
		return array(v.AsSlice(), func(v attribute.Value) attribute.Value { return v })
	case attribute.MAP:
		return anyValue{KvlistValue: &keyValueList{Values: keyValues(v.AsMap())}}
	}
	return anyValue{}
}

// array is a slice attribute as an OTLP ArrayValue.
func array[T any](vs []T, of func(T) attribute.Value) anyValue {
	a := &arrayValue{Values: make([]anyValue, len(vs))}
	for i, x := range vs {
		a.Values[i] = value(of(x))
	}
	return anyValue{ArrayValue: a}
}

func keyValues(kvs []attribute.KeyValue) []keyValue {
	if len(kvs) == 0 {
		return nil
	}
	out := make([]keyValue, len(kvs))
	for i, kv := range kvs {
		out[i] = keyValue{Key: string(kv.Key), Value: value(kv.Value)}
	}
	return out
}

func resourceOf(r *resource.Resource) (otlpResource, string) {
	if r == nil {
		return otlpResource{}, ""
	}
	return otlpResource{Attributes: keyValues(r.Attributes())}, r.SchemaURL()
}

func scopeOf(s sdkinstrumentation.Scope) otlpScope {
	return otlpScope{Name: s.Name, Version: s.Version, Attributes: keyValues(s.Attributes.ToSlice())}
}

// groupKey tells resources and scopes apart, to group records and spans
// under them as OTLP nests them.
type groupKey struct {
	attrs     attribute.Distinct
	schemaURL string
	name      string
	version   string
}

func resourceKey(r *resource.Resource) groupKey {
	if r == nil {
		return groupKey{}
	}
	return groupKey{attrs: r.Equivalent(), schemaURL: r.SchemaURL()}
}

func scopeKey(s sdkinstrumentation.Scope) groupKey {
	return groupKey{attrs: s.Attributes.Equivalent(), schemaURL: s.SchemaURL, name: s.Name, version: s.Version}
}

// logsRequest nests the records under their resources and scopes, in the
// order they came.
func logsRequest(records []sdklog.Record) exportLogsRequest {
	var req exportLogsRequest
	resources := map[groupKey]int{}
	scopes := map[[2]groupKey]int{}
	for i := range records {
		r := &records[i]
		rk, sk := resourceKey(r.Resource()), scopeKey(r.InstrumentationScope())
		ri, ok := resources[rk]
		if !ok {
			ri = len(req.ResourceLogs)
			resources[rk] = ri
			res, schema := resourceOf(r.Resource())
			req.ResourceLogs = append(req.ResourceLogs, resourceLogs{Resource: res, SchemaURL: schema})
		}
		rl := &req.ResourceLogs[ri]
		si, ok := scopes[[2]groupKey{rk, sk}]
		if !ok {
			si = len(rl.ScopeLogs)
			scopes[[2]groupKey{rk, sk}] = si
			s := r.InstrumentationScope()
			rl.ScopeLogs = append(rl.ScopeLogs, scopeLogs{Scope: scopeOf(s), SchemaURL: s.SchemaURL})
		}
		sl := &rl.ScopeLogs[si]
		sl.LogRecords = append(sl.LogRecords, logRecordOf(r))
	}
	return req
}

func logRecordOf(r *sdklog.Record) logRecord {
	out := logRecord{
		TimeUnixNano:           unixNano(r.Timestamp()),
		ObservedTimeUnixNano:   unixNano(r.ObservedTimestamp()),
		SeverityNumber:         int(r.Severity()),
		SeverityText:           r.SeverityText(),
		DroppedAttributesCount: r.DroppedAttributes(),
		Flags:                  uint32(r.TraceFlags()),
		TraceID:                traceIDHex(r.TraceID()),
		SpanID:                 spanIDHex(r.SpanID()),
		EventName:              r.EventName(),
	}
	if b := r.Body(); b.Type() != attribute.EMPTY {
		v := value(b)
		out.Body = &v
	}
	if n := r.AttributesLen(); n > 0 {
		out.Attributes = make([]keyValue, 0, n)
		r.WalkAttributes(func(kv attribute.KeyValue) bool {
			out.Attributes = append(out.Attributes, keyValue{Key: string(kv.Key), Value: value(kv.Value)})
			return true
		})
	}
	return out
}

// tracesRequest nests the spans under their resources and scopes, in the
// order they came.
func tracesRequest(spans []sdktrace.ReadOnlySpan) exportTraceRequest {
	var req exportTraceRequest
	resources := map[groupKey]int{}
	scopes := map[[2]groupKey]int{}
	for _, s := range spans {
		rk, sk := resourceKey(s.Resource()), scopeKey(s.InstrumentationScope())
		ri, ok := resources[rk]
		if !ok {
			ri = len(req.ResourceSpans)
			resources[rk] = ri
			res, schema := resourceOf(s.Resource())
			req.ResourceSpans = append(req.ResourceSpans, resourceSpans{Resource: res, SchemaURL: schema})
		}
		rs := &req.ResourceSpans[ri]
		si, ok := scopes[[2]groupKey{rk, sk}]
		if !ok {
			si = len(rs.ScopeSpans)
			scopes[[2]groupKey{rk, sk}] = si
			sc := s.InstrumentationScope()
			rs.ScopeSpans = append(rs.ScopeSpans, scopeSpans{Scope: scopeOf(sc), SchemaURL: sc.SchemaURL})
		}
		ss := &rs.ScopeSpans[si]
		ss.Spans = append(ss.Spans, spanOf(s))
	}
	return req
}

func spanOf(s sdktrace.ReadOnlySpan) otlpSpan {
	sc, parent := s.SpanContext(), s.Parent()
	flags := uint32(sc.TraceFlags()) | spanFlagsHasIsRemote
	if parent.IsRemote() {
		flags |= spanFlagsIsRemote
	}
	out := otlpSpan{
		TraceID:                traceIDHex(sc.TraceID()),
		SpanID:                 spanIDHex(sc.SpanID()),
		TraceState:             sc.TraceState().String(),
		ParentSpanID:           spanIDHex(parent.SpanID()),
		Flags:                  flags,
		Name:                   s.Name(),
		Kind:                   int(s.SpanKind()), // the Go API's SpanKind values are OTLP's
		StartTimeUnixNano:      unixNano(s.StartTime()),
		EndTimeUnixNano:        unixNano(s.EndTime()),
		Attributes:             keyValues(s.Attributes()),
		DroppedAttributesCount: s.DroppedAttributes(),
		DroppedEventsCount:     s.DroppedEvents(),
		DroppedLinksCount:      s.DroppedLinks(),
	}
	for _, e := range s.Events() {
		out.Events = append(out.Events, spanEvent{TimeUnixNano: unixNano(e.Time), Name: e.Name,
			Attributes: keyValues(e.Attributes), DroppedAttributesCount: e.DroppedAttributeCount})
	}
	for _, l := range s.Links() {
		lf := uint32(l.SpanContext.TraceFlags()) | spanFlagsHasIsRemote
		if l.SpanContext.IsRemote() {
			lf |= spanFlagsIsRemote
		}
		out.Links = append(out.Links, spanLink{TraceID: traceIDHex(l.SpanContext.TraceID()),
			SpanID: spanIDHex(l.SpanContext.SpanID()), TraceState: l.SpanContext.TraceState().String(),
			Attributes: keyValues(l.Attributes), DroppedAttributesCount: l.DroppedAttributeCount, Flags: lf})
	}
	switch st := s.Status(); st.Code {
	case codes.Error:
		out.Status = &spanStatus{Code: statusCodeError, Message: st.Description}
	case codes.Ok:
		out.Status = &spanStatus{Code: statusCodeOk}
	}
	return out
}

// newOTLPJSON is the endpoint of s, with its own HTTP client (its TLS
// configuration read now: a certificate that cannot be read is an error,
// not a surprise at the first export).
func newOTLPJSON(s Signal) (*otlpJSON, error) {
	timeout := s.Timeout
	if timeout <= 0 {
		timeout = DefaultExportTimeout
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	if s.Certificate != "" || s.ClientCertificate != "" || s.ClientKey != "" {
		tc, err := tlsConfig(s)
		if err != nil {
			return nil, err
		}
		tr.TLSClientConfig = tc
	}
	return &otlpJSON{url: s.URL, headers: s.Headers, timeout: min(timeout, MaxExportTimeout), gzip: s.Gzip,
		client: &http.Client{Transport: tr}, backoff: retryInitial, maxBackoff: retryMax}, nil
}

// tlsConfig verifies the collector with s.Certificate's roots (the
// system's when it is "") and presents the client certificate s names.
func tlsConfig(s Signal) (*tls.Config, error) {
	tc := &tls.Config{MinVersion: tls.VersionTLS12}
	if s.Certificate != "" {
		pem, err := os.ReadFile(s.Certificate)
		if err != nil {
			return nil, fmt.Errorf("the collector's certificate: %w", err)
		}
		tc.RootCAs = x509.NewCertPool()
		if !tc.RootCAs.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("the collector's certificate: %s holds no PEM certificate", s.Certificate)
		}
	}
	if s.ClientCertificate != "" || s.ClientKey != "" {
		if s.ClientCertificate == "" || s.ClientKey == "" {
			return nil, errors.New("a client certificate needs both its certificate and its key")
		}
		cert, err := tls.LoadX509KeyPair(s.ClientCertificate, s.ClientKey)
		if err != nil {
			return nil, fmt.Errorf("the client certificate: %w", err)
		}
		tc.Certificates = []tls.Certificate{cert}
	}
	return tc, nil
}

// gzipped is b compressed, for Content-Encoding: gzip.
func gzipped(b []byte) ([]byte, error) {
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	if _, err := w.Write(b); err != nil {
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
