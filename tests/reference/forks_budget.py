"""Plain-NumPy references for :mod:`streamlearn.kernels.forks_budget` (FORKS Eq. 5, 10;
SkeGD's first-order step) and literal per-sample transcriptions of the toolbox baselines
(spec Sec. 8.2-8.7), written for clarity, not speed."""

from __future__ import annotations

import numpy as np


def gauss_row(S: np.ndarray, x: np.ndarray, gamma: float) -> np.ndarray:
    return np.exp(-gamma * np.sum((S - x) ** 2, axis=1))


def dloss(f: float, y: float, loss: int) -> float:
    if y * f >= 1.0:
        return 0.0
    return -y if loss == 0 else -2.0 * y * (1.0 - y * f)


def feature_map(x: np.ndarray, L: np.ndarray, gamma: float, Z: np.ndarray) -> np.ndarray:
    return Z.T @ gauss_row(L, x, gamma)


def ons_score(z: np.ndarray, v: np.ndarray, Ainv: np.ndarray, C: float,
              project: bool) -> tuple[float, np.ndarray]:
    """Eq. (10), projection part: the A-norm projection onto {|z^T w| <= C}."""
    p = float(z @ v)
    if project and abs(p) > C:
        u = Ainv @ z
        w = v - np.sign(p) * (abs(p) - C) / float(z @ u) * u
        return float(np.sign(p) * C), w
    return p, v.copy()


