"""Objective, penalties and prefix bounds of (softly) falling rule lists.

Chen & Rudin, "An Optimization Approach to Learning Falling Rule Lists",
AISTATS 2018: the weighted risk and objective of Program 2.9 (Section 2,
Eq. 4; Theorem 2.8 for the threshold), the falling prefix bound and early
stop (Section 4, Theorem 4.6, Eq. 8 and 9), the softly falling objective and
its bound (Section 5, Program 5.1, Theorem 5.2, Eq. 10) and the curiosity
functions of the searches (Appendices A and B, Eq. 11 and 12).  The
functions are small, scalar and written in plain Python arithmetic, so that

* tests can call them with :class:`fractions.Fraction` arguments and check the
  worked example exactly (the soft bound's analytic infimum needs a square root
  and returns floats);
  (hence the ``+ 0 * w`` here and there: it gives an integer the type of a
  parameter, so Fractions stay Fractions and floats stay floats);
* the search kernels use *compiled twins of the very same source*
  (``numba.njit`` applied to these functions in :mod:`._kernels`), so what the
  tests check is what the search runs.

Conventions: ``n`` is the number of training rows, ``w`` the weight of a
positive row (false negative cost), ``C`` the cost per rule, ``C1`` the weight
of the monotonicity penalty.  A "group" is the set of rows one rule (or the
else clause) captures, given by its positive / negative counts.  Proportions
(``alpha``) are positive proportions ``n_pos / (n_pos + n_neg)``.
"""

from __future__ import annotations

import math

from rulekit._tolerances import G_SKIP_MARGIN

__all__ = [
    "risk_numerator",
    "rule_risk",
    "list_objective",
    "monotonicity_penalty",
    "running_minimum",
    "frl_prefix_bound",
    "frl_should_stop",
    "soft_bound_terms",
    "soft_g_floor",
    "soft_floor_constants",
    "soft_terms_above",
    "soft_prefix_bound",
    "soft_should_stop",
    "frl_curiosity",
    "soft_curiosity",
]


def risk_numerator(n_pos, n_neg, w):
    """``n`` times the risk of one compatible group: ``min(w*n_pos, n_neg)``.

    The group predicts 1 iff its proportion exceeds ``tau = 1/(1+w)``, which
    for integer counts is ``w*n_pos > n_neg``; it then pays one unit per
    negative row, otherwise ``w`` per positive row.
    """
    if w * n_pos > n_neg:
        return n_neg + 0 * w  # same type as w * n_pos (float, or Fraction in tests)
    return w * n_pos


def rule_risk(n_pos, n_neg, w, n):
    """Risk contribution ``r(n_pos, n_neg)`` of one compatible group (Eq. 4).

    Parameters
    ----------
    n_pos, n_neg : int
        Positive and negative training rows the group captures.
    w : float
        Positive-class weight (``w > 0``); the threshold is ``1/(1+w)``.
    n : int
        Total number of training rows.

    Returns
    -------
    float
        ``min(w*n_pos, n_neg) / n``.
    """
    return risk_numerator(n_pos, n_neg, w) / n


def running_minimum(proportions):
    """Stated probabilities of a softly falling list (Appendix B, the last step of softFRL).

    ``p_j = min_{k <= j} alpha_k``: non-increasing, ``p_0 = alpha_0``,
    identity on lists that already fall.
    """
    out = []
    current = None
    for a in proportions:
        current = a if current is None or a < current else current
        out.append(current)
    return out


def monotonicity_penalty(proportions):
    """Softly falling penalty ``S(d)`` (Program 5.1).

    Each group pays how far its proportion exceeds the running minimum of all
    earlier groups (the first pays nothing).  Pass the prefix's proportions
    for ``S(e)`` or the full list's (else clause last) for ``S(d)``.

    Examples
    --------
    >>> monotonicity_penalty([0.5, 0.2, 0.4, 0.3])  # doctest: +ELLIPSIS
    0.3...
    """
    total = 0
    current = None
    for a in proportions:
        if current is not None and a > current:
            total = total + (a - current)
        if current is None or a < current:
            current = a
    return total


