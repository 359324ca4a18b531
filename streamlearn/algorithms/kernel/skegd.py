"""SkeGD: incremental randomized sketching with first-order gradient descent, FORKS's
predecessor and a baseline of the FORKS paper's Table 1, over the two-stage machinery of
:mod:`~streamlearn.algorithms.kernel.sketched_learner` (exact rank-k SVD at update rounds,
no reset).

Paper: X. Zhang and S. Liao, *Incremental Randomized Sketching for Online Kernel Learning*
(ICML 2019), as the FORKS paper (Wen et al., arXiv 2410.11188) describes it (Sec. 3.2,
5.1; spec Sec. 8.8).
"""

from __future__ import annotations

from typing import Any, ClassVar

from streamlearn.algorithms.kernel.sketched_learner import SketchedKernelLearner
from streamlearn.params import Interval
from streamlearn.registry import register_algorithm

__all__ = ["SkeGD"]


@register_algorithm("skegd")
class SkeGD(SketchedKernelLearner):
    """SkeGD: incremental randomized sketching with first-order gradient descent.

    As the FORKS paper describes it (Sec. 3.2, 5.1; spec Sec. 8.8): the FORKS stage 1,
    sketch and update cycle, but each update round recomputes an exact rank-``k`` SVD of
    the maintained ``Phi_pp`` (no TISVD), the stage-2 step is first order,
    ``w <- w - eta (l'(f, y) phi(x) + lam w)``, and ``w`` is not reset at update rounds.

    Parameters
    ----------
    lam
        L2 regulariser ``lambda`` (0.01).
    **kwargs
        The two-stage parameters (:class:`SketchedKernelLearner`) and ``sigma``,
        ``budget``, ``loss``, ``seed``.

    References
    ----------
    [^1]: X. Zhang and S. Liao. Incremental Randomized Sketching for Online Kernel
          Learning. ICML 2019.
    """

    second_order = False
    _decomposition = "svd"
    _reset_on_update = False
    _constraints: ClassVar[dict[str, Any]] = {
        **SketchedKernelLearner._constraints,
        "lam": Interval(0.0, None),
    }

    def __init__(self, *, lam: float = 0.01, **kwargs: Any) -> None:
        self.lam = lam
        super().__init__(**kwargs)

    def _lam(self) -> float:
        return float(self.lam)
