"""A local HTTP server for the download tests: the real download path (pooch's HTTP
downloader, our hashing sink and atomic placement) runs against 127.0.0.1, no network."""

from __future__ import annotations

import functools
import http.server
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest


class _Handler(http.server.SimpleHTTPRequestHandler):
    """Serves the files of a directory; ``/short/NAME`` announces NAME's size plus 100
    bytes and sends only NAME (a connection cut short)."""

    def do_GET(self) -> None:
        if self.path.startswith("/short/"):
            data = (Path(self.directory) / self.path[len("/short/"):]).read_bytes()
            self.send_response(200)
            self.send_header("Content-Length", str(len(data) + 100))
            self.end_headers()
            self.wfile.write(data)
            self.close_connection = True
            return
        super().do_GET()

    def log_message(self, format: str, *args: object) -> None:
        """Quiet: the tests read what the client says."""


class _Server(http.server.ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: object, client_address: object) -> None:
        """A client that hangs up early is not the server's failure."""


@dataclass
class LocalServer:
    """Files put in ``root`` are served at ``url(name)``."""

    root: Path
    base: str

    def url(self, name: str) -> str:
        return f"{self.base}/{name}"

    def put(self, name: str, data: bytes) -> str:
        """Serve ``data`` as ``name``; returns its URL."""
        path = self.root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        return self.url(name)


@pytest.fixture
def http_server(tmp_path: Path) -> Iterator[LocalServer]:
    """An HTTP server on 127.0.0.1 serving ``tmp_path / "srv"``, stopped after the test."""
    root = tmp_path / "srv"
    root.mkdir()
    handler = functools.partial(_Handler, directory=str(root))
    server = _Server(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, args=(0.02,), daemon=True)
    thread.start()
    try:
        yield LocalServer(root, f"http://127.0.0.1:{server.server_address[1]}")
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
