#!/usr/bin/env python3
"""Marquee key-service benchmark: what obtaining an HLS key from a key service (API-2 §2) adds
to startup.

Usage: python3 bench/keys.py [--runs N] [--marquee PATH]

Python 3.11 standard library only; reuses the process, daemon and table helpers of run.py.
Generates one AES-128 HLS VOD with ffmpeg (`-hls_key_info_file`, 10 s, 1 s segments) and
serves it from a local ThreadingHTTPServer that is also the key service (a POST answers the
16 key bytes). The same media is opened three ways, interleaved per round, stop between opens:

  peer:        the playlist with a plain key URI (`key.bin`, fetched from the origin by
               hlsdemux2 itself, no proxy);
  via proxy:   the same playlist with a request header, so it plays through the daemon's
               loopback proxy (which then fetches the key): the proxy's own share;
  key service: the playlist whose key URI is `skd://bench/key-0`, with `keyService`: the
               proxy POSTs `{"keyUri", "contentId", "userId"}` for the key.

Each figure is open -> playing (`POST /v1/player/open?wait=playing`), median (min..max), with
the ratio to the peer. See bench/README.md ("Key-service benchmark").
"""

from __future__ import annotations

import http.server
import os
import subprocess
import sys
import threading
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from local_http import LocalHTTPServer  # noqa: E402
from run import (BenchError, Marquee, Processes, RunsParser, Series, interleaved_opens, ms,  # noqa: E402
                 platform_line, print_table, ratio, require, run_guarded, step)

CLIP_SECONDS = 10
SEGMENT_SECONDS = 1
OPEN_TIMEOUT_S = 20
KEY = bytes(range(0x30, 0x40))  # 16 bytes; the bench's own key, nothing secret
SKD_URI = "skd://bench/key-0"


def make_hls(root: Path, procs: Processes) -> None:
    """10 s of 640x360 H.264 + AAC in AES-128 HLS (key URI key.bin), then skd.m3u8 beside it."""
    root.mkdir(parents=True)
    (root / "key.bin").write_bytes(KEY)
    (root / "keyinfo").write_text(f"key.bin\n{root / 'key.bin'}\n")
    argv = ["ffmpeg", "-hide_banner", "-loglevel", "error", "-y",
            "-f", "lavfi", "-i", f"testsrc2=size=640x360:rate=30:duration={CLIP_SECONDS}",
            "-f", "lavfi", "-i", f"sine=frequency=440:duration={CLIP_SECONDS}",
            "-c:v", "libx264", "-preset", "ultrafast", "-g", "30", "-pix_fmt", "yuv420p",
            "-c:a", "aac", "-b:a", "96k",
            "-f", "hls", "-hls_time", str(SEGMENT_SECONDS), "-hls_playlist_type", "vod",
            "-hls_key_info_file", str(root / "keyinfo"),
            "-hls_segment_filename", str(root / "seg%03d.ts"), str(root / "plain.m3u8")]
    proc = procs.spawn(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, err = proc.communicate(timeout=60)
    if proc.returncode != 0:
        raise BenchError(f"ffmpeg failed ({proc.returncode}): {err.decode(errors='replace')[-500:]}")
    plain = (root / "plain.m3u8").read_text()
    if 'URI="key.bin"' not in plain:
        raise BenchError("ffmpeg's playlist has no EXT-X-KEY with URI=\"key.bin\"")
    (root / "skd.m3u8").write_text(plain.replace('URI="key.bin"', f'URI="{SKD_URI}"'))


class OriginAndKeyService(LocalHTTPServer):
    """GET serves the folder; POST /keys answers the key (and counts the POSTs)."""

    def __init__(self, root: Path) -> None:
        self.posts = 0
        lock = threading.Lock()
        outer = self

        class Handler(http.server.SimpleHTTPRequestHandler):
            # Headers and body leave in separate writes: without this, Nagle's algorithm holds
            # the second until the client's delayed ACK (40 ms on Linux), on both sides' figures.
            disable_nagle_algorithm = True

            def __init__(self, *args, **kwargs):
                super().__init__(*args, directory=str(root), **kwargs)

            def do_POST(self):
                length = int(self.headers.get("Content-Length") or 0)
                self.rfile.read(length)
                with lock:
                    outer.posts += 1
                self.send_response(200)
                self.send_header("Content-Type", "application/octet-stream")
                self.send_header("Content-Length", str(len(KEY)))
                self.end_headers()
                self.wfile.write(KEY)

            def log_message(self, *args):
                pass

        super().__init__(Handler)


def run(args, procs: Processes, tmp: Path) -> None:
    require(("ffmpeg",), args.marquee)
    step("generating the AES-128 HLS")
    make_hls(tmp / "hls", procs)
    server = OriginAndKeyService(tmp / "hls")
    try:
        ways = {
            "peer": {"uri": server.url("plain.m3u8")},
            "proxy": {"uri": server.url("plain.m3u8"), "headers": {"X-Bench": "1"}},
            "service": {"uri": server.url("skd.m3u8"), "contentId": "bench", "userId": "bench",
                        "keyService": {"uri": server.url("keys"), "headers": {"Authorization": "Bearer bench"}}},
        }
        step("starting marquee")
        marquee = Marquee(args.marquee, procs, tmp)
        marquee.start()
        out = interleaved_opens(marquee, ways, args.runs, OPEN_TIMEOUT_S)
        posts = server.posts
        code, _ = marquee.stop_daemon()
    finally:
        server.close()
    peer = Series(ms(out["peer"]))
    rows = []
    for name, label in (("proxy", "plain key URI through the proxy (ms)"),
                        ("service", f"{SKD_URI} from the key service (ms)")):
        s = Series(ms(out[name]))
        r = ratio(s, peer)
        rows.append((f"open -> playing, {label}", s.fmt(1), "plain key URI, direct", peer.fmt(1), f"{r:.2f}", "", ""))
    print()
    print(f"Marquee key-service benchmark: {CLIP_SECONDS} s AES-128 HLS (640x360 H.264 + AAC, "
          f"{SEGMENT_SECONDS} s segments, one key), served from 127.0.0.1; {args.runs} rounds, "
          "interleaved; median (min..max)")
    print(f"machine: {os.cpu_count()} CPUs, {platform_line()}")
    print(f"marquee: {args.marquee}")
    print()
    print_table(rows)
    print()
    print(f"key service POSTs: {posts} for {args.runs + 1} key-service opens (one key per session, then cached)")
    if code != 0:
        print(f"note: marquee exited with {code} on SIGTERM (expected 0)")


def parse_args(argv: list[str]):
    return RunsParser("Key-service startup benchmark.", default_runs=10).parse_args(argv)


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    return run_guarded("marquee-keys-bench-", lambda procs, tmp: run(args, procs, tmp))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
