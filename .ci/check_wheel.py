"""CI: the built wheel holds every file under rulekit/ that git tracks.

Usage: python .ci/check_wheel.py dist/rulekit-*.whl   (from the repository root)
"""

import subprocess
import sys
import zipfile

wheel = sys.argv[1]
tracked = subprocess.run(["git", "ls-files", "-z", "rulekit"], capture_output=True, check=True)
wanted = {p for p in tracked.stdout.decode().split("\0") if p}
with zipfile.ZipFile(wheel) as zf:
    inside = set(zf.namelist())
missing = sorted(wanted - inside)
data = sorted(p for p in wanted if "/data/" in p)
if missing:
    print(f"the wheel lacks {len(missing)} tracked file(s): {missing}", file=sys.stderr)
    sys.exit(1)
print(f"wheel holds all {len(wanted)} tracked package files, {len(data)} of them data files")
