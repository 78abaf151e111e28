"""Many weighted L2-penalised logistic regressions on one design, solved at once.

The classification experiment fits one model per repetition on the same cells with different
weights (the released counts). :func:`batched_logistic` solves all of them together with
Newton's method in numpy: one matrix product builds every Hessian, one batched solve takes
every step. It minimises exactly sklearn's ``LogisticRegression`` objective (L2 penalty on
the coefficients, none on the intercept)

    C * sum_i w_i * log(1 + exp(-s_i z_i)) + ||coef||^2 / 2,  z_i = x_i . coef + intercept,
    s_i = +1 if y_i = 1 else -1,

which sklearn scales by ``1 / sum(w)`` without moving the optimum. The objective is strictly
convex, so both solvers converge to the same point; Newton steps are damped by backtracking
so that every step decreases the objective.
"""

from __future__ import annotations

import numpy as np
from scipy import sparse
from scipy.special import expit

__all__ = ["batched_logistic"]

_MAX_ITER = 100
_STEP_TOL = 1e-12  # stop when no coefficient moves by more than this (relative to 1 + |beta|)


class _Rows:
    """The distinct rows of a design (with a 1 appended for the intercept).

    Cells with the same features share their decision value, so a weighted fit needs, per
    distinct row, only the total weight and the weight of label 1 (the log-likelihood
    ``w_1 log p + w_0 log(1 - p)`` is ``w_1 z - (w_0 + w_1) log(1 + e^z)``).
    """

    def __init__(self, design: np.ndarray):
        unique, self.of_cell = np.unique(design, axis=0, return_inverse=True)
        self.of_cell = self.of_cell.ravel()
        m, p = unique.shape
        self.p, self.q = p, p + 1
        self.x = np.hstack([unique, np.ones((m, 1))])
        # (m, q * q) sparse: row j = flattened x_j x_j^T (one-hot rows are mostly zeros)
        self.outer = sparse.csr_array((self.x[:, :, None] * self.x[:, None, :]).reshape(m, -1))
        self.gather = sparse.csr_array(
            (np.ones(self.of_cell.size), (np.arange(self.of_cell.size), self.of_cell)),
            shape=(self.of_cell.size, m),
        )
        self.penalty = np.r_[np.ones(p), 0.0]

    def totals(self, weights: np.ndarray) -> np.ndarray:
        """``(reps, m)`` summed weights of the cells of each distinct row."""
        return (self.gather.T @ weights.T).T

    def hessians(self, curvature: np.ndarray, C: float) -> np.ndarray:
        """``(reps, q, q)``: ``C sum_j curvature[r, j] x_j x_j^T + diag(penalty)``."""
        summed = (self.outer.T @ curvature.T).T.reshape(-1, self.q, self.q)
        return C * summed + np.diag(self.penalty)


def _objective(z, beta, total, positive, penalty, C: float) -> np.ndarray:
    loss = total * np.logaddexp(0.0, z) - positive * z  # minus the log-likelihood
    return C * loss.sum(axis=1) + 0.5 * (penalty * beta**2).sum(axis=1)


def batched_logistic(
    design: np.ndarray, labels: np.ndarray, weights: np.ndarray, *, C: float = 1.0
) -> tuple[np.ndarray, np.ndarray]:
    """Coefficients ``(reps, p)`` and intercepts ``(reps,)`` of one fit per row of ``weights``.

    Parameters
    ----------
    design
        ``(n, p)`` features of the cells.
    labels
        ``(n,)`` labels in {0, 1}.
    weights
        ``(reps, n)`` non-negative weights (records per cell); every row must hold both
        classes with positive weight (otherwise the optimum is unbounded in the intercept).
    C
        Inverse regularisation strength, as in sklearn.
    """
    design = np.asarray(design, dtype=float)
    labels = np.asarray(labels, dtype=float)
    weights = np.atleast_2d(np.asarray(weights, dtype=float))
    if design.ndim != 2 or labels.shape != design.shape[:1] or weights.shape[1:] != labels.shape:
        raise ValueError(
            f"design {design.shape}, labels {labels.shape} and weights {weights.shape} disagree"
        )
    rows = _Rows(design)
    total, positive = rows.totals(weights), rows.totals(weights * labels)
    beta = np.zeros((weights.shape[0], rows.q))
    z = beta @ rows.x.T
    value = _objective(z, beta, total, positive, rows.penalty, C)
    active = np.arange(weights.shape[0])
    for _ in range(_MAX_ITER):
        if active.size == 0:
            break
        b, tot, pos = beta[active], total[active], positive[active]
        prob = expit(z[active])
        grad = C * ((tot * prob - pos) @ rows.x) + rows.penalty * b
        hess = rows.hessians(tot * prob * (1.0 - prob), C)
        step = np.linalg.solve(hess, grad[:, :, None])[:, :, 0]
        # backtracking: halve the step of every fit whose objective does not decrease
        scale = np.ones(active.size)
        old = value[active]
        for _ in range(60):
            trial = b - scale[:, None] * step
            trial_z = trial @ rows.x.T
            trial_value = _objective(trial_z, trial, tot, pos, rows.penalty, C)
            worse = trial_value > old + 1e-12 * np.abs(old)
            if not worse.any():
                break
            scale[worse] *= 0.5
        beta[active], z[active], value[active] = trial, trial_z, trial_value
        moved = np.abs(scale[:, None] * step).max(axis=1)
        done = moved <= _STEP_TOL * (1.0 + np.abs(trial).max(axis=1))
        active = active[~done]
    return beta[:, : rows.p], beta[:, rows.p]


def decision_error_bound(
    design: np.ndarray,
    weights: np.ndarray,
    coef: np.ndarray,
    intercept: np.ndarray,
    *,
    C: float = 1.0,
    tol: float = 1e-8,
) -> np.ndarray:
    """``(reps, n)`` first-order bound on how far an approximate solver's decision values
    can lie from those of the exact optimum ``(coef, intercept)``.

    sklearn's Newton solvers stop once the largest absolute gradient of the *scaled*
    objective (the objective divided by ``C * sum(weights)``) is at most ``tol``. Near the
    optimum ``beta_s - beta* = H_s^{-1} g_s`` (``H_s`` the scaled Hessian), so the decision
    value of cell ``i`` moves by ``|x_i^T H_s^{-1} g_s| <= tol * ||H_s^{-1} x_i||_1``. The
    bound is that quantity, with ``x_i`` the cell's features and a 1 for the intercept.
    """
    rows = _Rows(np.asarray(design, dtype=float))
    weights = np.atleast_2d(np.asarray(weights, dtype=float))
    total = rows.totals(weights)
    beta = np.hstack([np.atleast_2d(coef), np.asarray(intercept, dtype=float)[:, None]])
    prob = expit(beta @ rows.x.T)
    scaled = rows.hessians(total * prob * (1.0 - prob), C) / (C * total.sum(axis=1))[:, None, None]
    inverse = np.linalg.inv(scaled)  # (reps, q, q), symmetric
    reps, q = inverse.shape[:2]
    # one product for all repetitions: (m, q) @ (q, reps * q) -> (m, reps, q)
    spread = rows.x @ inverse.transpose(1, 0, 2).reshape(q, reps * q)
    per_row = np.abs(spread.reshape(-1, reps, q)).sum(axis=2).T  # (reps, m)
    return tol * per_row[:, rows.of_cell]
