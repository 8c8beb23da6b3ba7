#!/usr/bin/env python3
"""Every benchmark, one after another, against one build: the figures of issue 9 with their
peers and ratios (run.py: open, seek, CPU, status latency, pause-to-event, RSS against mpv and
gst-launch-1.0; clients.py: 100 WebSocket / SSE clients; hls.py: HLS start against mpv and
variant switches; timeshift.py: seek-back against the window size; output.py: PiP, watermark
and snapshot overhead against gst-launch-1.0 and a replica of the output pipeline;
responsive.py: GET /v1/player latency while every kind of command runs, and garbage-file and
seek?wait=playing latencies against mpv; library.py: downloads into the offline library against
curl -o, and CPU, seeks and memory of the encrypted copy against the plain file).

Usage: python3 bench/all.py [--quick] [--marquee PATH]

Each benchmark prints its own table (see bench/README.md for how to read them); a benchmark
that fails is reported at the end and the others still run. The exit status is the number of
benchmarks that failed. About 34 minutes, 14 with --quick (library.py downloads a 2 GB
file five times: it needs about 4.5 GB free in the temp folder, 1 GB with --quick).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def plan(quick: bool, marquee: Path) -> list[tuple[str, list[str]]]:
    m = ["--marquee", str(marquee)]
    return [
        ("run.py", ["run.py", *m, *(["--quick"] if quick else [])]),
        ("clients.py", ["clients.py", *m, "--runs", "3" if quick else "5"]),
        ("hls.py", ["hls.py", *m, "--runs", "3" if quick else "5"]),
        ("timeshift.py", ["timeshift.py", *m, "--no-build", "--runs", "3",
                          *(["--long-seconds", "0"] if quick else ["--long-seconds", "600"])]),
        ("output.py", ["output.py", *m, *(["--quick"] if quick else [])]),
        ("responsive.py", ["responsive.py", *m, *(["--quick"] if quick else [])]),
        ("library.py", ["library.py", *m, *(["--quick"] if quick else [])]),
        ("session.py", ["session.py", *m, "--runs", "3" if quick else "5"]),
    ]


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--quick", action="store_true", help="fewer runs, no long timeshift ring")
    p.add_argument("--marquee", type=Path, default=HERE.parent / ".build" / "release" / "marquee")
    args = p.parse_args(argv)
    if not args.marquee.is_file():
        print(f"bench: {args.marquee} not found: swift build -c release --product marquee", file=sys.stderr)
        return 1
    failed: list[str] = []
    for name, command in plan(args.quick, args.marquee):
        print(f"\n===== {name} =====", flush=True)
        t0 = time.perf_counter()
        # Argument lists, no shell; each benchmark ends its own children by pid.
        code = subprocess.call([sys.executable, str(HERE / command[0]), *command[1:]])
        print(f"===== {name}: exit {code} after {time.perf_counter() - t0:.0f} s =====", flush=True)
        if code != 0:
            failed.append(f"{name} (exit {code})")
    if failed:
        print(f"\nbench: failed: {', '.join(failed)}", file=sys.stderr)
    return len(failed)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
