#!/usr/bin/env python3
"""Marquee benchmark: the daemon against mpv and gst-launch-1.0, measured in the same run.

Usage: python3 bench/run.py [--runs N] [--marquee PATH] [--quick] [--json PATH]

Python 3.11 standard library only. Generates its own clip with gst-launch-1.0, runs the
players interleaved (one of them playing at a time), and prints medians (min..max) and
ratios next to the targets. See bench/README.md for the method and how to read the table.
"""

from __future__ import annotations

import argparse
import http.client
import json
import math
import os
import queue
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_MARQUEE = REPO_ROOT / ".build" / "release" / "marquee"

CLIP_SECONDS = 30
CLIP_FPS = 30
SEEK_TARGETS = (7.5, 15.5, 22.5)  # mid-GOP: keyframes are every second (key-int-max=30)
CPU_WINDOW_S = 10.0
STATUS_REQUESTS = 2000
REQUEST_TIMEOUT_S = 15.0  # socket timeout for one HTTP request (the server waits <= 10 s)
WAIT_TIMEOUT_S = 10  # ?timeout= for ?wait=, and the bound for waiting on peer events

# Targets: (comparison, limit, unit shown)
TARGET_RATIO_OPEN = 1.0
TARGET_RATIO_SEEK = 1.0
TARGET_RATIO_CPU = 1.05
TARGET_STATUS_P99_MS = 2.0
TARGET_IDLE_RSS_MIB = 30.0

LISTENING_RE = re.compile(r"listening on http://(\[[^\]]+\]|[^\s:/]+):(\d+)")


class BenchError(RuntimeError):
    pass


def require(tools: tuple[str, ...], marquee: Path) -> None:
    """Fails with what to do when a peer tool or the release build is missing."""
    missing = [t for t in tools if shutil.which(t) is None]
    if missing:
        raise BenchError(f"missing {', '.join(missing)}: run scripts/setup.sh --bench")
    if not (marquee.is_file() and os.access(marquee, os.X_OK)):
        raise BenchError(f"{marquee} is not an executable file; swift build -c release --product marquee")


# --------------------------------------------------------------------------- processes

