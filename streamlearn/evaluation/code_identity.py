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
base class in another file), compiled extension modules of the user's folder included
(``.so``/``.pyd``, hashed as bytes): with the learner's file alone, runs added after a
helper was edited joined the earlier runs' records in one summary, exit 0, and so did the
runs of a rebuilt extension module.

A learner or stream class of an installed distribution (``userpkg.learners:L`` from a
wheel in site-packages) is identified by that distribution: its name, version and the
SHA-256 of each file its ``RECORD`` lists (read from ``RECORD``, not from the files), so
an upgraded or reinstalled package is computed again (it had been reused, exit 0). The
distributions every record names in its ``versions`` (streamlearn, NumPy, SciPy, Numba,
River, pandas, CapyMOA: :data:`streamlearn.evaluation.records.ENVIRONMENT`) are left out,
as for the registered learners that run on them: the record holds their versions. The
record's ``versions`` also names the distribution of such a class and those the user's
modules import (:func:`code_versions`).
"""

from __future__ import annotations

import ast
import functools
import hashlib
import importlib.machinery
import importlib.util
import inspect
import json
import os
import sys
import sysconfig
import weakref
from collections.abc import Mapping
from importlib import metadata
from pathlib import Path
from types import ModuleType

import streamlearn
from streamlearn import components
from streamlearn.evaluation.records import ENVIRONMENT

__all__ = ["code_mismatch", "code_versions", "streamlearn_source_sha256", "user_code_sha256"]

#: file names of compiled extension modules (``.cpython-311-x86_64-linux-gnu.so``,
#: ``.abi3.so``, ``.so``, ``.pyd``)
_EXTENSIONS = (*importlib.machinery.EXTENSION_SUFFIXES, ".so", ".pyd")

#: class object → SHA-256 of its user source file when first seen in this process
_LOADED: weakref.WeakKeyDictionary[type, str | None] = weakref.WeakKeyDictionary()
#: class object → the installed distributions of its code (:func:`code_versions`)
_VERSIONS: weakref.WeakKeyDictionary[type, dict[str, str]] = weakref.WeakKeyDictionary()


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


def _is_module_file(path: str) -> bool:
    """A module's file: Python source or a compiled extension module."""
    return (path.endswith(".py") or path.endswith(_EXTENSIONS)) and os.path.isfile(path)


def _is_installed_path(path: str) -> bool:
    resolved = Path(path).resolve()
    return bool({"site-packages", "dist-packages"} & set(resolved.parts))


