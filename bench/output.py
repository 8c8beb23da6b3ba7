#!/usr/bin/env python3
"""Marquee output-stage benchmark: the CPU cost of composing (picture-in-picture, watermark,
subtitles) and of `GET /v1/snapshot.jpg`, against plain playback and gst-launch-1.0.

Usage: python3 bench/output.py [--runs N] [--quick] [--snapshots N] [--marquee PATH]
                               [--json PATH] [--log PATH]

Python 3.11 standard library only; imports the process, daemon, clip, CPU and statistics
helpers of run.py. Every source's video goes through the daemon's output pipeline
(pipelines/output.pipeline), so even plain playback composes: the plain row against
gst-launch-1.0 is the cost of the output stage itself, and a gst-launch replica of that
pipeline tells the daemon's share from the elements'. See bench/README.md ("Output-stage
benchmark").
"""

from __future__ import annotations

import argparse
import http.client
import json
import math
import os
import shutil
import statistics
import struct
import subprocess
import sys
import threading
import time
import zlib
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from run import (grid, CLIP_FPS, CLIP_SECONDS, CLK_TCK, CPU_WINDOW_S, DEFAULT_MARQUEE,  # noqa: E402
                 PLAYING_MARKERS, REPO_ROOT, WAIT_TIMEOUT_S, BenchError, HttpError, Marquee,
                 Processes, Series, cpu_seconds, gst_launch_argv, log_tail, make_clip, percentile,
                 platform_line, run_reported, sample_cpu, settled_rss_mib, start_line_reader, step,
                 thread_count)

INSET_WIDTH, INSET_HEIGHT = 640, 360
WARMUP_S = 2.0  # playing (and the inset playing) before each CPU window starts
POLL_INTERVAL_S = 0.5  # 2 snapshots per second
THUMB_WIDTH = 320
DEFAULT_SNAPSHOTS = 100  # per size and run
SNAPSHOT_WARMUP = 5  # per size, not counted
WATERMARK_TEXT = "MARQUEE"
SUBTITLE_TEXT = "Output stage benchmark: one cue on screen\nfor the whole clip"
POSITION_SLACK_S = 0.5  # a window whose playback position moved further from its length is noted

# The conditions, in their order in the first run (later runs rotate it). The daemon's are
# set up as SETUPS says; PEERS are gst-launch-1.0 processes (playbin3, and the replica of the
# output pipeline as it runs for plain playback).
CONDITIONS = (
    ("plain", "(a) plain playback"),
    ("pip", "(b) + PiP inset 640x360"),
    ("pip_text", "(c) + PiP + text watermark"),
    ("pip_random_sub", "(d) + PiP + random watermark (1 s) + SRT cue"),
    ("pip_image", "(e) + PiP + PNG watermark"),
    ("poll_full", "(f) (c) + snapshot.jpg polled 2/s, full size"),
    ("poll_thumb", f"(g) (c) + snapshot.jpg?width={THUMB_WIDTH} polled 2/s"),
    ("peer", "gst-launch-1.0 playbin3 (fake sinks)"),
    ("replica", "gst-launch-1.0 replica of the output stage"),
)
PEERS = ("peer", "replica")
SETUPS = {  # (subtitle, pip, watermark, poll width: None none, 0 full size)
    "plain": (False, False, None, None),
    "pip": (False, True, None, None),
    "pip_text": (False, True, "text", None),
    "pip_random_sub": (True, True, "random", None),
    "pip_image": (False, True, "image", None),
    "poll_full": (False, True, "text", 0),
    "poll_thumb": (False, True, "text", THUMB_WIDTH),
}


# --------------------------------------------------------------------------- media

