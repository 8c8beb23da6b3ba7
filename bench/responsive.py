#!/usr/bin/env python3
"""Marquee responsiveness benchmark: how long GET /v1/player takes while the daemon is driven
through every kind of command, and two latencies side by side with mpv.

Usage: python3 bench/responsive.py [--runs N] [--quick] [--marquee PATH] [--json PATH] [--log PATH]
                                   [--origin-delay-ms MS]

Python 3.11 standard library only; imports the process, daemon, clip, mpv and report helpers of
run.py, the HLS ladder and origin of hls.py, the live UDP source of timeshift.py and the inset
clip of output.py. A second process polls GET /v1/player every 5 ms on one keep-alive
connection and records every reply's latency; meanwhile a driver runs named steps one after
another (HLS with request headers, variant pins and audio rendition switches as the daemon's
first open; file open, seeks, rate changes, PiP; the HLS steps again; a garbage file and a
truncated MP4; a live UDP source with timeshift, seek back, go-live).
Each poll is counted in the step that was current when it was sent; per step the table gives
the polls, their worst and p99 reply time, against worst < 100 ms and p99 < 5 ms. Then, with
mpv in the same run: garbage / truncated file -> error, and seek?wait=playing against the
moment the seek landed. See bench/README.md ("Responsiveness benchmark").
"""

from __future__ import annotations

import argparse
import bisect
import http.client
import json
import math
import os
import queue
import random
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import hls  # noqa: E402  (its CLIP_SECONDS is set below, before make_ladder runs)
from hls import RecordingServer, make_ladder  # noqa: E402
from output import log_flags, make_inset_clip  # noqa: E402
from run import (grid, DEFAULT_MARQUEE, SEEK_TARGETS, BenchError, EventStream, Marquee, Mpv,  # noqa: E402
                 Processes, Series, log_tail, make_clip, ms, percentile, platform_line,
                 print_table, require, run_reported, step)
from timeshift import free_udp_port, start_live_source  # noqa: E402

POLL_INTERVAL_S = 0.005
POLL_TIMEOUT_S = 40.0  # a reply slower than this is recorded as a timeout of this length
TARGET_WORST_MS = 100.0
TARGET_P99_MS = 5.0
STALL_MS = 100.0  # polls at least this slow are listed one by one
WAIT_S = 10  # ?timeout= of every ?wait= but the garbage file's
GARBAGE_WAIT_S = 30  # ?timeout= of the bad-file opens: an open watchdog fails them at 8 s
SOCKET_SLACK_S = 5.0  # a driver request waits ?timeout= plus this, then the step times out
LANDING_WAIT_S = 5.0  # bound on the SSE position event of a seek after its reply
SEEK_PAUSE_S = 0.3  # playing after each compared seek, both players: the poll sees it land
HLS_SECONDS = 60  # the ladder: long enough for the variant and audio steps and HLS_PLAY_S at 1x
HLS_OPEN_STEP = "open (headers)"
HLS_PLAY_S = 20.0  # HLS keeps playing after the pins and switches (a freeze was reported ~20 s on)
REFERER = "http://bench.invalid/"
ORIGIN_DELAY_MS = 0.0
RENDITIONS = (("en", "English", 440), ("fr", "French", 880))
TIMESHIFT_WINDOW_S = 60
GARBAGE_BYTES = 2_000_000


class StepFailed(BenchError):
    pass


class DaemonGone(BenchError):
    pass


# --------------------------------------------------------------------------- the poller

def poller_main(host: str, port: int, out_path: str, interval: float) -> int:
    """The child process: GET /v1/player on a fixed schedule (a late reply sends the next one
    at once, without a burst to catch up) until SIGTERM. One line per reply:
    `t_sent latency status state position` (t_sent on CLOCK_MONOTONIC, shared with the parent);
    a request still in flight at SIGTERM is written as `U t_sent elapsed`."""
    out = open(out_path, "w", buffering=1, encoding="ascii")
    inflight: list[float | None] = [None]

    def on_term(*_):
        if inflight[0] is not None:
            out.write(f"U {inflight[0]:.6f} {time.monotonic() - inflight[0]:.6f}\n")
        out.flush()
        os._exit(0)

    signal.signal(signal.SIGTERM, on_term)
    conn: http.client.HTTPConnection | None = None
    t0 = time.monotonic()
    k = 0
    while True:
        now = time.monotonic()
        due = t0 + k * interval
        if due > now:
            time.sleep(due - now)
        else:
            k = int((now - t0) / interval)
        k += 1
        sent = time.monotonic()
        inflight[0] = sent
        state, position = "-", "-"
        try:
            if conn is None:
                conn = http.client.HTTPConnection(host, port, timeout=POLL_TIMEOUT_S)
                conn.connect()
                conn.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            conn.request("GET", "/v1/player")
            resp = conn.getresponse()
            body = resp.read()
            latency = time.monotonic() - sent
            status = str(resp.status)
            if resp.will_close:
                conn.close()
                conn = None
            try:
                snap = json.loads(body)
                state = str(snap.get("state") or "-")
                pos = snap.get("position")
                position = f"{pos:.3f}" if isinstance(pos, (int, float)) else "-"
            except (ValueError, AttributeError):
                state = "not-json"
        except TimeoutError:
            latency, status = time.monotonic() - sent, "timeout"
            if conn is not None:
                conn.close()
            conn = None
        except (OSError, http.client.HTTPException) as exc:
            latency, status = time.monotonic() - sent, f"E:{type(exc).__name__}"
            if conn is not None:
                conn.close()
            conn = None
        inflight[0] = None
        out.write(f"{sent:.6f} {latency:.6f} {status} {state} {position}\n")
        if status.startswith("E:"):
            time.sleep(0.05)  # no connection: do not spin


