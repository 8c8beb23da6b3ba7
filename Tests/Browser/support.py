"""Helpers for the browser test: the virtualenv, the media it plays, and `marquee serve`.

Nothing here imports selenium, so dashboard_test.py can bootstrap its virtualenv first.
Standard library only.
"""

import datetime
import fcntl
import functools
import hashlib
import http.server
import json
import os
import select
import shutil
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
VENV = os.path.join(ROOT, ".build", "browser-venv")
REQUIREMENTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "requirements.txt")


# MARK: virtualenv

def ensure_venv(venv=VENV, requirements=REQUIREMENTS, module="selenium", label="dashboard"):
    """Re-executes this script in `venv` (.build/browser-venv by default), creating or
    updating it first when `requirements` changed since it was made. Returns only inside the
    venv. A lock keeps two runs at once (a developer's and a helper's) from building it over
    each other. `module` is imported to tell a working venv; `label` prefixes the messages.
    Tests/Schema/schema_test.py makes its own venv with this too."""
    venv_python = os.path.join(venv, "bin", "python")
    if os.path.realpath(sys.prefix) == os.path.realpath(venv):
        return
    with open(requirements, "rb") as f:
        wanted = hashlib.sha256(f.read()).hexdigest()
    stamp = os.path.join(venv, ".requirements.sha256")
    os.makedirs(os.path.dirname(venv), exist_ok=True)
    with open(venv + ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        current = open(stamp).read().strip() if os.path.exists(stamp) else None
        if current != wanted or not usable(venv_python, module):
            print(f"{label}: installing {os.path.relpath(requirements, ROOT)} into "
                  f"{os.path.relpath(venv, ROOT)}", flush=True)
            shutil.rmtree(venv, ignore_errors=True)
            if subprocess.run([sys.executable, "-m", "venv", venv]).returncode != 0:
                sys.exit(f"{label}: '{sys.executable} -m venv' failed; on Debian install "
                         "python3-venv (scripts/setup.sh does)")
            subprocess.run([venv_python, "-m", "pip", "install", "-q", "--disable-pip-version-check",
                            "-r", requirements], check=True)
            with open(stamp, "w") as f:
                f.write(wanted + "\n")
    os.execv(venv_python, [venv_python] + sys.argv)


def usable(python, module="selenium"):
    """Whether the venv's interpreter runs and has `module` (a venv breaks when the Python
    it was made from goes away)."""
    try:
        return subprocess.run([python, "-c", f"import {module}"], capture_output=True).returncode == 0
    except OSError:
        return False


# MARK: media

def make_media(directory, seconds=20):
    """A 320x180 H.264 + AAC MP4 of `seconds` s and an SRT file whose one cue carries TeX
    math and covers most of the clip. Returns (mp4 path, srt path)."""
    mp4 = os.path.join(directory, "clip.mp4")
    srt = os.path.join(directory, "math.srt")
    fps = 30
    samples = 48000 // fps  # one video frame of audio per buffer: both streams end together
    pipeline = [
        "gst-launch-1.0", "-q",
        "videotestsrc", f"num-buffers={seconds * fps}", "pattern=smpte", "horizontal-speed=4",
        "!", f"video/x-raw,format=I420,width=320,height=180,framerate={fps}/1",
        "!", "x264enc", f"key-int-max={fps}", "speed-preset=ultrafast", "bitrate=400", "threads=1",
        "!", "h264parse", "!", "queue", "!", "mp4mux", "name=mux", "!", "filesink", f"location={mp4}",
        "audiotestsrc", f"num-buffers={seconds * fps}", f"samplesperbuffer={samples}", "wave=sine",
        "freq=440",
        "!", "audio/x-raw,rate=48000,channels=2", "!", "audioconvert", "!", "avenc_aac",
        "!", "aacparse", "!", "queue", "!", "mux.",
    ]
    try:
        result = subprocess.run(pipeline, capture_output=True, text=True, timeout=60)
    except FileNotFoundError:
        raise RuntimeError("gst-launch-1.0 is not on PATH (Debian: gstreamer1.0-tools)")
    if result.returncode != 0 or not os.path.getsize(mp4):
        raise RuntimeError(f"gst-launch-1.0 failed to make {mp4}: {result.stderr.strip()}")
    end = seconds - 1
    with open(srt, "w") as f:
        f.write(f"1\n00:00:00,300 --> 00:00:{end:02d},000\nThe area grows like $$x^2 + 1$$\n\n")
    return mp4, srt


def _launch(pipeline, output):
    try:
        result = subprocess.run(["gst-launch-1.0", "-q"] + pipeline, capture_output=True, text=True, timeout=60)
    except FileNotFoundError:
        raise RuntimeError("gst-launch-1.0 is not on PATH (Debian: gstreamer1.0-tools)")
    if result.returncode != 0:
        raise RuntimeError(f"gst-launch-1.0 failed to make {output}: {result.stderr.strip()}")


def _tone(seconds, freq, tags=None):
    """An AAC tone branch for a gst-launch line, one video frame (1/30 s) per buffer; the
    caller links it into its muxer."""
    branch = ["audiotestsrc", f"num-buffers={seconds * 30}", "samplesperbuffer=1600", "wave=sine", f"freq={freq}",
              "!", "audio/x-raw,rate=48000,channels=2", "!", "audioconvert", "!", "avenc_aac", "!", "aacparse"]
    if tags:
        branch += ["!", "taginject", f"tags={tags}"]
    return branch + ["!", "queue"]


def make_tracks_media(directory, seconds=20):
    """A Matroska file with H.264 video, two AAC audio tracks ("English" en at 440 Hz,
    "French" fr at 880 Hz) and an embedded subtitle track ("Deutsch", de); and an SRT file
    to open beside it. Returns (mkv path, srt path)."""
    mkv = os.path.join(directory, "tracks.mkv")
    embedded = os.path.join(directory, "embedded.srt")
    srt = os.path.join(directory, "tracks.srt")
    end = seconds - 1
    with open(embedded, "w") as f:
        f.write(f"1\n00:00:00,300 --> 00:00:{end:02d},000\nDeutsch\n\n")
    with open(srt, "w") as f:
        f.write(f"1\n00:00:00,300 --> 00:00:{end:02d},000\nExternal\n\n")
    _launch([
        "videotestsrc", f"num-buffers={seconds * 30}", "pattern=ball",
        "!", "video/x-raw,format=I420,width=320,height=180,framerate=30/1",
        "!", "x264enc", "key-int-max=30", "speed-preset=ultrafast", "bitrate=300", "threads=1",
        "!", "h264parse", "!", "queue", "!", "matroskamux", "name=mux", "!", "filesink", f"location={mkv}",
        *_tone(seconds, 440, "language-code=en,title=English"), "!", "mux.",
        *_tone(seconds, 880, "language-code=fr,title=French"), "!", "mux.",
        "filesrc", f"location={embedded}", "!", "subparse", "!", "taginject", "tags=language-code=de,title=Deutsch",
        "!", "queue", "!", "mux.",
    ], mkv)
    return mkv, srt


# The ladder's rungs: size, the BANDWIDTH the master playlist declares (nominal, so the
# order is fixed whatever the encoder makes of the picture) and the encoder's bit rate.
HLS_RUNGS = ((320, 180, 500_000, 300), (480, 270, 1_000_000, 600), (640, 360, 2_000_000, 1000))


def make_hls_ladder(directory, seconds=12):
    """A VOD HLS ladder under `directory`: master.m3u8 and three variants v0..v2 (HLS_RUNGS),
    each H.264 + AAC in MPEG-TS segments of one second. Serve `directory` with StaticServer
    (hlsdemux2 reads no file://). Returns the master playlist's path relative to it.

    Each variant is one `mpegtsmux ! filesink` run, cut into segments here at its keyframes
    (one a second): not splitmuxsink or hlssink2, whose pipelines on GStreamer 1.22 now and
    then never see EOS after writing everything (Tests/TestMedia/HLSFixtures.swift)."""
    master = "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-INDEPENDENT-SEGMENTS\n"
    for index, (width, height, bandwidth, kbps) in enumerate(HLS_RUNGS):
        folder = os.path.join(directory, f"v{index}")
        os.makedirs(folder, exist_ok=True)
        whole = os.path.join(folder, "whole.ts")
        _launch([
            "videotestsrc", f"num-buffers={seconds * 30}", "pattern=smpte", "horizontal-speed=2",
            "!", f"video/x-raw,format=I420,width={width},height={height},framerate=30/1",
            "!", "x264enc", "key-int-max=30", "option-string=scenecut=0", "speed-preset=ultrafast",
            f"bitrate={kbps}", "threads=1",
            "!", "h264parse", "!", "queue", "!", "mpegtsmux", "name=mux", "!", "filesink", f"location={whole}",
            *_tone(seconds, 440), "!", "mux.",
        ], whole)
        with open(whole, "rb") as f:
            data = f.read()
        os.remove(whole)
        durations = []
        for number, (chunk, duration) in enumerate(_cut_ts(data, seconds)):
            with open(os.path.join(folder, f"segment{number:05d}.ts"), "wb") as f:
                f.write(chunk)
            durations.append(duration)
        if len(durations) < seconds - 1:
            raise RuntimeError(f"{whole} cut into {len(durations)} segments, not about {seconds}")
        playlist = (f"#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:{round(max(durations))}\n"
                    "#EXT-X-MEDIA-SEQUENCE:0\n#EXT-X-PLAYLIST-TYPE:VOD\n"
                    + "".join(f"#EXTINF:{d:.3f},\nsegment{n:05d}.ts\n" for n, d in enumerate(durations))
                    + "#EXT-X-ENDLIST\n")
        with open(os.path.join(folder, "index.m3u8"), "w") as f:
            f.write(playlist)
        master += (f"#EXT-X-STREAM-INF:BANDWIDTH={bandwidth},RESOLUTION={width}x{height},"
                   f"CODECS=\"avc1.42c01e,mp4a.40.2\"\nv{index}/index.m3u8\n")
    with open(os.path.join(directory, "master.m3u8"), "w") as f:
        f.write(master)
    return "master.m3u8"


def _cut_ts(data, seconds):
    """Cuts an MPEG-TS stream before each video keyframe (a PES of stream 0xE0 starting in a
    packet flagged random access) at or after each whole second; every segment after the
    first starts with copies of the stream's first PAT and PMT. Yields (bytes, seconds)."""
    size = 188
    packets = [data[i:i + size] for i in range(0, len(data) - size + 1, size)]
    if not packets or any(p[0] != 0x47 for p in packets):
        raise RuntimeError("not an MPEG-TS stream of 188-byte packets")
    tables = []  # the first PAT (PID 0) and the PMT after it
    cuts = []  # (packet index, pts in seconds)
    for i, p in enumerate(packets):
        pid = ((p[1] & 0x1F) << 8) | p[2]
        pusi = p[1] & 0x40
        control = (p[3] >> 4) & 3
        payload = 4
        random_access = False
        if control in (2, 3):
            length = p[4]
            random_access = length > 0 and bool(p[5] & 0x40)
            payload = 5 + length
        if pusi and len(tables) < 2 and (pid == 0 or tables):
            tables.append(p)
        if not (pusi and random_access and control in (1, 3)):
            continue
        pes = p[payload:]
        if pes[:4] != b"\x00\x00\x01\xe0" or not pes[7] & 0x80:
            continue
        b = pes[9:14]
        pts = (((b[0] >> 1) & 7) << 30 | b[1] << 22 | (b[2] >> 1) << 15 | b[3] << 7 | b[4] >> 1) / 90000
        if not cuts or pts - cuts[0][1] >= len(cuts) - 0.01:
            cuts.append((i, pts))
    if len(tables) < 2 or not cuts:
        raise RuntimeError("no PAT/PMT or no keyframe found in the MPEG-TS stream")
    cuts[0] = (0, cuts[0][1])
    for n, (start, pts) in enumerate(cuts):
        last = n + 1 == len(cuts)
        end = len(packets) if last else cuts[n + 1][0]
        duration = (seconds - (pts - cuts[0][1])) if last else cuts[n + 1][1] - pts
        head = b"" if n == 0 else b"".join(tables)
        yield head + b"".join(packets[start:end]), duration


def rfc3339_seconds(text):
    """An RFC 3339 time ("2030-06-01T10:30:00Z", an offset, a fraction) as seconds since the
    epoch."""
    value = text.strip()
    if value[-1:] in ("Z", "z"):
        value = value[:-1] + "+00:00"
    return datetime.datetime.fromisoformat(value).timestamp()


# MARK: HTTP servers the daemon talks to

class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    extensions_map = {".m3u8": "application/vnd.apple.mpegurl", ".ts": "video/mp2t", "": "application/octet-stream"}

    def log_message(self, *args):
        pass


class StaticServer:
    """Serves `directory` on 127.0.0.1 (a free port) from a thread: the HLS ladder."""

    def __init__(self, directory):
        handler = functools.partial(_QuietHandler, directory=directory)
        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def stop(self):
        self.server.shutdown()
        self.server.server_close()


class MediaOrigin:
    """An origin for the offline library's downloads: serves the files of `directory` on
    127.0.0.1 (a free port) from a thread, with byte ranges (Python's SimpleHTTPRequestHandler
    has none). `Range: bytes=N-` or `bytes=N-M` is answered 206 with Content-Range, a range
    that starts past the end 416; without Range, 200 with the whole file. `rate` (bytes a
    second for each response; None: as fast as it goes) paces the bodies, so that a download
    lasts long enough to be watched and paused. Each request is kept in `requests` as
    {"path", "range", "status"}; a client that goes away mid-body (a paused download) is
    no error."""

    CHUNK = 16 * 1024

    def __init__(self, directory, rate=None):
        self.directory = os.path.abspath(directory)
        self.rate = rate
        self.requests = []
        origin = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self):
                self.answer(body=True)

            def do_HEAD(self):
                self.answer(body=False)

            def answer(self, body):
                record = {"path": self.path, "range": self.headers.get("Range"), "status": None}
                origin.requests.append(record)
                name = os.path.basename(self.path.split("?", 1)[0])
                path = os.path.join(origin.directory, name)
                if not name or not os.path.isfile(path):
                    record["status"] = 404
                    self.send_response(404)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                size = os.path.getsize(path)
                first, last = 0, size - 1
                status = 200
                wanted = record["range"]
                if wanted and wanted.startswith("bytes=") and "," not in wanted:
                    start, _, end = wanted[len("bytes="):].partition("-")
                    try:
                        first = int(start)
                        last = min(int(end), size - 1) if end else size - 1
                    except ValueError:
                        first, last = 0, size - 1
                    else:
                        status = 206
                        if first >= size or first > last:
                            record["status"] = 416
                            self.send_response(416)
                            self.send_header("Content-Range", f"bytes */{size}")
                            self.send_header("Content-Length", "0")
                            self.end_headers()
                            return
                record["status"] = status
                self.send_response(status)
                self.send_header("Content-Type", "video/mp4")
                self.send_header("Accept-Ranges", "bytes")
                self.send_header("Content-Length", str(last - first + 1))
                if status == 206:
                    self.send_header("Content-Range", f"bytes {first}-{last}/{size}")
                self.end_headers()
                if not body:
                    return
                try:
                    with open(path, "rb") as f:
                        f.seek(first)
                        left = last - first + 1
                        while left > 0:
                            chunk = f.read(min(origin.CHUNK, left))
                            if not chunk:
                                break
                            self.wfile.write(chunk)
                            self.wfile.flush()
                            left -= len(chunk)
                            if origin.rate:
                                time.sleep(len(chunk) / origin.rate)
                except (BrokenPipeError, ConnectionResetError):
                    self.close_connection = True

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def stop(self):
        self.server.shutdown()
        self.server.server_close()


