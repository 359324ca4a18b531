"""Output weights of a broad network that grows by added nodes: the six learners of the
Ridge-BLS paper (Zhu, arXiv 1911.04872) over the base class of
:mod:`~streamlearn.algorithms.bls_nodes.node_incremental`, run by the ``incremental-nodes``
protocol (they see node matrices, not samples, and draw no features of their own)."""
