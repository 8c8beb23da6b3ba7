#!/usr/bin/env python3
"""Marquee soak test: one daemon for a long time under the mix a box sees in a day, sampled
for resident memory, open file descriptors, threads and CPU.

Usage: python3 bench/soak.py [--minutes N] [--sample-seconds S] [--marquee PATH]
                             [--json PATH] [--log PATH]

Python 3.11 standard library only; the process, daemon, clip, /proc and table helpers come
from run.py, the inset clip, logo, PiP/watermark calls and the snapshot poller from output.py.
What runs side by side for --minutes (see docs/PERFORMANCE.md, "Long life"):

- the operator: rounds of open (the 720p clip, every fifth round demo://) -> three seeks
  (key-unit and exact) -> PiP on -> a watermark (text, random, image in turn) -> pause/play ->
  PiP and watermark off -> stop, with short pauses between;
- event clients coming and going: a WebSocket or an SSE client every half second, each reading
  its first snapshot, at most six open at once (the oldest leaves), plus one SSE client that
  stays for the whole run;
- GET /v1/snapshot.jpg?width=320 twice a second on a keep-alive connection.

Every --sample-seconds it reads VmRSS, the open descriptors, the threads and the CPU time of
the daemon from /proc, always at the same point of a round (the clip playing for 2 s with
the PiP and a watermark on), and the RSS again once that round has stopped (after the
player's heap trim), so that samples compare like with like. At the end it prints the samples as a table, the figures of the idle
daemon after the warm-up and after the run (nothing loaded, no client or connection, 16 s
after the last request and once threads and descriptors have been steady for a second), and
per figure the growth per hour: the least-squares slope over the samples after the first
fifth of the run (at most its first minute), which the warm-up still moves.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import json
import os
import random
import socket
import struct
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from run import (grid, WAIT_TIMEOUT_S, BenchError, EventStream, Marquee,  # noqa: E402
                 Processes, cpu_seconds, make_clip, platform_line, rss_mib, run_reported, step,
                 thread_count)
from output import (INSET_HEIGHT, INSET_WIDTH, Output, Poller, find_binary, load_text,  # noqa: E402
                    log_flags, make_inset_clip, make_logo)

DEFAULT_MINUTES = 30.0
DEFAULT_SAMPLE_S = 30.0
CLIENT_INTERVAL_S = 0.5  # a new event client this often
MAX_CLIENTS = 6  # open at once, besides the one that stays
SNAPSHOT_WIDTH = 320
SEEK_RANGE = (1.0, 25.0)  # within the 30 s clip, clear of its end
WARMUP_ROUNDS = 3
WATERMARKS = ("text", "random", "image")
MAX_INCIDENTS = 20  # refused rounds before the soak gives up
# Idle threads outlive their work: GLib's pool keeps them up to 15 s, and libdispatch's
# workers (snapshot encoding) a few seconds. The idle figures are read after this long.
IDLE_SETTLE_S = 16.0
WS_GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"


# --------------------------------------------------------------------------- clients

class WebSocket:
    """A minimal RFC 6455 client for GET /v1/events: handshake, text frames in, close."""

    def __init__(self, host: str, port: int, timeout_s: float = WAIT_TIMEOUT_S) -> None:
        self.sock = socket.create_connection((host, port), timeout=timeout_s)
        self._buf = b""
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall((f"GET /v1/events HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\n"
                           f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
                           "Sec-WebSocket-Version: 13\r\n\r\n").encode())
        head = self._read_until(b"\r\n\r\n").decode("latin-1")
        expected = base64.b64encode(hashlib.sha1((key + WS_GUID).encode()).digest()).decode()
        if not head.startswith("HTTP/1.1 101") or expected not in head:
            self.sock.close()
            raise BenchError(f"WebSocket handshake refused: {head.splitlines()[0] if head else '(nothing)'}")

    def _read_exact(self, n: int) -> bytes:
        while len(self._buf) < n:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise BenchError("WebSocket: the server closed the connection")
            self._buf += chunk
        data, self._buf = self._buf[:n], self._buf[n:]
        return data

    def _read_until(self, marker: bytes) -> bytes:
        while marker not in self._buf:
            chunk = self.sock.recv(65536)
            if not chunk:
                break
            self._buf += chunk
        head, _, self._buf = self._buf.partition(marker)
        return head

    def _send(self, opcode: int, payload: bytes) -> None:
        mask = os.urandom(4)
        size = len(payload)
        header = bytes([0x80 | opcode])
        if size < 126:
            header += bytes([0x80 | size])
        elif size < 65536:
            header += bytes([0x80 | 126]) + struct.pack(">H", size)
        else:
            header += bytes([0x80 | 127]) + struct.pack(">Q", size)
        self.sock.sendall(header + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload)))

    def receive_text(self) -> str:
        """The next text message (pings answered on the way)."""
        while True:
            b0, b1 = self._read_exact(2)
            size = b1 & 0x7F
            if size == 126:
                size = struct.unpack(">H", self._read_exact(2))[0]
            elif size == 127:
                size = struct.unpack(">Q", self._read_exact(8))[0]
            payload = self._read_exact(size)
            opcode = b0 & 0x0F
            if opcode == 0x1:
                return payload.decode("utf-8")
            if opcode == 0x9:
                self._send(0xA, payload)
            elif opcode == 0x8:
                raise BenchError("WebSocket: the server sent a close frame")

    def close(self) -> None:
        """Close frame (1000), then the server's close frame or end of stream (bounded)."""
        try:
            self._send(0x8, struct.pack(">H", 1000))
            self.sock.settimeout(2.0)
            while True:
                b0, b1 = self._read_exact(2)
                size = b1 & 0x7F
                if size == 126:
                    size = struct.unpack(">H", self._read_exact(2))[0]
                self._read_exact(size)
                if b0 & 0x0F == 0x8:
                    break
        except (OSError, BenchError):
            pass
        finally:
            self.sock.close()


