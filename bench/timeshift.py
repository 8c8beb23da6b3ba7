#!/usr/bin/env python3
"""Marquee timeshift benchmark: pause/resume, seek back and go-live latency, their (in)dependence
on the window, disk and memory per hour of window, and the CPU cost of recording.

Usage: python3 bench/timeshift.py [--runs N] [--record-seconds S] [--no-build] [--marquee PATH]
                                  [--long-seconds S] [--long-speed X]

Python 3.11 standard library only; imports the process, daemon and report helpers of run.py.
A live source (gst-launch-1.0: videotestsrc/audiotestsrc, x264enc + avenc_aac, mpegtsmux, udpsink
sync=true) feeds the daemon over UDP; the daemon opens it with {"timeshift": {"window": W}}.
The long-ring phase feeds a pre-encoded chunk, looped with its clocks shifted, faster than real
time, so the ring really holds an hour of one-second segments. See bench/README.md ("Timeshift
benchmark").
"""

from __future__ import annotations

import argparse
import http.server
import json
import math
import os
import socket
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from local_http import LocalHTTPServer  # noqa: E402
from run import (grid, DEFAULT_MARQUEE, REPO_ROOT, BenchError, Marquee, Processes, Series,  # noqa: E402
                 cpu_seconds, log_tail, ms, platform_line, rss_mib, run_guarded,
                 require, settled_rss_mib, step)

WIDTH, HEIGHT, FPS, KBPS = 640, 360, 30, 800
CPU_WINDOW_S = 20.0
CPU_WARMUP_S = 3.0  # after open?wait=playing, before the CPU window starts
PAUSE_S = 2.0
LONG_PAUSE_S = 8.0
SEEK_OFFSET_S = -10.0
SETTLE_S = 1.0  # playing between measured commands
WAIT_TIMEOUT_S = 10  # ?timeout= on every ?wait= (run.py's socket timeout is 15 s)
SMALL_WINDOW_S, LARGE_WINDOW_S = 60, 3600
CHUNK_SECONDS = 64  # 1920 frames at 30 fps, 3000 AAC frames of 1024 samples at 48 kHz: both whole
LONG_MARGIN_S = 15  # fed beyond the window, so the long ring is full and has started dropping
STUCK_S = 30.0  # the long ring is given up when its edge has not moved for this long


# --------------------------------------------------------------------------- sources

# Seconds of segments the daemon keeps beyond the window (Sources/Timeshift/TimeshiftBuffer.swift).
EDGE_ALLOWANCE_S = 4


def free_udp_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def live_source_argv(port: int) -> list[str]:
    """The live UDP source: real time (is-live, udpsink sync=true), 1 s GOPs, H.264 + AAC in TS."""
    return [
        "gst-launch-1.0", "-q",
        "videotestsrc", "is-live=true", "pattern=ball",
        "!", f"video/x-raw,format=I420,width={WIDTH},height={HEIGHT},framerate={FPS}/1",
        "!", "x264enc", "tune=zerolatency", "speed-preset=ultrafast", f"key-int-max={FPS}",
        f"bitrate={KBPS}",
        "!", "h264parse", "!", "queue", "!", "mpegtsmux", "name=mux", "alignment=7",
        "!", "udpsink", "host=127.0.0.1", f"port={port}", "sync=true",
        "audiotestsrc", "is-live=true", "wave=sine", "volume=0.1",
        "!", "audioconvert", "!", "avenc_aac", "!", "aacparse", "!", "queue", "!", "mux.",
    ]


def start_live_source(procs: Processes, tmp: Path, port: int):
    log = open(tmp / "source.log", "wb")
    try:
        proc = procs.spawn(live_source_argv(port), stdin=subprocess.DEVNULL, stdout=log,
                           stderr=subprocess.STDOUT)
    finally:
        log.close()
    time.sleep(1.0)
    if proc.poll() is not None:
        raise BenchError(f"the gst-launch-1.0 source exited with {proc.returncode}:\n"
                         + log_tail(tmp / "source.log"))
    return proc


def make_chunk(tmp: Path) -> Path:
    """CHUNK_SECONDS of the same stream as the live source, encoded as fast as possible (not
    live) into a TS file. Both streams end on whole frames, so the loop has no overlap."""
    chunk = tmp / "chunk.ts"
    argv = [
        "gst-launch-1.0", "-q",
        "videotestsrc", f"num-buffers={CHUNK_SECONDS * FPS}", "pattern=ball",
        "!", f"video/x-raw,format=I420,width={WIDTH},height={HEIGHT},framerate={FPS}/1",
        "!", "x264enc", "tune=zerolatency", "speed-preset=ultrafast", f"key-int-max={FPS}",
        f"bitrate={KBPS}",
        "!", "h264parse", "!", "queue", "!", "mpegtsmux", "name=mux", "alignment=7",
        "!", "filesink", f"location={chunk}",
        "audiotestsrc", f"num-buffers={CHUNK_SECONDS * 48000 // 1024}", "samplesperbuffer=1024",
        "wave=sine", "volume=0.1", "!", "audio/x-raw,rate=48000,channels=2",
        "!", "audioconvert", "!", "avenc_aac", "!", "aacparse", "!", "queue", "!", "mux.",
    ]
    result = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, timeout=120)
    if result.returncode != 0 or not chunk.exists() or chunk.stat().st_size == 0:
        raise BenchError("encoding the chunk failed:\n" + result.stderr.decode(errors="replace")[-2000:])
    return chunk


