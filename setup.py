"""The build step that compiles the search kernels into the package (``rulekit/_precompile.py``).

Everything else about the package is in ``pyproject.toml``.  After the usual
``build_py``, the kernels a default fit calls are compiled into ``__pycache__``
beside their sources, in the tree being built: the wheel carries them, so the
installed package's first fit does not compile (issue 37, the cold first demo).
``RULEKIT_PRECOMPILE=0`` skips it.  A failure is reported and does not fail the
build: the kernels then compile on first use, as they would without this step.
"""

import importlib.util
import os
import subprocess
import sys
import time

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = os.path.dirname(os.path.abspath(__file__))


def _parts(script):
    """The script's parts (its ``PARTS``; its import needs nothing but the standard library)."""
    spec = importlib.util.spec_from_file_location("_rulekit_precompile", script)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.PARTS


class build_py_and_compile(build_py):
    """``build_py``, then the kernels compiled into the built tree."""

    def run(self):
        super().run()
        if os.environ.get("RULEKIT_PRECOMPILE", "1") == "0" or self.dry_run:
            return
        # an editable install imports the checkout itself: its cache goes there
        tree = ROOT if getattr(self, "editable_mode", False) else os.path.abspath(self.build_lib)
        script = os.path.join(tree, "rulekit", "_precompile.py")
        # numba writes beside the sources only when no cache folder is named
        env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
        start = time.perf_counter()
        print("compiling the search kernels into the package (about 75 CPU s; "
              "RULEKIT_PRECOMPILE=0 skips it)", flush=True)
        procs = [subprocess.Popen([sys.executable, script, tree, part], env=env)
                 for part in _parts(script)]
        failed = [p.args[-1] for p in procs if p.wait() != 0]
        if failed:
            print(f"warning: could not compile the kernels of {', '.join(failed)} at build time; "
                  "they will compile on first use", file=sys.stderr, flush=True)
        else:
            print(f"compiled in {time.perf_counter() - start:.0f} s", flush=True)


setup(cmdclass={"build_py": build_py_and_compile})
