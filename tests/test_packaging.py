"""The wheel a user installs holds everything the package reads at run time.

The other tests import the source tree (an editable install), where every
file is present whatever ``pyproject.toml`` says; these build a real wheel
from the files git tracks and use it the way ``pip install .`` would.
"""

import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def tracked_files() -> list[str]:
    """Paths (relative to the repository) of the files git tracks."""
    out = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True)
    return [p for p in out.stdout.decode().split("\0") if p]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """A wheel built from a copy of the tracked files (as a clean clone has them)."""
    src = tmp_path_factory.mktemp("clone")
    for rel in tracked_files():
        if (ROOT / rel).is_file():
            (src / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / rel, src / rel)
    out_dir = tmp_path_factory.mktemp("wheel")
    done = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(out_dir), str(src)],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    (path,) = out_dir.glob("rulekit-*.whl")
    return path


@pytest.mark.slow  # builds a wheel
def test_wheel_holds_every_tracked_package_file(wheel):
    with zipfile.ZipFile(wheel) as zf:
        inside = set(zf.namelist())
    wanted = {p for p in tracked_files() if p.startswith("rulekit/")}
    assert any(p.endswith(".out.gz") for p in wanted)  # the CORELS compas files are tracked
    missing = sorted(wanted - inside)
    assert not missing, f"the wheel lacks {missing}: widen [tool.setuptools.package-data]"


@pytest.mark.slow  # builds a wheel, and loads it in a new process
def test_every_dataset_loads_from_the_wheel(wheel, tmp_path):
    """Each loader reads its files from an unpacked wheel, not from the source tree."""
    site = tmp_path / "site"
    with zipfile.ZipFile(wheel) as zf:
        zf.extractall(site)
    code = (
        "import rulekit, rulekit.datasets as d\n"
        f"assert rulekit.__file__.startswith({str(site)!r}), rulekit.__file__\n"
        "for split in ('train', 'test'):\n"
        "    assert d.load_corels_compas(split).data.shape[1] == 155\n"
        "d.load_bank_marketing(discretized=True)\n"
        "for n in (1, 2, 3):\n"
        "    d.load_monks(n, split='test')\n"
        "for name in set(d.DATASETS) - {'corels_compas'}:  # loaded above, not by name\n"
        "    d.load_dataset(name)\n"
        "print('ok', len(d.DATASETS))\n"
    )
    env = {**os.environ, "PYTHONPATH": str(site)}
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.startswith("ok ")


def test_one_version_everywhere():
    # the package, saved files, exports and ``rulekit --version`` read rulekit/_version.py;
    # the wheel's metadata comes from pyproject.toml: the two must say the same
    from rulekit._version import __version__

    text = (ROOT / "pyproject.toml").read_text()
    assert f'\nversion = "{__version__}"\n' in text