class ClientChurn(threading.Thread):
    """Event clients coming and going, WebSocket and SSE in turn (see the module doc)."""

    def __init__(self, marquee: Marquee) -> None:
        super().__init__(daemon=True)
        self.marquee = marquee
        self.counts = {"websocket": 0, "sse": 0}
        self.errors: list[str] = []
        self._open: list = []
        self._halt = threading.Event()

    def run(self) -> None:
        k = 0
        while not self._halt.wait(CLIENT_INTERVAL_S):
            kind = "websocket" if k % 2 == 0 else "sse"
            k += 1
            try:
                if kind == "websocket":
                    client = WebSocket(self.marquee.host, self.marquee.port)
                    first = json.loads(client.receive_text())
                else:
                    client = EventStream(self.marquee)
                    _, first = client.wait_for(lambda e: True, WAIT_TIMEOUT_S)
                if first.get("type") != "snapshot":
                    self.errors.append(f"{kind}: first event {first.get('type')!r}, not a snapshot")
                self.counts[kind] += 1
                self._open.append(client)
                while len(self._open) > MAX_CLIENTS:
                    self._open.pop(0).close()
            except (OSError, BenchError, ValueError) as exc:
                self.errors.append(f"{time.strftime('%H:%M:%S')} {kind}: {type(exc).__name__}: {exc}")
                if len(self.errors) > 50:
                    return

    def halt(self) -> None:
        self._halt.set()
        self.join(timeout=WAIT_TIMEOUT_S + 5)
        for client in self._open:
            client.close()
        self._open.clear()


# --------------------------------------------------------------------------- the operator

