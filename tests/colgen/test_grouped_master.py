"""The master LP solved over groups of alike positive rows (issue 35, column generation at scale).

:class:`rulekit.colgen._grouped.GroupedMasterLP` claims the value and an
optimal dual of the whole restricted master LP.  Each claim is checked
against the LP written out here in full, row by row from the paper's
formulation (Dash, Günlük and Wei 2018, §2.2), and solved by
``scipy.optimize.linprog``; the duals are checked for feasibility and for
strong duality with the test's own arithmetic.
"""

from fractions import Fraction

import numpy as np
import pytest
from scipy.optimize import linprog

from rulekit.colgen import ColGenSettings, search
from rulekit.colgen._grouped import GroupedMasterLP
from rulekit.colgen._master import LPTimeLimit, MasterLP
from rulekit.evaluate import all_of

from test_certify_bound import brute_force, noisy, paper_objective


def instance(seed, U=60, K=25, budget=True):
    """Distinct rows with whole weights, and clauses (masks) with their literal counts."""
    rng = np.random.default_rng(seed)
    wp = rng.integers(0, 4, U).astype(float)
    wq = rng.integers(0, 4, U).astype(float)
    wp[rng.random(U) < 0.3] = 0.0
    wp[0] = 1.0
    # clauses over a few base conditions, so that rows group and clauses nest
    base = rng.random((U, 6)) < 0.5
    masks, lits = [], []
    for _ in range(K):
        n = int(rng.integers(1, 4))
        cols = rng.choice(6, size=n, replace=False)
        masks.append(base[:, cols].all(axis=1))
        lits.append(n)
    C = float(rng.integers(4, 12)) if budget else None
    lam0, lam1 = float(rng.choice([0.0, 0.5])), float(rng.choice([0.0, 0.25]))
    return wp, wq, masks, lits, C, lam0, lam1


def full_lp(wp, wq, masks, lits, C, lam0, lam1):
    """The restricted master LP over every positive row, solved by linprog: its value."""
    pos = np.flatnonzero(wp > 0)
    K = len(masks)
    cost = np.array([wq[m].sum() + lam0 + lam1 * n for m, n in zip(masks, lits)])
    # variables: xi (one per positive row), then w (one per clause)
    c = np.r_[wp[pos], cost]
    # xi_u + sum_k A[u, k] w_k >= 1, written as <= for linprog
    A = np.zeros((pos.size, pos.size + K))
    A[np.arange(pos.size), np.arange(pos.size)] = -1.0
    for k, m in enumerate(masks):
        A[:, pos.size + k] = -m[pos].astype(float)
    b = -np.ones(pos.size)
    if C is not None:
        A = np.vstack([A, np.r_[np.zeros(pos.size), [1.0 + n for n in lits]]])
        b = np.r_[b, C]
    res = linprog(c, A_ub=A, b_ub=b, bounds=(0, None), method="highs")
    assert res.status == 0
    return res.fun


def check_answer(wp, wq, masks, lits, C, lam0, lam1, z, mu, lam, w, eps=1e-6):
    """Primal and dual feasibility and equal values, by the test's own sums."""
    cost = np.array([wq[m].sum() + lam0 + lam1 * n for m, n in zip(masks, lits)])
    size = np.array([1.0 + n for n in lits])
    # primal: the clauses' weights, every row's slack the least it can be
    assert np.all(w >= -1e-9)
    if C is not None:
        assert size @ w <= C + 1e-7
    cover = np.array([w[k] * masks[k] for k in range(len(masks))]).sum(axis=0)
    primal = float(wp @ np.maximum(0.0, 1.0 - cover) + cost @ w)
    assert primal == pytest.approx(z, rel=1e-7, abs=1e-7)
    # dual: 0 <= mu_u <= wp_u, every clause's reduced cost >= -eps, value equal
    assert np.all(mu >= 0) and np.all(mu <= wp + 1e-9)
    assert lam >= 0
    for k, m in enumerate(masks):
        assert cost[k] - mu[m].sum() + lam * size[k] >= -eps - 1e-7, k
    dual = mu.sum() - (C * lam if C is not None else 0.0)
    assert dual == pytest.approx(z, rel=1e-7, abs=1e-7)