class TsLoop:
    """An MPEG-TS chunk repeated forever as one continuous stream, cut into segments at its
    video keyframes (one a second). In loop k every PCR, PTS and DTS is shifted by k * period
    and continuity counters carry on, so a demuxer sees neither a jump back nor a gap."""

    PES_NO_HEADER = {0xBC, 0xBE, 0xBF, 0xF0, 0xF1, 0xF2, 0xF8, 0xFF}
    MASK33 = (1 << 33) - 1

    def __init__(self, data: bytes, keyframes_per_segment: int = 1) -> None:
        count = len(data) // 188
        self.packets: list[bytes] = []
        # per packet: (pid, pcr offset or -1, PTS/DTS offsets)
        self.fields: list[tuple[int, int, tuple[int, ...]]] = []
        payloads: dict[int, int] = {}  # payload-carrying packets per PID in one chunk
        pts_by_pid: dict[int, list[int]] = {}
        keyframes: list[tuple[int, int]] = []  # (packet index, PTS)
        pmt_pid = -1
        psi: dict[int, bytes] = {}
        for i in range(count):
            pkt = data[188 * i:188 * (i + 1)]
            if pkt[0] != 0x47:
                raise BenchError(f"chunk: packet {i} has no sync byte")
            pid = ((pkt[1] & 0x1F) << 8) | pkt[2]
            afc = (pkt[3] >> 4) & 3
            pusi = bool(pkt[1] & 0x40)
            pos, pcr_at, rai = 4, -1, False
            if afc & 2:
                af_len = pkt[4]
                if af_len > 0:
                    rai = bool(pkt[5] & 0x40)
                    if pkt[5] & 0x10:
                        pcr_at = 6
                pos = 5 + af_len
            if afc & 1:
                payloads[pid] = payloads.get(pid, 0) + 1
            if pid == 0 and pusi and afc & 1 and 0 not in psi:
                psi[0] = pkt
                at = pos + 1 + pkt[pos]  # the section, after the pointer field
                pmt_pid = ((pkt[at + 10] & 0x1F) << 8) | pkt[at + 11]  # first program's PMT
            elif pid == pmt_pid and pusi and pid not in psi:
                psi[pid] = pkt
            ts_at: tuple[int, ...] = ()
            if afc & 1 and pusi and pos + 14 <= 188 and pkt[pos:pos + 3] == b"\x00\x00\x01" \
                    and pkt[pos + 3] not in self.PES_NO_HEADER:
                flags = pkt[pos + 7] >> 6
                if flags & 2:
                    ts_at = (pos + 9,) + ((pos + 14,) if flags == 3 else ())
                    pts = self.read_ts(pkt, pos + 9)
                    pts_by_pid.setdefault(pid, []).append(pts)
                    if rai and 0xE0 <= pkt[pos + 3] <= 0xEF:
                        keyframes.append((i, pts))
            self.packets.append(pkt)
            self.fields.append((pid, pcr_at, ts_at))
        if not keyframes or keyframes[0][0] > 8 or len(psi) != 2:
            raise BenchError("chunk: expected PAT, PMT and a keyframe at its start")
        self.payloads = payloads
        self.psi = [psi[0], psi[pmt_pid]]
        # The shift per loop: each stream's span plus its own frame step, the largest of them,
        # rounded up to a whole video frame (3000 ticks at 90 kHz for 30 fps).
        spans = []
        for values in pts_by_pid.values():
            steps = sorted(b - a for a, b in zip(values, values[1:]) if b > a)
            step_ticks = steps[len(steps) // 2] if steps else 0
            spans.append(max(values) - min(values) + step_ticks)
        frame = 90000 // FPS
        self.period = -(-max(spans) // frame) * frame
        self.period_s = self.period / 90000.0
        # Segments: `keyframes_per_segment` GOPs each (the first one from packet 0, with PAT
        # and PMT); every later one gets PAT and PMT put in front.
        first_pts = keyframes[0][1]
        cuts = keyframes[::keyframes_per_segment]
        self.segments: list[tuple[int, int, float, float]] = []  # (from, to, start s, duration s)
        for n, (index, pts) in enumerate(cuts):
            start = 0 if n == 0 else index
            end = cuts[n + 1][0] if n + 1 < len(cuts) else count
            next_pts = cuts[n + 1][1] if n + 1 < len(cuts) else first_pts + self.period
            self.segments.append((start, end, (pts - first_pts) / 90000.0, (next_pts - pts) / 90000.0))
        self.bits_per_second = count * 188 * 8 / self.period_s

    @staticmethod
    def read_ts(pkt: bytes, at: int) -> int:
        return (((pkt[at] >> 1) & 7) << 30) | (pkt[at + 1] << 22) | ((pkt[at + 2] >> 1) << 15) \
            | (pkt[at + 3] << 7) | (pkt[at + 4] >> 1)

    def packet(self, index: int, loop: int) -> bytes:
        pkt = self.packets[index]
        if loop == 0:
            return pkt
        pid, pcr_at, ts_at = self.fields[index]
        out = bytearray(pkt)
        out[3] = (out[3] & 0xF0) | ((out[3] + loop * self.payloads.get(pid, 0)) & 0x0F)
        shift = loop * self.period
        if pcr_at >= 0:
            base = ((out[pcr_at] << 25) | (out[pcr_at + 1] << 17) | (out[pcr_at + 2] << 9)
                    | (out[pcr_at + 3] << 1) | (out[pcr_at + 4] >> 7))
            base = (base + shift) & self.MASK33
            out[pcr_at:pcr_at + 4] = (base >> 1).to_bytes(4, "big")
            out[pcr_at + 4] = ((base & 1) << 7) | (out[pcr_at + 4] & 0x7F)
        for at in ts_at:
            value = (self.read_ts(out, at) + shift) & self.MASK33
            out[at] = (out[at] & 0xF1) | ((value >> 29) & 0x0E)
            out[at + 1] = (value >> 22) & 0xFF
            out[at + 2] = ((value >> 14) & 0xFE) | 1
            out[at + 3] = (value >> 7) & 0xFF
            out[at + 4] = ((value << 1) & 0xFE) | 1
        return bytes(out)

    def segment(self, number: int) -> tuple[float, float, bytes]:
        """Segment `number` of the endless stream: (start s, duration s, bytes)."""
        loop, n = divmod(number, len(self.segments))
        start, end, offset, duration = self.segments[n]
        body = [] if start == 0 else list(self.psi)
        body += [self.packet(i, loop) for i in range(start, end)]
        return loop * self.period_s + offset, duration, b"".join(body)


class LiveHls:
    """The TsLoop as a live HLS media playlist on 127.0.0.1:0 whose segments appear at `speed`
    times real time (changeable while it runs). The playlist lists the newest PLAYLIST_SPAN
    segments and no EXT-X-ENDLIST; segments are cut on request."""

    PLAYLIST_SPAN = 1200
    LEAD = 0  # 0: no limit

    def __init__(self, loop: TsLoop, initial_seconds: float) -> None:
        self.loop = loop
        self._lock = threading.Lock()
        self._anchor = (time.monotonic(), initial_seconds, 1.0)  # wall, stream seconds, speed
        self.served = 0
        self.highest = -1  # the newest segment requested
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            # headers and body go out in two writes: without this, Nagle's algorithm and the
            # client's delayed ACK hold every response ~40 ms
            disable_nagle_algorithm = True

            def do_GET(self):
                path = self.path.split("?")[0]
                if path == "/live.m3u8":
                    body, ctype = outer.playlist().encode(), "application/vnd.apple.mpegurl"
                elif path.startswith("/seg") and path.endswith(".ts") and path[4:-3].isdigit() \
                        and int(path[4:-3]) < outer.published():
                    number = int(path[4:-3])
                    body, ctype = outer.loop.segment(number)[2], "video/mp2t"
                    with outer._lock:
                        outer.served += 1
                        outer.highest = max(outer.highest, number)
                else:
                    self.send_error(404)
                    return
                self.send_response(200)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(body)))
                self.send_header("Cache-Control", "no-cache")
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self._server = LocalHTTPServer(Handler)
        self.url = self._server.url("live.m3u8")

    def media_seconds(self) -> float:
        """Seconds of the stream that exist by now. Faster than real time, at most LEAD
        segments beyond the newest one requested: the feed never runs away from the reader."""
        with self._lock:
            wall, seconds, speed = self._anchor
            highest = self.highest
        now = seconds + (time.monotonic() - wall) * speed
        if speed > 1 and self.LEAD:
            now = min(now, max(seconds, self.segment_end(highest + self.LEAD)))
        return now

    def segment_end(self, number: int) -> float:
        loop, n = divmod(number, len(self.loop.segments))
        _, _, start, duration = self.loop.segments[n]
        return loop * self.loop.period_s + start + duration

    def published(self) -> int:
        """Segments whose end has been reached by now."""
        loops, rest = divmod(self.media_seconds(), self.loop.period_s)
        done = sum(1 for _, _, start, duration in self.loop.segments if start + duration <= rest)
        return int(loops) * len(self.loop.segments) + done

    def set_speed(self, speed: float) -> None:
        seconds = self.media_seconds()
        with self._lock:
            self._anchor = (time.monotonic(), seconds, speed)

    def playlist(self) -> str:
        end = self.published()
        first = max(0, end - self.PLAYLIST_SPAN)
        target = math.ceil(max(d for _, _, _, d in self.loop.segments) - 0.5)
        lines = ["#EXTM3U", "#EXT-X-VERSION:3", f"#EXT-X-TARGETDURATION:{target}",
                 f"#EXT-X-MEDIA-SEQUENCE:{first}"]
        for number in range(first, end):
            _, n = divmod(number, len(self.loop.segments))
            lines.append(f"#EXTINF:{self.loop.segments[n][3]:.6f},")
            lines.append(f"seg{number}.ts")
        return "\n".join(lines) + "\n"

    def close(self) -> None:
        self._server.close()


