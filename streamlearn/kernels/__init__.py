"""Numba kernels: arrays, scalars and int codes in, state updated in place.

* :mod:`~streamlearn.kernels.broad_features` — BLS feature map and prediction scores;
* :mod:`~streamlearn.kernels.cholesky_update` — rank-one Cholesky updates, triangular
  solves and the Gram accumulation of Alg. 2, with their status codes;
* :mod:`~streamlearn.kernels.online_bls_loops` — the fused Online-BLS test-then-train loops;
* :mod:`~streamlearn.kernels.rls` — recursive least squares;
* :mod:`~streamlearn.kernels.reference_rules` — the majority-class and no-change rules
  (vectorised NumPy) of the kappa statistics and the reference learners;
* :mod:`~streamlearn.kernels.vector_math` — ``tanh`` in IEEE arithmetic that vectorises
  (online_bls_blocked's enhancement nodes).

Each kernel has a plain-NumPy reference in ``tests/reference/`` that the tests compare
it with. No orchestration, strings, dicts or RNG objects live here.
``_cache_dir`` chooses where Numba caches the kernels when the package folder and the
user's home are read-only; ``_jit_target`` lets Numba use 512-bit vectors on the Intel
cores where they run at full clock. Both run before the first kernel is defined.
"""

from __future__ import annotations

from streamlearn.kernels._cache_dir import ensure_cache_dir
from streamlearn.kernels._jit_target import use_full_vector_width

use_full_vector_width()  # first: it reloads Numba's config, which resets its CACHE_DIR
ensure_cache_dir()