class Processes:
    """Every subprocess the benchmark starts; all are ended by pid in cleanup()."""

    def __init__(self) -> None:
        self._procs: list[subprocess.Popen] = []

    def spawn(self, argv: list[str], **kwargs) -> subprocess.Popen:
        proc = subprocess.Popen(argv, **kwargs)
        self._procs.append(proc)
        return proc

    def end(self, proc: subprocess.Popen, grace_s: float = 3.0) -> int | None:
        """SIGTERM the pid, SIGKILL it after grace_s; returns the exit code."""
        if proc.poll() is None:
            try:
                os.kill(proc.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
            try:
                proc.wait(timeout=grace_s)
            except subprocess.TimeoutExpired:
                try:
                    os.kill(proc.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                proc.wait(timeout=5)
        if proc in self._procs:
            self._procs.remove(proc)
        return proc.returncode

    def cleanup(self) -> None:
        for proc in list(self._procs):
            try:
                self.end(proc, grace_s=2.0)
            except Exception as exc:  # keep going: end the others too
                print(f"warning: could not end pid {proc.pid}: {exc}", file=sys.stderr)


def start_line_reader(stream, log_path: Path, on_line=None) -> threading.Thread:
    """Drains a child's pipe into log_path (so the pipe never fills), calling on_line(line)."""

    def pump() -> None:
        with open(log_path, "a", encoding="utf-8", errors="replace") as log:
            for raw in iter(stream.readline, b""):
                line = raw.decode("utf-8", errors="replace")
                log.write(line)
                log.flush()
                if on_line is not None:
                    on_line(line)

    thread = threading.Thread(target=pump, daemon=True)
    thread.start()
    return thread


def log_tail(path: Path, lines: int = 15) -> str:
    try:
        text = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return "(no log)"
    return "\n".join(text[-lines:]) or "(empty log)"


# --------------------------------------------------------------------------- /proc

CLK_TCK = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    """utime+stime of the whole process: /proc/PID/stat sums all its threads."""
    with open(f"/proc/{pid}/stat", encoding="ascii") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    # fields[0] is field 3 (state); utime and stime are fields 14 and 15
    return (int(fields[11]) + int(fields[12])) / CLK_TCK


def rss_mib(pid: int) -> float:
    with open(f"/proc/{pid}/status", encoding="ascii") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024.0
    raise BenchError(f"no VmRSS for pid {pid}")


def settled_rss_mib(pid: int, timeout_s: float = 5.0) -> float:
    """VmRSS once it has stopped changing: unchanged (within 0.1 MiB) over 0.5 s, read every
    0.1 s. A daemon may go on initializing (the GStreamer registry, say) after it listens."""
    readings = [rss_mib(pid)]
    deadline = time.perf_counter() + timeout_s
    while time.perf_counter() < deadline:
        time.sleep(0.1)
        readings.append(rss_mib(pid))
        window = readings[-6:]
        if len(window) == 6 and max(window) - min(window) <= 0.1:
            break
    return readings[-1]


def thread_count(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/task"))


# --------------------------------------------------------------------------- media

def grid(headers: tuple[str, ...], rows: list[tuple[str, ...]]) -> None:
    widths = [max(len(str(r[i])) for r in [headers, *rows]) for i in range(len(headers))]
    line = "  ".join(h.ljust(w) for h, w in zip(headers, widths)).rstrip()
    print(line)
    print("-" * len(line))
    for row in rows:
        print("  ".join(str(c).ljust(w) for c, w in zip(row, widths)).rstrip())



def make_clip(tmp: Path) -> Path:
    """30 s 1280x720 30 fps H.264 (ultrafast, a keyframe every 30 frames) + AAC in MP4."""
    clip = tmp / "clip-720p30.mp4"
    frames = CLIP_SECONDS * CLIP_FPS
    argv = [
        "gst-launch-1.0", "-q", "-e",
        "videotestsrc", f"num-buffers={frames}", "pattern=smpte", "horizontal-speed=4",
        "!", f"video/x-raw,format=I420,width=1280,height=720,framerate={CLIP_FPS}/1",
        "!", "x264enc", "speed-preset=ultrafast", f"key-int-max={CLIP_FPS}",
        "!", "h264parse", "!", "queue", "!", "mp4mux", "name=mux", "faststart=true",
        "!", "filesink", f"location={clip}",
        # 1600 samples at 48 kHz = 30 buffers per second: exactly as long as the video
        "audiotestsrc", f"num-buffers={frames}", "samplesperbuffer=1600", "wave=sine",
        "!", "audio/x-raw,rate=48000,channels=2",
        "!", "audioconvert", "!", "avenc_aac", "!", "aacparse", "!", "queue", "!", "mux.",
    ]
    result = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, timeout=300)
    if result.returncode != 0 or not clip.exists() or clip.stat().st_size == 0:
        raise BenchError("generating the clip failed:\n"
                         + result.stderr.decode(errors="replace")[-2000:])
    return clip


# --------------------------------------------------------------------------- Marquee

class HttpError(BenchError):
    def __init__(self, status: int, body: str, what: str) -> None:
        super().__init__(f"{what}: HTTP {status}: {body[:500]}")
        self.status = status


class Marquee:
    """The daemon under test, driven over its HTTP API (API.md)."""

    def __init__(self, binary: Path, procs: Processes, tmp: Path) -> None:
        self.binary = binary
        self.procs = procs
        self.log = tmp / "marquee.log"
        self.data_dir = tmp / "marquee-data"
        self.proc: subprocess.Popen | None = None
        self.host = ""
        self.port = 0
        self._conn: http.client.HTTPConnection | None = None

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    def start(self, timeout_s: float = 30.0) -> float:
        """Starts `marquee serve` on a free port; returns seconds until it printed its address."""
        self.data_dir.mkdir(exist_ok=True)
        env = {k: v for k, v in os.environ.items() if k not in ("MARQUEE_TOKEN", "MARQUEE_LISTEN")}
        argv = [str(self.binary), "serve", "--listen", "127.0.0.1:0",
                "--video-sink", "fakevideosink", "--audio-sink", "fakeaudiosink",
                "--data-dir", str(self.data_dir)]
        found: queue.Queue[tuple[str, int]] = queue.Queue()

        def on_line(line: str) -> None:
            m = LISTENING_RE.search(line)
            if m:
                found.put((m.group(1).strip("[]"), int(m.group(2))))

        t0 = time.perf_counter()
        self.proc = self.procs.spawn(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, env=env)
        start_line_reader(self.proc.stdout, self.log, on_line)
        start_line_reader(self.proc.stderr, self.log)
        deadline = t0 + timeout_s
        while True:
            try:
                self.host, self.port = found.get(timeout=0.05)
                break
            except queue.Empty:
                pass
            if self.proc.poll() is not None:
                time.sleep(0.1)  # let the readers write the last lines
                raise BenchError(f"marquee exited with {self.proc.returncode} before listening")
            if time.perf_counter() > deadline:
                raise BenchError(f"marquee printed no 'listening on' line in {timeout_s:.0f} s")
        return time.perf_counter() - t0

    def stop_daemon(self) -> tuple[int | None, float]:
        """SIGTERM; returns (exit code, seconds to exit)."""
        self.close_connection()
        if self.proc is None:
            return None, 0.0
        t0 = time.perf_counter()
        code = self.procs.end(self.proc, grace_s=10.0)
        return code, time.perf_counter() - t0

    # -- HTTP

    def connect(self) -> http.client.HTTPConnection:
        conn = http.client.HTTPConnection(self.host, self.port, timeout=REQUEST_TIMEOUT_S)
        conn.connect()
        conn.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return conn

    def close_connection(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def request(self, method: str, path: str, body: dict | None = None,
                expect: tuple[int, ...] = (200,)) -> dict:
        """One request on the shared keep-alive connection (reconnects once if it was closed)."""
        data = json.dumps(body).encode() if body is not None else None
        headers = {"Content-Type": "application/json"} if data is not None else {}
        for attempt in (1, 2):
            try:
                if self._conn is None:
                    self._conn = self.connect()
                self._conn.request(method, path, body=data, headers=headers)
                resp = self._conn.getresponse()
                raw = resp.read()
                break
            except (OSError, http.client.HTTPException) as exc:
                self.close_connection()
                stale = isinstance(exc, (http.client.RemoteDisconnected, BrokenPipeError,
                                         ConnectionResetError))
                if attempt == 2 or not stale or self.proc.poll() is not None:
                    raise self.lost(f"{method} {path}", exc) from exc
        text = raw.decode("utf-8", errors="replace")
        if resp.status not in expect:
            raise HttpError(resp.status, text, f"{method} {path}")
        try:
            return json.loads(text) if text else {}
        except json.JSONDecodeError as exc:
            raise BenchError(f"{method} {path}: reply is not JSON: {text[:200]!r}") from exc

    def lost(self, what: str, exc: BaseException) -> BenchError:
        if self.proc is not None and self.proc.poll() is not None:
            time.sleep(0.1)  # let the readers write the last lines
            return BenchError(f"{what}: marquee exited with {self.proc.returncode}")
        return BenchError(f"{what}: {type(exc).__name__}: {exc}")

    # -- commands

    def open(self, uri: str) -> tuple[float, dict]:
        """Seconds from sending open?wait=playing to its reply, and the reply."""
        t0 = time.perf_counter()
        snap = self.request("POST", f"/v1/player/open?wait=playing&timeout={WAIT_TIMEOUT_S}",
                            {"uri": uri})
        elapsed = time.perf_counter() - t0
        if snap.get("state") != "playing":
            raise BenchError(f"open replied with state {snap.get('state')!r}, not 'playing'")
        return elapsed, snap

    def stop(self) -> None:
        self.request("POST", f"/v1/player/stop?wait=idle&timeout={WAIT_TIMEOUT_S}")

    def seek(self, position: float, exact: bool) -> tuple[float, dict]:
        body: dict = {"position": position}
        if exact:
            body["exact"] = True
        t0 = time.perf_counter()
        snap = self.request("POST", f"/v1/player/seek?wait=playing&timeout={WAIT_TIMEOUT_S}", body)
        return time.perf_counter() - t0, snap

    def pause(self) -> None:
        self.request("POST", "/v1/player/pause")

    def play(self) -> None:
        self.request("POST", f"/v1/player/play?wait=playing&timeout={WAIT_TIMEOUT_S}")


def open_to_playing(marquee: Marquee, body: dict, timeout_s: float) -> float:
    """Seconds from sending POST /v1/player/open?wait=playing (body, ?timeout=timeout_s) to its
    reply, which must say playing; then stops (not counted), ready for the next open."""
    t0 = time.monotonic()
    snap = marquee.request("POST", f"/v1/player/open?wait=playing&timeout={timeout_s}", body)
    elapsed = time.monotonic() - t0
    if snap.get("state") != "playing":
        raise BenchError(f"open replied with state {snap.get('state')!r}, not 'playing'")
    marquee.request("POST", "/v1/player/stop?wait=idle&timeout=10")
    return elapsed


def interleaved_opens(marquee: Marquee, ways: dict[str, dict], runs: int, timeout_s: float) -> dict[str, list[float]]:
    """open_to_playing of each body in `ways`: one warm-up each (not counted), then `runs`
    rounds, the order rotated each round; the seconds per name."""
    for body in ways.values():
        open_to_playing(marquee, body, timeout_s)
    out: dict[str, list[float]] = {name: [] for name in ways}
    for i in range(runs):
        step(f"round {i + 1}/{runs}")
        names = list(ways)
        names = names[i % len(names):] + names[:i % len(names)]  # rotate the order
        for name in names:
            out[name].append(open_to_playing(marquee, ways[name], timeout_s))
    return out


class EventStream:
    """GET /v1/events as Server-Sent Events; a thread queues (arrival time, event)."""

    def __init__(self, marquee: Marquee) -> None:
        self.events: queue.Queue[tuple[float, dict]] = queue.Queue()
        self.error: BaseException | None = None
        self._closing = False
        self._conn = marquee.connect()
        self._conn.request("GET", "/v1/events", headers={"Accept": "text/event-stream"})
        self._conn.sock.settimeout(None)  # the reader blocks until close()
        self._resp = self._conn.getresponse()
        ctype = self._resp.getheader("Content-Type", "")
        if self._resp.status != 200 or "text/event-stream" not in ctype:
            self._conn.close()
            raise BenchError(f"GET /v1/events: HTTP {self._resp.status}, Content-Type {ctype!r}")
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()

    def _read(self) -> None:
        data_lines: list[str] = []
        arrived = 0.0
        try:
            while True:
                raw = self._resp.readline()
                if not raw:
                    return
                line = raw.decode("utf-8", errors="replace").rstrip("\r\n")
                if line.startswith("data:"):
                    if not data_lines:
                        arrived = time.perf_counter()  # the event's first line is here
                    value = line[len("data:"):]
                    data_lines.append(value[1:] if value.startswith(" ") else value)
                elif line == "" and data_lines:  # a blank line ends the event
                    event = json.loads("\n".join(data_lines))
                    data_lines = []
                    self.events.put((arrived, event))
        except Exception as exc:  # a broken stream, or close() pulling the socket away
            if not self._closing:
                self.error = exc

    def wait_for(self, predicate, timeout_s: float) -> tuple[float, dict]:
        deadline = time.perf_counter() + timeout_s
        while True:
            left = deadline - time.perf_counter()
            if left <= 0:
                raise BenchError(f"no matching event within {timeout_s} s"
                                 + (f" (stream error: {self.error})" if self.error else ""))
            try:
                arrived, event = self.events.get(timeout=left)
            except queue.Empty:
                continue
            if predicate(event):
                return arrived, event

    def drain(self) -> None:
        while True:
            try:
                self.events.get_nowait()
            except queue.Empty:
                return

    def close(self) -> None:
        self._closing = True
        try:
            self._conn.sock.shutdown(socket.SHUT_RDWR)
        except (OSError, AttributeError):
            pass
        self._conn.close()
        self._thread.join(timeout=2)


# --------------------------------------------------------------------------- playbin3

SYSTEM_PYTHON = "/usr/bin/python3"  # Debian's, where python3-gi is installed


class PlaybinPeer:
    """bench/playbin_peer.py: a warm process that opens each file in a new playbin3 with fake
    sinks, as gst-launch-1.0 would. Marquee builds on playbin3, so this is the floor its open
    could reach with no daemon, HTTP or output stage around it."""

    def __init__(self, procs: Processes) -> None:
        self.proc = procs.spawn([SYSTEM_PYTHON, str(Path(__file__).resolve().parent / "playbin_peer.py")],
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                text=True, bufsize=1)

    @staticmethod
    def available() -> bool:
        return subprocess.call([SYSTEM_PYTHON, "-c", "import gi; gi.require_version('Gst', '1.0')"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) == 0 \
            if os.access(SYSTEM_PYTHON, os.X_OK) else False

    def _command(self, line: str) -> str:
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()
        reply = self.proc.stdout.readline().strip()
        if not reply:
            raise BenchError(f"playbin_peer.py exited ({self.proc.poll()}) on {line.split()[0]!r}")
        return reply

    def load(self, clip: Path) -> float:
        t0 = time.perf_counter()
        reply = self._command(f"open {clip.as_uri()}")
        elapsed = time.perf_counter() - t0
        if reply != "playing":
            raise BenchError(f"playbin_peer.py: {reply}")
        return elapsed

    def stop(self) -> None:
        self._command("stop")


# --------------------------------------------------------------------------- mpv

class Mpv:
    """mpv idle with a JSON IPC socket; a thread queues its events with arrival times."""

    def __init__(self, procs: Processes, tmp: Path) -> None:
        self.procs = procs
        self.socket_path = tmp / "mpv.sock"
        self.log = tmp / "mpv.log"
        self.proc: subprocess.Popen | None = None
        self.sock: socket.socket | None = None
        self.events: queue.Queue[tuple[float, dict]] = queue.Queue()
        self.replies: queue.Queue[dict] = queue.Queue()
        self._next_id = 1

    def start(self, timeout_s: float = 10.0) -> None:
        argv = ["mpv", "--no-config", "--vo=null", "--ao=null", "--idle=yes",
                f"--input-ipc-server={self.socket_path}", "--no-terminal"]
        log = open(self.log, "wb")
        try:
            self.proc = self.procs.spawn(argv, stdin=subprocess.DEVNULL, stdout=log,
                                         stderr=subprocess.STDOUT)
        finally:
            log.close()
        deadline = time.perf_counter() + timeout_s
        while True:
            if self.proc.poll() is not None:
                raise BenchError(f"mpv exited with {self.proc.returncode}:\n" + log_tail(self.log))
            try:
                sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                sock.connect(str(self.socket_path))
                self.sock = sock
                break
            except (FileNotFoundError, ConnectionRefusedError):
                sock.close()
                if time.perf_counter() > deadline:
                    raise BenchError("mpv's IPC socket did not appear")
                time.sleep(0.01)
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        buf = b""
        while True:
            try:
                chunk = self.sock.recv(65536)
            except OSError:
                return
            if not chunk:
                return
            arrived = time.perf_counter()
            buf += chunk
            while b"\n" in buf:
                line, buf = buf.split(b"\n", 1)
                if not line.strip():
                    continue
                msg = json.loads(line)
                if "event" in msg:
                    self.events.put((arrived, msg))
                else:
                    self.replies.put(msg)

    def send(self, *command) -> int:
        request_id = self._next_id
        self._next_id += 1
        payload = json.dumps({"command": list(command), "request_id": request_id}) + "\n"
        self.sock.sendall(payload.encode())
        return request_id

    def reply(self, request_id: int, timeout_s: float = WAIT_TIMEOUT_S) -> dict:
        deadline = time.perf_counter() + timeout_s
        while time.perf_counter() < deadline:
            try:
                msg = self.replies.get(timeout=max(0.0, deadline - time.perf_counter()))
            except queue.Empty:
                break
            if msg.get("request_id") == request_id:
                if msg.get("error") != "success":
                    raise BenchError(f"mpv command failed: {msg}")
                return msg
        raise BenchError(f"mpv did not answer request {request_id}")

    def command(self, *command) -> dict:
        return self.reply(self.send(*command))

    def drain_events(self) -> None:
        while True:
            try:
                self.events.get_nowait()
            except queue.Empty:
                return

    def wait_event(self, name: str, timeout_s: float = WAIT_TIMEOUT_S) -> float:
        """Arrival time of the next event `name`."""
        deadline = time.perf_counter() + timeout_s
        while True:
            left = deadline - time.perf_counter()
            if left <= 0:
                raise BenchError(f"mpv sent no {name} event within {timeout_s} s")
            try:
                arrived, msg = self.events.get(timeout=left)
            except queue.Empty:
                continue
            if msg["event"] == name:
                return arrived
            if msg["event"] == "end-file" and msg.get("reason") == "error":
                raise BenchError(f"mpv could not play the file: {msg}")

    def load(self, path: Path) -> float:
        """Seconds from sending loadfile to the playback-restart event."""
        self.drain_events()
        t0 = time.perf_counter()
        self.send("loadfile", str(path))
        return self.wait_event("playback-restart") - t0

    def seek(self, position: float, exact: bool) -> tuple[float, float]:
        """Seconds from sending seek to playback-restart, and time-pos afterwards."""
        flags = "absolute+exact" if exact else "absolute+keyframes"
        self.drain_events()
        t0 = time.perf_counter()
        self.send("seek", position, flags)
        elapsed = self.wait_event("playback-restart") - t0
        pos = self.command("get_property", "time-pos").get("data")
        return elapsed, float(pos) if pos is not None else math.nan

    def stop(self) -> None:
        """Stops and waits until the core is idle again. mpv reports `idle-active` before it
        has torn the video output down (up to a frame period later); the `idle` event comes
        after that, so a following loadfile does not pay for the teardown. The `idle` event
        is deprecated, so a build without it falls back to `idle-active`."""
        self.drain_events()
        self.command("stop")
        try:
            self.wait_event("idle", timeout_s=1.0)
            return
        except BenchError:
            pass
        deadline = time.perf_counter() + WAIT_TIMEOUT_S
        while not self.command("get_property", "idle-active").get("data"):
            if time.perf_counter() > deadline:
                raise BenchError("mpv did not become idle after stop")
            time.sleep(0.005)

    def close(self) -> None:
        if self.sock is not None:
            try:
                self.send("quit")
            except OSError:
                pass
            self.sock.close()
        if self.proc is not None:
            try:
                self.proc.wait(timeout=3)
            except subprocess.TimeoutExpired:
                pass
            self.procs.end(self.proc)


# --------------------------------------------------------------------------- GStreamer peers

def gst_launch_argv(clip: Path) -> list[str]:
    return ["gst-launch-1.0", "playbin3", f"uri={clip.as_uri()}",
            "video-sink=fakevideosink", "audio-sink=fakeaudiosink"]


def gst_play_argv(clip: Path) -> list[str]:
    return ["gst-play-1.0", "--use-playbin3", "--no-interactive",
            "--videosink=fakevideosink", "--audiosink=fakeaudiosink", str(clip)]


# A line each peer prints once its pipeline goes to PLAYING: gst-launch-1.0 announces the
# clock it selects for PLAYING; gst-play-1.0 sets PLAYING right after it prints "Prerolled."
PLAYING_MARKERS = {"gst-launch-1.0": "New clock", "gst-play-1.0": "Prerolled."}


def peer_cpu(procs: Processes, argv: list[str], tmp: Path) -> tuple[float, float, float]:
    """A one-shot GStreamer player: (CPU s, wall s, RSS MiB) over CPU_WINDOW_S of playback,
    counted from the line that says it is PLAYING."""
    name = argv[0]
    marker = PLAYING_MARKERS[name]
    log = tmp / f"{name}.log"
    playing = threading.Event()

    def on_line(line: str) -> None:
        if marker in line or "ERROR" in line:
            playing.set()

    proc = procs.spawn(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT)
    try:
        start_line_reader(proc.stdout, log, on_line)
        if not playing.wait(timeout=WAIT_TIMEOUT_S) or proc.poll() is not None:
            raise BenchError(f"{name} did not reach PLAYING:\n" + log_tail(log))
        return sample_cpu(name, proc.pid, alive=lambda: proc.poll() is None)
    finally:
        procs.end(proc)


def sample_cpu(name: str, pid: int, alive) -> tuple[float, float, float]:
    c0, t0 = cpu_seconds(pid), time.perf_counter()
    time.sleep(CPU_WINDOW_S)
    if not alive():
        raise BenchError(f"{name} (pid {pid}) exited during the CPU window")
    c1, t1 = cpu_seconds(pid), time.perf_counter()
    return c1 - c0, t1 - t0, rss_mib(pid)


# --------------------------------------------------------------------------- statistics

def percentile(values: list[float], p: float) -> float:
    """Nearest-rank percentile."""
    ordered = sorted(values)
    rank = max(1, math.ceil(p / 100.0 * len(ordered)))
    return ordered[rank - 1]


class Series:
    def __init__(self, values: list[float]) -> None:
        self.values = list(values)

    @property
    def median(self) -> float:
        return statistics.median(self.values) if self.values else math.nan

    def fmt(self, digits: int = 1) -> str:
        if not self.values:
            return "-"
        if len(self.values) == 1:
            return f"{self.values[0]:.{digits}f}"
        return (f"{self.median:.{digits}f} ({min(self.values):.{digits}f}.."
                f"{max(self.values):.{digits}f})")


def ms(values: list[float]) -> list[float]:
    return [v * 1000.0 for v in values]


# --------------------------------------------------------------------------- measurements

def measure_open(marquee: Marquee | None, mpv: Mpv, playbin: PlaybinPeer | None, clip: Path,
                 runs: int, notes: list[str]) -> dict:
    """1. open-to-playing, after one warm-up each; stop between runs; interleaved."""
    uri = clip.as_uri()
    out = {"marquee": [], "mpv": [], "playbin3": []}
    if marquee is not None:
        marquee.open(uri)
        marquee.stop()
    mpv.load(clip)
    mpv.stop()
    if playbin is not None:
        playbin.load(clip)
        playbin.stop()
    resumed = 0
    for _ in range(runs):
        if marquee is not None:
            elapsed, snap = marquee.open(uri)
            out["marquee"].append(elapsed)
            if isinstance(snap.get("position"), (int, float)) and snap["position"] > 1.0:
                resumed += 1
            marquee.stop()
        out["mpv"].append(mpv.load(clip))
        mpv.stop()
        if playbin is not None:
            out["playbin3"].append(playbin.load(clip))
            playbin.stop()
    if resumed:
        notes.append(f"open: {resumed} of {runs} Marquee opens replied with position > 1 s "
                     "(resumed a saved position?)")
    return out


def measure_seek(marquee: Marquee | None, mpv: Mpv, clip: Path, runs: int,
                 notes: list[str]) -> dict:
    """2. seek-to-playing to mid-GOP targets, key-unit and exact; per run each player opens
    the clip, does all seeks, and stops (only one player plays at a time)."""
    uri = clip.as_uri()
    out = {(player, mode): [] for player in ("marquee", "mpv") for mode in ("key", "exact")}
    off_target = {"marquee": 0, "mpv": 0}
    plan = [(mode, target) for mode in ("key", "exact") for target in SEEK_TARGETS]

    def check(player: str, pos, target: float, exact: bool) -> None:
        if not isinstance(pos, (int, float)) or math.isnan(pos):
            return
        tolerance = 0.25 if exact else 1.1
        if abs(pos - target) > tolerance:
            off_target[player] += 1

    for _ in range(runs):
        if marquee is not None:
            marquee.open(uri)
            for mode, target in plan:
                elapsed, snap = marquee.seek(target, exact=(mode == "exact"))
                out[("marquee", mode)].append(elapsed)
                check("marquee", snap.get("position"), target, mode == "exact")
            marquee.stop()
        mpv.load(clip)
        for mode, target in plan:
            elapsed, pos = mpv.seek(target, exact=(mode == "exact"))
            out[("mpv", mode)].append(elapsed)
            check("mpv", pos, target, mode == "exact")
        mpv.stop()
    for player, count in off_target.items():
        if count:
            notes.append(f"seek: {count} {player} seek replies reported a position away from "
                         "the target (reply before the seek completed?)")
    return out


def measure_cpu(marquee: Marquee | None, procs: Processes, clip: Path, tmp: Path,
                runs: int, with_gst_play: bool) -> dict:
    """3. CPU seconds (and 6. RSS) over CPU_WINDOW_S of playback, interleaved with
    gst-launch-1.0 (and gst-play-1.0 with --gst-play)."""
    uri = clip.as_uri()
    out = {"marquee_cpu": [], "marquee_rss": [], "marquee_threads": [],
           "gst_cpu": [], "gst_rss": [], "gst_play_cpu": [], "gst_play_rss": [], "wall": []}
    for _ in range(runs):
        if marquee is not None:
            marquee.open(uri)
            cpu, wall, rss = sample_cpu("marquee", marquee.pid,
                                        alive=lambda: marquee.proc.poll() is None)
            out["marquee_threads"].append(thread_count(marquee.pid))
            marquee.stop()
            out["marquee_cpu"].append(cpu)
            out["marquee_rss"].append(rss)
            out["wall"].append(wall)
        cpu, wall, rss = peer_cpu(procs, gst_launch_argv(clip), tmp)
        out["gst_cpu"].append(cpu)
        out["gst_rss"].append(rss)
        out["wall"].append(wall)
        if with_gst_play:
            cpu, wall, rss = peer_cpu(procs, gst_play_argv(clip), tmp)
            out["gst_play_cpu"].append(cpu)
            out["gst_play_rss"].append(rss)
            out["wall"].append(wall)
    return out


def measure_status(marquee: Marquee, clip: Path) -> dict:
    """4. GET /v1/player latency over STATUS_REQUESTS sequential requests on one connection."""
    marquee.open(clip.as_uri())
    try:
        conn = marquee.connect()
    except OSError as exc:
        raise marquee.lost("connect", exc) from exc
    sock = conn.sock
    latencies = []
    reconnects = 0
    try:
        for _ in range(20):  # warm-up, not counted
            conn.request("GET", "/v1/player")
            conn.getresponse().read()
        for _ in range(STATUS_REQUESTS):
            t0 = time.perf_counter()
            conn.request("GET", "/v1/player")
            resp = conn.getresponse()
            body = resp.read()
            latencies.append(time.perf_counter() - t0)
            if resp.status != 200:
                raise HttpError(resp.status, body.decode(errors="replace"), "GET /v1/player")
            if conn.sock is not sock:  # http.client reopened after a Connection: close
                reconnects += 1
                sock = conn.sock
        snap = json.loads(body)
    except (OSError, http.client.HTTPException) as exc:
        raise marquee.lost("GET /v1/player", exc) from exc
    finally:
        conn.close()
    marquee.stop()
    return {"latencies": latencies, "reconnects": reconnects, "last_state": snap.get("state")}


def measure_pause_event(marquee: Marquee, clip: Path, runs: int) -> list[float]:
    """5. From sending POST /pause to receiving the SSE state event with state paused."""
    marquee.open(clip.as_uri())
    try:
        stream = EventStream(marquee)
    except (OSError, http.client.HTTPException) as exc:
        raise marquee.lost("GET /v1/events", exc) from exc
    latencies = []
    try:
        stream.wait_for(lambda e: e.get("type") == "snapshot", WAIT_TIMEOUT_S)

        def is_state(name: str):
            return lambda e: (e.get("type") == "state"
                              and isinstance(e.get("data"), dict)
                              and e["data"].get("state") == name)

        for i in range(runs + 1):  # the first cycle is a warm-up
            stream.drain()
            t0 = time.perf_counter()
            marquee.pause()
            arrived, _ = stream.wait_for(is_state("paused"), WAIT_TIMEOUT_S)
            if i > 0:
                latencies.append(arrived - t0)
            marquee.play()
            stream.wait_for(is_state("playing"), WAIT_TIMEOUT_S)
    finally:
        stream.close()
    marquee.stop()
    return latencies


# --------------------------------------------------------------------------- report

def verdict(value: float, limit: float) -> str:
    if math.isnan(value):
        return ""
    return "ok" if value <= limit else "MISS"


def ratio(a: Series, b: Series) -> float:
    if not a.values or not b.values or b.median == 0:
        return math.nan
    return a.median / b.median


def print_table(rows: list[tuple[str, ...]]) -> None:
    headers = ("measurement", "Marquee", "peer", "peer median (min..max)", "ratio",
               "target", "")
    widths = [max(len(str(r[i])) for r in [headers, *rows]) for i in range(len(headers))]
    line = "  ".join(h.ljust(w) for h, w in zip(headers, widths))
    print(line.rstrip())
    print("-" * len(line.rstrip()))
    for row in rows:
        print("  ".join(str(c).ljust(w) for c, w in zip(row, widths)).rstrip())


def build_rows(res: dict, have_marquee: bool) -> list[tuple[str, ...]]:
    rows = []
    na = "not run" if not have_marquee else "-"

    def compare(label, m: Series, peer_name, p: Series, limit, digits=1):
        r = ratio(m, p)
        rows.append((label, m.fmt(digits) if have_marquee else na, peer_name, p.fmt(digits),
                     "-" if math.isnan(r) else f"{r:.2f}", f"ratio <= {limit:.2f}",
                     verdict(r, limit)))

    def alone(label, m: Series, target_text, value, limit, digits=2):
        rows.append((label, m.fmt(digits) if have_marquee else na, "", "", "", target_text,
                     verdict(value, limit) if have_marquee else ""))

    o = res["open"]
    compare("open -> playing (ms)", Series(ms(o["marquee"])), "mpv", Series(ms(o["mpv"])),
            TARGET_RATIO_OPEN)
    if o.get("playbin3"):
        m, p = Series(ms(o["marquee"])), Series(ms(o["playbin3"]))
        r = ratio(m, p)
        rows.append(("open -> playing (ms)", m.fmt(1) if have_marquee else na, "playbin3 (warm)", p.fmt(1),
                     "-" if math.isnan(r) else f"{r:.2f}", "(the floor)", ""))
    s = res["seek"]
    compare("seek key-unit -> playing (ms)", Series(ms(s[("marquee", "key")])),
            "mpv", Series(ms(s[("mpv", "key")])), TARGET_RATIO_SEEK)
    compare("seek exact -> playing (ms)", Series(ms(s[("marquee", "exact")])),
            "mpv", Series(ms(s[("mpv", "exact")])), TARGET_RATIO_SEEK)
    c = res["cpu"]
    compare(f"CPU s over {CPU_WINDOW_S:.0f} s playing", Series(c["marquee_cpu"]),
            "gst-launch", Series(c["gst_cpu"]), TARGET_RATIO_CPU, digits=2)
    if "status" in res:
        lat = ms(res["status"]["latencies"])
        p50, p99 = percentile(lat, 50), percentile(lat, 99)
        alone(f"GET /v1/player p50 (ms, n={len(lat)})", Series([p50]), "", math.nan, math.inf, 3)
        alone(f"GET /v1/player p99 (ms, n={len(lat)})", Series([p99]),
              f"< {TARGET_STATUS_P99_MS:g} ms", p99, TARGET_STATUS_P99_MS, 3)
    else:
        alone("GET /v1/player p50/p99 (ms)", Series([]), f"p99 < {TARGET_STATUS_P99_MS:g} ms",
              math.nan, math.inf)
    pause = Series(ms(res.get("pause", [])))
    alone("pause -> SSE state paused (ms)", pause, "", math.nan, math.inf, 1)
    idle = res.get("rss_idle")
    alone("RSS idle (MiB)", Series([idle] if idle is not None else []),
          f"< {TARGET_IDLE_RSS_MIB:g} MiB", idle if idle is not None else math.nan,
          TARGET_IDLE_RSS_MIB, 1)
    rows.append(("RSS playing (MiB)", Series(c["marquee_rss"]).fmt(1) if have_marquee else na,
                 "gst-launch", Series(c["gst_rss"]).fmt(1), "", "", ""))
    if c["gst_play_cpu"]:
        m = Series(c["marquee_cpu"])
        p = Series(c["gst_play_cpu"])
        r = ratio(m, p)
        rows.append((f"CPU s over {CPU_WINDOW_S:.0f} s playing", m.fmt(2) if have_marquee else na,
                     "gst-play", p.fmt(2), "-" if math.isnan(r) else f"{r:.2f}", "(info)", ""))
        rows.append(("RSS playing (MiB)", Series(c["marquee_rss"]).fmt(1) if have_marquee else na,
                     "gst-play", Series(c["gst_play_rss"]).fmt(1), "", "", ""))
    return rows


def print_report(res: dict, args, have_marquee: bool, notes: list[str]) -> None:
    print()
    print(f"Marquee benchmark: {res['clip']}; {args.runs} runs per player, interleaved, "
          f"one player playing at a time; median (min..max)")
    print(f"machine: {os.cpu_count()} CPUs, {platform_line()}")
    if have_marquee:
        print(f"marquee: {args.marquee}")
    else:
        print(f"marquee: not run ({res.get('marquee_missing')}); peer figures only")
    print()
    print_table(build_rows(res, have_marquee))
    print()
    c = res["cpu"]
    if c["wall"]:
        shares = [("Marquee", c["marquee_cpu"]), ("gst-launch", c["gst_cpu"]),
                  ("gst-play", c["gst_play_cpu"])]
        share_text = ", ".join(f"{name} {100 * Series(v).median / CPU_WINDOW_S:.1f}%"
                               for name, v in shares if v)
        print(f"CPU: utime+stime of the whole process (all its threads) from /proc/PID/stat "
              f"over {CPU_WINDOW_S:.0f} s windows (measured {min(c['wall']):.2f}.."
              f"{max(c['wall']):.2f} s), raw (Marquee's idle CPU not subtracted); "
              f"median share of one core: {share_text}")
    if have_marquee and c["marquee_threads"]:
        print(f"Marquee threads while playing: {Series(c['marquee_threads']).fmt(0)}")
    if "rss_at_listen" in res:
        print(f"Marquee RSS idle: {res['rss_at_listen']:.1f} MiB when it printed its address, "
              f"{res['rss_idle']:.1f} MiB once settled (the figure in the table)")
    if "startup_s" in res:
        print(f"Marquee start to 'listening on': {1000 * res['startup_s']:.0f} ms")
    if "status" in res and res["status"]["reconnects"]:
        notes.append(f"status: the server closed the keep-alive connection "
                     f"{res['status']['reconnects']} times")
    seek_n = len(res["seek"][("mpv", "key")])
    print(f"seeks: targets {', '.join(f'{t:g}' for t in SEEK_TARGETS)} s (mid-GOP), "
          f"{seek_n} samples per mode and player; mpv uses absolute+keyframes / absolute+exact")
    for note in notes:
        print(f"note: {note}")


def platform_line() -> str:
    try:
        with open("/proc/cpuinfo", encoding="ascii", errors="replace") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "unknown CPU"


def jsonable(res: dict) -> dict:
    out = dict(res)
    out["seek"] = {f"{player}_{mode}": v for (player, mode), v in res["seek"].items()}
    return out


# --------------------------------------------------------------------------- main

def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description="Benchmark Marquee against mpv and gst-launch-1.0.")
    parser.add_argument("--runs", type=int, default=None, help="runs per player (default 10)")
    parser.add_argument("--quick", action="store_true", help="3 runs per player")
    parser.add_argument("--marquee", type=Path, default=None,
                        help="the marquee binary (default .build/release/marquee)")
    parser.add_argument("--json", type=Path, default=None, help="also write the raw samples here")
    parser.add_argument("--gst-play", action="store_true",
                        help="also measure gst-play-1.0's CPU (for information, no target)")
    args = parser.parse_args(argv)
    if args.runs is None:
        args.runs = 3 if args.quick else 10
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    return args


def check_tools(with_gst_play: bool) -> None:
    tools = ("gst-launch-1.0", "mpv") + (("gst-play-1.0",) if with_gst_play else ())
    missing = [t for t in tools if shutil.which(t) is None]
    if missing:
        raise BenchError(f"missing {', '.join(missing)}: run scripts/setup.sh --bench")


def run(args: argparse.Namespace, procs: Processes, tmp: Path) -> dict:
    check_tools(args.gst_play)
    notes: list[str] = []
    res: dict = {}
    binary = args.marquee or DEFAULT_MARQUEE
    have_marquee = binary.is_file() and os.access(binary, os.X_OK)
    if not have_marquee:
        if args.marquee is not None:
            raise BenchError(f"{binary} is not an executable file")
        res["marquee_missing"] = f"{binary} not built; swift build -c release"
    args.marquee = binary

    step("generating the clip")
    clip = make_clip(tmp)
    size_mb = clip.stat().st_size / 1e6
    res["clip"] = (f"{clip.name}, 1280x720 {CLIP_FPS} fps H.264 (ultrafast, keyframe every "
                   f"{CLIP_FPS} frames) + AAC, {CLIP_SECONDS} s, {size_mb:.1f} MB")

    marquee = None
    if have_marquee:
        step("starting marquee")
        marquee = Marquee(binary, procs, tmp)
        res["startup_s"] = marquee.start()
        res["rss_at_listen"] = rss_mib(marquee.pid)
        marquee.request("GET", "/v1/player")
        res["rss_idle"] = settled_rss_mib(marquee.pid)  # 6. idle: after start, before any open

    step("starting mpv")
    mpv = Mpv(procs, tmp)
    mpv.start()
    playbin = PlaybinPeer(procs) if PlaybinPeer.available() else None
    if playbin is None:
        notes.append(f"no playbin3 peer: {SYSTEM_PYTHON} lacks python3-gi (scripts/setup.sh --bench)")
    step(f"1/5 open -> playing, {args.runs} runs")
    res["open"] = measure_open(marquee, mpv, playbin, clip, args.runs, notes)
    if playbin is not None:
        procs.end(playbin.proc)
    step(f"2/5 seek -> playing, {args.runs} runs x {2 * len(SEEK_TARGETS)} seeks")
    res["seek"] = measure_seek(marquee, mpv, clip, args.runs, notes)
    mpv.close()  # not needed any more: nothing else runs during the CPU windows

    players = 1 + (marquee is not None) + args.gst_play
    step(f"3/5 CPU over {CPU_WINDOW_S:.0f} s playing, {args.runs} runs "
         f"(~{args.runs * CPU_WINDOW_S * players:.0f} s)")
    res["cpu"] = measure_cpu(marquee, procs, clip, tmp, args.runs, args.gst_play)
    if marquee is not None:
        step(f"4/5 GET /v1/player x {STATUS_REQUESTS}")
        res["status"] = measure_status(marquee, clip)
        step(f"5/5 pause -> SSE event, {args.runs} runs")
        res["pause"] = measure_pause_event(marquee, clip, args.runs)
        code, seconds = marquee.stop_daemon()
        res["sigterm"] = {"exit_code": code, "seconds": seconds}
        if code != 0:
            notes.append(f"marquee exited with {code} on SIGTERM (expected 0)")
    print_report(res, args, have_marquee, notes)
    return res


def step(text: str) -> None:
    print(f"[bench] {text}", file=sys.stderr, flush=True)


class RunsParser(argparse.ArgumentParser):
    """The options of a benchmark that takes `--runs N` (at least 1) and `--marquee PATH`; the
    benchmark adds its own after them and checks them after parse_args."""

    def __init__(self, description: str, default_runs: int, runs_help: str = "rounds") -> None:
        super().__init__(description=description)
        self.add_argument("--runs", type=int, default=default_runs,
                          help=f"{runs_help} (default {default_runs})")
        self.add_argument("--marquee", type=Path, default=DEFAULT_MARQUEE,
                          help="the marquee binary (default .build/release/marquee)")

    def parse_args(self, args=None, namespace=None):
        parsed = super().parse_args(args, namespace)
        if parsed.runs < 1:
            self.error("--runs must be at least 1")
        return parsed


def reported_parser(doc: str, **ints: int) -> argparse.ArgumentParser:
    """The options of a benchmark run by run_reported, its module docstring as the help:
    `--runs` (default 5), one int option per keyword (`clients=100`: `--clients`, default
    100), `--marquee`, `--json` and `--log`."""
    parser = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=5)
    for name, default in ints.items():
        parser.add_argument(f"--{name}", type=int, default=default)
    parser.add_argument("--marquee", default=str(DEFAULT_MARQUEE))
    parser.add_argument("--json", type=Path)
    parser.add_argument("--log", type=Path)
    return parser


def run_reported(args, tmp_prefix: str, run) -> int:
    """The main of a benchmark whose `run(args, procs, tmp)` returns its figures: run guarded,
    the daemon's log copied to --log and the figures written to --json when asked."""
    t0 = time.perf_counter()

    def body(procs: Processes, tmp: Path) -> None:
        try:
            out = run(args, procs, tmp)
        finally:
            if args.log and (tmp / "marquee.log").exists():
                shutil.copyfile(tmp / "marquee.log", args.log)
        if args.json:
            args.json.write_text(json.dumps(out, indent=2, default=str))

    code = run_guarded(tmp_prefix, body)
    step(f"done in {time.perf_counter() - t0:.0f} s")
    return code


def run_guarded(tmp_prefix: str, body) -> int:
    """Runs body(procs, tmp) with what every benchmark needs around it: a temporary folder,
    SIGTERM as an exit, the daemon's log on failure, and every child ended by pid."""
    procs = Processes()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    tmp_dir = tempfile.mkdtemp(prefix=tmp_prefix)
    tmp = Path(tmp_dir)
    try:
        body(procs, tmp)
        return 0
    except BenchError as exc:
        print(f"bench: {exc}", file=sys.stderr)
        log = tmp / "marquee.log"
        if log.exists():
            print(f"--- marquee log (tail) ---\n{log_tail(log)}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("bench: interrupted", file=sys.stderr)
        return 130
    finally:
        procs.cleanup()
        shutil.rmtree(tmp_dir, ignore_errors=True)


def main(argv: list[str]) -> int:
    args = parse_args(argv)

    def body(procs: Processes, tmp: Path) -> None:
        res = run(args, procs, tmp)
        if args.json:
            args.json.write_text(json.dumps(jsonable(res), indent=2))

    return run_guarded("marquee-bench-", body)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