def make_inset_clip(tmp: Path) -> Path:
    """The inset: 640x360 30 fps H.264 + AAC, as long as the main clip, a different picture."""
    clip = tmp / "inset-360p30.mp4"
    frames = CLIP_SECONDS * CLIP_FPS
    argv = [
        "gst-launch-1.0", "-q", "-e",
        "videotestsrc", f"num-buffers={frames}", "pattern=ball",
        "!", f"video/x-raw,format=I420,width={INSET_WIDTH},height={INSET_HEIGHT},framerate={CLIP_FPS}/1",
        "!", "x264enc", "speed-preset=ultrafast", f"key-int-max={CLIP_FPS}",
        "!", "h264parse", "!", "queue", "!", "mp4mux", "name=mux", "faststart=true",
        "!", "filesink", f"location={clip}",
        "audiotestsrc", f"num-buffers={frames}", "samplesperbuffer=1600", "wave=ticks",
        "!", "audio/x-raw,rate=48000,channels=2",
        "!", "audioconvert", "!", "avenc_aac", "!", "aacparse", "!", "queue", "!", "mux.",
    ]
    result = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, timeout=300)
    if result.returncode != 0 or not clip.exists() or clip.stat().st_size == 0:
        raise BenchError("generating the inset clip failed:\n"
                         + result.stderr.decode(errors="replace")[-2000:])
    return clip


def make_subtitles(tmp: Path) -> Path:
    """One SRT cue from 0 s to well past the clip's end: on screen during every window."""
    srt = tmp / "cue.srt"
    srt.write_text(f"1\n00:00:00,000 --> 00:10:00,000\n{SUBTITLE_TEXT}\n\n", encoding="utf-8")
    return srt


def make_logo(tmp: Path, width: int = 240, height: int = 60) -> Path:
    """An RGBA PNG: a translucent white plate with an opaque border and a dark bar."""
    rows = []
    for y in range(height):
        row = bytearray(b"\x00")  # filter type 0
        for x in range(width):
            border = x < 3 or y < 3 or x >= width - 3 or y >= height - 3
            bar = height // 3 <= y < 2 * height // 3 and width // 8 <= x < 7 * width // 8
            row += (bytes((255, 255, 255, 255)) if border else
                    bytes((20, 20, 60, 230)) if bar else bytes((255, 255, 255, 110)))
        rows.append(bytes(row))

    def chunk(kind: bytes, data: bytes) -> bytes:
        return (struct.pack(">I", len(data)) + kind + data
                + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))

    png = (b"\x89PNG\r\n\x1a\n"
           + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0))
           + chunk(b"IDAT", zlib.compress(b"".join(rows), 9))
           + chunk(b"IEND", b""))
    path = tmp / "logo.png"
    path.write_bytes(png)
    return path


def jpeg_size(data: bytes) -> tuple[int, int] | None:
    """(width, height) from a JPEG's start-of-frame marker, None if it has none."""
    if data[:2] != b"\xff\xd8":
        return None
    i = 2
    while i + 9 <= len(data):
        if data[i] != 0xFF:
            return None
        marker = data[i + 1]
        if marker == 0xFF:
            i += 1
            continue
        length = int.from_bytes(data[i + 2:i + 4], "big")
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
            height = int.from_bytes(data[i + 5:i + 7], "big")
            width = int.from_bytes(data[i + 7:i + 9], "big")
            return width, height
        i += 2 + length
    return None


# --------------------------------------------------------------------------- the daemon

