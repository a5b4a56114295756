"""Ctrl-C as a flag, for searches that run compiled kernels in chunks.

A ``KeyboardInterrupt`` raised while numba hands a kernel's result back to
Python can be lost or turned into a ``SystemError``.  While a search runs,
:class:`DeferredInterrupt` makes SIGINT merely set ``received``; the driver
checks it between chunks and returns its best model with status
``"interrupted"``.  A second Ctrl-C before the driver has noticed the first
raises ``KeyboardInterrupt`` at once, for a user who does not want to wait.
Only the main thread, and only when nobody installed a custom handler, is
affected; the previous handler is restored on exit.
"""

from __future__ import annotations

import signal
import threading

__all__ = ["DeferredInterrupt", "is_interrupt"]


class DeferredInterrupt:
    """Context manager: SIGINT sets ``self.received`` instead of raising."""

    def __init__(self):
        self.received = False
        self._previous = None

    def install(self) -> "DeferredInterrupt":
        """Start catching SIGINT (returns self)."""
        if (threading.current_thread() is threading.main_thread()
                and signal.getsignal(signal.SIGINT) is signal.default_int_handler):
            self._previous = signal.signal(signal.SIGINT, self._handle)
        return self

    def restore(self) -> None:
        """Put the previous SIGINT handler back."""
        if self._previous is not None:
            signal.signal(signal.SIGINT, self._previous)
            self._previous = None

    def _handle(self, signum, frame):
        if self.received:
            # asked twice: stop now, whatever is running
            self.restore()
            raise KeyboardInterrupt
        self.received = True

    def __enter__(self):
        return self.install()

    def __exit__(self, *exc):
        self.restore()
        return False


def is_interrupt(exc: BaseException) -> bool:
    """True for a KeyboardInterrupt, or the SystemError numba wraps one in."""
    return isinstance(exc, KeyboardInterrupt) or (
        isinstance(exc, SystemError) and isinstance(exc.__cause__, KeyboardInterrupt))
