"""A minimal progress line on stderr (no extra dependency)."""

from __future__ import annotations

import sys
import time


class Progress:
    """Rewrites one stderr line as work advances.

    Parameters
    ----------
    total : int or None
        Number of steps, if known (shows a bar), else only counts.
    label : str
        Text in front of the bar.
    enabled : bool
        When false every method does nothing, so callers need no ``if``.
    min_interval : float
        Seconds between redraws, to keep the terminal quiet.
    """

    def __init__(self, total=None, label="", *, enabled=True, min_interval=0.2, stream=None):
        self.total = total
        self.label = label
        self.enabled = enabled
        self.min_interval = min_interval
        self.stream = stream or sys.stderr
        self.done = 0
        self._start = time.perf_counter()
        self._last = 0.0

    def update(self, step=1, info="", *, force=False):
        self.done += step
        self.show(info, force=force)

    def show(self, info="", *, force=False):
        if not self.enabled:
            return
        now = time.perf_counter()
        if not force and now - self._last < self.min_interval:
            return
        self._last = now
        elapsed = now - self._start
        if self.total:
            width = 24
            filled = int(width * min(self.done, self.total) / self.total)
            bar = f"[{'#' * filled}{'.' * (width - filled)}] {self.done}/{self.total}"
        else:
            bar = f"{self.done}"
        self.stream.write(f"\r{self.label} {bar} {elapsed:6.1f}s {info}".rstrip() + "\033[K")
        self.stream.flush()

    def close(self, info=""):
        if self.enabled:
            self.show(info, force=True)
            self.stream.write("\n")
            self.stream.flush()