# --------------------------------------------------------------------------- the daemon

class Phase:
    """One daemon for one phase of the benchmark, in its own folder (data dir and log)."""

    def __init__(self, name: str, binary: Path, procs: Processes, tmp: Path) -> None:
        self.name = name
        folder = tmp / name
        folder.mkdir()
        self.marquee = Marquee(binary, procs, folder)
        self.get_ms: list[float] = []  # every GET /v1/player this phase made
        self.exit_code: int | None = None

    def __enter__(self) -> "Phase":
        self.marquee.start()
        return self

    def __exit__(self, kind, exc, tb) -> None:
        if exc is not None and isinstance(exc, BenchError):
            # run_guarded prints only the top-level log: add this phase's
            raise BenchError(f"[{self.name}] {exc}\n--- marquee log ({self.name}, tail) ---\n"
                             + log_tail(self.marquee.log)) from exc
        if self.marquee.proc is not None and self.marquee.proc.poll() is None:
            self.exit_code, _ = self.marquee.stop_daemon()

    @property
    def pid(self) -> int:
        return self.marquee.pid

    def alive(self) -> bool:
        return self.marquee.proc is not None and self.marquee.proc.poll() is None

    def command(self, name: str, body: dict | None = None, wait: str = "playing") -> tuple[float, dict]:
        """POST /v1/player/NAME?wait=WAIT: seconds from sending to the reply read, and the reply."""
        t0 = time.perf_counter()
        snap = self.marquee.request("POST", f"/v1/player/{name}?wait={wait}&timeout={WAIT_TIMEOUT_S}",
                                    body)
        elapsed = time.perf_counter() - t0
        if snap.get("state") != wait:
            raise BenchError(f"{name} replied with state {snap.get('state')!r}, not {wait!r}")
        return elapsed, snap

    def snapshot(self) -> dict:
        t0 = time.perf_counter()
        snap = self.marquee.request("GET", "/v1/player")
        self.get_ms.append((time.perf_counter() - t0) * 1000.0)
        return snap

    def poll_for(self, seconds: float, every: float = 1.0) -> dict:
        """Sleeps `seconds`, reading the snapshot every `every` s (GET latency recorded)."""
        end = time.perf_counter() + seconds
        snap = self.snapshot()
        while True:
            left = end - time.perf_counter()
            if left <= 0:
                return snap
            time.sleep(min(every, left))
            snap = self.snapshot()

    def wait_recorded(self, seconds: float) -> dict:
        """Polls until the live edge has reached `seconds` of recording."""
        deadline = time.perf_counter() + seconds * 1.5 + 20
        while True:
            snap = self.snapshot()
            if edge(snap) >= seconds:
                return snap
            if time.perf_counter() > deadline:
                raise BenchError(f"the live edge reached only {edge(snap):.1f} s of {seconds:g} s: "
                                 f"{json.dumps(snap.get('live'))}")
            time.sleep(0.5)

    def cpu_window(self, seconds: float) -> tuple[float, float]:
        """utime+stime over `seconds` (snapshot read once a second meanwhile): (CPU s, wall s)."""
        c0, t0 = cpu_seconds(self.pid), time.perf_counter()
        self.poll_for(seconds)
        if not self.alive():
            raise BenchError(f"marquee (pid {self.pid}) exited during the CPU window")
        return cpu_seconds(self.pid) - c0, time.perf_counter() - t0

    def ring_files(self) -> list[Path]:
        root = self.marquee.data_dir / "timeshift"
        return sorted(root.rglob("*.ts")) if root.exists() else []

    def live_snapshot(self, tries: int = 20) -> dict:
        """A snapshot that has `live` and `seekable` (a ring whose window is passing the playhead
        can answer without them for a moment, while the playhead is moved on)."""
        snap = self.snapshot()
        for _ in range(tries):
            if snap.get("live") and snap.get("seekable"):
                break
            time.sleep(0.25)
            snap = self.snapshot()
        return snap

    def log_count(self, text: str) -> int:
        try:
            return self.marquee.log.read_text(errors="replace").count(text)
        except OSError:
            return 0


