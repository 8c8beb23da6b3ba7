#!/usr/bin/env python3
"""The dashboard in a real headless Chromium against a real `marquee serve`.

    python3 Tests/Browser/dashboard_test.py --marquee .build/debug/marquee

Runs itself in .build/browser-venv (made on first use from requirements.txt) with Debian's
chromium and chromedriver; nothing is downloaded but the pinned PyPI packages. Media is made
with gst-launch-1.0: the clip, a Matroska file with two audio tracks and a subtitle track,
and a three-rung HLS ladder served over loopback HTTP from a thread; another thread is the
analytics collector (`--analytics-url`) the first daemon posts to, and another the origin
the offline library downloads the clip from (with byte ranges, paced to last a few seconds). Screenshots (and, on failure, the logs) go to .build/browser-artifacts/.
Ends with `dashboard: N passed, M failed` and exits non-zero on any failure.
MARQUEE_SKIP_BROWSER=1 skips it, saying so.
"""

import argparse
import json
import os
import re
import shutil
import sys
import tempfile
import time
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import support  # noqa: E402

CHECK_NAMES = [
    "check_page_loads",
    "check_follows_to_playing",
    "check_position_ticks",
    "check_pause_and_play_buttons",
    "check_math_cue",
    "check_preview",
    "check_protected_preview",
    "check_blocked_session",
    "check_open_from_page",
    "check_track_controls",
    "check_variant_control",
    "check_pip_controls",
    "check_watermark_controls",
    "check_queue_view",
    "check_analytics_view",
    "check_library_download",
    "check_library_form_pause_resume",
    "check_library_play",
    "check_library_failure",
    "check_library_delete",
    "check_reconnect",
    "check_token",
    "check_console",
]
CHECKS = len(CHECK_NAMES)
STATES = {"idle", "opening", "buffering", "paused", "playing", "ended", "error"}
WAIT = 20  # the longest any single wait may take, in seconds
By = Keys = None  # selenium's, imported by start_browser once the venv is in place


def main():
    if os.environ.get("MARQUEE_SKIP_BROWSER") == "1":
        print("dashboard: SKIPPED: the browser test did not run because MARQUEE_SKIP_BROWSER=1 is set")
        return 0
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--marquee", default=os.path.join(support.ROOT, ".build", "debug", "marquee"),
                        help="the marquee binary (default: .build/debug/marquee)")
    parser.add_argument("--chromium", default=os.environ.get("CHROMIUM", "/usr/bin/chromium"))
    parser.add_argument("--chromedriver", default=os.environ.get("CHROMEDRIVER", "/usr/bin/chromedriver"))
    parser.add_argument("--artifacts", default=os.path.join(support.ROOT, ".build", "browser-artifacts"))
    args = parser.parse_args()
    args.marquee = os.path.abspath(args.marquee)
    for what, path in (("marquee", args.marquee), ("chromium", args.chromium),
                       ("chromedriver", args.chromedriver)):
        if not os.access(path, os.X_OK):
            hint = " (Debian: chromium, chromium-driver; scripts/setup.sh installs them)" if what != "marquee" else " (swift build)"
            print(f"dashboard: {what} not found at {path}{hint}")
            print(f"dashboard: 0 passed, {CHECKS} failed")
            return 1

    support.ensure_venv()
    # Selenium Manager must never reach for the network: the driver and browser are given.
    os.environ["SE_OFFLINE"] = "true"
    os.environ["SE_AVOID_STATS"] = "true"
    return DashboardTest(args).run()


def describe(error):
    """A failure in one line or a few: an assertion's own message; for WebDriver errors their
    message without chromedriver's native stack trace."""
    if isinstance(error, AssertionError):
        return str(error)
    message = getattr(error, "msg", None) or str(error)
    return f"{type(error).__name__}: {message}".strip()