class Collector:
    """An analytics collector on 127.0.0.1 for `--analytics-url`: it keeps every event
    posted to it and answers by `mode`: "ok" (204), "refuse" (400: the daemon marks the
    event failed) or "down" (503: the daemon keeps it pending and retries)."""

    def __init__(self):
        self.mode = "ok"
        self.events = []
        collector = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length)
                status = {"ok": 204, "refuse": 400, "down": 503}[collector.mode]
                if status == 204:
                    try:
                        collector.events.append(json.loads(body))
                    except ValueError:
                        collector.events.append(body)
                self.send_response(status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/events"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def stop(self):
        self.server.shutdown()
        self.server.server_close()


class SessionServer:
    """A concurrent-session server on 127.0.0.1 for `--session-url`: it answers every
    heartbeat with `{"allow": true}` until `refuse(code, message)`, then with
    `{"allow": false, "code", "message"}` until `allow()`."""

    def __init__(self):
        self.verdict = {"allow": True}
        self.posts = []
        server = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                length = int(self.headers.get("Content-Length") or 0)
                server.posts.append(self.rfile.read(length))
                body = json.dumps(server.verdict).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/sessions"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def refuse(self, code, message):
        self.verdict = {"allow": False, "code": code, "message": message}

    def allow(self):
        self.verdict = {"allow": True}

    def stop(self):
        self.server.shutdown()
        self.server.server_close()


# MARK: the daemon

class Daemon:
    """A `marquee serve` process with fake sinks and its own data directory. Its stderr (the
    log) goes to `log_path`; stdout is read for the `listening on URL` line, then drained."""

    def __init__(self, binary, work_dir, name, listen="127.0.0.1:0", token=None, extra_args=()):
        self.name = name
        self.token = token
        self.data_dir = os.path.join(work_dir, name)
        os.makedirs(self.data_dir, exist_ok=True)
        self.log_path = os.path.join(work_dir, f"{name}.log")
        args = [binary, "serve", "--listen", listen, "--video-sink", "fakevideosink",
                "--audio-sink", "fakeaudiosink", "--data-dir", self.data_dir, "--log-level", "debug"]
        if token:
            args += ["--token", token]
        args += list(extra_args)
        self.log = open(self.log_path, "ab")
        self.proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                     stderr=self.log)
        line = self._read_line(15)
        if not line.startswith("listening on "):
            self.stop()
            raise RuntimeError(f"{name}: no 'listening on' line (got {line!r}); log tail:\n"
                               + self.log_tail())
        self.url = line[len("listening on "):].strip()
        self.port = int(self.url.rsplit(":", 1)[1])
        threading.Thread(target=self._drain, daemon=True).start()

    def _read_line(self, timeout):
        fd = self.proc.stdout.fileno()
        data = b""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and not data.endswith(b"\n"):
            ready, _, _ = select.select([fd], [], [], 0.1)
            if not ready:
                if self.proc.poll() is not None:
                    break
                continue
            byte = os.read(fd, 1)
            if not byte:
                break
            data += byte
        return data.decode(errors="replace").strip()

    def _drain(self):
        try:
            for chunk in iter(lambda: self.proc.stdout.read1(4096), b""):
                self.log.write(chunk)
        except (OSError, ValueError):
            pass

    @property
    def pid(self):
        return self.proc.pid

    def running(self):
        return self.proc.poll() is None

    def stop(self, timeout=10):
        """SIGTERM by pid, then SIGKILL after `timeout` s. Returns the exit status (None if it
        had to be killed)."""
        if self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                os.kill(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
                return None
            finally:
                self.log.flush()
        return self.proc.returncode

    def log_tail(self, lines=30):
        try:
            with open(self.log_path, errors="replace") as f:
                return "".join(f.readlines()[-lines:])
        except OSError:
            return ""

    # MARK: API

    def request(self, method, path, body=None, timeout=25):
        """Returns (status, decoded JSON or None)."""
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(self.url + path, data=data, method=method)
        if data is not None:
            req.add_header("Content-Type", "application/json")
        if self.token:
            req.add_header("Authorization", f"Bearer {self.token}")
        try:
            with urllib.request.urlopen(req, timeout=timeout) as response:
                status, raw = response.status, response.read()
        except urllib.error.HTTPError as error:
            status, raw = error.code, error.read()
        try:
            return status, json.loads(raw) if raw else None
        except ValueError:
            return status, raw[:200]

    def snapshot(self):
        status, body = self.request("GET", "/v1/player")
        if status != 200:
            raise AssertionError(f"GET /v1/player answered {status}: {body}")
        return body

    def open(self, uri, subtitle=None):
        body = {"uri": uri}
        if subtitle:
            body["subtitle"] = subtitle
        status, reply = self.request("POST", "/v1/player/open?wait=playing&timeout=15", body)
        if status != 200 or reply.get("state") != "playing":
            raise AssertionError(f"POST /v1/player/open?wait=playing answered {status}: {reply}")
        return reply

    def stop_player(self):
        status, reply = self.request("POST", "/v1/player/stop?wait=idle")
        if status != 200:
            raise AssertionError(f"POST /v1/player/stop answered {status}: {reply}")

    def wait_state(self, state, timeout=10):
        """Polls GET /v1/player until its state is `state`; returns the snapshot."""
        deadline = time.monotonic() + timeout
        last = None
        while time.monotonic() < deadline:
            last = self.snapshot()
            if last.get("state") == state:
                return last
            time.sleep(0.1)
        raise AssertionError(f"the daemon's state stayed {last.get('state')!r}, not {state!r}, "
                             f"for {timeout} s (error: {last.get('error')})")