def _is_user_path(path: str) -> bool:
    """True for a module file (``.py``, or a compiled extension module) of the user's own
    code: outside installed packages, the standard library and streamlearn."""
    if not _is_module_file(path) or _is_installed_path(path):
        return False
    resolved = Path(path).resolve()
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
    the top, inside functions; relative imports resolved), with their parent packages
    (none for a compiled module: its imports cannot be read)."""
    if not path.endswith(".py"):
        return set()
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


@functools.cache
def _top_level_distributions() -> Mapping[str, list[str]]:
    """Top-level import name → the installed distributions that provide it (a scan of
    every distribution's metadata: about 0.2 s, so only when a direct lookup fails)."""
    return metadata.packages_distributions()


@functools.cache
def _distribution(top: str, file: str | None = None) -> metadata.Distribution | None:
    """The installed distribution that provides the top-level module ``top`` (whose file,
    when given, is ``file``), or ``None``: the distribution of that name when it installs
    ``top`` (``numpy``, ``river``: no scan), else those the metadata scan names."""
    try:
        named: metadata.Distribution | None = metadata.distribution(top)
    except (metadata.PackageNotFoundError, ValueError):
        named = None
    if named is not None and _provides(named, top):
        return named
    found = []
    for name in _top_level_distributions().get(top, []):
        try:
            found.append(metadata.distribution(name))
        except metadata.PackageNotFoundError:
            continue
    if file is not None and len(found) > 1:  # a namespace package: the one with the file
        for dist in found:
            if any(Path(str(dist.locate_file(f))).resolve() == Path(file).resolve()
                   for f in dist.files or ()):
                return dist
    return found[0] if found else None


def _provides(dist: metadata.Distribution, top: str) -> bool:
    """Whether ``dist`` installs the top-level module ``top`` (true when its metadata
    list neither top-level names nor files)."""
    names = (dist.read_text("top_level.txt") or "").split()
    if names:
        return top in names
    if dist.files is None:
        return True
    return any(f.parts[0] in (top, f"{top}.py") or f.parts[0].startswith(f"{top}.")
               for f in dist.files or ())


def _installed_module(cls: type) -> tuple[str, str] | None:
    """``(module name, file)`` of a class that lives in an installed package (outside the
    user's folder, the standard library and streamlearn), else ``None``."""
    target = getattr(cls, "target", cls)
    module = sys.modules.get(target.__module__)
    file = getattr(module, "__file__", None)
    if not isinstance(file, str) or not _is_module_file(file) or _is_user_path(file):
        return None
    resolved = Path(file).resolve()
    if any(resolved.is_relative_to(root) for root in _not_user_roots()) \
            and not _is_installed_path(file):
        return None
    return target.__module__, file


def _installed_sha256(cls: type) -> str | None:
    """The identity of a class of an installed distribution: the distribution's name,
    version and the SHA-256 of each file its ``RECORD`` lists, or, without metadata, the
    SHA-256 of the class's module file; ``None`` for the distributions every record's
    ``versions`` names (:data:`~streamlearn.evaluation.records.ENVIRONMENT`)."""
    found = _installed_module(cls)
    if found is None:
        return None
    name, file = found
    dist = _distribution(name.partition(".")[0], file)
    if dist is None:
        return hashlib.sha256(Path(file).read_bytes()).hexdigest()
    dist_name = dist.metadata["Name"] or ""
    if _normalise(dist_name) in {_normalise(n) for n in ENVIRONMENT}:
        return None
    listed = sorted(f"{f.as_posix()}\t{f.hash.mode}={f.hash.value}"
                    for f in dist.files or () if f.hash is not None
                    and not f.as_posix().startswith(".."))  # scripts: outside the package
    text = json.dumps({"distribution": _normalise(dist_name), "version": dist.version,
                       "files": listed})
    return hashlib.sha256(text.encode()).hexdigest()


def _normalise(name: str) -> str:
    """A distribution name as PEP 503 compares them."""
    return "-".join(name.replace("_", "-").replace(".", "-").lower().split("-"))


def code_versions(name: str, kind: str = "algorithm") -> dict[str, str]:
    """Distribution name → version of the installed code a ``module:Class`` learner
    (``kind="stream"``: stream) runs that the fixed list of a record's ``versions`` may
    not name: the class's own distribution, and those the user's modules import (not
    followed into the identity, README "Output directory"). ``{}`` for registered
    names."""
    if ":" not in name:
        return {}
    cls = _user_class(name, kind)
    if cls not in _VERSIONS:
        _VERSIONS[cls] = _installed_versions(cls)
    return dict(_VERSIONS[cls])


def _installed_versions(cls: type) -> dict[str, str]:
    tops: dict[str, str | None] = {}
    found = _installed_module(cls)
    if found is not None:
        tops[found[0].partition(".")[0]] = found[1]
    for module, path in _user_modules(cls).items():
        for dep in _imported_modules(module, path):
            top = dep.partition(".")[0]
            if top in tops or "." in dep:
                continue
            file = _module_file(top)
            if file is not None and _is_installed_path(file):
                tops[top] = file
    out: dict[str, str] = {}
    for top, file in sorted(tops.items()):
        dist = _distribution(top, file)
        if dist is not None:
            out[dist.metadata["Name"] or top] = dist.version
    return out


def user_code_sha256(name: str, kind: str = "algorithm") -> str | None:
    """SHA-256 of the user's code of the learner (``kind="stream"``: the stream) class a
    dotted path ``module:Class`` names, as this process loaded it: its source file and the
    user modules it imports (helpers, base classes, compiled extension modules;
    :func:`_user_modules`), when the class's file is the user's own; for a class of an
    installed distribution, that distribution's name, version and recorded file hashes
    (:func:`_installed_sha256`); ``None`` for registered names and for the distributions
    every record's versions name."""
    if ":" not in name:
        return None
    cls = _user_class(name, kind)
    if cls not in _LOADED:
        _LOADED[cls] = (_files_sha256(cls) if _source_file(cls) is not None
                        else _installed_sha256(cls))
    return _LOADED[cls]


def _describe_code(name: str, kind: str) -> str:
    """The files (or the installed distribution) of a ``module:Class``'s code, for a
    message."""
    cls = _user_class(name, kind)
    files = ", ".join(_user_modules(cls).values())
    if files:
        return files
    found = _installed_module(cls)
    dist = _distribution(found[0].partition(".")[0], found[1]) if found else None
    if dist is not None:
        return f"{dist.metadata['Name']} {dist.version}, installed"
    return found[1] if found else name


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
            files = _describe_code(name, key)
            return (f"the {kind} {name!r} that this process loaded ({files}, SHA-256 "
                    f"{(here or 'none')[:12]}) is not the one the experiment was planned "
                    f"with ({planned[:12]}): a file was edited during the experiment, or "
                    "this worker has another copy of it. Make the copies agree and run "
                    "again.")
    return None