@pytest.mark.parametrize("budget", [True, False])
def test_grouped_lp_is_the_full_lp(budget):
    for seed in range(12):
        wp, wq, masks, lits, C, lam0, lam1 = instance(seed, budget=budget)
        g = GroupedMasterLP(wp, wq, C, lam0, lam1)
        for m, n in zip(masks, lits):
            g.add_column(m, n)
        z, mu, lam, w = g.solve(None)
        assert z == pytest.approx(full_lp(wp, wq, masks, lits, C, lam0, lam1),
                                  rel=1e-7, abs=1e-7), seed
        check_answer(wp, wq, masks, lits, C, lam0, lam1, z, mu, lam, w)


@pytest.mark.parametrize("rebuild", [False, True])
def test_columns_added_between_solves_and_a_new_budget(rebuild, monkeypatch):
    """Round after round, as column generation calls it; the full master agrees,
    whether the grouped LP is kept from solve to solve or made anew each time."""
    import rulekit.colgen._grouped as grouped

    if rebuild:
        monkeypatch.setattr(grouped, "REBUILD_MIN_GROUPS", 1)
        monkeypatch.setattr(grouped, "REBUILD_GROWTH", 1.0)
    made = []
    build = GroupedMasterLP._build
    monkeypatch.setattr(GroupedMasterLP, "_build", lambda self: made.append(1) or build(self))
    for seed in range(6):
        wp, wq, masks, lits, C, lam0, lam1 = instance(seed + 100, K=30)
        g = GroupedMasterLP(wp, wq, C, lam0, lam1)
        full = MasterLP(wp, wq, C, lam0, lam1, solver="highs")
        for start in range(0, 30, 6):
            for m, n in zip(masks[start:start + 6], lits[start:start + 6]):
                g.add_column(m, n)
                full.add_column(m, n)
            z, mu, lam, w = g.solve(None)
            assert z == pytest.approx(full.solve(None)[0], rel=1e-7, abs=1e-7)
            check_answer(wp, wq, masks[:start + 6], lits[:start + 6], C, lam0, lam1,
                         z, mu, lam, w)
        g.set_budget(C + 3)
        full.set_budget(C + 3)
        z, mu, lam, w = g.solve(None)
        assert z == pytest.approx(full.solve(None)[0], rel=1e-7, abs=1e-7)
        check_answer(wp, wq, masks, lits, C + 3, lam0, lam1, z, mu, lam, w)
    # six solves per seed: made once per seed, or (nearly) every time
    assert len(made) == 6 if not rebuild else len(made) > 6 * 3


def test_a_solve_after_new_clauses_alone_prices_only_them(monkeypatch):
    """Clauses added to an LP that is as its last check left it are priced against its
    last answer, without HiGHS: when none of them prices out, the answer stands (and
    is the full master's); when one does, it joins and HiGHS runs again. A new budget
    changes the LP: HiGHS runs again."""
    import rulekit.colgen._grouped as grouped

    runs, summed = [], []
    run, sums = GroupedMasterLP._run, grouped._sums
    monkeypatch.setattr(GroupedMasterLP, "_run", lambda self, c: runs.append(1) or run(self, c))
    monkeypatch.setattr(grouped, "_sums",
                        lambda v, bits, which: summed.extend(which.tolist()) or sums(v, bits, which))
    for seed in range(8):
        wp, wq, masks, lits, C, lam0, lam1 = instance(seed + 300, K=20)
        g = GroupedMasterLP(wp, wq, C, lam0, lam1)
        for m, n in zip(masks, lits):
            g.add_column(m, n)
        g.solve(None)
        # one clause that cannot price out (one negative row, no positive row) and
        # one that may (every positive row)
        lone = np.zeros_like(wp, dtype=bool)
        lone[np.flatnonzero(wq > 0)[0]] = True
        everything = wp > 0
        del runs[:], summed[:]
        g.add_column(lone, 1)
        z, mu, lam, w = g.solve(None)
        assert runs == [] and set(summed) <= {20}       # no HiGHS, no old clause priced
        check_answer(wp, wq, masks + [lone], lits + [1], C, lam0, lam1, z, mu, lam, w)
        del summed[:]
        g.add_column(everything, 1)
        cols, lits2 = masks + [lone, everything], lits + [1, 1]
        z, mu, lam, w = g.solve(None)
        assert 21 in summed or g._reach[21] <= g.costs[21]
        assert z == pytest.approx(full_lp(wp, wq, cols, lits2, C, lam0, lam1),
                                  rel=1e-7, abs=1e-7)
        check_answer(wp, wq, cols, lits2, C, lam0, lam1, z, mu, lam, w)
        if C is not None:
            del runs[:]
            g.set_budget(C + 2)
            z, mu, lam, w = g.solve(None)
            assert runs
            assert z == pytest.approx(full_lp(wp, wq, cols, lits2, C + 2, lam0, lam1),
                                      rel=1e-7, abs=1e-7)
            check_answer(wp, wq, cols, lits2, C + 2, lam0, lam1, z, mu, lam, w)


