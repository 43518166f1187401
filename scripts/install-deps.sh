#!/usr/bin/env bash
# Installs the system packages driftfix needs (Debian/Ubuntu, apt). Idempotent: quiet and fast when all are present.
set -euo pipefail

# Build and run: the C libraries (ZeroMQ, libsndfile, libsamplerate, libsoxr, SQLite, FFmpeg's
# libavformat/libavcodec/libavutil, zlib, xxHash)
# and pkg-config.
packages=(libzmq3-dev libsndfile1-dev libsamplerate0-dev libsqlite3-dev libavformat-dev libavcodec-dev libavutil-dev zlib1g-dev libsoxr-dev libxxhash-dev pkg-config)
# Tests and benchmarks: independent tools to make demo media and to compare against (sox, ffmpeg, rubberband),
# a real browser to check the HTML report renders (chromium, headless), docker-compose to validate the
# compose file (no Docker engine is needed for that), iproute2 and util-linux (ip netns, unshare) for the
# multi-host test, python3 for the test that holds an SQLite lock from another program and prometheus_client's
# text-format parser for the live-metrics test (both run as /usr/bin/python3), gdb for the stacks a
# timed-out test prints, munge and slurm-wlm for the Slurm launcher's test on a real single-node cluster
# (scripts/slurm-cluster.sh runs the daemons under a folder of its own), xxhsum to check output checksums,
# and the scripts' lint in the test run (shellcheck).
if [[ "${DRIFTFIX_MINIMAL_DEPS:-0}" != "1" ]]; then
    packages+=(sox ffmpeg rubberband-cli chromium docker-compose iproute2 util-linux python3 python3-prometheus-client gdb munge slurm-wlm xxhash shellcheck)
fi

# kubectl renders the Kubernetes manifests in their test (kubectl kustomize); apt's kubernetes-client only where no
# kubectl is installed already (a cloud SDK's is newer).
if [[ "${DRIFTFIX_MINIMAL_DEPS:-0}" != "1" ]] && ! command -v kubectl >/dev/null; then
    packages+=(kubernetes-client)
fi

missing=()
for p in "${packages[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
        missing+=("$p")
    fi
done
[[ ${#missing[@]} -eq 0 ]] && exit 0

echo "install-deps: installing ${missing[*]}" >&2
SUDO=""
if [[ $(id -u) -ne 0 ]]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq >/dev/null
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "install-deps: done" >&2