class Output:
    """The daemon set up for one condition, and torn down after it."""

    def __init__(self, marquee: Marquee, media: dict[str, Path]) -> None:
        self.marquee = marquee
        self.media = media

    def snapshot(self) -> dict:
        return self.marquee.request("GET", "/v1/player")

    def open(self, subtitle: bool) -> dict:
        body: dict = {"uri": str(self.media["main"])}
        if subtitle:
            body["subtitle"] = str(self.media["srt"])
        snap = self.marquee.request("POST", f"/v1/player/open?wait=playing&timeout={WAIT_TIMEOUT_S}", body)
        if snap.get("state") != "playing":
            raise BenchError(f"open replied with state {snap.get('state')!r}, not 'playing'")
        return snap

    def start_pip(self) -> dict:
        """POST /v1/pip, then waits (bounded) until pip.state is playing."""
        self.marquee.request("POST", "/v1/pip", {"uri": str(self.media["inset"])})
        deadline = time.perf_counter() + WAIT_TIMEOUT_S
        while True:
            pip = self.snapshot().get("pip") or {}
            if pip.get("state") == "playing":
                return pip
            if pip.get("state") in ("error", "ended") or not pip:
                raise BenchError(f"the PiP inset did not play: {pip or 'pip is null'}")
            if time.perf_counter() > deadline:
                raise BenchError(f"the PiP inset was not playing after {WAIT_TIMEOUT_S} s: {pip}")
            time.sleep(0.05)

    def set_watermark(self, kind: str) -> None:
        if kind == "text":
            body = {"text": WATERMARK_TEXT, "position": "bottom-right"}
        elif kind == "random":
            body = {"text": WATERMARK_TEXT, "position": "random", "interval": 1}
        else:
            body = {"image": str(self.media["logo"]), "position": "bottom-right"}
        snap = self.marquee.request("PUT", "/v1/overlays/watermark", body)
        if not snap.get("watermark"):
            raise BenchError(f"PUT /v1/overlays/watermark {body}: the reply's watermark is null")

    def set_up(self, key: str) -> None:
        subtitle, pip, watermark, _ = SETUPS[key]
        self.open(subtitle)
        if pip:
            self.start_pip()
        if watermark:
            self.set_watermark(watermark)

    def set_up_once_more(self, key: str, incidents: list[str]) -> None:
        """set_up(key); when the daemon refuses it (say, an open that timed out), the refusal
        and the daemon's last log lines are recorded, everything is stopped, and it is set up
        once more. A second refusal ends the benchmark."""
        try:
            self.set_up(key)
            return
        except HttpError as exc:
            tail = [line for line in log_tail(self.marquee.log, 40).splitlines()
                    if "level=warning" in line or "level=error" in line][-4:]
            incidents.append(f"{time.strftime('%H:%M:%S')} {key}: {exc}"
                             + "".join(f"\n    log: {line}" for line in tail))
            step(f"INCIDENT {key}: {exc}; tearing down and setting it up once more")
        self.tear_down()
        self.set_up(key)

    def tear_down(self) -> None:
        self.marquee.request("DELETE", "/v1/overlays/watermark")
        self.marquee.request("DELETE", "/v1/pip", expect=(200, 409))
        self.marquee.stop()

    def frame(self, conn: http.client.HTTPConnection, width: int | None) -> tuple[float, int, bytes]:
        """GET /v1/snapshot.jpg on `conn`: (seconds from request to body read, status, body)."""
        path = "/v1/snapshot.jpg" + (f"?width={width}" if width else "")
        t0 = time.perf_counter()
        conn.request("GET", path)
        resp = conn.getresponse()
        body = resp.read()
        elapsed = time.perf_counter() - t0
        if resp.status == 200 and resp.getheader("Content-Type", "") != "image/jpeg":
            raise BenchError(f"GET {path}: Content-Type {resp.getheader('Content-Type')!r}")
        return elapsed, resp.status, body


class Poller:
    """GET /v1/snapshot.jpg every POLL_INTERVAL_S on its own keep-alive connection, on a fixed
    schedule (a late reply does not shift the next request), until stop()."""

    def __init__(self, output: Output, width: int | None) -> None:
        self.output = output
        self.width = width
        self.latencies: list[float] = []
        self.statuses: dict[int, int] = {}
        self.error: BaseException | None = None
        self._stop = threading.Event()
        self._conn = output.marquee.connect()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        t0 = time.perf_counter()
        k = 0
        try:
            while not self._stop.wait(max(0.0, t0 + k * POLL_INTERVAL_S - time.perf_counter())):
                elapsed, status, _ = self.output.frame(self._conn, self.width)
                self.statuses[status] = self.statuses.get(status, 0) + 1
                if status == 200:
                    self.latencies.append(elapsed)
                k += 1
        except Exception as exc:  # reported by stop()
            self.error = exc

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=20)
        self._conn.close()
        if self._thread.is_alive():
            raise BenchError("the snapshot poller did not finish within 20 s")
        if self.error is not None:
            raise BenchError(f"the snapshot poller failed: {type(self.error).__name__}: {self.error}")


# --------------------------------------------------------------------------- measurements

