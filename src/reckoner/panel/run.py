"""Serving the panel: its socket, its address and sign-in link, and a stop that never waits
on a request past the grace (``reckoner panel`` and ``BackgroundPanel``).

The socket, the loopback test and uvicorn's settings are the MCP server's too
(``reckoner.host.network``); the panel binds any address it is given and warns when that is
not loopback, because its token guards it.
"""

from __future__ import annotations

import os
import signal
import socket
import sys
import threading
import webbrowser
from pathlib import Path
from typing import Any

from reckoner.access import new_token
from reckoner.host.network import (
    SHUTDOWN_GRACE_SECONDS,
    WILDCARD_HOSTS,
    BindError,
    bind,
    bound_port,
    is_loopback,
    url_host,
    uvicorn_config,
)
from reckoner.panel.app import PanelOptions, create_app
from reckoner.panel.login import login_url
from reckoner.storage.home import HomeError, HomeLayout
from reckoner.storage.run_log import RunLog, open_run_log


def listen(host: str, port: int) -> socket.socket:
    """A listening socket on host:port (0 picks a free port), or one clear sentence."""
    try:
        return bind(host, port)
    except BindError as taken:
        raise SystemExit(
            f"reckoner panel: {taken}; choose another port with --port, or 0 for any free one."
        ) from None


def panel_url(host: str, port: int) -> str:
    """The panel's address for a browser; bound to every interface, it is loopback's."""
    shown = "127.0.0.1" if host in WILDCARD_HOSTS else host
    return f"http://{url_host(shown)}:{port}/"


def panel_config(app: Any) -> Any:
    """uvicorn's settings for a panel: its own warnings, no lifespan, no uvicorn grace (the
    stop's timer in ``_stoppable_server`` is the grace)."""
    return uvicorn_config(app, lifespan="off", logging_configured=False, grace=False)


def run_panel(
    home: Path, host: str, port: int, open_browser: bool, token: str | None = None
) -> None:
    """Serve the panel until interrupted, printing its sign-in link (port 0 picks a free
    one). ``token`` is the secret the link carries; None: a new one for this launch."""
    if not is_loopback(host):
        print(
            f"reckoner panel: warning: binding {host} makes the panel reachable from other "
            "machines over plain HTTP, where its token travels unencrypted; use --host "
            "127.0.0.1 unless you mean it.",
            file=sys.stderr,
        )
    token = token or new_token()
    try:
        HomeLayout(home).prepare()
    except HomeError as unusable:
        raise SystemExit(f"reckoner panel: {unusable}") from None
    sock = listen(host, port)
    port = bound_port(sock)
    log = open_run_log(HomeLayout(home))
    options = PanelOptions(host, port, token, log=log, pitfalls_project=Path.cwd())
    app = create_app(home, options)
    url = panel_url(host, port)
    link = login_url(url, token)
    server = _stoppable_server(panel_config(app), log)
    print(f"reckoner panel: serving {home} at {link}  (Ctrl+C to stop)", flush=True)
    if open_browser:
        threading.Timer(0.3, webbrowser.open, args=(link,)).start()
    # The log names the address only: the token goes where the user sees it, nowhere else.
    log.info("panel: started", url=url, home=str(home))
    # uvicorn re-raises the signal that stopped it once it has shut down; SIGTERM's default
    # action would end the process before the log is closed, so it becomes a clean exit.
    in_main = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGTERM, _exit_cleanly) if in_main else None
    try:
        server.run(sockets=[sock])
    except KeyboardInterrupt:
        pass  # Ctrl+C is how the panel is meant to stop
    finally:
        sock.close()
        log.info("panel: stopped")
        log.close()
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


def _exit_cleanly(signum: int, frame: object) -> None:
    raise SystemExit(0)


def _leave_if_still_running(log: RunLog) -> None:
    """Called SHUTDOWN_GRACE_SECONDS after a stop signal, if the panel has not stopped yet."""
    log.warn("panel: stopped while a request was still under way; it was abandoned")
    log.close()
    sys.stdout.flush()
    sys.stderr.flush()
    # A thread blocked in a read cannot be interrupted, and interpreter exit would wait
    # for it; nothing of the panel's is left to flush.
    os._exit(0)


def _stoppable_server(config: Any, log: RunLog) -> Any:
    """A uvicorn server that a stop signal ends within SHUTDOWN_GRACE_SECONDS, whatever its
    requests are waiting on."""
    import uvicorn

    class PanelServer(uvicorn.Server):
        def handle_exit(self, sig: int, frame: Any) -> None:
            if not self.should_exit:
                timer = threading.Timer(SHUTDOWN_GRACE_SECONDS, _leave_if_still_running, (log,))
                timer.daemon = True
                timer.start()
            super().handle_exit(sig, frame)

    return PanelServer(config)
