# steerable-sidecar — see README.md. `make run` and `make test` are the two
# commands a newcomer needs.

GO      ?= go
BIN     := bin/steerable-sidecar
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
COMMIT  ?= $(shell git rev-parse HEAD 2>/dev/null || echo unknown)
LDFLAGS := -s -w -X main.version=$(VERSION) -X main.commit=$(COMMIT)
FUZZTIME ?= 10s
# The release targets (SPEC §5): every one static (CGO_ENABLED=0) and stripped.
TARGETS := linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64

# The TypeScript client (its pinned npm dependencies, built to dist/).
CLIENT_TS := clients/typescript

.PHONY: build run test test-windows vet lint fuzz bench examples clean release cross cross-vet docker clients test-clients

## build: a static binary in bin/
build:
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/steerable-sidecar

## release: the six targets in dist/ (steerable-sidecar-OS-ARCH[.exe]) with SHA256SUMS, and the npm packages in dist/npm
release: clients
	rm -rf dist && mkdir -p dist
	@set -e; for t in $(TARGETS); do \
	  os=$${t%/*}; arch=$${t#*/}; ext=; [ $$os = windows ] && ext=.exe; \
	  echo "== $$t"; \
	  GOOS=$$os GOARCH=$$arch CGO_ENABLED=0 $(GO) build -trimpath -ldflags '$(LDFLAGS)' \
	    -o dist/steerable-sidecar-$$os-$$arch$$ext ./cmd/steerable-sidecar; \
	done
	cd dist && if command -v sha256sum >/dev/null; then sha256sum steerable-sidecar-*; else shasum -a 256 steerable-sidecar-*; fi > SHA256SUMS
	@cat dist/SHA256SUMS
	node clients/npm/build.mjs --version $(VERSION) --dist dist --pack
	cd dist/npm && npm pack --silent --ignore-scripts ../../$(CLIENT_TS)

## docker: the container image, stamped with the version and commit from git (the context has no .git)
docker:
	docker build --build-arg VERSION=$(VERSION) --build-arg COMMIT=$(COMMIT) -t steerable-sidecar:$(VERSION) -t steerable-sidecar .

## cross: build every package for the six targets and vet darwin and windows (no unix-only call lands)
cross:
	@set -e; for t in $(TARGETS); do \
	  echo "== build $$t"; GOOS=$${t%/*} GOARCH=$${t#*/} CGO_ENABLED=0 $(GO) build ./...; \
	done
	@for os in darwin windows; do echo "== vet $$os"; GOOS=$$os CGO_ENABLED=0 $(GO) vet ./... || exit 1; done

## cross-vet: CI's check of the other targets at a third of cross's cost: vet darwin and windows (which compiles
## every package for them) and linux/arm64's own files (the sandbox's seccomp filter)
cross-vet:
	@for os in darwin windows; do echo "== vet $$os"; GOOS=$$os CGO_ENABLED=0 $(GO) vet ./... || exit 1; done
	@echo "== vet linux/arm64 (internal/sandbox)"; GOOS=linux GOARCH=arm64 CGO_ENABLED=0 $(GO) vet ./internal/sandbox/...

## run: build, then serve on this terminal in the current directory (paste JSON lines)
run: build
	$(BIN) --log-format console

## test: vet, every test under the race detector (end-to-end scripts included; four scripts at a time: they mostly wait
## on their sidecars, and each wins its races by construction), the host clients' tests, the host examples
test: vet
	$(GO) test -race -count=1 -parallel 4 -timeout 25m ./...
	$(MAKE) --no-print-directory test-clients
	$(MAKE) --no-print-directory examples

## test-windows: the windows/amd64 build's end-to-end scripts (internal/winetest/testdata/windows) under Wine (Debian's wine64)
test-windows:
	STEERABLE_TEST_WINE=1 $(GO) test -count=1 -timeout 10m -run '^TestWindows$$' ./internal/winetest/

## clients: the TypeScript client's pinned dependencies (npm ci from its lock file) and its build (its types checked against protocol/schema)
clients: $(CLIENT_TS)/node_modules/.package-lock.json
	cd $(CLIENT_TS) && npm run --silent build

$(CLIENT_TS)/node_modules/.package-lock.json: $(CLIENT_TS)/package-lock.json
	cd $(CLIENT_TS) && npm ci --no-audit --no-fund --loglevel=error

## test-clients: the TypeScript and Python clients' tests and the npm packaging test, against the built binary
test-clients: build clients
	cd $(CLIENT_TS) && STEERABLE_SIDECAR_BIN=$(CURDIR)/$(BIN) npm test --silent
	cd clients/python && STEERABLE_SIDECAR_BIN=$(CURDIR)/$(BIN) python3 -m unittest
	STEERABLE_SIDECAR_BIN=$(CURDIR)/$(BIN) node --test clients/npm/test/*.test.mjs

## vet: gofmt and go vet
vet:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	CGO_ENABLED=0 GOFLAGS=-trimpath $(GO) vet ./... # as make build compiles: the two share the build cache

## lint: vet plus a check that every variable is documented (docs/configuration.md) and every docs link resolves
lint: vet
	$(GO) test -count=1 -run 'TestREADME|TestDocs' ./cmd/steerable-sidecar/

## fuzz: a short run of every fuzz target (FUZZTIME each)
fuzz:
	@set -e; for pkg in $$($(GO) list ./...); do \
	  for t in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz' || true); do \
	    echo "== $$pkg $$t"; $(GO) test -run '^$$' -fuzz "^$$t$$" -fuzztime $(FUZZTIME) $$pkg; \
	  done; \
	done

## bench: build and print the benchmark report (figures side by side with the reference commands)
bench: build
	./bench/run.sh

## examples: run the Node and Python host examples (on the clients) against the built binary
examples: build clients
	node examples/node-host/host.mjs $(BIN)
	python3 examples/python-host/host.py $(BIN)

clean:
	rm -rf bin dist $(CLIENT_TS)/dist
