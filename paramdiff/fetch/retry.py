"""Which failures are asked again, and for how long: urllib3's ``Retry`` with three rules.

- Only what is plausibly transient is retried: a timeout, a connection dropped or reset,
  429 and 5xx. A host name that does not resolve, a connection refused, no route to the host
  or network: the machine is offline or the URL is wrong, and asking again only makes the
  user wait in silence (``unreachable`` says which it was).
- No retry, and no wait, past the command's deadline (``watchdog.CommandDeadline``), and none
  once the command stopped (another download failed): the wait itself ends at the stop.
- Every wait is announced first (``on_wait``): the CLI prints it on stderr, one line a wait.

It imports urllib3: http.py imports it with the first request, not with itself.
"""

from __future__ import annotations

import errno
import math
import time
from collections.abc import Callable
from types import TracebackType
from typing import TYPE_CHECKING, Any

from urllib3.connectionpool import ConnectionPool
from urllib3.exceptions import InvalidHeader, MaxRetryError, NameResolutionError, ResponseError
from urllib3.response import BaseHTTPResponse
from urllib3.util.retry import Retry

if TYPE_CHECKING:
    from paramdiff.fetch.watchdog import CommandDeadline

# (seconds it will wait, the attempt that follows, why the last one failed)
OnWait = Callable[[float, int, str], None]

_UNREACHABLE_ERRNOS = {
    errno.ECONNREFUSED: "connection refused",
    errno.ENETUNREACH: "network is unreachable",
    errno.EHOSTUNREACH: "no route to host",
}


def _causes(exc: BaseException | None) -> list[BaseException]:
    """``exc`` and what it wraps: requests' exceptions wrap urllib3's MaxRetryError, which
    names its reason; a proxy error its original error; urllib3 errors their OSError."""
    seen: list[BaseException] = []
    while exc is not None and exc not in seen and len(seen) < 10:
        seen.append(exc)
        inner = getattr(exc, "reason", None) or getattr(exc, "original_error", None)
        if not isinstance(inner, BaseException):
            args = getattr(exc, "args", ())
            inner = args[0] if args and isinstance(args[0], BaseException) else None
        exc = inner or exc.__cause__
    return seen


def unreachable(exc: BaseException | None) -> str | None:
    """Why no connection could be made, when asking again would not help; else None."""
    for cause in _causes(exc):
        if isinstance(cause, NameResolutionError):
            return "the host name does not resolve"
        if isinstance(cause, OSError) and cause.errno in _UNREACHABLE_ERRNOS:
            return _UNREACHABLE_ERRNOS[cause.errno]
    return None


class DeadlineRetry(Retry):
    """urllib3's ``Retry`` under the rules above (``deadline`` and ``on_wait`` are set on
    each instance and carried to the ones ``increment`` makes)."""

    deadline: CommandDeadline | None = None
    on_wait: OnWait | None = None

    def new(self, **kw: Any) -> Any:
        retry = super().new(**kw)
        retry.deadline, retry.on_wait = self.deadline, self.on_wait
        return retry

    def _left(self) -> float:
        return math.inf if self.deadline is None else max(0.0, self.deadline.left())

    def _stopped(self) -> bool:
        return self.deadline is not None and self.deadline.stopped.is_set()

    def is_exhausted(self) -> bool:
        return super().is_exhausted() or self._left() <= 0 or self._stopped()

    def parse_retry_after(self, retry_after: str) -> float:
        try:
            return float(super().parse_retry_after(retry_after))
        except (ValueError, OverflowError):  # 5,000 digits, a year past 9999: never
            return math.inf

    def get_backoff_time(self) -> float:
        return min(super().get_backoff_time(), self._left())

    def get_retry_after(self, response: Any) -> float | None:
        after = super().get_retry_after(response)
        return None if after is None else min(after, self._left())

    def sleep(self, response: BaseHTTPResponse | None = None) -> None:
        after = self.get_retry_after(response) if response is not None else None
        wait = after if (after and self.respect_retry_after_header) else self.get_backoff_time()
        if self.on_wait is not None:
            self.on_wait(wait, len(self.history) + 1, self._why())
        if self.deadline is None:
            time.sleep(wait)
        else:
            self.deadline.stopped.wait(wait)  # a stop ends the wait: is_exhausted follows

    def _why(self) -> str:
        last = self.history[-1] if self.history else None
        if last is None:
            return "failed"
        if last.status:
            return f"HTTP {last.status}"
        return reason(last.error) if last.error else "failed"

    def increment(
        self,
        method: str | None = None,
        url: str | None = None,
        response: BaseHTTPResponse | None = None,
        error: Exception | None = None,
        _pool: ConnectionPool | None = None,
        _stacktrace: TracebackType | None = None,
    ) -> DeadlineRetry:
        if error is not None and unreachable(error):
            raise MaxRetryError(_pool, url or "", error) from error  # type: ignore[arg-type]
        retry = super().increment(method, url, response, error, _pool, _stacktrace)
        # A server asking to come back after the deadline: give up now rather than wait
        # to the deadline and race the watchdog (the caller reports the deadline).
        after = self._asked_wait(response)
        if after is not None and after >= self._left():
            problem = ResponseError("Retry-After points past the download's deadline")
            raise MaxRetryError(_pool, url or "", problem)  # type: ignore[arg-type]
        return retry

    def _asked_wait(self, response: BaseHTTPResponse | None) -> float | None:
        if response is None:
            return None
        header = response.headers.get("Retry-After")
        return None if header is None else self.parse_retry_after(header)


def asks_past(headers: Any, deadline: CommandDeadline) -> bool:
    """Whether a response's Retry-After points past the deadline."""
    header = headers.get("Retry-After")
    if header is None:
        return False
    try:
        wait = DeadlineRetry().parse_retry_after(header)
    except InvalidHeader:  # nonsense is not a wait
        return False
    return bool(wait >= deadline.left())


def reason(exc: BaseException) -> str:
    """A failure in a few words, for an error line."""
    why = unreachable(exc)
    if why:
        return why
    text = str(exc)
    for marker in ("Connection refused", "Name or service not known", "timed out"):
        if marker in text:
            return marker
    if "IncompleteRead" in text or "Connection broken" in text:
        return "connection closed early"
    return text.splitlines()[0][:160] if text else type(exc).__name__
