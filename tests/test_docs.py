"""Every tutorial runs, in its quick mode, so the docs never rot."""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TUTORIALS = sorted((ROOT / "docs" / "tutorials").glob("*.py"))


def test_there_are_tutorials():
    assert len(TUTORIALS) >= 6


def test_notebooks_match_their_scripts():
    """Each tutorial's committed notebook has its script's cells, and no outputs.

    The .py (jupytext percent format) is the source; scripts/sync_notebooks.py writes
    the .ipynb.  .ci/run executes the notebooks from the installed wheel.
    """
    jupytext = pytest.importorskip("jupytext")
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        import sync_notebooks
    finally:
        sys.path.pop(0)
    notebooks = sorted((ROOT / "docs" / "tutorials").glob("*.ipynb"))
    assert [p.stem for p in notebooks] == [p.stem for p in TUTORIALS], (
        "every tutorial script needs its notebook: run python scripts/sync_notebooks.py")
    for script, path in zip(TUTORIALS, notebooks):
        text = script.read_text()
        assert text.startswith("# ---\n# jupyter:") and "formats: ipynb,py:percent" in text, (
            f"{script.name}: not a jupytext-paired percent script")
        assert "\n# %% [markdown]\n" in text, f"{script.name}: no prose cell"
        committed = jupytext.read(path)
        assert sync_notebooks.cells(committed) == sync_notebooks.cells(sync_notebooks.notebook(script)), (
            f"{path.name} differs from {script.name}: run python scripts/sync_notebooks.py")
        for cell in committed.cells:
            if cell.cell_type == "code":
                assert not cell.outputs and cell.execution_count is None, (
                    f"{path.name} holds outputs: run python scripts/sync_notebooks.py")
        assert committed.metadata["kernelspec"]["name"] == "python3"


@pytest.mark.slow  # each tutorial fits its models in a new process
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


def code_blocks(page: Path) -> list[str]:
    """The ```python blocks of a Markdown page, in order."""
    blocks, current = [], None
    for line in page.read_text().splitlines():
        if current is None and line.strip() == "```python":
            current = []
        elif current is not None and line.strip() == "```":
            blocks.append("\n".join(current) + "\n")
            current = None
        elif current is not None:
            current.append(line)
    return blocks


@pytest.mark.slow  # new processes: the page's scripts and its own pytest run
def test_adding_a_learner_page_runs(tmp_path):
    """The page's files are written out, its script runs, and its tests pass."""
    blocks = code_blocks(ROOT / "docs" / "adding-a-learner.md")
    scripts = []
    for block in blocks:
        first = block.splitlines()[0]
        if first.startswith("# file: "):
            target = tmp_path / first[len("# file: "):].strip()
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(block)
        else:
            scripts.append(block)
    assert (tmp_path / "onerule" / "_search.py").exists() and scripts
    # the learner is added by declaring one spec, which a script registers and uses
    assert "LearnerSpec(" in (tmp_path / "onerule" / "__init__.py").read_text()
    assert any("with registered(SPEC):" in script for script in scripts)
    path = os.pathsep.join([str(tmp_path), str(ROOT), str(ROOT / "tests")])
    env = {**os.environ, "PYTHONPATH": path, "MPLBACKEND": "Agg"}
    for script in scripts:
        out = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, env=env,
                             capture_output=True, text=True, timeout=600)
        assert out.returncode == 0, out.stderr[-3000:]
        assert "optimal_relative" in out.stdout
    out = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                          str(tmp_path / "tests" / "test_onerule.py")],
                         cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stdout[-3000:]
    passed = re.search(r"(\d+) passed", out.stdout)
    # 20 brute-force cases, the stopped search, and scikit-learn's checks
    assert passed and int(passed.group(1)) > 22 and not re.search(r"\b\d+ failed", out.stdout)


def test_docs_cite_nothing_outside_the_repository():
    """A reader of the repository alone can follow every pointer (papers are cited by title)."""
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md")), *sorted((ROOT / "docs").rglob("*.py"))]
    # the shared layer; each learner's subpackage is checked by its own tests
    modules = [*sorted((ROOT / "rulekit").glob("*.py")), *sorted((ROOT / "rulekit" / "datasets").glob("*.py"))]
    for path in pages + modules:
        text = path.read_text()
        for needle in ("../shared", "shared/design", "design/"):
            assert needle not in text, f"{path.relative_to(ROOT)} points outside the repository: {needle}"
