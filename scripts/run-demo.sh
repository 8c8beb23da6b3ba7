#!/usr/bin/env bash
# Installs what is missing, builds Marquee (release) and runs the daemon with the built-in
# demo source on 127.0.0.1:8080. Extra arguments go to `marquee serve` (e.g. --listen 127.0.0.1:9000).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
swift build -c release --product marquee
exec .build/release/marquee serve --demo "$@"
