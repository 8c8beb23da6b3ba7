#!/usr/bin/env python3
"""Marquee offline-library benchmark: downloading into the library against `curl -o`, and
playing the encrypted copy against the plain file, side by side in one run.

Usage: python3 bench/library.py [--quick] [--runs N] [--big-mb MB] [--marquee PATH]
                                [--json PATH] [--log PATH]

Python 3.11 standard library only; imports the process, daemon, clip, CPU, SSE and statistics
helpers of run.py (and the CPU window of output.py). An HTTP origin in this script (single
`Range: bytes=` requests, bodies streamed from disk a chunk at a time) serves a generated
720p clip and a large file of random bytes on 127.0.0.1. See bench/README.md ("Offline
library benchmark") for the method and how to read the table.
"""

from __future__ import annotations

import argparse
import http.server
import json
import math
import os
import re
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from run import (CLIP_FPS, CLIP_SECONDS, CPU_WINDOW_S, SEEK_TARGETS, WAIT_TIMEOUT_S,  # noqa: E402
                 BenchError, EventStream, Marquee, Processes, Series, cpu_seconds, make_clip, ms,
                 platform_line, print_table, rss_mib, run_reported, settled_rss_mib, step, verdict)
from output import find_binary, load_text, log_flags, print_notes, ratio_text, window  # noqa: E402

# Targets (the issue): playing the copy against the plain file, and a download that streams.
TARGET_RATIO_CPU = 1.10
TARGET_RATIO_SEEK = 1.20
TARGET_RSS_GROWTH_MIB = 32.0

DEFAULT_BIG_MB = 2048
QUICK_BIG_MB = 256
FALLBACK_BIG_MB = 1024
DISK_MARGIN_MB = 512  # beyond the big file and one copy of it
RSS_INTERVAL_S = 0.1
ORIGIN_CHUNK = 1 << 20  # the origin streams bodies 1 MiB (one sendfile) at a time
MIN_DOWNLOAD_MBPS = 10.0  # a download slower than this is taken as stuck (its wait's bound)

RANGE_RE = re.compile(r"^bytes=(\d*)-(\d*)$")


# --------------------------------------------------------------------------- the origin

class OriginHandler(http.server.BaseHTTPRequestHandler):
    """GET and HEAD of the files in `server.files` ({url path: Path}), HTTP/1.1 keep-alive,
    one `Range: bytes=a-b | a- | -n` (206; past the end 416; several ranges or a malformed
    header: the whole file, 200). Bodies go out with os.sendfile, ORIGIN_CHUNK at a time, so
    the origin holds no file in memory and costs little CPU next to the clients it serves."""

    protocol_version = "HTTP/1.1"

    def log_message(self, format, *args) -> None:  # noqa: A002 (the base class's name)
        pass

    def do_HEAD(self) -> None:
        self.serve(body=False)

    def do_GET(self) -> None:
        self.serve(body=True)

    def serve(self, body: bool) -> None:
        path = self.server.files.get(self.path.split("?", 1)[0])
        if path is None:
            self.send_error(404)
            return
        size = path.stat().st_size
        first, length, status = 0, size, 200
        header = self.headers.get("Range")
        m = RANGE_RE.match(header.strip()) if header else None
        if m and (m.group(1) or m.group(2)):
            a, b = m.group(1), m.group(2)
            if a:
                first = int(a)
                last = min(int(b), size - 1) if b else size - 1
            else:  # the last n bytes
                first, last = max(0, size - int(b)), size - 1
            if first >= size or last < first:
                self.send_response(416)
                self.send_header("Content-Range", f"bytes */{size}")
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            length, status = last - first + 1, 206
        self.send_response(status)
        self.send_header("Content-Type", "video/mp4" if path.suffix == ".mp4" else "application/octet-stream")
        self.send_header("Accept-Ranges", "bytes")
        self.send_header("Content-Length", str(length))
        if status == 206:
            self.send_header("Content-Range", f"bytes {first}-{first + length - 1}/{size}")
        self.end_headers()
        record = {"path": self.path, "range": header, "status": status, "start": time.perf_counter(),
                  "end": None, "sent": 0}
        self.server.requests.append(record)
        if not body:
            record["end"] = record["start"]
            return
        try:
            with open(path, "rb") as f:
                out = self.connection.fileno()
                while record["sent"] < length:
                    n = os.sendfile(out, f.fileno(), first + record["sent"],
                                    min(ORIGIN_CHUNK, length - record["sent"]))
                    if n == 0:
                        break
                    record["sent"] += n
        except (BrokenPipeError, ConnectionResetError):  # a player that seeks drops its reads
            self.close_connection = True
        record["end"] = time.perf_counter()
        if record["sent"] < length:
            self.close_connection = True


