"""Numba kernels: arrays, scalars and int codes in, state updated in place.

Each kernel has a plain-NumPy reference in ``tests/reference/`` that the tests compare
it with. No orchestration, strings, dicts or RNG objects live here.
"""