class Operator(threading.Thread):
    """Rounds of open, seeks, PiP, watermark, pause/play, stop (see the module doc). The
    only user of the daemon's shared keep-alive connection while it runs."""

    def __init__(self, output: Output) -> None:
        super().__init__(daemon=True)
        self.output = output
        self.marquee = output.marquee
        self.counts = {"rounds": 0, "opens": 0, "seeks": 0, "pips": 0, "watermarks": 0}
        self.incidents: list[str] = []
        # Called at the same points of every round that plays the clip: PiP and watermark on,
        # 2 s into playing (on_phase); everything stopped again, half a second later (on_idle).
        # Samples taken there compare like with like.
        self.on_phase = None
        self.on_idle = None
        self.fatal: BaseException | None = None
        self._halt = threading.Event()
        self._random = random.Random(8)

    def pause_for(self, seconds: float) -> bool:
        return self._halt.wait(seconds)

    def one_round(self, k: int) -> None:
        m, out = self.marquee, self.output
        demo = k % 5 == 4
        uri = "demo://" if demo else str(out.media["main"])
        snap = m.request("POST", f"/v1/player/open?wait=playing&timeout={WAIT_TIMEOUT_S}", {"uri": uri})
        if snap.get("state") != "playing":
            raise BenchError(f"open {uri} replied with state {snap.get('state')!r}")
        self.counts["opens"] += 1
        if not demo:
            for i in range(3):
                m.seek(round(self._random.uniform(*SEEK_RANGE), 2), exact=i == 1)
                self.counts["seeks"] += 1
        out.start_pip()
        self.counts["pips"] += 1
        out.set_watermark(WATERMARKS[k % len(WATERMARKS)])
        self.counts["watermarks"] += 1
        if self.pause_for(2.0):
            return
        if not demo and self.on_phase is not None:
            self.on_phase()
        m.pause()
        self.pause_for(0.3)
        m.play()
        out.tear_down()  # watermark, PiP, stop
        if not self.pause_for(0.5) and not demo and self.on_idle is not None:
            self.on_idle()

    def run(self) -> None:
        k = 0
        while not self._halt.is_set():
            try:
                self.one_round(k)
                self.counts["rounds"] += 1
            except BenchError as exc:  # an HttpError, a PiP that did not play, a lost daemon
                if self.marquee.proc.poll() is not None or len(self.incidents) >= MAX_INCIDENTS:
                    self.fatal = exc
                    return
                self.incidents.append(f"{time.strftime('%H:%M:%S')} round {k}: {exc}")
                step(f"INCIDENT round {k}: {exc}")
                try:
                    self.output.tear_down()
                except BenchError as again:
                    self.fatal = again
                    return
            k += 1

    def halt(self) -> None:
        self._halt.set()
        self.join(timeout=4 * WAIT_TIMEOUT_S)


# --------------------------------------------------------------------------- measuring

def warm_up_once_each(output: Output) -> None:
    """What the rounds do not do but the soak does, once before the baseline: the first
    snapshot starts libdispatch (its threads, and an epoll, a timerfd and an eventfd that it
    keeps), the first clients load their code paths."""
    m = output.marquee
    output.open(subtitle=False)
    conn = m.connect()
    try:
        _, status, body = output.frame(conn, SNAPSHOT_WIDTH)
    finally:
        conn.close()
    if status != 200:
        raise BenchError(f"GET /v1/snapshot.jpg while playing: HTTP {status}: {body[:300]!r}")
    ws = WebSocket(m.host, m.port)
    ws.receive_text()
    ws.close()
    sse = EventStream(m)
    sse.wait_for(lambda e: True, WAIT_TIMEOUT_S)
    sse.close()
    output.tear_down()