class OriginServer(http.server.ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address) -> None:
        # A player drops keep-alive connections it no longer needs (after a seek, at stop):
        # a reset there is normal, not worth a traceback.
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


class Origin:
    """The origin on 127.0.0.1 (a free port), one thread per connection."""

    def __init__(self, files: dict[str, Path]) -> None:
        self.server = OriginServer(("127.0.0.1", 0), OriginHandler)
        self.server.files = {f"/{name}": path for name, path in files.items()}
        self.server.requests = []
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.2},
                                       daemon=True)
        self.thread.start()

    def url(self, name: str) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/{name}"

    def requests_since(self, index: int, name: str) -> list[dict]:
        return [r for r in self.server.requests[index:] if r["path"] == f"/{name}"]

    @property
    def count(self) -> int:
        return len(self.server.requests)

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


# --------------------------------------------------------------------------- media

def make_big_file(path: Path, size_mb: int) -> None:
    """size_mb MiB of random-ish bytes, every block written (no holes): slices of a 32 MiB
    os.urandom pool at a different offset per 8 MiB block. Nothing on the way compresses or
    de-duplicates, so that is as good as fresh random bytes and several times faster."""
    pool = os.urandom(32 << 20)
    block = 8 << 20
    left = size_mb << 20
    i = 0
    with open(path, "wb") as f:
        while left > 0:
            offset = (i * 7_340_033) % (len(pool) - block)
            n = min(block, left)
            f.write(pool[offset:offset + n])
            left -= n
            i += 1


# --------------------------------------------------------------------------- sampling

def status_mib(pid: int, field: str) -> float:
    """A `kB` field of /proc/PID/status (VmRSS, VmHWM), in MiB."""
    with open(f"/proc/{pid}/status", encoding="ascii") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024.0
    raise BenchError(f"no {field} for pid {pid}")


class RssSampler:
    """A /proc/PID/status field (VmRSS by default) every `interval` s on a thread, until stop()
    or the process is gone."""

    def __init__(self, pid: int, field: str = "VmRSS", interval: float = RSS_INTERVAL_S) -> None:
        self.pid = pid
        self.field = field
        self.interval = interval
        self.samples: list[float] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while True:
            try:
                self.samples.append(status_mib(self.pid, self.field))
            except (OSError, BenchError):
                return  # the process is gone (or a zombie: no Vm fields)
            if self._stop.wait(self.interval):
                return

    def stop(self) -> list[float]:
        self._stop.set()
        self._thread.join(timeout=5)
        return self.samples


# --------------------------------------------------------------------------- the daemon

def open_body(marquee: Marquee, body: dict) -> dict:
    snap = marquee.request("POST", f"/v1/player/open?wait=playing&timeout={WAIT_TIMEOUT_S}", body)
    if snap.get("state") != "playing":
        raise BenchError(f"open {body} replied with state {snap.get('state')!r}, not 'playing'")
    return snap