def test_rows_group_when_clauses_agree():
    """The point of it: far fewer LP rows than positive rows when clauses agree."""
    rng = np.random.default_rng(5)
    U = 4000
    base = rng.random((U, 5)) < 0.5
    wp = rng.integers(1, 3, U).astype(float)
    wq = rng.integers(0, 3, U).astype(float)
    g = GroupedMasterLP(wp, wq, 20, 0.0, 0.0)
    for j in range(5):
        g.add_column(base[:, j], 1)
    g.solve(None)
    assert g.n_groups <= 2 ** 5 < U


@pytest.mark.parametrize("n_clauses", [1, 5, 16, 17, 40])
def test_groups_split_by_clauses_are_the_rows_alike_under_every_clause(n_clauses):
    """_refine reads each clause's bits straight into the rows' keys: two positive rows
    share a group exactly when every clause given (and the groups before) treat them
    alike, for a number of rows that leaves a part byte and chunks of 16 clauses."""
    rng = np.random.default_rng(n_clauses)
    U = 203
    masks = rng.random((n_clauses, U)) < rng.uniform(0.05, 0.9, size=(n_clauses, 1))
    g = GroupedMasterLP(np.ones(U), np.zeros(U), 20, 0.0, 0.0)
    for m in masks:
        g.add_column(m, 1)
    before = rng.integers(0, 3, size=U).astype(np.int64)
    gid, n_groups = g._refine(before, list(range(n_clauses)))
    patterns = np.column_stack([before, masks.T])
    _, want = np.unique(patterns, axis=0, return_inverse=True)
    assert n_groups == want.max() + 1 == gid.max() + 1
    # the same partition of the rows: one group for one pattern, both ways
    pairs = np.unique(np.column_stack([gid, want.reshape(-1)]), axis=0)
    assert len(pairs) == n_groups


def test_a_stop_raises_the_time_limit():
    wp, wq, masks, lits, C, lam0, lam1 = instance(3)
    g = GroupedMasterLP(wp, wq, C, lam0, lam1, should_stop=lambda: True)
    for m, n in zip(masks, lits):
        g.add_column(m, n)
    with pytest.raises(LPTimeLimit):
        g.solve(None)
    g = GroupedMasterLP(wp, wq, C, lam0, lam1)
    for m, n in zip(masks, lits):
        g.add_column(m, n)
    with pytest.raises(LPTimeLimit):
        g.solve(0.0)


GROUPED = ColGenSettings(group_min_rows=0)


@pytest.mark.parametrize("form", ["dnf", "cnf"])
def test_search_on_the_grouped_master_holds_against_brute_force(form):
    """Column generation with the grouped master on every instance: the objective is
    the rule set's, and the bound is below the brute-force optimum."""
    for seed in range(5):
        B, y = noisy(seed + 40, n=14, d=4)
        w = np.random.default_rng(seed).integers(1, 4, len(y)).astype(float)
        for C, D in ((4, 2), (6, 3)):
            res = search(B, y, form=form, max_complexity=C, max_literals=D, sample_weight=w,
                         settings=GROUPED)
            opt = brute_force(B, y, w, C, D, form)
            got = paper_objective(B, y, w, res.clauses, form)
            assert Fraction(res.objective).limit_denominator() == got >= opt
            assert res.lower_bound is not None
            assert Fraction(res.lower_bound).limit_denominator() <= opt, (seed, C, D)
            # the first master LP (over the same seeded clauses) has one value,
            # however it is solved
            full = search(B, y, form=form, max_complexity=C, max_literals=D,
                          sample_weight=w)
            assert res.trace[0].rmlp == pytest.approx(full.trace[0].rmlp, rel=1e-7, abs=1e-7)