def fd_count(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


def idle_pool_threads(pid: int) -> int:
    """Threads GLib keeps idle in its thread-pool cache ("pool-" + the program name): they
    end after 15 s unused, so they come and go with the timing (see LongLifeTests.swift)."""
    with open(f"/proc/{pid}/comm", encoding="utf-8") as f:
        name = ("pool-" + f.read().strip())[:15]
    count = 0
    for task in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{task}/comm", encoding="utf-8") as f:
                count += f.read().strip() == name
        except OSError:  # the thread ended meanwhile
            pass
    return count


def idle_figures(marquee: Marquee, timeout_s: float = 10.0) -> dict:
    """The idle daemon (nothing loaded, no client, not even the keep-alive connection):
    after IDLE_SETTLE_S, once its threads and descriptors have not changed for a second
    (read every 100 ms), or timeout_s later whatever they are."""
    marquee.close_connection()
    time.sleep(IDLE_SETTLE_S)
    pid = marquee.pid
    deadline = time.perf_counter() + timeout_s
    recent: list[tuple[int, int]] = []
    while True:
        recent = (recent + [(thread_count(pid), fd_count(pid))])[-11:]
        if (len(recent) == 11 and len(set(recent)) == 1) or time.perf_counter() > deadline:
            break
        time.sleep(0.1)
    return {"rss": rss_mib(pid), "threads": recent[-1][0], "fds": recent[-1][1], "pool": idle_pool_threads(pid)}


def slope_per_hour(points: list[tuple[float, float]]) -> tuple[float, float]:
    """Least-squares slope of (seconds, value) per hour, and its standard error; nans with
    fewer than 3 points. The error says how much of the slope is the noise of the samples:
    over a few minutes the sampled RSS moves by more than a leak would in hours."""
    n = len(points)
    if n < 3:
        return float("nan"), float("nan")
    mx = sum(t for t, _ in points) / n
    my = sum(v for _, v in points) / n
    sxx = sum((t - mx) ** 2 for t, _ in points)
    if sxx == 0:
        return float("nan"), float("nan")
    slope = sum((t - mx) * (v - my) for t, v in points) / sxx
    residuals = sum((v - my - slope * (t - mx)) ** 2 for t, v in points)
    return slope * 3600.0, (residuals / (n - 2) / sxx) ** 0.5 * 3600.0


class Sampler:
    """Samples the daemon when asked (`due`), at the operator's phase point (see Operator)."""

    def __init__(self, pid: int, operator: Operator, churn: ClientChurn, poller: Poller) -> None:
        self.pid, self.operator, self.churn, self.poller = pid, operator, churn, poller
        self.samples: list[dict] = []
        self.due = threading.Event()
        self.t0 = time.perf_counter()
        self._idle_pending: dict | None = None
        operator.on_phase = self.take
        operator.on_idle = self.take_idle

    def take(self) -> None:
        if not self.due.is_set():
            return
        now, cpu = time.perf_counter(), cpu_seconds(self.pid)
        last = self.samples[-1] if self.samples else None
        row = {"t": now - self.t0, "cpu_s": cpu, "wall": now, "rss": rss_mib(self.pid),
               "fds": fd_count(self.pid), "threads": thread_count(self.pid), **self.operator.counts,
               **self.churn.counts, "snapshots": sum(self.poller.statuses.values())}
        row["cpu"] = ((cpu - last["cpu_s"]) / (now - last["wall"])) if last else float("nan")
        self._idle_pending = row
        self.samples.append(row)
        self.due.clear()

    def take_idle(self) -> None:
        """RSS of the same round once it has stopped: the player has trimmed the heap then."""
        row, self._idle_pending = self._idle_pending, None
        if row is not None:
            row["rss_idle"] = rss_mib(self.pid)

    def next(self, marquee: Marquee, timeout_s: float = 60.0) -> dict:
        """Asks for a sample and waits for it (the operator takes it within a round or two)."""
        count = len(self.samples)
        self.due.set()
        deadline = time.perf_counter() + timeout_s
        while len(self.samples) == count or "rss_idle" not in self.samples[-1]:
            if marquee.proc.poll() is not None:
                raise BenchError(f"marquee exited with {marquee.proc.returncode} during the soak")
            if self.operator.fatal is not None:
                raise BenchError(f"the operator stopped: {self.operator.fatal}")
            if time.perf_counter() > deadline:
                raise BenchError(f"no round reached the sampling point within {timeout_s:.0f} s")
            time.sleep(0.05)
        return self.samples[-1]


# --------------------------------------------------------------------------- report

def report(args, samples: list[dict], ctx: dict) -> None:
    print()
    print(f"Marquee soak: {args.marquee}, {ctx['minutes']:.1f} min, a sample every {args.sample_seconds:g} s")
    print(f"machine: {platform_line()}, {os.cpu_count()} CPUs; load average {ctx['load_start']} at the "
          f"start, {ctx['load_end']} at the end")
    print(f"media: {ctx['main']}; inset {ctx['inset']}")
    print()
    rows = [(f"{s['t'] / 60:.1f}", f"{s['rss']:.1f}", f"{s.get('rss_idle', float('nan')):.1f}",
             str(s["fds"]), str(s["threads"]),
             "-" if s["cpu"] != s["cpu"] else f"{100 * s['cpu']:.1f}",
             str(s["opens"]), str(s["seeks"]), str(s["pips"]), str(s["watermarks"]),
             str(s["websocket"] + s["sse"]), str(s["snapshots"])) for s in samples]
    grid(("min", "RSS MiB", "stopped", "fds", "threads", "CPU %", "opens", "seeks", "PiPs",
          "watermarks", "clients", "snapshots"), rows)
    print("(RSS, fds, threads: 2 s into playing the clip with PiP and watermark; stopped: RSS of the "
          "same round once stopped; CPU: over the interval before)")
    print()
    before, after = ctx["idle_before"], ctx["idle_after"]
    print(f"idle after warm-up: RSS {before['rss']:.1f} MiB, {before['fds']} fds, {before['threads']} threads "
          f"({before['pool']} of them idle GLib pool threads); idle after the run: RSS {after['rss']:.1f} MiB "
          f"({after['rss'] - before['rss']:+.1f}), {after['fds']} fds ({after['fds'] - before['fds']:+d}), "
          f"{after['threads']} threads ({after['threads'] - before['threads']:+d}; {after['pool']} idle pool)")
    last = samples[-1] if samples else {}
    print(f"done: {last.get('rounds', 0)} rounds, {last.get('opens', 0)} opens, {last.get('seeks', 0)} seeks, "
          f"{last.get('pips', 0)} PiPs, {last.get('watermarks', 0)} watermarks, "
          f"{last.get('websocket', 0)} WebSocket and {last.get('sse', 0)} SSE clients, "
          f"{last.get('snapshots', 0)} snapshots ({ctx['snapshot_statuses']})")
    for line in ctx["incidents"]:
        print(f"incident: {line}")
    for line in ctx["client_errors"][:10]:
        print(f"client error: {line}")
    for line in ctx["log_flags"]:
        print(f"daemon log: {line}")
    if ctx["exit_code"] != 0:
        print(f"note: marquee exited with {ctx['exit_code']} on SIGTERM (expected 0)")
    skip = min(60.0, ctx["minutes"] * 60 / 5)
    fit = [s for s in samples if s["t"] >= skip]
    slopes = {key: slope_per_hour([(s["t"], s[key]) for s in fit if s.get(key, float("nan")) == s.get(key)])
              for key in ("rss", "rss_idle", "fds", "threads", "cpu")}
    ctx["slopes_per_hour"] = slopes

    def fmt(key: str, unit: str, scale: float = 1.0) -> str:
        value, error = slopes[key]
        return f"{scale * value:+.2f} ± {scale * error:.2f}{unit}"

    print(f"growth per hour (least-squares slope ± its standard error, {len(fit)} samples after the first "
          f"{skip:.0f} s): RSS {fmt('rss', ' MiB/h')} (stopped {fmt('rss_idle', ' MiB/h')}), "
          f"fds {fmt('fds', '/h')}, threads {fmt('threads', '/h')}, CPU {fmt('cpu', ' % of a core/h', 100)}")


# --------------------------------------------------------------------------- main

def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="Soak test for the Marquee daemon.")
    parser.add_argument("--minutes", type=float, default=DEFAULT_MINUTES,
                        help=f"how long the mix runs (default {DEFAULT_MINUTES:g})")
    parser.add_argument("--sample-seconds", type=float, default=DEFAULT_SAMPLE_S,
                        help=f"seconds between samples (default {DEFAULT_SAMPLE_S:g})")
    parser.add_argument("--marquee", type=Path, default=None,
                        help="the marquee binary (default .build/release/marquee, built if missing)")
    parser.add_argument("--json", type=Path, default=None, help="also write the samples here")
    parser.add_argument("--log", type=Path, default=None,
                        help="copy the daemon's log here at the end (also after an error)")
    args = parser.parse_args(argv)
    if args.minutes <= 0 or args.sample_seconds < 1:
        parser.error("--minutes must be positive and --sample-seconds at least 1")
    return args