def add_and_wait(marquee: Marquee, stream: EventStream, uri: str, content_id: str,
                 size_bytes: int) -> tuple[float, dict]:
    """POST /v1/library; returns seconds from sending it to the `download` event that says
    `complete` arriving, and the item. A `failed` item ends the benchmark."""
    bound = max(60.0, size_bytes / 1e6 / MIN_DOWNLOAD_MBPS)
    stream.drain()
    t0 = time.perf_counter()
    item = marquee.request("POST", "/v1/library", {"uri": uri, "contentId": content_id}, expect=(202,))
    item_id = item["id"]

    def done(event: dict) -> bool:
        data = event.get("data") if isinstance(event.get("data"), dict) else {}
        return (event.get("type") == "download" and data.get("id") == item_id
                and data.get("state") in ("complete", "failed"))

    try:
        arrived, event = stream.wait_for(done, bound)
    except BenchError as exc:
        raise BenchError(f"{content_id}: no complete/failed download event within {bound:.0f} s "
                         f"(item: {marquee.request('GET', f'/v1/library/{item_id}')})") from exc
    if event["data"]["state"] == "failed":
        raise BenchError(f"{content_id}: the download failed: "
                         f"{marquee.request('GET', f'/v1/library/{item_id}').get('error')}")
    return arrived - t0, marquee.request("GET", f"/v1/library/{item_id}")


# --------------------------------------------------------------------------- measurements

