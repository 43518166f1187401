# driftfix: coordinator and worker image, built the way the Debian package is and installed from it, so the image
# and the package carry the same binary and the same runtime dependency list (the package's Depends).
# Build: docker build --build-arg REVISION=$(git describe --always --dirty) -t driftfix .
#   (docker compose builds it for you)
FROM swift:6.3-bookworm AS build
ARG REVISION=unknown
WORKDIR /src
COPY . .
# Only the build's system libraries (not the test tools); the .deb's path is the script's last line.
RUN DRIFTFIX_MINIMAL_DEPS=1 DRIFTFIX_REVISION=$REVISION scripts/package.sh | tail -1 | xargs -I{} cp {} /driftfix.deb

FROM debian:bookworm-slim
# apt resolves the package's Depends: glibc and the runtime libraries, never Swift (linked in statically). Debian's
# FFmpeg is GPL-built: see docs/development.md, Licences, for what shipping this image means.
COPY --from=build /driftfix.deb /tmp/driftfix.deb
# A fixed, numeric user (the package's postinst keeps an existing driftfix user): Kubernetes' runAsNonRoot can
# verify it, and the manifests and compose name it (10001).
RUN groupadd --system --gid 10001 driftfix \
    && useradd --system --uid 10001 --gid 10001 --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin driftfix
RUN apt-get update -qq && apt-get install -y -qq --no-install-recommends /tmp/driftfix.deb \
    && rm -rf /var/lib/apt/lists/* /tmp/driftfix.deb
USER 10001:10001
ENTRYPOINT ["driftfix"]
CMD ["--help"]
