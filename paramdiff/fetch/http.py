"""GET over HTTP(S) as requests and urllib3 do it, with bounds a server cannot stretch.

- Retries are urllib3's ``Retry`` on requests' ``HTTPAdapter`` (``retry.py``: only what is
  plausibly transient, each wait announced): timeouts, dropped connections, 429 and 5xx are
  asked again with exponential backoff, and a ``Retry-After`` header is honoured; a host
  that does not resolve or refuses the connection fails at once. urllib3's retries end when
  the headers arrive, so a body that breaks after them (the connection dropped, a gzip
  stream cut short) is asked for again by the one small loop in ``HttpClient.get``.
- Bounds: the body is counted *after* decompression and refused past a size limit (the
  lock's or the manifest's ``size`` when known, else ``HttpSettings.max_body``); one
  deadline covers every download of the command, retries and waits included, and ``stop``
  ends every download in flight (``watchdog.py``); redirects are followed only within the
  same origin — scheme, host and port (``HttpSettings.redirect_origins`` names others).

Integrity is not judged here: fetch verifies the sha256 and git blob id of what we return.
requests and urllib3 are imported on first use: most commands never touch the network.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import urljoin, urlparse

import requests

from paramdiff.errors import FetchError
from paramdiff.fetch import DEFAULT_DEADLINE, ENV_DEADLINE
from paramdiff.fetch.retry import DeadlineRetry, asks_past, reason, unreachable
from paramdiff.fetch.watchdog import CommandDeadline, Watchdog, watched_adapter

if TYPE_CHECKING:
    from requests import Response, Session
    from requests.adapters import HTTPAdapter

MIB = 1024 * 1024
CHUNK = 64 * 1024  # decoded bytes per read; urllib3 (>= 2.6) decompresses at most this much
RETRY_STATUSES = frozenset([429, *range(500, 600)])
# The example is the mirror the README's "No GitHub access?" names, so the fix is one paste.
MIRROR_HINT = (
    "read a mirror: --mirror DIR|URL or PARAMDIFF_MIRROR "
    "(e.g. export PARAMDIFF_MIRROR=../shared/upstream)"
)
AGAIN = f"check the network and run the command again, or {MIRROR_HINT}"
UNREACHABLE = f"check the network, or {MIRROR_HINT}"
PORTS = {"http": 80, "https": 443}


class HttpError(FetchError):
    """A download failed or was refused; fetch adds which role, repo, ref and path it was for."""


class NotFoundError(HttpError):
    """HTTP 404: no such file at that URL."""

    missing = True  # fetch adds: if the lock named that commit, was it edited?


@dataclass
class HttpSettings:
    """Bounds on the downloads of one command: timeouts, retries, deadline, size, redirects."""

    connect_timeout: float = 5.0  # seconds per connection attempt
    read_timeout: float = 20.0  # seconds any one socket read may wait
    retries: int = 3  # after the first attempt: urllib3's, and again for a broken body
    backoff: float = 0.5  # seconds; doubled after each failed attempt
    # Seconds for every download of the command together, retries and waits included, from
    # the first request (PARAMDIFF_HTTP_DEADLINE sets it for the CLI).
    deadline: float = DEFAULT_DEADLINE
    max_body: int = 64 * MIB  # decoded bytes, for a file whose size nothing records
    max_redirects: int = 5
    # origins ("https://host[:port]") besides the request's own that a redirect may reach
    redirect_origins: tuple[str, ...] = ()


@dataclass(frozen=True)
class SizeLimit:
    """The most decoded bytes a body may have, and who says so (for the error)."""

    size: int
    source: str


class _BodyBroke(Exception):
    """The body stopped before its end; worth asking again."""


Progress = Callable[[str], None]  # one line about a wait, for stderr


def origin(url: str) -> tuple[str, str, int | None]:
    """(scheme, host, port) of ``url``, the port filled in for http and https."""
    parts = urlparse(url)
    scheme = parts.scheme.lower()
    try:
        port = parts.port
    except ValueError:  # a port that is not a number, or past 65535: matches nothing
        port = -1
    return scheme, (parts.hostname or "").lower(), port if port is not None else PORTS.get(scheme)


class HttpClient:
    """GET with timeouts, urllib3 retries, a size limit, one deadline for the command's
    downloads, a stop switch and same-origin redirects.

    One requests session (and connection pool) per thread: fetch downloads concurrently.
    ``progress`` is told of every wait before a retry (the CLI prints it on stderr);
    ``unreachable_fix`` is the fix an error names when no connection could be made;
    ``deadline``: the command's, when it also bounds other work (else made with the first
    download, ``settings.deadline`` seconds).
    """

    def __init__(
        self,
        settings: HttpSettings | None = None,
        progress: Progress | None = None,
        unreachable_fix: str = UNREACHABLE,
        deadline: CommandDeadline | None = None,
    ) -> None:
        self.settings = settings or HttpSettings()
        self.progress = progress
        self.unreachable_fix = unreachable_fix
        self._local = threading.local()
        self._guard = threading.Lock()
        self._printing = threading.Lock()  # one line at a time from concurrent downloads
        self._deadline = deadline  # shared with the command's git commands, when given
        self._sessions: list[Session] = []

    @property
    def deadline(self) -> CommandDeadline:
        """The command's deadline; its clock starts with the first download."""
        with self._guard:
            if self._deadline is None:
                self._deadline = CommandDeadline(self.settings.deadline)
            return self._deadline

    def stop(self) -> None:
        """End every download in flight now (their sockets are shut) and refuse new ones:
        the command is failing, nothing they bring would be used."""
        self.deadline.stop()

    def close(self) -> None:
        """Close every thread's session and its pooled connections."""
        with self._guard:
            sessions, self._sessions = self._sessions, []
        for session in sessions:
            session.close()

    def get(self, url: str, limit: SizeLimit | None = None) -> bytes:
        """The decoded body of ``url`` (status 200), or an ``HttpError`` saying why not."""
        s = self.settings
        limit = limit or SizeLimit(s.max_body, "HttpSettings.max_body, for a file of unknown size")
        self._left(url)
        broke = "no attempt made"
        with Watchdog(self.deadline) as watchdog:
            for attempt in range(s.retries + 1):
                if attempt:
                    self._pause(s.backoff * 2 ** (attempt - 1), url, attempt + 1, broke)
                resp = self._open(url, watchdog)
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
            local.adapter = watched_adapter()()
            local.session = requests.Session()
            local.session.headers["User-Agent"] = "paramdiff"
            local.session.mount("https://", local.adapter)
            local.session.mount("http://", local.adapter)
            with self._guard:
                self._sessions.append(local.session)
        return local.session, local.adapter

    def _retry(self, url: str) -> Any:

        s = self.settings
        retry = DeadlineRetry(
            total=s.retries,
            status_forcelist=RETRY_STATUSES,
            allowed_methods=frozenset(["GET"]),
            backoff_factor=s.backoff,
            respect_retry_after_header=True,
            raise_on_status=False,  # the last 429/5xx comes back; _status words the error
        )
        retry.deadline = self.deadline
        retry.on_wait = functools.partial(self._announce, url)
        return retry

    def _request(self, url: str, watchdog: Watchdog) -> Response:
        """One GET through urllib3's retries, headers only (the body streams later)."""

        s = self.settings
        session, adapter = self._session()
        adapter.max_retries = self._retry(url)  # this thread's adapter: no race
        left = self._left(url)
        timeout = (min(s.connect_timeout, left), min(s.read_timeout, left))
        try:
            return session.get(url, stream=True, allow_redirects=False, timeout=timeout)
        except requests.RequestException as exc:
            if watchdog.fired.is_set():
                raise self._ended(url) from None
            cannot = unreachable(exc)
            if cannot:
                host = urlparse(url).netloc
                what = f"GET {url}: cannot reach {host} ({cannot})"
                raise HttpError(what, self.unreachable_fix) from None
            text = str(exc)
            if isinstance(exc, requests.Timeout) or "timed out" in text:
                problem = f"timed out after {s.read_timeout:g}s"
            elif isinstance(exc, requests.ConnectionError):
                problem = f"connection failed ({reason(exc)})"
            else:
                problem = f"request failed ({reason(exc)})"
            raise self._failed(url, problem, s.retries + 1) from None

    def _open(self, url: str, watchdog: Watchdog) -> Response:
        """The 200 response for ``url``, following redirects that stay in the same origin."""
        session, _ = self._session()
        current = url
        for _hop in range(self.settings.max_redirects + 1):
            resp = self._request(current, watchdog)
            target = session.get_redirect_target(resp)
            if not target:
                return self._status(resp, current)
            resp.close()  # never read a redirect's body: requests would read all of it
            target = urljoin(current, target)
            self._check_redirect(current, target)
            current = target
        raise HttpError(
            f"GET {url} was redirected more than {self.settings.max_redirects} times",
            "check the URL (a redirect loop?)",
        )

    def _status(self, resp: Response, url: str) -> Response:
        code = resp.status_code
        if code == 200:
            return resp
        resp.close()
        if code == 404:
            raise NotFoundError(
                f"HTTP 404 for {url}",
                "check the repo, commit and path exist upstream (paths are case-sensitive)",
            )
        if code in RETRY_STATUSES:
            if asks_past(resp.headers, self.deadline):
                raise self._ended(url)
            attempts = len(getattr(resp.raw.retries, "history", ())) + 1
            raise self._failed(url, f"HTTP {code}", attempts)
        raise HttpError(f"HTTP {code} for {url}", "check the URL")

    def _check_redirect(self, url: str, target: str) -> None:
        """Same origin only: scheme, host and port (RFC 6454), or an origin the settings
        name. Another port of the same host is another server; https to http exposes the
        request, http to https is another origin too."""
        here, there = origin(url), origin(target)
        allowed = {here, *(origin(o) for o in self.settings.redirect_origins)}
        if there in allowed and there[0] in PORTS:
            return
        raise HttpError(
            f"GET {url} was redirected from {_shown(here)} to {_shown(there)}; redirects are "
            "followed only within the same origin (scheme, host and port)",
            f"fetch from {_shown(there)} directly if you trust it, or allow it in "
            "HttpSettings.redirect_origins",
        )

    # ------------------------------------------------------------------ body and bounds

    def _body(self, resp: Response, url: str, limit: SizeLimit, watchdog: Watchdog) -> bytes:
        """The decoded body, at most ``limit.size`` bytes, read before the deadline."""

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
                raise self._ended(url) from None
            raise _BodyBroke(f"{reason(exc)}, after {len(body)} bytes") from None
        if watchdog.fired.is_set():  # a body without a length just ends when the socket is shut
            raise self._ended(url)
        return bytes(body)

    def _left(self, url: str) -> float:
        """Seconds left before the deadline; an error once it passed or the command stopped."""
        deadline = self.deadline
        left = deadline.left()
        if left <= 0 or deadline.stopped.is_set():
            raise self._ended(url)
        return left

    def _pause(self, seconds: float, url: str, attempt: int, why: str) -> None:
        if seconds >= self._left(url):
            raise self._ended(url)
        self._announce(url, seconds, attempt, why)
        if self.deadline.stopped.wait(seconds):
            raise self._ended(url)

    def _announce(self, url: str, seconds: float, attempt: int, why: str) -> None:
        if self.progress is not None:
            total = self.settings.retries + 1
            wait = f"trying again in {seconds:.1f}s (attempt {attempt} of {total})"
            with self._printing:
                self.progress(f"GET {url}: {why}; {wait}")

    def _failed(self, url: str, problem: str, attempts: int) -> HttpError:
        if self.deadline.left() <= 0 or self.deadline.stopped.is_set():
            return self._ended(url)
        return HttpError(f"GET {url} failed after {attempts} attempts: {problem}", AGAIN)

    def _ended(self, url: str) -> HttpError:
        """The deadline passed, or the command stopped every download (another failed)."""
        if self.deadline.stopped.is_set():
            return HttpError(
                f"GET {url} was stopped: another download of this command failed",
                "see that download's error",
            )
        seconds = self.deadline.seconds
        return HttpError(
            f"GET {url} did not finish within its {seconds:g}s deadline", too_slow(seconds)
        )


def too_slow(seconds: float) -> str:
    """The fix for a download the deadline stopped."""
    return (
        f"the server is stalled or too slow (one {seconds:g}s deadline bounds all the "
        f"command's downloads together); {AGAIN}, or allow more time: {ENV_DEADLINE}=SECONDS"
    )


def _shown(where: tuple[str, str, int | None]) -> str:
    scheme, host, port = where
    host = f"[{host}]" if ":" in host else host
    return f"{scheme}://{host}" + (f":{port}" if port is not None else "")


def _size(n: int) -> str:
    return f"{n / MIB:g} MiB" if n >= MIB and n % MIB == 0 else f"{n} bytes"
