"""Where Numba writes the compiled kernels when the package's own folder is read-only.

Every kernel here is compiled with ``cache=True``. Numba stores the compiled code next to
the source (``kernels/__pycache__``) or in the user's cache folder (``~/.cache/numba``),
and when it can write to neither it refuses to define the function: importing
``streamlearn`` failed with ``RuntimeError: cannot cache function …``. That is the case
of a package installed read-only (a system or container image) run by a user whose home
is not writable (``docker run --user``, where ``HOME`` is ``/``).

:func:`ensure_cache_dir` runs once, before the first kernel is defined. Where Numba would
find no place it points ``numba.config.CACHE_DIR`` at a folder of the system's temporary
directory that belongs to this user alone (mode 0700, checked; another process's folder is
never used), so the kernels compile and are cached there. A ``NUMBA_CACHE_DIR`` the user
set is left alone. The decision is Numba's own: its two locators are asked, not guessed.
"""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path

from numba.core import caching, config

__all__ = ["ensure_cache_dir"]


def _probe() -> None:
    """A function of this folder for Numba's locators to place (never compiled)."""


def _numba_finds_a_place() -> bool:
    """True when Numba's in-tree or user-wide cache locator can write for this folder."""
    source = _probe.__code__.co_filename
    return any(cls.from_function(_probe, source) is not None
               for cls in (caching.InTreeCacheLocator, caching.UserWideCacheLocator))


def _own_private_dir(path: Path) -> bool:
    """True when ``path`` is a real folder owned by this user that only they can write."""
    try:
        st = os.lstat(path)
    except OSError:
        return False
    uid = getattr(os, "getuid", lambda: st.st_uid)()
    return (stat.S_ISDIR(st.st_mode) and st.st_uid == uid
            and not st.st_mode & (stat.S_IWGRP | stat.S_IWOTH))


def fallback_dir() -> Path:
    """This user's private cache folder under the system's temporary directory (created
    with mode 0700 if absent; a fresh ``mkdtemp`` folder if the name is taken by anything
    else)."""
    uid = getattr(os, "getuid", lambda: "user")()
    path = Path(tempfile.gettempdir()) / f"streamlearn-numba-cache-{uid}"
    try:
        path.mkdir(mode=0o700)
    except FileExistsError:
        pass
    except OSError:
        return Path(tempfile.mkdtemp(prefix="streamlearn-numba-cache-"))
    if _own_private_dir(path):
        return path
    return Path(tempfile.mkdtemp(prefix="streamlearn-numba-cache-"))


def ensure_cache_dir() -> Path | None:
    """Point Numba's cache at :func:`fallback_dir` when it has no writable place for the
    kernels; return that folder, or ``None`` when nothing was changed."""
    if config.CACHE_DIR or _numba_finds_a_place():
        return None
    path = fallback_dir()
    config.CACHE_DIR = str(path)
    return path
