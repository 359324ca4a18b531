"""Regret of the FORKS learners against the best Gaussian-RKHS function in hindsight
(streamlearn.metrics.kernel_regret; spec Sec. 1.4): the closed-form comparator against a brute-force
solve over kernel expansions, the recorded scores (fused = per-sample, sign = prediction),
the metric through the protocol and the runner, and the config refusal for learners that
expose no scores."""

from __future__ import annotations

import json
from collections import defaultdict

import numpy as np
import pytest
import yaml
from numpy.testing import assert_allclose, assert_array_equal

from streamlearn import components
from streamlearn.base import PreparedData, RunContext
from streamlearn.config import load_config
from streamlearn.evaluation.runner import run_experiment
from streamlearn.kernels.forks_budget import gauss_matrix
from streamlearn.metrics.kernel_regret import best_rkhs_loss_curve, group_ids
from streamlearn.protocols.prequential_classification import PrequentialClassification
from streamlearn.protocols.prequential_loop import run_prequential
from tests.cli_helpers import run_cli_split
from tests.saved_predictions import load_predictions

NINE = ["forks", "rbp", "bpa_s", "projectron", "bogd", "fogd", "nogd", "skegd", "pros_n_kons"]


def _tiny(seed: int, T: int = 12) -> tuple[np.ndarray, np.ndarray]:
    """``T`` points in 2-D, several inputs repeated with conflicting labels."""
    rng = np.random.default_rng(seed)
    base = rng.uniform(-2.0, 2.0, size=(6, 2))
    X = base[rng.integers(0, 6, size=T)]
    y = np.where(rng.random(T) < 0.5, 1.0, -1.0)
    return X, y


def _brute_hinge(X: np.ndarray, y: np.ndarray, gamma: float) -> float:
    """``min_alpha sum_t max(0, 1 - y_t (K alpha)_t)`` as a linear program over
    ``(alpha, xi)``: ``xi >= 0, xi_t >= 1 - y_t (K alpha)_t``."""
    from scipy.optimize import linprog

    T = X.shape[0]
    K = gauss_matrix(X, X, gamma)
    c = np.r_[np.zeros(T), np.ones(T)]
    A_ub = np.hstack([-(y[:, None] * K), -np.eye(T)])
    res = linprog(c, A_ub=A_ub, b_ub=-np.ones(T),
                  bounds=[(None, None)] * T + [(0, None)] * T, method="highs")
    assert res.status == 0, res.message
    return float(res.fun)


def _brute_sq_hinge(X: np.ndarray, y: np.ndarray, gamma: float) -> float:
    """``min_alpha sum_t max(0, 1 - y_t (K alpha)_t)^2`` by L-BFGS (smooth, convex in
    ``K alpha``), from several starts."""
    from scipy.optimize import minimize

    K = gauss_matrix(X, X, gamma)

    def fun(a: np.ndarray) -> tuple[float, np.ndarray]:
        h = np.maximum(0.0, 1.0 - y * (K @ a))
        return float(h @ h), K @ (-2.0 * h * y)

    best = np.inf
    for a0 in (np.zeros(len(y)), np.linalg.lstsq(K, y, rcond=None)[0]):
        res = minimize(fun, a0, jac=True, method="L-BFGS-B",
                       options={"maxiter": 20000, "ftol": 1e-15, "gtol": 1e-12})
        best = min(best, float(res.fun))
    return best


@pytest.mark.parametrize("seed", range(6))
def test_comparator_equals_brute_force_on_every_prefix(seed: int) -> None:
    X, y = _tiny(seed)
    gamma = 0.5
    hinge = best_rkhs_loss_curve(X, y, "hinge")
    sq = best_rkhs_loss_curve(X, y, "squared_hinge")
    assert len(np.unique(X, axis=0)) < len(X)  # duplicates present
    for T in range(1, len(y) + 1):
        assert hinge[T - 1] == pytest.approx(_brute_hinge(X[:T], y[:T], gamma), abs=1e-6)
        assert sq[T - 1] == pytest.approx(_brute_sq_hinge(X[:T], y[:T], gamma), abs=1e-5)


def test_comparator_counts_only_conflicts() -> None:
    X = np.array([[0.0], [1.0], [0.0], [-0.0], [1.0], [2.0]])
    y = np.array([1.0, -1.0, -1.0, -1.0, 1.0, 1.0])
    # group {0, -0}: +,-,- ; group {1}: -,+ ; group {2}: +
    assert_array_equal(best_rkhs_loss_curve(X, y, "hinge"), [0, 0, 2, 2, 4, 4])
    assert_allclose(best_rkhs_loss_curve(X, y, "squared_hinge"),
                    [0, 0, 2, 2 + 2 / 3, 4 + 2 / 3, 4 + 2 / 3])
    assert group_ids(X)[0] == group_ids(X)[3]  # -0.0 and 0.0 give the same kernel row
    distinct = np.arange(5.0)[:, None]
    assert_array_equal(best_rkhs_loss_curve(distinct, np.array([1, -1, 1, -1, 1.0]),
                                            "hinge"), np.zeros(5))


