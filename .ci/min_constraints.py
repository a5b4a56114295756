"""CI: pin every dependency of rulekit to the floor pyproject.toml declares.

Usage: python .ci/min_constraints.py [extra ...] > constraints.txt
       (from the repository root; extras default to "test")

Each ``name>=X`` requirement of ``[project] dependencies`` and of the named
optional-dependency groups becomes ``name==X``; a requirement without a floor
is left out (pip resolves it freely).  Installing with ``pip install -c
constraints.txt -e '.[test]'`` then checks that the floors are real: the
oldest versions we claim to support install together and pass the smoke tests.
"""

import re
import sys
from pathlib import Path

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10: the same parser, as a package
    import tomli as tomllib

root = Path(__file__).resolve().parents[1]
project = tomllib.loads((root / "pyproject.toml").read_text())["project"]
extras = sys.argv[1:] or ["test"]
requirements = list(project["dependencies"])
for extra in extras:
    requirements += project["optional-dependencies"][extra]
pins = {}
for requirement in requirements:
    match = re.fullmatch(r"\s*([A-Za-z0-9_.-]+)(\[[^\]]*\])?\s*>=\s*([0-9][0-9A-Za-z.]*)\s*", requirement)
    if match is None:
        continue  # no floor (or a more complex specifier): nothing to pin
    name = re.sub(r"[-_.]+", "-", match.group(1)).lower()
    pins[name] = match.group(3)  # the last mention wins; every mention shares one floor here
for name, version in sorted(pins.items()):
    print(f"{name}=={version}")
