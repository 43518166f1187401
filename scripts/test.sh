#!/usr/bin/env bash
# Runs every test: installs system dependencies if missing, builds, runs the Swift Testing suites.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh
# Package.swift must declare exactly the modules each target imports.
python3 scripts/check-imports.py
swift build --build-tests
# Only Swift Testing is used, so the last summary line counts the tests that ran.
swift test --skip-build --disable-xctest "$@"