def measure_downloads(marquee: Marquee, stream: EventStream, origin: Origin, procs: Processes,
                      tmp: Path, big: Path, runs: int, notes: list[str]) -> dict:
    """1 and 4. Per run, one after the other: the daemon downloads the big file into the
    library (RSS sampled all along), the item is deleted; then curl -o writes it into the same
    disk folder, then the file is fsynced (for information) and removed."""
    size = big.stat().st_size
    url = origin.url(big.name)
    curl_dir = tmp / "curl-out"
    curl_dir.mkdir(exist_ok=True)
    out = {"marquee_s": [], "marquee_cpu": [], "origin_done_s": [], "origin_requests": [],
           "rss_start": [], "rss_peak": [], "rss_end": [], "rss_after_delete": [],
           "hwm_start": [], "hwm_end": [],
           "curl_s": [], "curl_fsync_s": [], "curl_cpu": [], "curl_peak_rss": []}
    for i in range(runs):
        # The daemon
        rss_start = settled_rss_mib(marquee.pid)
        hwm_start = status_mib(marquee.pid, "VmHWM")
        sampler = RssSampler(marquee.pid)
        first_request = origin.count
        c0 = cpu_seconds(marquee.pid)
        t_post = time.perf_counter()
        elapsed, item = add_and_wait(marquee, stream, url, f"big-{i}", size)
        cpu = cpu_seconds(marquee.pid) - c0
        rss_end = rss_mib(marquee.pid)
        samples = sampler.stop()
        out["hwm_start"].append(hwm_start)
        out["hwm_end"].append(status_mib(marquee.pid, "VmHWM"))
        if item.get("bytes") != size:
            raise BenchError(f"big-{i}: the item holds {item.get('bytes')} bytes, the file has {size}")
        requests = origin.requests_since(first_request, big.name)
        ends = [r["end"] for r in requests if r["end"] is not None]
        out["marquee_s"].append(elapsed)
        out["marquee_cpu"].append(cpu)
        out["origin_done_s"].append(max(ends) - t_post if ends else math.nan)
        out["origin_requests"].append(len(requests))
        out["rss_start"].append(rss_start)
        out["rss_peak"].append(max(samples + [rss_end]))
        out["rss_end"].append(rss_end)
        marquee.request("DELETE", f"/v1/library/{item['id']}")
        out["rss_after_delete"].append(settled_rss_mib(marquee.pid))
        if len(requests) != 1:
            notes.append(f"download run {i + 1}: the daemon made {len(requests)} requests for the big file "
                         f"({', '.join(str(r['status']) for r in requests)}): retries or resumes")
        # The peer
        target = curl_dir / big.name
        t0 = time.perf_counter()
        proc = procs.spawn(["curl", "-s", "-o", str(target), url], stdin=subprocess.DEVNULL)
        # VmHWM: curl's own peak (exec starts it afresh). Not ru_maxrss: that also counts the
        # forked copy of this Python process before the exec.
        hwm = RssSampler(proc.pid, field="VmHWM", interval=0.02)
        _, status, usage = os.wait4(proc.pid, 0)
        t1 = time.perf_counter()
        hwm_samples = hwm.stop()
        proc.returncode = os.waitstatus_to_exitcode(status)
        procs.end(proc)  # already reaped: only forgets it
        if proc.returncode != 0 or target.stat().st_size != size:
            raise BenchError(f"curl exited with {proc.returncode} and wrote "
                             f"{target.stat().st_size if target.exists() else 0} of {size} bytes")
        fd = os.open(target, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
        t2 = time.perf_counter()
        target.unlink()
        out["curl_s"].append(t1 - t0)
        out["curl_fsync_s"].append(t2 - t0)
        out["curl_cpu"].append(usage.ru_utime + usage.ru_stime)
        out["curl_peak_rss"].append(max(hwm_samples) if hwm_samples else math.nan)
        step(f"  run {i + 1}/{runs}: marquee {size / 1e6 / elapsed:.0f} MB/s, curl {size / 1e6 / (t1 - t0):.0f} MB/s; "
             f"RSS {rss_start:.1f} -> peak {out['rss_peak'][-1]:.1f} MiB")
    return out


def measure_cpu(marquee: Marquee, clip_body: dict, plain_body: dict, http_body: dict, runs: int) -> dict:
    """2. CPU over CPU_WINDOW_S from the open?wait=playing reply: the copy, the plain file and
    (for information) the plain clip from the origin over HTTP, one at a time, in an order
    rotated each run."""
    plan = [("copy", clip_body), ("plain", plain_body), ("http", http_body)]
    out = {key: [] for key, _ in plan}
    for i in range(runs):
        for key, body in plan[i % len(plan):] + plan[:i % len(plan)]:
            open_body(marquee, body)
            out[key].append(window("marquee", marquee.pid, alive=lambda: marquee.proc.poll() is None))
            marquee.stop()
    return out


def measure_seek(marquee: Marquee, clip_body: dict, plain_body: dict, http_body: dict, runs: int,
                 notes: list[str]) -> dict:
    """3. seek?wait=playing to mid-GOP targets, key-unit then exact, on each source in turn
    (open, the six seeks, stop), the order rotated each run."""
    plan = [("copy", clip_body), ("plain", plain_body), ("http", http_body)]
    out = {(key, mode): [] for key, _ in plan for mode in ("key", "exact")}
    off = {key: 0 for key, _ in plan}
    for i in range(runs):
        for key, body in plan[i % len(plan):] + plan[:i % len(plan)]:
            open_body(marquee, body)
            for mode in ("key", "exact"):
                for target in SEEK_TARGETS:
                    elapsed, snap = marquee.seek(target, exact=(mode == "exact"))
                    out[(key, mode)].append(elapsed)
                    pos = snap.get("position")
                    if isinstance(pos, (int, float)) and abs(pos - target) > (0.25 if mode == "exact" else 1.1):
                        off[key] += 1
            marquee.stop()
    for key, count in off.items():
        if count:
            notes.append(f"seek: {count} replies on the {key} source reported a position away from the target")
    return out


# --------------------------------------------------------------------------- report

def mbps(size: int, seconds: list[float]) -> list[float]:
    return [size / 1e6 / s for s in seconds]


def report(args, res: dict, ctx: dict, notes: list[str]) -> None:
    d, c, s = res["download"], res["cpu"], res["seek"]
    size = ctx["big_bytes"]
    print()
    print(f"Marquee offline-library benchmark: {args.runs} runs, interleaved (one download or one "
          f"player at a time); median (min..max)")
    print(f"machine: {os.cpu_count()} CPUs, {platform_line()}; load average at start {ctx['load_start']}, "
          f"at end {ctx['load_end']}; {ctx['disk_free_gb']:.0f} GB free in the temp folder")
    print(f"marquee: {args.marquee}")
    print(f"clip: {ctx['clip']}")
    print(f"big file: {size / 1e6:.0f} MB ({args.big_mb} MiB) of random bytes, served by the script's origin "
          f"on 127.0.0.1 (HTTP/1.1, sendfile, unthrottled)")
    print()
    rows = []

    def compare(label, m: list[float], peer: str, p: list[float], digits: int, target: str, limit: float | None,
                paired: bool = True):
        r = Series(m).median / Series(p).median if m and p and Series(p).median else math.nan
        text = ratio_text(m, p) if paired else ("-" if math.isnan(r) else f"{r:.2f}")
        rows.append((label, Series(m).fmt(digits), peer, Series(p).fmt(digits), text, target,
                     verdict(r, limit) if limit is not None else ""))

    compare(f"download MB/s ({size / 1e6:.0f} MB)", mbps(size, d["marquee_s"]), "curl -o",
            mbps(size, d["curl_s"]), 0, "(info)", None)
    compare(f"download MB/s ({size / 1e6:.0f} MB)", mbps(size, d["marquee_s"]), "curl -o + fsync",
            mbps(size, d["curl_fsync_s"]), 0, "(info)", None)
    compare("CPU s per download", d["marquee_cpu"], "curl -o", d["curl_cpu"], 2, "(info)", None)
    cpu = {key: [w["cpu"] for w in c[key]] for key in c}
    compare(f"CPU s over {CPU_WINDOW_S:.0f} s playing", cpu["copy"], "plain file", cpu["plain"], 2,
            f"ratio <= {TARGET_RATIO_CPU:.2f}", TARGET_RATIO_CPU)
    compare(f"CPU s over {CPU_WINDOW_S:.0f} s playing", cpu["copy"], "plain over http", cpu["http"], 2,
            "(info)", None)
    for mode, label in (("key", "key-unit"), ("exact", "exact")):
        compare(f"seek {label} -> playing (ms)", ms(s[("copy", mode)]), "plain file", ms(s[("plain", mode)]), 1,
                f"ratio <= {TARGET_RATIO_SEEK:.2f}", TARGET_RATIO_SEEK, paired=False)
        compare(f"seek {label} -> playing (ms)", ms(s[("copy", mode)]), "plain over http",
                ms(s[("http", mode)]), 1, "(info)", None, paired=False)
    growth = [p - st for p, st in zip(d["rss_peak"], d["rss_start"])]
    rows.append(("RSS start / peak / end while downloading (MiB)",
                 f"{Series(d['rss_start']).median:.1f} / {Series(d['rss_peak']).median:.1f} / "
                 f"{Series(d['rss_end']).median:.1f}", "curl peak RSS", Series(d["curl_peak_rss"]).fmt(1), "",
                 "", ""))
    worst = max(growth) if growth else math.nan
    rows.append(("RSS growth while downloading (peak - start, MiB)", Series(growth).fmt(1), "", "", "",
                 f"max < {TARGET_RSS_GROWTH_MIB:g} MiB", verdict(worst, TARGET_RSS_GROWTH_MIB)))
    print_table(rows)
    print()
    print("Download: from sending POST /v1/library to the `download` event with state `complete` (the daemon "
          "has the whole file on disk, encrypted, fsynced every MiB, read back and every chunk's SHA-256 "
          "checked); curl: process start to exit (no fsync); `+ fsync`: curl, then fsync of its file. "
          "MB = 10^6 bytes. Ratios: Marquee / peer (higher is better for MB/s), then [min..max] of the "
          "per-run ratios (runs are paired).")
    tail = [t - o for t, o in zip(d["marquee_s"], d["origin_done_s"])]
    print(f"Daemon download timeline: the origin had sent the last byte {Series(d['origin_done_s']).fmt(2)} s "
          f"after the POST; `complete` came {Series(tail).fmt(2)} s after that (last commit and the read-back "
          f"check); requests per download {Series(d['origin_requests']).fmt(0)}; RSS after DELETE "
          f"{Series(d['rss_after_delete']).fmt(1)} MiB")
    print(f"RSS: VmRSS of the daemon every {1000 * RSS_INTERVAL_S:.0f} ms from the POST to `complete`; start is "
          f"the settled RSS before the POST, end at `complete`. The daemon's VmHWM (peak since it started) "
          f"went from {d['hwm_start'][0]:.1f} to {d['hwm_end'][-1]:.1f} MiB over the {len(d['hwm_end'])} downloads "
          f"(it had played nothing yet), so no peak between two samples went past that. curl: its VmHWM, read "
          f"every 20 ms while it ran.")
    walls = [w["wall"] for key in c for w in c[key]]
    others = Series([w["others"] for key in c for w in c[key]])
    print(f"CPU: utime+stime of the whole daemon (all threads, the loopback server included) from "
          f"/proc/PID/stat over {CPU_WINDOW_S:g} s from the open?wait=playing reply (measured "
          f"{min(walls):.2f}..{max(walls):.2f} s); share of one core: copy "
          f"{100 * Series(cpu['copy']).median / CPU_WINDOW_S:.1f}%, plain {100 * Series(cpu['plain']).median / CPU_WINDOW_S:.1f}%, "
          f"http {100 * Series(cpu['http']).median / CPU_WINDOW_S:.1f}%; the rest of the machine meanwhile "
          f"{others.fmt(2)} cores. `plain over http`: the same clip from the script's origin (its CPU "
          "is not the daemon's), i.e. the copy's cost without the decryption and the library.")
    print(f"Seeks: targets {', '.join(f'{t:g}' for t in SEEK_TARGETS)} s (mid-GOP), {len(s[('copy', 'key')])} "
          "samples per mode and source; copy = open {\"contentId\"}, plain = open {\"uri\": path}.")
    print_notes(ctx, notes)


# --------------------------------------------------------------------------- main

def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="Offline-library benchmark for the Marquee daemon.")
    parser.add_argument("--runs", type=int, default=None, help="runs of each measurement (default 5)")
    parser.add_argument("--quick", action="store_true",
                        help=f"3 runs and a {QUICK_BIG_MB} MB big file (unless --big-mb)")
    parser.add_argument("--big-mb", type=int, default=None,
                        help=f"size of the big file in MiB (default {DEFAULT_BIG_MB})")
    parser.add_argument("--marquee", type=Path, default=None,
                        help="the marquee binary (default .build/release/marquee, built if missing)")
    parser.add_argument("--json", type=Path, default=None, help="also write the raw samples here")
    parser.add_argument("--log", type=Path, default=None,
                        help="copy the daemon's log here at the end (also after an error)")
    args = parser.parse_args(argv)
    if args.runs is None:
        args.runs = 3 if args.quick else 5
    if args.big_mb is None:
        args.big_mb = QUICK_BIG_MB if args.quick else DEFAULT_BIG_MB
    if args.runs < 1 or args.big_mb < 1:
        parser.error("--runs and --big-mb must be at least 1")
    return args


