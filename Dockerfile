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
# FFmpeg is GPL-built: see the README's Licences for what shipping this image means.
COPY --from=build /driftfix.deb /tmp/driftfix.deb
RUN apt-get update -qq && apt-get install -y -qq --no-install-recommends /tmp/driftfix.deb \
    && rm -rf /var/lib/apt/lists/* /tmp/driftfix.deb
USER driftfix
ENTRYPOINT ["driftfix"]
CMD ["--help"]
