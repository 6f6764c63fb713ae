# wavehooks — see README.md. Every target works on a fresh machine after .ci/run's installs.
GO       ?= go
BIN      := bin/wavehooks
# The bridge's command hook for ACP agents that run hooks as processes (codex-acp): `wavehooks acp` gives an agent
# this small program when it is next to wavehooks, else `wavehooks acp-hook` (cmd/wavehooks-hook, docs/acp.md).
HOOKBIN  := bin/wavehooks-hook
PKGS     := ./...
BENCHTIME ?= 2s
# What `wavehooks version` reports (cmd/wavehooks/version.go): the nearest tag (or 0.1.0-dev without one) and the
# commit; "-dirty" when the tree has uncommitted changes.
VERSION  ?= $(shell git describe --tags --dirty 2>/dev/null || echo 0.1.0-dev$$(git diff --quiet HEAD -- 2>/dev/null || echo -dirty))
COMMIT   ?= $(shell git rev-parse HEAD 2>/dev/null)
LDFLAGS  := -X main.version=$(VERSION) -X main.commit=$(COMMIT)

.PHONY: all build cross test-fallback test-wine test test-short test-hooks test-editors test-nvim-latest demo bench lint fuzz smoke clean conformance acp-agents

all: build

build:
	$(GO) build -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/wavehooks
	$(GO) build -ldflags '$(LDFLAGS)' -o $(HOOKBIN) ./cmd/wavehooks-hook

# The whole suite: vet, formatting, the race detector over every package (the conformance suite against
# the real Claude Code CLI among them), the wire-contract smoke test against the built binary, and the
# editor tests (skipped with a note when no editor or the CLI is installed).
test: build
	@unformatted=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	  if [ -n "$$unformatted" ]; then echo "gofmt would change: $$unformatted"; exit 1; fi
	$(GO) vet $(PKGS)
	@sh conformance/install-claude-code.sh || echo "SKIPPED: the Claude Code conformance suite (the CLI could not be installed; see above)"
	$(GO) test -race -count=1 -p 1 -timeout 30m $(PKGS)
	$(MAKE) --no-print-directory test-fallback
	$(MAKE) --no-print-directory cross
	$(MAKE) --no-print-directory test-wine
	$(MAKE) --no-print-directory smoke
	$(MAKE) --no-print-directory test-hooks
	$(MAKE) --no-print-directory test-dist
	$(MAKE) --no-print-directory test-editors

# The editor integrations, each against the real server binary: Neovim headless, and the VS Code
# extension's client library (vscode-jsonrpc) plus its bundle in a stand-in vscode module.
test-editors: build
	@if command -v nvim >/dev/null; then WAVEHOOKS_BIN=$(abspath $(BIN)) editors/nvim/test/run.sh; \
	  else echo "SKIPPED: Neovim tests (nvim is not installed; .ci/run installs it)"; fi
	@$(MAKE) --no-print-directory test-nvim-latest
	@if command -v npm >/dev/null; then cd editors/vscode && npm ci --no-audit --no-fund --loglevel=error && \
	  WAVEHOOKS_BIN=$(abspath $(BIN)) npm test; \
	  else echo "SKIPPED: VS Code extension tests (npm is not installed)"; fi
	@$(MAKE) --no-print-directory e2e-vscode

# The same Neovim test on Debian unstable's Neovim (0.11+: the vim.lsp.config path), fetched
# without installing it (editors/nvim/test/fetch_nvim.sh). Skipped only when the archive is unreachable.
NVIM_LATEST := $(CURDIR)/.cache/nvim-unstable
test-nvim-latest: build
	@rm -rf $(NVIM_LATEST); status=0; sh editors/nvim/test/fetch_nvim.sh $(NVIM_LATEST) || status=$$?; \
	  if [ $$status -eq 2 ]; then echo "SKIPPED: Neovim from Debian unstable (the archive is unreachable)"; exit 0; fi; \
	  [ $$status -eq 0 ] || exit $$status; \
	  NVIM=$(NVIM_LATEST)/nvim WAVEHOOKS_BIN=$(abspath $(BIN)) editors/nvim/test/run.sh

