"""A warm playbin3, driven line by line: the floor for Marquee's open -> playing, run by the
system's python3 (Debian's python3-gi) as a peer of bench/run.py.

stdin:  "open URI" -> sets a new playbin3 (fake sinks synced to the clock, default flags: what
        `gst-launch-1.0 playbin3 ... video-sink=fakevideosink audio-sink=fakeaudiosink` builds)
        to PLAYING and answers "playing" once it is there, or "error MESSAGE";
        "stop" -> sets it to NULL and answers "stopped"; end of input ends the process.
The timing is done by run.py around a line sent and a line read, as for Marquee's HTTP
request and mpv's IPC, so every player pays for its own command channel.
"""

import sys

import gi

gi.require_version("Gst", "1.0")
from gi.repository import Gst  # noqa: E402

Gst.init(None)


def answer(text: str) -> None:
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


def open_playing(uri: str):
    playbin = Gst.ElementFactory.make("playbin3")
    playbin.set_property("video-sink", Gst.ElementFactory.make("fakevideosink"))
    playbin.set_property("audio-sink", Gst.ElementFactory.make("fakeaudiosink"))
    playbin.set_property("uri", uri)
    bus = playbin.get_bus()
    playbin.set_state(Gst.State.PLAYING)
    wanted = Gst.MessageType.STATE_CHANGED | Gst.MessageType.ERROR
    while True:
        message = bus.timed_pop_filtered(10 * Gst.SECOND, wanted)
        if message is None:
            answer("error no PLAYING within 10 s")
            return playbin
        if message.type == Gst.MessageType.ERROR:
            answer("error " + message.parse_error()[0].message)
            return playbin
        if message.src == playbin and message.parse_state_changed()[1] == Gst.State.PLAYING:
            answer("playing")
            return playbin


def main() -> None:
    playbin = None
    for line in sys.stdin:
        command, _, argument = line.strip().partition(" ")
        if command == "open":
            if playbin is not None:
                playbin.set_state(Gst.State.NULL)
            playbin = open_playing(argument)
        elif command == "stop":
            if playbin is not None:
                playbin.set_state(Gst.State.NULL)
                playbin = None
            answer("stopped")
    if playbin is not None:
        playbin.set_state(Gst.State.NULL)


main()