def edge(snap: dict) -> float:
    return float((snap.get("live") or {}).get("edge") or 0.0)


def behind(snap: dict) -> float:
    return float((snap.get("live") or {}).get("behind") or math.nan)


def position(snap: dict) -> float:
    value = snap.get("position")
    return float(value) if isinstance(value, (int, float)) else math.nan


def ring_bytes(phase: Phase) -> tuple[int, int, float]:
    """(bytes of the closed segments, their count, recorded seconds) in a ring that has not
    dropped anything yet: the newest file is the open fragment and is left out."""
    for _ in range(5):
        before = phase.ring_files()
        snap = phase.snapshot()
        after = phase.ring_files()
        if [p.name for p in before] == [p.name for p in after] and len(after) >= 2:
            closed = after[:-1]
            return sum(p.stat().st_size for p in closed), len(closed), edge(snap)
        time.sleep(0.2)
    raise BenchError("the ring's files kept changing while being counted")


# --------------------------------------------------------------------------- phases

def measure_latencies(phase: Phase, runs: int, res: dict, notes: list[str]) -> None:
    """runs x (seek -10 s, then live), SETTLE_S of playing after each."""
    for _ in range(runs):
        before = phase.snapshot()
        elapsed, snap = phase.command("seek", {"offset": SEEK_OFFSET_S})
        res["seek"].append(elapsed)
        expected = max(position(before) + SEEK_OFFSET_S, 0.0)
        start = float((before.get("seekable") or {}).get("start") or 0.0)
        if abs(position(snap) - max(expected, start)) > 2.0:
            notes.append(f"{phase.name}: seek {SEEK_OFFSET_S:+g} s from {position(before):.2f} "
                         f"replied at {position(snap):.2f} (seekable {before.get('seekable')})")
        time.sleep(SETTLE_S)
        elapsed, snap = phase.command("live")
        res["live"].append(elapsed)
        res["live_behind"].append(behind(snap))
        time.sleep(SETTLE_S)


def phase_small(args, binary: Path, procs: Processes, tmp: Path, uri: str, notes: list[str]) -> dict:
    """Window 60: RSS, CPU while recording, disk, pause/resume, seek back, go live."""
    res: dict = {"seek": [], "live": [], "live_behind": [], "play": [], "pause_s": [],
                 "growth": [], "resume_jump": []}
    with Phase(f"window-{SMALL_WINDOW_S}", binary, procs, tmp) as phase:
        res["rss_idle"] = settled_rss_mib(phase.pid)
        res["open"], snap = phase.command("open", {"uri": uri, "timeshift": {"window": SMALL_WINDOW_S}})
        res["rss_open"], res["edge_open"] = rss_mib(phase.pid), edge(snap)
        step(f"  recording {args.record_seconds:g} s (CPU over {args.cpu_window:g} s of it)")
        phase.poll_for(CPU_WARMUP_S)
        res["cpu"] = [phase.cpu_window(args.cpu_window)]
        snap = phase.wait_recorded(args.record_seconds)
        res["bytes"], res["segments"], res["recorded_s"] = ring_bytes(phase)
        res["rss_recorded"], res["edge_recorded"] = rss_mib(phase.pid), edge(snap)
        step(f"  pause {PAUSE_S:g} s / play, {args.runs} runs")
        for _ in range(args.runs + 1):  # one long pause at the end
            long_one = len(res["play"]) == args.runs
            _, paused = phase.command("pause", wait="paused")
            t_paused = time.perf_counter()
            time.sleep(LONG_PAUSE_S if long_one else PAUSE_S)
            t_sent = time.perf_counter()
            elapsed, playing = phase.command("play")
            growth = behind(playing) - behind(paused)
            if long_one:
                res["long_pause"] = (t_sent - t_paused, growth)
            else:
                res["play"].append(elapsed)
                res["pause_s"].append(t_sent - t_paused)
                res["growth"].append(growth)
                res["resume_jump"].append(position(playing) - position(paused))
            time.sleep(SETTLE_S)
        step(f"  seek {SEEK_OFFSET_S:+g} s / live, {args.runs} runs")
        measure_latencies(phase, args.runs, res, notes)
        res["get_ms"] = phase.get_ms
        res["restarts"] = phase.log_count("recorder restarting")
    res["exit_code"] = phase.exit_code
    return res


