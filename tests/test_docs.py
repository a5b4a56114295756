"""Every tutorial runs, in its quick mode, so the docs never rot."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TUTORIALS = sorted((ROOT / "docs" / "tutorials").glob("*.py"))


def test_there_are_tutorials():
    assert len(TUTORIALS) >= 5


@pytest.mark.parametrize("script", TUTORIALS, ids=lambda p: p.stem)
def test_tutorial_runs(script, tmp_path):
    # the scripts run from a scratch folder; make sure they import this checkout
    path = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    env = {**os.environ, "RULEKIT_TUTORIAL_QUICK": "1", "MPLBACKEND": "Agg", "PYTHONPATH": path}
    out = subprocess.run([sys.executable, str(script)], cwd=tmp_path, env=env,
                         capture_output=True, text=True, timeout=900)
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.strip()
    # the tutorials that draw save their figures next to where they run
    for png in tmp_path.glob("*.png"):
        assert png.stat().st_size > 2000


def test_api_reference_is_current():
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        import make_api_doc
    finally:
        sys.path.pop(0)
    assert (ROOT / "docs" / "api.md").read_text() == make_api_doc.render(), (
        "docs/api.md is stale: run python scripts/make_api_doc.py")
