#!/usr/bin/env bash
# Installs what is missing, builds everything and runs the whole test suite: unit tests,
# GStreamer tests on generated media, and integration tests against the real daemon.
# Set MARQUEE_TSAN=1 to run the whole suite a second time under ThreadSanitizer (CI does).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
swift build --build-tests
swift test --skip-build --disable-swift-testing
if [[ "${MARQUEE_TSAN:-0}" == 1 ]]; then
  # The same suite again with ThreadSanitizer; the integration tests then drive a daemon
  # built with it too, and halt_on_error makes any race in it fail the test that saw it.
  swift build --build-tests --sanitize=thread --scratch-path .build/tsan
  TSAN_OPTIONS="halt_on_error=1" swift test --skip-build --disable-swift-testing --sanitize=thread --scratch-path .build/tsan
fi
