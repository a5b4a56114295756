"""The CORELS search compiles each of its kernels once (issue 37: the cold first run).

numba compiles a kernel once per argument types, and a constant argument (``True``,
``0``) is a type of its own: ``run`` calling ``expand(..., p, False)`` for the root and
``expand(..., c, True)`` for a child, with ``p`` an int32 and ``c`` an int64, compiled
``expand`` and everything under it twice, a quarter of the cold demo's CPU.  A fresh
process with an empty cache fits once and reports how many specializations each kernel
got; kernels inlined into ``run`` get none of their own.
"""

import json
import os
import subprocess
import sys

import pytest

CODE = """
import json, warnings
from numba.core.registry import CPUDispatcher
from rulekit import CorelsClassifier
from rulekit.corels import _kernels
from rulekit.learners import warmup_data
X, y = warmup_data()
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    CorelsClassifier(c=0.05, max_card=2).fit(X, y)
print(json.dumps({name: len(obj.signatures) for name, obj in vars(_kernels).items()
                  if isinstance(obj, CPUDispatcher)}))
"""


@pytest.mark.slow  # a new process compiling the CORELS kernels cold: about a minute of CPU
def test_a_fit_compiles_each_search_kernel_once(tmp_path):
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}
    out = subprocess.run([sys.executable, "-c", CODE], env=env, capture_output=True, text=True,
                         timeout=1800)
    assert out.returncode == 0, out.stderr
    counts = json.loads(out.stdout.strip().splitlines()[-1])
    assert counts["run"] == 1
    # one caller each: compiled inside run, never as kernels of their own
    for name in ("expand", "build_child", "garbage_collect"):
        assert counts[name] == 0, (name, counts)
    # the big kernels under run: once (the untraced search)
    for name in ("_evaluate_children", "_store_children", "next_rule_excess_at_least",
                 "map_find"):
        assert counts[name] == 1, (name, counts)
