"""Suite-wide Ctrl-C hygiene.

* Started as a background job (``nohup``, ``&`` in a script), a process
  inherits SIGINT *ignored*, so the tests that send themselves a real SIGINT
  would wait forever.  For the session, SIGINT gets Python's own handler, as
  in a terminal; the original disposition comes back at the end.
* No test may leave a SIGINT handler or an open search run behind.  A search
  installs a handler that turns Ctrl-C into a flag for its own run; left
  installed, it would swallow the Ctrl-C of every later test (whose search
  then never stops).  The guard restores Python's handler first, so one
  broken test fails alone, and then says which test it was.

And the two lanes (pyproject.toml's markers): a test marked ``serial`` (a
wall-clock assertion, which CI runs alone) must be marked ``slow`` too, or it
would also run in the parallel fast lane.
"""

import signal

import pytest

from rulekit._anytime import _stack


@pytest.fixture(scope="session", autouse=True)
def _sigint_as_in_a_terminal():
    original = signal.getsignal(signal.SIGINT)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, original)


@pytest.fixture(autouse=True)
def _no_leftover_ctrl_c_state(_sigint_as_in_a_terminal):
    yield
    handler = signal.getsignal(signal.SIGINT)
    open_runs = list(_stack())
    signal.signal(signal.SIGINT, signal.default_int_handler)
    _stack().clear()
    assert handler is signal.default_int_handler, f"the test left SIGINT handled by {handler!r}"
    assert not open_runs, f"the test left search runs open: {open_runs!r}"


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    loose = [item.nodeid for item in items
             if item.get_closest_marker("serial") and not item.get_closest_marker("slow")]
    if loose:
        raise pytest.UsageError("marked serial but not slow (a wall-clock assertion belongs to "
                                "the slow lane): " + ", ".join(loose))
