#!/usr/bin/env python3
"""Math on the picture (issue 19): measures the renderers that could draw a cue's `$$…$$` on
the video output, side by side on the same 20 cues.

Usage: python3 bench/math_render.py [--runs N] [--idle S] [--only NAME,...] [--images DIR]
                                    [--json PATH]

Each candidate runs as a long-lived helper process started from an argument array (never a
shell), one per daemon as the daemon would run it: it reads JSON lines on stdin
({"op": "render", "text": CUE}) and answers length-prefixed frames on stdout (a JSON header,
then the PNG of the cue: white, transparent background, tight box). The helper caches per cue
text, as the daemon would. The bench measures, per candidate:
  start      spawn to the helper's "ready" (imports, fonts, a web page loaded)
  first cue  the first render after ready (lazy font loading and the like), a cue not in the set
  render     each of the 20 cues uncached (the cache cleared between runs): median and p90
  cached     each cue again, answered from the helper's cache (the round trip through the pipe)
  peak RSS   VmHWM of the helper and of every process under it (WPE's web processes), and for
             short-lived children (latex, dvisvgm) the largest ru_maxrss the helper saw
  idle       CPU seconds of the whole process tree over --idle seconds with no request, and
             its RSS at the end
The candidates:
  mathtext   matplotlib's mathtext (Agg, Computer Modern), from a venv (.build/math-mpl)
  wpe-katex  KaTeX from libjs-katex in WPE WebKit (gstreamer1.0-wpe's wpesrc, software
             rendering, no GL), into an appsink; python3-gi from Debian
  ziamath    TeX to SVG in pure Python (ziamath, PyPI, venv .build/math-zia with Debian's
             python3-gi), rasterised with librsvg as rsvgoverlay would
  dvisvgm    TeX Live's latex + dvisvgm (Debian) to SVG, rasterised with librsvg
A candidate whose interpreter or packages are missing is reported as such. See bench/README.md
("Math rendering").
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
EM_PX = 48  # a cue's font size at 1080p: a plain line is about 65 px, 6 % of 1080
CANVAS = (1920, 260)  # WPE's view: a 1080p-wide strip, room for a fraction or a sum

CUES = (
    r"The area is $$\pi r^2$$",
    r"$$x = \frac{-b \pm \sqrt{b^2-4ac}}{2a}$$",
    r"$$\sum_{i=1}^{n} i = \frac{n(n+1)}{2}$$",
    r"$$\alpha_1 + \beta^{2}$$",
    r"Euler: $$e^{i\pi} + 1 = 0$$",
    r"$$\sqrt{2} \approx 1.414$$ is irrational",
    r"$$\int_0^1 x^2\,dx = \frac{1}{3}$$",
    r"Speed $$v = \frac{d}{t}$$ in metres per second",
    r"$$\lim_{x \to 0} \frac{\sin x}{x} = 1$$",
    r"$$E = mc^2$$",
    r"$$\gamma = \frac{1}{\sqrt{1 - v^2/c^2}}$$",
    r"$$a^2 + b^2 = c^2$$ (Pythagoras)",
    r"$$\Delta x \cdot \Delta p \geq \frac{\hbar}{2}$$",
    r"The mean $$\mu = \frac{1}{N}\sum_{k=1}^{N} x_k$$",
    r"$$\sqrt[3]{27} = 3$$",
    r"$$\lambda_{max} = \frac{b}{T}$$ with $$b \approx 2.9 \times 10^{-3}$$",
    r"$$\theta = \omega t + \phi_0$$",
    r"$$\frac{\partial f}{\partial x} = 2x$$",
    r"Half life: $$N(t) = N_0 \, 2^{-t/T}$$",
    r"$$\sigma^2 = \frac{1}{n}\sum (x_i - \bar{x})^2$$",
)
WARMUP_CUE = r"Warm-up $$\omega_0$$"


def split_math(text: str) -> list[tuple[bool, str]]:
    """"a $$x$$ b" -> [(False, "a "), (True, "x"), (False, " b")]; an unpaired $$ stays text
    (the rule of web/js/math.js)."""
    parts, rest = [], text
    while True:
        start = rest.find("$$")
        end = rest.find("$$", start + 2) if start >= 0 else -1
        if end < 0:
            break
        if start > 0:
            parts.append((False, rest[:start]))
        parts.append((True, rest[start + 2:end]))
        rest = rest[end + 2:]
    if rest:
        parts.append((False, rest))
    return parts


# ---------------------------------------------------------------------------------------------
# Helper side: one long-lived process per candidate.

def write_frame(out, payload: bytes) -> None:
    out.write(struct.pack(">I", len(payload)) + payload)


def serve(render, stats=lambda: {}) -> None:
    """The helper loop: JSON lines in, (header, PNG) frames out, a cache per cue text."""
    out = sys.stdout.buffer
    cache: dict[str, bytes] = {}
    write_frame(out, json.dumps({"ready": True}).encode())
    out.flush()
    for line in sys.stdin.buffer:
        req = json.loads(line)
        op = req.get("op")
        if op == "clear":
            cache.clear()
            header, png = {"ok": True}, b""
        elif op == "stats":
            header, png = {"ok": True, **stats()}, b""
        else:
            text = req["text"]
            png = cache.get(text)
            header = {"ok": True, "cached": png is not None}
            if png is None:
                try:
                    png = render(text)
                    cache[text] = png
                except Exception as exc:  # a bad formula fails its cue, not the helper
                    header, png = {"ok": False, "error": f"{type(exc).__name__}: {exc}"[:300]}, b""
        write_frame(out, json.dumps(header).encode())
        write_frame(out, png)
        out.flush()


def children_maxrss_kib() -> dict:
    import resource
    return {"children_maxrss_kib": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss}


def helper_mathtext() -> None:
    import io
    import matplotlib
    matplotlib.use("Agg")
    from matplotlib import mathtext
    from matplotlib.font_manager import FontProperties
    matplotlib.rcParams["mathtext.fontset"] = "cm"
    matplotlib.rcParams["savefig.transparent"] = True
    prop = FontProperties(size=EM_PX)  # points at dpi 72: one point is one pixel

    def render(text: str) -> bytes:
        # mathtext takes text with $…$ spans; a lone $ in the plain text is escaped
        s = "".join(f"${part}$" if is_math else part.replace("$", r"\$") for is_math, part in split_math(text))
        buf = io.BytesIO()
        mathtext.math_to_image(s, buf, prop=prop, dpi=72, format="png", color="white")
        return buf.getvalue()

    serve(render)


def rsvg_to_png(svg: bytes, scale: float = 1.0) -> bytes:
    """Rasterises an SVG with librsvg (what rsvgoverlay uses) into a PNG via GdkPixbuf."""
    import gi
    gi.require_version("Rsvg", "2.0")
    from gi.repository import Rsvg
    handle = Rsvg.Handle.new_from_data(svg)
    if scale != 1.0:
        dim = handle.get_dimensions()
        pixbuf = handle.get_pixbuf()  # librsvg's own size, then scaled: same work as a Cairo scale
        pixbuf = pixbuf.scale_simple(max(1, round(dim.width * scale)), max(1, round(dim.height * scale)), 2)
    else:
        pixbuf = handle.get_pixbuf()
    ok, data = pixbuf.save_to_bufferv("png", [], [])
    return bytes(data)


def helper_ziamath() -> None:
    import ziamath
    import gi
    gi.require_version("Rsvg", "2.0")
    from gi.repository import Rsvg  # noqa: F401  (loaded before "ready", as the daemon would)

    def render(text: str) -> bytes:
        s = "".join(f"${part}$" if is_math else part.replace("$", r"\$") for is_math, part in split_math(text))
        svg = ziamath.Text(s, size=EM_PX, color="white").svg()
        return rsvg_to_png(svg.encode())

    serve(render)


TEX_SPECIALS = {c: "\\" + c for c in "#$%&_{}"} | {"\\": r"\textbackslash{}", "^": r"\^{}", "~": r"\~{}"}


def helper_dvisvgm() -> None:
    import gi
    gi.require_version("Rsvg", "2.0")
    from gi.repository import Rsvg  # noqa: F401
    work = Path(tempfile.mkdtemp(prefix="marquee-tex-"))
    # paranoid file access: TeX reads and writes only in its working folder; no \write18
    env = dict(os.environ, openin_any="p", openout_any="p", shell_escape="f")
    px_per_pt = EM_PX / 10.0  # article's 10 pt font to EM_PX

    def render(text: str) -> bytes:
        body = "".join(f"${tex}$" if is_math else "".join(TEX_SPECIALS.get(c, c) for c in tex)
                       for is_math, tex in split_math(text))
        (work / "cue.tex").write_text(
            "\\documentclass{article}\\usepackage{amsmath}\\usepackage{color}\\pagestyle{empty}"
            "\\begin{document}\\color{white}" + body + "\\end{document}\n")
        subprocess.run(["latex", "-no-shell-escape", "-interaction=nonstopmode", "-halt-on-error", "cue.tex"],
                       cwd=work, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, check=True, timeout=20)
        svg = subprocess.run(["dvisvgm", "--no-fonts", "--exact-bbox", f"--scale={px_per_pt * 0.75:.4f}",
                              "--stdout", "cue.dvi"], cwd=work, env=env, stdin=subprocess.DEVNULL,
                             capture_output=True, check=True, timeout=20).stdout
        return rsvg_to_png(svg)

    try:
        serve(render, children_maxrss_kib)
    finally:
        shutil.rmtree(work, ignore_errors=True)


WPE_PAGE = """<!doctype html><html><head><meta charset="utf-8">
<link rel="stylesheet" href="file:///usr/share/javascript/katex/katex.min.css">
<script src="file:///usr/share/javascript/katex/katex.min.js"></script>
<style>html,body{background:transparent;margin:0;overflow:hidden}
#m{position:fixed;left:0;top:0;width:1px;height:1px}
#c{position:absolute;left:0;top:4px;color:white;font:%dpx sans-serif;white-space:nowrap}</style>
</head><body><div id="m"></div><div id="c"></div><script>
const allFonts = Promise.all(Array.from(document.fonts, face => face.load().catch(() => null)));
// Cue text arrives as a JSON string literal: text nodes and KaTeX's own spans, never HTML.
function show(text, seq) {
  const c = document.getElementById('c');
  c.replaceChildren();
  let rest = text;
  for (;;) {
    const a = rest.indexOf('$$'), b = a < 0 ? -1 : rest.indexOf('$$', a + 2);
    if (b < 0) break;
    if (a > 0) c.append(document.createTextNode(rest.slice(0, a)));
    const span = document.createElement('span');
    katex.render(rest.slice(a + 2, b), span, {throwOnError: false, trust: false, maxExpand: 1000});
    c.append(span);
    rest = rest.slice(b + 2);
  }
  if (rest) c.append(document.createTextNode(rest));
  // the frame that carries this cue: the marker pixel's red channel is the sequence number,
  // set once KaTeX's web fonts have loaded: WebKit loads a face on first paint, so without
  // loading them all first the first cue with a \\sum drew its limits and no sign
  allFonts.then(() => document.fonts.ready).then(() => {
    document.getElementById('m').style.background = 'rgb(' + seq + ',0,0)';
  });
}
</script></body></html>
"""


def helper_wpe() -> None:
    import gi
    gi.require_version("Gst", "1.0")
    gi.require_version("GdkPixbuf", "2.0")
    from gi.repository import Gst, GdkPixbuf
    Gst.init(None)
    work = Path(tempfile.mkdtemp(prefix="marquee-wpe-"))
    page = work / "math.html"
    page.write_text(WPE_PAGE % EM_PX)
    width, height = CANVAS
    pipeline = Gst.parse_launch(
        f"wpesrc name=web draw-background=false ! video/x-raw,width={width},height={height},framerate=60/1 "
        "! videoconvert ! video/x-raw,format=RGBA ! appsink name=sink sync=false max-buffers=1 drop=true")
    web, sink = pipeline.get_by_name("web"), pipeline.get_by_name("sink")
    web.set_property("location", page.as_uri())
    pipeline.set_state(Gst.State.PLAYING)
    seq = [0]

    def frame(deadline: float):
        while time.monotonic() < deadline:
            sample = sink.emit("try-pull-sample", 100 * Gst.MSECOND)
            if sample is None:
                continue
            buf = sample.get_buffer()
            ok, info = buf.map(Gst.MapFlags.READ)
            data = bytes(info.data)
            buf.unmap(info)
            yield data

    def wait_marker(red: int, timeout: float = 10.0) -> bytes:
        for data in frame(time.monotonic() + timeout):
            if data[0] == red and data[3] == 255:
                return data
        raise TimeoutError(f"no frame with marker {red}")

    def render(text: str) -> bytes:
        seq[0] = seq[0] % 250 + 1
        web.emit("run-javascript", f"show({json.dumps(text)}, {seq[0]})")
        data = wait_marker(seq[0])
        stride = width * 4
        rows = [y for y in range(4, height) if data[y * stride + 3:(y + 1) * stride:4].strip(b"\0")]
        if not rows:
            raise ValueError("nothing drawn")
        top, bottom = rows[0], rows[-1] + 1
        cols = bytearray(width)
        for y in range(top, bottom):
            alpha = data[y * stride + 3:(y + 1) * stride:4]
            first = len(alpha) - len(alpha.lstrip(b"\0"))
            last = len(alpha.rstrip(b"\0"))
            if first < last:
                cols[first] = 1
                cols[last - 1] = 1
        left, right = cols.find(1), cols.rfind(1) + 1
        crop = b"".join(data[y * stride + left * 4:y * stride + right * 4] for y in range(top, bottom))
        pixbuf = GdkPixbuf.Pixbuf.new_from_bytes(
            __import__("gi.repository.GLib", fromlist=["GLib"]).Bytes.new(crop),
            GdkPixbuf.Colorspace.RGB, True, 8, right - left, bottom - top, (right - left) * 4)
        ok, png = pixbuf.save_to_bufferv("png", [], [])
        return bytes(png)

    # ready once the page (and KaTeX) answers: a first show() whose marker reaches a frame
    for _ in range(100):
        try:
            seq[0] = 251
            web.emit("run-javascript", "show('', 251)")
            wait_marker(251, timeout=0.2)
            break
        except TimeoutError:
            continue
    try:
        serve(render)
    finally:
        pipeline.set_state(Gst.State.NULL)
        shutil.rmtree(work, ignore_errors=True)


HELPERS = {"mathtext": helper_mathtext, "ziamath": helper_ziamath, "dvisvgm": helper_dvisvgm, "wpe-katex": helper_wpe}


# ---------------------------------------------------------------------------------------------
# Bench side: Python 3.11 standard library only.

CLK_TCK = os.sysconf("SC_CLK_TCK")
SYSTEM_PYTHON = "/usr/bin/python3"  # Debian's, for python3-gi


def candidates() -> list[dict]:
    venv = REPO_ROOT / ".build"
    return [
        {"name": "mathtext", "label": "(a) matplotlib mathtext", "python": venv / "math-mpl/bin/python",
         "needs": "python3 -m venv .build/math-mpl && .build/math-mpl/bin/pip install matplotlib"},
        {"name": "wpe-katex", "label": "(b) KaTeX in WPE WebKit", "python": Path(SYSTEM_PYTHON),
         "needs": "apt-get install gstreamer1.0-wpe libjs-katex python3-gi gir1.2-gstreamer-1.0",
         "check": lambda: Path("/usr/share/javascript/katex/katex.min.js").exists() and gst_has("wpesrc")},
        {"name": "ziamath", "label": "(c1) ziamath SVG + librsvg", "python": venv / "math-zia/bin/python",
         "needs": "python3 -m venv --system-site-packages .build/math-zia && .build/math-zia/bin/pip install ziamath"
                  " (gir1.2-rsvg-2.0 from Debian)"},
        {"name": "dvisvgm", "label": "(c2) latex + dvisvgm + librsvg", "python": Path(SYSTEM_PYTHON),
         "needs": "apt-get install texlive-latex-base dvisvgm gir1.2-rsvg-2.0",
         "check": lambda: bool(shutil.which("latex") and shutil.which("dvisvgm"))},
    ]


def gst_has(element: str) -> bool:
    return subprocess.run(["gst-inspect-1.0", "--exists", element], stdin=subprocess.DEVNULL).returncode == 0


def read_exact(stream, n: int) -> bytes:
    data = b""
    while len(data) < n:
        chunk = stream.read(n - len(data))
        if not chunk:
            raise EOFError("helper closed its output")
        data += chunk
    return data


def read_frame(stream) -> bytes:
    (n,) = struct.unpack(">I", read_exact(stream, 4))
    return read_exact(stream, n)


class Helper:
    def __init__(self, python: Path, name: str, log: Path) -> None:
        self.log = open(log, "wb")
        env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENBLAS", "MPLBACKEND"))}
        self.proc = subprocess.Popen([str(python), str(Path(__file__).resolve()), "--helper", name],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.log, env=env)
        header = json.loads(read_frame(self.proc.stdout))
        if not header.get("ready"):
            raise RuntimeError(f"helper not ready: {header}")

    def ask(self, req: dict) -> tuple[dict, bytes]:
        self.proc.stdin.write(json.dumps(req).encode() + b"\n")
        self.proc.stdin.flush()
        return json.loads(read_frame(self.proc.stdout)), read_frame(self.proc.stdout)

    def close(self) -> None:
        try:
            self.proc.stdin.close()
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()


def tree(pid: int) -> list[int]:
    """pid and every process under it (WPE's web and network processes)."""
    kids: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            ppid = int(stat[stat.rindex(")") + 2:].split()[1])
            kids.setdefault(ppid, []).append(int(entry))
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        todo.extend(kids.get(p, []))
    return out


def status_kib(pid: int, field: str) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def cpu_ticks(pid: int) -> int:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return 0
    fields = stat[stat.rindex(")") + 2:].split()
    return int(fields[11]) + int(fields[12])


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


def measure(cand: dict, args, tmp: Path) -> dict:
    res: dict = {"label": cand["label"]}
    if not cand["python"].exists() or not cand.get("check", lambda: True)():
        res["missing"] = cand["needs"]
        return res
    t0 = time.monotonic()
    helper = Helper(cand["python"], cand["name"], tmp / f"{cand['name']}.log")
    try:
        res["start_s"] = time.monotonic() - t0
        t1 = time.monotonic()
        header, _ = helper.ask({"op": "render", "text": WARMUP_CUE})
        res["first_ms"] = (time.monotonic() - t1) * 1000
        renders, cached, errors, sizes = [], [], [], []
        for run in range(args.runs):
            helper.ask({"op": "clear"})
            for i, cue in enumerate(CUES):
                t = time.monotonic()
                header, png = helper.ask({"op": "render", "text": cue})
                renders.append((time.monotonic() - t) * 1000)
                if not header["ok"]:
                    errors.append(f"cue {i + 1}: {header['error']}")
                elif run == 0:
                    sizes.append(png_size(png))
                    if args.images:
                        (args.images / f"{cand['name']}-{i + 1:02d}.png").write_bytes(png)
            for cue in CUES:
                t = time.monotonic()
                header, _ = helper.ask({"op": "render", "text": cue})
                cached.append((time.monotonic() - t) * 1000)
                assert header.get("cached"), "the second ask of a cue was not cached"
        res.update(render=renders, cached=cached, errors=errors[:3], error_count=len(errors), sizes=sizes)
        stats, _ = helper.ask({"op": "stats"})
        pids = tree(helper.proc.pid)
        res["procs"] = len(pids)
        res["peak_rss_mib"] = max(sum(status_kib(p, "VmHWM") for p in pids),
                                  stats.get("children_maxrss_kib", 0) + status_kib(helper.proc.pid, "VmHWM")) / 1024
        before = sum(cpu_ticks(p) for p in pids)
        time.sleep(args.idle)
        pids = tree(helper.proc.pid)
        res["idle_cpu_pct"] = (sum(cpu_ticks(p) for p in pids) - before) / CLK_TCK / args.idle * 100
        res["idle_rss_mib"] = sum(status_kib(p, "VmRSS") for p in pids) / 1024
    except (EOFError, RuntimeError, OSError) as exc:
        res["failed"] = f"{type(exc).__name__}: {exc}; log: {log_tail(tmp / (cand['name'] + '.log'))}"
    finally:
        helper.close()
    return res


def png_size(png: bytes) -> tuple[int, int]:
    return struct.unpack(">II", png[16:24]) if png[:8] == b"\x89PNG\r\n\x1a\n" else (0, 0)


def log_tail(path: Path) -> str:
    try:
        return " | ".join(path.read_text(errors="replace").strip().splitlines()[-3:])
    except OSError:
        return "(no log)"


def report(results: list[dict], args) -> None:
    print()
    print(f"Math rendering: {len(CUES)} cues, {args.runs} uncached passes each, font {EM_PX} px "
          f"(a 1080p cue line), white on transparent, PNG out; idle window {args.idle:.0f} s")
    print(f"machine: {os.cpu_count()} CPUs, {os.uname().release}")
    cols = [r["label"] for r in results]
    width = max(26, *(len(c) for c in cols))
    print(f"{'':26}" + "".join(f" | {c:>{width}}" for c in cols))
    rows = [
        ("start (spawn to ready)", lambda r: f"{r['start_s']:.2f} s"),
        ("first cue", lambda r: f"{r['first_ms']:.0f} ms"),
        ("render per cue, median", lambda r: f"{statistics.median(r['render']):.1f} ms"),
        ("render per cue, p90", lambda r: f"{percentile(r['render'], 0.9):.1f} ms"),
        ("render per cue, max", lambda r: f"{max(r['render']):.1f} ms"),
        ("cached re-render, median", lambda r: f"{statistics.median(r['cached']):.2f} ms"),
        ("peak RSS (process tree)", lambda r: f"{r['peak_rss_mib']:.0f} MiB"),
        ("processes", lambda r: str(r["procs"])),
        (f"idle CPU over {args.idle:.0f} s", lambda r: f"{r['idle_cpu_pct']:.2f} %"),
        ("idle RSS", lambda r: f"{r['idle_rss_mib']:.0f} MiB"),
        ("image height, median", lambda r: f"{statistics.median(h for _, h in r['sizes']):.0f} px" if r["sizes"] else "-"),
        ("cues failed", lambda r: f"{r['error_count'] // max(1, args.runs)}/{len(CUES)}"),
    ]
    for name, fmt in rows:
        cells = []
        for r in results:
            if "missing" in r:
                cells.append("not installed")
            elif "failed" in r:
                cells.append("failed")
            else:
                cells.append(fmt(r))
        print(f"{name:26}" + "".join(f" | {c:>{width}}" for c in cells))
    for r in results:
        if "missing" in r:
            print(f"note: {r['label']}: not installed; needs {r['missing']}")
        if "failed" in r:
            print(f"note: {r['label']}: failed: {r['failed']}")
        for e in r.get("errors", []):
            print(f"note: {r['label']}: {e}")


def main(argv: list[str]) -> int:
    if len(argv) == 2 and argv[0] == "--helper":
        HELPERS[argv[1]]()
        return 0
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="uncached passes over the cues (default 3)")
    parser.add_argument("--idle", type=float, default=10.0, help="idle window in seconds (default 10)")
    parser.add_argument("--only", help="comma-separated candidate names")
    parser.add_argument("--images", type=Path, help="writes each candidate's PNG of each cue here")
    parser.add_argument("--json", type=Path, help="also writes the raw samples")
    args = parser.parse_args(argv)
    if args.images:
        args.images.mkdir(parents=True, exist_ok=True)
    chosen = [c for c in candidates() if not args.only or c["name"] in args.only.split(",")]
    with tempfile.TemporaryDirectory(prefix="marquee-math-bench-") as tmp:
        results = []
        for cand in chosen:  # one at a time: nothing else of ours runs during a measurement
            print(f"measuring {cand['label']} ...", file=sys.stderr, flush=True)
            results.append(measure(cand, args, Path(tmp)))
    report(results, args)
    if args.json:
        args.json.write_text(json.dumps(results, indent=1, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
