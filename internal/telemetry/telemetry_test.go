package telemetry_test

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/wavehooks/wavehooks/hooks"
	"github.com/wavehooks/wavehooks/internal/telemetry"
)

// The exporter's goroutine ends with Close, and none starts without a
// configuration.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func envOf(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestLoad(t *testing.T) {
	for _, tc := range []struct {
		name     string
		env      map[string]string
		file     string // $WAVE_HOME/telemetry.json, "" for none
		want     telemetry.Config
		wantErr  string
		disabled bool
	}{
		{name: "nothing configured sends nothing", disabled: true},
		{name: "the base endpoint turns on logs and traces, each at its path",
			env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318"},
			want: telemetry.Config{FromEnv: true, Logs: telemetry.Signal{URL: "http://127.0.0.1:4318/v1/logs"},
				Traces: telemetry.Signal{URL: "http://127.0.0.1:4318/v1/traces"}}},
		{name: "a signal's own endpoint turns on that signal only, used as it is",
			env:  map[string]string{"OTEL_EXPORTER_OTLP_LOGS_ENDPOINT": "http://c:4318/custom/logs"},
			want: telemetry.Config{FromEnv: true, Logs: telemetry.Signal{URL: "http://c:4318/custom/logs"}}},
		{name: "the traces endpoint alone",
			env:  map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://c:4318/v1/traces"},
			want: telemetry.Config{FromEnv: true, Traces: telemetry.Signal{URL: "http://c:4318/v1/traces"}}},
		{name: "a signal's own endpoint wins over the base one for that signal",
			env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://t:4318/x"},
			want: telemetry.Config{FromEnv: true, Logs: telemetry.Signal{URL: "http://c:4318/v1/logs"},
				Traces: telemetry.Signal{URL: "http://t:4318/x"}}},
		{name: "OTEL_LOGS_EXPORTER=none leaves traces",
			env:  map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318", "OTEL_LOGS_EXPORTER": "none"},
			want: telemetry.Config{FromEnv: true, Traces: telemetry.Signal{URL: "http://c:4318/v1/traces"}}},
		{name: "OTEL_SDK_DISABLED wins", disabled: true,
			env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318", "OTEL_SDK_DISABLED": "true"}},
		{name: "http/json is spoken",
			env:  map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318", "OTEL_EXPORTER_OTLP_PROTOCOL": "http/json"},
			want: telemetry.Config{FromEnv: true, Logs: telemetry.Signal{URL: "http://c:4318/v1/logs"}, Traces: telemetry.Signal{URL: "http://c:4318/v1/traces"}}},
		{name: "http/protobuf, the default, is answered with JSON on the same endpoints",
			env:  map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318", "OTEL_EXPORTER_OTLP_LOGS_PROTOCOL": "http/protobuf"},
			want: telemetry.Config{FromEnv: true, Logs: telemetry.Signal{URL: "http://c:4318/v1/logs"}, Traces: telemetry.Signal{URL: "http://c:4318/v1/traces"}}},
		{name: "headers, timeout, compression and certificates, a signal's own winning",
			env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "https://c:4318",
				"OTEL_EXPORTER_OTLP_HEADERS":        "Authorization=Bearer%20t, x-team = platform ,broken",
				"OTEL_EXPORTER_OTLP_TRACES_HEADERS": "x-tenant=7",
				"OTEL_EXPORTER_OTLP_TIMEOUT":        "2500", "OTEL_EXPORTER_OTLP_LOGS_TIMEOUT": "800",
				"OTEL_EXPORTER_OTLP_COMPRESSION": "gzip", "OTEL_EXPORTER_OTLP_TRACES_COMPRESSION": "none",
				"OTEL_EXPORTER_OTLP_CERTIFICATE": "/ca.pem", "OTEL_EXPORTER_OTLP_LOGS_CLIENT_CERTIFICATE": "/c.pem",
				"OTEL_EXPORTER_OTLP_LOGS_CLIENT_KEY": "/k.pem"},
			want: telemetry.Config{FromEnv: true,
				Logs: telemetry.Signal{URL: "https://c:4318/v1/logs", Headers: map[string]string{"Authorization": "Bearer t", "x-team": "platform"},
					Timeout: 800 * time.Millisecond, Gzip: true, Certificate: "/ca.pem", ClientCertificate: "/c.pem", ClientKey: "/k.pem"},
				Traces: telemetry.Signal{URL: "https://c:4318/v1/traces", Headers: map[string]string{"x-tenant": "7"},
					Timeout: 2500 * time.Millisecond, Certificate: "/ca.pem"}}},
		{name: "a timeout that is not milliseconds is refused",
			env:     map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318", "OTEL_EXPORTER_OTLP_TIMEOUT": "5s"},
			wantErr: `OTEL_EXPORTER_OTLP_TIMEOUT="5s" is not a number of milliseconds`},
		{name: "a compression other than gzip is refused",
			env:     map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318", "OTEL_EXPORTER_OTLP_COMPRESSION": "zstd"},
			wantErr: `OTEL_EXPORTER_OTLP_COMPRESSION="zstd" is not supported`},
		{name: "grpc is refused with the reason",
			env:     map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4317", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"},
			wantErr: `OTEL_EXPORTER_OTLP_PROTOCOL="grpc" is not supported`},
		{name: "an endpoint variable without a scheme is refused, not sent to the SDK's default",
			env:     map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "collector:4318"},
			wantErr: `OTEL_EXPORTER_OTLP_ENDPOINT: endpoint "collector:4318" is not an http or https URL`},
		{name: "the setting file builds each signal's URL",
			file: `{"endpoint": "https://otel.example:4318/", "headers": {"Authorization": "Bearer t"}}`,
			want: telemetry.Config{
				Logs:   telemetry.Signal{URL: "https://otel.example:4318/v1/logs", Headers: map[string]string{"Authorization": "Bearer t"}},
				Traces: telemetry.Signal{URL: "https://otel.example:4318/v1/traces", Headers: map[string]string{"Authorization": "Bearer t"}}}},
		{name: "the setting file takes http/json",
			file: `{"endpoint": "http://c:4318", "protocol": "http/json"}`,
			want: telemetry.Config{Logs: telemetry.Signal{URL: "http://c:4318/v1/logs"}, Traces: telemetry.Signal{URL: "http://c:4318/v1/traces"}}},
		{name: "the setting file refuses grpc",
			file: `{"endpoint": "http://c:4317", "protocol": "grpc"}`, wantErr: `protocol="grpc" is not supported`},
		{name: "the variables win over the setting file",
			env:  map[string]string{"OTEL_EXPORTER_OTLP_LOGS_ENDPOINT": "http://env:4318/v1/logs"},
			file: `{"endpoint": "https://otel.example:4318"}`,
			want: telemetry.Config{FromEnv: true, Logs: telemetry.Signal{URL: "http://env:4318/v1/logs"}}},
		{name: "the setting file's endpoint must be http(s)",
			file: `{"endpoint": "file:///etc/passwd"}`, wantErr: "is not an http or https URL"},
		{name: "an unknown key in the setting file is an error",
			file: `{"endpiont": "http://c:4318"}`, wantErr: `unknown field "endpiont"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			if tc.file != "" {
				require.NoError(t, os.WriteFile(filepath.Join(home, telemetry.SettingsFile), []byte(tc.file), 0o600))
			}
			c, err := telemetry.Load(envOf(tc.env), home)
			if tc.wantErr != "" {
				require.ErrorContains(t, err, tc.wantErr)
				return
			}
			require.NoError(t, err)
			require.Equal(t, !tc.disabled, c.Enabled())
			if !tc.disabled {
				require.Equal(t, tc.want, c)
			}
		})
	}
}

// Without a configuration there is no exporter, and the history has no
// observer to call.
func TestNothingConfiguredStartsNothing(t *testing.T) {
	h := hooks.NewHistory(10)
	x := telemetry.Start(h, envOf(nil), t.TempDir(), "test", nil)
	require.Nil(t, x)
	telemetry.Stop(x) // a nil exporter is nothing to stop
}

// closedPort is a loopback address nothing listens on: an export to it is
// refused at once.
func closedPort(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())
	return addr
}

// With the collector unreachable, every run is dropped and counted — in
// the exporter and in the counter file `wavehooks log` reads — and ObserveRun
// returned at once for each (the queue holds one run: the rest find it full).
func TestUnreachableCollectorCountsEveryRun(t *testing.T) {
	home := t.TempDir()
	dir := hooks.RunLogDir(home)
	x, err := telemetry.New(telemetry.Config{Logs: telemetry.Signal{URL: "http://" + closedPort(t) + "/v1/logs"},
		Traces: telemetry.Signal{URL: "http://" + closedPort(t) + "/v1/traces"}, QueueSize: 1}, dir, "test")
	require.NoError(t, err)
	h := hooks.NewHistory(10)
	h.Observe(x)
	const runs = 50
	for i := 0; i < runs; i++ {
		h.Add(hooks.EventRun{SessionID: "s1", Event: "PreToolUse", MatchValue: "Bash", Time: time.Now()})
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	x.Close(ctx)
	require.Equal(t, uint64(runs), x.Dropped())
	total, last, err := telemetry.Drops(dir)
	require.NoError(t, err)
	require.Equal(t, uint64(runs), total)
	require.False(t, last.IsZero())

	// A run observed after Close is counted, not queued.
	h.Add(hooks.EventRun{SessionID: "s1", Event: "Stop", Time: time.Now()})
	require.Equal(t, uint64(runs+1), x.Dropped())
}

// The counter file is shared: two processes' lines add up, and a torn last
// line (a crash mid-append) is skipped.
func TestDropsAddUpAcrossWriters(t *testing.T) {
	dir := t.TempDir()
	content := `{"time":"2026-12-06T10:00:00Z","dropped":3,"why":"the export queue was full"}
{"time":"2026-12-06T11:00:00Z","dropped":4,"why":"export failed"}
{"time":"2026-12-06T12:00:00Z","drop`
	require.NoError(t, os.WriteFile(filepath.Join(dir, telemetry.DropsFile), []byte(content), 0o600))
	total, last, err := telemetry.Drops(dir)
	require.NoError(t, err)
	require.Equal(t, uint64(7), total)
	require.Equal(t, time.Date(2026, 12, 6, 11, 0, 0, 0, time.UTC), last.UTC())

	total, _, err = telemetry.Drops(t.TempDir())
	require.NoError(t, err)
	require.Zero(t, total)
}