def phase_large(args, binary: Path, procs: Processes, tmp: Path, uri: str, notes: list[str]) -> dict:
    """Window 3600 after the same recording time: seek back and go live (and CPU)."""
    res: dict = {"seek": [], "live": [], "live_behind": []}
    with Phase(f"window-{LARGE_WINDOW_S}", binary, procs, tmp) as phase:
        phase.command("open", {"uri": uri, "timeshift": {"window": LARGE_WINDOW_S}})
        step(f"  recording {args.record_seconds:g} s (CPU over {args.cpu_window:g} s of it)")
        phase.poll_for(CPU_WARMUP_S)
        res["cpu"] = [phase.cpu_window(args.cpu_window)]
        phase.wait_recorded(args.record_seconds)
        step(f"  seek {SEEK_OFFSET_S:+g} s / live, {args.runs} runs")
        measure_latencies(phase, args.runs, res, notes)
        res["get_ms"] = phase.get_ms
        res["restarts"] = phase.log_count("recorder restarting")
    res["exit_code"] = phase.exit_code
    return res


def phase_baseline(args, binary: Path, procs: Processes, tmp: Path, uri: str) -> dict:
    """The same UDP stream played without timeshift: CPU, twice, as the timeshift phases."""
    res: dict = {"cpu": []}
    with Phase("no-timeshift", binary, procs, tmp) as phase:
        phase.command("open", {"uri": uri})
        phase.poll_for(CPU_WARMUP_S)
        for _ in range(2):
            res["cpu"].append(phase.cpu_window(args.cpu_window))
        res["rss"] = rss_mib(phase.pid)
        res["get_ms"] = phase.get_ms
    res["exit_code"] = phase.exit_code
    return res


def phase_long(args, binary: Path, procs: Processes, tmp: Path, chunk: Path,
               notes: list[str]) -> dict:
    """A ring that really holds --long-seconds of one-second segments: a live HLS source fed at
    --long-speed times real time, then back to real time; then the same latencies. When the
    daemon fails on the way, `failed` says how and the figures it could not take stay empty."""
    window = args.long_seconds
    target = window + LONG_MARGIN_S
    loop = TsLoop(chunk.read_bytes())
    res: dict = {"seek": [], "live": [], "live_behind": [], "deep": [], "window": window,
                 "speed": args.long_speed, "kbps": loop.bits_per_second / 1000.0, "failed": None,
                 "get_errors": [], "get_fill": [], "get_full": [], "fill_s": 0.0, "reached": False}
    server = LiveHls(loop, initial_seconds=6)
    try:
        with Phase("long-ring", binary, procs, tmp) as phase:
            res["open"], _ = phase.command("open", {"uri": server.url, "timeshift": {"window": window}})
            phase.poll_for(CPU_WARMUP_S)
            res["cpu_small"] = phase.cpu_window(10.0)
            res["rss_small"] = rss_mib(phase.pid)
            res["edge_small"] = edge(phase.live_snapshot())
            phase.get_ms.clear()
            try:
                fill(phase, server, args, target, res)
                measure_full_ring(phase, args, res, notes)
            except BenchError as exc:
                if not phase.alive():
                    raise
                res["failed"] = res["failed"] or f"{exc}"
            finally:
                server.set_speed(1.0)
                res["restarts"] = phase.log_count("recorder restarting")
                res["criticals"] = phase.log_count("CRITICAL")
                res["player_errors"] = [line.split("msg=", 1)[1][:400] for line in
                                        phase.marquee.log.read_text(errors="replace").splitlines()
                                        if "level=error" in line and "msg=" in line]
            res["served"] = server.served
        res["exit_code"] = phase.exit_code
    finally:
        server.close()
    return res


def fill(phase: Phase, server: LiveHls, args, target: float, res: dict) -> None:
    """Feeds at --long-speed until the edge passes `target`; gives up at a time bound, when
    the edge stops moving for STUCK_S, or when the player leaves playing for good."""
    bound = max(60.0, 2.5 * target / args.long_speed)
    step(f"  feeding {target:g} s of stream at {args.long_speed:g}x "
         f"(about {target / args.long_speed:.0f} s; given up after {bound:.0f} s)")
    server.set_speed(args.long_speed)
    t0 = last_report = last_move = time.perf_counter()
    reached = 0.0
    try:
        while reached < target:
            now = time.perf_counter()
            if now - t0 > bound:
                res["failed"] = (f"the edge reached only {reached:.0f} s of {target:g} s within "
                                 f"{bound:.0f} s")
                break
            if now - last_move > STUCK_S:
                res["failed"] = f"the edge stopped at {reached:.0f} s for {STUCK_S:.0f} s"
                break
            time.sleep(2.0)
            try:
                snap = phase.snapshot()
            except BenchError as exc:  # a stalled daemon: note it, go on while it lives
                if not phase.alive():
                    raise
                res["get_errors"].append(str(exc))
                continue
            if snap.get("state") in ("error", "idle"):
                res["failed"] = (f"the player went to {snap.get('state')!r} at edge {reached:.0f} s"
                                 + (f": {json.dumps(snap.get('error'))}" if snap.get("error") else ""))
                break
            if edge(snap) > reached:
                reached, last_move = edge(snap), time.perf_counter()
            if time.perf_counter() - last_report > 30:
                last_report = time.perf_counter()
                step(f"  edge {reached:.0f} s after {last_report - t0:.0f} s")
    finally:
        server.set_speed(1.0)
        res["fill_s"] = time.perf_counter() - t0
        res["get_fill"] = list(phase.get_ms)
        phase.get_ms.clear()
        res["edge"] = reached
        res["reached"] = reached >= target
    if res["failed"]:
        raise BenchError(res["failed"])