def _stream(seed: int, n: int = 400) -> tuple[np.ndarray, np.ndarray]:
    """A binary stream on a coarse grid (so inputs repeat), noisy labels."""
    rng = np.random.default_rng(seed)
    X = np.round(rng.normal(size=(n, 3)), 0)
    y = ((X[:, 0] + 0.5 * X[:, 1] + 0.7 * rng.normal(size=n)) > 0).astype(np.int64)
    return np.ascontiguousarray(X), y


def _learner(name: str, **extra):
    cls = components.get_algorithm(name)
    params = {**next(iter(cls._test_params())), **extra}
    return cls(**params)


@pytest.mark.floatpath
@pytest.mark.parametrize("name", NINE)
@pytest.mark.parametrize("loss", ["hinge", "squared_hinge"])
def test_fused_and_per_sample_scores_are_identical(name: str, loss: str) -> None:
    X, y = _stream(1)
    outs = []
    for use_many in (True, False):
        learner = _learner(name, loss=loss)
        learner.reset(X.shape[1], 2)
        outs.append(run_prequential(learner, X, y, chunk_size=37, use_many=use_many,
                                    record_scores=True))
    fused, single = outs
    assert fused.fused and not single.fused
    assert_array_equal(fused.scores, single.scores)
    assert_array_equal(fused.y_pred, single.y_pred)
    assert_array_equal(fused.y_pred, np.where(fused.scores >= 0.0, 1, 0))
    assert np.any(fused.scores != 0.0)
    assert run_prequential(_reset(name, X), X, y).scores is None  # only when asked


def _reset(name: str, X: np.ndarray):
    learner = _learner(name)
    learner.reset(X.shape[1], 2)
    return learner


def test_sketched_learners_reach_stage_two_in_the_score_test() -> None:
    # the fused numba loop (sketch_stage2_loop) must be among the paths compared above
    X, y = _stream(1)
    for name in ("forks", "skegd"):
        learner = _reset(name, X)
        run_prequential(learner, X, y, chunk_size=37, record_scores=True)
        assert learner.phase_ == 2 and learner.n_sketch_updates_ >= 2


def _independent_regret(X: np.ndarray, y: np.ndarray, scores: np.ndarray, T: int,
                        sq: bool) -> float:
    """``sum hinge - comparator`` after ``T`` rounds with a dictionary of input tuples."""
    ypm = np.where(y == 1, 1.0, -1.0)
    loss = 0.0
    counts: dict[tuple[float, ...], list[int]] = defaultdict(lambda: [0, 0])
    for t in range(T):
        h = max(0.0, 1.0 - ypm[t] * scores[t])
        loss += h * h if sq else h
        counts[tuple(X[t].tolist())][0 if ypm[t] > 0 else 1] += 1
    best = sum((4.0 * p * q / (p + q)) if sq else 2.0 * min(p, q)
               for p, q in counts.values())
    return (loss - best) / T


@pytest.mark.parametrize("name", ["forks", "pros_n_kons", "nogd"])
def test_protocol_regret_equals_independent_computation(name: str) -> None:
    X, y = _stream(2, n=300)
    proto = PrequentialClassification()
    data = PreparedData(X=X, y=y, info={"label": "grid"}, n_classes=2)
    res = proto.run(_learner(name), data,
                    RunContext(metrics=("mistake_rate", "regret_hinge", "regret_sq_hinge"),
                               checkpoints=7, chunk_size=50))
    scores = res.arrays["scores"]
    assert_array_equal(res.arrays["y_pred"], np.where(scores >= 0.0, 1, 0))
    assert "scores" not in data.extra  # the cached prepared data is not modified
    at = res.curves["t"]
    assert at[-1] == len(y) and len(at) == 7
    for key, sq in (("regret_hinge", False), ("regret_sq_hinge", True)):
        expect = [_independent_regret(X, y, scores, T, sq) for T in at]
        assert_allclose(res.curves[key], expect, rtol=1e-12, atol=1e-12)
        assert res.metrics[key] == pytest.approx(expect[-1], rel=1e-12)
    # duplicates with conflicting labels exist, so the comparator is not zero
    assert best_rkhs_loss_curve(X, np.where(y == 1, 1.0, -1.0), "hinge")[-1] > 0
    # a run that does not ask for regret records no scores
    res2 = proto.run(_learner(name), data, RunContext(metrics=("mistake_rate",)))
    assert "scores" not in res2.arrays
    assert res2.metrics["mistake_rate"] == res.metrics["mistake_rate"]


