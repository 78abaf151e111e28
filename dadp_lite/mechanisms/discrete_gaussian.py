"""Exact discrete Gaussian sampling and the discrete Gaussian mechanism.

The discrete Gaussian ``N_Z(0, sigma^2)`` puts mass ``exp(-z^2 / (2 sigma^2)) / C`` on every
integer ``z``. ``sigma^2`` is its *scale parameter*, not its variance: the variance is
smaller by a relative 2e-7 at ``sigma = 1`` and below 1e-15 from ``sigma = 1.5``, but at
``sigma = 0.5`` it is 0.215 instead of 0.25.

Reading of the paper. The paper writes ``N_Z(0, 4/epsilon^2)`` and calls the second
argument "the standard deviation sigma". We follow the convention of Canonne, Kamath and
Steinke (2020) (second argument = ``sigma^2``), so the paper's mechanism is
``sigma = 2 / epsilon``: the same scale as its Laplace mechanism, ``Lap(2/epsilon)``.
Reading ``4/epsilon^2`` literally as a standard deviation would give far more noise at
small epsilon (``sigma = 16`` at ``epsilon = 0.5``) and far less at large epsilon.

The sampler is Algorithm 3 of Canonne, Kamath and Steinke (2020): discrete Laplace
proposals (their Algorithm 2) with scale ``t = floor(sigma) + 1``, accepted with
probability ``exp(-(|Y| - sigma^2/t)^2 / (2 sigma^2))``, every ``Bernoulli(exp(-gamma))``
drawn by their Algorithm 1 from ``Bernoulli(gamma / K)`` trials. All of it uses integers
only, vectorised: proposals are drawn in oversampled batches, every step of Algorithm 1
runs on all still-unfinished positions at once (rounds, never a Python loop per sample),
and the accepted proposals, in order, form an i.i.d. stream of which the first ``size``
are returned. ``Bernoulli(exp(-1))`` (needed for the geometric part of the proposal and
for ``gamma > 1``) draws all of its Algorithm-1 trials from one uniform integer, see
:func:`_bernoulli_exp_one`.

Where floating point enters. Only once: a float ``sigma`` is turned into an exact rational
``sigma^2 = p / q`` (:func:`sigma_squared_fraction`), recovering ``4/epsilon^2`` exactly for
the usual epsilons (0.5 -> 16, 0.3 -> 400/9). From then on the output is *exactly*
``N_Z(0, p/q)``; the rational differs from the float ``sigma**2`` by at most
``1e-9 * sigma**2`` (checked; usually 0), far below anything a test or a privacy bound can
see. Pass a :class:`fractions.Fraction` to fix ``sigma`` exactly. Floats are also used to
*size* the batches (expected acceptance rates); that affects speed only, never the
distribution.
``Bernoulli(a / m)`` with integers ``a < m`` is ``rng.integers(0, m) < a``, which numpy
draws exactly (rejection sampling on integer bits).
"""

from __future__ import annotations

import math
import numbers
from fractions import Fraction

import numpy as np

from dadp_lite._validate import check_counts, check_epsilon, check_positive_int, check_rng

__all__ = [
    "discrete_gaussian",
    "discrete_gaussian_sigma",
    "sample_discrete_gaussian",
    "sigma_squared_fraction",
]

_INT64_SAFE = 2**62  # every modulus drawn with rng.integers stays below this
_MAX_DENOMINATOR = 10**6


def discrete_gaussian_sigma(epsilon: float) -> float:
    """The paper's discrete Gaussian scale: ``sigma = 2 / epsilon`` (``sigma^2 = 4/eps^2``)."""
    return 2.0 / check_epsilon(epsilon)


def _check_sigma(sigma: object) -> None:
    if isinstance(sigma, bool) or not isinstance(sigma, numbers.Real):
        raise TypeError(f"sigma must be a real number, got {type(sigma).__name__}")
    if not math.isfinite(float(sigma)) or sigma <= 0:
        raise ValueError(f"sigma must be finite and > 0, got {sigma!r}")