def daemon_window(output: Output, key: str, notes: list[str], incidents: list[str]) -> dict:
    """Sets up `key`, plays WARMUP_S, then CPU over CPU_WINDOW_S; checks it kept playing."""
    marquee = output.marquee
    subtitle, pip, _, poll_width = SETUPS[key]
    output.set_up_once_more(key, incidents)
    time.sleep(WARMUP_S)
    before = output.snapshot()
    poller = Poller(output, poll_width) if poll_width is not None else None
    try:
        sample = window("marquee", marquee.pid, alive=lambda: marquee.proc.poll() is None)
    finally:
        if poller is not None:
            poller.stop()
    wall = sample["wall"]
    after = output.snapshot()
    moved = float(after.get("position") or 0.0) - float(before.get("position") or 0.0)
    if after.get("state") != "playing" or abs(moved - wall) > POSITION_SLACK_S:
        notes.append(f"{key}: playback moved {moved:.2f} s in a {wall:.2f} s window "
                     f"(state {after.get('state')!r})")
    if pip and (after.get("pip") or {}).get("state") != "playing":
        notes.append(f"{key}: the inset was {after.get('pip')} at the end of the window")
    if subtitle and not (before.get("cue") and after.get("cue")):
        notes.append(f"{key}: no cue on screen (cue {before.get('cue')!r} -> {after.get('cue')!r})")
    # The output stage was drawing: a small snapshot of the composed frame answers 200.
    conn = marquee.connect()
    try:
        _, status, body = output.frame(conn, 64)
    finally:
        conn.close()
    if status != 200:
        notes.append(f"{key}: GET /v1/snapshot.jpg?width=64 after the window answered {status}: "
                     f"{body[:200]!r}")
    output.tear_down()
    if poller is not None:
        sample["poll_ms"] = [1000 * v for v in poller.latencies]
        sample["poll_statuses"] = {str(k): v for k, v in poller.statuses.items()}
        if set(poller.statuses) != {200}:
            notes.append(f"{key}: polling answers {poller.statuses}")
    return sample


def replica_argv(clip: Path) -> list[str]:
    """pipelines/output.pipeline as the daemon runs it for plain playback (no inset: the
    composition section is not in the pipeline), in one gst-launch: playbin3 (native-video,
    as SinkSelection.playbinFlags) -> intervideosink -> intervideosrc -> frame rate caps ->
    queue -> deinterlace -> two silent textoverlays -> gdkpixbufoverlay at alpha 0 ->
    videoconvert -> fakevideosink drawing overlays (allocation-meta-flags=0), as
    OutputStage.swift sets them."""
    main = f"bench-{os.getpid()}-main"
    year = 365 * 24 * 3600 * 10**9
    return [
        "gst-launch-1.0", "playbin3", f"uri={clip.as_uri()}", f"video-sink=intervideosink channel={main}",
        "audio-sink=fakeaudiosink", "flags=video+audio+soft-volume+native-video",
        "intervideosrc", f"channel={main}", f"timeout={year}",
        "!", "capsfilter", f"caps=video/x-raw,framerate={CLIP_FPS}/1", "!", "queue", "!", "deinterlace",
        "!", "textoverlay", "silent=true", "auto-resize=false", "wait-text=false",
        "!", "textoverlay", "silent=true", "auto-resize=false", "wait-text=false",
        "!", "gdkpixbufoverlay", "alpha=0", "!", "videoconvert",
        "!", "fakevideosink", "allocation-meta-flags=0",
    ]


def busy_seconds() -> float:
    """CPU seconds all cores spent busy (not idle or iowait), from /proc/stat."""
    with open("/proc/stat", encoding="ascii") as f:
        fields = [int(v) for v in f.readline().split()[1:]]
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)
    return (sum(fields[:8]) - idle) / CLK_TCK


def window(name: str, pid: int, alive) -> dict:
    """sample_cpu of run.py, plus what the rest of the machine used meanwhile (in cores)."""
    b0, t0 = busy_seconds(), time.perf_counter()
    cpu, wall, rss = sample_cpu(name, pid, alive=alive)
    others = (busy_seconds() - b0 - cpu) / (time.perf_counter() - t0)
    return {"cpu": cpu, "wall": wall, "rss": rss, "threads": thread_count(pid), "others": others}