def list_objective(counts, w, C, C1=None):
    """Objective of a compatible rule list from its per-group counts.

    Parameters
    ----------
    counts : sequence of (n_pos, n_neg)
        One pair per rule, in list order, the else clause last.  ``n`` is the
        sum of all counts.  With row weights the counts are sums of weights
        (whole numbers are taken as ints, Fractions stay Fractions).
    w, C : float
        Positive-class weight and cost per rule.
    C1 : float or None
        ``None`` gives the falling objective ``L(d)``; a number gives the
        softly falling objective ``L(d) + C1 * S(d)``.

    Returns
    -------
    float
        ``sum_j min(w n+_j, n-_j) / n + C * K (+ C1 * S)`` with ``K`` rules.
        The sum is formed in list order, exactly as the search forms it, so
        the two agree to the last bit.
    """
    counts = [(_number(a), _number(b)) for a, b in counts]
    if not counts:
        raise ValueError("counts must contain at least the else clause")
    n = sum(a + b for a, b in counts)
    numerator = 0 * w
    for a, b in counts:
        numerator = numerator + risk_numerator(a, b, w)
    value = numerator / n + C * (len(counts) - 1)
    if C1 is not None:
        # (a + 0 * C1) keeps Fractions exact; for floats it is the same division
        props = [(a + 0 * C1) / (a + b) for a, b in counts if a + b > 0]
        value = value + C1 * monotonicity_penalty(props)
    return value


def _number(v):
    """A count as plain Python: whole numbers as int (exact in every type), others kept."""
    if hasattr(v, "item"):          # a numpy scalar
        v = v.item()
    if isinstance(v, float) and v.is_integer():
        return int(v)
    return v


# --- falling rule lists ---------------------------------------------------

def frl_prefix_bound(prefix_objective, alpha_last, rem_pos, rem_neg, w, C, n):
    """Lower bound ``L*(e)`` on any compatible falling list starting with ``e``.

    Theorem 4.6 / Eq. 8: ``L(e) + min((1/a - 1) rem_pos / n + C,
    w rem_pos / n, rem_neg / n)`` where ``a`` is the proportion of the
    prefix's last rule (``1`` for the empty prefix).  The last two terms are
    the cost of closing the list now; the first is the best conceivable single
    extra rule (it takes every remaining positive at precision ``a``).

    Parameters
    ----------
    prefix_objective : float
        ``L(e)`` (risk of the rows the prefix captures plus ``C`` per rule).
    alpha_last : float
        Proportion of the last rule of ``e`` (``1`` for the empty prefix);
        must be ``> 0`` (always true for a feasible FRL prefix).
    rem_pos, rem_neg : int
        Positive / negative rows the prefix leaves uncaptured.
    """
    # Least risk of one more falling rule taking all remaining positives.
    # (Self-contained on purpose: the compiled twin cannot call helpers.)
    if rem_pos == 0:
        extra_rule = C + 0 * w
    elif alpha_last == 0:
        extra_rule = math.inf   # no falling rule can take a positive any more
    else:
        extra_rule = (1 / alpha_last - 1) * rem_pos / n + C
    close_now = min(w * rem_pos, rem_neg + 0 * w) / n
    return prefix_objective + min(extra_rule, close_now)


def frl_should_stop(alpha_last, rem_pos, rem_neg, w, C, n):
    """Early termination test, Eq. 9.

    True when ``C >= min(w rem_pos, rem_neg)/n - (1/alpha_last - 1) rem_pos/n``,
    i.e. when closing the list now attains the prefix bound, so no falling
    completion of the prefix is better than ``e`` followed by the else clause.
    """
    if rem_pos == 0:
        return C >= 0       # a remainder without positives costs nothing
    if alpha_last == 0:
        return False        # not reachable in FRL (alpha > 1/(1+w) > 0)
    return C >= min(w * rem_pos, rem_neg + 0 * w) / n - (1 / alpha_last - 1) * rem_pos / n


# --- softly falling rule lists -------------------------------------------

# G_SKIP_MARGIN (rulekit._tolerances): how far a lower bound must clear a threshold before
# the search skips an exact computation: ``G`` in :func:`soft_bound_terms`, and (relative to
# the threshold) a rule's whole bound before :func:`soft_terms_above` is asked.


