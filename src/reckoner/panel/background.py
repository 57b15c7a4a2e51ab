"""The panel served from a background thread: for browser tests, benchmarks, screenshots
and any caller that wants the panel next to its own work in one process."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from types import TracebackType

from reckoner.access import new_token
from reckoner.host.network import bound_port
from reckoner.panel.app import DEFAULT_POLL_MS, PanelOptions, create_app
from reckoner.panel.login import login_url
from reckoner.panel.run import listen, panel_config, panel_url


class BackgroundPanel:
    """A running panel on a loopback port; a context manager that stops it on exit.

    ``url`` is its address, ``login_url`` the link that signs a browser in (append a
    ``#/records/<id>`` fragment to land on a record), ``headers`` what another client sends.
    """

    def __init__(
        self,
        home: Path,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        poll_ms: int = DEFAULT_POLL_MS,
        token: str | None = None,
    ) -> None:
        import uvicorn

        self._socket = listen(host, port)
        self.port = bound_port(self._socket)
        self.url = panel_url(host, self.port)
        self.token = token or new_token()
        self.login_url = login_url(self.url, self.token)
        self.headers = {"authorization": f"Bearer {self.token}"}
        self.app = create_app(home, PanelOptions(host, self.port, self.token, poll_ms=poll_ms))
        self._server = uvicorn.Server(panel_config(self.app))
        self._thread = threading.Thread(
            target=self._server.run, kwargs={"sockets": [self._socket]}, daemon=True
        )

    def start(self, timeout: float = 10.0) -> BackgroundPanel:
        self._thread.start()
        deadline = time.monotonic() + timeout
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError(f"the panel did not start on {self.url} within {timeout} s")
            time.sleep(0.01)
        return self

    def stop(self) -> None:
        self._server.should_exit = True
        self._thread.join(timeout=10)
        self._socket.close()

    def __enter__(self) -> BackgroundPanel:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()
