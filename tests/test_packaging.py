"""The wheel a user installs holds everything the package reads at run time.

The other tests import the source tree (an editable install), where every
file is present whatever ``pyproject.toml`` says; these build a real wheel
from the files git tracks and use it the way ``pip install .`` would.
"""

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd
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


@pytest.mark.slow  # builds a wheel (compiling the kernels), and fits in a new process
def test_the_wheel_carries_compiled_kernels(wheel, tmp_path):
    """The build compiles the kernels a default fit calls (setup.py, rulekit/_precompile.py):
    fits of every numba learner from the unpacked wheel load them and compile nothing."""
    with zipfile.ZipFile(wheel) as zf:
        names = zf.namelist()
        zf.extractall(tmp_path / "site")
    cached = [n for n in names if n.endswith(".nbi")]
    assert any(n.startswith("rulekit/corels/__pycache__/_kernels.run-") for n in cached), cached
    assert any(n.startswith("rulekit/frl/__pycache__/_kernels.") for n in cached), cached
    # and a fit from a file of many distinct rows: the counting pass's kernels, and the
    # falling lists' counting in blocks (4,096 distinct rows of a class and more)
    rng = np.random.default_rng(0)
    many = pd.DataFrame(rng.integers(0, 2, (30_000, 16)), columns=[f"x{j}" for j in range(16)])
    many["label"] = rng.integers(0, 2, len(many))
    many.to_csv(tmp_path / "many.csv", index=False)
    code = (
        "import warnings\n"
        "warnings.simplefilter('ignore')\n"
        "from numba.core.registry import CPUDispatcher\n"
        "import rulekit\n"
        f"assert rulekit.__file__.startswith({str(tmp_path / 'site')!r}), rulekit.__file__\n"
        "from rulekit import CorelsClassifier, FallingRuleListClassifier, SoftFallingRuleListClassifier\n"
        "from rulekit import stream\n"
        "from rulekit.datasets import load_compas\n"
        "X, y = load_compas(return_X_y=True)\n"
        "for est in (CorelsClassifier(), FallingRuleListClassifier(), SoftFallingRuleListClassifier()):\n"
        "    est.fit(X, y)\n"
        f"FallingRuleListClassifier().fit(stream.Files({str(tmp_path / 'many.csv')!r}, target='label'))\n"
        "import rulekit.corels._kernels as a, rulekit.frl._kernels as b\n"
        "import rulekit._patterns as c, rulekit.bitset as d\n"
        "kernels = {f'{m.__name__}.{n}': d for m in (a, b, c, d) for n, d in vars(m).items()\n"
        "           if isinstance(d, CPUDispatcher)}\n"
        "import json\n"
        "print(json.dumps([sorted(n for n, d in kernels.items() if d.stats.cache_misses),\n"
        "                  sorted(n for n, d in kernels.items() if d.stats.cache_hits),\n"
        "                  len(b.chunk.signatures)]))\n"
    )
    # numba writes beside the sources only when no cache folder is named
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    env["PYTHONPATH"] = str(tmp_path / "site")
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    compiled, loaded, searches = json.loads(done.stdout.splitlines()[-1])
    assert compiled == [], f"compiled at the first fit, not at the build: {compiled}"
    # the falling and softly falling searches, and the falling one counting in blocks
    assert searches == 3, searches
    assert "rulekit._patterns.pack_conditions" in loaded and "rulekit._patterns._add_rows" in loaded
    assert "rulekit.corels._kernels.run" in loaded and "rulekit.frl._kernels.chunk" in loaded, loaded