def soft_bound_terms(alpha_min, rem_pos, rem_neg, w, C, C1, n, exact_g=True):
    """The three terms ``(B1, G, Tm)`` of the softly falling bound (Eq. 10/44).

    ``soft_prefix_bound = L~(e) + min(B1, G, Tm)``; ``Tm`` is the cost of
    closing the list now (``L~(e + else) - L~(e)``).

    With ``exact_g=False`` (the search) ``G`` is not computed when its lower
    bound ``C + C1 (zeta - alpha_min)`` exceeds ``min(B1, Tm)`` by more than
    :data:`G_SKIP_MARGIN`; that lower bound is returned instead.  Then
    ``min(B1, G, Tm)`` and the test ``Tm <= min(B1, G)`` come out exactly as
    with the exact ``G``, which costs a division and two square roots.

    Parameters
    ----------
    alpha_min : float
        Minimum proportion over the prefix's rules (``1`` for the empty one).
    rem_pos, rem_neg : int
        Uncaptured positives / negatives; their sum must be positive.
    w, C, C1 : float
        Weight, cost per rule, penalty weight.
    n : int
        Number of training rows.

    Returns
    -------
    tuple of float
        ``(B1, G, Tm)``; ``B1`` and ``G`` are ``inf`` for a pure remainder
        (no positives or no negatives left), ``B1`` also when
        ``alpha_min == 0``.
    """
    inf = math.inf
    rem = rem_pos + rem_neg
    alpha_rem = (rem_pos + 0 * w) / rem
    over = alpha_rem - alpha_min
    penalty_now = C1 * over if over > 0 else 0 * C1
    stop_cost = min(w * rem_pos, rem_neg + 0 * w) / n + penalty_now
    if rem_pos == 0 or rem_neg == 0:
        # A pure remainder cannot be split more cheaply than closing it.
        return inf, inf, stop_cost
    # B1: one more rule at proportion alpha_min takes all remaining positives;
    # if the remainder is not below alpha_min the else clause may still pay.
    if alpha_min == 0:
        b1 = inf
    else:
        b1 = (1 / alpha_min - 1) * rem_pos / n + C
        if alpha_rem >= alpha_min:
            b1 = b1 + w * rem_pos / n + penalty_now
    # G: one more rule at a proportion beta above everything so far, paying
    # the penalty C1 (beta - alpha_min); g is convex, its infimum is analytic.
    tau = 1 / (1 + w)
    zeta = max(alpha_min, alpha_rem, tau)
    if not exact_g:
        # G = inf over beta in [zeta, 1] of (1/beta - 1) rem_pos/n + C +
        # C1 (beta - alpha_min), and every term is at least its value at
        # beta = zeta with the first term dropped
        g_low = C + C1 * (zeta - alpha_min)
        if g_low > min(b1, stop_cost) + G_SKIP_MARGIN:
            return b1, g_low, stop_cost
    if zeta >= 1:
        g_val = C + C1 * (1 - alpha_min)  # empty interval: g(1), as the reference
    else:
        g_zeta = (1 / zeta - 1) * rem_pos / n + C + C1 * (zeta - alpha_min)
        g_one = C + C1 * (1 - alpha_min)
        g_val = min(g_zeta, g_one)
        if C1 > 0:
            beta = math.sqrt(rem_pos / (C1 * n))
            if zeta < beta <= 1:
                g_val = (2 * math.sqrt(C1 * rem_pos / n) - rem_pos / n + C
                         - C1 * alpha_min)
    return b1, g_val, stop_cost


def soft_g_floor(rem_pos, w, C1, n):
    """``H(r) = min over beta in [tau, 1] of (1/beta - 1) r/n + C1 beta``, ``r = rem_pos``.

    ``C + H(r) - C1 alpha_min`` is a lower bound of the term ``G`` of every
    rule added to a prefix whose least proportion is ``alpha_min`` and that
    leaves ``r`` positives: ``G`` is the same minimum over the smaller
    interval ``[zeta, 1]`` (``zeta >= tau = 1/(1+w)``), less ``C1 alpha'``
    with ``alpha' <= alpha_min`` the new least proportion.  It depends on
    ``r`` alone, so the search tabulates it once.
    """
    tau = 1 / (1 + w)
    share = (rem_pos + 0 * w) / n
    if not C1 > 0:
        return 0 * share          # (1/beta - 1) r/n falls to 0 at beta = 1
    beta = math.sqrt(share / C1)
    if beta <= tau:
        return (1 / tau - 1) * share + C1 * tau
    if beta >= 1:
        return C1 + 0 * share
    return 2 * math.sqrt(C1 * share) - share


def soft_floor_constants(alpha_min, w, n):
    """The per-prefix constants of :func:`soft_terms_above`.

    Parameters
    ----------
    alpha_min : float
        Least proportion of the prefix's rules (``1`` for the empty prefix).
    w : float
        Weight of a positive row.
    n : int
        Number of training rows.

    Returns
    -------
    tuple of float
        ``(b1_slope, tau, inv_n)``: ``(1/alpha_min - 1) / n`` (huge when
        ``alpha_min == 0``), ``1 / (1 + w)`` and ``1 / n``.
    """
    inv_n = 1 / n
    b1_slope = (1 / alpha_min - 1) * inv_n if alpha_min > 0 else 1e300 + 0 * w
    return b1_slope, 1 / (1 + w), inv_n