def measure_full_ring(phase: Phase, args, res: dict, notes: list[str]) -> None:
    phase.poll_for(3.0)
    snap = phase.live_snapshot()
    res["edge"] = edge(snap) or res["edge"]
    files = phase.ring_files()
    res["files"], res["bytes"] = len(files), sum(p.stat().st_size for p in files)
    # The full ring is the newest `window` one-second segments, the four the daemon keeps
    # beyond the window at the edge (TimeshiftBuffer.edgeAllowance), plus the open one; file
    # names number the segments in recording order.
    newest = files[-(int(round(res["window"])) + EDGE_ALLOWANCE_S + 1):]
    res["ring_files"], res["ring_bytes"] = len(newest), sum(p.stat().st_size for p in newest)
    res["rss_full"] = rss_mib(phase.pid)
    res["seekable"], res["live_info"] = snap.get("seekable"), snap.get("live")
    res["cpu_full"] = phase.cpu_window(10.0)
    res["get_full"] = list(phase.get_ms)
    step(f"  seek {SEEK_OFFSET_S:+g} s / live and seek to the oldest part, {args.runs} runs")
    elapsed, snap = phase.command("live")
    res["first_live"] = elapsed
    time.sleep(SETTLE_S)
    measure_latencies(phase, args.runs, res, notes)
    for _ in range(args.runs):
        oldest = float((phase.live_snapshot().get("seekable") or {}).get("start") or 0.0)
        elapsed, snap = phase.command("seek", {"position": oldest + 30})
        res["deep"].append(elapsed)
        if abs(position(snap) - (oldest + 30)) > 2.0:
            notes.append(f"long ring: seek to {oldest + 30:.1f} replied at {position(snap):.2f}")
        time.sleep(SETTLE_S)
        phase.command("live")
        time.sleep(SETTLE_S)


# --------------------------------------------------------------------------- report

def cpu_series(samples: list[tuple[float, float]]) -> Series:
    """CPU seconds per wall second (share of one core)."""
    return Series([cpu / wall for cpu, wall in samples])


def ratio_text(a: float, b: float) -> str:
    return "-" if not (a == a and b == b) or b == 0 else f"{a / b:.2f}"


def get_text(values: list[float]) -> str:
    if not values:
        return "-"
    return f"p50 {statistics.median(values):.1f} / max {max(values):.0f} ms (n={len(values)})"


