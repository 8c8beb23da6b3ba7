#!/usr/bin/env bash
# Installs what is missing, builds everything and runs the whole test suite: unit tests,
# GStreamer tests on generated media, integration tests against the real daemon, and the
# dashboard's test in a headless browser.
# Set MARQUEE_TSAN=1 to run the whole suite a second time under ThreadSanitizer (CI does).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
swift build --build-tests
swift test --skip-build --disable-swift-testing
# The dashboard in headless Chromium against the daemon just built (Tests/Browser; prints
# `dashboard: N passed, M failed`). MARQUEE_SKIP_BROWSER=1 skips it and says so.
python3 Tests/Browser/dashboard_test.py --marquee .build/debug/marquee
# openapi.json against the daemon it describes: schemathesis with all its checks (Tests/Schema;
# prints `schemathesis: N operations, M failures`). MARQUEE_SKIP_SCHEMA=1 skips it and says so.
python3 Tests/Schema/schema_test.py --marquee .build/debug/marquee
if [[ "${MARQUEE_TSAN:-0}" == 1 ]]; then
  # The same suite again with ThreadSanitizer; the integration tests then drive a daemon
  # built with it too, and halt_on_error makes any race in it fail the test that saw it.
  swift build --build-tests --sanitize=thread --scratch-path .build/tsan
  TSAN_OPTIONS="halt_on_error=1" swift test --skip-build --disable-swift-testing --sanitize=thread --scratch-path .build/tsan
fi