@dataclass
class Poll:
    sent: float
    latency: float
    status: str  # "200", another HTTP status, "timeout", "E:Exception", "unfinished"
    state: str = "-"
    position: float | None = None

    @property
    def ok(self) -> bool:
        return self.status == "200"


class Poller:
    """The poller as a child process: its timing is its own, not delayed by this process's
    threads (the HLS origin, the SSE reader, mpv's IPC reader) contending for the GIL."""

    def __init__(self, procs: Processes, marquee: Marquee, tmp: Path) -> None:
        self.procs = procs
        self.path = tmp / "polls.txt"
        log = open(tmp / "poller.log", "wb")
        try:
            self.proc = procs.spawn([sys.executable, str(Path(__file__).resolve()), "--poller",
                                     marquee.host, str(marquee.port), str(self.path),
                                     str(POLL_INTERVAL_S)],
                                    stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT)
        finally:
            log.close()
        deadline = time.monotonic() + 10
        while not (self.path.exists() and self.path.stat().st_size > 0):
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise BenchError("the poller did not start:\n" + log_tail(tmp / "poller.log"))
            time.sleep(0.02)

    def stop(self) -> list[Poll]:
        self.procs.end(self.proc, grace_s=5.0)
        polls = []
        for line in self.path.read_text(encoding="ascii", errors="replace").splitlines():
            parts = line.split()
            if parts and parts[0] == "U":
                if float(parts[2]) * 1000 >= STALL_MS:  # else: merely cut off by the stop
                    polls.append(Poll(float(parts[1]), float(parts[2]), "unfinished"))
            elif len(parts) == 5:
                pos = None if parts[4] == "-" else float(parts[4])
                polls.append(Poll(float(parts[0]), float(parts[1]), parts[2], parts[3], pos))
        return polls


# --------------------------------------------------------------------------- the driver

@dataclass
class Reply:
    status: int
    body: dict
    seconds: float

    @property
    def error(self) -> dict:
        return self.body.get("error") or {}


class Driver:
    """The driver's own keep-alive connection, each request bounded by its own timeout; a
    request with no reply in time is a failed step, not a hang."""

    def __init__(self, marquee: Marquee) -> None:
        self.marquee = marquee
        self.conn: http.client.HTTPConnection | None = None

    def close(self) -> None:
        if self.conn is not None:
            self.conn.close()
            self.conn = None

    def call(self, method: str, path: str, body: dict | None = None,
             wait_s: float = WAIT_S) -> Reply:
        data = json.dumps(body).encode() if body is not None else None
        headers = {"Content-Type": "application/json"} if data is not None else {}
        for attempt in (1, 2):
            t0 = time.perf_counter()
            reused = self.conn is not None
            try:
                if self.conn is None:
                    self.conn = self.marquee.connect()
                self.conn.sock.settimeout(wait_s + SOCKET_SLACK_S)
                self.conn.request(method, path, body=data, headers=headers)
                resp = self.conn.getresponse()
                raw = resp.read()
                seconds = time.perf_counter() - t0
                break
            except TimeoutError as exc:
                self.close()
                raise StepFailed(f"{method} {path}: no reply within "
                                 f"{wait_s + SOCKET_SLACK_S:.0f} s (timeout)") from exc
            except (OSError, http.client.HTTPException) as exc:
                self.close()
                if self.marquee.proc.poll() is not None:
                    time.sleep(0.1)
                    raise DaemonGone(f"{method} {path}: marquee exited with "
                                     f"{self.marquee.proc.returncode}") from exc
                stale = reused and isinstance(exc, (http.client.RemoteDisconnected,
                                                    BrokenPipeError, ConnectionResetError))
                if attempt == 2 or not stale:
                    raise StepFailed(f"{method} {path}: {type(exc).__name__}: {exc}") from exc
        try:
            payload = json.loads(raw) if raw else {}
        except ValueError:
            payload = {"error": {"code": "not-json", "message": raw[:200].decode(errors="replace")}}
        return Reply(resp.status, payload if isinstance(payload, dict) else {}, seconds)

    def ok(self, method: str, path: str, body: dict | None = None, wait_s: float = WAIT_S,
           state: str | None = None) -> Reply:
        """call(), and a failed step unless it answers 200 (with `state`, when given)."""
        reply = self.call(method, path, body, wait_s)
        if reply.status != 200:
            err = reply.error
            raise StepFailed(f"{method} {path}: HTTP {reply.status} {err.get('code')}: "
                             f"{str(err.get('message'))[:200]}")
        if state is not None and reply.body.get("state") != state:
            raise StepFailed(f"{method} {path}: state {reply.body.get('state')!r}, not {state!r}")
        return reply

    def snapshot(self) -> dict:
        return self.ok("GET", "/v1/player").body

    def wait_snapshot(self, predicate, what: str, timeout_s: float = WAIT_S) -> dict:
        deadline = time.monotonic() + timeout_s
        while True:
            snap = self.snapshot()
            if predicate(snap):
                return snap
            if time.monotonic() > deadline:
                raise StepFailed(f"{what}: not within {timeout_s:g} s")
            time.sleep(0.05)


def waited(name: str, state: str, timeout_s: float = WAIT_S) -> str:
    return f"/v1/player/{name}?wait={state}&timeout={timeout_s:g}"


# --------------------------------------------------------------------------- media

def make_garbage(tmp: Path) -> Path:
    path = tmp / "garbage.mp4"
    path.write_bytes(random.Random(9).randbytes(GARBAGE_BYTES))
    return path


