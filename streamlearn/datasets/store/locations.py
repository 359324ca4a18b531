"""The data directory and the per-user cache directory.

The data directory is resolved in this order (:func:`resolve_data_dir`): the explicit
``data_dir`` argument (``--data-dir`` on the CLI), the ``STREAMLEARN_DATA`` environment
variable, then ``<cache>/datasets``. Inside it, files keep the layout of the project's
shared copy (``mnist/…``, ``libsvm/…``, ``adult/…``); see
:data:`streamlearn.datasets.catalogue.DATASETS`.

``<cache>`` is ``platformdirs.user_cache_dir("streamlearn")``, overridable with
``STREAMLEARN_CACHE``; it holds the hash memo (:mod:`.checksums`) and the parsed arrays
(:mod:`.parsed_cache`).
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = [
    "ENV_CACHE",
    "ENV_DATA",
    "cache_dir",
    "data_dir_origin",
    "dir_writable",
    "env_flag",
    "resolve_data_dir",
]

_TRUE = ("1", "true", "yes", "on")
_FALSE = ("0", "false", "no", "off")


def env_flag(name: str, default: bool) -> bool:
    """An on/off environment variable (``STREAMLEARN_AUTO_DOWNLOAD``,
    ``STREAMLEARN_PARSED_CACHE``): ``1/true/yes/on`` or ``0/false/no/off`` (any case),
    ``default`` when unset or empty. Any other value is a :class:`UserError` naming the
    variable (``false`` had turned downloads on)."""
    from streamlearn.errors import UserError

    raw = os.environ.get(name)
    value = (raw or "").strip().lower()
    if not value:
        return default
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise UserError(f"${name}={raw!r} is neither on (1, true, yes, on) nor off (0, false, "
                    "no, off).")

ENV_DATA = "STREAMLEARN_DATA"
ENV_CACHE = "STREAMLEARN_CACHE"


def cache_dir() -> Path:
    """Per-user cache directory (``STREAMLEARN_CACHE`` or ``user_cache_dir("streamlearn")``)."""
    env = os.environ.get(ENV_CACHE)
    if env:
        return Path(env).expanduser()
    import platformdirs

    return Path(platformdirs.user_cache_dir("streamlearn"))


def resolve_data_dir(data_dir: str | os.PathLike[str] | None = None) -> Path:
    """The data directory: ``data_dir``, else ``$STREAMLEARN_DATA``, else ``<cache>/datasets``."""
    if data_dir is not None and str(data_dir) != "":
        return Path(data_dir).expanduser()
    env = os.environ.get(ENV_DATA)
    if env:
        return Path(env).expanduser()
    return cache_dir() / "datasets"


def data_dir_origin(data_dir: str | os.PathLike[str] | None) -> str:
    """How :func:`resolve_data_dir` chose the directory, for messages."""
    if data_dir is not None and str(data_dir) != "":
        return "given explicitly"
    if os.environ.get(ENV_DATA):
        return f"from ${ENV_DATA}"
    return f"the default; set ${ENV_DATA} or pass --data-dir to use another"


def dir_writable(path: Path) -> bool:
    """Whether files may be created in ``path`` (or, if absent, its nearest existing parent).

    A directory without any write permission bit counts as read-only even for root, so
    a deliberately read-only data folder (like the project's shared copy) is never
    written to.
    """
    p = Path(path)
    while not p.exists():
        if p.parent == p:
            return False
        p = p.parent
    if not p.is_dir():
        return False
    if not p.stat().st_mode & 0o222:
        return False
    return os.access(p, os.W_OK | os.X_OK)
