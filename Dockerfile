# Multi-stage build: compile with the Swift toolchain, run on slim Debian with only the shared
# libraries the binary links (libsqlite3, libssl). Completed with health checks and config in the
# operations work; this stage set already builds and runs the server.
FROM swift:6.1-bookworm AS build
RUN apt-get update && apt-get install -y --no-install-recommends libsqlite3-dev libssl-dev pkg-config \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /src
# The whole package: SwiftPM loads every target's folder (plugins, benchmarks, test support)
# even to build one product. .dockerignore keeps build products and databases out.
COPY . .
RUN swift build -c release --static-swift-stdlib --product attributiond \
    && cp "$(swift build -c release --show-bin-path)/attributiond" /usr/local/bin/attributiond

FROM debian:bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends libsqlite3-0 libssl3 ca-certificates tzdata \
    && rm -rf /var/lib/apt/lists/* \
    && useradd --system --uid 10001 --home-dir /data attributiond \
    && mkdir -p /data && chown attributiond /data
COPY --from=build /usr/local/bin/attributiond /usr/local/bin/attributiond
USER attributiond
WORKDIR /data
VOLUME /data
EXPOSE 8080
ENTRYPOINT ["attributiond"]
CMD ["serve", "--host", "::", "--port", "8080"]
