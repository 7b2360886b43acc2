"""GET over HTTP(S) as requests and urllib3 do it, with bounds a server cannot stretch.

- Retries are urllib3's ``Retry`` on requests' ``HTTPAdapter``: connection errors, read
  timeouts, 429 and 5xx are asked again with exponential backoff, and a ``Retry-After``
  header is honoured. urllib3's retries end when the headers arrive, so a body that breaks
  after them (the connection dropped, a gzip stream cut short) is asked for again by the
  one small loop in ``HttpClient.get``.
- Bounds: the body is counted *after* decompression and refused past a size limit (the
  lock's or the manifest's ``size`` when known, else ``HttpSettings.max_body``); one
  deadline covers the whole download, retries and waits included; redirects are followed
  only within the same host (``HttpSettings.redirect_hosts`` names any others to allow).

Integrity is not judged here: fetch verifies the sha256 and git blob id of what we return.
requests and urllib3 are imported on first use: most commands never touch the network.
"""

from __future__ import annotations

import contextlib
import functools
import math
import socket
import threading
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import urljoin, urlparse

from ..errors import FetchError

if TYPE_CHECKING:
    from requests import Response, Session
    from requests.adapters import HTTPAdapter

MIB = 1024 * 1024
CHUNK = 64 * 1024  # decoded bytes per read; urllib3 (>= 2.6) decompresses at most this much
RETRY_STATUSES = frozenset([429, *range(500, 600)])
AGAIN = "check the network (or the mirror) and run the command again"


class HttpError(FetchError):
    """A download failed or was refused; fetch adds which role, repo, ref and path it was for."""


@dataclass
class HttpSettings:
    """Bounds on one download: timeouts, retries, deadline, size, redirects."""

    connect_timeout: float = 5.0  # seconds per connection attempt
    read_timeout: float = 20.0  # seconds any one socket read may wait
    retries: int = 3  # after the first attempt: urllib3's, and again for a broken body
    backoff: float = 0.5  # seconds; doubled after each failed attempt
    deadline: float = 120.0  # seconds for one whole download, retries and waits included
    max_body: int = 64 * MIB  # decoded bytes, for a file whose size nothing records
    max_redirects: int = 5
    redirect_hosts: tuple[str, ...] = ()  # hosts besides the request's own a redirect may reach


@dataclass(frozen=True)
class SizeLimit:
    """The most decoded bytes a body may have, and who says so (for the error)."""

    size: int
    source: str


class _BodyBroke(Exception):
    """The body stopped before its end; worth asking again."""