def report(args, res: dict, notes: list[str]) -> None:
    small, large, base, attempt = res["small"], res["large"], res["base"], res.get("long")
    long = attempt if attempt and not attempt["failed"] else None  # the long ring, when measured
    runs = args.runs
    print()
    print(f"Marquee timeshift benchmark: {runs} runs per figure, median (min..max); "
          f"one daemon per phase, each with a fresh --data-dir")
    print(f"machine: {os.cpu_count()} CPUs, {platform_line()}")
    print(f"marquee: {args.marquee}")
    print(f"live source: gst-launch-1.0, videotestsrc {WIDTH}x{HEIGHT} {FPS} fps -> x264enc "
          f"(bitrate={KBPS} kbit/s target, ultrafast, zerolatency, a keyframe every {FPS} frames) "
          f"+ audiotestsrc -> avenc_aac, mpegtsmux, udpsink sync=true (real time)")

    print()
    print(f"1. Pause / resume (window {SMALL_WINDOW_S} s, after {small['edge_recorded']:.0f} s recorded)")
    print(f"   play?wait=playing after a {PAUSE_S:g} s pause, request -> reply: "
          f"{Series(ms(small['play'])).fmt(1)} ms")
    growth, paused = Series(small["growth"]), Series(small["pause_s"])
    print(f"   live.behind growth: {growth.fmt(2)} s over pauses of {paused.fmt(2)} s "
          f"(growth / pause {ratio_text(growth.median, paused.median)}); one {LONG_PAUSE_S:g} s pause: "
          f"{small['long_pause'][0]:.2f} s -> +{small['long_pause'][1]:.2f} s")
    print("   (behind = edge - position; the edge moves once per closed segment, about 1 s, so a "
          "single reading is +-1 s)")
    print(f"   position after resume minus position at pause: {Series(small['resume_jump']).fmt(3)} s "
          f"(0: playback resumes where it paused)")

    print()
    print(f"2./3. Seek back and go live, request -> reply (?wait=playing), {SETTLE_S:g} s of playing "
          "between commands")
    cols = [f"window {SMALL_WINDOW_S}, {args.record_seconds:g} s recorded",
            f"window {LARGE_WINDOW_S}, {args.record_seconds:g} s recorded"]
    if long:
        cols.append(f"window {long['window']:g}, ring full [{long['speed']:g}x-fed HLS]")
    rows = []
    for label, key in ((f"seek {SEEK_OFFSET_S:+g} s -> playing (ms)", "seek"),
                       ("live -> playing (ms)", "live")):
        row = [label, Series(ms(small[key])).fmt(1), Series(ms(large[key])).fmt(1)]
        if long:
            row.append(Series(ms(long[key])).fmt(1))
        rows.append(tuple(row))
    row = ["live.behind after live (s)", Series(small["live_behind"]).fmt(2),
           Series(large["live_behind"]).fmt(2)]
    if long:
        row.append(Series(long["live_behind"]).fmt(2))
    rows.append(tuple(row))
    if long:
        rows.append(("seek to oldest + 30 s -> playing (ms)", "-", "-", Series(ms(long["deep"])).fmt(1)))
        rows.append(("first live (from far behind) (ms)", "-", "-", f"{1000 * long['first_live']:.1f}"))
    grid(("measurement", *cols), rows)
    print(f"   The first two columns differ only in the window setting: after {args.record_seconds:g} s "
          "both rings hold the same segments. That shows the setting alone costs nothing, not "
          "how a long ring behaves.")
    if long:
        reach = "reached" if long["reached"] else "NOT reached (see note)"
        print(f"   The third column is a real long ring: a live HLS source (the same picture and sound, "
              f"pre-encoded, {long['kbps']:.0f} kbit/s, 1 s segments, looped with shifted clocks) fed at "
              f"{long['speed']:g}x real time until the edge was {long['edge']:.0f} s "
              f"({reach}; {long['fill_s']:.0f} s of wall time), then real time.")
        print("   It is fed over HLS because a UDP stream cannot be fed faster than real time: the "
              "recorder timestamps UDP input by arrival, so its ring would not get longer.")
    elif attempt:
        print(f"   LONG RING NOT MEASURED: {attempt['failed']}. It was a live HLS source (the same picture "
              f"and sound, pre-encoded, {attempt['kbps']:.0f} kbit/s, 1 s segments, looped) fed at "
              f"{attempt['speed']:g}x real time for a window of {attempt['window']:g} s; the edge got to "
              f"{attempt['edge']:.0f} s in {attempt['fill_s']:.0f} s. No long-ring latency, disk or memory "
              "figure is given; the columns above are all there is.")
        for line in attempt["player_errors"][:3]:
            print(f"   daemon error: {line}")
    else:
        print("   Long ring: not measured (--long-seconds 0).")

    print()
    print("4. Disk and memory per hour of window")
    bps = small["bytes"] / small["recorded_s"]
    print(f"   ring (window {SMALL_WINDOW_S}): {small['bytes']} bytes in {small['segments']} closed "
          f"segments covering {small['recorded_s']:.2f} s -> {bps:.0f} bytes/s = "
          f"{bps * 8 / 1000:.0f} kbit/s as recorded (x264 target {KBPS} kbit/s + AAC; the ball "
          "pattern needs less)")
    print(f"   disk per hour = bytes/s x 3600 = {bps:.0f} x 3600 = {bps * 3600 / 1e6:.0f} MB "
          f"(10^6 bytes); any other bitrate: kbit/s x 0.45 MB")
    if long:
        print(f"   long ring, measured with the {long['window']:g} s window full: the newest "
              f"{long['ring_files']} files (the ring and its open segment) hold "
              f"{long['ring_bytes'] / 1e6:.1f} MB -> {long['ring_bytes'] / long['window'] * 3600 / 1e6:.0f} "
              f"MB per hour of a {long['kbps']:.0f} kbit/s stream (the stream alone: "
              f"{long['kbps'] * 1000 / 8 * 3600 / 1e6:.0f} MB per hour); all .ts files under "
              f"timeshift/: {long['files']}, {long['bytes'] / 1e6:.1f} MB")
    grow = small["rss_recorded"] - small["rss_open"]
    span = small["edge_recorded"] - small["edge_open"]
    print(f"   RSS: idle {small['rss_idle']:.1f} MiB, right after open {small['rss_open']:.1f} MiB, "
          f"after {small['edge_recorded']:.0f} s recorded {small['rss_recorded']:.1f} MiB")
    print(f"   memory per hour (extrapolated) = (RSS after - RSS at open) / recorded s x 3600 = "
          f"{grow:+.1f} / {span:.0f} x 3600 = {grow / span * 3600:+.0f} MiB "
          "(RSS is noisy at this scale; the long ring measures it directly)")
    if long:
        long_ring_s = long["window"]  # the ring is full
        added = long_ring_s - long["edge_small"]
        long_mem = (long["rss_full"] - long["rss_small"]) / added * 3600 if added > 0 else math.nan
        print(f"   long ring, measured: RSS {long['rss_small']:.1f} MiB with {long['edge_small']:.0f} s "
              f"recorded, {long['rss_full']:.1f} MiB with the ring holding {long_ring_s:.0f} s -> "
              f"({long['rss_full']:.1f} - {long['rss_small']:.1f}) / {added:.0f} x 3600 = "
              f"{long_mem:+.1f} MiB per hour of window")

    print()
    print(f"5. CPU (utime+stime of the daemon, all threads, /proc/PID/stat, {args.cpu_window:g} s windows, "
          "share of one core)")
    ts = cpu_series(small["cpu"] + large["cpu"])
    bl = cpu_series(base["cpu"])
    print(f"   recording + playing from the ring (one window in each timeshift phase): {ts.fmt(3)}")
    print(f"   playing the same UDP stream without timeshift (peer-like baseline):       {bl.fmt(3)}")
    print(f"   ratio timeshift / baseline: {ratio_text(ts.median, bl.median)}")
    if attempt and not long and "cpu_small" in attempt:
        print(f"   long ring (HLS source, real time, 10 s window) with a few seconds in the ring: "
              f"{cpu_series([attempt['cpu_small']]).median:.3f}; not measured full")
    if long:
        a, b = cpu_series([long["cpu_small"]]).median, cpu_series([long["cpu_full"]]).median
        print(f"   long ring (HLS source, real time, 10 s windows): {a:.3f} with a few seconds in the "
              f"ring, {b:.3f} with it full ({ratio_text(b, a)}x)")

    print()
    print("GET /v1/player while recording (read once a second): "
          f"window {SMALL_WINDOW_S}: {get_text(small['get_ms'])}; window {LARGE_WINDOW_S}: "
          f"{get_text(large['get_ms'])}; no timeshift: {get_text(base['get_ms'])}")
    if attempt:
        print(f"   long ring: while it filled {get_text(attempt['get_fill'])}; full, real time "
              f"{get_text(attempt['get_full'])}")
        if max(attempt["get_fill"], default=0) > 1000:
            notes.append(f"long ring: GET /v1/player took up to {max(attempt['get_fill']) / 1000:.1f} s "
                         "while the ring filled (the daemon's main loop was blocked)")
        for error in attempt["get_errors"]:
            notes.append(f"long ring: a GET /v1/player failed while the ring filled: {error}")
        if attempt["restarts"]:
            notes.append(f"long ring: the daemon logged 'recorder restarting' {attempt['restarts']} times "
                         "(each one leaves a gap in the ring)")
        if attempt["criticals"]:
            notes.append(f"long ring: the daemon printed {attempt['criticals']} GStreamer-CRITICAL lines")
    if long:
        if long["files"] > long["ring_files"] + 2:
            notes.append(f"long ring: {long['files']} .ts files on disk for a ring of about "
                         f"{long['ring_files']}: {long['files'] - long['ring_files']} files outside the ring")
    for name, part in (("window 60", small), ("window 3600", large)):
        if part.get("restarts"):
            notes.append(f"{name}: the daemon logged 'recorder restarting' {part['restarts']} times")

    print()
    print("Summary")
    rows = [
        (f"play after {PAUSE_S:g} s pause -> playing", f"{Series(ms(small['play'])).fmt(1)} ms", ""),
        ("behind growth / pause length", ratio_text(growth.median, paused.median), "expected 1.00"),
        (f"seek {SEEK_OFFSET_S:+g} s, window {SMALL_WINDOW_S} / {LARGE_WINDOW_S}",
         f"{Series(ms(small['seek'])).median:.1f} / {Series(ms(large['seek'])).median:.1f} ms",
         f"same {args.record_seconds:g} s ring"),
        ("live, window 60 / 3600",
         f"{Series(ms(small['live'])).median:.1f} / {Series(ms(large['live'])).median:.1f} ms", ""),
    ]
    if long:
        rows.append((f"seek {SEEK_OFFSET_S:+g} s / live, full {long['window']:g} s ring",
                     f"{Series(ms(long['seek'])).median:.1f} / {Series(ms(long['live'])).median:.1f} ms",
                     f"fed at {long['speed']:g}x over HLS"))
        rows.append(("seek to the oldest part, long ring", f"{Series(ms(long['deep'])).median:.1f} ms", ""))
    rows.append(("disk per hour of window", f"{bps * 3600 / 1e6:.0f} MB",
                 f"at {bps * 8 / 1000:.0f} kbit/s recorded"))
    if long:
        rows.append(("disk, long ring measured", f"{long['ring_bytes'] / long['window'] * 3600 / 1e6:.0f} MB per hour",
                     f"{long['kbps']:.0f} kbit/s stream; {long['bytes'] / 1e6:.0f} MB in {long['files']} files on disk"))
    rows.append(("memory per hour of window", f"{grow / span * 3600:+.0f} MiB", "30 s of RSS noise x 120: see the long ring"))
    if long:
        rows.append(("memory per hour, long ring", f"{long_mem:+.1f} MiB",
                     f"RSS {long['rss_small']:.0f} -> {long['rss_full']:.0f} MiB, measured"))
    rows.append(("CPU timeshift / no timeshift", f"{ts.median:.3f} / {bl.median:.3f}",
                 f"ratio {ratio_text(ts.median, bl.median)}"))
    if attempt and not long:
        rows.append((f"long ring ({attempt['window']:g} s window)", "NOT MEASURED", attempt["failed"][:70]))
    grid(("figure", "value", "note"), rows)
    for key, part in (("window 60", small), ("window 3600", large), ("no timeshift", base),
                      ("long ring", attempt or {})):
        if part and part.get("exit_code") not in (0, None):
            notes.append(f"{key}: marquee exited with {part['exit_code']} on SIGTERM (expected 0)")
    for note in notes:
        print(f"note: {note}")