def peer_window(procs: Processes, argv: list[str], tmp: Path) -> dict:
    """A gst-launch-1.0 peer: from the line saying it is PLAYING, WARMUP_S, then CPU_WINDOW_S."""
    name = argv[0]
    log = tmp / f"{name}.log"
    playing = threading.Event()

    def on_line(line: str) -> None:
        if PLAYING_MARKERS[name] in line or "ERROR" in line:
            playing.set()

    proc = procs.spawn(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        start_line_reader(proc.stdout, log, on_line)
        if not playing.wait(timeout=WAIT_TIMEOUT_S) or proc.poll() is not None:
            raise BenchError(f"{name} did not reach PLAYING:\n" + log_tail(log))
        time.sleep(WARMUP_S)
        return window(name, proc.pid, alive=lambda: proc.poll() is None)
    finally:
        procs.end(proc)


def snapshot_latencies(output: Output, count: int, run: int, res: dict, incidents: list[str]) -> None:
    """PiP + text watermark playing; on one keep-alive connection, a block of `count` full-size
    requests and a block of `count` ?width=320 ones, back to back (which block goes first
    alternates per run; SNAPSHOT_WARMUP before each block are not counted). The daemon's CPU
    over each block is recorded too: less the (c) rate, it is what the snapshots cost."""
    output.set_up_once_more("pip_text", incidents)
    time.sleep(WARMUP_S)
    pid = output.marquee.pid
    conn = output.marquee.connect()
    sock = conn.sock
    blocks = (("full", None), ("thumb", THUMB_WIDTH))
    try:
        for key, width in blocks if run % 2 == 0 else blocks[::-1]:
            for i in range(SNAPSHOT_WARMUP + count):
                if i == SNAPSHOT_WARMUP:
                    c0, t0 = cpu_seconds(pid), time.perf_counter()
                elapsed, status, body = output.frame(conn, width)
                if status != 200:
                    raise BenchError(f"GET /v1/snapshot.jpg{f'?width={width}' if width else ''} while "
                                     f"playing with PiP and watermark: HTTP {status}: {body[:300]!r}")
                if conn.sock is not sock:  # http.client reopened after a Connection: close
                    res["snapshot_reconnects"] += 1
                    sock = conn.sock
                if i < SNAPSHOT_WARMUP:
                    continue
                res[f"snap_{key}_ms"].append(1000 * elapsed)
                res[f"snap_{key}_bytes"].append(len(body))
                size = jpeg_size(body)
                res[f"snap_{key}_dims"].add(f"{size[0]}x{size[1]}" if size else "no SOF")
            res[f"snap_{key}_block"].append({"cpu": cpu_seconds(pid) - c0, "wall": time.perf_counter() - t0,
                                             "count": count})
    except (OSError, http.client.HTTPException) as exc:
        raise output.marquee.lost("GET /v1/snapshot.jpg", exc) from exc
    finally:
        conn.close()
    output.tear_down()


def measure(args, procs: Processes, tmp: Path, marquee: Marquee, output: Output, notes: list[str]) -> dict:
    res: dict = {key: [] for key, _ in CONDITIONS}
    for key in ("full", "thumb"):
        res[f"snap_{key}_ms"], res[f"snap_{key}_bytes"], res[f"snap_{key}_dims"] = [], [], set()
        res[f"snap_{key}_block"] = []
    res["snapshot_reconnects"] = 0
    res["incidents"] = []  # set-ups the daemon refused (each set up once more)
    res["order"] = []  # (condition, RSS at the end of its window), in the order they ran
    keys = [key for key, _ in CONDITIONS]
    per_run = len(keys) * (CPU_WINDOW_S + WARMUP_S + 0.5)
    for run in range(args.runs):
        order = keys[run % len(keys):] + keys[:run % len(keys)]  # rotated: no condition always first
        step(f"run {run + 1}/{args.runs}: {len(keys)} CPU windows (~{per_run:.0f} s), then "
             f"{2 * args.snapshots} snapshots")
        for key in order:
            clip = output.media["main"]
            if key == "peer":
                res[key].append(peer_window(procs, gst_launch_argv(clip), tmp))
            elif key == "replica":
                res[key].append(peer_window(procs, replica_argv(clip), tmp))
            else:
                res[key].append(daemon_window(output, key, notes, res["incidents"]))
            res["order"].append((key, res[key][-1]["rss"]))
        snapshot_latencies(output, args.snapshots, run, res, res["incidents"])
    return res


# --------------------------------------------------------------------------- report

def shares(samples: list[dict]) -> list[float]:
    """CPU seconds per wall second of each window: the share of one core."""
    return [s["cpu"] / s["wall"] for s in samples]


def ratio_text(a: list[float], b: list[float]) -> str:
    """Ratio of the medians, then [min..max] of the per-run ratios (runs are paired)."""
    if not a or not b or statistics.median(b) == 0:
        return "-"
    paired = [x / y for x, y in zip(a, b) if y]
    text = f"{statistics.median(a) / statistics.median(b):.2f}"
    if len(paired) > 1:
        text += f" [{min(paired):.2f}..{max(paired):.2f}]"
    return text


def latency_text(values: list[float]) -> str:
    if not values:
        return "-"
    return (f"{percentile(values, 50):.1f} / {percentile(values, 95):.1f} / {max(values):.1f} ms"
            f" (n={len(values)})")


def report(args, res: dict, ctx: dict, notes: list[str]) -> None:
    runs = args.runs
    print()
    print(f"Marquee output-stage benchmark: {runs} runs, conditions interleaved (order rotated per "
          f"run), one player playing at a time; median (min..max)")
    print(f"machine: {os.cpu_count()} CPUs, {platform_line()}; load average at start "
          f"{ctx['load_start']}, at end {ctx['load_end']}")
    print(f"marquee: {args.marquee}")
    print(f"main: {ctx['main']}")
    print(f"inset: {ctx['inset']}; rect default (bottom-right, 0.3 x 0.3 of the frame), muted")
    print(f"CPU: utime+stime of the whole process (all threads) from /proc/PID/stat over "
          f"{CPU_WINDOW_S:g} s windows (measured {ctx['wall_min']:.2f}..{ctx['wall_max']:.2f} s), "
          f"starting {WARMUP_S:g} s after the daemon (and inset) or gst-launch was playing; "
          "as a share of one core")
    print()
    plain, peer, replica = shares(res["plain"]), shares(res["peer"]), shares(res["replica"])
    rows = []
    for key, label in CONDITIONS:
        samples = res[key]
        values = shares(samples)
        cpu_s = Series([s["cpu"] for s in samples])
        rows.append((label, cpu_s.fmt(2), Series(values).fmt(3),
                     "1.00" if key == "plain" else ("-" if key in PEERS else ratio_text(values, plain)),
                     "1.00" if key == "peer" else ratio_text(values, peer),
                     "1.00" if key == "replica" else ("-" if key == "peer" else ratio_text(values, replica)),
                     Series([s["rss"] for s in samples]).fmt(1),
                     Series([s["threads"] for s in samples]).fmt(0)))
    idle = ctx["idle"]
    rows.append(("daemon idle, nothing loaded (once)", f"{idle['cpu']:.2f}", f"{idle['cpu'] / idle['wall']:.3f}",
                 "-", "-", "-", f"{idle['rss']:.1f}", str(idle["threads"])))
    grid(("condition", f"CPU s / {CPU_WINDOW_S:g} s", "share of a core", "x plain (a)",
          "x gst-launch", "x replica", "RSS MiB", "threads"), rows)
    print("x columns: ratio of the medians [min..max of the per-run ratios; each run measures every "
          "condition once]")
    print("replica: the output pipeline as the daemon builds it for plain playback, run by gst-launch-1.0 "
          "(playbin3 -> intervideosink -> intervideosrc -> deinterlace -> overlays -> fakevideosink; no "
          "compositor: it is spliced in only while an inset is shown); (a) / replica is the daemon's cost "
          "beyond the GStreamer elements it runs")
    others = Series([s["others"] for key, _ in CONDITIONS for s in res[key]])
    print(f"the rest of the machine during the windows (all other processes, /proc/stat): "
          f"{others.fmt(2)} cores of {os.cpu_count()}")
    chrono = [rss for key, rss in res["order"] if key not in PEERS]
    if chrono:
        print(f"daemon RSS at the end of each window, in the order run: first {chrono[0]:.1f}, "
              f"last {chrono[-1]:.1f}, max {max(chrono):.1f} MiB over {len(chrono)} windows "
              f"(idle: {idle['rss']:.1f} MiB at start, {ctx['rss_idle_end']:.1f} MiB after everything was "
              "stopped)")

    print()
    pip_text = shares(res["pip_text"])
    full, thumb = res["snap_full_ms"], res["snap_thumb_ms"]
    rows = [
        (f"GET /v1/snapshot.jpg full size p50 / p95 / max", latency_text(full), "", "",
         f"{'/'.join(sorted(res['snap_full_dims']))}, {Series(res['snap_full_bytes']).median / 1024:.0f} KiB"),
        (f"GET /v1/snapshot.jpg?width={THUMB_WIDTH} p50 / p95 / max", latency_text(thumb), "", "",
         f"{'/'.join(sorted(res['snap_thumb_dims']))}, {Series(res['snap_thumb_bytes']).median / 1024:.1f} KiB"),
    ]
    base = Series(pip_text).median
    for key, poll, what in (("full", "poll_full", "full size"), ("thumb", "poll_thumb", f"?width={THUMB_WIDTH}")):
        values = shares(res[poll])
        polled = [v for s in res[poll] for v in s.get("poll_ms", [])]
        rows.append((f"CPU polling 2/s, {what} (share of a core)", Series(values).fmt(3),
                     "(c) not polling", f"{base:.3f}",
                     f"x {ratio_text(values, pip_text)}; {Series(values).median - base:+.3f} "
                     f"of a core; poll p50 {percentile(polled, 50) if polled else math.nan:.1f} ms, "
                     f"{len(polled) / max(1, len(res[poll])):.0f} per window"))
        # Back to back, the snapshots' own CPU stands out of the noise: block CPU less the (c) rate.
        per = [1000 * (b["cpu"] - base * b["wall"]) / b["count"] for b in res[f"snap_{key}_block"]]
        if per:
            rows.append((f"CPU per snapshot, {what} (ms of CPU)", Series(per).fmt(1), "", "",
                         f"x 2/s = {2 * Series(per).median / 1000:.3f} of a core (back-to-back blocks of "
                         f"{res[f'snap_{key}_block'][0]['count']}, less the (c) rate)"))
    grid(("snapshot (PiP + text watermark playing)", "Marquee", "peer", "peer median", "ratio / note"), rows)
    print(f"Latency: request sent to body read, back to back on one keep-alive connection, a block of "
          f"each size per run (the order alternates), {SNAPSHOT_WARMUP} before each block not counted; "
          "nearest-rank percentiles over all runs.")
    if res["snapshot_reconnects"]:
        notes.append(f"snapshots: the server closed the keep-alive connection {res['snapshot_reconnects']} times")
    if res["incidents"]:
        print()
        print(f"INCIDENTS: the daemon refused {len(res['incidents'])} set-ups (each was torn down and set "
              "up once more, which worked; the figures above do not include the refused attempts):")
        for incident in res["incidents"]:
            print(f"  {incident}")
    print_notes(ctx, notes)


def print_notes(ctx: dict, notes: list[str]) -> None:
    """The run's notes, then what the daemon's log flagged and a non-zero exit on SIGTERM."""
    for line in ctx["log_flags"]:
        notes.append(f"daemon log: {line}")
    if ctx.get("exit_code") not in (0, None):
        notes.append(f"marquee exited with {ctx['exit_code']} on SIGTERM (expected 0)")
    for note in notes:
        print(f"note: {note}")


# --------------------------------------------------------------------------- main

def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="Output-stage benchmark for the Marquee daemon.")
    parser.add_argument("--runs", type=int, default=None, help="runs of every condition (default 5)")
    parser.add_argument("--quick", action="store_true", help="2 runs")
    parser.add_argument("--snapshots", type=int, default=DEFAULT_SNAPSHOTS,
                        help=f"snapshot requests per size and run (default {DEFAULT_SNAPSHOTS})")
    parser.add_argument("--marquee", type=Path, default=None,
                        help="the marquee binary (default .build/release/marquee, built if missing)")
    parser.add_argument("--json", type=Path, default=None, help="also write the raw samples here")
    parser.add_argument("--log", type=Path, default=None,
                        help="copy the daemon's log here at the end (also after an error)")
    args = parser.parse_args(argv)
    if args.runs is None:
        args.runs = 2 if args.quick else 5
    if args.runs < 1 or args.snapshots < 1:
        parser.error("--runs and --snapshots must be at least 1")
    return args


