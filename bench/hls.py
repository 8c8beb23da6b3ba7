#!/usr/bin/env python3
"""Marquee HLS benchmark: startup against mpv, and variant-switch latency.

Usage: python3 bench/hls.py [--runs N] [--marquee PATH]

Python 3.11 standard library only. Generates a 3-variant HLS ladder with gst-launch-1.0
(hlssink2), serves it over a local ThreadingHTTPServer that records every GET, and measures
(interleaved per run) Marquee's open -> playing, mpv's loadfile -> playback-restart, and how
long after `POST /v1/player/variant` the first segment of the pinned variant is requested.
See bench/README.md ("HLS benchmark"). Reuses the process, daemon and mpv helpers of run.py.
"""

from __future__ import annotations

import http.server
import math
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from local_http import LocalHTTPServer  # noqa: E402
from run import (BenchError, Marquee, Mpv, Processes, RunsParser, Series, run_guarded,  # noqa: E402
                 log_tail, ms, platform_line, print_table, require, step, verdict)

SEGMENT_SECONDS = 1
CLIP_SECONDS = 20
FPS = 30
# (id, width, height, x264enc bitrate in kbit/s); ids sort by bandwidth, as the daemon's do
LADDER = (("v1", 320, 180, 400), ("v2", 640, 360, 1000), ("v3", 960, 540, 2000))
GEN_TIMEOUT_S = 30.0  # hlssink2 (1.22) sometimes never exits after EOS
OPEN_TIMEOUT_S = 20  # ?timeout= on open?wait=playing
SWITCH_WAIT_S = 10.0  # bound on waiting for the first segment of the new variant
PLAY_BEFORE_SWITCH_S = 1.0
TARGET_SWITCH_MS = 2000.0
TARGET_RATIO_OPEN = 1.0


# --------------------------------------------------------------------------- the ladder

def make_ladder(root: Path, procs: Processes) -> Path:
    """Encodes the variants concurrently; accepts each once its playlist has #EXT-X-ENDLIST
    and then ends the gst-launch by pid, whether or not it exited by itself."""
    running = []
    for vid, width, height, kbps in LADDER:
        out = root / vid
        out.mkdir(parents=True)
        argv = [
            "gst-launch-1.0", "-q", "-e",
            "videotestsrc", f"num-buffers={CLIP_SECONDS * FPS}", "pattern=smpte",
            "horizontal-speed=4",
            "!", f"video/x-raw,format=I420,width={width},height={height},framerate={FPS}/1",
            "!", "x264enc", "speed-preset=ultrafast", f"key-int-max={FPS}", f"bitrate={kbps}",
            "!", "h264parse",
            "!", "hlssink2", f"location={out / 'seg%05d.ts'}",
            f"playlist-location={out / 'index.m3u8'}",
            f"target-duration={SEGMENT_SECONDS}", "playlist-length=0", "max-files=0",
        ]
        log = open(root.parent / f"gen-{vid}.log", "wb")
        try:
            proc = procs.spawn(argv, stdin=subprocess.DEVNULL, stdout=log,
                               stderr=subprocess.STDOUT)
        finally:
            log.close()
        running.append((vid, out / "index.m3u8", proc))

    deadline = time.monotonic() + GEN_TIMEOUT_S
    pending = list(running)
    while pending:
        for item in list(pending):
            vid, playlist, proc = item
            done = playlist.exists() and "#EXT-X-ENDLIST" in playlist.read_text(errors="replace")
            if done:
                procs.end(proc, grace_s=1.0)
                pending.remove(item)
            elif proc.poll() is not None:
                raise BenchError(f"gst-launch for {vid} exited with {proc.returncode} without "
                                 f"#EXT-X-ENDLIST:\n"
                                 + log_tail(root.parent / f"gen-{vid}.log"))
        if pending and time.monotonic() > deadline:
            for _, _, proc in pending:
                procs.end(proc, grace_s=1.0)
            raise BenchError(f"no #EXT-X-ENDLIST within {GEN_TIMEOUT_S:.0f} s for "
                             + ", ".join(v for v, _, _ in pending))
        time.sleep(0.05)

    lines = ["#EXTM3U", "#EXT-X-VERSION:3"]
    for vid, width, height, kbps in LADDER:
        lines.append(f"#EXT-X-STREAM-INF:BANDWIDTH={int(kbps * 1000 * 1.2)},"
                     f"RESOLUTION={width}x{height},CODECS=\"avc1.42c01e\"")
        lines.append(f"{vid}/index.m3u8")
    master = root / "master.m3u8"
    master.write_text("\n".join(lines) + "\n")
    return master


# --------------------------------------------------------------------------- HTTP server

class RecordingServer(LocalHTTPServer):
    """Serves a directory on 127.0.0.1:0 and records (time.monotonic(), path) of every GET."""

    def __init__(self, root: Path) -> None:
        self.gets: list[tuple[float, str]] = []
        self._lock = threading.Lock()
        outer = self

        class Handler(http.server.SimpleHTTPRequestHandler):
            def __init__(self, *args, **kwargs):
                super().__init__(*args, directory=str(root), **kwargs)

            def do_GET(self):
                with outer._lock:
                    outer.gets.append((time.monotonic(), self.path))
                super().do_GET()

            def log_message(self, *args):  # silence
                pass

        super().__init__(Handler)

    def first_segment_after(self, folder: str, t0: float, timeout_s: float) -> float | None:
        """monotonic time of the first GET of a .ts under /folder/ at or after t0."""
        prefix = f"/{folder}/"
        deadline = time.monotonic() + timeout_s
        while True:
            with self._lock:
                hits = [t for t, p in self.gets
                        if t >= t0 and p.startswith(prefix) and p.split("?")[0].endswith(".ts")]
            if hits:
                return min(hits)
            if time.monotonic() > deadline:
                return None
            time.sleep(0.005)


