#!/usr/bin/env bash
# Installs what is missing, builds everything and runs the whole test suite: unit tests,
# GStreamer tests on generated media, and integration tests against the real daemon.
# Set MARQUEE_TSAN=1 to also run the unit and GStreamer tests under ThreadSanitizer.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
swift build --build-tests
swift test --skip-build --disable-swift-testing
if [[ "${MARQUEE_TSAN:-0}" == 1 ]]; then
  swift build --build-tests --sanitize=thread --scratch-path .build/tsan
  swift test --skip-build --disable-swift-testing --sanitize=thread --scratch-path .build/tsan \
    --filter 'ControlAPITests|PlayerCoreTests|ControlServerTests|GStreamerKitTests'
fi
