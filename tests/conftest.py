"""Suite-wide guard: no test may leave a SIGINT handler or an open search run behind.

A search installs a handler that turns Ctrl-C into a flag for its own run;
left installed, it would swallow the Ctrl-C of every later test (whose search
then never stops).  The guard restores the default first, so one broken test
fails alone, and then says which test it was.
"""

import signal

import pytest

from rulekit._anytime import _stack


@pytest.fixture(autouse=True)
def _no_leftover_ctrl_c_state():
    yield
    handler = signal.getsignal(signal.SIGINT)
    open_runs = list(_stack())
    signal.signal(signal.SIGINT, signal.default_int_handler)
    _stack().clear()
    assert handler is signal.default_int_handler, f"the test left SIGINT handled by {handler!r}"
    assert not open_runs, f"the test left search runs open: {open_runs!r}"
