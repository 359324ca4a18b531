"""The `incremental-nodes` protocol end to end through `streamlearn run` (records, resume,
parallel runs, smoke overrides, memory refusal), its split preparation, and the BLS node
generator of spec §1.4."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import yaml

from streamlearn import components, registry
from streamlearn.protocols.node_generator import (
    ROW_BLOCK,
    BLSNodeGenerator,
    NodeSchedule,
    RowBlockNodes,
    TestNodes,
    row_zscore,
    sparse_autoencoder,
)
from tests.cli_helpers import run_cli

components.load_all()

SMALL = {"windows": 2, "window_nodes": 5, "enhancement": 40, "updates": 3,
         "update_windows": 1, "update_enhancement": 10, "update_additional": 15,
         "split": "holdout", "n_test": 300}
ALGOS = [("d_rdg", "D-Rdg"), ("bls_orig", "Orig."), ("bls_exg_e", "Exg-E"),
         ("bls_chol1", "Chol-1"), ("bls_chol2", "Chol-2"), ("bls_rinv", "R-Inv")]


def _cfg(**protocol):
    return {"name": "rbls", "protocol": {"name": "incremental-nodes",
                                         "params": {**SMALL, **protocol}},
            "repeats": 2,
            "streams": [{"name": "hyperplane", "label": "HP",
                         "params": {"n_samples": 900}}],
            "algorithms": [{"name": n, "label": lab, "params": {"lam": 1e-2}}
                           for n, lab in ALGOS],
            "outputs": {"plots": []}}


def _run(tmp_path: Path, cfg: dict, capsys, *extra: str, out: str = "out") -> tuple[int, str]:
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump(cfg))
    return run_cli(["run", str(path), "--out", str(tmp_path / out), "-q", *extra], capsys)


def _records(d: Path) -> dict[str, dict]:
    return {p.stem: json.loads(p.read_text()) for p in sorted((d / "runs").glob("*.json"))}


def test_protocol_runs_end_to_end_and_resumes(tmp_path, capsys):
    rc, text = _run(tmp_path, _cfg(), capsys)
    assert rc == 0, text
    recs = _records(tmp_path / "out")
    assert len(recs) == 12 and all(r["status"] == "ok" for r in recs.values())
    sched = NodeSchedule(**{k: v for k, v in SMALL.items() if k not in ("split", "n_test")})
    for r in recs.values():
        assert r["curve_axis"].startswith("update")
        assert r["curves"]["t"] == [0, 1, 2, 3]
        assert r["updates"]["nodes"] == [sched.nodes_after(u) for u in range(4)]
        tm = r["timing"]
        assert len(tm["update_seconds"]) == 4
        np.testing.assert_allclose(tm["cumulative_step_seconds"],
                                   np.cumsum(np.add(tm["update_seconds"], tm["node_seconds"])))
        assert min(tm["peak_traced_bytes"]) > 0 and r["stream_info"]["n_test"] == 300
    for seed in (0, 1):
        acc = {lab: recs[f"HP__{lab.replace('.', '')}__seed{seed}"]["updates"]["accuracy"]
               for _, lab in ALGOS}
        # one network per simulation: every algorithm starts from the same INIT
        assert len({a[0] for a in acc.values()}) == 1
        for lab in ("Chol-1", "Chol-2", "R-Inv"):  # the ridge family: D-Rdg's accuracies
            assert acc[lab] == acc["D-Rdg"], lab
        assert acc["Orig."] == acc["Exg-E"]
    assert recs["HP__D-Rdg__seed0"]["updates"] != recs["HP__D-Rdg__seed1"]["updates"]
    rc, text = _run(tmp_path, _cfg(), capsys)
    assert rc == 0 and "0 run(s) computed, 12 already complete" in " ".join(text.split())


@pytest.mark.slow  # two worker processes start (~10 s)
def test_parallel_runs_give_the_same_records(tmp_path, capsys):
    cfg = _cfg()
    cfg["algorithms"] = cfg["algorithms"][:2]
    assert _run(tmp_path, cfg, capsys, out="a")[0] == 0
    assert _run(tmp_path, cfg, capsys, "--jobs", "2", out="b")[0] == 0
    a, b = _records(tmp_path / "a"), _records(tmp_path / "b")
    assert a.keys() == b.keys()
    for k in a:
        assert a[k]["updates"] == b[k]["updates"] and a[k]["metrics"] == b[k]["metrics"]


def test_row_block_mode_gives_the_accuracies_of_the_whole_matrix(tmp_path, capsys):
    """node_matrix: rows (A regenerated in row blocks, never held) against memory (A
    held whole): the same network, so every algorithm's update accuracies agree; the
    products are summed in another order, so the bound is one test sample in 300."""
    out = {}
    for mode in ("memory", "rows"):
        cfg = _cfg(node_matrix=mode)
        cfg["repeats"] = 1
        cfg["streams"][0]["params"]["n_samples"] = ROW_BLOCK + 1300  # two row blocks
        rc, text = _run(tmp_path, cfg, capsys, out=mode)
        assert rc == 0, text
        out[mode] = _records(tmp_path / mode)
    assert out["memory"].keys() == out["rows"].keys() and len(out["rows"]) == 6
    for name, rec in out["rows"].items():
        assert rec["node_matrix"] == "rows" and out["memory"][name]["node_matrix"] == "memory"
        a = np.array(rec["updates"]["accuracy"])
        b = np.array(out["memory"][name]["updates"]["accuracy"])
        assert np.abs(a - b).max() <= 1 / 300 + 1e-12, name
        # rows mode never allocates the training matrix
        assert rec["timing"]["node_matrix_bytes"] < out["memory"][name]["timing"][
            "node_matrix_bytes"]


@pytest.mark.parametrize("n", [ROW_BLOCK - 7, 2 * ROW_BLOCK + 5])
def test_regenerated_rows_equal_the_blocks_first_drawn(n):
    """RowBlockNodes: every row block regenerated from the generator equals, bit for bit,
    the columns next_block handed out (same boundaries, same code path); its products
    agree with the dense ones to rounding, and the rows generator draws the same network
    as the whole-matrix one (feature nodes exactly, enhancement nodes to rounding)."""
    s = NodeSchedule(windows=3, window_nodes=5, enhancement=60, updates=3, update_windows=1,
                     update_enhancement=20, update_additional=30)
    rng = np.random.default_rng(n)
    X = rng.random((n, 30))
    gen = BLSNodeGenerator(s, 7, rows=True)
    A = np.hstack([gen.next_block(X) for _ in range(4)])
    dense = np.hstack([BLSNodeGenerator(s, 7).next_block(X) for _ in range(1)])
    np.testing.assert_allclose(A[:, :dense.shape[1]], dense, rtol=0, atol=1e-13)
    for steps in range(1, 5):
        R = RowBlockNodes(gen, steps, n)
        k = R.shape[1]
        assert k == s.nodes_after(steps - 1)
        np.testing.assert_array_equal(np.vstack([Ab for _, Ab in R.blocks()]), A[:, :k])
        H, D = rng.random((n, 7)), rng.random((k, 4))
        Ak = A[:, :k]
        scale = np.abs(Ak).sum(axis=0).max()
        np.testing.assert_allclose(R.T @ H, Ak.T @ H, rtol=0, atol=1e-13 * scale * n)
        np.testing.assert_allclose(R.T @ np.asfortranarray(H), Ak.T @ H, rtol=0,
                                   atol=1e-13 * scale * n)
        np.testing.assert_allclose(R.T @ R, Ak.T @ Ak, rtol=0, atol=1e-13 * scale * n)
        np.testing.assert_array_equal(R @ D, np.vstack([Ak[b] @ D for b, _ in R.blocks()]))
    with pytest.raises(ValueError, match="rows"):
        RowBlockNodes(gen, 1, n).T @ rng.random((n + 1, 2))
    with pytest.raises(ValueError, match="rows=True"):
        BLSNodeGenerator(s, 7).training_rows(slice(0, 10), 1)


def test_auto_node_matrix_resolves_by_the_configuration_not_the_machine(monkeypatch):
    """auto: held whole up to AUTO_HELD_GIB, in row blocks above, whatever the RAM or the
    limit (the two storages round differently, so a RAM-dependent choice gave one seed two
    results on two machines); every committed record resolves as it did."""
    from streamlearn.protocols import incremental_nodes as inc
    from streamlearn.protocols.incremental_nodes import IncrementalNodesProtocol

    chol1 = registry.ALGORITHMS["bls_chol1"]
    paper = dict(updates=8)  # chol1_onset_seed1: held 21.2 GiB, its records name rows
    kernel = dict(updates=6)  # chol1_kernel_*: held 17.0 GiB, their records name memory
    for ram_gib in (8, 24, 64, 1024):
        monkeypatch.setattr("streamlearn.base.physical_memory_bytes",
                            lambda r=ram_gib: r * 2**30)
        for limit in (None, 1.0, 1000.0):
            on = IncrementalNodesProtocol(memory_limit_gib=limit, **paper)
            assert on.storage(chol1, 60000, 10000, 784, 10) == "rows"
            on = IncrementalNodesProtocol(memory_limit_gib=limit, **kernel)
            assert on.storage(chol1, 60000, 10000, 784, 10) == "memory"
    held = IncrementalNodesProtocol(**kernel).memory_need(chol1, 60000, 10000, 784, 10)
    assert 16 * 2**30 < held["total"] <= inc.AUTO_HELD_GIB * 2**30
    need = IncrementalNodesProtocol().memory_need(chol1, 60000, 10000, 784, 10, "rows")
    assert need["total"] < 20 * 2**30 < IncrementalNodesProtocol().memory_need(
        chol1, 60000, 10000, 784, 10)["total"]
    assert "node_matrix_train" not in need
    assert IncrementalNodesProtocol(node_matrix="rows").storage(chol1, 10, 10, 2, 2) == "rows"
    assert IncrementalNodesProtocol(node_matrix="memory").storage(
        chol1, 60000, 10000, 784, 10) == "memory"


def test_auto_held_matrix_over_the_limit_names_row_blocks_as_the_remedy():
    from streamlearn.errors import UserError
    from streamlearn.protocols.incremental_nodes import IncrementalNodesProtocol

    chol1 = registry.ALGORITHMS["bls_chol1"]
    small_machine = IncrementalNodesProtocol(memory_limit_gib=12.0, updates=6)
    with pytest.raises(UserError) as err:
        small_machine.check_memory(chol1, 60000, 10000, 784, 10)
    flat = " ".join(str(err.value).split())
    assert "node_matrix: rows" in flat and "held whole" in flat
    IncrementalNodesProtocol(memory_limit_gib=12.0, updates=6, node_matrix="rows"
                             ).check_memory(chol1, 60000, 10000, 784, 10)


def test_smoke_overrides_protocol_params(tmp_path, capsys):
    cfg = _cfg(updates=50, enhancement=4000)
    cfg["smoke"] = {"max_samples": 600, "protocol_params": {"updates": 1, "enhancement": 30}}
    cfg["algorithms"] = cfg["algorithms"][:1]
    rc, text = _run(tmp_path, cfg, capsys, "--smoke")
    assert rc == 0, text
    (rec,) = _records(tmp_path / "out").values()
    assert rec["stream_info"]["schedule"]["updates"] == 1
    assert rec["updates"]["nodes"] == [40, 70]


def test_configuration_too_large_for_the_machine_stops_with_the_scaled_one(tmp_path, capsys):
    rc, text = _run(tmp_path, _cfg(memory_limit_gib=0.001), capsys)
    flat = " ".join(text.split())
    assert rc == 2 and "Traceback" not in text
    assert "needs about" in flat and "MiB" in flat
    assert "configs/ridge_bls/mnist_tables.yaml" in flat
    assert not list((tmp_path / "out" / "runs").glob("*.json"))


def test_official_split_needs_a_dataset_that_has_one(tmp_path, capsys):
    cfg = _cfg()
    cfg["protocol"]["params"]["split"] = "official"
    rc, text = _run(tmp_path, cfg, capsys)
    assert rc == 2 and "no official train/test split" in " ".join(text.split())
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("backend", ["processes", "dask"])
def test_official_split_is_refused_before_the_first_run(tmp_path, capsys, data_dir, backend):
    """A stream with official parts (MNIST) then one without (split: official is the
    default): ``validate`` refuses the config, and ``run`` writes nothing on any backend
    (it had run MNIST, then stopped with experiment.json and a record left behind, or on
    Dask recorded failed runs, exit 1)."""
    if backend == "dask":
        pytest.importorskip("distributed")
    cfg = _cfg()
    del cfg["protocol"]["params"]["split"], cfg["protocol"]["params"]["n_test"]
    cfg["repeats"] = 1
    cfg["algorithms"] = cfg["algorithms"][:1]
    cfg["streams"] = [{"name": "mnist", "label": "M", "max_samples": 300},
                      cfg["streams"][0]]
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump(cfg))
    rc, text = run_cli(["validate", str(path), "--data-dir", str(data_dir)], capsys)
    text = " ".join(text.split())
    assert rc == 2 and "streams[1].name" in text and "'hyperplane'" in text, text
    assert "no official train/test split" in text and "split: holdout" in text
    rc, text = _run(tmp_path, cfg, capsys, "--data-dir", str(data_dir), "--backend", backend)
    assert rc == 2 and "no official train/test split" in " ".join(text.split()), text
    assert not (tmp_path / "out").exists()


def test_bad_protocol_parameter_is_a_config_error(tmp_path, capsys):
    rc, text = _run(tmp_path, _cfg(update_windows=0, update_enhancement=0,
                                   update_additional=0), capsys)
    assert rc == 2 and "adds no node" in " ".join(text.split())


def test_mnist_official_split(data_dir):
    from streamlearn.config import StreamConfig
    from streamlearn.protocols.incremental_nodes import IncrementalNodesProtocol
    from streamlearn.protocols.preparation import prepare_stream

    plan = IncrementalNodesProtocol(split="official").preparation()
    full = prepare_stream(StreamConfig(name="mnist", label="MNIST"), 0, str(data_dir), plan)
    assert full.X.shape == (60000, 784) and full.extra["X_test"].shape == (10000, 784)
    capped = prepare_stream(StreamConfig(name="mnist", label="M", max_samples=500), 0,
                            str(data_dir), plan)
    assert capped.X.shape[0] == 500 and capped.extra["y_test"].shape[0] == 500
    np.testing.assert_array_equal(capped.extra["X_test"], full.extra["X_test"][:500])


# ----------------------------------------------------------------------- node generator


def _inputs(n=300, d=30, seed=0):
    return np.random.default_rng(seed).random((n, d))


SCHED = NodeSchedule(windows=3, window_nodes=6, enhancement=50, updates=4, update_windows=1,
                     update_enhancement=20, update_additional=30)


def test_grown_network_is_the_network_built_at_that_size():
    X = _inputs()
    gen = BLSNodeGenerator(SCHED, 7)
    grown = [gen.next_block(X) for _ in range(3)]
    assert [b.shape[1] for b in grown] == [68, 56, 56]
    np.testing.assert_array_equal(np.hstack(grown), gen.build(X, 2))
    # ... and the first blocks do not depend on how many updates the schedule plans
    longer = BLSNodeGenerator(NodeSchedule(**{**SCHED.to_dict(), "updates": 9}), 7)
    np.testing.assert_array_equal(longer.next_block(X), grown[0])
    assert not np.array_equal(BLSNodeGenerator(SCHED, 8).next_block(X), grown[0])


def test_test_nodes_reproduce_the_training_blocks_on_the_training_inputs():
    X = _inputs()
    gen = BLSNodeGenerator(SCHED, 3)
    blocks = [gen.next_block(X) for _ in range(SCHED.updates + 1)]
    mapped = TestNodes(gen, X)
    for u, b in enumerate(blocks):
        np.testing.assert_allclose(mapped.block(u), b, rtol=0, atol=1e-12)


def test_node_ranges_and_groups():
    X = _inputs()
    gen = BLSNodeGenerator(SCHED, 1)
    A0 = gen.next_block(X)
    Z, H = A0[:, :18], A0[:, 18:]
    assert np.allclose(Z.min(axis=0), 0) and np.allclose(Z.max(axis=0), 1)  # per node
    # scale s / max T with the signed maximum ([16]): the largest entry maps to tanh(0.8)
    assert np.isclose(H.max(), np.tanh(0.8)) and np.abs(H).max() < 1
    H1 = gen.next_block(X)
    # update: 6 new feature nodes, 20 fed by them, 30 fed by all 24 feature nodes
    assert H1.shape[1] == 56 and np.allclose(H1[:, :6].max(axis=0), 1)
    grp_new, grp_all = gen._blocks[1].enhancement
    assert grp_new.sources == slice(18, 24) and grp_all.sources == slice(0, 24)
    # (N_f + 1) < m: orthonormal rows
    np.testing.assert_allclose(grp_all.V @ grp_all.V.T, np.eye(25), atol=1e-12)


def test_row_zscore_and_bias_column():
    Xb = row_zscore(_inputs())
    np.testing.assert_allclose(Xb[:, :-1].mean(axis=1), 0, atol=1e-12)
    np.testing.assert_allclose(Xb[:, :-1].std(axis=1, ddof=1), 1)
    assert np.all(Xb[:, -1] == 0.1)


def test_sparse_autoencoder_without_penalty_is_least_squares():
    rng = np.random.default_rng(0)
    Z, X = rng.normal(size=(200, 5)), rng.normal(size=(200, 8))
    beta = sparse_autoencoder(Z, X, 0.0, 400)
    np.testing.assert_allclose(beta, np.linalg.lstsq(Z, X, rcond=None)[0], atol=1e-8)
    sparse = sparse_autoencoder(Z, X, 5.0, 400)
    assert np.mean(sparse == 0) > np.mean(beta == 0)


# ----------------------------------------------------------------------- NA through the protocol

NA_PROTOCOL = {"windows": 2, "window_nodes": 5, "enhancement": 60, "updates": 4,
               "update_windows": 1, "update_enhancement": 10, "update_additional": 30}


def test_failed_factorisation_is_na_in_the_records_and_the_metrics():
    """150 training samples, a network growing 70 -> 270 nodes, λ = 2^-50: Chol-1's (42a)
    fails at update 2; that update and all later ones are NA (NaN), counted as failed, and
    the maximum over updates ignores them; Chol-2 on the same nodes never fails."""
    from streamlearn.base import PreparedData, RunContext
    from streamlearn.protocols.incremental_nodes import IncrementalNodesProtocol

    rng = np.random.default_rng(0)
    X = rng.random((300, 20))
    y = (X[:, 0] + X[:, 1] > 1).astype(np.int64)
    data = PreparedData(X=X[:150], y=y[:150], info={"node_seed": 3}, n_classes=2,
                        extra={"X_test": X[150:], "y_test": y[150:]})
    proto = IncrementalNodesProtocol(**NA_PROTOCOL)
    ctx = RunContext(metrics=("update_accuracy", "max_update_accuracy", "initial_accuracy"))
    res = proto.run(registry.ALGORITHMS["bls_chol1"](lam=2.0 ** -50), data, ctx)
    assert res.notes["na_from_update"] == 2
    assert res.notes["updates"]["failed"] == [0, 0, 1, 1, 1]
    acc = res.curves["update_accuracy"]
    assert all(np.isnan(acc[2:])) and not any(np.isnan(acc[:2]))
    assert np.isnan(res.metrics["update_accuracy"])
    assert res.metrics["max_update_accuracy"] == max(acc[:2])
    assert res.notes["updates"]["accuracy"][2:] == [None, None, None]
    stable = proto.run(registry.ALGORITHMS["bls_chol2"](lam=2.0 ** -50), data, ctx)
    assert stable.notes["na_from_update"] is None
    assert stable.curves["update_accuracy"][:2] == acc[:2]


def test_report_tables_show_na_with_failure_counts(tmp_path, capsys):
    from streamlearn.reporting.papers.ridge_bls import tables

    cfg = _cfg(**{**NA_PROTOCOL, "n_test": 150})
    cfg["streams"][0]["params"]["n_samples"] = 300
    cfg["repeats"] = 1
    cfg["algorithms"] = [{"name": n, "label": f"{lab} lam={{lam:g}}",
                          "sweep": {"lam": [2.0 ** -50, 1e-2]}}
                         for n, lab in ALGOS if n in ("bls_chol1", "bls_chol2", "bls_orig")]
    rc, text = _run(tmp_path, cfg, capsys)
    assert rc == 0, text
    recs = _records(tmp_path / "out")
    assert all(r["status"] == "ok" for r in recs.values())
    failed = [r for r in recs.values() if r["na_from_update"] is not None]
    assert failed and all(r["algorithm"].startswith("Chol-1") for r in failed)
    # Orig.'s numerically singular solves at tiny λ are counted, not printed or fatal
    orig = [r for r in recs.values() if r["algorithm"].startswith("Orig.")]
    assert max(r["learner_counters"]["ill_conditioned_solves_"] for r in orig) > 0
    out = tables(tmp_path / "out").read_text()
    assert "NA (1/1)" in out and "## Fig. 1" in out and "## Table VI" in out
    assert (tmp_path / "out" / "fig1_max_accuracy_vs_lambda.png").exists()
    # summary.md prints "—" for the NA cells and says what it means (hunt of 7 Dec)
    summary = (tmp_path / "out" / "summary.md").read_text()
    assert "| — |" in summary and "A “—” with runs counted: the value is NA" in summary


def test_every_committed_ridge_record_resolves_to_the_storage_it_names():
    """A rerun of a committed folder must hold the node matrix as its records did (the two
    storages round differently): auto, resolved here, names the storage of every record."""
    from streamlearn.evaluation.record_archive import read_archive
    from streamlearn.protocols.incremental_nodes import IncrementalNodesProtocol

    root = Path(__file__).resolve().parents[2] / "results" / "ridge_bls"
    checked = 0
    for archive in sorted(root.glob("*/runs.tar.xz")):
        for name, data in read_archive(archive).items():
            rec = json.loads(data)
            if rec.get("node_matrix") is None:
                continue  # recorded before storages existed (held whole)
            spec = rec["spec"]
            proto = IncrementalNodesProtocol(**spec["protocol_params"])
            info = rec["stream_info"]
            n_train, n_test = info["n_samples"], info["n_test"]
            cls = registry.ALGORITHMS[spec["algorithm"]["name"]]
            got = proto.storage(cls, n_train, n_test, info["n_features"], info["n_classes"])
            assert got == rec["node_matrix"], (archive.parent.name, name)
            checked += 1
    assert checked >= 150  # 166 at this writing


def test_enhancement_nodes_of_new_windows_without_new_windows_are_refused(tmp_path, capsys):
    """Hunt of 7 Dec: update_enhancement with update_windows 0 was left out of the network
    without a word (5 nodes added per update, not 15), while experiment.json and every
    record kept update_enhancement: 10; with update_additional 0 too, the message told the
    user to set update_enhancement, which they had."""
    for additional in (5, 0):
        rc, text = _run(tmp_path, _cfg(update_windows=0, update_enhancement=10,
                                       update_additional=additional), capsys)
        flat = " ".join(text.split())
        assert rc == 2 and "Traceback" not in text, flat
        assert "update_windows is 0" in flat and "update_enhancement: 0" in flat, flat
        assert not (tmp_path / "out" / "runs").exists() or \
            not list((tmp_path / "out" / "runs").glob("*.json"))
    # NORB's schedule (additional nodes only) runs
    rc, text = _run(tmp_path, {**_cfg(update_windows=0, update_enhancement=0,
                                      update_additional=5, updates=1),
                               "algorithms": _cfg()["algorithms"][:1]}, capsys)
    assert rc == 0, text


def test_a_need_just_over_the_limit_prints_apart_from_it():
    """Hunt of 7 Dec: "needs about 12.0 GiB ... more than the limit of 12.0 GiB" for a
    need of 12.01 GiB: the two print with the decimals that tell them apart."""
    from streamlearn.protocols.incremental_nodes import _bytes

    need, limit = 12.01 * 2**30, 12 * 2**30
    assert (_bytes(need, limit), _bytes(limit, need)) == ("12.01 GiB", "12.00 GiB")
    assert _bytes(10 * 2**30, 4 * 2**30) == "10.0 GiB"
    assert _bytes(300 * 2**20) == "300 MiB"


def test_the_terminal_footnote_says_what_the_time_column_measures(tmp_path, capsys):
    """Hunt of 7 Dec: the footnote called µs/sample "predict + update time per sample"
    for this protocol too, whose records time training (node generation and weight
    updates) per training sample."""
    cfg = {**_cfg(updates=1), "algorithms": _cfg()["algorithms"][:1]}
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump(cfg))
    rc, text = run_cli(["run", str(path), "--out", str(tmp_path / "out")], capsys)
    flat = " ".join(text.split())
    assert rc == 0, flat
    assert "µs/sample: training time (node generation + weight updates) per training " \
           "sample" in flat, flat
    assert "predict + update time" not in flat
