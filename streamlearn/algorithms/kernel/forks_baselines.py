"""The eight baselines of the FORKS paper's Table 1 besides SkeGD (which is in
:mod:`streamlearn.algorithms.kernel.forks`): RBP, BPA-S, Projectron, BOGD, FOGD, NOGD and
PROS-N-KONS, as the Lu & Hoi "Large Scale Online Kernel Learning" toolbox implements them
(spec Sec. 8.2-8.9). All are binary Gaussian-kernel learners over the shared layer
:class:`~streamlearn.algorithms.kernel.kernel_budget.KernelBinaryClassifier` (one label mapping,
one kernel-row function); budget maintenance is vectorised over the support vectors.

Paper: Wen et al., *Fast Second-Order Online Kernel Learning Through Incremental Matrix
Sketching and Decomposition* (FORKS), Sec. 5.1, Table 1.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, ClassVar

import numpy as np

from streamlearn.algorithms.kernel.forks_sketch import pinv
from streamlearn.algorithms.kernel.kernel_budget import KernelBinaryClassifier, pm1_labels
from streamlearn.algorithms.linalg import sym_eigh
from streamlearn.base import Interval, Options, UserError
from streamlearn.kernels.forks_budget import (
    blas_matvec,
    dloss,
    gauss_matrix,
    kors_probability,
    ons_score,
    ons_step,
    pnk_loop,
)
from streamlearn.registry import register_algorithm

__all__ = ["BOGD", "BPAS", "FOGD", "NOGD", "PROSNKONS", "RBP", "Projectron"]


def _remove(learner: KernelBinaryClassifier, idx: int) -> None:
    """Remove SV ``idx`` by moving the last one into its slot."""
    last = learner.n_sv_ - 1
    learner.sv_[idx] = learner.sv_[last]
    learner.coef_[idx] = learner.coef_[last]
    learner.n_sv_ = last


@register_algorithm("rbp")
class RBP(KernelBinaryClassifier):
    """Random Budget Perceptron (Cavallanti et al. 2007; toolbox ``RBP.m``).

    On a mistake: append ``(x, y)``; when the budget ``B`` is full, first remove one SV
    chosen uniformly at random (spec Sec. 8.2).

    References
    ----------
    [^1]: G. Cavallanti, N. Cesa-Bianchi, C. Gentile. Tracking the best hyperplane with a
          simple budget Perceptron. Machine Learning 69, 2007.
    """

    def _init_state(self, d: int) -> None:
        self._sv_alloc(int(self.budget), d)

    def _score(self, x: np.ndarray) -> float:
        return self._sv_score(x)

    def _update(self, x: np.ndarray, y: float, f: float) -> None:
        if (1.0 if f >= 0.0 else -1.0) == y:
            return
        if self.n_sv_ == self.budget:
            _remove(self, int(self._rng.integers(self.n_sv_)))
        self._sv_append(x, y)


@register_algorithm("bpa_s")
class BPAS(KernelBinaryClassifier):
    """Budgeted Passive-Aggressive, simple variant BPA-S (Wang & Vucetic 2010; toolbox
    ``BPAs.m``; spec Sec. 8.3).

    With ``l = max(0, 1 - y f) > 0`` and ``tau = min(C, l)``: append ``tau y`` while below
    budget; otherwise replace in place the SV ``r`` minimising
    ``Q_r = dist_r / 2 + C max(0, 1 - y f_r)``, with ``beta_r = a_r k_r + tau y``.

    Parameters
    ----------
    C
        Aggressiveness (1).

    References
    ----------
    [^1]: Z. Wang, S. Vucetic. Online passive-aggressive algorithms on a budget.
          AISTATS 2010.
    """

    _constraints: ClassVar[dict[str, Any]] = {
        **KernelBinaryClassifier._constraints, "C": Interval(0.0, None, closed="neither")}

    def __init__(self, *, C: float = 1.0, **kwargs: Any) -> None:
        self.C = C
        super().__init__(**kwargs)

    def _init_state(self, d: int) -> None:
        self._sv_alloc(int(self.budget), d)

    def _score(self, x: np.ndarray) -> float:
        return self._sv_score(x)

    def _update(self, x: np.ndarray, y: float, f: float) -> None:
        loss = max(0.0, 1.0 - y * f)
        if loss <= 0.0:
            return
        tau = min(float(self.C), loss)
        n = self.n_sv_
        if n < self.budget:
            self._sv_append(x, tau * y)
            return
        k = self._sv_row(x)
        a = self.coef_[:n]
        beta = a * k + tau * y
        dist = a * a + beta * beta - 2.0 * a * beta * k
        fr = f - a * k + beta
        Q = 0.5 * dist + self.C * np.maximum(0.0, 1.0 - y * fr)
        r = int(np.argmin(Q))
        self.sv_[r] = x
        self.coef_[r] = beta[r]


@register_algorithm("projectron")
class Projectron(KernelBinaryClassifier):
    """Projectron, the toolbox's budget variant (Orabona et al. 2008; ``projectron.m``;
    spec Sec. 8.4): on a mistake add ``(x, y)`` and grow ``K^{-1}`` while below budget;
    when full (or ``delta^2 < 1e-10``, e.g. a duplicate) project,
    ``a <- a + y K^{-1} k``.

    References
    ----------
    [^1]: F. Orabona, J. Keshet, B. Caputo. The Projectron: a bounded kernel-based
          Perceptron. ICML 2008.
    """

    def _init_state(self, d: int) -> None:
        B = int(self.budget)
        self._sv_alloc(B, d)
        self.Kinv_ = np.zeros((B, B))

    def _score(self, x: np.ndarray) -> float:
        return self._sv_score(x)

    def _update(self, x: np.ndarray, y: float, f: float) -> None:
        if (1.0 if f >= 0.0 else -1.0) == y:
            return
        n = self.n_sv_
        if n == 0:
            self._sv_append(x, y)
            self.Kinv_[0, 0] = 1.0
            return
        k = self._sv_row(x).copy()
        Ki = self.Kinv_[:n, :n]
        dstar = Ki @ k
        delta2 = 1.0 - float(k @ dstar)
        if n == self.budget or delta2 < 1e-10:
            self.coef_[:n] += y * dstar
            return
        Ki += np.outer(dstar, dstar) / delta2
        self.Kinv_[:n, n] = -dstar / delta2
        self.Kinv_[n, :n] = -dstar / delta2
        self.Kinv_[n, n] = 1.0 / delta2
        self._sv_append(x, y)


@register_algorithm("bogd")
class BOGD(KernelBinaryClassifier):
    """Bounded Online Gradient Descent (Zhao et al. 2012), toolbox ``BOGD.m`` variant
    (spec Sec. 8.5): on ``y f <= 1`` shrink by ``1 - eta lam`` and append ``eta y``; when
    full, remove a uniform SV, rescale the rest by ``B (1 - eta lam) / (B - 1)``, append,
    and cap ``max |a_i| <= eta gamma_b``.

    Parameters
    ----------
    eta
        Step size (0.2, FORKS App. D.1).
    lam
        Regulariser; ``None`` means ``1 / horizon^2`` (toolbox) or 0 without a horizon.
    horizon
        Stream length ``N``.
    gamma_b
        Coefficient bound (10).

    References
    ----------
    [^1]: P. Zhao, J. Wang, P. Wu, R. Jin, S. C. H. Hoi. Fast bounded online gradient
          descent algorithms for scalable kernel-based online learning. ICML 2012.
    """

    _constraints: ClassVar[dict[str, Any]] = {
        **KernelBinaryClassifier._constraints,
        "eta": Interval(0.0, None, closed="neither"),
        "lam": Interval(0.0, None, allow_none=True),
        "horizon": Interval(1, None, integer=True, allow_none=True),
        "gamma_b": Interval(0.0, None, closed="neither"),
    }

    def __init__(self, *, eta: float = 0.2, lam: float | None = None,
                 horizon: int | None = None, gamma_b: float = 10.0, **kwargs: Any) -> None:
        self.eta = eta
        self.lam = lam
        self.horizon = horizon
        self.gamma_b = gamma_b
        super().__init__(**kwargs)

    def _init_state(self, d: int) -> None:
        self._sv_alloc(int(self.budget), d)
        if self.lam is not None:
            self.lam_ = float(self.lam)
        else:
            self.lam_ = 1.0 / float(self.horizon) ** 2 if self.horizon else 0.0

    def _score(self, x: np.ndarray) -> float:
        return self._sv_score(x)

    def _update(self, x: np.ndarray, y: float, f: float) -> None:
        shrink = 1.0 - self.eta * self.lam_
        n = self.n_sv_
        if y * f > 1.0:
            self.coef_[:n] *= shrink
            return
        step = self.eta * y if self.loss == "hinge" else -self.eta * dloss(f, y, self.loss_code_)
        B = int(self.budget)
        if n < B:
            self.coef_[:n] *= shrink
            self._sv_append(x, step)
            return
        _remove(self, int(self._rng.integers(n)))
        if B > 1:
            self.coef_[: B - 1] *= B * shrink / (B - 1)
        self._sv_append(x, step)
        a = self.coef_[: self.n_sv_]
        top = float(np.max(np.abs(a)))
        if top > 0.0:
            a *= min(self.eta * self.gamma_b / top, 1.0)


@register_algorithm("fogd")
class FOGD(KernelBinaryClassifier):
    """Fourier Online Gradient Descent (Lu et al. 2016; toolbox ``FouGD.m``; spec
    Sec. 8.6): ``D_f = dim_factor * B`` random Fourier frequencies
    ``Omega ~ N(0, sigma^-2)``, features ``[cos(Omega^T x); sin(Omega^T x)]`` (no
    ``1/sqrt(D_f)``, as in the toolbox), OGD ``w <- w - eta l'(f, y) z``.

    Parameters
    ----------
    eta
        Step size (0.2, FORKS App. D.1).
    dim_factor
        Frequencies per budget unit (4: "feature dimension 4B").

    References
    ----------
    [^1]: J. Lu, S. C. H. Hoi, J. Wang, P. Zhao, Z.-Y. Liu. Large scale online kernel
          learning. JMLR 17, 2016.
    """

    _constraints: ClassVar[dict[str, Any]] = {
        **KernelBinaryClassifier._constraints,
        "eta": Interval(0.0, None, closed="neither"),
        "dim_factor": Interval(1, None, integer=True),
    }

    def __init__(self, *, eta: float = 0.2, dim_factor: int = 4, **kwargs: Any) -> None:
        self.eta = eta
        self.dim_factor = dim_factor
        super().__init__(**kwargs)

    def _init_state(self, d: int) -> None:
        D = int(self.dim_factor) * int(self.budget)
        self.Omega_ = self._rng.normal(0.0, 1.0 / float(self.sigma), size=(d, D))
        self.w_ = np.zeros(2 * D)

    def _score(self, x: np.ndarray) -> float:
        u = x @ self.Omega_
        self._z = np.concatenate([np.cos(u), np.sin(u)])
        return float(self._z @ self.w_)

    def _update(self, x: np.ndarray, y: float, f: float) -> None:
        dl = dloss(f, y, self.loss_code_)
        if dl != 0.0:
            self.w_ -= self.eta * dl * self._z


@register_algorithm("nogd")
class NOGD(KernelBinaryClassifier):
    """Nyström Online Gradient Descent (Lu et al. 2016; toolbox ``NysGD.m``; spec
    Sec. 8.7): kernel OGD until ``B`` SVs; at the first margin error with a full budget,
    the top-``k`` eigenpairs of ``K(SV, SV)`` give ``M = Lambda^{-1/2} V^T`` and the model
    is transferred, ``w = (a^T M^+)^T``; then OGD on ``M k(x)``.

    The defaults are the spec's NOGD (MATLAB toolbox). ``start``, ``eig_order`` and
    ``switch_on`` select the toolbox variants of spec Sec. 9 pitfall 18 (C++ toolbox),
    for measuring how much each one moves the results; they are not the FORKS setting.

    Parameters
    ----------
    eta
        Step size (0.2).
    k_ratio
        Rank ``k = round(k_ratio B)`` (0.1 in FORKS).
    start
        Model at the switch: ``"transfer"`` (``w = (a^T M^+)^T``, [T-M], spec Sec. 8.7)
        or ``"zero"`` (``w = 0``, the C++ toolbox [T-C], pitfall 18); the first linear
        step follows either way.
    eig_order
        Which ``k`` eigenpairs of ``K(SV, SV)`` build ``M``: ``"largest"`` (the top ``k``,
        as MATLAB ``eigs``; spec Sec. 8.7), ``"unsorted"`` (the first ``k`` in the order a
        general unsymmetric eigensolver returns them, LAPACK ``dgeev`` via
        ``np.linalg.eig``, real parts: emulates the C++ toolbox's unsorted Eigen
        ``EigenSolver``, pitfall 18) or ``"smallest"`` (the ``k`` smallest: the worst
        case of an unsorted solver). The guard of Sec. 8.7 (drop ``lambda <= 1e-12
        lambda_max``, ``lambda_max`` the largest eigenvalue of ``K``) applies to all three.
    switch_on
        When the Nyström stage starts: ``"error"`` (at the first margin error while
        ``|SV| = B``, the toolbox ``NysGD.m``; spec Sec. 8.7) or ``"full"`` (right after
        the ``B``-th SV is appended, in the same round; no linear step in that round).

    References
    ----------
    [^1]: J. Lu, S. C. H. Hoi, J. Wang, P. Zhao, Z.-Y. Liu. Large scale online kernel
          learning. JMLR 17, 2016.
    """

    _constraints: ClassVar[dict[str, Any]] = {
        **KernelBinaryClassifier._constraints,
        "eta": Interval(0.0, None, closed="neither"),
        "k_ratio": Interval(0.0, None, closed="neither"),
        "start": Options(("transfer", "zero")),
        "eig_order": Options(("largest", "unsorted", "smallest")),
        "switch_on": Options(("error", "full")),
    }

    def __init__(self, *, eta: float = 0.2, k_ratio: float = 0.1, start: str = "transfer",
                 eig_order: str = "largest", switch_on: str = "error",
                 **kwargs: Any) -> None:
        self.eta = eta
        self.k_ratio = k_ratio
        self.start = start
        self.eig_order = eig_order
        self.switch_on = switch_on
        super().__init__(**kwargs)

    def _init_state(self, d: int) -> None:
        self._sv_alloc(int(self.budget), d)
        self.linear_ = False

    def _score(self, x: np.ndarray) -> float:
        f = self._sv_score(x)
        if self.linear_:
            self._z = self.M_ @ self._krow[: self.n_sv_]
            return float(self._z @ self.w_)
        return f

    def _update(self, x: np.ndarray, y: float, f: float) -> None:
        dl = dloss(f, y, self.loss_code_)
        if dl == 0.0:
            return
        if self.linear_:
            self.w_ -= self.eta * dl * self._z
            return
        if self.n_sv_ < self.budget:
            self._sv_append(x, -self.eta * dl)
            if self.switch_on == "full" and self.n_sv_ == self.budget:
                self._switch()
            return
        # switch to the Nystrom stage (the kernel row of x is still in _krow)
        self._switch()
        self._z = self.M_ @ self._krow[: self.n_sv_]
        self.w_ -= self.eta * dl * self._z

    def _eigenpairs(self, K: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The ``k`` eigenpairs of ``K`` that ``eig_order`` selects, after the guard."""
        k = max(1, round(self.k_ratio * self.budget))
        if self.eig_order == "unsorted":
            cvals, cvecs = np.linalg.eig(K)
            top = float(np.max(cvals.real))
            vals, vecs = cvals.real[:k], cvecs.real[:, :k]
        else:
            vals, vecs = sym_eigh(K)
            top = float(vals.max())
            order = (np.argsort(vals)[::-1] if self.eig_order == "largest"
                     else np.argsort(vals))[:k]
            vals, vecs = vals[order], vecs[:, order]
        keep = vals > 1e-12 * top
        return vals[keep], vecs[:, keep]

    def _switch(self) -> None:
        """Build ``M`` from ``K(SV, SV)`` and start the linear model (``start``)."""
        K = gauss_matrix(self.sv_, self.sv_, self.gamma_)
        vals, vecs = self._eigenpairs(0.5 * (K + K.T))
        self.eigvals_ = vals
        self.M_ = np.ascontiguousarray((vecs / np.sqrt(vals)).T)
        if self.start == "zero":
            self.w_ = np.zeros(self.M_.shape[0])
        else:
            self.w_ = pinv(self.M_).T @ self.coef_
        self.linear_ = True

    @classmethod
    def _test_params(cls) -> Iterator[dict[str, Any]]:
        yield {"sigma": 2.0, "budget": 20, "seed": 0, "k_ratio": 0.2}