def check_disk(args, tmp: Path, notes: list[str]) -> float:
    """The big file and one copy of it at a time (each copy is removed after its run), plus a
    margin; falls back to FALLBACK_BIG_MB, saying so, when that does not fit."""
    free_mb = shutil.disk_usage(tmp).free / (1 << 20)
    need = lambda mb: 2 * mb + DISK_MARGIN_MB  # noqa: E731
    if free_mb < need(args.big_mb):
        if args.big_mb > FALLBACK_BIG_MB and free_mb >= need(FALLBACK_BIG_MB):
            notes.append(f"only {free_mb / 1024:.1f} GiB free in the temp folder: the big file is "
                         f"{FALLBACK_BIG_MB} MiB instead of {args.big_mb}")
            args.big_mb = FALLBACK_BIG_MB
        else:
            raise BenchError(f"{free_mb / 1024:.1f} GiB free in the temp folder; a {args.big_mb} MiB big file "
                             f"needs {need(args.big_mb) / 1024:.1f} (try --big-mb)")
    return free_mb / 1024


def run(args, procs: Processes, tmp: Path) -> dict:
    for tool in ("gst-launch-1.0", "curl"):
        if shutil.which(tool) is None:
            raise BenchError(f"missing {tool}: run scripts/setup.sh --bench")
    args.marquee = find_binary(args)
    notes: list[str] = []
    ctx: dict = {"load_start": load_text()}
    ctx["disk_free_gb"] = check_disk(args, tmp, notes)

    step("generating the clip")
    clip = make_clip(tmp)
    ctx["clip"] = (f"{clip.name}, 1280x720 {CLIP_FPS} fps H.264 (x264 ultrafast, keyframe every second) "
                   f"+ AAC, {CLIP_SECONDS} s, {clip.stat().st_size / 1e6:.1f} MB")
    step(f"writing the big file ({args.big_mb} MiB)")
    media = tmp / "media"
    media.mkdir()
    big = media / "big.bin"
    make_big_file(big, args.big_mb)
    ctx["big_bytes"] = big.stat().st_size
    origin = Origin({clip.name: clip, big.name: big})
    try:
        return measure_all(args, procs, tmp, origin, clip, big, notes, ctx)
    finally:
        origin.close()
        big.unlink(missing_ok=True)  # also removed with the temp folder; 2 GB should not wait