@pytest.mark.parametrize("form", ["dnf", "cnf"])
def test_the_grouped_master_is_certified_at_the_last_rounds_duals(form, monkeypatch):
    """A run on the grouped master ended by its round limit prices the last round's
    duals without solving the master again. Its bound still holds against brute force
    (any duals bound the master LP), and it does not claim the master LP solved: the
    last round's clauses price out at those duals."""
    solves = []
    solve = GroupedMasterLP.solve
    monkeypatch.setattr(GroupedMasterLP, "solve",
                        lambda self, t: solves.append(1) or solve(self, t))
    settings = ColGenSettings(group_min_rows=0, max_rounds=1, initial_beam=False)
    priced, raised = 0, 0
    for seed in range(12):
        B, y = noisy(seed + 60, n=14, d=4)
        w = np.random.default_rng(seed).integers(1, 4, len(y)).astype(float)
        del solves[:]
        res = search(B, y, form=form, max_complexity=6, max_literals=3, sample_weight=w,
                     settings=settings)
        assert len(solves) == 1                        # the round's, none to certify
        opt = brute_force(B, y, w, 6, 3, form)
        assert Fraction(res.objective).limit_denominator() == paper_objective(
            B, y, w, res.clauses, form) >= opt
        assert res.lower_bound is not None
        assert Fraction(res.lower_bound).limit_denominator() <= opt, seed
        first = res.trace[0]
        if first.n_added > 0 and first.rmlp > 0:
            priced += 1
            raised += res.lower_bound > 0
            assert not res.lp_proven
    assert priced >= 8 and raised >= priced // 2


def test_the_grouped_master_is_used_only_above_group_min_rows(monkeypatch):
    import rulekit.colgen._search as s

    used = []
    real = s.GroupedMasterLP

    def spy(*a, **k):
        used.append(True)
        return real(*a, **k)

    monkeypatch.setattr(s, "GroupedMasterLP", spy)
    B, y = noisy(7, n=40, d=5)
    search(B, y, max_complexity=6, max_literals=2)
    assert not used
    search(B, y, max_complexity=6, max_literals=2, settings=GROUPED)
    assert used


def test_clause_sums_from_bits_are_the_sums_of_the_covered_rows(monkeypatch):
    """Each clause's sum of the values over the rows its bits cover, to within the
    rounding of a float64 sum (against math.fsum, exact), for any clauses in any order,
    in blocks of bytes that end inside the rows and past them."""
    import math

    import rulekit.colgen._grouped as grouped

    rng = np.random.default_rng(0)
    for n in (1, 7, 50, 129, 1000, 20_000, 70_001):
        values = rng.normal(size=n) * 10.0 ** rng.integers(-3, 4, size=n)
        masks = rng.random((30, n)) < rng.uniform(0, 1, size=(30, 1))
        masks[3] = False
        masks[4] = True
        want = np.array([math.fsum(values[m].tolist()) for m in masks])
        scale = np.array([np.abs(values[m]).sum() for m in masks])
        got = grouped._sums(values, np.packbits(masks, axis=1), np.arange(30))
        assert np.all(np.abs(got - want) <= 1e-13 * scale)
        assert got[3] == 0.0
        # some clauses only, in any order: the same numbers
        which = np.array([29, 3, 0, 17])
        np.testing.assert_array_equal(
            grouped._sums(values, np.packbits(masks, axis=1), which), got[which])


def test_clause_masks_read_as_the_masks():
    """Masks kept as their clauses read as the masks of the rows the clauses cover."""
    from rulekit.colgen._master import ClauseMasks, ColumnMasks
    from rulekit.colgen._packed import PackedRows

    rng = np.random.default_rng(1)
    B = rng.random((77, 9)) < 0.6
    clauses = [(0,), (1, 4), (2, 3, 8), (5, 6, 7, 0), ()]
    masks = [all_of(B, c) for c in clauses]
    assert 0 < masks[2].sum() < 77
    kept = ClauseMasks(PackedRows.of_rows(B, np.arange(77)))
    for c in clauses:
        kept.append(list(c))
    assert len(kept) == 5 and kept.clauses[1] == (1, 4)
    for a, b in zip(kept, masks):
        assert a.dtype == bool and np.array_equal(a, b)
    A, M = ColumnMasks(kept, 77), ColumnMasks(masks, 77)
    assert np.array_equal(A[:, [2, 0]], M[:, [2, 0]])
    assert np.array_equal(A[np.arange(0, 77, 5)], M[np.arange(0, 77, 5)])


