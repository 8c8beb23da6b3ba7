#!/usr/bin/env bash
# Installs what Marquee needs on Debian 12, skipping what is present. Used by the README's two
# commands, .ci/run and the Dockerfile, so they cannot drift apart.
#   scripts/setup.sh            build, run and test, the browser test too (the default)
#   scripts/setup.sh --runtime  only what the built daemon needs to run (the Docker image)
#   scripts/setup.sh --bench    also the peers the benchmarks compare against (mpv, gst-play)
#   scripts/setup.sh --completion MARQUEE
#                               installs the bash completion of the built MARQUEE binary
#                               (e.g. .build/debug/marquee) as
#                               $BASH_COMPLETION_DIR/marquee (default /usr/share/bash-completion/completions)
set -euo pipefail

if [[ "${1:-}" == "--completion" ]]; then
  marquee="${2:?usage: scripts/setup.sh --completion PATH/TO/marquee}"
  dir="${BASH_COMPLETION_DIR:-/usr/share/bash-completion/completions}"
  script="$("$marquee" completion bash)"
  sudo_cmd=()
  [[ $(id -u) -ne 0 && ! -w "$(dirname "$dir")" ]] && sudo_cmd=(sudo)
  "${sudo_cmd[@]}" mkdir -p "$dir"
  printf '%s\n' "$script" | "${sudo_cmd[@]}" tee "$dir/marquee" >/dev/null
  echo "setup: bash completion installed as $dir/marquee" >&2
  exit 0
fi

runtime=(
  gstreamer1.0-plugins-base gstreamer1.0-plugins-good gstreamer1.0-plugins-bad
  gstreamer1.0-plugins-ugly gstreamer1.0-libav gstreamer1.0-alsa gstreamer1.0-x
  libsoup-3.0-0 libsqlite3-0 libssl3 libjs-katex
)
build=(
  pkg-config gstreamer1.0-tools
  libgstreamer1.0-dev libgstreamer-plugins-base1.0-dev libsoup-3.0-dev libsqlite3-dev libssl-dev
  openssl
)
# The dashboard's browser test (Tests/Browser): Debian's Chromium and its WebDriver (nothing is
# downloaded at test time), and python3-venv for the test's selenium virtualenv.
browser=(chromium chromium-driver python3-venv)
packages=("${runtime[@]}")
case "${1:-}" in
  --runtime) ;;
  --bench) packages+=("${build[@]}" mpv gstreamer1.0-plugins-base-apps procps python3-gi gir1.2-gstreamer-1.0) ;;
  "") packages+=("${build[@]}" "${browser[@]}") ;;
  *) echo "usage: scripts/setup.sh [--runtime|--bench|--completion MARQUEE]" >&2; exit 64 ;;
esac

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}" >&2
  sudo_cmd=()
  [[ $(id -u) -ne 0 ]] && sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
fi

if [[ "${1:-}" != "--runtime" ]] && ! command -v swift >/dev/null 2>&1; then
  echo "setup: the Swift 6 toolchain is required and 'swift' is not on PATH" >&2
  exit 1
fi
