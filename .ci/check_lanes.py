"""CI: the fast and the slow lane together hold every test, each test in exactly one.

Usage: python .ci/check_lanes.py   (from the repository root)

Collects the test ids of every test (``-m "slow or not slow"``), of the fast
lane (``-m "not slow"``, what ``python -m pytest`` runs), of the slow lane
(``-m slow``) and of the wall-clock tests CI runs alone (``-m serial``), and
fails unless fast + slow = every test with nothing in both, and serial is part
of slow.  The counts are printed, so a lane that shrinks or grows shows in the log.
"""

import subprocess
import sys


def ids(expression: str) -> list[str]:
    out = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-n", "0",
                          "-p", "no:cacheprovider", "-m", expression],
                         capture_output=True, text=True)
    if out.returncode not in (0, 5):  # 5: nothing selected, which the comparison reports
        print(out.stdout[-3000:], out.stderr[-3000:], sep="\n", file=sys.stderr)
        sys.exit(f"collecting -m {expression!r} failed (pytest exit status {out.returncode})")
    return [line for line in out.stdout.splitlines() if "::" in line]


every, fast, slow, serial = (ids(e) for e in ("slow or not slow", "not slow", "slow", "serial"))
print(f"tests: {len(every)} = fast lane {len(fast)} + slow lane {len(slow)} "
      f"(of which {len(serial)} serial)")
problems = []
if len(set(every)) != len(every):
    problems.append("a test id is collected twice")
if set(fast) & set(slow):
    problems.append(f"in both lanes: {sorted(set(fast) & set(slow))[:10]}")
if sorted(fast + slow) != sorted(every):
    problems.append(f"in no lane: {sorted(set(every) - set(fast) - set(slow))[:10]}")
if not set(serial) <= set(slow):
    problems.append(f"serial but not slow: {sorted(set(serial) - set(slow))[:10]}")
if not fast or not slow:
    problems.append("a lane is empty")
if problems:
    sys.exit("the lanes do not split the tests: " + "; ".join(problems))
