#!/usr/bin/env bash
# Installs the system packages driftfix needs (Debian/Ubuntu, apt). Idempotent: quiet and fast when all are present.
set -euo pipefail

# Build and run: the C libraries (ZeroMQ, libsndfile, libsamplerate, libsoxr, SQLite, FFmpeg's
# libavformat/libavcodec/libavutil, zlib, xxHash, KISS FFT for the phase vocoder)
# and pkg-config.
packages=(libzmq3-dev libsndfile1-dev libsamplerate0-dev libsqlite3-dev libavformat-dev libavcodec-dev libavutil-dev zlib1g-dev libsoxr-dev libxxhash-dev libkissfft-dev pkg-config)
# Tests and benchmarks: independent tools to make demo media and to compare against (sox, ffmpeg, rubberband),
# a real browser to check the HTML report renders (chromium, headless), docker-compose to validate the
# compose file (no Docker engine is needed for that), iproute2 and util-linux (ip netns, unshare) for the
# multi-host test, python3 for the test that holds an SQLite lock from another program and prometheus_client's
# text-format parser for the live-metrics test (both run as /usr/bin/python3), gdb for the stacks a
# timed-out test prints, munge and slurm-wlm for the Slurm launcher's test on a real single-node cluster
# (scripts/slurm-cluster.sh runs the daemons under a folder of its own), xxhsum to check output checksums,
# the scripts' lint in the test run (shellcheck), and the editors' readers of the timelines driftfix writes:
# python3-venv for OpenTimelineIO's own package and its CMX3600 and FCPXML adapters (from PyPI into
# .build-otio/, below: Debian has none), xmllint to hold the FCPXML to its DTD (libxml2-utils), stress-ng for
# scripts/loaded-tests.sh (the suites on a machine kept busy), and the readers of the chunks a recording carries
# through a repair: mediainfo (bext, iXML, cue points and labels) and wavinfo (from PyPI, below).
# jq: the report readers in scripts/readers are tried with it (and with Python) by the tests. build-essential and
# python3-dev: visqol-python's libsvm is built from its source when pip installs it (below); build-essential also
# brings binutils, whose nm test-example.sh reads the example service's symbols with. time: GNU time(1), whose
# reading of a command's peak memory and CPU seconds the benchmarks (scripts/bench.py) and their tests use.
if [[ "${DRIFTFIX_MINIMAL_DEPS:-0}" != "1" ]]; then
    packages+=(sox ffmpeg rubberband-cli chromium docker-compose iproute2 util-linux python3 python3-prometheus-client gdb munge slurm-wlm xxhash shellcheck python3-venv libxml2-utils stress-ng mediainfo jq build-essential python3-dev time)
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
if [[ ${#missing[@]} -gt 0 ]]; then
    echo "install-deps: installing ${missing[*]}" >&2
    SUDO=""
    if [[ $(id -u) -ne 0 ]]; then SUDO="sudo"; fi
    export DEBIAN_FRONTEND=noninteractive
    $SUDO apt-get update -qq >/dev/null
    $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
    echo "install-deps: done" >&2
fi

# The timelines' readers, wavinfo (a reader of every WAVE metadata chunk: bext, iXML, cues, labels, smpl) and
# opentelemetry-proto (the trace receiver's decoder, scripts/otlp-receiver.py), pinned, in a venv of the checkout's
# own (Debian's Python is externally managed): the tests and the demo read every timeline driftfix writes with them
# (scripts/check-timeline.py), the chunks of its outputs, and the spans it exports.
if [[ "${DRIFTFIX_MINIMAL_DEPS:-0}" != "1" ]]; then
    venv="${DRIFTFIX_OTIO_VENV:-$(cd "$(dirname "$0")/.." && pwd)/.build-otio}"
    # and the stretch's judges: ViSQOL (a port of Google's ViSQOL v3) and PESQ, with the numpy, scipy and soundfile
    # they and scripts/stretch-quality.py use (numba makes ViSQOL seven times faster), and matplotlib for the
    # figures scripts/stretch-plots.py draws.
    readers=(opentimelineio==0.18.1 otio-cmx3600-adapter==1.0.0 otio-fcpx-xml-adapter==1.0.0 wavinfo==4.0.1
        opentelemetry-proto==1.45.2 visqol-python==3.8.0 pesq==0.0.4 soundfile==0.14.0 numpy==2.4.6 scipy==1.17.1 numba==0.68.1 matplotlib==3.11.2)
    if ! "$venv/bin/python" -c 'import opentimelineio, otio_cmx3600_adapter, otio_fcpx_xml_adapter, wavinfo
import opentelemetry.proto.collector.trace.v1.trace_service_pb2
import visqol, pesq, soundfile, numpy, scipy, numba, matplotlib' 2>/dev/null; then
        echo "install-deps: installing ${readers[*]} into $venv" >&2
        /usr/bin/python3 -m venv "$venv"
        "$venv/bin/pip" install -q --disable-pip-version-check "${readers[@]}"
    fi
fi
