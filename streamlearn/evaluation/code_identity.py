"""Which code computes a run: streamlearn's own source and the source files of a user's
learner and stream.

A run's record names the code it was planned with (``code_sha256`` in its spec for a
user's learner; the client's streamlearn source travels with the spec). The process that
computes the run — this one with ``--jobs 1``, a pool worker, a Dask worker — checks that
the code it has *loaded* is that code, and otherwise fails the run (``retry_on_resume``).
Before this check, a Dask worker holding an older copy of ``my_learner.py``, or a pool
worker started after the user edited the file mid-experiment, computed runs with other
code under the planned hash: mixed versions in one summary, exit 0.

Each hash is taken once per process and class object, at first use, which is right after
the import: a file edited later does not change what this process runs, nor its hash. A
user's learner's hash covers the user modules it refers to as well (a helper module, a
base class in another file): with the learner's file alone, runs added after a helper was
edited joined the earlier runs' records in one summary, exit 0.
"""

from __future__ import annotations

import ast
import functools
import hashlib
import importlib.machinery
import importlib.util
import inspect
import os
import sys
import sysconfig
import weakref
from pathlib import Path
from types import ModuleType

import streamlearn
from streamlearn import components

__all__ = ["code_mismatch", "streamlearn_source_sha256", "user_code_sha256"]

#: class object → SHA-256 of its user source file when first seen in this process
_LOADED: weakref.WeakKeyDictionary[type, str | None] = weakref.WeakKeyDictionary()


@functools.cache
def streamlearn_source_sha256() -> str:
    """SHA-256 over streamlearn's ``.py`` files (relative path, size and bytes, in path
    order), taken once per process: the same for every install of the same source."""
    root = Path(streamlearn.__file__).resolve().parent
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        data = path.read_bytes()
        digest.update(path.relative_to(root).as_posix().encode() + b"\0")
        digest.update(len(data).to_bytes(8, "little"))
        digest.update(data)
    return digest.hexdigest()


def _is_user_path(path: str) -> bool:
    """True for a ``.py`` file of the user's own code: outside installed packages, the
    standard library and streamlearn."""
    if not path.endswith(".py") or not os.path.isfile(path):
        return False
    resolved = Path(path).resolve()
    if {"site-packages", "dist-packages"} & set(resolved.parts):
        return False
    return not any(resolved.is_relative_to(root) for root in _not_user_roots())


def _user_file(module: ModuleType) -> str | None:
    """The source file of ``module`` when it is the user's own code (else ``None``)."""
    path = getattr(module, "__file__", None)
    return path if isinstance(path, str) and _is_user_path(path) else None


@functools.cache
def _not_user_roots() -> tuple[Path, ...]:
    """The standard library's folders and streamlearn's own."""
    roots = {Path(streamlearn.__file__).resolve().parent}
    for key in ("stdlib", "platstdlib"):
        folder = sysconfig.get_paths().get(key)
        if folder:
            roots.add(Path(folder).resolve())
    return tuple(roots)


def _imported_modules(name: str, path: str) -> set[str]:
    """The module names the source file ``path`` of module ``name`` imports anywhere (at
    the top, inside functions; relative imports resolved), with their parent packages."""
    try:
        tree = ast.parse(Path(path).read_bytes())
    except (OSError, SyntaxError, ValueError):
        return set()
    package = name if Path(path).name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                if not package:
                    continue
                try:
                    base = importlib.util.resolve_name("." * node.level + (node.module or ""),
                                                       package)
                except ImportError:
                    continue
            elif node.module:
                base = node.module
            else:
                continue
            found.add(base)  # and ``from base import sub``, where sub is a module
            found.update(f"{base}.{alias.name}" for alias in node.names if alias.name != "*")
    parents = {".".join(n.split(".")[:i]) for n in found for i in range(1, n.count(".") + 1)}
    return found | parents


def _module_file(name: str) -> str | None:
    """The file module ``name`` would be imported from, found without importing (and so
    without running) anything."""
    search: list[str] | None = None
    spec = None
    parts = name.split(".")
    for i in range(len(parts)):
        try:
            spec = importlib.machinery.PathFinder.find_spec(".".join(parts[:i + 1]), search)
        except (ImportError, ValueError):
            return None
        if spec is None:
            return None
        locations = spec.submodule_search_locations
        search = list(locations) if locations is not None else None
        if search is None and i < len(parts) - 1:
            return None
    return spec.origin if spec is not None else None


