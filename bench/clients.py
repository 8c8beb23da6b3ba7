#!/usr/bin/env python3
"""Event clients benchmark: what following a playing player costs the daemon, per 100
WebSocket clients and per 100 Server-Sent Events clients.

Usage: python3 bench/clients.py [--runs N] [--clients N] [--marquee PATH] [--json PATH]

Standard library only; it imports the process, daemon, clip and statistics helpers from
run.py. One daemon plays run.py's 720p clip (looped by re-opening when it ends). Each run
measures three 10 s CPU windows in a rotated order: no clients, N WebSocket clients, N SSE
clients, so the client rows are paired with a baseline from the same run. The clients are
real sockets in this process, read by one selector thread that counts frames and checks
that position events keep arriving; the daemon's CPU is utime+stime from /proc/PID/stat.
"""

from __future__ import annotations

import base64
import os
import selectors
import socket
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import run as bench  # noqa: E402

TARGET_SHARE_PER_100_WS = 0.05  # issue 9: 100 WebSocket clients under 5 % of a core


class Clients:
    """N event clients of one kind, their bytes read by one thread."""

    def __init__(self, host: str, port: int, kind: str, count: int) -> None:
        self.kind = kind
        self.sel = selectors.DefaultSelector()
        self.socks: list[socket.socket] = []
        self.bytes = 0
        self.position_events = 0
        self.stop = threading.Event()
        for _ in range(count):
            sock = socket.create_connection((host, port), timeout=5)
            sock.sendall(self._request(host, port).encode())
            head = b""
            while b"\r\n\r\n" not in head:
                chunk = sock.recv(4096)
                if not chunk:
                    raise bench.BenchError(f"{kind} client: the daemon closed the connection")
                head += chunk
            status = head.split(b"\r\n", 1)[0]
            if (kind == "ws" and b" 101 " not in status) or (kind == "sse" and b" 200 " not in status):
                raise bench.BenchError(f"{kind} client: {status.decode(errors='replace')}")
            sock.setblocking(False)
            self.sel.register(sock, selectors.EVENT_READ)
            self.socks.append(sock)
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _request(self, host: str, port: int) -> str:
        if self.kind == "ws":
            key = base64.b64encode(os.urandom(16)).decode()
            return (f"GET /v1/events HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\n"
                    f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n")
        return f"GET /v1/events HTTP/1.1\r\nHost: {host}:{port}\r\nAccept: text/event-stream\r\n\r\n"

    def _read(self) -> None:
        while not self.stop.is_set():
            for key, _ in self.sel.select(timeout=0.2):
                try:
                    data = key.fileobj.recv(65536)
                except BlockingIOError:
                    continue
                self.bytes += len(data)
                # A position event's JSON names its type; frames are not split across reads
                # often enough to matter for a count that only has to keep rising.
                self.position_events += data.count(b'"type":"position"')

    def close(self) -> None:
        self.stop.set()
        self.thread.join(timeout=2)
        for sock in self.socks:
            sock.close()
        self.sel.close()


def cpu_window(marquee: bench.Marquee) -> float:
    """Share of one core the daemon used over the window."""
    used, seconds, _ = bench.sample_cpu("marquee", marquee.pid, lambda: marquee.proc.poll() is None)
    return used / seconds


def keep_playing(marquee: bench.Marquee, uri: str) -> None:
    """Re-opens the clip when fewer than 12 s are left, so every window plays."""
    snap = marquee.request("GET", "/v1/player")
    if snap.get("state") != "playing" or (snap.get("duration") or 0) - (snap.get("position") or 0) < 12:
        marquee.open(uri)
        time.sleep(1)


def run(args, procs: bench.Processes, tmp: Path) -> dict:
    binary = Path(args.marquee)
    if not binary.exists():
        raise bench.BenchError(f"{binary} not found: swift build -c release --product marquee")
    bench.step("generating the clip")
    clip = bench.make_clip(tmp)
    marquee = bench.Marquee(binary, procs, tmp)
    marquee.start()
    uri = clip.as_uri()
    marquee.open(uri)
    time.sleep(1)
    conditions = ("none", "ws", "sse")
    shares: dict[str, list[float]] = {c: [] for c in conditions}
    events: dict[str, list[float]] = {"ws": [], "sse": []}
    for r in range(args.runs):
        order = conditions[r % 3:] + conditions[:r % 3]
        for cond in order:
            keep_playing(marquee, uri)
            bench.step(f"run {r + 1}/{args.runs}: {cond}")
            clients = None if cond == "none" else Clients(marquee.host, marquee.port, cond, args.clients)
            try:
                time.sleep(1)  # the snapshots every new client gets are not in the window
                before = clients.position_events if clients else 0
                shares[cond].append(cpu_window(marquee))
                if clients:
                    got = (clients.position_events - before) / args.clients / bench.CPU_WINDOW_S
                    if got < 1:
                        raise bench.BenchError(f"{cond} clients received {got:.2f} position events per second each")
                    events[cond].append(got)
            finally:
                if clients:
                    clients.close()
    code, _ = marquee.stop_daemon()
    base = bench.Series(shares["none"])
    print()
    print(f"Event clients: {args.clients} clients of each kind following a playing 720p clip; "
          f"{args.runs} runs, 10 s CPU windows, median (min..max) share of one core")
    rows = [("no clients (baseline)", base.fmt(3), "", "", "")]
    for kind, name in (("ws", "WebSocket"), ("sse", "SSE")):
        diffs = [s - b for s, b in zip(shares[kind], shares["none"])]
        cost = bench.Series(diffs)
        target = f"< {TARGET_SHARE_PER_100_WS * args.clients / 100:.3f}" if kind == "ws" else ""
        verdict = ("ok" if cost.median < TARGET_SHARE_PER_100_WS * args.clients / 100 else "MISS") if target else ""
        rows.append((f"{args.clients} {name} clients", bench.Series(shares[kind]).fmt(3), cost.fmt(3),
                     f"{bench.Series(events[kind]).median:.1f}", f"{target} {verdict}".strip()))
    bench.grid(("condition", "daemon CPU", "cost of the clients", "position events/s per client", "target"), rows)
    if code not in (0, None):
        print(f"note: marquee exited with {code} on SIGTERM")
    return {"shares": shares, "events": events}


def parse_args(argv: list[str]):
    return bench.reported_parser(__doc__, clients=100).parse_args(argv)


def main(argv: list[str]) -> int:
    return bench.run_reported(parse_args(argv), "marquee-clients-bench-", run)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
