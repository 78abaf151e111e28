"""Exact ``Bernoulli(exp(-gamma))`` coins from uniform integers, vectorised.

Algorithm 1 of Canonne, Kamath and Steinke (2020) draws ``A_k ~ Bernoulli(gamma / k)`` for
``k = 1, 2, ...`` until the first failure and answers 1 iff the number ``s`` of successes
before it is even (``P = sum_s (-1)^s gamma^s / s! = exp(-gamma)``). The answer depends on
the trials only through ``s``, and ``P(s >= k) = gamma^k / k!``. So the first few trials
can be realised *together* by one uniform integer ``W`` with nested cuts: "the first ``k``
succeed" is ``W < c_k`` where ``P(W < c_k) = gamma^k / k!`` exactly. When ``W`` falls
below the last cut (every realised trial succeeded) the remaining trials are drawn fresh,
one round per ``k``, over the few positions concerned. The law of ``s`` is unchanged, so
the coins are exact; the nesting only saves random draws and passes over the data.

- ``gamma = 1`` (:func:`bernoulli_exp_one`): ``W`` uniform on ``{0, ..., 6! - 1}`` with
  cuts ``6!/k!``; a 720-entry table maps ``W`` to its answer, and ``W = 0`` (probability
  ``1/720``) continues with ``Bernoulli(1/k)``, ``k = 7, 8, ...``.
  :func:`leading_exp_one_pair` reads *two* such trials from one ``W`` on ``720^2`` values.
- ``gamma = a / m`` in ``[0, 1]`` (:func:`bernoulli_exp_fraction`): ``W`` uniform on
  ``{0, ..., 2 m^2 - 1}`` with cuts ``2 a m`` (first trial) and ``a^2`` (first two), when
  ``2 m^2`` fits in int64; otherwise trial by trial from ``k = 1``.

Everything is integer arithmetic on ``rng.integers`` draws (which numpy makes exactly
uniform by rejection). Masks are applied with ``np.compress`` / ``np.flatnonzero`` and
signs with integer arithmetic: boolean-mask indexing and ``np.where`` on random masks are
several times slower in numpy (branch misprediction).
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

from dadp_lite._types import BoolArray, IntArray

__all__ = [
    "all_bernoulli_exp_one",
    "bernoulli_exp_fraction",
    "bernoulli_exp_fraction_from_cuts",
    "bernoulli_exp_one",
    "continue_trials",
    "fraction_fits_nested_cuts",
    "geometric_exp_one",
    "leading_exp_one_pair",
]

_INT64_SAFE = 2**62


def _nested_exp_one_tables(depth: int) -> tuple[int, BoolArray, npt.NDArray[np.int8]]:
    """``(top, one, pair)`` for ``Bernoulli(exp(-1))`` trials realised ``depth`` at a time.

    ``one[w]`` is the answer for ``W = w`` on ``{0, ..., depth! - 1}`` (meaningless at
    ``w = 0``, which needs more trials). ``pair[w1 * top + w2]`` is the number of leading
    successes (0, 1 or 2) of two trials drawn from ``w1`` then ``w2``, or 3 when a trial
    that matters fell on 0.
    """
    top = math.factorial(depth)
    successes = np.zeros(top, dtype=np.int64)  # s(w) = #{k <= depth : w < top / k!}
    for k in range(1, depth + 1):
        successes[: top // math.factorial(k)] += 1
    one = successes % 2 == 0
    pair = np.where(one[:, None], 1 + one[None, :], 0).astype(np.int8)
    pair[0, :] = 3  # first trial undecided
    pair[1:, 0] = np.where(one[1:], 3, 0)  # second trial undecided and needed
    return top, one, pair.ravel()


_DEPTH = 6
_TOP, _ONE, _PAIR = _nested_exp_one_tables(_DEPTH)


def continue_trials(
    successes: int,
    size: int,
    rng: np.random.Generator,
    numerator: IntArray | None = None,
    modulus: int = 1,
) -> BoolArray:
    """Finish Algorithm 1 for ``size`` coins whose first ``successes`` trials succeeded.

    Draws ``A_k ~ Bernoulli(gamma / k)`` for ``k = successes + 1, ...`` until each coin's
    first failure; ``gamma = 1`` if ``numerator`` is None, else ``numerator / modulus``.
    Returns True where the total number of successes is even.
    """
    count = np.full(size, successes, dtype=np.int64)
    going = np.arange(size)
    k = successes + 1
    while going.size:
        if numerator is None:
            success = rng.integers(0, k, size=going.size) == 0
        elif k * modulus < _INT64_SAFE:
            success = rng.integers(0, k * modulus, size=going.size) < numerator[going]
        else:  # Bernoulli(a / (k m)) as Bernoulli(a / m) and Bernoulli(1 / k)
            success = rng.integers(0, modulus, size=going.size) < numerator[going]
            success &= rng.integers(0, k, size=going.size) == 0
        going = np.compress(success, going)
        count[going] += 1
        k += 1
    even: BoolArray = count % 2 == 0
    return even


def _exp_one_answers(w: npt.NDArray[np.int32], rng: np.random.Generator) -> BoolArray:
    """Answers of ``Bernoulli(exp(-1))`` coins whose first trials were drawn as ``w``."""
    answer: BoolArray = np.take(_ONE, w)
    deep = np.flatnonzero(w == 0)
    if deep.size:
        answer[deep] = continue_trials(_DEPTH, deep.size, rng)
    return answer


def bernoulli_exp_one(size: int, rng: np.random.Generator) -> BoolArray:
    """``size`` independent exact ``Bernoulli(exp(-1))`` coins (bool array)."""
    return _exp_one_answers(rng.integers(0, _TOP, size=size, dtype=np.int32), rng)


def leading_exp_one_pair(size: int, rng: np.random.Generator) -> npt.NDArray[np.int8]:
    """Leading successes (0, 1 or 2) of two independent ``Bernoulli(exp(-1))`` coins.

    One uniform ``W`` on ``{0, ..., 720^2 - 1}`` is the pair ``divmod(W, 720)`` of
    independent uniforms, each realising one coin as in :func:`bernoulli_exp_one`.
    """
    w = rng.integers(0, _TOP * _TOP, size=size, dtype=np.int32)
    lead: npt.NDArray[np.int8] = np.take(_PAIR, w)
    deep = np.flatnonzero(lead == 3)
    if deep.size:
        first = _exp_one_answers(w[deep] // _TOP, rng)
        second = _exp_one_answers(w[deep] % _TOP, rng)
        lead[deep] = first.view(np.int8) + (first & second).view(np.int8)
    return lead


def geometric_exp_one(size: int, rng: np.random.Generator) -> IntArray:
    """Successes of ``Bernoulli(exp(-1))`` before the first failure: ``P(V >= k) = e^-k``."""
    lead = leading_exp_one_pair(size, rng)
    counts = lead.astype(np.int64)
    going = np.flatnonzero(lead == 2)
    while going.size:
        lead = leading_exp_one_pair(going.size, rng)
        counts[going] += lead
        going = np.compress(lead == 2, going)
    return counts


def all_bernoulli_exp_one(trials: IntArray, rng: np.random.Generator) -> BoolArray:
    """True where ``trials[i]`` independent ``Bernoulli(exp(-1))`` coins all succeed.

    That is ``Bernoulli(exp(-trials[i]))`` for a 1-d integer array; coins are drawn two at a
    time and each position stops at its first failure.
    """
    trials = np.asarray(trials, dtype=np.int64)
    ok = np.ones(trials.size, dtype=bool)
    going = np.flatnonzero(trials > 0)
    remaining = trials[going]
    while going.size:
        used = np.minimum(remaining, 2)
        success = leading_exp_one_pair(going.size, rng) >= used
        ok[np.compress(~success, going)] = False
        remaining = remaining - used
        keep = success & (remaining > 0)
        going, remaining = np.compress(keep, going), np.compress(keep, remaining)
    return ok


def bernoulli_exp_fraction_from_cuts(
    first_cut: IntArray, second_cut: IntArray, modulus: int, rng: np.random.Generator
) -> BoolArray:
    """``Bernoulli(exp(-a/m))`` (1-d) given ``first_cut = 2 a m`` and ``second_cut = a^2``.

    For callers that look the cuts up in a table; needs ``0 <= a <= m`` and
    :func:`fraction_fits_nested_cuts`.
    """
    w = rng.integers(0, 2 * modulus * modulus, size=len(first_cut))
    answer = w >= first_cut  # the first trial failed: s = 0
    deep = np.flatnonzero(w < second_cut)  # the first two succeeded: s >= 2
    if deep.size:
        numerator = first_cut[deep] // (2 * modulus)  # exact: first_cut = 2 a m
        answer[deep] = continue_trials(2, deep.size, rng, numerator, modulus)
    return answer


def fraction_fits_nested_cuts(modulus: int) -> bool:
    """Whether ``2 m^2`` fits the int64 draws of :func:`bernoulli_exp_fraction_from_cuts`."""
    return 2 * modulus * modulus < _INT64_SAFE


def bernoulli_exp_fraction(
    numerator: IntArray, modulus: int, rng: np.random.Generator
) -> BoolArray:
    """``Bernoulli(exp(-gamma))`` for ``gamma = numerator / modulus`` in ``[0, 1]`` (1-d)."""
    numerator = np.asarray(numerator, dtype=np.int64)
    if fraction_fits_nested_cuts(modulus):
        return bernoulli_exp_fraction_from_cuts(
            2 * modulus * numerator, numerator * numerator, modulus, rng
        )
    return continue_trials(0, numerator.size, rng, numerator, modulus)