class DashboardTest:
    def __init__(self, args):
        self.args = args
        self.results = []  # (number, name, error or None)
        self.console = []  # browser log entries, in order
        self.daemons = []  # every daemon started, to stop them all
        self.driver = None
        self.service = None
        self.servers = []  # the HLS server and the analytics collector, to stop them
        self.token_port = None
        self.reconnect_port = None
        self.down_window = (0, 0)  # wall-clock ms while the reconnect test's port had no daemon
        self.token_window = (0, 0)  # wall-clock ms from the token daemon's start to the token typed
        self.stops = []  # (port, wall-clock ms) of each stop the test makes on purpose
        self.marks = []  # (wall-clock ms, what the test did), for timeline.log
        self.provoked = []  # (path, status, wall-clock ms): API refusals a check asks for on purpose
        self.library_ids = []  # the library items the checks added, oldest first

    # MARK: running

    def run(self):
        started = time.monotonic()
        shutil.rmtree(self.args.artifacts, ignore_errors=True)
        os.makedirs(self.args.artifacts)
        self.work = tempfile.mkdtemp(prefix="marquee-browser-")
        try:
            try:
                self.clip, self.srt = support.make_media(self.work)
                self.tracks, self.tracks_srt = support.make_tracks_media(self.work)
                hls_dir = os.path.join(self.work, "hls")
                os.makedirs(hls_dir)
                master = support.make_hls_ladder(hls_dir)
                self.queue_items = []
                for name in ("queue-a.mp4", "queue-b.mp4", "queue-c.mp4"):
                    path = os.path.join(self.work, name)
                    os.link(self.clip, path)
                    self.queue_items.append(path)
                self.hls_server = support.StaticServer(hls_dir)
                self.servers.append(self.hls_server)
                self.hls = f"{self.hls_server.url}/{master}"
                self.collector = support.Collector()
                self.servers.append(self.collector)
                origin_dir = os.path.join(self.work, "origin")
                os.makedirs(origin_dir)
                for name in ("library-a.mp4", "library-b.mp4"):
                    os.link(self.clip, os.path.join(origin_dir, name))
                self.origin = support.MediaOrigin(origin_dir)
                self.servers.append(self.origin)
                self.sessions = support.SessionServer()
                self.servers.append(self.sessions)
                self.daemon = self.start_daemon("daemon-1", extra_args=("--analytics-url", self.collector.url,
                                                                        "--session-url", self.sessions.url,
                                                                        "--session-interval", "1"))
                self.start_browser()
            except Exception as error:  # nothing can run: every check fails
                traceback.print_exc()
                print(f"dashboard: set-up failed: {error}")
                for n in range(1, CHECKS + 1):
                    self.results.append((n, "set-up", str(error)))
            else:
                self.run_checks()
        finally:
            self.save_logs()
            self.tear_down()
        passed = sum(1 for r in self.results if r[2] is None)
        failed = len(self.results) - passed
        artifacts = os.path.abspath(self.args.artifacts)
        if artifacts.startswith(support.ROOT + os.sep):
            artifacts = os.path.relpath(artifacts, support.ROOT)
        print(f"dashboard: artifacts in {artifacts}; {time.monotonic() - started:.0f} s")
        print(f"dashboard: {passed} passed, {failed} failed")
        return 0 if failed == 0 and passed == CHECKS else 1

    def run_checks(self):
        checks = [getattr(self, name) for name in CHECK_NAMES]
        for number, check in enumerate(checks, 1):
            name = check.__doc__.strip().splitlines()[0]
            began = time.monotonic()
            self.mark(f"check {number}: {name}")
            error = None
            try:
                check()
            except Exception as exc:  # a check's failure, with what it saw
                error = describe(exc)
                self.screenshot(f"failed-{number}.png")
            finally:
                self.drain_console()
            self.results.append((number, name, error))
            took = time.monotonic() - began
            if error is None:
                print(f"ok   {number:2d} {name} ({took:.1f} s)", flush=True)
            else:
                print(f"FAIL {number:2d} {name} ({took:.1f} s)\n       {error}", flush=True)

    # MARK: the checks

    def check_page_loads(self):
        """The page loads from a daemon on port 0 and shows idle and connected"""
        self.navigate(self.daemon.url + "/")
        self.wait_field("connection", "connected")
        self.wait_field("state", "idle")

    def check_follows_to_playing(self):
        """The page follows the daemon from idle to playing (opened through the API)"""
        self.wait_field("state", "idle")
        self.open_clip()
        self.wait_field("state", "playing")

    def check_position_ticks(self):
        """The position ticks while playing, and the duration is the clip's"""
        self.ensure_playing()
        # The state event can come a moment before the first position event.
        first = self.wait_for("a numeric data-seconds on [data-field=position]",
                              lambda: self.seconds("position"), timeout=5,
                              describe=lambda: f"it is {self.attribute('position', 'data-seconds')!r}")
        time.sleep(1.5)
        second = self.seconds("position")
        assert second is not None, \
            f"position lost its numeric data-seconds while playing: {self.attribute('position', 'data-seconds')!r}"
        assert second - first >= 0.5, \
            f"position data-seconds went from {first} to {second} in 1.5 s of playing"
        duration = self.seconds("duration")
        assert duration is not None and abs(duration - 20) < 1, \
            f"duration data-seconds is {duration!r}, the clip lasts 20 s"

    def check_pause_and_play_buttons(self):
        """The pause and play buttons change the daemon's state"""
        self.ensure_playing()
        self.click_action("pause")
        self.daemon.wait_state("paused")
        self.wait_field("state", "paused")
        self.click_action("play")
        self.daemon.wait_state("playing")
        self.wait_field("state", "playing")

    def check_math_cue(self):
        """A subtitle cue with $$...$$ math is rendered by KaTeX"""
        self.open_clip(subtitle=self.srt)
        self.wait_for("a .katex element in [data-field=cue]",
                      lambda: self.js("return document.querySelectorAll('[data-field=cue] .katex').length"),
                      describe=lambda: "cue HTML: " + repr(self.js(
                          "const c = document.querySelector('[data-field=cue]');"
                          "return c ? c.innerHTML.slice(0, 300) : '(no [data-field=cue])'")))
        self.sized_screenshot("dashboard-playing.png", 1280, 800)

    def check_preview(self):
        """The preview image shows the snapshot while playing"""
        self.ensure_playing()
        script = ("const i = document.querySelector('img[data-field=preview]');"
                  "return i ? {w: i.naturalWidth, complete: i.complete, src: i.currentSrc} : null")
        self.wait_for("img[data-field=preview] with naturalWidth > 0",
                      lambda: (self.js(script) or {}).get("w", 0) > 0,
                      describe=lambda: f"image: {self.js(script)}")
        self.sized_screenshot("dashboard-phone.png", 390, 844, mobile=True)

    def check_protected_preview(self):
        """Protected content: the preview says so and shows no frame; the next item shows frames"""
        self.source_change("API open clip.mp4 protected")
        # A preview poll on its way at the switch may meet the refusal: expected.
        self.provoked.append(("/v1/snapshot.jpg", 403, time.time() * 1000))
        status, reply = self.daemon.request("POST", "/v1/player/open?wait=playing&timeout=15",
                                            {"uri": self.clip, "protected": True})
        assert status == 200 and reply.get("source", {}).get("protected") is True, f"open answered {status}: {reply}"
        script = ("const i = document.querySelector('img[data-field=preview]');"
                  "const m = document.querySelector('[data-field=preview-message]');"
                  "return {imgHidden: !i || i.hidden, message: m ? m.textContent : ''}")
        self.wait_for("the preview saying the content is protected, with no frame",
                      lambda: (lambda v: v["imgHidden"] and "Protected" in v["message"])(self.js(script)),
                      describe=lambda: f"preview: {self.js(script)}")
        self.api_open(self.clip)
        self.wait_preview_frame()

    def check_blocked_session(self):
        """A session the session server blocks shows the server's message; the next open plays"""
        self.ensure_playing()
        self.sessions.refuse("concurrent", "Watching on another device")
        script = ("const b = document.querySelector('[data-field=error-box]');"
                  "const d = document.querySelector('[data-field=error-detail]');"
                  "return {hidden: !b || b.hidden, detail: d ? d.textContent : ''}")
        self.wait_for("the error box with the session server's message",
                      lambda: (lambda v: not v["hidden"] and "Watching on another device" in v["detail"]
                               and "concurrent" in v["detail"])(self.js(script)),
                      describe=lambda: f"error box: {self.js(script)}")
        self.wait_field("state", "error")
        self.sessions.allow()
        self.api_open(self.clip)
        self.wait_for("the error box gone once the next open plays",
                      lambda: self.js(script)["hidden"], describe=lambda: f"error box: {self.js(script)}")

    def check_open_from_page(self):
        """The open form plays a file"""
        self.stops.append((self.daemon.port, time.time() * 1000))
        self.mark(f"API stop ({self.daemon.name})")
        self.daemon.stop_player()
        self.wait_field("state", "idle")
        button = self.find_action("open")
        form = self.driver.execute_script("return arguments[0].form", button)
        assert form is not None, "[data-action=open] is not inside a form"
        uri = form.find_element(By.CSS_SELECTOR, "[name=uri]")
        uri.clear()
        uri.send_keys(self.clip)
        for name in ("subtitle", "start"):  # left empty: the page must not send them empty
            field = form.find_elements(By.CSS_SELECTOR, f"[name={name}]")
            assert field, f"the open form has no [name={name}] input"
            field[0].clear()
        self.click_action("open")
        snapshot = self.daemon.wait_state("playing", timeout=WAIT)
        source = (snapshot.get("source") or {}).get("uri", "")
        assert source.endswith(self.clip), f"the daemon plays {source!r}, not {self.clip}"
        self.wait_field("state", "playing")

    def check_track_controls(self):
        """The audio and subtitle pickers switch the daemon's tracks"""
        self.api_open(self.tracks, subtitle=self.tracks_srt)
        self.wait_for("two audio tracks in the audio picker",
                      lambda: self.option_values("audio-track") == ["audio-1", "audio-2"],
                      describe=lambda: f"options {self.option_values('audio-track')}")

        def selected(kind):
            return [t["id"] for t in self.daemon.snapshot()["tracks"][kind] if t.get("selected")]

        self.choose("audio-track", "audio-2")
        self.wait_api("audio-2 selected", lambda: selected("audio"), lambda ids: ids == ["audio-2"])
        self.wait_for("the audio picker on audio-2", lambda: self.value_of("audio-track") == "audio-2",
                      describe=lambda: f"it is on {self.value_of('audio-track')!r}")

        subtitles = self.wait_for("the embedded and the external subtitle in the subtitle picker",
                                  lambda: (lambda v: v if {"subtitle-1", "external-1"} <= set(v) else False)(
                                      self.option_values("subtitle-track")),
                                  describe=lambda: f"options {self.option_values('subtitle-track')}")
        assert subtitles[0] == "", f"the subtitle picker's first choice is {subtitles[0]!r}, not off"
        self.choose("subtitle-track", "subtitle-1")
        self.wait_api("subtitle-1 selected", lambda: selected("subtitle"), lambda ids: ids == ["subtitle-1"])
        self.choose("subtitle-track", "")
        self.wait_api("no subtitle selected", lambda: selected("subtitle"), lambda ids: ids == [])
        self.wait_for("the subtitle picker on off", lambda: self.value_of("subtitle-track") == "",
                      describe=lambda: f"it is on {self.value_of('subtitle-track')!r}")
        self.choose("subtitle-track", "external-1")
        self.wait_api("external-1 selected", lambda: selected("subtitle"), lambda ids: ids == ["external-1"])

    def check_variant_control(self):
        """The quality picker pins an HLS variant and goes back to auto"""
        self.api_open(self.hls)
        variants = self.wait_api("the ladder's three variants", lambda: self.daemon.snapshot()["variants"],
                                 lambda v: len(v) == 3)
        ids = [v["id"] for v in sorted(variants, key=lambda v: v["bandwidth"])]
        self.wait_for("auto and the three variants in the quality picker",
                      lambda: sorted(self.option_values("variant")) == sorted(["auto"] + ids),
                      describe=lambda: f"options {self.option_values('variant')}")
        # As a viewer would, pick once the picture is up: a pin flushes the pipeline, and
        # a flush before the first frame was ever on screen leaves the preview nothing to
        # show for a moment (503 no_video, an error in the console).
        self.wait_preview_frame()
        # Pin a rung that is not the one playing, so that the switch is the pin's doing.
        current = self.daemon.snapshot()["variant"].get("current")
        target = ids[0] if current != ids[0] else ids[1]
        self.choose("variant", target)
        self.wait_api(f"{target} pinned and playing", lambda: self.daemon.snapshot()["variant"],
                      lambda v: v["mode"] == "manual" and v["selected"] == target and v["current"] == target)
        self.wait_for(f"the ladder's playing rung to be {target}",
                      lambda: self.js("const li = document.querySelector('[data-field=ladder] li.current.pinned');"
                                      "return li ? li.textContent : null"),
                      describe=lambda: self.js("return document.querySelector('[data-field=ladder]').innerHTML"))
        self.choose("variant", "auto")
        self.wait_api("auto mode", lambda: self.daemon.snapshot()["variant"],
                      lambda v: v["mode"] == "auto" and v["selected"] is None)
        self.wait_for("the quality picker on auto", lambda: self.value_of("variant") == "auto",
                      describe=lambda: f"it is on {self.value_of('variant')!r}")
        # A file after it has no ladder: the picker must not offer the old one.
        self.api_open(self.clip)
        assert self.daemon.snapshot()["variants"] == [], "the daemon still reports variants for a file"
        self.wait_for("the quality picker to offer only auto, disabled",
                      lambda: self.option_values("variant") == ["auto"]
                      and self.js("return document.querySelector('[data-action=variant]').disabled"),
                      describe=lambda: f"options {self.option_values('variant')}")

    def check_pip_controls(self):
        """The picture-in-picture controls start, move, unmute, swap and stop the inset"""
        self.api_open(self.clip)
        form = self.form_of("pip-start")
        self.fill(form, "pip-uri", self.clip)
        self.choose_in(form, "pip-corner", "top-left")
        self.choose_in(form, "pip-size", "0.2")
        self.click_action("pip-start")
        pip = self.wait_api("an inset playing at the top left", lambda: self.daemon.snapshot()["pip"],
                            lambda p: p and p["state"] == "playing")
        assert pip["muted"] is True, f"the inset is not muted: {pip}"
        assert pip["uri"].endswith(self.clip), f"the inset plays {pip['uri']!r}"
        self.assert_rect(pip["rect"], 0.05, 0.05, 0.2)
        self.wait_for("the page to show the inset", lambda: self.attribute("pip-state", "data-state") == "playing",
                      describe=lambda: f"pip-state {self.text('pip-state')!r}")

        self.click_selector('[data-action="pip-move"][data-corner="bottom-right"]')
        pip = self.wait_api("the inset at the bottom right", lambda: self.daemon.snapshot()["pip"],
                            lambda p: p and abs(p["rect"]["x"] - 0.75) < 1e-6)
        self.assert_rect(pip["rect"], 0.75, 0.75, 0.2)

        self.wait_for("the mute button to offer unmuting", lambda: self.action_text("pip-mute") == "Unmute inset",
                      describe=lambda: f"it reads {self.action_text('pip-mute')!r}")
        self.click_action("pip-mute")
        self.wait_api("the inset unmuted", lambda: self.daemon.snapshot()["pip"], lambda p: p and p["muted"] is False)
        self.wait_for("the mute button to offer muting", lambda: self.action_text("pip-mute") == "Mute inset",
                      describe=lambda: f"it reads {self.action_text('pip-mute')!r}")

        self.click_action("pip-swap")
        self.wait_api("the pictures swapped", lambda: self.daemon.snapshot()["pip"], lambda p: p and p["swapped"])
        self.wait_for("the page to say swapped", lambda: "swapped" in (self.text("pip-state") or ""),
                      describe=lambda: f"pip-state {self.text('pip-state')!r}")

        self.click_action("pip-stop")
        self.wait_api("no inset", lambda: self.daemon.snapshot()["pip"], lambda p: p is None)
        self.wait_field("pip-state", "Off")

    def check_watermark_controls(self):
        """The watermark form shows, moves and removes the watermark"""
        self.api_open(self.clip)
        form = self.form_of("watermark-on")
        self.fill(form, "watermark-text", "Browser test")
        self.choose_in(form, "watermark-position", "top-left")
        self.fill(form, "watermark-size", "8")
        self.fill(form, "watermark-opacity", "50")
        self.click_action("watermark-on")
        wm = self.wait_api("the watermark", lambda: self.daemon.snapshot()["watermark"],
                           lambda w: w and w.get("text") == "Browser test")
        assert wm["position"] == "top-left", f"the watermark is at {wm['position']!r}, not top-left"
        assert abs(wm["size"] - 0.08) < 1e-6, f"the watermark's size is {wm['size']}, not 0.08"
        assert wm["color"].upper() == "#FFFFFF80", f"the watermark's colour is {wm['color']!r}, not #FFFFFF80"
        self.wait_for("the page to show the watermark", lambda: "Browser test" in (self.text("watermark") or ""),
                      describe=lambda: f"it reads {self.text('watermark')!r}")

        self.choose_in(form, "watermark-position", "random")
        interval = form.find_element(By.CSS_SELECTOR, "[name=watermark-interval]")
        assert interval.is_displayed(), "the jump interval is not shown for a random position"
        self.fill(form, "watermark-interval", "2")
        self.click_action("watermark-on")
        self.wait_api("a jumping watermark", lambda: self.daemon.snapshot()["watermark"],
                      lambda w: w and w["position"] == "random" and w.get("interval") == 2)
        self.wait_for("the page to say it jumps", lambda: "jumps every 2" in (self.text("watermark") or ""),
                      describe=lambda: f"it reads {self.text('watermark')!r}")

        self.click_action("watermark-off")
        self.wait_api("no watermark", lambda: self.daemon.snapshot()["watermark"], lambda w: w is None)
        self.wait_field("watermark", "None")

    def check_queue_view(self):
        """The queue view lists the items, follows the one playing, and its buttons move through it"""
        a, b, c = self.queue_items
        self.set_queue([a, b, c], loop=False)
        self.wait_queue_page(3, 0)
        assert self.attribute("queue-loop", "data-loop") == "off", \
            f"queue-loop says {self.attribute('queue-loop', 'data-loop')!r} for a queue without loop"

        self.click_action("queue-next")
        self.wait_queue_api(1, b)
        self.wait_queue_page(3, 1)
        self.click_action("queue-next")
        self.wait_queue_api(2, c)
        self.wait_queue_page(3, 2)
        self.wait_for("next to be disabled at the last item of a queue that does not loop",
                      lambda: self.js("return document.querySelector('[data-action=queue-next]').disabled"))
        self.click_action("queue-previous")
        self.wait_queue_api(1, b)
        self.wait_queue_page(3, 1)

        # Moved by someone else: the page follows the queue event.
        self.source_change("API POST /v1/queue/next")
        status, reply = self.daemon.request("POST", "/v1/queue/next")
        assert status == 200, f"POST /v1/queue/next answered {status}: {reply}"
        self.wait_queue_page(3, 2)

        self.set_queue([a, b], loop=True)
        self.wait_queue_page(2, 0)
        self.wait_for("queue-loop to say the queue loops", lambda: self.attribute("queue-loop", "data-loop") == "on",
                      describe=lambda: f"it says {self.text('queue-loop')!r}")
        self.click_action("queue-previous")  # at the first item of a looping queue: round to the last
        self.wait_queue_api(1, b)
        self.wait_queue_page(2, 1)
        self.click_action("queue-next")
        self.wait_queue_api(0, a)
        self.wait_queue_page(2, 0)
        self.sized_screenshot("dashboard-queue.png", 1280, 1700)

        # The loop switch: PATCH /v1/queue, without starting the queue again.
        self.click_action("queue-loop")
        self.wait_api("the queue to stop looping", lambda: self.daemon.request("GET", "/v1/queue")[1],
                      lambda q: q and q["loop"] is False and q["index"] == 0)
        self.wait_for("queue-loop to say the queue stops", lambda: self.attribute("queue-loop", "data-loop") == "off",
                      describe=lambda: f"it says {self.text('queue-loop')!r}")
        self.click_action("queue-loop")
        self.wait_api("the queue to loop again", lambda: self.daemon.request("GET", "/v1/queue")[1],
                      lambda q: q and q["loop"] is True and q["index"] == 0)

        self.click_action("queue-clear")
        self.wait_api("an empty queue", lambda: self.daemon.request("GET", "/v1/queue")[1],
                      lambda q: q and q["items"] == [] and q["index"] is None)
        self.wait_field("queue-summary", "Empty")
        assert self.js("return document.querySelectorAll('[data-field=queue] li').length") == 0, \
            "the queue list still has items after clearing"

    def check_analytics_view(self):
        """The analytics view shows the daemon's counters and last error, and drops the backlog"""
        self.api_open(self.clip)

        def status():
            code, body = self.daemon.request("GET", "/v1/analytics")
            assert code == 200, f"GET /v1/analytics answered {code}: {body}"
            return body

        self.wait_attribute("analytics-state", "data-enabled", "true")
        first = self.wait_api("an event sent to the collector", status, lambda s: s["sent"] > 0 and s["pending"] == 0)
        self.wait_counters_match(status)
        url = self.text("analytics-url") or ""
        assert self.collector.url in url, f"analytics-url reads {url!r}, not the collector's {self.collector.url}"

        # Refused by the collector: failed.
        self.collector.mode = "refuse"
        self.api_pause_play()
        self.wait_api("an event refused", status, lambda s: s["failed"] > first["failed"] and s["pending"] == 0)
        self.wait_counters_match(status)

        # The collector down: events wait, with the reason.
        self.collector.mode = "down"
        self.api_pause_play()
        self.api_pause_play()
        waiting = self.wait_api("events waiting with an error", status,
                                lambda s: s["pending"] >= 2 and s.get("lastError"))
        self.wait_counters_match(status)
        self.wait_for("the last error on the page",
                      lambda: self.text("analytics-error") and self.text("analytics-error") == status().get("lastError"),
                      describe=lambda: f"it reads {self.text('analytics-error')!r}; the API says {status().get('lastError')!r}")
        self.sized_screenshot("dashboard-analytics.png", 1280, 1700)
        self.click_action("analytics-drop")
        dropped = self.wait_api("the backlog dropped", status,
                                lambda s: s["pending"] == 0 and s["dropped"] >= first["dropped"] + waiting["pending"])
        self.wait_counters_match(status)
        self.wait_for("the error row to go", lambda: not self.js(
            "return !document.querySelector('[data-field=analytics-error-row]').hidden"))
        assert dropped.get("lastError") is None, f"the API still reports an error: {dropped}"
        self.collector.mode = "ok"

    def check_library_download(self):
        """The library view lists an item added through the API and follows its download to complete"""
        self.install_api_log()
        size = os.path.getsize(self.clip)
        self.origin.rate = max(64_000, size // 3)  # about 3 s: the bar is seen partway
        item = self.library_add({"uri": f"{self.origin.url}/library-a.mp4", "contentId": "browser-film-a",
                                 "title": "Browser film", "license": {"maxPlays": 3}})
        item_id = item["id"]
        seen = []

        def complete():
            row = self.library_row(item_id)
            if row:
                seen.append(row)
            return bool(row) and row["state"] == "complete"

        self.wait_for("the item's row to reach complete", complete,
                      describe=lambda: f"rows seen: {self.rows_digest(seen)}")
        assert seen[0]["title"] == "Browser film", f"the row's title is {seen[0]['title']!r}, not 'Browser film'"
        assert len({row["mark"] for row in seen}) == 1, "the row was rebuilt during the download, not updated in place"
        downloading = [row for row in seen if row["state"] == "downloading"]
        partway = [row for row in downloading if row["bar"] is not None and 0 < row["bar"] < 1]
        assert partway, f"the bar was never seen partway while downloading: {self.rows_digest(seen)}"
        figures = re.compile(r"\d+\.\d\d / \d+\.\d\d MB · \d+%")
        assert all(figures.fullmatch(row["bytes"]) for row in partway), \
            f"the byte figures do not read 'N.NN / N.NN MB · P%': {[row['bytes'] for row in partway]}"
        # Progress comes from `download` events: no GET /v1/library between two values.
        steps = [(a, b) for a, b in zip(downloading, downloading[1:])
                 if a["bar"] is not None and b["bar"] is not None and b["bar"] > a["bar"]]
        assert steps, f"the bar never moved while downloading: {self.rows_digest(seen)}"
        assert all(a["gets"] == b["gets"] for a, b in steps), \
            f"the page asked GET /v1/library again while the bar moved: {self.rows_digest(seen)}"

        api = self.library_item(item_id)
        assert api["state"] == "complete" and api["bytes"] == size == api["totalBytes"], \
            f"the daemon's item is {api['state']} with {api['bytes']} of {api['totalBytes']} bytes, not complete with {size}"
        final = self.wait_row(item_id, "the complete row with a full bar, its size, the licence and Play",
                              lambda r: r["bar"] == 1 and r["play"] and not r["pause"] and not r["resume"]
                              and r["license"] == "Plays 0 of 3")
        assert final["bytes"] == f"{size / 1e6:.2f} MB", f"the complete row reads {final['bytes']!r}"
        used = str(self.library_list()["usedBytes"])
        self.wait_attribute("library-usage", "data-used", used)
        assert any(r["path"].endswith("/library-a.mp4") and r["status"] in (200, 206) for r in self.origin.requests), \
            f"the origin served no library-a.mp4: {self.origin.requests}"

    def check_library_form_pause_resume(self):
        """The library's form adds an item; Pause and Resume send their requests and the row follows"""
        size = os.path.getsize(self.clip)
        self.origin.rate = max(64_000, size // 4)  # about 4 s: time to pause it partway
        form = self.form_of("library-add")
        self.fill(form, "uri", f"{self.origin.url}/library-b.mp4")
        self.fill(form, "contentId", "browser-film-b")
        self.fill(form, "title", "Form film")
        self.fill(form, "maxPlays", "2")
        self.js("arguments[0].elements.expires.value = '2030-06-01T12:30'", form)
        expires = self.js("return new Date('2030-06-01T12:30').getTime() / 1000")
        self.click_action("library-add")
        item = self.wait_api("the form's item in the library", lambda: next(
            (i for i in self.library_list()["items"] if i["contentId"] == "browser-film-b"), None), lambda i: i is not None)
        item_id = item["id"]
        self.library_ids.append(item_id)
        assert item["title"] == "Form film", f"the item's title is {item.get('title')!r}"
        assert item["license"]["maxPlays"] == 2, f"the item's licence is {item['license']}"
        sent = support.rfc3339_seconds(item["license"]["expires"])
        assert sent == expires, f"the licence expires {item['license']['expires']}, not the local 2030-06-01 12:30 ({expires})"
        assert self.js("return arguments[0].elements.uri.value", form) == "", "the form was not cleared after the add"

        # Partway (some bytes stored, so that the resume asks for the rest), pause it.
        self.wait_row(item_id, "the form's item downloading partway, with Pause",
                      lambda r: r["state"] == "downloading" and r["pause"] and (r["bar"] or 0) > 0)
        before = len(self.api_calls())
        self.click_selector(self.row_selector(item_id, "library-pause"))
        paused = self.wait_api("the item paused", lambda: self.library_item(item_id), lambda i: i["state"] == "paused")
        self.wait_row(item_id, "the row paused, offering Resume and not Pause",
                      lambda r: r["state"] == "paused" and r["resume"] and not r["pause"])
        assert f"POST /v1/library/{item_id}/pause" in self.api_calls()[before:], \
            f"the page sent {self.api_calls()[before:]}, not POST /v1/library/{item_id}/pause"
        focused = self.js("return document.activeElement && document.activeElement.dataset.action")
        assert focused == "library-resume", f"after Pause went away the focus is on {focused!r}, not Resume"
        assert paused["bytes"] < size, f"the item was paused with all {size} bytes"
        self.sized_screenshot("dashboard-library.png", 1280, 2200)

        # The same content again: refused, and shown as the page shows API errors.
        self.fill(form, "uri", f"{self.origin.url}/library-b.mp4")
        self.fill(form, "contentId", "browser-film-b")
        self.provoked.append(("/v1/library", 409, time.time() * 1000))
        self.click_action("library-add")
        self.wait_attribute("error", "data-code", "already_in_library")
        self.wait_field("error", "This content is already in the library.")
        self.click_action("dismiss-error")
        self.wait_for("the error box to close", lambda: self.js(
            "return document.querySelector('[data-field=error-box]').hidden"))
        self.js("arguments[0].reset()", form)
        assert self.library_item(item_id)["bytes"] == paused["bytes"], "the paused item went on downloading"

        before = len(self.api_calls())
        resumed_at = len(self.origin.requests)
        self.click_selector(self.row_selector(item_id, "library-resume"))
        self.wait_api("the item complete", lambda: self.library_item(item_id), lambda i: i["state"] == "complete")
        self.wait_row(item_id, "the row complete with Play", lambda r: r["state"] == "complete" and r["bar"] == 1 and r["play"])
        assert f"POST /v1/library/{item_id}/resume" in self.api_calls()[before:], \
            f"the page sent {self.api_calls()[before:]}, not POST /v1/library/{item_id}/resume"
        ranged = [r for r in self.origin.requests[resumed_at:] if r["path"].endswith("/library-b.mp4")]
        assert ranged and (ranged[0]["range"] or "").startswith("bytes=") and ranged[0]["status"] == 206, \
            f"the resume did not continue with a Range request: {ranged}"

    def check_library_play(self):
        """Play in the library view plays the copy offline, and the licence counts it"""
        item_id = self.library_ids[0]
        self.source_change("library Play")
        self.click_selector(self.row_selector(item_id, "library-play"))
        snapshot = self.wait_api("the copy playing", self.daemon.snapshot,
                                 lambda s: s["state"] == "playing" and (s.get("source") or {}).get("offline") is True)
        assert snapshot["source"]["uri"].endswith("/library-a.mp4"), f"the daemon plays {snapshot['source']}"
        self.wait_field("state", "playing")
        self.wait_for("the transport to say the offline copy plays",
                      lambda: self.js("return !document.querySelector('[data-field=offline-row]').hidden"))
        self.wait_row(item_id, "the licence to count the play", lambda r: r["license"] == "Plays 1 of 3")
        # A spent licence: the reason shows and Play is disabled.
        status, reply = self.daemon.request("PUT", f"/v1/library/{item_id}/license", {"maxPlays": 0})
        assert status == 200, f"PUT /v1/library/{item_id}/license answered {status}: {reply}"
        self.wait_row(item_id, "the row to say the licence is spent, Play disabled",
                      lambda r: r["expired"] == "true" and r["license"] == "Expired: all plays are used" and not r["play"])
        self.source_change("API stop")
        self.daemon.stop_player()
        self.wait_field("state", "idle")

    def check_library_failure(self):
        """A download the origin refuses shows its error in the library view, with Retry"""
        item = self.library_add({"uri": f"{self.origin.url}/missing.mp4", "contentId": "browser-missing"})
        failed = self.wait_api("the item failed", lambda: self.library_item(item["id"]), lambda i: i["state"] == "failed")
        error = failed["error"]
        row = self.wait_row(item["id"], "the row failed with the daemon's error and Retry",
                            lambda r: r["state"] == "failed" and r["error"] and r["resume"] and not r["pause"] and not r["play"])
        assert row["error"] == f"Failed: {error['message']} ({error['code']})", \
            f"the row says {row['error']!r}; the daemon's error is {error}"
        assert row["title"] == "browser-missing", f"an item without a title is named {row['title']!r}, not its content id"

    def check_library_delete(self):
        """Delete in the library view asks in a dialog first, then removes the item"""
        first = self.library_ids[0]
        self.click_selector(self.row_selector(first, "library-delete"))
        self.wait_for("the delete dialog", lambda: self.js(
            "return document.querySelector('[data-field=library-confirm]').open"))
        self.click_action("library-confirm-cancel")
        self.wait_for("the dialog to close", lambda: not self.js(
            "return document.querySelector('[data-field=library-confirm]').open"))
        assert self.library_item(first) is not None, "Cancel deleted the item"
        assert self.library_row(first) is not None, "Cancel removed the row"
        for item_id in self.library_ids:
            before = len(self.api_calls())
            self.click_selector(self.row_selector(item_id, "library-delete"))
            self.click_action("library-confirm-delete")
            self.wait_api(f"{item_id} gone", lambda: self.library_item(item_id), lambda i: i is None)
            self.wait_for(f"the row of {item_id} to go", lambda: self.library_row(item_id) is None)
            assert f"DELETE /v1/library/{item_id}" in self.api_calls()[before:], \
                f"the page sent {self.api_calls()[before:]}, not DELETE /v1/library/{item_id}"
            focused = self.js("return document.activeElement && document.activeElement.id")
            assert focused == "library-title", f"after the delete the focus is on {focused!r}, not the library's heading"
        self.wait_field("library-summary", "Empty")
        self.wait_attribute("library-usage", "data-used", "0")
        assert self.js("return !document.querySelector('[data-field=library-empty]').hidden"), \
            "the empty library's note is not shown"
        self.library_ids = []

    def check_reconnect(self):
        """The page shows the daemon going away and reconnects to a new one on the same port"""
        self.wait_field("connection", "connected")
        old = self.daemon
        self.reconnect_port = old.port
        down = time.time() * 1000
        self.down_window = (down, float("inf"))
        self.stops.append((old.port, down))
        self.mark(f"SIGTERM {old.name} (pid {old.pid})")
        status = old.stop()
        self.mark(f"{old.name} exited with {status}")
        assert status == 0, f"the daemon exited with {status} on SIGTERM"
        self.wait_field("connection", "disconnected")
        self.daemon = self.start_daemon("daemon-2", listen=f"127.0.0.1:{old.port}")
        self.down_window = (down, time.time() * 1000)
        self.wait_field("connection", "connected")
        self.wait_field("state", "idle")  # the new daemon's state, not the old one's
        # Asked again on the new connection: this daemon runs without --analytics-url.
        self.wait_attribute("analytics-state", "data-enabled", "false")

    def check_token(self):
        """With --token the page asks for the token, then shows the state (also from #token=)"""
        token = "browser-test-token"
        daemon = self.start_daemon("daemon-token", token=token)
        self.token_port = daemon.port
        self.token_window = (time.time() * 1000, float("inf"))
        self.navigate(daemon.url + "/")
        field = self.wait_for("a visible token input (input[name=token] or input[type=password])",
                              self.token_input)
        self.mark("type the token, Enter")
        field.send_keys(token + Keys.ENTER)
        self.token_window = (self.token_window[0], time.time() * 1000)
        self.wait_field("connection", "connected")
        self.wait_for("a known state in [data-field=state]", lambda: self.text("state") in STATES,
                      describe=lambda: f"state text {self.text('state')!r}")
        stored = self.js("return Object.keys(sessionStorage).map(k => sessionStorage.getItem(k))")
        assert any(token in (value or "") for value in stored), \
            f"the token is not in sessionStorage (values: {stored})"
        # A fresh tab state, then the token in the URL's fragment: no question asked.
        self.js("sessionStorage.clear()")
        self.navigate("about:blank")
        self.navigate(daemon.url + "/#token=" + token)
        self.wait_field("connection", "connected")
        assert self.text("state") in STATES, f"state text {self.text('state')!r} with #token="
        assert self.token_input() is None, "the page asked for the token although #token= gave it"

    def check_console(self):
        """No errors in the browser console"""
        unexpected = [e for e in self.console if e.get("level") == "SEVERE" and not self.expected(e)]
        assert not unexpected, f"{len(unexpected)} SEVERE console entries:\n" + "\n".join(
            f"         [{e.get('source', '?')}] {e.get('message')}\n           {self.context(e)}"
            for e in unexpected)

    def context(self, entry):
        """When a console entry came, after what the test did."""
        at = entry.get("timestamp", 0)
        before = [m for m in self.marks if m[0] <= at]
        if not before:
            return "(before anything the test did)"
        when, label = before[-1]
        return f"{(at - when) / 1000:.2f} s after: {label}"

    def expected(self, entry):
        """The console errors a browser logs for what the test does on purpose, matched by
        port, time and exact error, nothing broader:
        - the reconnect port while no daemon listens there (from the SIGTERM until half a
          second after the new daemon listens): connection errors;
        - the token daemon until a second after the token is typed: 401s;
        - a preview poll on its way when the test stopped the player: 503 (no_video), within
          300 ms of the stop (the page cannot know before the state event arrives);
        - a refusal a check provokes on purpose (`provoked`: the path and status on the
          current daemon, within 5 s of asking)."""
        message = entry.get("message", "")
        at = entry.get("timestamp", 0)

        def within(window):
            return window[0] - 50 <= at <= window[1]

        for port, stopped in self.stops:
            if f"http://127.0.0.1:{port}/v1/snapshot.jpg" in message and "status of 503" in message \
                    and within((stopped, stopped + 300)):
                return True
        if self.reconnect_port and within((self.down_window[0], self.down_window[1] + 500)):
            host = f"127.0.0.1:{self.reconnect_port}/"
            down = ("net::ERR_CONNECTION_REFUSED", "net::ERR_CONNECTION_RESET",
                    "net::ERR_EMPTY_RESPONSE", "net::ERR_CONNECTION_CLOSED",
                    "net::ERR_SOCKET_NOT_CONNECTED", "net::ERR_CONNECTION_ABORTED")
            if host in message and any(d in message for d in down):
                return True
            if f"WebSocket connection to 'ws://{host}v1/events" in message and "failed" in message:
                return True
        for path, status, asked in self.provoked:
            if f"127.0.0.1:{self.daemon.port}{path} " in message and f"status of {status}" in message \
                    and within((asked, asked + 5000)):
                return True
        if self.token_port and within((self.token_window[0], self.token_window[1] + 1000)):
            host = f"127.0.0.1:{self.token_port}/"
            if host in message and ("status of 401" in message or "response code: 401" in message):
                return True
        return False

    # MARK: API helpers

    def wait_api(self, what, read, ok, timeout=WAIT):
        """Polls `read()` (the daemon's API) until `ok(value)`; returns the value."""
        deadline = time.monotonic() + timeout
        last = None
        while True:
            last = read()
            if ok(last):
                return last
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out after {timeout} s waiting for the daemon to show {what}; "
                                     f"it shows {last!r}")
            time.sleep(0.1)

    def source_change(self, label):
        """Notes a change of source the test makes through the API: a preview frame on its
        way then may be answered 503 (see `expected`)."""
        self.stops.append((self.daemon.port, time.time() * 1000))
        self.mark(f"{label} ({self.daemon.name})")

    def api_open(self, uri, subtitle=None):
        self.source_change(f"API open {os.path.basename(uri)}")
        self.daemon.open(uri, subtitle=subtitle)
        self.mark("the open answered: playing")
        self.wait_field("state", "playing")

    def set_queue(self, paths, loop):
        self.source_change(f"API PUT /v1/queue ({len(paths)} items, loop {loop})")
        status, reply = self.daemon.request("PUT", "/v1/queue", {"items": [{"uri": p} for p in paths], "loop": loop})
        assert status == 200, f"PUT /v1/queue answered {status}: {reply}"

    def wait_preview_frame(self):
        """Until the preview shows a frame (fetched since the last source change: the page
        hides the image while a source opens)."""
        script = ("const i = document.querySelector('img[data-field=preview]');"
                  "return Boolean(i && !i.hidden && i.naturalWidth > 0)")
        self.wait_for("a frame in the preview", lambda: self.js(script))

    def wait_queue_api(self, index, path):
        self.wait_api(f"queue item {index} ({os.path.basename(path)}) playing",
                      lambda: (self.daemon.request("GET", "/v1/queue")[1], self.daemon.snapshot()),
                      lambda pair: pair[0]["index"] == index
                      and (pair[1].get("source") or {}).get("uri", "").endswith(path))

    def wait_queue_page(self, count, index):
        script = ("return Array.from(document.querySelectorAll('[data-field=queue] li'))"
                  ".map(li => li.classList.contains('current') + ':' + li.getAttribute('aria-current'))")
        want = [("true:true" if i == index else "false:null") for i in range(count)]
        self.wait_for(f"{count} queue items with item {index} current", lambda: self.js(script) == want,
                      describe=lambda: f"items {self.js(script)}, summary {self.text('queue-summary')!r}")
        self.wait_field("queue-summary", f"Item {index + 1} of {count}")

    def api_pause_play(self):
        """A pause records a `playing` analytics event; the play after it keeps the clip going."""
        for verb, state in (("pause", "paused"), ("play", "playing")):
            status, reply = self.daemon.request("POST", f"/v1/player/{verb}?wait={state}")
            assert status == 200, f"POST /v1/player/{verb} answered {status}: {reply}"

    def wait_counters_match(self, status):
        """Until the page's four counters read what GET /v1/analytics says."""
        names = ("pending", "sent", "failed", "dropped")

        def page():
            return {n: self.attribute(f"analytics-{n}", "data-value") for n in names}

        def matches():
            api = status()
            return page() == {n: str(api[n]) for n in names}

        self.wait_for("the page's analytics counters to match GET /v1/analytics", matches,
                      describe=lambda: f"page {page()}, API {status()}")

    def install_api_log(self):
        """Wraps the page's fetch to keep "METHOD /path" of every request it makes."""
        self.js("""
            if (window.__apiCalls) return;
            window.__apiCalls = [];
            const original = window.fetch;
            window.fetch = function (input, init) {
              const url = new URL(String(input && input.url ? input.url : input), location.href);
              window.__apiCalls.push(((init && init.method) || 'GET') + ' ' + url.pathname);
              return original.apply(this, arguments);
            };""")

    def api_calls(self):
        return [c for c in (self.js("return window.__apiCalls || []") or []) if "/v1/snapshot.jpg" not in c]

    def library_add(self, body):
        status, item = self.daemon.request("POST", "/v1/library", body)
        assert status == 202, f"POST /v1/library answered {status}: {item}"
        self.library_ids.append(item["id"])
        return item

    def library_list(self):
        status, body = self.daemon.request("GET", "/v1/library")
        assert status == 200, f"GET /v1/library answered {status}: {body}"
        return body

    def library_item(self, item_id):
        """The daemon's item, or None once it is gone (404)."""
        status, body = self.daemon.request("GET", f"/v1/library/{item_id}")
        if status == 404:
            return None
        assert status == 200, f"GET /v1/library/{item_id} answered {status}: {body}"
        return body

    @staticmethod
    def row_selector(item_id, action):
        return f'[data-field=library] li[data-id="{item_id}"] [data-action={action}]'

    def library_row(self, item_id):
        """What the item's row shows: state, title, bar value (None: indeterminate), byte
        figures, error, licence, which buttons are offered; `mark` tells the element (the
        same while the row is updated in place), `gets` the GET /v1/library made so far."""
        return self.js("""
            const li = document.querySelector(`[data-field=library] li[data-id="${arguments[0]}"]`);
            if (!li) return null;
            li.__testMark = li.__testMark || String(Math.random());
            const part = (f) => li.querySelector(`[data-field=${f}]`);
            const offered = (a) => { const b = li.querySelector(`[data-action=${a}]`); return Boolean(b && !b.hidden && !b.disabled); };
            const bar = part('library-bar');
            const error = part('library-error');
            return {
              state: li.dataset.state, title: part('library-title').textContent,
              bar: bar.hasAttribute('value') ? bar.value : null, bytes: part('library-bytes').textContent,
              error: error.hidden ? null : error.textContent,
              license: part('library-license').textContent, expired: part('library-license').dataset.expired,
              pause: offered('library-pause'), resume: offered('library-resume'), play: offered('library-play'),
              remove: offered('library-delete'), mark: li.__testMark,
              gets: (window.__apiCalls || []).filter((c) => c === 'GET /v1/library').length,
            };""", item_id)

    def wait_row(self, item_id, what, ok):
        return self.wait_for(what, lambda: (lambda r: r if r and ok(r) else False)(self.library_row(item_id)),
                             describe=lambda: f"the row shows {self.library_row(item_id)}")

    @staticmethod
    def rows_digest(rows):
        return [(r["state"], r["bar"], r["bytes"], r["gets"]) for r in rows]

    # MARK: page helpers

    def start_browser(self):
        global By, Keys
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
        from selenium.webdriver.common.by import By
        from selenium.webdriver.common.keys import Keys

        options = webdriver.ChromeOptions()
        options.binary_location = self.args.chromium
        for flag in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                     "--window-size=1280,800", f"--user-data-dir={os.path.join(self.work, 'profile')}",
                     "--no-first-run", "--no-default-browser-check", "--disable-extensions",
                     "--disable-background-networking", "--disable-component-update", "--disable-sync",
                     "--disable-default-apps", "--password-store=basic"):
            options.add_argument(flag)
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        self.service = Service(executable_path=self.args.chromedriver,
                               log_output=os.path.join(self.work, "chromedriver.log"))
        self.driver = webdriver.Chrome(service=self.service, options=options)
        self.driver.set_page_load_timeout(WAIT)
        self.driver.set_script_timeout(10)

    def start_daemon(self, name, listen="127.0.0.1:0", token=None, extra_args=()):
        # The same port can take a moment to be free again after the old daemon exits.
        deadline = time.monotonic() + 10
        while True:
            try:
                daemon = support.Daemon(self.args.marquee, self.work, name, listen=listen, token=token,
                                        extra_args=extra_args)
                break
            except RuntimeError:
                if listen.endswith(":0") or time.monotonic() > deadline:
                    raise
                time.sleep(0.5)
        self.daemons.append(daemon)
        self.mark(f"{name} listening on {daemon.url} (pid {daemon.pid})")
        return daemon

    def mark(self, label):
        """Notes what the test did when, for timeline.log and to place console errors."""
        self.marks.append((time.time() * 1000, label))

    def navigate(self, url):
        self.mark(f"load {url}")
        self.driver.get(url)

    def open_clip(self, subtitle=None):
        self.mark(f"API open clip.mp4{' with math.srt' if subtitle else ''} ({self.daemon.name})")
        self.daemon.open(self.clip, subtitle=subtitle)
        self.mark("the open answered: playing")

    def js(self, script, *args):
        return self.driver.execute_script(script, *args)

    def text(self, field):
        return self.js("const e = document.querySelector(`[data-field=\"${arguments[0]}\"]`);"
                       "return e ? e.textContent.trim() : null", field)

    def attribute(self, field, name):
        return self.js("const e = document.querySelector(`[data-field=\"${arguments[0]}\"]`);"
                       "return e ? e.getAttribute(arguments[1]) : '(no such field)'", field, name)

    def seconds(self, field):
        """The field's data-seconds as a number, or None. (0.0 is a number: `wait_for` on it
        needs a truthy value, so the position check waits for a started clock.)"""
        try:
            return float(self.attribute(field, "data-seconds"))
        except (TypeError, ValueError):
            return None

    def wait_for(self, what, condition, timeout=WAIT, describe=None):
        """Polls `condition` (WebDriverWait) until truthy; returns its value. On timeout the
        failure says what was awaited and what was last seen."""
        from selenium.common.exceptions import StaleElementReferenceException, TimeoutException
        from selenium.webdriver.support.ui import WebDriverWait
        try:
            return WebDriverWait(self.driver, timeout, poll_frequency=0.1,
                                 ignored_exceptions=(StaleElementReferenceException,)
                                 ).until(lambda _: condition())
        except TimeoutException:
            seen = ""
            try:
                seen = "; " + describe() if describe else ""
            except Exception as error:
                seen = f"; (could not read the page: {error})"
            raise AssertionError(f"timed out after {timeout} s waiting for {what}{seen}") from None

    def wait_field(self, field, value, timeout=WAIT):
        self.wait_for(f"[data-field={field}] to read {value!r}", lambda: self.text(field) == value,
                      timeout, describe=lambda: f"it reads {self.text(field)!r}")

    def wait_attribute(self, field, name, value, timeout=WAIT):
        self.wait_for(f"[data-field={field}] {name}={value!r}", lambda: self.attribute(field, name) == value,
                      timeout, describe=lambda: f"it is {self.attribute(field, name)!r} ({self.text(field)!r})")

    def option_values(self, action):
        return self.js("const s = document.querySelector(`[data-action=\"${arguments[0]}\"]`);"
                       "return s ? Array.from(s.options).map(o => o.value) : null", action)

    def value_of(self, action):
        return self.js("const s = document.querySelector(`[data-action=\"${arguments[0]}\"]`);"
                       "return s ? s.value : null", action)

    def action_text(self, action):
        return self.js("const e = document.querySelector(`[data-action=\"${arguments[0]}\"]`);"
                       "return e ? e.textContent.trim() : null", action)

    def choose(self, action, value):
        """Picks `value` in the <select data-action=action> as a viewer would."""
        from selenium.webdriver.support.select import Select
        element = self.find_action(action)
        self.mark(f"choose {value!r} in [data-action={action}]")
        Select(element).select_by_value(value)

    def form_of(self, action):
        form = self.js("return arguments[0].form", self.find_action(action))
        assert form is not None, f"[data-action={action}] is not inside a form"
        return form

    def fill(self, form, name, value):
        field = form.find_element(By.CSS_SELECTOR, f"[name={name}]")
        field.clear()
        field.send_keys(value)

    def choose_in(self, form, name, value):
        from selenium.webdriver.support.select import Select
        Select(form.find_element(By.CSS_SELECTOR, f"select[name={name}]")).select_by_value(value)

    def click_selector(self, selector):
        element = self.wait_for(f"a displayed, enabled {selector}", lambda: next(
            (e for e in self.driver.find_elements(By.CSS_SELECTOR, selector) if e.is_displayed() and e.is_enabled()),
            False))
        self.mark(f"click {selector}")
        element.click()

    @staticmethod
    def assert_rect(rect, x, y, size):
        got = (rect["x"], rect["y"], rect["width"], rect["height"])
        assert all(abs(g - w) < 1e-6 for g, w in zip(got, (x, y, size, size))), \
            f"the inset's rect is {rect}, not x {x}, y {y}, {size} square"

    def find_action(self, action):
        return self.wait_for(f"a displayed, enabled [data-action={action}]",
                             lambda: next((e for e in self.driver.find_elements(
                                 By.CSS_SELECTOR, f"[data-action=\"{action}\"]")
                                 if e.is_displayed() and e.is_enabled()), False))

    def click_action(self, action):
        element = self.find_action(action)
        self.mark(f"click [data-action={action}]")
        element.click()

    def token_input(self):
        for selector in ("input[name=token]", "input[type=password]"):
            for element in self.driver.find_elements(By.CSS_SELECTOR, selector):
                if element.is_displayed():
                    return element
        return None

    def ensure_playing(self):
        if self.daemon.snapshot().get("state") != "playing":
            self.open_clip()
        self.wait_field("state", "playing")

    def screenshot(self, name):
        try:
            if self.driver:
                self.driver.save_screenshot(os.path.join(self.args.artifacts, name))
        except Exception as error:
            print(f"dashboard: could not save {name}: {error}")

    def sized_screenshot(self, name, width, height, mobile=False):
        """A screenshot of the top of the page at a given viewport, then back to the window's."""
        try:
            self.driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
                "width": width, "height": height, "deviceScaleFactor": 2 if mobile else 1,
                "mobile": mobile})
            self.js("window.scrollTo(0, 0)")
            time.sleep(0.5)  # a layout pass and a fresh preview frame
            self.screenshot(name)
            wide = self.js("return document.documentElement.scrollWidth")
            if wide and wide > width:
                print(f"dashboard: note: at {width} px wide the page is {wide} px wide (scrolls sideways)")
        finally:
            self.driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})

    def drain_console(self):
        try:
            if self.driver:
                self.console += self.driver.get_log("browser")
        except Exception as error:
            print(f"dashboard: could not read the browser console: {error}")

    # MARK: clean-up

    def save_logs(self):
        self.drain_console()
        os.makedirs(self.args.artifacts, exist_ok=True)
        with open(os.path.join(self.args.artifacts, "browser-console.log"), "w") as f:
            for entry in self.console:
                f.write(json.dumps(entry) + "\n")
        # What the test did and what the console said, in one timeline.
        lines = [(at, f"test     {label}") for at, label in self.marks]
        lines += [(e.get("timestamp", 0), f"console  {e.get('level')} [{e.get('source')}] {e.get('message')}")
                  for e in self.console]
        if lines:
            start = min(at for at, _ in lines)
            with open(os.path.join(self.args.artifacts, "timeline.log"), "w") as f:
                for at, text in sorted(lines, key=lambda line: line[0]):
                    f.write(f"{(at - start) / 1000:8.3f}  {text}\n")
        if any(r[2] for r in self.results):
            for daemon in self.daemons:
                shutil.copy(daemon.log_path, self.args.artifacts)
            driver_log = os.path.join(self.work, "chromedriver.log")
            if os.path.exists(driver_log):
                shutil.copy(driver_log, self.args.artifacts)

    def tear_down(self):
        if self.driver:
            try:
                self.driver.quit()
            except Exception as error:
                print(f"dashboard: driver.quit failed: {error}")
        # quit() stops chromedriver; if it could not, stop it by its pid.
        process = getattr(self.service, "process", None)
        if process and process.poll() is None:
            process.kill()
            process.wait()
        for daemon in self.daemons:
            daemon.stop()
        for server in self.servers:
            server.stop()
        shutil.rmtree(self.work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
