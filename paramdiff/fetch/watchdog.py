"""What stops a download that will not end: a clock for the whole command, and a switch.

A server dripping one byte at a time never trips a per-read timeout — while the headers
arrive or the body — so only a clock can stop it: ``socket.shutdown`` from a timer's thread
wakes the read blocked in the download's thread (as urllib3's own ``HTTPResponse.shutdown``
does). Sockets are shown to the download's ``Watchdog`` by the connection classes of
``watched_pools`` just before each response is read.

Every download of one command shares one ``CommandDeadline``: its clock starts with the
command's first download, and ``stop()`` (the fetch engine calls it when one download failed)
shuts every socket still being read, so the others end now instead of at the deadline.

Made on first use (the adapter and pool classes) so that importing this module imports
neither requests nor urllib3.
"""

from __future__ import annotations

import contextlib
import functools
import socket
import threading
import time
from typing import TYPE_CHECKING, Any

from requests.adapters import HTTPAdapter
from urllib3 import poolmanager
from urllib3.connection import HTTPConnection, HTTPSConnection
from urllib3.connectionpool import HTTPConnectionPool, HTTPSConnectionPool

if TYPE_CHECKING:
    from requests.adapters import HTTPAdapter


class CommandDeadline:
    """One deadline and one stop switch for every download of a command."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.at = time.monotonic() + seconds
        self.stopped = threading.Event()
        self._watchdogs: set[Watchdog] = set()
        self._guard = threading.Lock()

    def left(self) -> float:
        return self.at - time.monotonic()

    def stop(self) -> None:
        """Shut the sockets of every download in flight; no new one may start."""
        with self._guard:
            self.stopped.set()
            running = list(self._watchdogs)
        for watchdog in running:
            watchdog.fire()

    def _enter(self, watchdog: Watchdog) -> None:
        with self._guard:
            self._watchdogs.add(watchdog)
            stopped = self.stopped.is_set()
        if stopped:
            watchdog.fire()

    def _leave(self, watchdog: Watchdog) -> None:
        with self._guard:
            self._watchdogs.discard(watchdog)


_current = threading.local()  # .watchdog: the watchdog of the download this thread runs


class Watchdog:
    """Shuts down every socket one download reads from once the command's deadline passes,
    or when the command stops it (``fired``: either happened)."""

    def __init__(self, deadline: CommandDeadline) -> None:
        self.deadline = deadline
        self.fired = threading.Event()
        self._sockets: list[socket.socket] = []
        self._guard = threading.Lock()
        self._timer = threading.Timer(max(0.0, deadline.left()), self.fire)
        self._timer.daemon = True

    def __enter__(self) -> Watchdog:
        _current.watchdog = self
        self._timer.start()
        self.deadline._enter(self)
        return self

    def __exit__(self, *exc: object) -> None:
        self._timer.cancel()
        self.deadline._leave(self)
        _current.watchdog = None

    def watch(self, sock: socket.socket | None) -> None:
        with self._guard:
            if sock is not None:
                self._sockets.append(sock)
                if self.fired.is_set():
                    _shut(sock)

    def fire(self) -> None:
        with self._guard:
            self.fired.set()
            for sock in self._sockets:
                _shut(sock)


def _shut(sock: socket.socket) -> None:
    with contextlib.suppress(OSError):  # already closed: nothing left to stop
        sock.shutdown(socket.SHUT_RDWR)


def _watch(sock: socket.socket | None) -> None:
    watchdog = getattr(_current, "watchdog", None)
    if watchdog is not None:
        watchdog.watch(sock)


@functools.cache
def watched_adapter() -> type[HTTPAdapter]:
    """requests' ``HTTPAdapter`` whose connections, direct or through an http(s) proxy
    (``HTTPS_PROXY``), show their sockets to the download's watchdog."""

    def watched(manager: Any) -> Any:
        if manager.pool_classes_by_scheme == poolmanager.pool_classes_by_scheme:  # not SOCKS
            manager.pool_classes_by_scheme = watched_pools()
        return manager

    class WatchedAdapter(HTTPAdapter):
        def init_poolmanager(self, *args: Any, **kwargs: Any) -> None:
            super().init_poolmanager(*args, **kwargs)
            watched(self.poolmanager)

        def proxy_manager_for(self, proxy: Any, **kwargs: Any) -> Any:
            return watched(super().proxy_manager_for(proxy, **kwargs))

    return WatchedAdapter


@functools.cache
def watched_pools() -> dict[str, type[Any]]:
    """urllib3's connection pools, with connections that show their socket to the running
    download's watchdog before reading a response (new or kept-alive alike)."""

    class WatchedHTTPConnection(HTTPConnection):
        def getresponse(self) -> Any:  # type: ignore[override]
            _watch(self.sock)
            return super().getresponse()

    class WatchedHTTPSConnection(HTTPSConnection):
        def getresponse(self) -> Any:  # type: ignore[override]
            _watch(self.sock)
            return super().getresponse()

    class WatchedHTTPPool(HTTPConnectionPool):
        ConnectionCls = WatchedHTTPConnection

    class WatchedHTTPSPool(HTTPSConnectionPool):
        ConnectionCls = WatchedHTTPSConnection

    return {"http": WatchedHTTPPool, "https": WatchedHTTPSPool}
