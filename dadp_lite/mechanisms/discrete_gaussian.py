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
only, vectorised: proposals are drawn in oversampled batches, and the accepted proposals,
in order, form an i.i.d. stream of which the first ``size`` are returned. Three things
make it fast without changing any probability:

- Algorithm 1 depends on its trials only through the number of leading successes, so the
  first few trials are realised together by one uniform integer with nested cuts
  (:mod:`dadp_lite.mechanisms._bernoulli_exp`); later trials run in rounds over the few
  positions still going.
- The acceptance exponent depends on the proposal only through ``|Y|``; its integer part,
  fractional numerator and cuts are tabulated per ``|Y|`` with Python integers.
- Algorithm 2's restarts ("``U`` rejected", "proposal is -0") and Algorithm 3's rejection
  are all rejections of independent proposals, so each batch draws ``U``, then ``V`` and the
  sign for the kept ``U`` only, and applies the "-0" and acceptance tests at the end.

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

import functools
import math
import numbers
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from dadp_lite._types import BoolArray, IntArray
from dadp_lite._validate import check_epsilon, check_rng
from dadp_lite.definitions import discrete_gaussian_sigma
from dadp_lite.mechanisms._additive import additive_release
from dadp_lite.mechanisms._bernoulli_exp import (
    all_bernoulli_exp_one,
    bernoulli_exp_fraction,
    bernoulli_exp_fraction_from_cuts,
    fraction_fits_nested_cuts,
    geometric_exp_one,
)

__all__ = [
    "SIGMA_MAX",
    "SIGMA_MIN",
    "discrete_gaussian",
    "sample_discrete_gaussian",
    "sigma_squared_fraction",
]

