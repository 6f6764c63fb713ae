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
	"strings"

	"github.com/wavehooks/wavehooks/internal/safefile"
)

// SettingsFile is the name of wavehooks' own telemetry setting in
// $WAVE_HOME: the user's, never a project's, since where a decision is sent
// must not be chosen by a repository.
const SettingsFile = "telemetry.json"

// maxSettingsBytes bounds the setting file: it holds a URL or three and a
// few headers.
const maxSettingsBytes = 64 << 10

// Config is where the runs go. An empty LogsURL or TracesURL leaves that
// signal unexported; with FromEnv set the exporters read the OTEL_*
// variables themselves (endpoint, headers, timeout, certificates), as every
// OpenTelemetry SDK does.
type Config struct {
	// LogsURL and TracesURL are the full OTLP/HTTP URLs (…/v1/logs,
	// …/v1/traces), for what the setting file names; with FromEnv they only
	// say which signals are on.
	LogsURL, TracesURL string
	// Headers are sent with every export (the setting file's; the
	// variables' are read by the exporters).
	Headers map[string]string
	// FromEnv says the OTEL_EXPORTER_OTLP_* variables configure the
	// exporters.
	FromEnv bool
	// QueueSize bounds the runs waiting for export (DefaultQueueSize).
	QueueSize int
}

// DefaultQueueSize is how many runs may wait for export before the next
// one is dropped (and counted): about a minute of a busy agent's events.
const DefaultQueueSize = 4096

// Enabled says whether anything is exported.
func (c Config) Enabled() bool { return c.LogsURL != "" || c.TracesURL != "" }

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
// SDK. A protocol other than http/protobuf is an error: the Go exporters
// wavehooks uses speak OTLP over HTTP only.
func Load(getenv func(string) string, waveHome string) (Config, error) {
	if strings.EqualFold(strings.TrimSpace(getenv("OTEL_SDK_DISABLED")), "true") {
		return Config{}, nil
	}
	logsOff := strings.EqualFold(strings.TrimSpace(getenv("OTEL_LOGS_EXPORTER")), "none")
	tracesOff := strings.EqualFold(strings.TrimSpace(getenv("OTEL_TRACES_EXPORTER")), "none")
	base := getenv("OTEL_EXPORTER_OTLP_ENDPOINT")
	logs, traces := getenv("OTEL_EXPORTER_OTLP_LOGS_ENDPOINT"), getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
	if base != "" || logs != "" || traces != "" {
		for _, v := range []string{"OTEL_EXPORTER_OTLP_PROTOCOL", "OTEL_EXPORTER_OTLP_LOGS_PROTOCOL", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"} {
			if err := checkProtocol(v, getenv(v)); err != nil {
				return Config{}, err
			}
		}
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
		if !logsOff && (base != "" || logs != "") {
			c.LogsURL = firstOf(logs, base)
		}
		if !tracesOff && (base != "" || traces != "") {
			c.TracesURL = firstOf(traces, base)
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
	c := Config{Headers: s.Headers, QueueSize: s.QueueSize}
	if c.LogsURL, err = signalURL(path, s.LogsEndpoint, s.Endpoint, "/v1/logs"); err != nil {
		return Config{}, err
	}
	if c.TracesURL, err = signalURL(path, s.TracesEndpoint, s.Endpoint, "/v1/traces"); err != nil {
		return Config{}, err
	}
	if logsOff {
		c.LogsURL = ""
	}
	if tracesOff {
		c.TracesURL = ""
	}
	return c, nil
}

// checkProtocol refuses what the HTTP exporters cannot speak.
func checkProtocol(what, p string) error {
	switch strings.TrimSpace(p) {
	case "", "http/protobuf":
		return nil
	}
	return fmt.Errorf("%s=%q is not supported: wavehooks exports OTLP over HTTP (http/protobuf, port 4318 by convention)", what, p)
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

func firstOf(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