def test_large_problems_read_the_same_rows_from_packed_conditions(monkeypatch):
    """Problem.mask and the packed clause masks give the same search as the plain ones."""
    import rulekit.colgen._search as s

    B, y = noisy(11, n=300, d=8)
    plain = search(B, y, max_complexity=10, max_literals=3, settings=GROUPED)
    monkeypatch.setattr(s, "PACKED_MASK_ROWS", 1)
    packed = search(B, y, max_complexity=10, max_literals=3, settings=GROUPED)
    assert packed.clauses == plain.clauses
    assert packed.objective == plain.objective and packed.lower_bound == plain.lower_bound


def test_clause_rows_are_kept_a_bit_per_row_with_room_to_spare():
    """Each clause's positive rows read back as its mask over them; the bits take an
    eighth of a byte per row, and clauses join into room to spare (doubling)."""
    rng = np.random.default_rng(5)
    U = 400
    wp = rng.integers(0, 3, U).astype(float)
    wq = rng.integers(0, 3, U).astype(float)
    lp = GroupedMasterLP(wp, wq, 10.0, 0.0, 0.0)
    masks, bufs = [], []
    for batch in (40, 1, 1, 3, 1, 60, 1):
        for _ in range(batch):
            m = rng.random(U) < rng.uniform(0.05, 0.9)
            masks.append(m)
            lp.add_column(m, int(rng.integers(1, 4)))
        bufs.append(lp._bits)
        for k, m in enumerate(masks):
            np.testing.assert_array_equal(lp._rows(k), m[lp.pos_rows])
    assert lp._bits.shape[1] == -(-lp.n_cover // 8)
    # single clauses after the first batch fit in the room left: no new buffer each time
    assert bufs[1] is bufs[2]
    assert len({id(b) for b in bufs}) <= 4


def test_a_solved_grouped_lp_is_freed_with_its_model():
    """The HiGHS model kept between solves holds its interrupt callback where the garbage
    collector cannot see it; the callback must not keep the LP (and the search) alive."""
    import gc
    import weakref

    wp, wq, masks, lits, C, lam0, lam1 = instance(7)
    stops = []
    g = GroupedMasterLP(wp, wq, C, lam0, lam1, should_stop=lambda: stops.append(1) and False)
    for m, n in zip(masks, lits):
        g.add_column(m, n)
    g.solve(None)
    assert g._h is not None
    ref = weakref.ref(g)
    del g
    gc.collect()
    assert ref() is None


@pytest.mark.parametrize("per_key", [4, 0])
def test_groups_split_by_a_table_of_keys_are_numbered_as_sorting_numbers_them(per_key,
                                                                              monkeypatch):
    """The ranks of the keys (through the table of keys present, or through a sort when
    the table would be large) are numpy.unique's, and each group's first row is the first
    row where its number appears."""
    import rulekit.colgen._grouped as grouped

    monkeypatch.setattr(grouped, "RANK_TABLE_PER_KEY", per_key)
    rng = np.random.default_rng(per_key)
    for n, bound in ((1, 1), (50, 7), (100_000, 300_000), (70_000, 1 << 16)):
        key = rng.integers(0, bound, size=n)
        want_keys, want_first, want = np.unique(key, return_index=True, return_inverse=True)
        got = grouped._dense_ranks(key, bound)
        assert got.dtype == np.int64
        np.testing.assert_array_equal(got, want.reshape(-1))
        np.testing.assert_array_equal(grouped._first_rows(got, want_keys.size), want_first)


def test_a_subset_of_clause_masks_reads_its_clauses_in_order():
    from rulekit.colgen._master import ClauseMasks
    from rulekit.colgen._packed import PackedRows

    rng = np.random.default_rng(3)
    B = rng.random((90, 6)) < 0.5
    kept = ClauseMasks(PackedRows.of_rows(B, np.arange(90)))
    for c in [(0,), (1, 2), (3, 4, 5), (0, 5)]:
        kept.append(c)
    sub = kept.subset([3, 1])
    assert len(sub) == 2 and len(kept) == 4
    np.testing.assert_array_equal(sub[0], all_of(B, (0, 5)))
    np.testing.assert_array_equal(sub[1], all_of(B, (1, 2)))


def _reduced_costs(h, y):
    """Each column's ``c_j - y . a_j`` by the test's own sums over HiGHS's matrix."""
    lp = h.getLp()
    a = lp.a_matrix_
    start, index, value = (np.asarray(a.start_, dtype=np.int64),
                           np.asarray(a.index_, dtype=np.int64),
                           np.asarray(a.value_))
    d = np.asarray(lp.col_cost_, dtype=float).copy()
    for j in range(lp.num_col_):
        rows = index[start[j]:start[j + 1]]
        d[j] -= float(np.dot(y[rows], value[start[j]:start[j + 1]]))
    return d


def test_split_groups_start_where_their_parents_stood():
    """A check that splits the groups keeps the last basis dual feasible: each new
    group's column is, in the LP's rows so far, its parent's, so it takes its parent's
    bound (a basic parent's reduced cost is 0, and either bound is dual feasible). The
    warm solve then only repairs the rows that join; with the solver's default (every
    new column at its lower bound), the children of a parent at its upper bound priced
    in the wrong direction and the simplex began infeasible both ways."""
    import highspy

    S = highspy.HighsBasisStatus
    checked = 0
    for seed in range(12):
        wp, wq, masks, lits, C, lam0, lam1 = instance(seed + 300, U=240, K=30)
        g = GroupedMasterLP(wp, wq, C, lam0, lam1)
        for m, n in zip(masks[:12], lits[:12]):
            g.add_column(m, n)
        g.solve(None)
        y = np.asarray(g._h.getSolution().row_dual, dtype=float)
        for m, n in zip(masks[12:], lits[12:]):
            g.add_column(m, n)
        size = np.bincount(g._gid, minlength=g.n_groups)
        loose = [k for k in range(12, 30) if not g._compatible(k, g._gid, size)]
        if not loose:
            continue
        before = g.n_groups
        g._split(loose[:2])
        assert g.n_groups > before
        status = g._h.getBasis().col_status
        d = _reduced_costs(g._h, y)
        for j, st in enumerate(status):
            # a maximisation: at the lower bound d <= 0, at the upper bound d >= 0
            if st == S.kLower:
                assert d[j] <= 1e-7, (seed, j)
            elif st == S.kUpper:
                assert d[j] >= -1e-7, (seed, j)
        checked += 1
        # and the solve from there is still the whole master LP's
        z, mu, lam, w = g.solve(None)
        assert z == pytest.approx(full_lp(wp, wq, masks, lits, C, lam0, lam1),
                                  rel=1e-7, abs=1e-7), seed
        check_answer(wp, wq, masks, lits, C, lam0, lam1, z, mu, lam, w)
    assert checked >= 6


def test_a_clause_that_cannot_price_out_is_not_summed(monkeypatch):
    """A clause costs at least the negatives it covers; its covered duals sum to at most
    the positive weight it covers (``mu_u <= wp_u``). When the cost is already that
    much, the check does not read its rows, and the answer is still the whole LP's."""
    import rulekit.colgen._grouped as grouped

    summed = []
    sums = grouped._sums
    monkeypatch.setattr(grouped, "_sums",
                        lambda v, bits, which: summed.extend(which.tolist()) or sums(v, bits,
                                                                                      which))
    skipped = 0
    for seed in range(8):
        wp, wq, masks, lits, C, lam0, lam1 = instance(seed + 500, U=120, K=30)
        # clauses that cover more negative weight than positive weight
        rng = np.random.default_rng(seed)
        for _ in range(5):
            m = (wq > wp) & (rng.random(wp.size) < 0.7)
            masks.append(m)
            lits.append(1)
        g = GroupedMasterLP(wp, wq, C, lam0, lam1)
        for m, n in zip(masks, lits):
            g.add_column(m, n)
        for k, m in enumerate(masks):
            assert g._reach[k] == pytest.approx(wp[m].sum())
        summed.clear()
        z, mu, lam, w = g.solve(None)
        assert z == pytest.approx(full_lp(wp, wq, masks, lits, C, lam0, lam1),
                                  rel=1e-7, abs=1e-7), seed
        check_answer(wp, wq, masks, lits, C, lam0, lam1, z, mu, lam, w)
        hopeless = {k for k, m in enumerate(masks)
                    if wq[m].sum() + lam0 + lam1 * lits[k] >= wp[m].sum() and m.any()}
        assert not hopeless & set(summed), seed
        skipped += len(hopeless)
    assert skipped >= 8