# The systems CI cannot run: every package, its test files included, vets and compiles for Windows and macOS
# (go vet, then go test -c per package). Windows runs (under Wine) in test-wine; macOS's file fallback runs in test-fallback.
CROSS := windows/amd64 windows/arm64 darwin/amd64 darwin/arm64
cross:
	@for t in $(CROSS); do goos=$${t%/*}; goarch=$${t#*/}; echo "  cross: $$t: go vet, go test -c"; \
	  GOOS=$$goos GOARCH=$$goarch CGO_ENABLED=0 $(GO) vet $(PKGS) || exit 1; \
	  for p in $$(GOOS=$$goos GOARCH=$$goarch $(GO) list $(PKGS)); do \
	    GOOS=$$goos GOARCH=$$goarch CGO_ENABLED=0 $(GO) test -c -o /dev/null $$p || exit 1; done; \
	done

# The Windows build under Wine (scripts/wine/run.sh): the windows/amd64 tests that are meaningful there, run with
# `go test -exec` under wine64, and the real wavehooks.exe serve driven over stdio with an exec-form hook. Says
# SKIPPED (and passes) only when wine64 or the mingw compiler is not installed; .ci/run installs both.
test-wine:
	GO=$(GO) sh scripts/wine/run.sh

# The example hooks' test cases (testdata/hooktests, docs/hooks.md "Testing your hooks"), as a user's CI runs them:
# they are this repository's content, run only in a trusted workspace (issue #35).
test-hooks: build
	$(BIN) test testdata/hooktests --trust-workspace

# The hook executor's tests on the temporary files macOS uses instead of memfds (internal/proc/memfile_other.go).
test-fallback:
	$(GO) test -race -count=1 -tags wavehooks_nomemfd ./internal/proc/... ./internal/trust/... ./hooks/...

# The Go tests without the long ones (crash loops, load, the conformance suite): for a quick check while editing.
test-short:
	$(GO) test -short -count=1 $(PKGS)

# The conformance suite alone (docs/conformance.md): the pinned Claude Code CLI, installed into
# .cache/claude-code-VERSION when missing, as the oracle for wavehooks. UPDATE=1 rewrites the results table.
# CLAUDE_CODE_VERSION=2.1.330 runs it against that release instead (its table goes to docs/conformance-2.1.330.md.tmp).
conformance:
	@sh conformance/install-claude-code.sh || echo "SKIPPED: the Claude Code conformance suite (the CLI could not be installed; see above)"
	$(GO) test -count=1 -timeout 30m -run '^TestConformance$$' ./conformance $(if $(UPDATE),-args -update)

# The real ACP agents behind the proxy (docs/acp.md, "Tested agents"), installed when missing, with every
# known gap of issue #26 they still show: `go test` prints skips only with -v.
acp-agents:
	@sh acp/testdata/gemini/install.sh || echo "SKIPPED: Gemini CLI not installed"
	@sh acp/testdata/claude-agent-acp/install.sh || echo "SKIPPED: claude-agent-acp not installed"
	@sh acp/testdata/codex-acp/install.sh || echo "SKIPPED: codex-acp not installed"
	@sh acp/testdata/opencode/install.sh || echo "SKIPPED: opencode not installed"
	@sh acp/testdata/qwen-code/install.sh || echo "SKIPPED: Qwen Code not installed"
	@mkdir -p .cache; status=0; \
	  $(GO) test -count=1 -v -run 'TestGeminiCLI|TestClaudeAgentACP|TestCodexACP|TestOpenCode|TestQwenCode' ./acp > .cache/acp-agents.log 2>&1 || status=$$?; \
	  grep -E 'KNOWN GAP|SKIPPED|^(---|ok|FAIL)|--- (FAIL|PASS)' .cache/acp-agents.log; \
	  [ $$status -eq 0 ] || echo "the whole log: .cache/acp-agents.log"; exit $$status

# The main job on defaults: a scripted agent session against the example hooks.
demo: build
	$(BIN) demo

