"""The layout of the dataset catalogue: one module per paper in ``datasets/catalogue/`` and
one in ``datasets/real/``, a dataset declared once (with the paper that introduced it) and
referenced by the other papers that use it. No data needed.
"""

from __future__ import annotations

import importlib

import pytest

from streamlearn import components, registry
from streamlearn.cli.data import PAPER_NAMES
from streamlearn.datasets import catalogue
from streamlearn.datasets.catalogue import CATALOGUES, DATASETS
from streamlearn.datasets.catalogue import spec as _spec
from streamlearn.datasets.real.base import REAL_STREAMS


def test_catalogue_modules_are_in_paper_order_and_build_the_table():
    assert [m.PAPER for m in CATALOGUES] == ["online_bls", "forks", "ridge_bls", "fast_ons"]
    assert PAPER_NAMES == {
        "online_bls": "Online-BLS",
        "forks": "FORKS",
        "ridge_bls": "Ridge-BLS",
        "fast_ons": "Fast-ONS",
    }
    assert list(DATASETS) == [s.name for m in CATALOGUES for s in m.SPECS]
    assert list(DATASETS)[:2] == ["segment", "usps"] and list(DATASETS)[-1] == (
        "temperature_whately"
    )
    with pytest.raises(RuntimeError, match="declared twice"):
        catalogue._index([DATASETS["mnist"], DATASETS["mnist"]])


def test_each_dataset_lives_with_its_first_paper_and_is_referenced_by_the_others():
    home = {s.name: m.PAPER for m in CATALOGUES for s in m.SPECS}
    for module in CATALOGUES:
        for spec in module.SPECS:
            assert spec.papers[0] == module.PAPER, spec.name
        for name in module.ALSO_USES:
            assert home[name] != module.PAPER
            assert module.PAPER in DATASETS[name].papers, name
    users = {(n, m.PAPER) for m in CATALOGUES for n in m.ALSO_USES}
    for spec in DATASETS.values():
        for paper in spec.papers[1:]:
            assert (spec.name, paper) in users, (spec.name, paper)
    assert users == {("mnist", "ridge_bls")}


def test_streams_live_in_the_module_of_their_datasets_paper():
    components.load_all()
    home = {s.name: m.PAPER for m in CATALOGUES for s in m.SPECS}
    for name, cls in REAL_STREAMS.items():
        assert registry.STREAMS[name] is cls
        dataset = getattr(cls, "dataset", None) or "german"  # adversarial: FORKS
        assert cls.__module__ == f"streamlearn.datasets.real.{home[dataset]}", name
    assert set(REAL_STREAMS) == set(DATASETS) | {"adversarial"}


def test_served_from_builds_path_url_and_hash_source():
    make = _spec.served_from("https://example.org/data", "local")
    f = make("a.txt", 12, sha256="ab" * 32, group="train")
    assert (f.path, f.url, f.sha256, f.size, f.group) == (
        "local/a.txt",
        "https://example.org/data/a.txt",
        ("ab" * 32,),
        12,
        "train",
    )
    assert f.hash_source == _spec.HASH_FROM_MANIFEST
    g = make("b.txt")
    assert (g.sha256, g.size, g.hash_source) == ((), None, _spec.NO_HASH)


def test_docstrings_cite_papers_not_files_outside_the_repository():
    import pkgutil

    import streamlearn.datasets as pkg

    modules = [
        importlib.import_module(m.name)
        for m in pkgutil.walk_packages(pkg.__path__, prefix=f"{pkg.__name__}.")
    ]
    for module in [*modules, importlib.import_module("streamlearn.cli.data")]:
        text = module.__doc__ or ""
        for obj in vars(module).values():
            if getattr(obj, "__module__", None) == module.__name__:
                text += getattr(obj, "__doc__", None) or ""
        for bad in (".md", "shared/papers", "MANIFEST"):
            assert bad not in text, (module.__name__, bad)