def _user_modules(cls: type) -> dict[str, str]:
    """Module name → source file of the user's code a learner class runs: the modules of
    its class and base classes and, transitively, the user modules their files import
    (``import helpers``, ``from .common import Base``, an import inside a function),
    read from the import statements, so the same in every process whatever it has
    imported. Installed packages, the standard library and streamlearn are not followed."""
    target = getattr(cls, "target", cls)
    stack: list[tuple[str, str | None]] = []
    for c in inspect.getmro(target):
        module = sys.modules.get(c.__module__)
        if module is not None:
            stack.append((c.__module__, _user_file(module)))
    found: dict[str, str] = {}
    while stack:
        name, path = stack.pop()
        if path is None or name in found:
            continue
        found[name] = path
        for dep in sorted(_imported_modules(name, path)):
            if dep not in found:
                file = _module_file(dep)
                stack.append((dep, file if file is not None and _is_user_path(file)
                              else None))
    return found


def _source_file(cls: type) -> str | None:
    """The user's source file of a learner class (``None``: registered or installed)."""
    target = getattr(cls, "target", cls)
    module = sys.modules.get(target.__module__)
    return _user_file(module) if module is not None else None


def _files_sha256(cls: type) -> str | None:
    """SHA-256 of the user's code a learner class runs (:func:`_user_modules`): of its
    file's bytes alone when that is all (the hash records made before helper modules were
    hashed carry), else over each module's name and bytes in name order."""
    own = _source_file(cls)
    if own is None:
        return None
    modules = _user_modules(cls)
    if len(modules) <= 1:
        return hashlib.sha256(Path(own).read_bytes()).hexdigest()
    digest = hashlib.sha256()
    for name in sorted(modules):
        data = Path(modules[name]).read_bytes()
        digest.update(name.encode() + b"\0" + len(data).to_bytes(8, "little"))
        digest.update(data)
    return digest.hexdigest()


def _user_class(name: str, kind: str) -> type:
    return components.get_stream(name) if kind == "stream" else components.get_algorithm(name)


def user_code_sha256(name: str, kind: str = "algorithm") -> str | None:
    """SHA-256 of the user's code of the learner (``kind="stream"``: the stream) class a
    dotted path ``module:Class`` names, as this process loaded it: its source file and the
    user modules it imports (helpers, base classes; :func:`_user_modules`), when the
    class's file is the user's own (not inside an installed package, whose version the
    record already holds); ``None`` for registered names and installed code."""
    if ":" not in name:
        return None
    cls = _user_class(name, kind)
    if cls not in _LOADED:
        _LOADED[cls] = _files_sha256(cls)
    return _LOADED[cls]


def code_mismatch(algorithm: str, code_sha256: str | None,
                  streamlearn_sha256: str | None, stream: str | None = None,
                  stream_code_sha256: str | None = None) -> str | None:
    """Why this process may not compute a run planned with these hashes (``None``: it may).
    ``streamlearn_sha256`` ``None`` skips streamlearn's own check; ``stream_code_sha256``
    is the user's stream's code, when the stream is a ``module:Class`` of theirs."""
    if streamlearn_sha256 is not None and streamlearn_source_sha256() != streamlearn_sha256:
        return (f"this process runs other streamlearn code ({streamlearn.__file__}, source "
                f"SHA-256 {streamlearn_source_sha256()[:12]}) than the experiment was "
                f"planned with ({streamlearn_sha256[:12]}): streamlearn was edited during "
                "the experiment, or this worker has another version installed. Install the "
                "same streamlearn everywhere and run again.")
    for name, kind, planned in ((algorithm, "learner", code_sha256),
                                (stream, "stream", stream_code_sha256)):
        if planned is None or name is None:
            continue
        key = "stream" if kind == "stream" else "algorithm"
        here = user_code_sha256(name, key)
        if here != planned:
            files = ", ".join(_user_modules(_user_class(name, key)).values())
            return (f"the {kind} {name!r} that this process loaded ({files}, SHA-256 "
                    f"{(here or 'none')[:12]}) is not the one the experiment was planned "
                    f"with ({planned[:12]}): a file was edited during the experiment, or "
                    "this worker has another copy of it. Make the copies agree and run "
                    "again.")
    return None