# Every benchmark the issues ask for, each with its baseline measured in the same run; the output is
# kept in bench.txt, from which docs/performance.md is written.
# The benchmarks that build a whole scenario per iteration (session growth, the real binary driven by the
# VS Code extension's vscode-jsonrpc client: cmd/wavehooks/realclient_test.go) run once each; the real-client
# ones need `npm ci` in editors/vscode and say SKIP without it. Issue #27's rows (cmd/wavehooks/hookcost_test.go):
# BenchmarkHookedCall (hooked call / bare exec, no-hook call / no-op request, p50 and p90) and BenchmarkColdStart
# (serve to initialize's answer with 100 hooks, `run` of one hook, each / bare exec); every ratio is taken in
# the same loop as its baseline, and load1 says how loaded the machine was. The ACP proxy's rows (#26, #27 item 4):
# BenchmarkForwarding (a coding agent's turn through `wavehooks acp` / a direct pipe, p50 and p90) and
# BenchmarkACPPermission (a hooked session/request_permission / serve's wave/preToolUse with the same hook, and
# what the decision adds beyond the hook's process). Issue #39: BenchmarkRealClientOneTrueHook's roundtrip/floor
# (against the no-op round trip plus `sh -c true` fed 1 KiB with its output captured), BenchmarkBridgedPreToolUse
# (a bridged tool call over http, through wavehooks-hook and through acp-hook against the in-process decision and
# against `sh -c /bin/true`, a command hook that does nothing), and issue #38's costs:
# BenchmarkAppend (one audit record) and BenchmarkHookedCallWithExport (a hooked call with OpenTelemetry export
# against a real Collector / without; it builds the Collector from its modules the first time, ~10 min).
bench: build
	@echo "machine: $$(nproc) cores, $$(awk '/MemTotal/ {printf "%.0f GiB", $$2/1048576}' /proc/meminfo), $$(go version)" | tee bench.txt
	$(GO) test -run '^$$' -bench '^Benchmark([^S]|S[^e]|Se[^s])' -benchmem -benchtime $(BENCHTIME) -count 1 ./hooks ./session ./lsp ./watcher ./acp ./internal/host | tee -a bench.txt
	$(GO) test -run '^$$' -bench '^BenchmarkSessionGrowth$$' -benchmem -benchtime 1x -count 1 ./session | tee -a bench.txt
	$(GO) test -run '^$$' -bench '^BenchmarkSessionResumeRSS$$' -benchtime 1x -count 1 ./session | tee -a bench.txt
	@if [ -d editors/vscode/node_modules/vscode-jsonrpc ]; then :; else cd editors/vscode && npm ci --no-audit --no-fund --loglevel=error; fi
	$(GO) test -run '^$$' -bench '^BenchmarkRealClient([^O]|O[^n])' -benchtime 1x -count 1 -timeout 60m ./cmd/wavehooks | tee -a bench.txt
	$(GO) test -run '^$$' -bench '^BenchmarkRealClientOneTrueHook$$' -benchtime 1000x -count 1 ./cmd/wavehooks | tee -a bench.txt
	$(GO) test -run '^$$' -bench '^BenchmarkHookedCall$$' -benchtime 1000x -count 1 ./cmd/wavehooks | tee -a bench.txt
	$(GO) test -run '^$$' -bench '^BenchmarkColdStart$$' -benchtime 100x -count 1 ./cmd/wavehooks | tee -a bench.txt
	$(GO) test -run '^$$' -bench '^BenchmarkForwarding$$' -benchtime 200x -count 1 ./acp | tee -a bench.txt
	$(GO) test -run '^$$' -bench '^BenchmarkACPPermission$$' -benchtime 300x -count 1 ./cmd/wavehooks | tee -a bench.txt
	$(GO) test -run '^$$' -bench '^BenchmarkBridgedPreToolUse$$' -benchtime 200x -count 1 ./acp | tee -a bench.txt
	$(GO) test -run '^$$' -bench '^BenchmarkAppend$$' -benchtime 3000x -count 1 ./internal/audit | tee -a bench.txt
	$(GO) test -run '^$$' -bench '^BenchmarkHookedCallWithExport$$' -benchtime 300x -count 1 ./internal/telemetry | tee -a bench.txt
	@echo "load after the run: $$(cut -d' ' -f1-3 /proc/loadavg)" | tee -a bench.txt

