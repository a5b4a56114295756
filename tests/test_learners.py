"""The learner registry: one spec per learner, read by the command line and the tests."""

import pytest

from rulekit import cli
from rulekit.learners import LEARNERS, LearnerSpec, register, registered, unregister

from helpers import check_learner_contract


def test_the_built_in_learners_are_registered_by_their_packages():
    assert set(LEARNERS) == {"corels", "frl", "softfrl", "cg", "cg-dnf", "cg-cnf"}
    for name, spec in LEARNERS.items():
        assert spec.name == name and spec.description
    # one warm-up per family: the column-generation forms share their kernels
    assert {n for n, s in LEARNERS.items() if s.warmup is not None} == {"corels", "frl",
                                                                          "softfrl", "cg-dnf"}
    assert {s.demo[0] for s in LEARNERS.values() if s.demo} == {"compas", "bank", "tictactoe"}


def test_the_registry_is_read_only():
    with pytest.raises(TypeError):
        LEARNERS["x"] = LEARNERS["corels"]


def test_a_spec_makes_its_estimator_with_what_it_has():
    est = LEARNERS["cg-cnf"].make(max_complexity=10, c=0.5, w=None)
    assert type(est).__name__ == "BooleanRuleCGClassifier"
    assert est.form == "cnf" and est.max_complexity == 10 and "c" not in est.get_params()


def test_the_command_line_reads_the_registry():
    spec = LearnerSpec("toy", "rulekit.corels:CorelsClassifier", "a toy learner",
                       fixed={"max_card": 1},
                       options={"max_memory": ("--toy-memory", float, "toy: memory")})
    with registered(spec):
        assert "toy" in cli._known_models(baselines=False)
        commands = cli.build_parser()._subparsers._group_actions[0].choices
        fit_help = commands["fit"].format_help()
        assert "toy" in fit_help and "--toy-memory" in fit_help
        est = cli._learner("toy", {"max_memory": 64.0, "c": 0.1})
        assert est.max_card == 1 and est.max_memory == 64.0 and est.c == 0.1
        assert "toy" not in cli._explorable() and "toy" not in cli._compilable()
    assert "toy" not in LEARNERS
    assert all(flag != "--toy-memory" for flag, _, _ in cli.options().values())


def test_register_refuses_a_taken_name_and_a_clashing_option():
    taken = LearnerSpec("corels", "rulekit.frl:FallingRuleListClassifier", "another")
    with pytest.raises(ValueError, match="already registered"):
        register(taken)
    clash = LearnerSpec("clash", "rulekit.corels:CorelsClassifier", "clash",
                        options={"c": ("--c-again", float, "clash")})
    with pytest.raises(ValueError, match="--corels-c"):
        register(clash)
    with pytest.raises(TypeError):
        register("corels")
    assert "clash" not in LEARNERS and LEARNERS["corels"].description != "another"


def test_registered_leaves_specs_it_did_not_add():
    with registered(LEARNERS["corels"]):
        pass
    assert "corels" in LEARNERS
    unregister("not-a-learner")


def test_a_registered_learner_passes_the_contract_checks():
    spec = LearnerSpec("toy-frl", "rulekit.frl:FallingRuleListClassifier", "toy",
                       warmup={"n_iter": 5})
    with registered(spec):
        check_learner_contract(LEARNERS["toy-frl"])
    broken = LearnerSpec("broken", "rulekit.frl:FallingRuleListClassifier", "broken",
                         warmup={"no_such_parameter": 1})
    with pytest.raises(AssertionError, match="no_such_parameter"):
        check_learner_contract(broken)