def sigma_squared_fraction(sigma: float | Fraction) -> Fraction:
    """``sigma^2`` as an exact rational ``p / q`` small enough for int64 arithmetic.

    A :class:`fractions.Fraction` or int ``sigma`` is squared exactly. A float is squared and
    replaced by the closest rational whose denominator keeps the sampler's integers below
    ``2**62`` (at most ``10**6``); this recovers ``(2/epsilon)^2`` exactly for decimal
    epsilons with few digits (0.3 -> 400/9). A ValueError is raised if that rational is
    further than ``1e-9`` (relative) from ``sigma**2``.
    """
    _check_sigma(sigma)
    if isinstance(sigma, Fraction | numbers.Integral):
        return Fraction(sigma) ** 2
    target = float(sigma) ** 2
    # modulus 2 p q t^2 ~ 2 sigma^4 q^2 must stay below 2**62
    room = math.isqrt(int(_INT64_SAFE // (2 * (target + 1) * (math.sqrt(target) + 1) ** 2)))
    value = Fraction(target).limit_denominator(max(1, min(_MAX_DENOMINATOR, room)))
    if abs(float(value) - target) > 1e-9 * target:
        raise ValueError(
            f"sigma = {sigma!r} has no rational square with a small enough denominator; "
            "pass sigma as a Fraction"
        )
    return value


def _rational_parameters(sigma: float | Fraction) -> tuple[int, int, int]:
    """``(p, q, t)`` with ``sigma^2 = p/q`` and ``t = floor(sigma) + 1``, overflow-checked."""
    sigma2 = sigma_squared_fraction(sigma)
    p, q = sigma2.numerator, sigma2.denominator
    t = math.isqrt(p // q) + 1  # floor(sqrt(p/q)) == isqrt(floor(p/q))
    if 2 * p * q * t * t >= _INT64_SAFE:
        raise ValueError(
            f"sigma = {sigma!r} needs integers beyond int64 (sigma^2 = {p}/{q}); pass a "
            "Fraction with a smaller denominator or a smaller sigma"
        )
    return p, q, t


_EXP_ONE_DEPTH = 12  # 12! < 2**32, so one uint32 per Bernoulli(exp(-1))
_EXP_ONE_CUTS = np.array(
    [math.factorial(_EXP_ONE_DEPTH) // math.factorial(k) for k in range(_EXP_ONE_DEPTH, 0, -1)],
    dtype=np.int64,
)  # ascending: 12!/12!, 12!/11!, ..., 12!/1!


def _bernoulli_exp_fraction(numerator: np.ndarray, modulus: int, rng) -> np.ndarray:
    """``Bernoulli(exp(-gamma))`` for ``gamma = numerator / modulus`` in [0, 1] (Alg. 1).

    Draw ``A_K ~ Bernoulli(gamma / K)`` for K = 1, 2, ... until the first failure; the
    answer is 1 iff that K is odd. ``Bernoulli(gamma / K)`` is ``integers(0, K m) < a``
    for ``gamma = a / m``, or the product of ``Bernoulli(gamma)`` and ``Bernoulli(1/K)``
    when ``K m`` would not fit in int64. Rounds run over the positions still going.
    """
    numerator = np.asarray(numerator, dtype=np.int64)
    result = rng.integers(0, modulus, size=numerator.size) >= numerator  # failed at K = 1
    active = np.flatnonzero(~result)
    k = 2
    while active.size:
        if k * modulus < 2**62:
            success = rng.integers(0, k * modulus, size=active.size) < numerator[active]
        else:
            success = rng.integers(0, modulus, size=active.size) < numerator[active]
            success &= rng.integers(0, k, size=active.size) == 0
        result[active[~success]] = k % 2 == 1
        active = active[success]
        k += 1
    return result


def _bernoulli_exp_one(size: int, rng) -> np.ndarray:
    """``Bernoulli(exp(-1))``: Algorithm 1 with ``gamma = 1``, its trials drawn at once.

    With ``gamma = 1`` the first ``k`` trials all succeed with probability ``1/k!`` and
    these events are nested. One uniform integer ``W`` on ``{0, ..., 12! - 1}`` realises
    the first 12 of them exactly: "the first k succeed" is ``W < 12!/k!`` (an integer cut,
    so its probability is exactly ``1/k!``). The answer is 1 iff the number ``s`` of
    successes before the first failure is even: ``s = 1`` for ``W >= 12!/2``, ``s = 2``
    for ``12!/6 <= W < 12!/2``; the remaining sixth uses the full table of cuts, and only
    ``W = 0`` (probability ``1/12!``) continues with ordinary trials ``Bernoulli(1/K)``.
    """
    top = int(_EXP_ONE_CUTS[-1])
    w = rng.integers(0, top, size=size, dtype=np.uint32)
    result = w < top // 2  # s >= 2
    deep = np.flatnonzero(w < top // 6)  # s >= 3: look further
    if deep.size:
        s_deep = _EXP_ONE_DEPTH - np.searchsorted(_EXP_ONE_CUTS, w[deep], side="right")
        going = np.flatnonzero(s_deep == _EXP_ONE_DEPTH)  # W == 0: trials 1..12 succeeded
        k = _EXP_ONE_DEPTH + 1
        while going.size:
            going = going[rng.integers(0, k, size=going.size) == 0]
            s_deep[going] += 1
            k += 1
        result[deep] = (s_deep % 2) == 0
    return result


def _all_bernoulli_exp_one(trials: np.ndarray, rng) -> np.ndarray:
    """True where ``trials[i]`` independent ``Bernoulli(exp(-1))`` draws all succeed."""
    ok = np.ones(trials.shape, dtype=bool)
    remaining = np.array(trials, dtype=np.int64)
    active = np.flatnonzero(remaining > 0)
    while active.size:
        success = _bernoulli_exp_one(active.size, rng)
        ok[active[~success]] = False
        remaining[active] -= 1
        active = active[success & (remaining[active] > 0)]
    return ok


def _bernoulli_exp_rational(whole: np.ndarray, rest: np.ndarray, modulus: int, rng) -> np.ndarray:
    """``Bernoulli(exp(-gamma))`` for ``gamma = whole + rest / modulus`` (``0 <= rest < modulus``).

    Needs ``whole`` successes of ``Bernoulli(exp(-1))`` and one of
    ``Bernoulli(exp(-rest/modulus))``, as in Algorithm 1 for ``gamma > 1``.
    """
    return _all_bernoulli_exp_one(whole, rng) & _bernoulli_exp_fraction(rest, modulus, rng)


def _geometric_exp_one(size: int, rng) -> np.ndarray:
    """Number of successes of ``Bernoulli(exp(-1))`` before the first failure."""
    counts = np.zeros(size, dtype=np.int64)
    active = np.arange(size)
    while active.size:
        active = active[_bernoulli_exp_one(active.size, rng)]
        counts[active] += 1
    return counts


def _discrete_laplace(t: int, size: int, rng) -> np.ndarray:
    """Exact discrete Laplace, ``P(y) ∝ exp(-|y| / t)`` (Algorithm 2 with s = 1).

    Candidates are drawn in oversampled batches; the accepted ones, in order, form an
    i.i.d. stream from the target, of which the first ``size`` are returned.
    """
    parts: list[np.ndarray] = []
    have = 0
    # batch sizing only (exactness does not depend on it): P(keep u) = E[exp(-U/t)]
    keep_rate = -math.expm1(-1.0) / (t * -math.expm1(-1.0 / t))
    while have < size:
        m = int((size - have) / keep_rate * 1.03) + 64
        if t == 1:  # U is always 0 and exp(-0) = 1 keeps it: skip both draws
            u = np.zeros(m, dtype=np.int64)
        else:
            u = rng.integers(0, t, size=m)
            u = u[_bernoulli_exp_fraction(u, t, rng)]
        x = u + t * _geometric_exp_one(u.size, rng)
        negative = rng.integers(0, 2, size=x.size, dtype=np.int8) == 1
        y = np.where(negative, -x, x)[~(negative & (x == 0))]
        parts.append(y)
        have += y.size
    return np.concatenate(parts)[:size]


def _square_divmod(gap: np.ndarray, modulus: int) -> tuple[np.ndarray, np.ndarray]:
    """``divmod(gap**2, modulus)`` exactly; Python integers where ``gap**2`` exceeds int64."""
    big = np.abs(gap) > 3_037_000_499  # floor(sqrt(2**63 - 1))
    if not big.any():
        return np.divmod(gap * gap, modulus)
    whole = np.empty(gap.shape, dtype=np.int64)
    rest = np.empty(gap.shape, dtype=np.int64)
    whole[~big], rest[~big] = np.divmod(gap[~big] * gap[~big], modulus)
    pairs = [divmod(int(g) * int(g), modulus) for g in gap[big]]  # rare: |y| >> sigma
    whole[big] = [w for w, _ in pairs]
    rest[big] = [r for _, r in pairs]
    return whole, rest


def _acceptance_rate(sigma2: float, t: int) -> float:
    """Probability that Algorithm 3 accepts a proposal (floats; used to size batches only)."""
    y = np.arange(-60 * t, 60 * t + 1)
    proposal = np.exp(-np.abs(y) / t)
    accept = np.exp(-((np.abs(y) - sigma2 / t) ** 2) / (2 * sigma2))
    return float(max((proposal * accept).sum() / proposal.sum(), 0.01))


def sample_discrete_gaussian(
    sigma: float | Fraction, size: int | tuple[int, ...], rng: np.random.Generator
) -> np.ndarray:
    """Exact samples of ``N_Z(0, sigma^2)`` (Canonne, Kamath and Steinke 2020, Alg. 3).

    Parameters
    ----------
    sigma
        Scale (> 0); ``sigma^2`` is made an exact rational by :func:`sigma_squared_fraction`.
    size
        Output shape.
    rng
        numpy Generator; all randomness comes from ``rng.integers``.

    Returns
    -------
    numpy.ndarray
        int64 array of shape ``size``.
    """
    p, q, t = _rational_parameters(sigma)
    rng = check_rng(rng)
    shape = (size,) if isinstance(size, numbers.Integral) else tuple(size)
    n = int(np.prod(shape, dtype=np.int64))
    if n < 0 or any(s < 0 for s in shape):
        raise ValueError(f"size must be non-negative, got {size!r}")
    modulus = 2 * p * q * t * t
    parts: list[np.ndarray] = []
    have, rate = 0, _acceptance_rate(p / q, t)
    while have < n:  # oversampled batches; accepted proposals form an i.i.d. stream
        m = int((n - have) / rate * 1.03) + 64
        y = _discrete_laplace(t, m, rng)
        # gamma = (|y| - sigma^2/t)^2 / (2 sigma^2) = (|y| t q - p)^2 / (2 p q t^2)
        gap = np.abs(y) * (t * q) - p
        accepted = y[_bernoulli_exp_rational(*_square_divmod(gap, modulus), modulus, rng)]
        rate = max(accepted.size / m, 0.01)
        parts.append(accepted)
        have += accepted.size
    return np.concatenate(parts)[:n].reshape(shape) if n else np.empty(shape, np.int64)


def discrete_gaussian(
    counts: object,
    *,
    epsilon: float | None = None,
    sigma: float | Fraction | None = None,
    rng: np.random.Generator,
    reps: int,
    project: bool = False,
) -> np.ndarray:
    """Release ``counts + N_Z(0, sigma^2)`` per cell, ``reps`` times at once (integers).

    Give exactly one of ``epsilon`` (then ``sigma = 2 / epsilon``, the paper's
    ``N_Z(0, 4/epsilon^2)`` read as ``sigma^2 = 4/epsilon^2``) or ``sigma``.

    Parameters
    ----------
    counts
        True histogram, non-negative integers, shape ``(n_cells,)``.
    epsilon, sigma
        Privacy parameter or noise scale (> 0, finite).
    rng
        The numpy Generator all randomness comes from.
    reps
        Number of independent releases (>= 1).
    project
        If True, clip each released count to ``>= 0`` (the paper's post-processing).

    Returns
    -------
    numpy.ndarray
        int64 array of shape ``(reps, n_cells)``.
    """
    counts = check_counts(counts)
    if (epsilon is None) == (sigma is None):
        raise ValueError("give exactly one of epsilon or sigma")
    if epsilon is not None:
        sigma = discrete_gaussian_sigma(epsilon)
    else:
        _check_sigma(sigma)
    reps = check_positive_int(reps, "reps")
    released = sample_discrete_gaussian(sigma, (reps, counts.size), check_rng(rng))
    released += counts
    if project:
        np.maximum(released, 0, out=released)
    return released