def run(args, procs: Processes, tmp: Path) -> dict:
    args.marquee = find_binary(args)
    ctx: dict = {"load_start": load_text()}
    step("generating the clips and the logo")
    media = {"main": make_clip(tmp), "inset": make_inset_clip(tmp), "logo": make_logo(tmp)}
    ctx["main"] = f"{media['main'].name} (1280x720 H.264 + AAC, 30 s)"
    ctx["inset"] = f"{media['inset'].name} ({INSET_WIDTH}x{INSET_HEIGHT})"

    step("starting marquee")
    marquee = Marquee(args.marquee, procs, tmp)
    marquee.start()
    output = Output(marquee, media)
    operator = Operator(output)
    step(f"warm-up: {WARMUP_ROUNDS} rounds, a snapshot, a WebSocket and an SSE client")
    for k in range(WARMUP_ROUNDS):
        operator.one_round(k)
    warm_up_once_each(output)
    ctx["idle_before"] = idle_figures(marquee)

    step(f"soak: {args.minutes:g} min, a sample every {args.sample_seconds:g} s")
    pid = marquee.pid
    churn = ClientChurn(marquee)
    stays = EventStream(marquee)  # a dashboard that is open the whole time
    poller = Poller(output, SNAPSHOT_WIDTH)
    sampler = Sampler(pid, operator, churn, poller)
    operator.start()
    churn.start()
    t0 = sampler.t0
    end = t0 + args.minutes * 60
    samples = sampler.samples
    try:
        while True:
            s = sampler.next(marquee)
            if s["t"] > 0:
                step(f"{s['t'] / 60:5.1f} min: RSS {s['rss']:.1f} MiB, {s['fds']} fds, {s['threads']} threads, "
                     f"CPU {100 * s['cpu']:.1f} %, {s['rounds']} rounds")
            stays.drain()
            if time.perf_counter() >= end:
                break
            time.sleep(max(0.0, min(end, t0 + len(samples) * args.sample_seconds) - time.perf_counter()))
    finally:
        operator.halt()
        churn.halt()
        stays.close()
        poller.stop()
    ctx["minutes"] = (time.perf_counter() - t0) / 60
    output.tear_down()
    ctx["idle_after"] = idle_figures(marquee)
    ctx["incidents"] = operator.incidents
    ctx["client_errors"] = churn.errors
    ctx["snapshot_statuses"] = ", ".join(f"{n} x {code}" for code, n in sorted(poller.statuses.items()))
    code, _ = marquee.stop_daemon()
    ctx["exit_code"] = code
    ctx["load_end"] = load_text()
    ctx["log_flags"] = log_flags(marquee.log)
    for s in samples:
        del s["cpu_s"], s["wall"]
    report(args, samples, ctx)
    return {"samples": samples, "context": ctx}


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    return run_reported(args, "marquee-soak-", run)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
