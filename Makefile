# wavehooks — see README.md. Every target works on a fresh machine after .ci/run's installs.
GO       ?= go
BIN      := bin/wavehooks
PKGS     := ./...
BENCHTIME ?= 2s

.PHONY: all build test test-short test-editors test-nvim-latest demo bench lint fuzz smoke clean

all: build

build:
	$(GO) build -o $(BIN) ./cmd/wavehooks

# The whole suite: vet, formatting, the race detector over every package, the wire-contract smoke
# test against the built binary, and the editor tests (skipped with a note when no editor is installed).
test: build
	@unformatted=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	  if [ -n "$$unformatted" ]; then echo "gofmt would change: $$unformatted"; exit 1; fi
	$(GO) vet $(PKGS)
	$(GO) test -race -count=1 -timeout 20m $(PKGS)
	$(MAKE) --no-print-directory smoke
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
# without installing it (editors/nvim/test/fetch_nvim.py). Skipped only when the archive is unreachable.
NVIM_LATEST := $(CURDIR)/.cache/nvim-unstable
test-nvim-latest: build
	@rm -rf $(NVIM_LATEST); status=0; python3 editors/nvim/test/fetch_nvim.py $(NVIM_LATEST) || status=$$?; \
	  if [ $$status -eq 2 ]; then echo "SKIPPED: Neovim from Debian unstable (deb.debian.org unreachable)"; exit 0; fi; \
	  [ $$status -eq 0 ] || exit $$status; \
	  NVIM=$(NVIM_LATEST)/nvim WAVEHOOKS_BIN=$(abspath $(BIN)) editors/nvim/test/run.sh

test-short:
	$(GO) test -count=1 $(PKGS)

# The main job on defaults: a scripted agent session against the example hooks.
demo: build
	$(BIN) demo

# Every benchmark the issues ask for, each with its baseline measured in the same run; the output is
# kept in bench.txt, from which docs/performance.md is written.
bench: build
	@echo "machine: $$(nproc) cores, $$(awk '/MemTotal/ {printf "%.0f GiB", $$2/1048576}' /proc/meminfo), $$(go version)" | tee bench.txt
	$(GO) test -run '^$$' -bench . -benchmem -benchtime $(BENCHTIME) -count 1 ./hooks ./session ./lsp ./watcher | tee -a bench.txt

lint: build
	$(GO) vet $(PKGS)
	@test -z "$$(gofmt -l .)" || (gofmt -l . && exit 1)
	$(BIN) lint --project testdata/demo/project --wave-home testdata/demo/home || true

# Each fuzz target for a bounded time (the seed corpora in */testdata/fuzz also run in plain go test).
FUZZTIME ?= 20s
fuzz:
	$(GO) test -run '^$$' -fuzz '^FuzzParseFile$$' -fuzztime $(FUZZTIME) ./hooks
	$(GO) test -run '^$$' -fuzz '^FuzzInterpret$$' -fuzztime $(FUZZTIME) ./hooks
	$(GO) test -run '^$$' -fuzz '^FuzzFraming$$'   -fuzztime $(FUZZTIME) ./lsp
	$(GO) test -run '^$$' -fuzz '^FuzzParams$$'    -fuzztime $(FUZZTIME) ./lsp
	$(GO) test -run '^$$' -fuzz '^FuzzEnvelope$$'  -fuzztime $(FUZZTIME) ./lsp
	$(GO) test -run '^$$' -fuzz '^FuzzAppendCompact$$' -fuzztime $(FUZZTIME) ./internal/rawjson
	$(GO) test -run '^$$' -fuzz '^FuzzWriteIndented$$' -fuzztime $(FUZZTIME) ./cmd/wavehooks

# The contract's own smoke test (shared/ sits beside the checkout in CI); a copy in testdata otherwise.
smoke: build
	@if [ -f ../shared/contract/smoke.py ]; then python3 ../shared/contract/smoke.py $(abspath $(BIN)); \
	  else python3 testdata/contract/smoke.py $(abspath $(BIN)); fi

clean:
	rm -rf bin

# End to end: the packaged VS Code extension in code-server (VS Code 1.100.3 in the browser), driven through
# its web UI by playwright-core and Debian's chromium; see editors/vscode-e2e/README.md. Part of `test`
# (through test-editors); it says SKIPPED when chromium and the other tools it needs are not installed.
.PHONY: e2e-vscode
e2e-vscode: build
	WAVEHOOKS_BIN=$(abspath $(BIN)) sh editors/vscode-e2e/run.sh
