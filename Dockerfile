# syntax=docker/dockerfile:1
# A static steerable-sidecar on a minimal Debian base. The runtime image
# carries what the tools execute: bubblewrap (the bwrap sandbox backend),
# python3 (run_code), bash (the bash tool) and CA certificates (web tools).
#
#   make docker    (docker build with VERSION and COMMIT taken from git)
#   docker run -i --rm --init --user "$(id -u):$(id -g)" -v "$PWD:/workspace" \
#     -v steerable-state:/home/agent/.local/state steerable-sidecar
#
# --user: the mounted folder keeps its host owner, so the sidecar must run
# as that user to write it. Inside Docker's default seccomp profile
# bubblewrap cannot create its namespaces; STEERABLE_SANDBOX=auto then
# selects Landlock (README, "In a container").

# The Go toolchain is pinned to the exact release go.mod names, so a rebuild
# months later compiles with the same compiler.
FROM golang:1.26.8-bookworm AS build
WORKDIR /src
# go.mod replaces a module with ./third_party: it must be there before the
# download (dockerfile_test.go checks that this stage downloads).
COPY go.mod go.sum ./
COPY third_party ./third_party
RUN go mod download
COPY . .
# The build context has no .git (.dockerignore): `make docker` passes what
# make release stamps (git describe and the commit) as these arguments.
ARG VERSION=dev
ARG COMMIT=unknown
RUN CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X main.version=${VERSION} -X main.commit=${COMMIT}" \
      -o /out/steerable-sidecar ./cmd/steerable-sidecar

FROM debian:bookworm-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends bubblewrap python3 bash ca-certificates \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --create-home --uid 10001 agent \
 && mkdir -p /workspace /home/agent/.local/state \
 && chmod 1777 /home/agent /home/agent/.local /home/agent/.local/state /workspace
COPY --from=build /out/steerable-sidecar /usr/local/bin/steerable-sidecar
USER agent
# Any --user can keep its state here (HOME is / for a uid without a passwd
# entry). A named volume mounted on /home/agent/.local/state takes this
# directory's mode when first created, so any --user can write it.
ENV HOME=/home/agent
WORKDIR /workspace
# The host drives the sidecar over stdin/stdout: run with `docker run -i`.
ENTRYPOINT ["steerable-sidecar"]
