// Package telemetry exports every hook run and decision as OpenTelemetry
// logs and spans over OTLP/HTTP, so that a team collects what wavehooks
// decided where it already collects logs: an OpenTelemetry Collector and
// the backend behind it (docs/telemetry.md). It is fed by hooks.History as
// a hooks.RunObserver, the one call every host (serve, the ACP proxy,
// `wavehooks run`) already makes for each run.
//
// Nothing is sent unless it is configured — by the standard
// OTEL_EXPORTER_OTLP_* variables or by $WAVE_HOME/telemetry.json — and
// without a configuration no exporter and no goroutine exist. Export never
// holds up a decision: ObserveRun only puts the run on a bounded queue, and
// a run that finds it full, or whose export fails, is counted as dropped
// in a counter file under $WAVE_HOME that `wavehooks log` and serve's
// wave/hookRuns show.
package telemetry

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/wavehooks/wavehooks/internal/safefile"
)

// SettingsFile is the name of wavehooks' own telemetry setting in
// $WAVE_HOME: the user's, never a project's, since where a decision is sent
// must not be chosen by a repository.
const SettingsFile = "telemetry.json"

// maxSettingsBytes bounds the setting file: it holds a URL or three and a
// few headers.
const maxSettingsBytes = 64 << 10

// Config is where the runs go: one Signal for the log records, one for
// the spans; a Signal without a URL is not exported.
type Config struct {
	// Logs and Traces are the two signals' endpoints.
	Logs, Traces Signal
	// FromEnv says the OTEL_EXPORTER_OTLP_* variables gave the endpoints
	// (rather than $WAVE_HOME/telemetry.json).
	FromEnv bool
	// QueueSize bounds the runs waiting for export (DefaultQueueSize).
	QueueSize int
}

// Signal is one signal's OTLP/HTTP endpoint, as the OTLP exporter
// specification's variables describe it.
type Signal struct {
	// URL is the full URL the signal is posted to (…/v1/logs,
	// …/v1/traces); "" leaves the signal unexported.
	URL string
	// Headers are sent with every export (an API key, a tenant).
	Headers map[string]string
	// Timeout bounds one export, retries included (DefaultExportTimeout
	// when zero, at most MaxExportTimeout).
	Timeout time.Duration
	// Gzip compresses what is sent (OTEL_EXPORTER_OTLP_COMPRESSION=gzip).
	Gzip bool
	// Certificate is a PEM file of the certificates the collector's is
	// verified with; ClientCertificate and ClientKey are the PEM files of
	// the client's own, for mutual TLS. "" for the system's roots and no
	// client certificate.
	Certificate, ClientCertificate, ClientKey string
}

// DefaultQueueSize is how many runs may wait for export before the next
// one is dropped (and counted): about a minute of a busy agent's events.
const DefaultQueueSize = 4096

// DefaultExportTimeout and MaxExportTimeout bound one export, retries
// included: what the configuration does not say, and the most it may say
// (OTEL_EXPORTER_OTLP_TIMEOUT). A run whose export runs out of it is
// counted as dropped.
const (
	DefaultExportTimeout = 5 * time.Second
	MaxExportTimeout     = 10 * time.Second
)

// Enabled says whether anything is exported.
func (c Config) Enabled() bool { return c.Logs.URL != "" || c.Traces.URL != "" }

// settingsFile is the shape of $WAVE_HOME/telemetry.json.
type settingsFile struct {
	Endpoint       string            `json:"endpoint"`
	LogsEndpoint   string            `json:"logsEndpoint"`
	TracesEndpoint string            `json:"tracesEndpoint"`
	Protocol       string            `json:"protocol"`
	Headers        map[string]string `json:"headers"`
	QueueSize      int               `json:"queueSize"`
}