# --------------------------------------------------------------------------- measurements

def marquee_open(marquee: Marquee, url: str) -> tuple[float, dict]:
    t0 = time.monotonic()
    snap = marquee.request("POST", f"/v1/player/open?wait=playing&timeout={OPEN_TIMEOUT_S}",
                           {"uri": url})
    elapsed = time.monotonic() - t0
    if snap.get("state") != "playing":
        raise BenchError(f"open replied with state {snap.get('state')!r}, not 'playing'")
    return elapsed, snap


def switch(marquee: Marquee, server: RecordingServer, vid: str) -> float | None:
    """Seconds from sending POST /variant to the first GET of a segment under vid/."""
    t0 = time.monotonic()
    marquee.request("POST", "/v1/player/variant", {"id": vid})
    hit = server.first_segment_after(vid, t0, SWITCH_WAIT_S)
    return None if hit is None else hit - t0


def measure(marquee: Marquee, mpv: Mpv, server: RecordingServer, url: str, runs: int,
            notes: list[str]) -> dict:
    out = {"marquee": [], "mpv": [], "low": [], "high": [], "low_missed": 0, "high_missed": 0}
    lowest, highest = LADDER[0][0], LADDER[-1][0]
    # one warm-up each, not counted
    marquee_open(marquee, url)
    marquee.request("POST", "/v1/player/stop?wait=idle&timeout=10")
    mpv.load(url)
    mpv.stop()
    for i in range(runs):
        step(f"run {i + 1}/{runs}")
        elapsed, snap = marquee_open(marquee, url)
        out["marquee"].append(elapsed)
        time.sleep(PLAY_BEFORE_SWITCH_S)
        for vid, key in ((lowest, "low"), (highest, "high")):
            got = switch(marquee, server, vid)
            if got is None:
                out[f"{key}_missed"] += 1
            else:
                out[key].append(got)
        marquee.request("POST", "/v1/player/stop?wait=idle&timeout=10")
        out["mpv"].append(mpv.load(url))
        mpv.stop()
    for key, vid in (("low", lowest), ("high", highest)):
        if out[f"{key}_missed"]:
            notes.append(f"switch to {vid}: {out[f'{key}_missed']} of {runs} runs saw no "
                         f"segment request under /{vid}/ within {SWITCH_WAIT_S:.0f} s "
                         "(not in the figures)")
    return out


def report(res: dict, args, notes: list[str]) -> None:
    m, p = Series(ms(res["marquee"])), Series(ms(res["mpv"]))
    r = m.median / p.median if m.values and p.values and p.median else math.nan
    low, high = Series(ms(res["low"])), Series(ms(res["high"]))
    rows = [
        ("startup open -> playing (ms)", m.fmt(1), "mpv", p.fmt(1),
         "-" if math.isnan(r) else f"{r:.2f}", f"ratio <= {TARGET_RATIO_OPEN:.2f}",
         verdict(r, TARGET_RATIO_OPEN)),
        (f"switch -> first {LADDER[0][0]} segment (ms)", low.fmt(1), "", "", "",
         f"< {TARGET_SWITCH_MS:g} ms",
         verdict(low.median, TARGET_SWITCH_MS) if low.values and not res["low_missed"]
         else "MISS"),
        (f"switch -> first {LADDER[-1][0]} segment (ms)", high.fmt(1), "", "", "",
         f"< {TARGET_SWITCH_MS:g} ms",
         verdict(high.median, TARGET_SWITCH_MS) if high.values and not res["high_missed"]
         else "MISS"),
    ]
    ladder = ", ".join(f"{v} {w}x{h} {k} kbit/s" for v, w, h, k in LADDER)
    print()
    print(f"Marquee HLS benchmark: {CLIP_SECONDS} s ladder ({ladder}), {SEGMENT_SECONDS} s "
          f"segments, served from 127.0.0.1; {args.runs} runs, interleaved; median (min..max)")
    print(f"machine: {os.cpu_count()} CPUs, {platform_line()}")
    print(f"marquee: {args.marquee}")
    print()
    print_table(rows)
    print()
    print(f"switch: POST /v1/player/variant after ~{PLAY_BEFORE_SWITCH_S:g} s of playing, "
          f"to the first GET of a .ts under the pinned variant's folder; then the highest")
    for note in notes:
        print(f"note: {note}")


# --------------------------------------------------------------------------- main

def parse_args(argv: list[str]):
    return RunsParser("HLS startup and variant-switch benchmark.", default_runs=5,
                      runs_help="runs per player").parse_args(argv)


def run(args, procs: Processes, tmp: Path) -> None:
    require(("gst-launch-1.0", "mpv"), args.marquee)
    notes: list[str] = []
    step("generating the HLS ladder")
    master = make_ladder(tmp / "hls", procs)
    server = RecordingServer(tmp / "hls")
    try:
        url = server.url(master.name)
        step("starting marquee")
        marquee = Marquee(args.marquee, procs, tmp)
        marquee.start()
        step("starting mpv")
        mpv = Mpv(procs, tmp)
        mpv.start()
        res = measure(marquee, mpv, server, url, args.runs, notes)
        mpv.close()
        code, _ = marquee.stop_daemon()
        if code != 0:
            notes.append(f"marquee exited with {code} on SIGTERM (expected 0)")
        report(res, args, notes)
    finally:
        server.close()


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    return run_guarded("marquee-hls-bench-", lambda procs, tmp: run(args, procs, tmp))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