def find_binary(args) -> Path:
    if args.marquee is not None:
        if not (args.marquee.is_file() and os.access(args.marquee, os.X_OK)):
            raise BenchError(f"{args.marquee} is not an executable file")
        return args.marquee
    if not (DEFAULT_MARQUEE.is_file() and os.access(DEFAULT_MARQUEE, os.X_OK)):
        step("swift build -c release --product marquee")
        result = subprocess.run(["swift", "build", "-c", "release", "--product", "marquee"], cwd=REPO_ROOT,
                                stdin=subprocess.DEVNULL, capture_output=True, timeout=1800)
        if result.returncode != 0 or not DEFAULT_MARQUEE.is_file():
            raise BenchError("swift build failed:\n"
                             + (result.stdout + result.stderr).decode(errors="replace")[-3000:])
    return DEFAULT_MARQUEE


def load_text() -> str:
    return " ".join(f"{v:.2f}" for v in os.getloadavg())


def log_flags(log: Path) -> list[str]:
    """Lines of the daemon's log that say something went wrong, counted by kind."""
    try:
        lines = log.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return []
    flags = []
    for needle in ("level=error", "level=warning", "CRITICAL"):
        hits = [line for line in lines if needle in line]
        if hits:
            flags.append(f"{len(hits)} lines with {needle!r}, e.g. {hits[0][:300]}")
    return flags