def make_truncated(tmp: Path) -> Path:
    """A 6 s 640x360 H.264 + AAC MP4 without faststart (mp4mux writes the moov index last), cut
    to its first 40 %: media data with no index, as the daemon's tests use."""
    whole = tmp / "whole-6s.mp4"
    argv = ["gst-launch-1.0", "-q", "-e",
            "videotestsrc", "num-buffers=180", "pattern=ball",
            "!", "video/x-raw,format=I420,width=640,height=360,framerate=30/1",
            "!", "x264enc", "speed-preset=ultrafast", "key-int-max=30", "!", "h264parse",
            "!", "queue", "!", "mp4mux", "name=mux", "!", "filesink", f"location={whole}",
            "audiotestsrc", "num-buffers=180", "samplesperbuffer=1600",
            "!", "audio/x-raw,rate=48000,channels=2", "!", "audioconvert", "!", "avenc_aac",
            "!", "aacparse", "!", "queue", "!", "mux."]
    result = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, timeout=120)
    if result.returncode != 0 or not whole.exists():
        raise BenchError("encoding the clip to truncate failed:\n"
                         + result.stderr.decode(errors="replace")[-2000:])
    data = whole.read_bytes()
    path = tmp / "truncated.mp4"
    path.write_bytes(data[:len(data) * 40 // 100])
    return path


def make_renditions(root: Path, procs: Processes) -> None:
    """Audio-only AAC renditions beside hls.py's ladder (root/audio_LANG/index.m3u8), one
    hlssink2 each, accepted once the playlist has #EXT-X-ENDLIST (as hls.py does), and a
    master playlist (master-audio.m3u8) with the ladder's variants in audio group "aud"."""
    running = []
    for lang, _, freq in RENDITIONS:
        out = root / f"audio_{lang}"
        out.mkdir(parents=True)
        argv = ["gst-launch-1.0", "-q", "-e",
                "audiotestsrc", f"num-buffers={HLS_SECONDS * 48000 // 1024}", "samplesperbuffer=1024",
                f"freq={freq}", "!", "audio/x-raw,rate=48000,channels=2", "!", "audioconvert",
                "!", "avenc_aac", "!", "aacparse",
                "!", "hlssink2", f"location={out / 'seg%05d.ts'}", f"playlist-location={out / 'index.m3u8'}",
                "target-duration=1", "playlist-length=0", "max-files=0"]
        running.append((out / "index.m3u8", procs.spawn(argv, stdin=subprocess.DEVNULL,
                                                        stdout=subprocess.DEVNULL,
                                                        stderr=subprocess.DEVNULL)))
    deadline = time.monotonic() + hls.GEN_TIMEOUT_S
    for playlist, proc in running:
        while not (playlist.exists() and "#EXT-X-ENDLIST" in playlist.read_text(errors="replace")):
            if proc.poll() is not None and proc.returncode != 0 or time.monotonic() > deadline:
                raise BenchError(f"no #EXT-X-ENDLIST in {playlist} (exit {proc.poll()})")
            time.sleep(0.05)
        procs.end(proc, grace_s=1.0)
    lines = ["#EXTM3U", "#EXT-X-VERSION:3"]
    for n, (lang, name, _) in enumerate(RENDITIONS):
        lines.append(f'#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aud",NAME="{name}",LANGUAGE="{lang}",'
                     f'DEFAULT={"YES" if n == 0 else "NO"},AUTOSELECT=YES,URI="audio_{lang}/index.m3u8"')
    for vid, width, height, kbps in hls.LADDER:
        lines.append(f"#EXT-X-STREAM-INF:BANDWIDTH={int(kbps * 1000 * 1.2) + 160000},"
                     f'RESOLUTION={width}x{height},CODECS="avc1.42c01e,mp4a.40.2",AUDIO="aud"')
        lines.append(f"{vid}/index.m3u8")
    (root / "master-audio.m3u8").write_text("\n".join(lines) + "\n")


class Origin(RecordingServer):
    """hls.py's recording origin, also counting the Referer of each GET: the origin takes the
    open's request headers (they reach it through the daemon's header proxy). Each GET is
    answered after `delay_s`, a network round trip."""

    def __init__(self, root: Path, delay_s: float) -> None:
        super().__init__(root)
        self.referers: list[str | None] = []
        outer = self
        base = self.httpd.RequestHandlerClass

        class Handler(base):
            def do_GET(self):
                outer.referers.append(self.headers.get("Referer"))
                if delay_s > 0:
                    time.sleep(delay_s)
                super().do_GET()

        self.httpd.RequestHandlerClass = Handler


# --------------------------------------------------------------------------- steps

@dataclass
class Step:
    name: str
    start: float  # time.monotonic()
    end: float = 0.0  # of the command, before the dwell
    outcome: str = "ok"  # ok, FAILED, TIMEOUT, skipped
    detail: str = ""
    polls: list[Poll] = field(default_factory=list)


class Context:
    """What the steps share: the daemon, the driver, the event stream, the media."""

    def __init__(self, args, marquee: Marquee, driver: Driver, events: EventStream,
                 media: dict, origin: Origin, procs: Processes, tmp: Path) -> None:
        self.args = args
        self.marquee = marquee
        self.driver = driver
        self.events = events
        self.media = media
        self.origin = origin
        self.procs = procs
        self.tmp = tmp
        self.steps: list[Step] = []
        self.seeks: list[dict] = []  # the seeks of the steps, with their landing
        self.udp_source: subprocess.Popen | None = None
        self.udp_uri = ""
        self.hls_audio: list[str] = []
        self.hls_variants: list[str] = []


def near_target(pos, target: float, exact: bool) -> bool:
    """Where a seek lands: within 0.25 s of the target (exact), or on the keyframe before it."""
    low, high = (target - 0.25, target + 0.25) if exact else (target - 1.1, target + 0.3)
    return isinstance(pos, (int, float)) and low <= pos <= high


def sse_landing(events: EventStream, t0: float, target: float, exact: bool) -> float | None:
    """Seconds from t0 to the first SSE `position` event near the target: the daemon sends one,
    forced, at the seek's ASYNC_DONE (run.py's EventStream stamps events on arrival)."""

    def near(event: dict) -> bool:
        data = event.get("data")
        return (event.get("type") == "position" and isinstance(data, dict)
                and near_target(data.get("position"), target, exact))

    try:
        arrived, _ = events.wait_for(near, LANDING_WAIT_S)
    except BenchError:
        return None
    return arrived - t0


def timed_seek(ctx: Context, target: float, exact: bool) -> dict:
    """seek?wait=playing: a record with `reply` (seconds to the reply), `sse` (seconds to the
    SSE landing, or None) and `sent` (time.monotonic(), for the poll landing found later)."""
    ctx.events.drain()
    body: dict = {"position": target}
    if exact:
        body["exact"] = True
    sent = time.monotonic()
    t0 = time.perf_counter()
    reply = ctx.driver.ok("POST", waited("seek", "playing"), body, state="playing")
    return {"target": target, "mode": "exact" if exact else "key", "sent": sent,
            "reply": reply.seconds, "sse": sse_landing(ctx.events, t0, target, exact),
            "poll": None, "position": reply.body.get("position")}


def poll_landings(records: list[dict], polls: list[Poll]) -> None:
    """Each seek's `poll`: seconds from sending the seek to the arrival of the first poll that
    shows playback going on from the target: sent after the seek, `playing`, its position near
    the target and ahead of the poll before it, which was near the target too. (A snapshot
    shows the target as soon as the flush is done, before the frame is decoded: the position
    standing still there is not a landing.) Looked for within LANDING_WAIT_S."""
    ordered = sorted((p for p in polls if p.ok), key=lambda p: p.sent)
    starts = [p.sent for p in ordered]
    records = sorted(records, key=lambda r: r["sent"])
    for n, rec in enumerate(records):
        exact = rec["mode"] == "exact"
        until = rec["sent"] + LANDING_WAIT_S
        if n + 1 < len(records):
            until = min(until, records[n + 1]["sent"])  # not past the next seek
        previous = None
        for p in ordered[bisect.bisect_left(starts, rec["sent"]):]:
            if p.sent > until:
                break
            if not (p.state == "playing" and near_target(p.position, rec["target"], exact)):
                previous = None
                continue
            if previous is not None and p.position > previous + 0.0005:
                rec["poll"] = p.sent + p.latency - rec["sent"]
                break
            previous = p.position


def garbage_open(ctx: Context, kind: str = "garbage") -> tuple[float, str, float | None]:
    """Opens media[kind] (garbage or truncated) with ?wait=playing: (seconds to the reply, its
    error code, seconds to the SSE `error` event or None). A 200 reply (it played) fails."""
    ctx.events.drain()
    t0 = time.perf_counter()
    reply = ctx.driver.call("POST", waited("open", "playing", GARBAGE_WAIT_S),
                            {"uri": ctx.media[kind].as_uri()}, wait_s=GARBAGE_WAIT_S)
    if reply.status == 200:
        raise StepFailed(f"the {kind} file replied 200 with state {reply.body.get('state')!r}")
    code = str(reply.error.get("code"))
    try:
        arrived, _ = ctx.events.wait_for(lambda e: e.get("type") == "error", 1.0)
        event_s = arrived - t0
    except BenchError:
        event_s = None
    return reply.seconds, code, event_s


def build_plan(ctx: Context) -> list[tuple[str, list[tuple[str, object]], object]]:
    """Sections of named steps; a failed step skips the rest of its section, and the section's
    cleanup (unnamed in the plan, run as a step of its own) always runs."""
    d = ctx.driver
    clip_uri = ctx.media["clip"].as_uri()

    def open_clip():
        r = d.ok("POST", waited("open", "playing"), {"uri": clip_uri}, state="playing")
        return f"reply {1000 * r.seconds:.0f} ms"

    def seek(target: float, exact: bool):
        def run():
            rec = timed_seek(ctx, target, exact)
            ctx.seeks.append(rec)
            land = "no SSE landing" if rec["sse"] is None else f"SSE landing {1000 * rec['sse']:.0f} ms"
            return f"reply {1000 * rec['reply']:.0f} ms, {land}, position {rec['position']}"
        return run

    def rate(value: float):
        def run():
            r = d.ok("PATCH", f"/v1/player?wait=playing&timeout={WAIT_S}", {"rate": value}, state="playing")
            if r.body.get("rate") != value:
                raise StepFailed(f"rate {value}: the reply says rate {r.body.get('rate')!r}")
            return f"reply {1000 * r.seconds:.0f} ms"
        return run

    def pip_on():
        d.ok("POST", "/v1/pip", {"uri": str(ctx.media["inset"])})
        d.wait_snapshot(lambda s: (s.get("pip") or {}).get("state") == "playing", "pip.state playing")
        return ""

    def pip_off():
        d.ok("DELETE", "/v1/pip")
        return ""

    def stop():
        r = d.ok("POST", waited("stop", "idle"), state="idle")
        return f"reply {1000 * r.seconds:.0f} ms"

    def file_cleanup():
        d.call("DELETE", "/v1/pip")
        d.call("PATCH", "/v1/player", {"rate": 1})
        return stop()

    def hls_open():
        body = {"uri": ctx.origin.url("master-audio.m3u8"), "headers": {"Referer": REFERER}}
        r = d.ok("POST", waited("open", "playing"), body, state="playing")
        snap = d.wait_snapshot(lambda s: len((s.get("tracks") or {}).get("audio") or []) >= 2
                               and s.get("variants"), "two audio tracks and the variants")
        ctx.hls_audio = [t["id"] for t in snap["tracks"]["audio"]]
        ctx.hls_variants = [v["id"] for v in snap["variants"]]
        return (f"reply {1000 * r.seconds:.0f} ms; variants {', '.join(ctx.hls_variants)}; "
                f"audio {', '.join(ctx.hls_audio)}")

    def variant(index: int | None):
        def run():
            vid = "auto" if index is None else ctx.hls_variants[index]
            r = d.ok("POST", f"/v1/player/variant?wait=playing&timeout={WAIT_S}", {"id": vid})
            return f"{vid}: reply {1000 * r.seconds:.0f} ms"
        return run

    def audio(n: int):
        def run():
            tid = ctx.hls_audio[(n + 1) % len(ctx.hls_audio)]  # the default is the first
            r = d.ok("POST", f"/v1/player/tracks/audio?wait=playing&timeout={WAIT_S}", {"id": tid})
            return f"{tid}: reply {1000 * r.seconds:.0f} ms"
        return run

    def garbage(kind: str):
        def run():
            reply_s, code, event_s = garbage_open(ctx, kind)
            ev = "" if event_s is None else f", SSE error {1000 * event_s:.0f} ms"
            return f"{code} after {1000 * reply_s:.0f} ms{ev}"
        return run

    def hls_playing():
        time.sleep(HLS_PLAY_S)
        snap = d.snapshot()
        return f"state {snap.get('state')}, position {snap.get('position')}"

    def udp_start():
        port = free_udp_port()
        ctx.udp_uri = f"udp://127.0.0.1:{port}"
        ctx.udp_source = start_live_source(ctx.procs, ctx.tmp, port)
        return ctx.udp_uri

    def udp_open():
        r = d.ok("POST", waited("open", "playing", 15), {"uri": ctx.udp_uri,
                 "timeshift": {"window": TIMESHIFT_WINDOW_S}}, wait_s=15, state="playing")
        return f"reply {1000 * r.seconds:.0f} ms"

    def recording():
        time.sleep(ctx.args.record_seconds)
        snap = d.snapshot()
        return f"live {json.dumps(snap.get('live'))}"

    def ts_seek(offset: float):
        def run():
            before = d.snapshot().get("position")
            r = d.ok("POST", waited("seek", "playing"), {"offset": offset}, state="playing")
            return (f"reply {1000 * r.seconds:.0f} ms, position {before} -> "
                    f"{r.body.get('position')}")
        return run

    def go_live():
        r = d.ok("POST", waited("live", "playing"), state="playing")
        return f"reply {1000 * r.seconds:.0f} ms, behind {(r.body.get('live') or {}).get('behind')}"

    def udp_cleanup():
        detail = stop()
        if ctx.udp_source is not None:
            ctx.procs.end(ctx.udp_source)
            ctx.udp_source = None
        return detail

    def idle():
        time.sleep(1.0)
        return ""

    seeks = [(f"seek {t:g} {'exact' if exact else 'key-unit'}", seek(t, exact))
             for exact in (False, True) for t in SEEK_TARGETS]

    def hls_section(tag: str):
        return (f"hls {tag}", [(f"hls{tag}: {HLS_OPEN_STEP}", hls_open),
                               *[(f"hls{tag}: variant pin {i + 1}", variant(i))
                                 for i in range(len(hls.LADDER))],
                               (f"hls{tag}: variant auto", variant(None)),
                               *[(f"hls{tag}: audio switch {n + 1}", audio(n)) for n in range(6)],
                               (f"hls{tag}: playing {HLS_PLAY_S:g} s (no command)", hls_playing)],
                (f"hls{tag}: stop", stop))

    return [
        ("idle", [("idle (no command)", idle)], None),
        hls_section("1"),  # the daemon's first open: plugins not loaded yet
        ("file", [("file open", open_clip), *seeks,
                  ("rate 2", rate(2.0)), ("rate 0.5", rate(0.5)), ("rate 1", rate(1.0)),
                  ("pip on", pip_on), ("pip off", pip_off)], ("stop", file_cleanup)),
        hls_section("2"),  # the same after files played
        ("garbage", [("garbage open -> error", garbage("garbage"))], None),
        ("truncated", [("file open (before truncated)", open_clip),
                       ("truncated mp4 open -> error", garbage("truncated"))], None),
        ("udp", [("udp source start (no command)", udp_start),
                 ("udp open (timeshift 60)", udp_open),
                 (f"timeshift recording {ctx.args.record_seconds:g} s", recording),
                 ("timeshift seek -5", ts_seek(-5)), ("timeshift seek -10", ts_seek(-10)),
                 ("go live", go_live)], ("stop (udp)", udp_cleanup)),
        ("idle after", [("idle after (no command)", idle)], None),
    ]


def run_steps(ctx: Context) -> None:
    def one(name: str, fn) -> bool:
        # The first pin follows the HLS open's reply at once, as from a client that opens at
        # a fixed quality (when that open was the daemon's first, the baseline froze for 10 s
        # on this pin in 2 of 3 tries).
        dwell = 0.0 if name.endswith(HLS_OPEN_STEP) else ctx.args.dwell
        s = Step(name, time.monotonic())
        ctx.steps.append(s)
        step(f"step: {name}")
        try:
            s.detail = fn() or ""
        except DaemonGone:
            s.end, s.outcome = time.monotonic(), "FAILED"
            raise
        except StepFailed as exc:
            s.outcome = "TIMEOUT" if "(timeout)" in str(exc) or "not within" in str(exc) else "FAILED"
            s.detail = str(exc)
            step(f"  {s.outcome}: {exc}")
        s.end = time.monotonic()
        time.sleep(dwell)
        return s.outcome == "ok"

    for _, steps, cleanup in build_plan(ctx):
        failed = False
        for name, fn in steps:
            if failed:
                ctx.steps.append(Step(name, time.monotonic(), time.monotonic(), "skipped",
                                      "an earlier step of its section failed"))
                continue
            failed = not one(name, fn)
        if cleanup is not None:
            one(*cleanup)


def assign_polls(steps: list[Step], polls: list[Poll]) -> list[Poll]:
    """Each poll goes to the step current when it was sent; returns those sent before the first."""
    timed = [s for s in steps if s.outcome != "skipped"]
    before, i = [], 0
    for p in sorted(polls, key=lambda p: p.sent):
        if not timed or p.sent < timed[0].start:
            before.append(p)
            continue
        while i + 1 < len(timed) and p.sent >= timed[i + 1].start:
            i += 1
        timed[i].polls.append(p)
    return before


# --------------------------------------------------------------------------- side by side

def compare_bad_file(ctx: Context, mpv: Mpv, kind: str, run: int, res: dict) -> None:
    """One run of media[kind] (garbage or truncated): Marquee open?wait=playing to its error
    reply; mpv warm (IPC loadfile to end-file); mpv cold (a process, until it exits)."""
    path = ctx.media[kind]
    try:
        reply_s, code, event_s = garbage_open(ctx, kind)
        res["marquee"].append(reply_s)
        res["codes"][code] = res["codes"].get(code, 0) + 1
        if event_s is not None:
            res["marquee_event"].append(event_s)
    except StepFailed as exc:
        res["failures"].append(f"marquee {kind} run {run}: {exc}")
    mpv.drain_events()
    t0 = time.perf_counter()
    mpv.send("loadfile", str(path))
    deadline = t0 + GARBAGE_WAIT_S
    while True:
        try:
            arrived, msg = mpv.events.get(timeout=max(0.01, deadline - time.perf_counter()))
        except queue.Empty:
            res["failures"].append(f"mpv {kind} run {run}: no end-file within {GARBAGE_WAIT_S} s")
            break
        if msg.get("event") == "end-file":
            res["mpv"].append(arrived - t0)
            res["mpv_reason"] = f"{msg.get('reason')} ({msg.get('file_error', '')})"
            break
    t0 = time.perf_counter()
    proc = ctx.procs.spawn(["mpv", "--vo=null", "--ao=null", "--no-config", "--no-terminal", str(path)],
                           stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        proc.wait(timeout=GARBAGE_WAIT_S)
        res["mpv_cold"].append(time.perf_counter() - t0)
        res["mpv_cold_exit"] = proc.returncode
    except subprocess.TimeoutExpired:
        res["failures"].append(f"mpv (process) {kind} run {run}: still running after {GARBAGE_WAIT_S} s")
    ctx.procs.end(proc)


def compare(ctx: Context, mpv: Mpv, runs: int) -> dict:
    """Per run: the seeks (Marquee, then mpv), then the garbage and the truncated file, each
    right after a file played, as in the steps. Poller time is counted under (compare: ...)."""
    res: dict = {kind: {"marquee": [], "marquee_event": [], "mpv": [], "mpv_cold": [], "codes": {},
                        "failures": []} for kind in ("garbage", "truncated")}
    res["seek"] = {"records": [], "mpv_key": [], "mpv_exact": [], "failures": []}
    for i in range(1, runs + 1):
        for name, action in (("seeks", lambda: compare_seeks(ctx, mpv, i, res["seek"])),
                             ("garbage", lambda: compare_bad_file(ctx, mpv, "garbage", i,
                                                                  res["garbage"])),
                             ("truncated", lambda: compare_bad_file(ctx, mpv, "truncated", i,
                                                                    res["truncated"]))):
            step(f"compare {name} {i}/{runs}")
            st = Step(f"(compare: {name}, Marquee + mpv)", time.monotonic())
            ctx.steps.append(st)
            action()
            st.end = time.monotonic()
    return res


def compare_seeks(ctx: Context, mpv: Mpv, run: int, res: dict) -> None:
    plan = [(mode, t) for mode in ("key", "exact") for t in SEEK_TARGETS]
    d = ctx.driver
    try:
        d.ok("POST", waited("open", "playing"), {"uri": ctx.media["clip"].as_uri()}, state="playing")
        for mode, target in plan:
            res["records"].append(timed_seek(ctx, target, mode == "exact"))
            time.sleep(SEEK_PAUSE_S)
        d.ok("POST", waited("stop", "idle"), state="idle")
    except StepFailed as exc:
        res["failures"].append(f"marquee seek run {run}: {exc}")
        try:
            d.call("POST", waited("stop", "idle"))
        except StepFailed:
            pass
    try:
        mpv.load(ctx.media["clip"])
        for mode, target in plan:
            elapsed, _ = mpv.seek(target, exact=(mode == "exact"))
            res[f"mpv_{mode}"].append(elapsed)
            time.sleep(SEEK_PAUSE_S)
        mpv.stop()
    except BenchError as exc:
        res["failures"].append(f"mpv seek run {run}: {exc}")


# --------------------------------------------------------------------------- report

def fmt_ms(value: float) -> str:
    return "-" if value is None or math.isnan(value) else (f"{value:.1f}" if value < 1000 else f"{value:.0f}")


def step_rows(ctx: Context) -> tuple[list[tuple[str, ...]], list[str]]:
    """One row per step name (the compare steps repeat once per run and are merged)."""
    merged: dict[str, list[Step]] = {}
    for st in ctx.steps:
        merged.setdefault(st.name, []).append(st)
    rows, misses = [], []
    for name, group in merged.items():
        polls = [p for st in group for p in st.polls]
        lat = [1000 * p.latency for p in polls]
        bad = sum(1 for p in polls if not p.ok)
        outcomes = sorted({st.outcome for st in group})
        if outcomes == ["skipped"]:
            rows.append((name, "-", "skipped", "", "", "", "", ""))
            continue
        worst = max(lat) if lat else math.nan
        p99 = percentile(lat, 99) if lat else math.nan
        good = lat and worst < TARGET_WORST_MS and p99 < TARGET_P99_MS and not bad
        verdict = "-" if not lat else ("ok" if good else "MISS")
        if verdict == "MISS":
            misses.append(name)
        rows.append((name, f"{1000 * sum(st.end - st.start for st in group):.0f}", "/".join(outcomes),
                     str(len(lat)), str(bad) if bad else "", fmt_ms(worst), fmt_ms(p99), verdict))
    return rows, misses


def comparison_rows(res: dict) -> list[tuple[str, ...]]:
    rows = []

    def row(label, m: list[float], peer: str, p: list[float]):
        ms_m, ms_p = Series(ms(m)), Series(ms(p))
        r = ms_m.median / ms_p.median if ms_m.values and ms_p.values and ms_p.median else math.nan
        rows.append((label, ms_m.fmt(1), peer, ms_p.fmt(1) if p else "",
                     "-" if math.isnan(r) else f"{r:.2f}", "", ""))

    for kind in ("garbage", "truncated"):
        g = res[kind]
        row(f"{kind} open -> error reply (ms)", g["marquee"], "mpv IPC loadfile -> end-file", g["mpv"])
        row(f"{kind} open -> error reply (ms)", g["marquee"], "mpv process until exit", g["mpv_cold"])
        row(f"{kind} open -> SSE error event (ms)", g["marquee_event"], "", [])
    s = res["seek"]
    for mode, label in (("key", "key-unit"), ("exact", "exact")):
        recs = [r for r in s["records"] if r["mode"] == mode]
        mpv = s[f"mpv_{mode}"]
        row(f"seek {label}: ?wait=playing reply (ms)", [r["reply"] for r in recs],
            "mpv seek -> playback-restart", mpv)
        row(f"seek {label}: landed, by poll (ms)", [r["poll"] for r in recs if r["poll"] is not None],
            "mpv seek -> playback-restart", mpv)
        row(f"seek {label}: landed, by SSE (ms)", [r["sse"] for r in recs if r["sse"] is not None],
            "mpv seek -> playback-restart", mpv)
        row(f"seek {label}: reply - landed by poll (ms)",
            [r["reply"] - r["poll"] for r in recs if r["poll"] is not None], "", [])
    return rows


def failures(res: dict) -> list[str]:
    return [f for key in ("garbage", "truncated", "seek") for f in res.get(key, {}).get("failures", [])]


def report(ctx: Context, polls: list[Poll], before: list[Poll], res: dict,
           daemon: dict, notes: list[str]) -> list[str]:
    args = ctx.args
    rows, misses = step_rows(ctx)
    all_lat = [1000 * p.latency for p in polls]
    print()
    print(f"Marquee responsiveness benchmark: GET /v1/player every {1000 * POLL_INTERVAL_S:g} ms on "
          f"one keep-alive connection (a separate process), counted in the step current when "
          f"sent; targets per step: worst < {TARGET_WORST_MS:g} ms, p99 < {TARGET_P99_MS:g} ms")
    load = " ".join(f"{v:.2f}" for v in os.getloadavg())
    print(f"machine: {os.cpu_count()} CPUs, {platform_line()}; load average {load} at the end")
    print(f"marquee: {args.marquee}")
    print()
    grid(("step", "step ms", "result", "polls", "errors", "worst ms", "p99 ms", "verdict"), rows)
    if all_lat:
        print(f"all polls: {len(all_lat)}, p50 {percentile(all_lat, 50):.2f} ms, p99 "
              f"{percentile(all_lat, 99):.2f} ms, worst {max(all_lat):.0f} ms; "
              f"{len(before)} before the first step")
    print()
    print("step details:")
    for st in ctx.steps:
        if st.detail:
            print(f"  {st.name}: {st.detail}")
    stalls = sorted((p for p in polls if p.latency * 1000 >= STALL_MS or not p.ok),
                    key=lambda p: -p.latency)[:12]
    if stalls:
        t0 = ctx.steps[0].start if ctx.steps else 0.0
        owner = {id(p): st.name for st in ctx.steps for p in st.polls}
        print()
        print(f"slowest polls (>= {STALL_MS:g} ms or not 200), time since the first step:")
        for p in sorted(stalls, key=lambda p: p.sent):
            print(f"  t={p.sent - t0:7.2f} s  {1000 * p.latency:8.0f} ms  {p.status:>10}  "
                  f"state {p.state:<9} in {owner.get(id(p), '(before the steps)')}")
    print()
    print(f"Side by side with mpv ({args.runs} runs, interleaved; median (min..max)); mpv is "
          f"`--no-config --vo=null --ao=null`, warm over JSON IPC, or a process per file")
    if "seek" in res:
        print_table(comparison_rows(res))
    print()
    for kind, what in (("garbage", f"{GARBAGE_BYTES / 1e6:g} MB of random bytes named .mp4"),
                       ("truncated", "the first 40 % of a 6 s MP4 whose moov index is at the end")):
        g = res.get(kind) or {"codes": {}}
        codes = ", ".join(f"{c} x{n}" for c, n in sorted(g["codes"].items())) or "-"
        print(f"{kind}: {what}; Marquee error codes: {codes}; mpv end-file: "
              f"{g.get('mpv_reason', '-')}, process exit code {g.get('mpv_cold_exit', '-')}")
    print(f"seek: targets {', '.join(f'{t:g}' for t in SEEK_TARGETS)} s, key-unit then exact, per run, "
          f"from sending the seek. Marquee `landed, by poll`: the arrival of the first 5 ms poll sent "
          f"after the seek whose snapshot is `playing` near the target (within 0.25 s, or the "
          f"keyframe before it) and ahead of the poll before it: playback going on from there (an upper bound, "
          f"one poll late at most); `landed, by SSE`: the first SSE `position` event near the target "
          f"(the daemon forces one at the seek's ASYNC_DONE, so it can come no sooner than that). "
          f"mpv: `seek T absolute+keyframes|absolute+exact` to its `playback-restart` event")
    for how in ("poll", "sse"):
        missed = sum(1 for r in res.get("seek", {}).get("records", []) if r[how] is None)
        if missed:
            notes.append(f"seek: {missed} Marquee seeks had no {how} landing near the target within "
                         f"{LANDING_WAIT_S:g} s (left out of `landed, by {how}`)")
    step_seeks = [r for r in ctx.seeks if r["poll"] is not None]
    if step_seeks:
        print("seek steps, reply / landed by poll (ms): " + ", ".join(
            f"{r['target']:g} {r['mode']} {1000 * r['reply']:.0f}/{1000 * r['poll']:.0f}" for r in step_seeks))
    refs = ctx.origin.referers
    if refs:
        with_ref = sum(1 for r in refs if r == REFERER)
        print(f"HLS origin: {len(refs)} GETs, {with_ref} with Referer {REFERER}")
        if with_ref < len(refs):
            notes.append(f"HLS origin: {len(refs) - with_ref} GETs came without the Referer")
    print(f"daemon: exit code {daemon.get('exit_code')} on SIGTERM after {daemon.get('stop_s', 0):.1f} s")
    if daemon.get("exit_code") != 0:
        notes.append(f"marquee exited with {daemon.get('exit_code')} on SIGTERM (expected 0)")
    for flag in log_flags(ctx.marquee.log):
        notes.append(f"daemon log: {flag}")
    for failure in failures(res):
        notes.append(f"failed: {failure}")
    for note in notes:
        print(f"note: {note}")
    return misses


# --------------------------------------------------------------------------- main

def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="Control-API responsiveness benchmark for Marquee.")
    parser.add_argument("--runs", type=int, default=None, help="runs of the mpv comparisons (default 5)")
    parser.add_argument("--quick", action="store_true", help="3 runs, shorter pauses between steps")
    parser.add_argument("--marquee", type=Path, default=DEFAULT_MARQUEE,
                        help="the marquee binary (default .build/release/marquee)")
    parser.add_argument("--json", type=Path, default=None, help="also write the results here")
    parser.add_argument("--origin-delay-ms", type=float, default=ORIGIN_DELAY_MS,
                        help=f"the HLS origin answers each GET after this long (default {ORIGIN_DELAY_MS:g})")
    parser.add_argument("--log", type=Path, default=None,
                        help="copy the daemon's log here at the end (also after an error)")
    args = parser.parse_args(argv)
    if args.runs is None:
        args.runs = 3 if args.quick else 5
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    args.dwell = 0.3 if args.quick else 0.7  # after each step, polls still counted in it
    args.record_seconds = 12.0  # before the timeshift seeks: -10 needs that much behind
    return args


def run(args, procs: Processes, tmp: Path) -> dict:
    require(("gst-launch-1.0", "mpv"), args.marquee)
    step("generating the clips, the garbage file and the HLS ladder with audio renditions")
    hls.CLIP_SECONDS = HLS_SECONDS  # make_ladder reads it when it runs
    media = {"clip": make_clip(tmp), "inset": make_inset_clip(tmp), "garbage": make_garbage(tmp),
             "truncated": make_truncated(tmp)}
    make_ladder(tmp / "hls", procs)
    make_renditions(tmp / "hls", procs)
    origin = Origin(tmp / "hls", args.origin_delay_ms / 1000.0)
    notes: list[str] = []
    try:
        step("starting marquee")
        marquee = Marquee(args.marquee, procs, tmp)
        marquee.start()
        driver = Driver(marquee)
        driver.snapshot()
        events = EventStream(marquee)
        ctx = Context(args, marquee, driver, events, media, origin, procs, tmp)
        step("starting the poller")
        poller = Poller(procs, marquee, tmp)
        time.sleep(0.5)
        gone: DaemonGone | None = None
        res: dict = {}
        mpv = None
        try:
            run_steps(ctx)
            step("starting mpv")
            mpv = Mpv(procs, tmp)
            mpv.start()
            res = compare(ctx, mpv, args.runs)
        except DaemonGone as exc:
            gone = exc
        if poller.proc.poll() is not None:
            notes.append(f"the poller exited early with {poller.proc.returncode}: "
                         + log_tail(tmp / "poller.log", 3))
        polls = poller.stop()
        before = assign_polls(ctx.steps, polls)
        poll_landings(ctx.seeks + res.get("seek", {}).get("records", []), polls)
        if mpv is not None:
            mpv.close()
        events.close()
        driver.close()
        daemon: dict = {}
        if gone is None:
            t0 = time.perf_counter()
            daemon["exit_code"], _ = marquee.stop_daemon()
            daemon["stop_s"] = time.perf_counter() - t0
        else:
            daemon["exit_code"] = marquee.proc.returncode
        misses = report(ctx, polls, before, res, daemon, notes)
    finally:
        origin.close()
    failed = [st.name for st in ctx.steps if st.outcome in ("FAILED", "TIMEOUT")]
    out = {
        "steps": [{"name": st.name, "start": st.start, "end": st.end, "outcome": st.outcome,
                   "detail": st.detail, "polls": len(st.polls),
                   "latencies_ms": [round(1000 * p.latency, 3) for p in st.polls],
                   "statuses": sorted({p.status for p in st.polls})} for st in ctx.steps],
        "step_seeks": ctx.seeks, **res, "daemon": daemon, "notes": notes,
        "misses": misses, "failed_steps": failed,
    }
    if args.json:  # run_reported writes it only after a success
        args.json.write_text(json.dumps(out, indent=2, default=str))
    if gone is not None:
        raise BenchError(f"the daemon went away: {gone}")
    problems = failed + failures(res)
    if problems:
        raise BenchError(f"{len(problems)} failures: " + "; ".join(problems))
    return out


def main(argv: list[str]) -> int:
    if argv[:1] == ["--poller"]:
        return poller_main(argv[1], int(argv[2]), argv[3], float(argv[4]))
    args = parse_args(argv)
    return run_reported(args, "marquee-responsive-bench-", run)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
