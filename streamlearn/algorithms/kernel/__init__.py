"""Budgeted online kernel learners of the FORKS paper's Table 1: FORKS, SkeGD and the seven
baselines (RBP, BPA-S, Projectron, BOGD, FOGD, NOGD, PROS-N-KONS), one module each. Shared
layers: :mod:`~streamlearn.algorithms.kernel.kernel_budget` (the binary Gaussian-kernel base
class and its support-vector store), :mod:`~streamlearn.algorithms.kernel.forks_sketch`
(incremental sketch, TISVD) and :mod:`~streamlearn.algorithms.kernel.sketched_learner` (the
two-stage machinery of FORKS and SkeGD)."""
