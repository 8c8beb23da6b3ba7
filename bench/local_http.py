"""The local HTTP origin of the benchmarks: a ThreadingHTTPServer on 127.0.0.1 (a free port),
served from a daemon thread. Python 3.11 standard library only.

The benchmark defines the request handler (what to serve, how fast, what to record) and
passes its class; this module only runs it and stops it.
"""

from __future__ import annotations

import http.server
import sys
import threading


class _QuietServer(http.server.ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address):
        # a player that stops or switches drops its download: not worth a traceback
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


class LocalHTTPServer:
    """Serves `handler` (a BaseHTTPRequestHandler class) on 127.0.0.1:0 until close()."""

    def __init__(self, handler: type[http.server.BaseHTTPRequestHandler]) -> None:
        self.httpd = _QuietServer(("127.0.0.1", 0), handler)
        self.port = self.httpd.server_address[1]
        self._thread = threading.Thread(target=self.httpd.serve_forever,
                                        kwargs={"poll_interval": 0.1}, daemon=True)
        self._thread.start()

    def url(self, rel: str) -> str:
        return f"http://127.0.0.1:{self.port}/{rel}"

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        self._thread.join(timeout=2)
