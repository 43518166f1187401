# driftfix: coordinator and worker image.
# Build: docker build -t driftfix .   (docker compose builds it for you)
FROM swift:6.3-bookworm AS build
RUN apt-get update -qq && apt-get install -y -qq --no-install-recommends libzmq3-dev libsndfile1-dev libsamplerate0-dev libsqlite3-dev \
        libavformat-dev libavcodec-dev libavutil-dev libsoxr-dev zlib1g-dev \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY Package.swift ./
COPY Sources ./Sources
COPY Tests ./Tests
RUN swift build -c release --static-swift-stdlib --product driftfix

FROM debian:bookworm-slim
# Only glibc and the runtime libraries: the Swift runtime is linked in statically. Debian's FFmpeg is GPL-built: see
# the README's Licences for what shipping this image means.
RUN apt-get update -qq && apt-get install -y -qq --no-install-recommends libzmq5 libsndfile1 libsamplerate0 libsqlite3-0 \
        libavformat59 libavcodec59 libavutil57 libsoxr0 zlib1g \
    && rm -rf /var/lib/apt/lists/* && useradd --system --uid 10001 driftfix
COPY --from=build /src/.build/release/driftfix /usr/local/bin/driftfix
COPY config/driftfix.yaml /etc/driftfix/driftfix.yaml
COPY LICENSE /usr/share/doc/driftfix/LICENSE
USER driftfix
ENTRYPOINT ["driftfix"]
CMD ["--help"]