def measure_all(args, procs, tmp, origin: Origin, clip: Path, big: Path, notes: list[str], ctx: dict) -> dict:
    step("starting marquee")
    marquee = Marquee(args.marquee, procs, tmp)
    marquee.start()
    try:
        marquee.request("GET", "/v1/library")
    except BenchError as exc:
        raise BenchError(f"{args.marquee} has no offline library (GET /v1/library: {exc}): "
                         "swift build -c release --product marquee") from exc
    stream = EventStream(marquee)
    res: dict = {}
    try:
        step("adding the clip to the library")
        clip_s, clip_item = add_and_wait(marquee, stream, origin.url(clip.name), "clip", clip.stat().st_size)
        ctx["clip_add_s"] = clip_s
        step(f"1/3 downloads (and RSS): {args.runs} runs x ({args.big_mb} MiB into the library, then curl -o)")
        res["download"] = measure_downloads(marquee, stream, origin, procs, tmp, big, args.runs, notes)
        big.unlink()  # not served any more: free the disk before the playback windows
        # start 0: a content id has a resume point (saved every 5 s), and the clip must play from the start
        copy_body = {"contentId": "clip", "start": 0}
        plain_body = {"uri": str(clip)}
        http_body = {"uri": origin.url(clip.name)}
        # Warm-up: the first open of each kind loads its plugins (souphttpsrc for the copy).
        for body in (plain_body, copy_body, http_body):
            open_body(marquee, body)
            marquee.stop()
        step(f"2/3 CPU over {CPU_WINDOW_S:.0f} s playing: {args.runs} runs x (copy, plain, http) "
             f"(~{3 * args.runs * CPU_WINDOW_S:.0f} s)")
        res["cpu"] = measure_cpu(marquee, copy_body, plain_body, http_body, args.runs)
        step(f"3/3 seek -> playing: {args.runs} runs x 3 sources x {2 * len(SEEK_TARGETS)} seeks")
        res["seek"] = measure_seek(marquee, copy_body, plain_body, http_body, args.runs, notes)
        item = marquee.request("GET", f"/v1/library/{clip_item['id']}")
        ctx["clip_plays"] = (item.get("license") or {}).get("plays")
        marquee.request("DELETE", f"/v1/library/{clip_item['id']}")
        left = marquee.request("GET", "/v1/library")
        if left.get("items"):
            notes.append(f"{len(left['items'])} library items left after the deletes")
    finally:
        stream.close()
    ctx["rss_idle_end"] = settled_rss_mib(marquee.pid)
    code, _ = marquee.stop_daemon()
    ctx["exit_code"] = code
    ctx["load_end"] = load_text()
    ctx["log_flags"] = log_flags(marquee.log)
    report(args, res, ctx, notes)
    print(f"clip added to the library in {1000 * ctx['clip_add_s']:.0f} ms; plays counted on the copy: "
          f"{ctx.get('clip_plays')}; daemon RSS idle at the end {ctx['rss_idle_end']:.1f} MiB")
    seek = {f"{key}_{mode}": v for (key, mode), v in res["seek"].items()}
    return {"results": {**res, "seek": seek}, "context": ctx, "notes": notes}


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    return run_reported(args, "marquee-library-bench-", run)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