def run(args, procs: Processes, tmp: Path) -> dict:
    if shutil.which("gst-launch-1.0") is None:
        raise BenchError("missing gst-launch-1.0: run scripts/setup.sh --bench")
    args.marquee = find_binary(args)
    notes: list[str] = []
    ctx: dict = {"load_start": load_text()}
    step("generating the clips, the subtitle file and the logo")
    media = {"main": make_clip(tmp), "inset": make_inset_clip(tmp), "srt": make_subtitles(tmp),
             "logo": make_logo(tmp)}
    ctx["main"] = (f"{media['main'].name}, 1280x720 {CLIP_FPS} fps H.264 (x264 ultrafast, keyframe "
                   f"every second) + AAC, {CLIP_SECONDS} s, {media['main'].stat().st_size / 1e6:.1f} MB")
    ctx["inset"] = (f"{media['inset'].name}, {INSET_WIDTH}x{INSET_HEIGHT} {CLIP_FPS} fps H.264 + AAC, "
                    f"{CLIP_SECONDS} s, {media['inset'].stat().st_size / 1e6:.1f} MB")

    step("starting marquee")
    marquee = Marquee(args.marquee, procs, tmp)
    marquee.start()
    output = Output(marquee, media)
    if "pip" not in output.snapshot():
        raise BenchError(f"{args.marquee} predates the output stage (its snapshot has no 'pip'): "
                         "swift build -c release --product marquee")
    settled_rss_mib(marquee.pid)
    ctx["idle"] = window("marquee", marquee.pid, alive=lambda: marquee.proc.poll() is None)
    # Warm-up: the first open and PiP load the plugins; none of it is measured.
    output.set_up("pip_random_sub")
    output.tear_down()

    res = measure(args, procs, tmp, marquee, output, notes)
    ctx["rss_idle_end"] = settled_rss_mib(marquee.pid)
    code, _ = marquee.stop_daemon()
    ctx["exit_code"] = code
    ctx["load_end"] = load_text()
    walls = [s["wall"] for key, _ in CONDITIONS for s in res[key]]
    ctx["wall_min"], ctx["wall_max"] = min(walls), max(walls)
    ctx["log_flags"] = log_flags(marquee.log)
    report(args, res, ctx, notes)
    for key in ("full", "thumb"):
        res[f"snap_{key}_dims"] = sorted(res[f"snap_{key}_dims"])
    return {"results": res, "context": ctx, "notes": notes}


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    return run_reported(args, "marquee-output-bench-", run)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
