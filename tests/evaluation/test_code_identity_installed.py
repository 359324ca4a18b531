"""The code identity of a user's learner covers a compiled extension module of the user's
folder, and a learner of an installed distribution is identified by that distribution
(hunt 8, A2: a rebuilt ``cscale.so``, and ``userpkg`` upgraded from 1.0 to 2.0, each gave
"0 run(s) computed, 2 already complete" with the old code's 89.40 % where a fresh run gave
89.15 %, exit 0; the record's versions did not name ``userpkg``)."""

from __future__ import annotations

import base64
import hashlib
import importlib.machinery
import json
from pathlib import Path

import pytest
import yaml

from streamlearn.evaluation import code_identity
from streamlearn.evaluation.code_identity import code_mismatch, code_versions, user_code_sha256
from tests.cli_helpers import forget_module, run_cli, user_module

# the extension is imported inside a function that never runs: the identity reads the
# import statement and hashes the module file found for it, without loading it
USES_EXTENSION = '''
class C:
    def predict_one(self, x):
        return 0

    def learn_one(self, x, y):
        import cident_ext
        cident_ext.scale()
'''


def test_an_extension_module_of_the_users_folder_is_part_of_the_hash(tmp_path, monkeypatch):
    ext = tmp_path / f"cident_ext{importlib.machinery.EXTENSION_SUFFIXES[0]}"
    ext.write_bytes(b"\x7fELF build 1")
    with user_module(tmp_path, monkeypatch, "cident_learner", USES_EXTENSION):
        monkeypatch.syspath_prepend(str(tmp_path))
        first = user_code_sha256("cident_learner:C")
        source = (tmp_path / "cident_learner.py").read_bytes()
        assert first is not None and first != hashlib.sha256(source).hexdigest()
        ext.write_bytes(b"\x7fELF build 2")  # rebuilt
        forget_module("cident_learner")
        assert user_code_sha256("cident_learner:C") not in (None, first)


LEARNER = '''
SCALE = {scale}


class L:
    def predict_one(self, x):
        return 0 if SCALE < 0.5 else 1

    def learn_one(self, x, y):
        pass
'''


def _install(site: Path, version: str, scale: float, record: bool = True) -> None:
    """``userpkg`` as a wheel installs it: the package and its dist-info (METADATA,
    top_level.txt and, with ``record``, a RECORD of the files' hashes)."""
    for old in site.glob("userpkg-*.dist-info"):
        for f in old.iterdir():
            f.unlink()
        old.rmdir()
    pkg = site / "userpkg"
    pkg.mkdir(parents=True, exist_ok=True)
    files = {"userpkg/__init__.py": b"", "userpkg/learners.py":
             LEARNER.format(scale=scale).encode()}
    for rel, data in files.items():
        (site / rel).write_bytes(data)
    info = site / f"userpkg-{version}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: userpkg\nVersion: {version}\n")
    (info / "top_level.txt").write_text("userpkg\n")
    if record:
        lines = [f"{rel},sha256="
                 f"{base64.urlsafe_b64encode(hashlib.sha256(d).digest()).rstrip(b'=').decode()},"
                 f"{len(d)}" for rel, d in files.items()]
        lines.append(f"userpkg-{version}.dist-info/RECORD,,")
        (info / "RECORD").write_text("\n".join(lines) + "\n")


@pytest.fixture
def site(tmp_path, monkeypatch):
    site = tmp_path / "site-packages"
    site.mkdir()
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.setenv("PYTHONPATH", str(site))
    code_identity._distribution.cache_clear()
    yield site
    forget_module("userpkg.learners")
    forget_module("userpkg")
    code_identity._distribution.cache_clear()


def _reinstall(site: Path, version: str, scale: float, record: bool = True) -> None:
    _install(site, version, scale, record)
    forget_module("userpkg.learners")
    forget_module("userpkg")
    code_identity._distribution.cache_clear()


@pytest.mark.parametrize("record", [True, False], ids=["RECORD", "no RECORD"])
def test_an_installed_learner_is_identified_by_its_distribution(site, record):
    _reinstall(site, "1.0", 1.0, record)
    first = user_code_sha256("userpkg.learners:L")
    assert first is not None
    assert code_versions("userpkg.learners:L") == {"userpkg": "1.0"}
    _reinstall(site, "2.0", 0.01, record)  # upgraded
    second = user_code_sha256("userpkg.learners:L")
    assert second not in (None, first)
    assert code_versions("userpkg.learners:L") == {"userpkg": "2.0"}
    if record:  # reinstalled with other files under the same version
        _reinstall(site, "2.0", 0.5)
        assert user_code_sha256("userpkg.learners:L") not in (None, first, second)
    message = code_mismatch("userpkg.learners:L", "0" * 64, None)
    assert message is not None and "userpkg 2.0, installed" in message


def test_a_resumed_experiment_computes_an_upgraded_package_again(site, tmp_path, capsys,
                                                                   monkeypatch):
    cfg = {"name": "inst", "repeats": 1,
           "streams": [{"name": "sea", "label": "SEA", "max_samples": 200}],
           "algorithms": [{"name": "userpkg.learners:L", "label": "L"}],
           "metrics": ["oca"], "evaluation": {"checkpoints": 4},
           "outputs": {"dir": str(tmp_path / "out"), "plots": []}}
    (tmp_path / "cfg.yaml").write_text(yaml.safe_dump(cfg))
    monkeypatch.chdir(tmp_path)
    record = tmp_path / "out" / "runs" / "SEA__L__seed0.json"
    _reinstall(site, "1.0", 1.0)
    code, text = run_cli(["run", "cfg.yaml", "--quiet"], capsys)
    assert code == 0, text
    before = json.loads(record.read_text())
    assert before["versions"]["userpkg"] == "1.0"
    _reinstall(site, "2.0", 0.01)
    code, text = run_cli(["run", "cfg.yaml", "--quiet"], capsys)
    assert code == 0 and "1 run(s) computed, 0 already complete" in " ".join(text.split())
    after = json.loads(record.read_text())
    assert after["versions"]["userpkg"] == "2.0"
    assert after["metrics"]["oca"] != before["metrics"]["oca"]