_INT64_SAFE = 2**62  # every modulus drawn with rng.integers stays below this
_MAX_DENOMINATOR = 10**6
#: Range of a float ``sigma`` the exact sampler supports: above SIGMA_MAX its integers
#: (``2 p q t^2``) leave int64; below SIGMA_MIN ``sigma^2`` has no rational close enough
#: (1e-9 relative) whose integers fit (both found by scanning, with a margin; tested).
#: With ``sigma = 2 / epsilon``: epsilon in [2 / SIGMA_MAX, 2 / SIGMA_MIN].
SIGMA_MIN = 1e-4
#: Largest noise scale the sampler accepts (see :data:`SIGMA_MIN`).
SIGMA_MAX = 38_000.0
_BATCH = 2**17  # proposals per pass: temporaries stay small enough to be reused


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
    if not 0 < target < math.inf:
        raise ValueError(f"sigma = {sigma!r} has a square that is not a positive float")
    # modulus 2 p q t^2 ~ 2 sigma^4 q^2 must stay below 2**62
    room = math.isqrt(int(_INT64_SAFE // (2 * (target + 1) * (math.sqrt(target) + 1) ** 2)))
    value = Fraction(target).limit_denominator(max(1, min(_MAX_DENOMINATOR, room)))
    if abs(float(value) - target) > 1e-9 * target and room > _MAX_DENOMINATOR:
        value = Fraction(target).limit_denominator(room)  # small sigma: finer denominators
    if abs(float(value) - target) > 1e-9 * target:
        raise ValueError(
            f"sigma = {sigma!r} has no rational square with a small enough denominator; "
            "pass sigma as a Fraction"
        )
    return value


def _rational_parameters(sigma2: Fraction, sigma: object = None) -> tuple[int, int, int]:
    """``(p, q, t)`` with ``sigma^2 = p/q`` and ``t = floor(sigma) + 1``, overflow-checked."""
    p, q = sigma2.numerator, sigma2.denominator
    t = math.isqrt(p // q) + 1  # floor(sqrt(p/q)) == isqrt(floor(p/q))
    if 2 * p * q * t * t >= _INT64_SAFE:
        label = repr(sigma) if sigma is not None else f"sqrt({sigma2})"
        raise ValueError(
            f"sigma = {label} needs integers beyond int64 (sigma^2 = {p}/{q}); pass a "
            "Fraction with a smaller denominator or a smaller sigma"
        )
    return p, q, t


def _square_divmod(gap: IntArray, modulus: int) -> tuple[IntArray, IntArray]:
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


@dataclass(frozen=True)
class _Plan:
    """Integers of Algorithm 3 for one ``sigma^2 = p/q``, and its per-magnitude tables.

    For a proposal of magnitude ``x`` the acceptance exponent is
    ``gamma(x) = (x t q - p)^2 / modulus`` with ``modulus = 2 p q t^2``; the tables hold,
    for ``x < len(whole)``, its integer part and the two nested cuts of its fractional
    part ``a / modulus`` (``2 a modulus`` and ``a^2``, see ``_bernoulli_exp``). Larger
    ``x`` (probability below ``exp(-16)`` per proposal) are computed on the spot.
    """

    p: int
    q: int
    t: int
    modulus: int
    whole: IntArray
    first_cut: IntArray
    second_cut: IntArray
    rate: float  # expected output per U candidate, for batch sizing only

    @classmethod
    def for_sigma(cls, sigma: float | Fraction) -> _Plan:
        """The plan for ``sigma`` (cached: repeated calls reuse the tables)."""
        sigma2 = sigma_squared_fraction(sigma)
        _rational_parameters(sigma2, sigma)  # raises if int64 is too small
        return _plan_for(sigma2)

    @classmethod
    def build(cls, sigma2: Fraction) -> _Plan:
        p, q, t = _rational_parameters(sigma2)
        modulus = 2 * p * q * t * t
        x = np.arange(16 * t + 64, dtype=np.int64)  # P(X >= 16 t) < exp(-16) per proposal
        whole, rest = _square_divmod(x * (t * q) - p, modulus)
        first_cut, second_cut = cls._cuts(rest, modulus)
        for table in (whole, first_cut, second_cut):
            table.setflags(write=False)
        # P(keep U) * P(not the redrawn "-0") * P(Algorithm 3 accepts); floats, sizing only
        keep_u = -math.expm1(-1.0) / (t * -math.expm1(-1.0 / t))
        rate = keep_u * (1 + math.exp(-1 / t)) / 2 * _acceptance_rate(p / q, t)
        return cls(p, q, t, modulus, whole, first_cut, second_cut, rate)

    @staticmethod
    def _cuts(rest: IntArray, modulus: int) -> tuple[IntArray, IntArray]:
        if not fraction_fits_nested_cuts(modulus):
            return rest, rest  # unused: bernoulli_exp_fraction goes trial by trial
        return 2 * modulus * rest, rest * rest

    def exponent_parts(self, x: IntArray) -> tuple[IntArray, IntArray, IntArray]:
        """``(whole, first_cut, second_cut)`` of ``gamma(x)`` for magnitudes ``x``.

        When the cuts do not fit int64, the last two are both the fractional numerator.
        """
        size = self.whole.size
        inside = np.minimum(x, size - 1)
        parts = [np.take(table, inside) for table in (self.whole, self.first_cut, self.second_cut)]
        if x.size and int(x.max()) >= size:
            far = np.flatnonzero(x >= size)
            whole, rest = _square_divmod(x[far] * (self.t * self.q) - self.p, self.modulus)
            for part, value in zip(parts, (whole, *self._cuts(rest, self.modulus))):
                part[far] = value
        return parts[0], parts[1], parts[2]

    def accept(self, x: IntArray, rng: np.random.Generator) -> BoolArray:
        """Algorithm 3's test: ``Bernoulli(exp(-gamma(x)))`` for each magnitude ``x``."""
        whole, first_cut, second_cut = self.exponent_parts(x)
        if fraction_fits_nested_cuts(self.modulus):
            ok = bernoulli_exp_fraction_from_cuts(first_cut, second_cut, self.modulus, rng)
        else:
            ok = bernoulli_exp_fraction(first_cut, self.modulus, rng)
        need = np.flatnonzero(ok & (whole > 0))  # exp(-whole): only where still accepted
        if need.size:
            ok[need] = all_bernoulli_exp_one(whole[need], rng)
        return ok


@functools.lru_cache(maxsize=32)
def _plan_for(sigma2: Fraction) -> _Plan:
    return _Plan.build(sigma2)


def _laplace_magnitudes(t: int, candidates: int, rng: np.random.Generator) -> IntArray:
    """Magnitudes ``X = U + t V`` of Algorithm 2 (discrete Laplace of scale ``t``).

    ``candidates`` draws of ``U`` uniform on ``{0, ..., t-1}``, each kept with probability
    ``exp(-U/t)``; every kept ``U`` gets ``V`` = successes of ``Bernoulli(exp(-1))`` before
    the first failure. Returns one i.i.d. magnitude per kept ``U`` (fewer than
    ``candidates`` when ``t > 1``), ``P(X = x)`` proportional to ``exp(-x/t)``.
    """
    if t == 1:  # U is always 0 and exp(-0) = 1 keeps it
        return geometric_exp_one(candidates, rng)
    u = rng.integers(0, t, size=candidates)
    u = np.compress(bernoulli_exp_fraction(u, t, rng), u)
    return u + t * geometric_exp_one(u.size, rng)


def sample_discrete_gaussian(
    sigma: float | Fraction, size: int | tuple[int, ...], rng: np.random.Generator
) -> IntArray:
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
    plan = _Plan.for_sigma(sigma)
    rng = check_rng(rng)
    # int beside numbers.Integral (which holds it) lets mypy narrow the else branch to a tuple
    shape = (size,) if isinstance(size, int | numbers.Integral) else tuple(size)
    n = int(np.prod(shape, dtype=np.int64))
    if n < 0 or any(s < 0 for s in shape):
        raise ValueError(f"size must be non-negative, got {size!r}")
    rate = plan.rate
    parts: list[IntArray] = []
    have = 0
    while have < n:  # accepted proposals, in order, form an i.i.d. stream
        candidates = min(_BATCH, int((n - have) / rate * 1.03) + 64)
        x = _laplace_magnitudes(plan.t, candidates, rng)
        negative = rng.integers(0, 2, size=x.size, dtype=bool)
        # Algorithm 2 redraws the proposal "-0"; Algorithm 3 then accepts w.p. exp(-gamma)
        keep = np.flatnonzero(plan.accept(x, rng) & ~(negative & (x == 0)))
        sign = 1 - 2 * np.take(negative, keep).view(np.int8)
        parts.append(np.take(x, keep) * sign)
        have += keep.size
        rate = max(keep.size / candidates, 0.01)
    return np.concatenate(parts)[:n].reshape(shape) if n else np.empty(shape, np.int64)


def discrete_gaussian(
    counts: object,
    *,
    epsilon: float | None = None,
    sigma: float | Fraction | None = None,
    rng: np.random.Generator,
    reps: int,
    project: bool = False,
) -> IntArray:
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
    if (epsilon is None) == (sigma is None):
        raise ValueError("give exactly one of epsilon or sigma")
    if sigma is None:  # epsilon given
        sigma = discrete_gaussian_sigma(check_epsilon(epsilon))
        if not SIGMA_MIN <= sigma <= SIGMA_MAX:
            raise ValueError(
                f"epsilon = {epsilon!r} is outside the discrete Gaussian's supported range "
                f"[{2 / SIGMA_MAX:.3g}, {2 / SIGMA_MIN:.3g}] (sigma = 2/epsilon = {sigma:.3g}; "
                f"the exact sampler's integers must fit int64)"
            )
    else:
        _check_sigma(sigma)
        if not isinstance(sigma, Fraction | numbers.Integral) and not (
            SIGMA_MIN <= sigma <= SIGMA_MAX
        ):
            raise ValueError(
                f"sigma = {sigma!r} is outside the exact sampler's range [{SIGMA_MIN:g}, "
                f"{SIGMA_MAX:g}] for a float (its integers must fit int64); pass a Fraction"
            )
    return additive_release(
        counts,
        lambda rng_, shape: sample_discrete_gaussian(sigma, shape, rng_),
        rng=rng,
        reps=reps,
        project=project,
    )