class HttpClient:
    """GET with timeouts, urllib3 retries, a size limit, a deadline and same-host redirects.

    One requests session (and connection pool) per thread: fetch downloads concurrently.
    """

    def __init__(self, settings: HttpSettings | None = None) -> None:
        self.settings = settings or HttpSettings()
        self._local = threading.local()

    def get(self, url: str, limit: SizeLimit | None = None) -> bytes:
        """The decoded body of ``url`` (status 200), or an ``HttpError`` saying why not."""
        s = self.settings
        deadline = time.monotonic() + s.deadline
        limit = limit or SizeLimit(s.max_body, "HttpSettings.max_body, for a file of unknown size")
        broke = "no attempt made"
        with _Watchdog(s.deadline) as watchdog:
            for attempt in range(s.retries + 1):
                if attempt:
                    self._pause(s.backoff * 2 ** (attempt - 1), url, deadline)
                resp = self._open(url, deadline)
                try:
                    return self._body(resp, url, limit, watchdog)
                except _BodyBroke as exc:
                    broke = str(exc)
                finally:
                    resp.close()
        raise HttpError(
            f"GET {url} failed after {s.retries + 1} attempts: the body was truncated ({broke})",
            AGAIN,
        )

    # ------------------------------------------------------------------ requests

    def _session(self) -> tuple[Session, HTTPAdapter]:
        local = self._local
        if getattr(local, "session", None) is None:
            import requests

            local.adapter = _watched_adapter()()
            local.session = requests.Session()
            local.session.headers["User-Agent"] = "paramdiff"
            local.session.mount("https://", local.adapter)
            local.session.mount("http://", local.adapter)
        return local.session, local.adapter

    def _retry(self, deadline: float) -> Any:
        s = self.settings
        retry = _deadline_retry()(
            total=s.retries,
            status_forcelist=RETRY_STATUSES,
            allowed_methods=frozenset(["GET"]),
            backoff_factor=s.backoff,
            respect_retry_after_header=True,
            raise_on_status=False,  # the last 429/5xx comes back; _status words the error
        )
        retry.deadline = deadline
        return retry

    def _request(self, url: str, deadline: float) -> Response:
        """One GET through urllib3's retries, headers only (the body streams later)."""
        import requests

        s = self.settings
        session, adapter = self._session()
        adapter.max_retries = self._retry(deadline)  # this thread's adapter: no race
        left = self._left(url, deadline)
        timeout = (min(s.connect_timeout, left), min(s.read_timeout, left))
        try:
            return session.get(url, stream=True, allow_redirects=False, timeout=timeout)
        except requests.RequestException as exc:
            text = str(exc)
            if isinstance(exc, requests.Timeout) or "timed out" in text:
                problem = f"timed out after {s.read_timeout:g}s"
            elif isinstance(exc, requests.ConnectionError):
                problem = f"connection failed ({_reason(exc)})"
            else:
                problem = f"request failed ({_reason(exc)})"
            raise self._failed(url, deadline, problem, s.retries + 1) from None

    def _open(self, url: str, deadline: float) -> Response:
        """The 200 response for ``url``, following redirects that stay on the same host."""
        session, _ = self._session()
        current = url
        for _hop in range(self.settings.max_redirects + 1):
            resp = self._request(current, deadline)
            target = session.get_redirect_target(resp)
            if not target:
                return self._status(resp, current, deadline)
            resp.close()  # never read a redirect's body: requests would read all of it
            target = urljoin(current, target)
            self._check_redirect(current, target)
            current = target
        raise HttpError(
            f"GET {url} was redirected more than {self.settings.max_redirects} times",
            "check the URL (a redirect loop?)",
        )

    def _status(self, resp: Response, url: str, deadline: float) -> Response:
        code = resp.status_code
        if code == 200:
            return resp
        resp.close()
        if code == 404:
            raise HttpError(
                f"HTTP 404 for {url}",
                "check the repo, commit and path exist upstream (paths are case-sensitive)",
            )
        if code in RETRY_STATUSES:
            if _asks_past(resp, deadline):
                raise self._deadline_passed(url)
            attempts = len(getattr(resp.raw.retries, "history", ())) + 1
            raise self._failed(url, deadline, f"HTTP {code}", attempts)
        raise HttpError(f"HTTP {code} for {url}", "check the URL")

    def _check_redirect(self, url: str, target: str) -> None:
        here, there = urlparse(url), urlparse(target)
        host = (there.hostname or "").lower()
        allowed = {h.lower() for h in (here.hostname or "", *self.settings.redirect_hosts)}
        downgrade = here.scheme == "https" and there.scheme != "https"
        if host in allowed and there.scheme in ("http", "https") and not downgrade:
            return
        raise HttpError(
            f"GET {url} was redirected from {here.netloc} to {there.netloc or target}; "
            "redirects are followed only within the same host (and never from https to http)",
            f"fetch from {there.netloc or target} directly if you trust it, or allow it in "
            "HttpSettings.redirect_hosts",
        )

    # ------------------------------------------------------------------ body and bounds

    def _body(self, resp: Response, url: str, limit: SizeLimit, watchdog: _Watchdog) -> bytes:
        """The decoded body, at most ``limit.size`` bytes, read before the deadline."""
        import requests

        body = bytearray()
        try:
            for chunk in resp.iter_content(CHUNK):
                body += chunk
                if len(body) > limit.size:
                    raise HttpError(
                        f"GET {url}: the body is larger than {_size(limit.size)} after "
                        f"decompression (the bound: {limit.source})",
                        "do not trust this server's answer: check the URL and the source "
                        "(a file that really grew needs paramdiff fetch --update)",
                    )
        except (requests.RequestException, OSError) as exc:
            if watchdog.fired.is_set():
                raise self._deadline_passed(url) from None
            raise _BodyBroke(f"{_reason(exc)}, after {len(body)} bytes") from None
        if watchdog.fired.is_set():  # a body without a length just ends when the socket is shut
            raise self._deadline_passed(url)
        return bytes(body)

    def _left(self, url: str, deadline: float) -> float:
        left = deadline - time.monotonic()
        if left <= 0:
            raise self._deadline_passed(url)
        return left

    def _pause(self, seconds: float, url: str, deadline: float) -> None:
        if seconds >= self._left(url, deadline):
            raise self._deadline_passed(url)
        time.sleep(seconds)

    def _failed(self, url: str, deadline: float, problem: str, attempts: int) -> HttpError:
        if time.monotonic() >= deadline:
            return self._deadline_passed(url)
        return HttpError(f"GET {url} failed after {attempts} attempts: {problem}", AGAIN)

    def _deadline_passed(self, url: str) -> HttpError:
        return HttpError(
            f"GET {url} did not finish within its {self.settings.deadline:g}s deadline",
            f"the server is stalled or too slow; {AGAIN} (HttpSettings.deadline sets the limit)",
        )


@functools.cache
def _asks_past(resp: Response, deadline: float) -> bool:
    """Whether the response's Retry-After points past the deadline."""
    from urllib3.util.retry import Retry

    header = resp.headers.get("Retry-After")
    if header is None:
        return False
    try:
        wait = Retry().parse_retry_after(header)
    except Exception:  # urllib3 raises InvalidHeader for nonsense; then it is not a wait
        return False
    return time.monotonic() + wait >= deadline


