"""Generated streams: no file, drawn from a seed.

* :mod:`.drift`: SEA and Hyperplane, the concept-drift classification streams of the
  Online-BLS paper (generated with River);
* :mod:`.series`: the univariate series of the ``prequential-regression`` protocol (the
  offline stand-ins of the Fast-ONS paper's speech and temperature data, and AR(2)).
"""
