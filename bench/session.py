#!/usr/bin/env python3
"""Session-control benchmark: what `--session-url` heartbeats cost the daemon, in CPU and in
round-trip latency, beside peers doing the same work.

Usage: python3 bench/session.py [--runs N] [--marquee PATH] [--json PATH] [--log PATH]

Standard library only; it imports the process, daemon, clip and statistics helpers from
run.py. A session server in this process (http.server, HTTP/1.1 keep-alive) answers every
POST `{"allow": true}` and records its arrival. Two daemons are started, both at
`--log-level debug` (the round trip is read from the session daemon's debug log):

- CPU: one with `--session-url URL --session-interval 1`, its peer the same daemon without
  `--session-url`; each run plays run.py's 720p clip on each in turn (one at a time) for a
  10 s window (utime+stime), then holds it paused for a 10 s window (schedstat, in ns: paused,
  playback costs next to nothing and the heartbeats go on). The paused difference over the
  heartbeats the server received in the window is the CPU per heartbeat; curl's CPU per POST
  (a whole process, its rusage) is printed beside it for scale.
- Latency: the daemon's round trip per heartbeat (its "heartbeat answered" debug line: from
  handing the POST to libsoup on the session thread to the reply read), while playing and
  while paused, beside `curl -s -o /dev/null -w %{time_total}` POSTing the same body to the
  same server, one process per POST (so curl's figure includes its connect; the daemon's
  keep-alive one does not), while the other daemon plays and with nothing playing.
"""

from __future__ import annotations

import http.server
import json
import os
import re
import resource
import subprocess
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import run as bench  # noqa: E402

INTERVAL_S = 1
HEARTBEAT_LINE = re.compile(r"heartbeat answered.*?ms[=:]\"?([0-9.]+)")


class SessionServer:
    """A session server on 127.0.0.1: answers `{"allow": true}`, records arrival times."""

    def __init__(self) -> None:
        self.arrivals: list[tuple[float, str]] = []
        self.lock = threading.Lock()
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:  # noqa: N802
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                try:
                    event = json.loads(body).get("event", "?")
                except ValueError:
                    event = "?"
                with outer.lock:
                    outer.arrivals.append((time.perf_counter(), event))
                reply = b'{"allow": true}'
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(reply)))
                self.end_headers()
                self.wfile.write(reply)

            def log_message(self, *args) -> None:
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/session"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def count(self, since: float, until: float, events=("start", "alive")) -> int:
        with self.lock:
            return sum(1 for t, e in self.arrivals if since <= t <= until and e in events)

    def intervals(self) -> list[float]:
        with self.lock:
            alive = [t for t, e in self.arrivals if e == "alive"]
        return [b - a for a, b in zip(alive, alive[1:]) if b - a < 3 * INTERVAL_S]

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


class Daemon(bench.Marquee):
    """run.py's daemon, with extra `serve` arguments and its own log and data folder."""

    def __init__(self, binary: Path, procs: bench.Processes, tmp: Path, name: str, extra: list[str]) -> None:
        folder = tmp / name
        folder.mkdir()
        super().__init__(binary, procs, folder)
        self.extra = extra

    def start(self, timeout_s: float = 30.0) -> float:
        # Marquee.start builds the argv itself: add ours through the spawn it calls.
        spawn = self.procs.spawn

        def with_extra(argv, **kwargs):
            return spawn(argv + self.extra, **kwargs)

        self.procs.spawn = with_extra
        try:
            return super().start(timeout_s)
        finally:
            self.procs.spawn = spawn


def curl_posts(url: str, count: int) -> tuple[list[float], float]:
    """`count` curl processes POSTing a heartbeat body; their time_total each, and their CPU
    seconds per POST (rusage of the children)."""
    body = json.dumps({"event": "alive", "sessionId": "00000000-0000-0000-0000-000000000000",
                       "deviceId": "00000000-0000-0000-0000-000000000001", "contentId": None, "userId": None})
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    totals = []
    for _ in range(count):
        out = subprocess.run(["curl", "-s", "-o", "/dev/null", "-w", "%{time_total}", "-H",
                              "Content-Type: application/json", "--data", body, url],
                             stdin=subprocess.DEVNULL, capture_output=True, timeout=10, check=True)
        totals.append(float(out.stdout.decode().strip()))
        time.sleep(0.05)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return totals, cpu / count


