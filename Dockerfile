# syntax=docker/dockerfile:1
# A static steerable-sidecar on a minimal Debian base. The runtime image
# carries what the tools execute: bubblewrap (the bwrap sandbox backend),
# python3 (run_code), bash (the bash tool) and CA certificates (web tools).

FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=dev
RUN CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X main.version=${VERSION}" \
      -o /out/steerable-sidecar ./cmd/steerable-sidecar

FROM debian:bookworm-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends bubblewrap python3 bash ca-certificates \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --create-home --uid 10001 agent
COPY --from=build /out/steerable-sidecar /usr/local/bin/steerable-sidecar
USER agent
WORKDIR /workspace
# The host drives the sidecar over stdin/stdout: run with `docker run -i`.
ENTRYPOINT ["steerable-sidecar"]