lint: build
	$(GO) vet $(PKGS)
	@test -z "$$(gofmt -l .)" || (gofmt -l . && exit 1)
	$(BIN) lint --project testdata/demo/project --wave-home testdata/demo/home || true

# Each fuzz target for a bounded time (the seed corpora in */testdata/fuzz also run in plain go test).
FUZZTIME ?= 20s
fuzz:
	$(GO) test -run '^$$' -fuzz '^FuzzParseFile$$' -fuzztime $(FUZZTIME) ./internal/settings
	$(GO) test -run '^$$' -fuzz '^FuzzInterpret$$' -fuzztime $(FUZZTIME) ./hooks
	$(GO) test -run '^$$' -fuzz '^FuzzEnvFile$$' -fuzztime $(FUZZTIME) ./hooks
	$(GO) test -run '^$$' -fuzz '^FuzzTrustEncoding$$' -fuzztime $(FUZZTIME) ./internal/trust
	$(GO) test -run '^$$' -fuzz '^FuzzWorkspaceSettingsFile$$' -fuzztime $(FUZZTIME) ./internal/settings
	$(GO) test -run '^$$' -fuzz '^FuzzFraming$$'   -fuzztime $(FUZZTIME) ./lsp
	$(GO) test -run '^$$' -fuzz '^FuzzParams$$'    -fuzztime $(FUZZTIME) ./lsp
	$(GO) test -run '^$$' -fuzz '^FuzzEnvelope$$'  -fuzztime $(FUZZTIME) ./lsp
	$(GO) test -run '^$$' -fuzz '^FuzzAppendCompact$$' -fuzztime $(FUZZTIME) ./internal/rawjson
	$(GO) test -run '^$$' -fuzz '^FuzzWriteIndented$$' -fuzztime $(FUZZTIME) ./cmd/wavehooks
	$(GO) test -run '^$$' -fuzz '^FuzzResumeLine$$' -fuzztime $(FUZZTIME) -fuzzminimizetime 2s ./session
	$(GO) test -run '^$$' -fuzz '^FuzzResumeJSONLLines$$' -fuzztime $(FUZZTIME) -fuzzminimizetime 2s ./session

# The contract's own smoke test (shared/ sits beside the checkout in CI); a copy in testdata otherwise.
smoke: build
	@if [ -f ../shared/contract/smoke.py ]; then python3 ../shared/contract/smoke.py $(abspath $(BIN)); \
	  else python3 testdata/contract/smoke.py $(abspath $(BIN)); fi

clean:
	rm -rf bin dist

# Release artifacts (scripts/dist.sh): the server for linux, darwin and windows × amd64 and arm64, the VS Code
# extension for each of those platforms carrying its server, and SHA256SUMS — all in dist/ (not committed).
.PHONY: dist test-dist
dist:
	rm -rf dist
	VERSION=$(VERSION) COMMIT=$(COMMIT) GO=$(GO) sh scripts/dist.sh

# Checks the artifacts as a user would (scripts/dist_test.sh): formats, checksums, `version` on linux, the
# server inside each .vsix.
test-dist: dist
	COMMIT=$(COMMIT) sh scripts/dist_test.sh dist

# End to end: the linux-x64 package of the VS Code extension, with the server it carries and no other on PATH,
# in code-server (VS Code 1.100.3 in the browser), driven through its web UI by playwright-core and Debian's
# chromium; see editors/vscode-e2e/README.md. Part of `test` (through test-editors); it says SKIPPED when
# chromium and the other tools it needs are not installed.
.PHONY: e2e-vscode
e2e-vscode:
	VERSION=$(VERSION) COMMIT=$(COMMIT) GO=$(GO) sh editors/vscode-e2e/run.sh