@register_algorithm("pros_n_kons")
class PROSNKONS(KernelBinaryClassifier):
    """PROS-N-KONS (Calandriello, Lazaric, Valko 2017; spec Sec. 8.9): a Nyström
    embedding over a dictionary grown by online ridge-leverage-score sampling (KORS),
    ONS with projection (as FORKS Eq. 10) in the embedded space, restarted whenever the
    dictionary changes.

    Parameters
    ----------
    alpha, ons_sigma, ons_eta, proj_bound
        ONS settings, as in FORKS (0.01, 0.5, 0, 1).
    ridge, eps, beta
        KORS ridge ``gamma_r`` (1), accuracy ``eps`` (0.5), oversampling ``beta`` (1).
        The paper does not state them (spec [R]). ``gamma_r`` sets the dictionary size and
        so the number of ONS restarts: on spambase 311 points at 1 (38.8 % mistakes, the
        constant-predictor rate) against 71 at 16 (33.6 %); results/forks/pnk_ridge.md.
    max_dict
        Dictionary cap ``B_max`` (``None``: uncapped, Table 1; 100 on KuaiRec). The
        ``budget`` parameter is not used.

    References
    ----------
    [^1]: D. Calandriello, A. Lazaric, M. Valko. Efficient second-order online kernel
          learning with adaptive embedding. NIPS 2017.
    """

    _constraints: ClassVar[dict[str, Any]] = {
        **KernelBinaryClassifier._constraints,
        "alpha": Interval(0.0, None, closed="neither"),
        "ons_sigma": Interval(0.0, None, closed="neither"),
        "ons_eta": Interval(0.0, None),
        "proj_bound": Interval(0.0, None, closed="neither", allow_none=True),
        "ridge": Interval(0.0, None, closed="neither"),
        "eps": Interval(0.0, None),
        "beta": Interval(0.0, None, closed="neither"),
        "max_dict": Interval(1, None, integer=True, allow_none=True),
    }

    def __init__(self, *, alpha: float = 0.01, ons_sigma: float = 0.5, ons_eta: float = 0.0,
                 proj_bound: float | None = 1.0, ridge: float = 1.0, eps: float = 0.5,
                 beta: float = 1.0, max_dict: int | None = None, **kwargs: Any) -> None:
        self.alpha = alpha
        self.ons_sigma = ons_sigma
        self.ons_eta = ons_eta
        self.proj_bound = proj_bound
        self.ridge = ridge
        self.eps = eps
        self.beta = beta
        self.max_dict = max_dict
        super().__init__(**kwargs)

    @classmethod
    def _test_params(cls) -> Iterator[dict[str, Any]]:
        yield {"sigma": 2.0, "seed": 0, "max_dict": 30}
        yield {"sigma": 2.0, "seed": 1, "loss": "squared_hinge", "max_dict": 60}

    def _init_state(self, d: int) -> None:
        cap = 64 if self.max_dict is None else int(self.max_dict)
        self._sv_alloc(cap, d)
        self.p_ = np.zeros(cap)
        self.Kbar_inv_ = np.zeros((0, 0))  # (W^1/2 K_I W^1/2 + ridge I)^{-1}, n x n
        self.changed_ = False
        self.P_ = np.zeros((0, 0))
        self.v_ = np.zeros(0)
        self.Ainv_ = np.zeros((0, 0))
        self._w = np.zeros(0)
        self._u = np.zeros(0)
        self.n_restarts_ = 0

    def _restart(self) -> None:
        n = self.n_sv_
        K = gauss_matrix(self.sv_[:n], self.sv_[:n], self.gamma_)
        vals, vecs = sym_eigh(0.5 * (K + K.T))
        keep = vals > 1e-12 * vals.max()
        vals, vecs = vals[keep], vecs[:, keep]
        self.P_ = np.ascontiguousarray((vecs / np.sqrt(vals)).T)
        r = self.P_.shape[0]
        self.v_ = np.zeros(r)
        self.Ainv_ = np.eye(r) / self.alpha
        self._w = np.zeros(r)
        self._u = np.zeros(r)
        self.changed_ = False
        self.n_restarts_ += 1

    def _score(self, x: np.ndarray) -> float:
        if self.changed_:
            self._restart()
        if self.n_sv_ == 0:
            self._z = np.zeros(0)
            return 0.0
        k = self._sv_row(x)
        self._z = blas_matvec(self.P_, k)  # the fused loop's call
        C = 0.0 if self.proj_bound is None else float(self.proj_bound)
        return float(ons_score(self._z, self.v_, self.Ainv_, C, self.proj_bound is not None,
                               self._w, self._u))

    def _update(self, x: np.ndarray, y: float, f: float) -> None:
        n = self.n_sv_
        if n > 0:
            ons_step(self._z, self._w, f, y, self.loss_code_,
                     float(self.ons_sigma + self.ons_eta), self.Ainv_, self.v_, self._u)
        # KORS (after the update)
        if self.max_dict is not None and n >= self.max_dict:
            return
        p = float(kors_probability(self._krow, self.p_, self.Kbar_inv_, n, float(self.eps),
                                   float(self.ridge), float(self.beta)))
        if p <= 0.0 or self._rng.random() >= p:
            return
        self._accept(x, p)

    def _accept(self, x: np.ndarray, p: float) -> None:
        """Add ``x`` (kernel row against the dictionary in ``_krow``) with probability
        ``p`` to the dictionary: block inverse of ``[[Kbar + rI, b], [b^T, c]]``."""
        n = self.n_sv_
        if n == self.sv_.shape[0]:
            self._grow()
        c = 1.0 / p + self.ridge
        Ki = np.empty((n + 1, n + 1))
        if n > 0:
            b = self._krow[:n] / np.sqrt(self.p_[:n] * p)
            Kinv = self.Kbar_inv_
            Kb = Kinv @ b
            s = c - float(b @ Kb)
            Ki[:n, :n] = Kinv + np.outer(Kb, Kb) / s
            Ki[:n, n] = -Kb / s
            Ki[n, :n] = -Kb / s
            Ki[n, n] = 1.0 / s
        else:
            Ki[0, 0] = 1.0 / c
        self.Kbar_inv_ = Ki
        self.p_[n] = p
        self._sv_append(x, 0.0)
        self.changed_ = True

    def predict_learn_many(self, X: np.ndarray, y: np.ndarray) -> np.ndarray:
        """Test-then-train over a chunk: the rounds between dictionary changes in one numba
        call (:func:`~streamlearn.kernels.forks_budget.pnk_loop`), the change itself
        (block inverse, eigen-embedding at the next round) in NumPy; identical to the
        per-sample loop (the same numba functions for every product, the same random
        draws)."""
        X = np.ascontiguousarray(X, dtype=np.float64)
        Y = pm1_labels(y)
        n = X.shape[0]
        out = np.empty(n, dtype=np.int64)
        scores = np.empty(n)
        C = 0.0 if self.proj_bound is None else float(self.proj_bound)
        cw = float(self.ons_sigma + self.ons_eta)
        i = 0
        while i < n:
            if self._cache is not None:
                f = self._step(X[i], y[i])
                scores[i] = f
                out[i] = 1 if f >= 0.0 else 0
                i += 1
                continue
            if self.changed_:
                self._restart()
            ns = self.n_sv_
            kors = self.max_dict is None or ns < int(self.max_dict)
            status, stop, p = pnk_loop(
                X, Y, i, n, self.sv_, ns, self.gamma_, self.P_, self.v_, self.Ainv_,
                self._w, self._u, C, self.proj_bound is not None, cw, self.loss_code_,
                self.p_, self.Kbar_inv_, float(self.ridge), float(self.eps),
                float(self.beta), kors, self._rng, self._krow, out, scores)
            if status != 0:
                raise UserError(f"{type(self).__name__} produced a non-finite score (NaN/inf "
                                "in the input?). Check the stream or rescale the features.")
            self.t_ += stop - i
            if p > 0.0:  # round stop - 1 was accepted into the dictionary
                self._accept(X[stop - 1], p)
            i = stop
        self.chunk_scores_ = scores
        return out

    def _grow(self) -> None:
        n, cap = self.n_sv_, 2 * self.sv_.shape[0]
        sv = np.zeros((cap, self.sv_.shape[1]))
        sv[:n] = self.sv_[:n]
        coef, p = np.zeros(cap), np.zeros(cap)
        p[:n] = self.p_[:n]
        krow = np.zeros(cap)
        krow[:n] = self._krow[:n]  # the row of the point being added (used after growth)
        self.sv_, self.coef_, self.p_ = sv, coef, p
        self._krow = krow
