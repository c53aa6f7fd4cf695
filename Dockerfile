# Multi-stage build: compile with the Swift toolchain, run on slim Debian with only the shared
# libraries the binary needs beyond the base image (libsqlite3, libssl, libcurl, libpq). scripts/check-container
# verifies that claim against the release binary with ldd, since no Docker engine runs in CI.
FROM swift:6.1-bookworm AS build
RUN apt-get update && apt-get install -y --no-install-recommends libsqlite3-dev libssl-dev libcurl4-openssl-dev libpq-dev libmaxminddb-dev pkg-config \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /src
# The whole package: SwiftPM loads every target's folder (plugins, benchmarks, test support)
# even to build one product. .dockerignore keeps build products and databases out.
COPY . .
# The release tarball a server without Swift installs (scripts/release): the image runs the same binary.
RUN scripts/release /dist && tar -C /tmp -xzf /dist/attributiond-*.tar.gz \
    && install -m 0755 /tmp/attributiond-*/bin/attributiond /usr/local/bin/attributiond

FROM debian:bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends libsqlite3-0 libssl3 libcurl4 libpq5 libmaxminddb0 ca-certificates tzdata \
    && rm -rf /var/lib/apt/lists/* \
    && useradd --system --uid 10001 --home-dir /data attributiond \
    && mkdir -p /data /etc/attributiond && chown attributiond /data
COPY --from=build /usr/local/bin/attributiond /usr/local/bin/attributiond
COPY config/attributiond.json /etc/attributiond/attributiond.json
USER attributiond
WORKDIR /data
VOLUME /data
EXPOSE 8080
# Every setting comes from ATTRIBUTIOND_* variables (flags would override them, so CMD has none):
# `docker run -e ATTRIBUTIOND_PORT=9000 …` moves the port, and the health check follows it.
ENV ATTRIBUTIOND_CONFIG=/etc/attributiond/attributiond.json \
    ATTRIBUTIOND_DB=/data/attributiond.sqlite \
    ATTRIBUTIOND_HOST=:: \
    ATTRIBUTIOND_PORT=8080
HEALTHCHECK --interval=15s --timeout=5s --start-period=10s --retries=3 CMD ["attributiond", "healthcheck"]
ENTRYPOINT ["attributiond"]
CMD ["serve"]
