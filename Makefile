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

.PHONY: build run test vet lint fuzz bench examples clean release cross docker

## build: a static binary in bin/
build:
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/steerable-sidecar

## release: the six targets in dist/ (steerable-sidecar-OS-ARCH[.exe]) with SHA256SUMS
release:
	rm -rf dist && mkdir -p dist
	@set -e; for t in $(TARGETS); do \
	  os=$${t%/*}; arch=$${t#*/}; ext=; [ $$os = windows ] && ext=.exe; \
	  echo "== $$t"; \
	  GOOS=$$os GOARCH=$$arch CGO_ENABLED=0 $(GO) build -trimpath -ldflags '$(LDFLAGS)' \
	    -o dist/steerable-sidecar-$$os-$$arch$$ext ./cmd/steerable-sidecar; \
	done
	cd dist && if command -v sha256sum >/dev/null; then sha256sum steerable-sidecar-*; else shasum -a 256 steerable-sidecar-*; fi > SHA256SUMS
	@cat dist/SHA256SUMS

## docker: the container image, stamped with the version and commit from git (the context has no .git)
docker:
	docker build --build-arg VERSION=$(VERSION) --build-arg COMMIT=$(COMMIT) -t steerable-sidecar:$(VERSION) -t steerable-sidecar .

## cross: build every package for the six targets and vet darwin and windows (no unix-only call lands)
cross:
	@set -e; for t in $(TARGETS); do \
	  echo "== build $$t"; GOOS=$${t%/*} GOARCH=$${t#*/} CGO_ENABLED=0 $(GO) build ./...; \
	done
	@for os in darwin windows; do echo "== vet $$os"; GOOS=$$os CGO_ENABLED=0 $(GO) vet ./... || exit 1; done

## run: build, then serve on this terminal in the current directory (paste JSON lines)
run: build
	$(BIN) --log-format console

## test: vet, every test under the race detector (end-to-end scripts included), the host examples
test: vet
	$(GO) test -race -count=1 ./...
	$(MAKE) --no-print-directory examples

## vet: gofmt and go vet
vet:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...

## lint: vet plus a check that every variable is documented in the README
lint: vet
	$(GO) test -count=1 -run 'TestREADME' ./cmd/steerable-sidecar/

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

## examples: run the Node and Python host examples against the built binary
examples: build
	node examples/node-host/host.mjs $(BIN)
	python3 examples/python-host/host.py $(BIN)

clean:
	rm -rf bin dist