# --------------------------------------------------------------------------- main

def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="Timeshift benchmark for the Marquee daemon.")
    parser.add_argument("--runs", type=int, default=5, help="samples per latency figure (default 5)")
    parser.add_argument("--record-seconds", type=float, default=30.0,
                        help="recording before the window 60 / 3600 measurements (default 30, min 20)")
    parser.add_argument("--no-build", action="store_true",
                        help="use the existing release build instead of running swift build")
    parser.add_argument("--marquee", type=Path, default=DEFAULT_MARQUEE,
                        help="the marquee binary (default .build/release/marquee)")
    parser.add_argument("--long-seconds", type=float, default=3600.0,
                        help="window of the long-ring phase (default 3600; 0 skips the phase)")
    parser.add_argument("--long-speed", type=float, default=40.0,
                        help="how many times real time the long ring is fed (default 40)")
    args = parser.parse_args(argv)
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    if args.record_seconds < 20:
        parser.error("--record-seconds must be at least 20 (the seek goes 10 s back)")
    if args.long_seconds and not (60 <= args.long_seconds <= 86400) or args.long_speed < 1:
        parser.error("--long-seconds must be 0 or 60..86400, --long-speed at least 1")
    args.cpu_window = min(CPU_WINDOW_S, args.record_seconds - CPU_WARMUP_S - 2)
    return args


def build(args) -> None:
    if args.no_build:
        return
    step("swift build -c release --product marquee")
    result = subprocess.run(["swift", "build", "-c", "release", "--product", "marquee"],
                            cwd=REPO_ROOT, stdin=subprocess.DEVNULL, capture_output=True, timeout=1800)
    if result.returncode != 0:
        raise BenchError("swift build failed:\n" + (result.stdout + result.stderr).decode(errors="replace")[-3000:])


def run(args, procs: Processes, tmp: Path) -> None:
    build(args)
    require(("gst-launch-1.0",), args.marquee)
    notes: list[str] = []
    res: dict = {}
    chunk = None
    if args.long_seconds:
        step(f"encoding the {CHUNK_SECONDS} s chunk for the long ring")
        chunk = make_chunk(tmp)
    port = free_udp_port()
    uri = f"udp://127.0.0.1:{port}"
    step(f"starting the live source on {uri}")
    source = start_live_source(procs, tmp, port)
    step(f"1/4 window {SMALL_WINDOW_S}: recording, pause/resume, seek back, live")
    res["small"] = phase_small(args, args.marquee, procs, tmp, uri, notes)
    step(f"2/4 window {LARGE_WINDOW_S}: the same after the same recording time")
    res["large"] = phase_large(args, args.marquee, procs, tmp, uri, notes)
    step("3/4 no timeshift: CPU playing the same stream")
    res["base"] = phase_baseline(args, args.marquee, procs, tmp, uri)
    if source.poll() is not None:
        notes.append(f"the gst-launch-1.0 source exited with {source.returncode} during the run")
    procs.end(source)
    if chunk is not None:
        step(f"4/4 long ring: window {args.long_seconds:g} s fed at {args.long_speed:g}x over HLS")
        res["long"] = phase_long(args, args.marquee, procs, tmp, chunk, notes)
    else:
        step("4/4 long ring: skipped (--long-seconds 0)")
    report(args, res, notes)


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    t0 = time.perf_counter()
    code = run_guarded("marquee-timeshift-bench-", lambda procs, tmp: run(args, procs, tmp))
    step(f"done in {time.perf_counter() - t0:.0f} s")
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
