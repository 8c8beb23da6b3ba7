#!/usr/bin/env python3
"""Marquee header-proxy benchmark: what playing through the loopback proxy (a session with
request headers) adds to startup, against the same media played directly.

Usage: python3 bench/proxy.py [--runs N] [--marquee PATH] [--rate MBPS]

Python 3.11 standard library only; reuses the process, daemon and table helpers of run.py.
Generates with ffmpeg a 12 s HLS (1280x720 H.264 at 8 Mb/s, 2 s segments: ~2 MB each) and a
20 s progressive MP4 at the same bitrate (~20 MB, faststart), and serves both from a local
ThreadingHTTPServer that sends every body at `--rate` MB/s (default 8, i.e. 64 Mb/s), as a
real origin has a finite speed: on an unthrottled loopback origin a segment downloads in a
few ms and how the proxy delivers it would not show. Per round, order rotated,
`POST /v1/player/open?wait=playing` then stop, for each of:

  HLS direct (peer)        hlsdemux2 fetches from the origin itself;
  HLS with headers         through the proxy (playlists, segments);
  MP4 direct (peer)        souphttpsrc reads the origin itself;
  MP4 with headers         through the proxy.

Each figure is open -> playing, median (min..max), with the ratio to its direct peer. See
bench/README.md ("Header-proxy benchmark").
"""

from __future__ import annotations

import http.server
import os
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from local_http import LocalHTTPServer  # noqa: E402
from run import (BenchError, Marquee, Processes, RunsParser, Series, interleaved_opens, ms,  # noqa: E402
                 platform_line, print_table, ratio, require, run_guarded, step)

HLS_SECONDS = 12
MP4_SECONDS = 20
SEGMENT_SECONDS = 2
BITRATE = "8M"
OPEN_TIMEOUT_S = 30
HEADERS = {"X-Bench": "1"}


def encode(argv: list[str], procs: Processes) -> None:
    proc = procs.spawn(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, err = proc.communicate(timeout=180)
    if proc.returncode != 0:
        raise BenchError(f"ffmpeg failed ({proc.returncode}): {err.decode(errors='replace')[-500:]}")


def make_media(root: Path, procs: Processes) -> None:
    root.mkdir(parents=True)
    video = ["-c:v", "libx264", "-preset", "ultrafast", "-b:v", BITRATE, "-maxrate", BITRATE,
             "-bufsize", "4M", "-g", "30", "-pix_fmt", "yuv420p"]
    encode(["ffmpeg", "-hide_banner", "-loglevel", "error", "-y",
            "-f", "lavfi", "-i", f"testsrc2=size=1280x720:rate=30:duration={HLS_SECONDS}", *video,
            "-f", "hls", "-hls_time", str(SEGMENT_SECONDS), "-hls_playlist_type", "vod",
            "-hls_segment_filename", str(root / "seg%03d.ts"), str(root / "index.m3u8")], procs)
    encode(["ffmpeg", "-hide_banner", "-loglevel", "error", "-y",
            "-f", "lavfi", "-i", f"testsrc2=size=1280x720:rate=30:duration={MP4_SECONDS}", *video,
            "-movflags", "+faststart", str(root / "film.mp4")], procs)


class ThrottledOrigin(LocalHTTPServer):
    """Serves a folder on 127.0.0.1:0, every body at about `rate` bytes a second."""

    def __init__(self, root: Path, rate: float) -> None:
        piece = 16 << 10

        class Handler(http.server.SimpleHTTPRequestHandler):
            # Head and body leave in separate writes: without this, Nagle's algorithm holds
            # the body until the client's delayed ACK (40 ms on Linux), on both sides' figures.
            disable_nagle_algorithm = True

            def __init__(self, *args, **kwargs):
                super().__init__(*args, directory=str(root), **kwargs)

            def copyfile(self, source, outputfile):
                start = time.monotonic()
                sent = 0
                while True:
                    data = source.read(piece)
                    if not data:
                        return
                    outputfile.write(data)
                    sent += len(data)
                    ahead = sent / rate - (time.monotonic() - start)
                    if ahead > 0:
                        time.sleep(ahead)

            def log_message(self, *args):
                pass

        super().__init__(Handler)


def run(args, procs: Processes, tmp: Path) -> None:
    require(("ffmpeg",), args.marquee)
    step("generating the HLS and the MP4")
    make_media(tmp / "media", procs)
    sizes = {p.name: p.stat().st_size for p in (tmp / "media").iterdir()}
    server = ThrottledOrigin(tmp / "media", args.rate * 1e6)
    try:
        hls, mp4 = server.url("index.m3u8"), server.url("film.mp4")
        ways = {
            "hls direct": {"uri": hls},
            "hls proxy": {"uri": hls, "headers": HEADERS},
            "mp4 direct": {"uri": mp4},
            "mp4 proxy": {"uri": mp4, "headers": HEADERS},
        }
        step("starting marquee")
        marquee = Marquee(args.marquee, procs, tmp)
        marquee.start()
        out = interleaved_opens(marquee, ways, args.runs, OPEN_TIMEOUT_S)
        code, _ = marquee.stop_daemon()
    finally:
        server.close()
    rows = []
    for kind, label in (("hls", "HLS"), ("mp4", "MP4")):
        peer = Series(ms(out[f"{kind} direct"]))
        s = Series(ms(out[f"{kind} proxy"]))
        rows.append((f"open -> playing, {label} with headers (proxy) (ms)", s.fmt(1),
                     f"{label} direct", peer.fmt(1), f"{ratio(s, peer):.2f}", "", ""))
    segment = max(v for k, v in sizes.items() if k.endswith(".ts"))
    print()
    print(f"Marquee header-proxy benchmark: {HLS_SECONDS} s HLS ({SEGMENT_SECONDS} s segments, largest "
          f"{segment / 1e6:.1f} MB) and a {MP4_SECONDS} s MP4 ({sizes['film.mp4'] / 1e6:.1f} MB), 1280x720 "
          f"H.264 at {BITRATE}b/s, served from 127.0.0.1 at {args.rate:g} MB/s per response; "
          f"{args.runs} rounds, interleaved; median (min..max)")
    print(f"machine: {os.cpu_count()} CPUs, {platform_line()}")
    print(f"marquee: {args.marquee}")
    print()
    print_table(rows)
    if code != 0:
        print(f"note: marquee exited with {code} on SIGTERM (expected 0)")


def parse_args(argv: list[str]):
    parser = RunsParser("Header-proxy startup benchmark.", default_runs=5)
    parser.add_argument("--rate", type=float, default=8.0, help="origin speed in MB/s per response (default 8)")
    args = parser.parse_args(argv)
    if args.rate <= 0:
        parser.error("--rate must be positive")
    return args


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    return run_guarded("marquee-proxy-bench-", lambda procs, tmp: run(args, procs, tmp))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
