import subprocess
import sys


def run(*args):
    return subprocess.run([sys.executable, "-m", "rulekit.cli", *args], capture_output=True, text=True, timeout=300)


def test_datasets_lists_every_bundled_dataset():
    out = run("datasets")
    assert out.returncode == 0
    for name in ("compas", "fico", "tictactoe", "mushroom", "bank_marketing", "adult", "monks", "heart"):
        assert name in out.stdout


def test_demo_prints_conditions_and_antecedents():
    out = run("demo", "compas")
    assert out.returncode == 0, out.stderr
    assert "sex == Male" in out.stdout
    assert "antecedents mined" in out.stdout


def test_unknown_command_is_one_line_error():
    out = run("demo", "iris")
    assert out.returncode != 0
    assert "Traceback" not in out.stderr and "invalid choice" in out.stderr