def _deadline_retry() -> type[Any]:
    """urllib3's ``Retry`` with one more rule: no retry, and no wait, past the deadline.

    Made on first use so that importing this module does not import urllib3.
    """
    from types import TracebackType

    from urllib3.connectionpool import ConnectionPool
    from urllib3.exceptions import MaxRetryError, ResponseError
    from urllib3.response import BaseHTTPResponse
    from urllib3.util.retry import Retry

    class DeadlineRetry(Retry):
        deadline = math.inf

        def new(self, **kw: Any) -> Any:
            retry = super().new(**kw)
            retry.deadline = self.deadline
            return retry

        def is_exhausted(self) -> bool:
            return super().is_exhausted() or time.monotonic() >= self.deadline

        def get_backoff_time(self) -> float:
            return min(super().get_backoff_time(), max(0.0, self.deadline - time.monotonic()))

        def get_retry_after(self, response: Any) -> float | None:
            after = super().get_retry_after(response)
            return None if after is None else min(after, max(0.0, self.deadline - time.monotonic()))

        def increment(
            self,
            method: str | None = None,
            url: str | None = None,
            response: BaseHTTPResponse | None = None,
            error: Exception | None = None,
            _pool: ConnectionPool | None = None,
            _stacktrace: TracebackType | None = None,
        ) -> DeadlineRetry:
            # A server asking to come back after the deadline: give up now rather than wait
            # to the deadline and race the watchdog (the caller reports the deadline).
            retry = super().increment(method, url, response, error, _pool, _stacktrace)
            after = Retry.get_retry_after(self, response) if response is not None else None
            if after is not None and time.monotonic() + after >= self.deadline:
                reason = ResponseError("Retry-After points past the download's deadline")
                raise MaxRetryError(_pool, url or "", reason)  # type: ignore[arg-type]
            return retry

    return DeadlineRetry


_current = threading.local()  # .watchdog: the watchdog of the download this thread runs


class _Watchdog:
    """Shuts down every socket a download reads from once its deadline passes.

    A server dripping one byte at a time never trips a per-read timeout — while the headers
    arrive or the body — so only a clock can stop it: ``socket.shutdown`` from this timer's
    thread wakes the read blocked in the download's thread (as urllib3's own
    ``HTTPResponse.shutdown`` does). Sockets are registered by the connection classes of
    ``_watched_pools`` just before each response is read.
    """

    def __init__(self, seconds: float) -> None:
        self.fired = threading.Event()
        self._sockets: list[socket.socket] = []
        self._guard = threading.Lock()
        self._timer = threading.Timer(seconds, self._fire)
        self._timer.daemon = True

    def __enter__(self) -> _Watchdog:
        _current.watchdog = self
        self._timer.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._timer.cancel()
        _current.watchdog = None

    def watch(self, sock: socket.socket | None) -> None:
        with self._guard:
            if sock is not None:
                self._sockets.append(sock)
                if self.fired.is_set():
                    _shut(sock)

    def _fire(self) -> None:
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
def _watched_adapter() -> type[HTTPAdapter]:
    """requests' ``HTTPAdapter`` whose connections, direct or through an http(s) proxy
    (``HTTPS_PROXY``), show their sockets to the download's watchdog."""
    from requests.adapters import HTTPAdapter
    from urllib3 import poolmanager

    def watched(manager: Any) -> Any:
        if manager.pool_classes_by_scheme == poolmanager.pool_classes_by_scheme:  # not SOCKS
            manager.pool_classes_by_scheme = _watched_pools()
        return manager

    class WatchedAdapter(HTTPAdapter):
        def init_poolmanager(self, *args: Any, **kwargs: Any) -> None:
            super().init_poolmanager(*args, **kwargs)
            watched(self.poolmanager)

        def proxy_manager_for(self, proxy: Any, **kwargs: Any) -> Any:
            return watched(super().proxy_manager_for(proxy, **kwargs))

    return WatchedAdapter


@functools.cache
def _watched_pools() -> dict[str, type[Any]]:
    """urllib3's connection pools, with connections that show their socket to the running
    download's watchdog before reading a response (new or kept-alive alike)."""
    from urllib3.connection import HTTPConnection, HTTPSConnection
    from urllib3.connectionpool import HTTPConnectionPool, HTTPSConnectionPool

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


def _size(n: int) -> str:
    return f"{n / MIB:g} MiB" if n >= MIB and n % MIB == 0 else f"{n} bytes"


def _reason(exc: Exception) -> str:
    text = str(exc)
    for marker in ("Connection refused", "Name or service not known", "timed out"):
        if marker in text:
            return marker
    if "IncompleteRead" in text or "Connection broken" in text:
        return "connection closed early"
    return text.splitlines()[0][:160] if text else type(exc).__name__
