"""CI: execute notebooks in a kernel of this Python; fail when any cell fails.

Usage: python .ci/run_notebooks.py NOTEBOOK.ipynb ...   (run from the folder the
       notebooks should write their files to; needs the ``docs`` extra:
       nbclient, nbformat, ipykernel)

Each notebook runs top to bottom in a fresh kernel (ipykernel of this interpreter,
checked by a first cell that compares ``sys.prefix``), with the environment of this
process (so ``RULEKIT_TUTORIAL_QUICK=1`` reaches it), in the current folder.  The
first failing cell stops it: its error is printed and the exit status is 1.
``--self-test`` first checks that a notebook with a failing cell is reported as
failing, so a green run means something.
"""

import sys
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

CHECK = f"import sys\nassert sys.prefix == {sys.prefix!r}, ('the kernel runs another Python', sys.prefix)"


def execute(nb, cwd: Path) -> None:
    """Run every cell of ``nb`` in a fresh kernel of this interpreter; raise on the first error."""
    nb.cells.insert(0, nbformat.v4.new_code_cell(CHECK))
    NotebookClient(nb, timeout=900, kernel_name="python3",
                   resources={"metadata": {"path": str(cwd)}}).execute()


def self_test(cwd: Path) -> None:
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("x = 1"), nbformat.v4.new_code_cell("assert x == 2, 'meant to fail'")]
    try:
        execute(nb, cwd)
    except CellExecutionError as error:
        assert "meant to fail" in str(error)
        print("self-test: a failing cell fails the run")
        return
    raise SystemExit("self-test: a notebook with a failing cell ran without error")


def main(argv: list[str]) -> int:
    cwd = Path.cwd()
    if argv[:1] == ["--self-test"]:
        self_test(cwd)
        argv = argv[1:]
    failed = []
    for name in argv:
        path = Path(name)
        nb = nbformat.read(path, as_version=4)
        start, cpu = time.perf_counter(), time.process_time()
        try:
            execute(nb, cwd)
        except CellExecutionError as error:
            print(f"notebook {path.stem}: a cell failed\n{error}", file=sys.stderr)
            failed.append(path.stem)
            continue
        code = sum(cell.cell_type == "code" for cell in nb.cells) - 1
        print(f"notebook {path.stem}: ok, {code} code cells ({time.perf_counter() - start:.0f} s)")
        nbformat.write(nb, cwd / path.name)  # executed copy, with outputs, for a look
    if failed:
        print(f"{len(failed)} notebook(s) failed: {', '.join(failed)}", file=sys.stderr)
        return 1
    if not argv:
        print("no notebook given", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