def soft_terms_above(d, p, q, sets_min, new_min, rem_pos, rem_neg, w, C, C1, g_floor,
                     b1_slope, tau, inv_n):
    """True only if ``min(B1, G, Tm)`` (:func:`soft_bound_terms`) exceeds ``d``.

    A cheap test (products and comparisons; no division, no square root)
    for a rule capturing ``p`` positives and ``q`` negatives that leaves
    ``rem_pos`` / ``rem_neg`` rows uncaptured and makes ``new_min`` the
    list's least proportion (``sets_min``: the rule's own proportion is
    below the prefix's ``alpha_min``, so ``new_min = p / (p + q)``).
    ``g_floor`` is :func:`soft_g_floor` of ``rem_pos``; the other constants
    come from :func:`soft_floor_constants` of the prefix's ``alpha_min``.
    Each term is bounded from below:

    * ``Tm >= min(w rem_pos, rem_neg) / n`` (its penalty dropped);
    * ``B1 = (1/new_min - 1) rem_pos/n + C``, plus at least ``w rem_pos / n``
      when the remainder is surely not below ``new_min``; ``1/new_min - 1``
      is ``q / p`` when the rule sets the minimum (compared as a product),
      else ``1/alpha_min - 1``;
    * ``G >= C + H - C1 new_min`` (see :func:`soft_g_floor`) and ``G >= C +
      C1 (max(tau, new_min) - new_min)`` (its first term dropped: ``beta >=
      zeta >= max(tau, new_min)``);

    and a pure remainder has ``B1 = G = inf``.  False says nothing.
    """
    if min(w * rem_pos, rem_neg + 0 * w) * inv_n <= d:
        return False
    if rem_pos == 0 or rem_neg == 0:
        return True
    extra = 0 * w
    if rem_pos >= new_min * (rem_pos + rem_neg) * (1 + G_SKIP_MARGIN):
        extra = w * rem_pos * inv_n
    if sets_min:
        # new_min = 0 makes B1 infinite; else (q / p) rem_pos / n > d - C - extra
        if p > 0 and not q * rem_pos * inv_n > (d - C - extra) * p:
            return False
    elif not b1_slope * rem_pos + C + extra > d:
        return False
    g = C + g_floor - C1 * new_min
    rise = C + C1 * (tau - new_min if tau > new_min else 0 * tau)
    return max(g, rise) > d


def soft_prefix_bound(prefix_objective, alpha_min, rem_pos, rem_neg, w, C, C1, n):
    """Lower bound ``L~*(e)`` on any compatible list starting with ``e``.

    Theorem 5.2: ``L~(e) + min(B1, G, Tm)``, see :func:`soft_bound_terms`.
    """
    b1, g_val, stop_cost = soft_bound_terms(alpha_min, rem_pos, rem_neg, w, C, C1, n)
    return prefix_objective + min(b1, g_val, stop_cost)


def soft_should_stop(alpha_min, rem_pos, rem_neg, w, C, C1, n):
    """Deterministic stop of softFRL: closing now attains the prefix bound.

    ``Tm <= min(B1, G)``, compared term-wise (never two float sums for
    equality).
    """
    b1, g_val, stop_cost = soft_bound_terms(alpha_min, rem_pos, rem_neg, w, C, C1, n)
    return stop_cost <= min(b1, g_val)


# --- curiosity (sampling weights) ----------------------------------------

def frl_curiosity(p, q, rem_pos, lam):
    """FRL curiosity, Eq. 11: ``lam * alpha + (1 - lam) * p / rem_pos``.

    ``p, q`` are the remaining positives / negatives the candidate captures,
    ``rem_pos`` the remaining positives before it is added.
    """
    alpha = (p + 0 * lam) / (p + q)
    share = (p + 0 * lam) / rem_pos if rem_pos > 0 else 0 * lam
    return lam * alpha + (1 - lam) * share


def soft_curiosity(p, q, alpha_min, rem_pos, lam):
    """softFRL curiosity, Eq. 12.

    ``lam * max(min(alpha, 101 alpha_min - 100 alpha), 0)
    + (1 - lam) * p / rem_pos``: the first term equals ``alpha`` while the
    candidate does not rise above the prefix minimum and fades to 0 at a 1 %
    rise.
    """
    alpha = (p + 0 * lam) / (p + q)
    first = min(alpha, 101.0 * alpha_min - 100.0 * alpha)
    if first < 0:
        first = 0 * first
    share = (p + 0 * lam) / rem_pos if rem_pos > 0 else 0 * lam
    return lam * first + (1 - lam) * share
