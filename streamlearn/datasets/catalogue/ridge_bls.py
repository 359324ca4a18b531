"""Datasets of the Ridge-BLS paper (Zhu, "Two Ridge Solutions for the Incremental Broad
Learning System on Added Nodes"), Sec. V-B: MNIST (Tables II, III, VI) and small NORB
(Tables IV, V), both with their standard train/test split.

MNIST was introduced by the Online-BLS paper and is declared in
:mod:`streamlearn.datasets.catalogue.online_bls` (its spec lists both papers); only small
NORB is declared here.
"""

from __future__ import annotations

from streamlearn.datasets.catalogue.spec import DatasetSpec, FileSpec, served_from

PAPER = "ridge_bls"
#: the paper's number in the project (its spec: papers/002); orders `streamlearn data list`
PAPER_NUMBER = 2
PAPER_LABEL = "Ridge-BLS"

_norb = served_from("https://cs.nyu.edu/~ylclab/data/norb-v1.0-small", "smallnorb")


def _norb_file(ids: str, split: str, kind: str, size: int, sha256: str) -> FileSpec:
    """``smallnorb-5x<ids>x9x18x6x2x96x96-<split>-<kind>.mat.gz``; the ``info`` matrices
    (camera angles, lighting) are not needed to load the images."""
    return _norb(
        f"smallnorb-5x{ids}x9x18x6x2x96x96-{split}-{kind}.mat.gz",
        size,
        sha256=sha256,
        group="train" if split == "training" else "test",
        required=kind != "info",
        hash_source="tensorflow/datasets url_checksums/smallnorb.txt",
    )


#: The datasets this paper introduces, in the order of ``streamlearn data list``.
SPECS: tuple[DatasetSpec, ...] = (
    DatasetSpec(
        name="smallnorb",
        title="small NORB (stereo 96x96 -> 2x32x32 = 2048 inputs), 24,300 + 24,300",
        papers=(PAPER,),
        task="classification",
        files=(
            _norb_file("46789", "training", "dat", 131896188,
                       "5ffd6272a07d32695ee1082a26a41a93a37aab8c28da047f8c34ed348d214873"),
            _norb_file("46789", "training", "cat", 348,
                       "2784e542c1922060691090952b6cd6278879a216c90f81476f0f00256d42cdaa"),
            _norb_file("46789", "training", "info", 71052,
                       "de7eb932ebe7a4ee16217fead60660d0eb3d23632c2f4d1c51f88c501c17bf32"),
            _norb_file("01235", "testing", "dat", 130799817,
                       "cf7104eed3e51174d2f65b66d1e5878b9da233b886f161b0d88f4510ba2c7474"),
            _norb_file("01235", "testing", "cat", 347,
                       "ecaf6d5bb8c3bc5eab9cf0258f6d2198dd474e016e374836fc097f2e5ff509ff"),
            _norb_file("01235", "testing", "info", 10428,
                       "16adf314226327ee006d1a44db8cfef52773c06c829951d5653a9f6f310248a2"),
        ),
        n_features=2048,
        n_classes=5,
        sizes={"all": 48600, "train": 24300, "test": 24300},
        source="https://cs.nyu.edu/~ylclab/data/norb-v1.0-small/",
        preprocessing=(
            "both stereo images downsampled 96x96 -> 32x32 by 3x3 block means ([16]'s 2048 inputs)",
            "pixels divided by 255 -> [0, 1]; image_size=96 keeps full resolution (18,432 inputs)",
            "part='all': training then testing set",
        ),
        class_names=("animal", "human", "airplane", "truck", "car"),
    ),
)

#: Datasets of this paper declared with the paper that introduced them.
ALSO_USES: tuple[str, ...] = ("mnist",)
