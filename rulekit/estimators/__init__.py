"""The estimator layer: the scikit-learn estimators around the engines.

One module per learner (``corels``, ``frl``, ``colgen``), plus what CORELS's
estimator works with around its engine: ``corels_auto`` (the default ``c``,
chosen along a certified path by cross-validation on folds the estimator
draws) and ``corels_rashomon_set`` (the :class:`RashomonSet` an estimator
returns, with its tables and plots).  The engines they drive live in
``rulekit/corels/``, ``rulekit/frl/`` and ``rulekit/colgen/`` and import
nothing from here; the public names are imported from the learner packages
(``from rulekit.corels import CorelsClassifier``), whose ``__init__`` is the
application layer.  This ``__init__`` imports nothing, so that loading one
estimator does not load the others' engines.
"""