def run(args, procs: bench.Processes, tmp: Path) -> dict:
    binary = Path(args.marquee)
    if not binary.exists():
        raise bench.BenchError(f"{binary} not found: swift build -c release --product marquee")
    for tool in ("curl", "gst-launch-1.0"):
        if subprocess.run(["which", tool], capture_output=True).returncode != 0:
            raise bench.BenchError(f"{tool} is needed")
    bench.step("generating the clip")
    clip = bench.make_clip(tmp)
    uri = clip.as_uri()
    server = SessionServer()
    debug = ["--log-level", "debug"]
    daemons = {
        "session": Daemon(binary, procs, tmp, "session", debug + ["--session-url", server.url,
                                                                   "--session-interval", str(INTERVAL_S)]),
        "plain": Daemon(binary, procs, tmp, "plain", debug),
    }
    for d in daemons.values():
        d.start()
        d.open(uri)  # warm-up
        d.stop()
    session_log = tmp / "session" / "marquee.log"
    cpu: dict[str, list[float]] = {"session": [], "plain": []}
    paused_ms: dict[str, list[float]] = {"session": [], "plain": []}
    per_beat_ms: list[float] = []
    try:
        for r in range(args.runs):
            order = ("session", "plain") if r % 2 == 0 else ("plain", "session")
            for name in order:
                bench.step(f"run {r + 1}/{args.runs}: {name} playing")
                d = daemons[name]
                d.open(uri)
                time.sleep(1)  # the start heartbeat and the open's work are not in the window
                used, _, _ = bench.sample_cpu(name, d.pid, lambda: d.proc.poll() is None)
                cpu[name].append(used)
                d.stop()
        playing_trips = round_trips(session_log)
        intervals = server.intervals()  # before curl's POSTs, which are `alive` bodies too
        bench.step("curl peer while the daemon without --session-url plays")
        daemons["plain"].open(uri)
        curl_playing, _ = curl_posts(server.url, max(20, args.runs * 4))
        daemons["plain"].stop()
        # Paused, playback costs next to nothing and heartbeats go on: the heartbeat's own CPU,
        # read from schedstat (nanoseconds; /proc/PID/stat counts 10 ms ticks).
        for r in range(args.runs):
            beats = {}
            for name in ("session", "plain") if r % 2 == 0 else ("plain", "session"):
                bench.step(f"run {r + 1}/{args.runs}: {name} paused")
                d = daemons[name]
                d.open(uri)
                d.pause()
                time.sleep(1)
                n0, t0 = run_ns(d.pid), time.perf_counter()
                time.sleep(bench.CPU_WINDOW_S)
                n1, t1 = run_ns(d.pid), time.perf_counter()
                paused_ms[name].append((n1 - n0) / 1e6)
                beats[name] = server.count(t0, t1)
                d.stop()
            if beats["session"]:
                per_beat_ms.append((paused_ms["session"][-1] - paused_ms["plain"][-1]) / beats["session"])
        paused_trips = round_trips(session_log)[len(playing_trips):]
        bench.step("curl peer, nothing playing")
        curl_idle, curl_cpu = curl_posts(server.url, max(20, args.runs * 4))
        codes = {name: d.stop_daemon()[0] for name, d in daemons.items()}
    finally:
        server.close()
    if args.log:
        args.log.write_text(session_log.read_text(encoding="utf-8", errors="replace"))
    if not playing_trips or not paused_trips:
        raise bench.BenchError("no 'heartbeat answered' lines in the session daemon's log")

    print()
    print(f"Session control: heartbeats every {INTERVAL_S} s to a local session server (Python http.server), "
          f"a 720p clip playing or paused; {args.runs} runs, {bench.CPU_WINDOW_S:.0f} s windows, median (min..max)")
    print(f"machine: {os.cpu_count()} CPUs, {bench.platform_line()}; both daemons at --log-level debug")
    rows = []

    def compare(label, m: bench.Series, peer: str, p: bench.Series, digits: int) -> None:
        r = bench.ratio(m, p)
        rows.append((label, m.fmt(digits), peer, p.fmt(digits), "-" if r != r else f"{r:.3f}"))

    compare(f"daemon CPU s over {bench.CPU_WINDOW_S:.0f} s playing", bench.Series(cpu["session"]),
            "without --session-url", bench.Series(cpu["plain"]), 3)
    compare(f"daemon CPU ms over {bench.CPU_WINDOW_S:.0f} s paused (schedstat)", bench.Series(paused_ms["session"]),
            "without --session-url", bench.Series(paused_ms["plain"]), 2)
    compare("CPU ms per heartbeat (paused difference / heartbeats)", bench.Series(per_beat_ms),
            "curl process per POST", bench.Series([curl_cpu * 1000]), 3)
    for label, trips, peer, curl in (("playing", playing_trips, "curl, other daemon playing", curl_playing),
                                     ("paused", paused_trips, "curl, nothing playing", curl_idle)):
        for pct in (50, 99):
            m = bench.percentile(trips, pct) * 1000
            c = bench.percentile(curl, pct) * 1000
            rows.append((f"round trip p{pct}, {label} (ms; n={len(trips)}/{len(curl)})", f"{m:.3f}", peer,
                         f"{c:.3f}", f"{m / c:.3f}"))
    rows.append(("alive interval at the server (s)", bench.Series(intervals).fmt(3), "", "", ""))
    bench.grid(("measurement", "Marquee", "peer", "peer figure", "ratio"), rows)
    for name, code in codes.items():
        if code not in (0, None):
            print(f"note: the {name} daemon exited with {code} on SIGTERM")
    return {"cpu_playing_s": cpu, "cpu_paused_ms": paused_ms, "cpu_per_heartbeat_ms": per_beat_ms,
            "round_trips_playing_s": playing_trips, "round_trips_paused_s": paused_trips,
            "curl_playing_s": curl_playing, "curl_idle_s": curl_idle, "curl_cpu_per_post_s": curl_cpu,
            "alive_intervals_s": intervals}


def run_ns(pid: int) -> int:
    """Nanoseconds on CPU of every thread of `pid` now (/proc/PID/task/*/schedstat)."""
    total = 0
    for task in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{task}/schedstat", encoding="ascii") as f:
                total += int(f.read().split()[0])
        except OSError:
            pass  # a thread that ended meanwhile
    return total


def round_trips(log: Path) -> list[float]:
    """The round trips (s) in the daemon's "heartbeat answered" lines so far."""
    text = log.read_text(encoding="utf-8", errors="replace")
    return [float(m.group(1)) / 1000 for m in HEARTBEAT_LINE.finditer(text)]


def parse_args(argv: list[str]):
    return bench.reported_parser(__doc__).parse_args(argv)


def main(argv: list[str]) -> int:
    return bench.run_reported(parse_args(argv), "marquee-session-bench-", run)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