def _config(tmp_path, algorithm: dict, metrics: list[str]):
    X, y = _stream(3, n=200)
    np.savez(tmp_path / "grid.npz", X=X, y=y)
    cfg = {"name": "regret_check", "protocol": "prequential-classification", "repeats": 2,
           "streams": [{"name": "numpy", "label": "grid",
                        "params": {"path": str(tmp_path / "grid.npz")}}],
           "algorithms": [algorithm], "metrics": metrics,
           "evaluation": {"checkpoints": 5, "save_predictions": True},
           "outputs": {"dir": str(tmp_path / "out"), "plots": []}}
    path = tmp_path / "cfg.yaml"
    path.write_text(yaml.safe_dump(cfg))
    return path


_cli = run_cli_split


@pytest.mark.parametrize("metric", ["regret_hinge", "regret_sq_hinge"])
def test_validate_refuses_regret_for_a_learner_without_scores(tmp_path, monkeypatch, capsys,
                                                              metric: str) -> None:
    path = _config(tmp_path, {"name": "perceptron", "label": "P"}, ["mistake_rate", metric])
    code, _, err = _cli(["validate", str(path)], monkeypatch, capsys)
    assert code == 2
    assert metric in err and "scores" in err and "perceptron" in err
    ok = _config(tmp_path, {"name": "perceptron", "label": "P"}, ["mistake_rate"])
    assert _cli(["validate", str(ok)], monkeypatch, capsys)[0] == 0


def test_runner_records_regret_for_a_forks_learner(tmp_path, monkeypatch, capsys) -> None:
    alg = {"name": "forks", "label": "FORKS",
           "params": {"sigma": 2.0, "budget": 10, "buffer_factor": 1, "rho": 40, "seed": 0}}
    path = _config(tmp_path, alg, ["mistake_rate", "regret_hinge"])
    assert _cli(["validate", str(path)], monkeypatch, capsys)[0] == 0
    cfg = load_config(path)
    run_experiment(cfg, tmp_path / "out")
    recs = [json.loads(p.read_text()) for p in (tmp_path / "out" / "runs").glob("*.json")]
    assert len(recs) == 2 and all(r["status"] == "ok" for r in recs)
    X, y = _stream(3, n=200)
    for r in recs:
        assert len(r["curves"]["regret_hinge"]) == len(r["curves"]["t"]) == 5
        assert r["metrics"]["regret_hinge"] == r["curves"]["regret_hinge"][-1]
        saved = load_predictions(tmp_path / "out" / "runs" / f"{r['run_id']}.pred.npz")
        yt, sc = saved["y_true"], saved["scores"]
        assert_array_equal(saved["y_pred"], np.where(sc >= 0.0, 1, 0))
        # the whole-stream comparator depends only on the multiset of (x, y), so the file's
        # order gives it although each run sees its own permutation
        n = len(y)
        best = _independent_regret(X, y, np.zeros(n), n, False) * n - n  # -comparator
        hinge = np.maximum(0.0, 1.0 - np.where(yt == 1, 1.0, -1.0) * sc).sum()
        assert r["metrics"]["regret_hinge"] == pytest.approx((hinge + best) / n, rel=1e-12)


def test_conformance_check_catches_inconsistent_scores() -> None:
    from streamlearn.algorithms.kernel.rbp import RBP
    from streamlearn.checks import yield_checks
    from streamlearn.checks.learners import check_scores_consistent

    params = next(iter(RBP._test_params()))
    assert "scores_consistent" in dict(yield_checks(RBP))
    check_scores_consistent(RBP, params)

    class OffByABit(RBP):
        """RBP whose fused path reports scores shifted by 1e-12."""

        def predict_learn_many(self, X, y):
            out = super().predict_learn_many(X, y)
            self.chunk_scores_ = self.chunk_scores_ + 1e-12
            return out

    class WrongSign(RBP):
        """RBP exposing the negated score."""

        def predict_one(self, x):
            p = super().predict_one(x)
            self.last_score_ = -self.last_score_
            return p

    with pytest.raises(AssertionError, match=r"largest difference 1e-12.*same operations"):
        check_scores_consistent(OffByABit, params)
    with pytest.raises(AssertionError, match="sign disagrees"):
        check_scores_consistent(WrongSign, params)