def ons_step(z: np.ndarray, w: np.ndarray, f: float, y: float, loss: int, cw: float,
             Ainv: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Eq. (10), gradient part, with A^{-1} recomputed by an explicit inverse."""
    g = dloss(f, y, loss) * z
    if not np.any(g):
        return Ainv.copy(), w.copy()
    A = np.linalg.inv(Ainv) + cw * np.outer(g, g)
    Ainv_new = np.linalg.inv(A)
    return Ainv_new, w - Ainv_new @ g


def stage2_loop(X: np.ndarray, Y: np.ndarray, L: np.ndarray, gamma: float, Z: np.ndarray,
                v: np.ndarray, Ainv: np.ndarray, C: float, project: bool, second_order: bool,
                cw: float, eta: float, lam: float, loss: int
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Predictions, final ``v`` and ``A^{-1}``, and the score of every round."""
    v, Ainv = v.copy(), Ainv.copy()
    preds = np.zeros(X.shape[0], dtype=np.int64)
    scores = np.zeros(X.shape[0])
    for t in range(X.shape[0]):
        z = feature_map(X[t], L, gamma, Z)
        if second_order:
            f, w = ons_score(z, v, Ainv, C, project)
        else:
            f = float(z @ v)
        preds[t] = 1 if f >= 0 else 0
        scores[t] = f
        if second_order:
            Ainv, v = ons_step(z, w, f, Y[t], loss, cw, Ainv)
        else:
            v = v - eta * (dloss(f, Y[t], loss) * z + lam * v)
    return preds, v, Ainv, scores


# --------------------------------------------------------------------------------------
# literal per-sample baselines (loops over the support vectors, lists instead of arrays)
# --------------------------------------------------------------------------------------


def _k(a: np.ndarray, b: np.ndarray, gamma: float) -> float:
    return float(np.exp(-gamma * np.sum((a - b) ** 2)))


def rbp(X: np.ndarray, Y: np.ndarray, gamma: float, B: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    sv: list[np.ndarray] = []
    a: list[float] = []
    out = []
    for x, y in zip(X, Y, strict=True):
        f = sum(ai * _k(s, x, gamma) for s, ai in zip(sv, a, strict=True))
        yhat = 1.0 if f >= 0 else -1.0
        out.append(1 if yhat > 0 else 0)
        if yhat != y:
            if len(sv) == B:
                i = int(rng.integers(len(sv)))
                sv[i], a[i] = sv[-1], a[-1]  # same slot policy as the implementation
                sv.pop()
                a.pop()
            sv.append(x)
            a.append(y)
    return np.array(out)


def bpa_s(X: np.ndarray, Y: np.ndarray, gamma: float, B: int, C: float) -> np.ndarray:
    sv: list[np.ndarray] = []
    a: list[float] = []
    out = []
    for x, y in zip(X, Y, strict=True):
        f = sum(ai * _k(s, x, gamma) for s, ai in zip(sv, a, strict=True))
        out.append(1 if f >= 0 else 0)
        loss = max(0.0, 1.0 - y * f)
        if loss <= 0:
            continue
        tau = min(C, loss)
        if len(sv) < B:
            sv.append(x)
            a.append(tau * y)
            continue
        best, best_q, best_beta = -1, np.inf, 0.0
        for r in range(len(sv)):
            kr = _k(sv[r], x, gamma)
            beta = a[r] * kr + tau * y
            dist = a[r] ** 2 + beta ** 2 - 2 * a[r] * beta * kr
            fr = f - a[r] * kr + beta
            q = 0.5 * dist + C * max(0.0, 1.0 - y * fr)
            if q < best_q:
                best, best_q, best_beta = r, q, beta
        sv[best], a[best] = x, best_beta
    return np.array(out)


def bogd(X: np.ndarray, Y: np.ndarray, gamma: float, B: int, eta: float, lam: float,
         gamma_b: float, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    sv: list[np.ndarray] = []
    a: list[float] = []
    out = []
    for x, y in zip(X, Y, strict=True):
        f = sum(ai * _k(s, x, gamma) for s, ai in zip(sv, a, strict=True))
        out.append(1 if f >= 0 else 0)
        if y * f > 1:
            a = [ai * (1 - eta * lam) for ai in a]
            continue
        if len(sv) < B:
            a = [ai * (1 - eta * lam) for ai in a]
        else:
            i = int(rng.integers(len(sv)))
            sv[i], a[i] = sv[-1], a[-1]
            sv.pop()
            a.pop()
            a = [ai * B * (1 - eta * lam) / (B - 1) for ai in a]
        sv.append(x)
        a.append(eta * y)
        if len(sv) == B:
            top = max(abs(ai) for ai in a)
            a = [ai * min(eta * gamma_b / top, 1.0) for ai in a]
    return np.array(out)


def projectron(X: np.ndarray, Y: np.ndarray, gamma: float, B: int) -> np.ndarray:
    """Toolbox Projectron with the inverse recomputed by ``np.linalg.inv`` every time."""
    sv: list[np.ndarray] = []
    a = np.zeros(0)
    out = []
    for x, y in zip(X, Y, strict=True):
        k = np.array([_k(s, x, gamma) for s in sv])
        f = float(k @ a) if sv else 0.0
        yhat = 1.0 if f >= 0 else -1.0
        out.append(1 if yhat > 0 else 0)
        if yhat == y:
            continue
        if not sv:
            sv.append(x)
            a = np.array([y])
            continue
        K = np.array([[_k(p, q, gamma) for q in sv] for p in sv])
        d = np.linalg.solve(K, k)
        delta2 = 1.0 - float(k @ d)
        if len(sv) == B or delta2 < 1e-10:
            a = a + y * d
        else:
            sv.append(x)
            a = np.append(a, y)
    return np.array(out)


# --------------------------------------------------------------------------------------
# fused loops: FORKS/SkeGD stage 1 and the PROS-N-KONS rounds between dictionary changes
# --------------------------------------------------------------------------------------


def kernel_ogd_fill(X: np.ndarray, Y: np.ndarray, S: np.ndarray, coef: np.ndarray, n: int,
                    gamma: float, eta: float, loss: int
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, int, int]:
    """Stage-1 kernel OGD until the buffer ``S`` is full or ``X`` ends: predictions,
    scores, the buffer and coefficients, the number stored and the rounds run."""
    S, coef = S.copy(), coef.copy()
    preds, scores = [], []
    for t in range(X.shape[0]):
        f = float(np.sum(gauss_row(S[:n], X[t], gamma) * coef[:n])) if n else 0.0
        preds.append(1 if f >= 0 else 0)
        scores.append(f)
        dl = dloss(f, Y[t], loss)
        if dl != 0.0:
            S[n], coef[n] = X[t], -eta * dl
            n += 1
            if n == S.shape[0]:
                break
    return np.array(preds), np.array(scores), S, coef, n, len(preds)


def kernel_rows(S: np.ndarray, gamma: float) -> np.ndarray:
    """The rows :func:`kernel_ogd_fill` keeps: entry ``(i, j)``, ``j < i``, is
    ``kappa(S[i], S[j])``; NaN on and above the diagonal."""
    n = S.shape[0]
    K = np.full((n, n), np.nan)
    for i in range(1, n):
        K[i, :i] = gauss_row(S[:i], S[i], gamma)
    return K


def gram_from_rows(K: np.ndarray, P: np.ndarray, gamma: float) -> np.ndarray:
    """The Gram matrix of ``P`` from its entries below the diagonal (``K``; the rest is
    ignored): the lower triangle, its mirror, and ``kappa(P[i], P[i])`` on the diagonal."""
    low = np.tril(np.nan_to_num(K, nan=0.0), -1)
    return low + low.T + np.diag(gauss_row_pairs(P, P, gamma))


def gauss_row_pairs(A: np.ndarray, B: np.ndarray, gamma: float) -> np.ndarray:
    """``kappa(A[i], B[i])`` for every ``i``."""
    return np.exp(-gamma * np.sum((A - B) ** 2, axis=1))


def pnk_loop(X: np.ndarray, Y: np.ndarray, S: np.ndarray, gamma: float, P: np.ndarray,
             v: np.ndarray, Ainv: np.ndarray, C: float, project: bool, cw: float, loss: int,
             p: np.ndarray, Kinv: np.ndarray, ridge: float, eps: float, beta: float,
             kors: bool, rng: np.random.Generator
             ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, int, float]:
    """PROS-N-KONS with the fixed dictionary ``S`` (spec Sec. 8.9) until the first
    accepted round: predictions, scores, final ``v`` and ``A^{-1}``, the rounds run and
    the acceptance probability of the accepted round (0 if none)."""
    v, Ainv = v.copy(), Ainv.copy()
    n = S.shape[0]
    preds, scores = [], []
    for t in range(X.shape[0]):
        k = gauss_row(S, X[t], gamma)
        if n:
            z = P @ k
            f, w = ons_score(z, v, Ainv, C, project)
        else:
            f = 0.0
        preds.append(1 if f >= 0 else 0)
        scores.append(f)
        if n:
            Ainv, v = ons_step(z, w, f, Y[t], loss, cw, Ainv)
        if not kors:
            continue
        kb = k / np.sqrt(p)
        tau = (1.0 + eps) / ridge * max(0.0, 1.0 - float(kb @ Kinv @ kb)) if n else \
            (1.0 + eps) / ridge
        pt = min(beta * tau, 1.0)
        if pt > 0.0 and rng.random() < pt:
            return np.array(preds), np.array(scores), v, Ainv, t + 1, pt
    return np.array(preds), np.array(scores), v, Ainv, X.shape[0], 0.0
