"""Helpers for the browser test: the virtualenv, the media it plays, and `marquee serve`.

Nothing here imports selenium, so dashboard_test.py can bootstrap its virtualenv first.
Standard library only.
"""

import fcntl
import hashlib
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
