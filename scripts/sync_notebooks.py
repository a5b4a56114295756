"""Write each tutorial's notebook from its jupytext source.

Usage: python scripts/sync_notebooks.py   (from the repository root; needs jupytext,
       pip install -e '.[docs]')

``docs/tutorials/NN_name.py`` (jupytext "percent" format: ``# %%`` code cells,
``# %% [markdown]`` prose) is the source; ``NN_name.ipynb`` beside it is generated,
without outputs and with stable cell ids, so that it diffs cleanly.  Both are
committed: a teacher downloads the notebook and runs it, the repository reviews the
``.py``.  ``tests/test_docs.py`` checks that they agree.  The two are paired
(``formats: ipynb,py:percent`` in the header), so editing either in Jupyter with
jupytext installed updates both; run this script before committing to strip outputs.
"""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TUTORIALS = ROOT / "docs" / "tutorials"


def notebook(source: Path):
    """The notebook of a percent-format script: no outputs, cell ids cell-0, cell-1..."""
    import jupytext

    nb = jupytext.read(source, fmt="py:percent")
    for i, cell in enumerate(nb.cells):
        cell.id = f"cell-{i}"
        cell.metadata = {}
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    return nb


def render(source: Path) -> str:
    """The .ipynb text written for ``source``."""
    import jupytext

    return jupytext.writes(notebook(source), fmt="ipynb")


def cells(nb) -> list[tuple[str, str]]:
    """What must agree between a script and its notebook: each cell's type and text."""
    return [(cell.cell_type, cell.source.rstrip("\n")) for cell in nb.cells]


def main() -> int:
    sources = sorted(TUTORIALS.glob("*.py"))
    for source in sources:
        target = source.with_suffix(".ipynb")
        text = render(source)
        if not target.exists() or target.read_text() != text:
            target.write_text(text)
            print(f"wrote {target.relative_to(ROOT)}")
    print(f"{len(sources)} notebooks in sync with their scripts")
    return 0


if __name__ == "__main__":
    sys.exit(main())