// Load is the telemetry configuration of a process: the standard variables
// when any OTLP endpoint variable is set (getenv is os.Getenv outside
// tests), else $WAVE_HOME/telemetry.json when it exists, else nothing (a
// zero Config). OTEL_SDK_DISABLED=true, and OTEL_LOGS_EXPORTER or
// OTEL_TRACES_EXPORTER set to none, turn off what they name, as in every
// SDK. wavehooks sends OTLP/HTTP with the JSON encoding: the protocols
// http/json and http/protobuf (the specification's default, and what an
// environment shared with other OTLP senders usually says) are both
// answered with it, and grpc is an error.
func Load(getenv func(string) string, waveHome string) (Config, error) {
	if strings.EqualFold(strings.TrimSpace(getenv("OTEL_SDK_DISABLED")), "true") {
		return Config{}, nil
	}
	logsOff := strings.EqualFold(strings.TrimSpace(getenv("OTEL_LOGS_EXPORTER")), "none")
	tracesOff := strings.EqualFold(strings.TrimSpace(getenv("OTEL_TRACES_EXPORTER")), "none")
	base := getenv("OTEL_EXPORTER_OTLP_ENDPOINT")
	logs, traces := getenv("OTEL_EXPORTER_OTLP_LOGS_ENDPOINT"), getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
	if base != "" || logs != "" || traces != "" {
		// The SDK ignores a URL it cannot read and sends to localhost:4318
		// instead: a place nobody configured. Such a value turns export off.
		for _, v := range []string{"OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_LOGS_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"} {
			if u := getenv(v); u != "" {
				if _, err := signalURL(v, u, "", ""); err != nil {
					return Config{}, err
				}
			}
		}
		c := Config{FromEnv: true}
		var err error
		if !logsOff && (base != "" || logs != "") {
			if c.Logs, err = envSignal(getenv, "LOGS", "/v1/logs"); err != nil {
				return Config{}, err
			}
		}
		if !tracesOff && (base != "" || traces != "") {
			if c.Traces, err = envSignal(getenv, "TRACES", "/v1/traces"); err != nil {
				return Config{}, err
			}
		}
		return c, nil
	}
	if waveHome == "" {
		return Config{}, nil
	}
	path := filepath.Join(waveHome, SettingsFile)
	b, err := safefile.ReadFile(path, maxSettingsBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return Config{}, nil
	}
	if err != nil {
		return Config{}, fmt.Errorf("%s: %w", path, err)
	}
	var s settingsFile
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		return Config{}, fmt.Errorf("%s: %w", path, err)
	}
	if err := checkProtocol(path+": protocol", s.Protocol); err != nil {
		return Config{}, err
	}
	if s.QueueSize < 0 {
		return Config{}, fmt.Errorf("%s: queueSize must not be negative", path)
	}
	c := Config{QueueSize: s.QueueSize}
	if c.Logs.URL, err = signalURL(path, s.LogsEndpoint, s.Endpoint, "/v1/logs"); err != nil {
		return Config{}, err
	}
	if c.Traces.URL, err = signalURL(path, s.TracesEndpoint, s.Endpoint, "/v1/traces"); err != nil {
		return Config{}, err
	}
	if c.Logs.URL != "" && !logsOff {
		c.Logs.Headers = s.Headers
	} else {
		c.Logs = Signal{}
	}
	if c.Traces.URL != "" && !tracesOff {
		c.Traces.Headers = s.Headers
	} else {
		c.Traces = Signal{}
	}
	return c, nil
}

// envSignal is one signal's endpoint as the variables give it: each
// setting from the signal's own variable (OTEL_EXPORTER_OTLP_LOGS_HEADERS)
// or else the common one (OTEL_EXPORTER_OTLP_HEADERS), the URL from the
// signal's own endpoint as it is or the common one with path appended.
func envSignal(getenv func(string) string, signal, path string) (Signal, error) {
	get := func(name string) (variable, value string) {
		own := "OTEL_EXPORTER_OTLP_" + signal + "_" + name
		if v := strings.TrimSpace(getenv(own)); v != "" {
			return own, v
		}
		common := "OTEL_EXPORTER_OTLP_" + name
		return common, strings.TrimSpace(getenv(common))
	}
	var s Signal
	var err error
	if v, u := get("ENDPOINT"); strings.HasSuffix(v, "_"+signal+"_ENDPOINT") {
		s.URL, err = signalURL(v, u, "", "")
	} else {
		s.URL, err = signalURL(v, "", u, path)
	}
	if err != nil {
		return Signal{}, err
	}
	if err := checkProtocol(get("PROTOCOL")); err != nil {
		return Signal{}, err
	}
	if _, h := get("HEADERS"); h != "" {
		s.Headers = parseHeaders(h)
	}
	if v, t := get("TIMEOUT"); t != "" {
		ms, err := strconv.Atoi(t)
		if err != nil || ms < 0 {
			return Signal{}, fmt.Errorf("%s=%q is not a number of milliseconds", v, t)
		}
		s.Timeout = time.Duration(ms) * time.Millisecond
	}
	switch v, c := get("COMPRESSION"); strings.ToLower(c) {
	case "", "none":
	case "gzip":
		s.Gzip = true
	default:
		return Signal{}, fmt.Errorf("%s=%q is not supported: gzip or none", v, c)
	}
	_, s.Certificate = get("CERTIFICATE")
	_, s.ClientCertificate = get("CLIENT_CERTIFICATE")
	_, s.ClientKey = get("CLIENT_KEY")
	return s, nil
}

// parseHeaders reads the headers variable's `key=value,key2=value2`, its
// values percent-decoded as the specification says; an entry that does
// not read as one is skipped, as the SDKs do.
func parseHeaders(v string) map[string]string {
	out := map[string]string{}
	for _, kv := range strings.Split(v, ",") {
		k, val, ok := strings.Cut(kv, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" {
			continue
		}
		if d, err := url.PathUnescape(strings.TrimSpace(val)); err == nil {
			out[k] = d
		}
	}
	return out
}

// checkProtocol refuses what wavehooks cannot speak: it sends OTLP/HTTP
// with the JSON encoding, which the specification asks every OTLP/HTTP
// receiver to accept beside binary protobuf on the same port, so
// http/protobuf (the default) is answered with JSON too.
func checkProtocol(what, p string) error {
	switch strings.TrimSpace(p) {
	case "", "http/json", "http/protobuf":
		return nil
	}
	return fmt.Errorf("%s=%q is not supported: wavehooks exports OTLP over HTTP with the JSON encoding (http/json, port 4318 by convention)", what, p)
}

// signalURL is a signal's URL as the OTLP specification builds it: the
// signal's own endpoint as it is, or the base endpoint with the signal's
// path appended. Only http and https URLs with a host are taken; what
// names the variable or file the URL came from, for the error.
func signalURL(what, own, base, path string) (string, error) {
	u := own
	if u == "" {
		if base == "" {
			return "", nil
		}
		u = strings.TrimRight(base, "/") + path
	}
	p, err := url.Parse(u)
	if err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" {
		return "", fmt.Errorf("%s: endpoint %q is not an http or https URL", what, u)
	}
	return u, nil
}
