"""Datasets of the Online-BLS paper (Lei, Chen, Chen, Zhang): the stationary and the real
drift datasets of Sec. 5, as listed in its Table 2 and detailed in its Appendix B.

Hyperplane and SEA are generated, not read: see :mod:`streamlearn.datasets.synthetic.drift`.
MNIST is declared here and also used by the Ridge-BLS paper
(:mod:`streamlearn.datasets.catalogue.ridge_bls`).
"""

from __future__ import annotations

from streamlearn.datasets.catalogue.spec import UCI, DatasetSpec, FileSpec, served_from

PAPER = "online_bls"
#: the paper's number in the project (its spec: papers/000); orders `streamlearn data list`
PAPER_NUMBER = 0
PAPER_LABEL = "Online-BLS"

_uci_image = served_from(f"{UCI}/image", "segmentation")
_esl = served_from("https://hastie.su.domains/ElemStatLearn/datasets", "usps")
_uci_letter = served_from(f"{UCI}/letter-recognition", "letter")
_uci_adult = served_from(f"{UCI}/adult", "adult")
_uci_shuttle = served_from(f"{UCI}/statlog/shuttle", "shuttle")
_mnist = served_from("https://ossci-datasets.s3.amazonaws.com/mnist", "mnist")
_uci_covtype = served_from(f"{UCI}/covtype", "covtype")

#: The datasets this paper introduces, in the order of ``streamlearn data list``.
SPECS: tuple[DatasetSpec, ...] = (
    DatasetSpec(
        name="segment",
        title="UCI Image Segmentation (Statlog segment), train+test merged",
        papers=(PAPER,),
        task="classification",
        files=(
            _uci_image("segmentation.data", 34842, group="train",
                       sha256="ed5b5aee8081bbe875357149f73f50d7085e22cc0897f5b52eb7b52fea969a5b"),
            _uci_image("segmentation.test", 345084, group="test",
                       sha256="2e9e966479d54c6aaec309059376dd9c89c1b46bf3a23aceeefb36d20d93a189"),
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
    ),
    DatasetSpec(
        name="usps",
        title="USPS handwritten digits (ESL zip.train/zip.test), merged",
        papers=(PAPER,),
        task="classification",
        files=(
            _esl("zip.train.gz", 1829071, group="train",
                 sha256="66ebf231ab51f2cf6ac1a892d0f98ccffee1079d7a5db638c1f11f366046ca16"),
            _esl("zip.test.gz", 439208, group="test",
                 sha256="8dacc3c6e136af6c3488de9e5113a7daf140c8c2f1f0b61c54ee02f03f1a962f"),
            _esl("zip.info.txt", 1174, required=False,
                 sha256="927ca750c4117b61a71def180d5e4f00f1323a4b2c9cd990f576aa8def3505f1"),
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
    ),
    DatasetSpec(
        name="letter",
        title="UCI Letter Recognition",
        papers=(PAPER,),
        task="classification",
        files=(
            _uci_letter("letter-recognition.data", 712565,
                        sha256="2b89f3602cf768d3c8355267d2f13f2417809e101fc2b5ceee10db19a60de6e2"),
        ),
        n_features=16,
        n_classes=26,
        sizes={"all": 20000},
        source="UCI Machine Learning Repository, Letter Recognition",
        preprocessing=("labels A..Z -> 0..25", "16 integer attributes (0..15) kept as is"),
        class_names=tuple(chr(ord("A") + k) for k in range(26)),
    ),
    DatasetSpec(
        name="adult",
        title="UCI Adult, train+test merged, rows with '?' removed",
        papers=(PAPER,),
        task="classification",
        files=(
            _uci_adult("adult.data", 3974305, group="train",
                       sha256="5b00264637dbfec36bdeaab5676b0b309ff9eb788d63554ca0a249491c86603d"),
            _uci_adult("adult.test", 2003153, group="test",
                       sha256="a2a9044bc167a35b2361efbabec64e89d69ce82d9790d2980119aac5fd7e9c05"),
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
    ),
    DatasetSpec(
        name="shuttle",
        title="UCI Statlog Shuttle, train+test merged, time attribute dropped",
        papers=(PAPER,),
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
                    f"{UCI}/statlog/shuttle/shuttle.trn.Z and run `uncompress shuttle.trn.Z`. "
                    "The reference copy has the first value of line 1 repaired to 50."
                ),
            ),
            _uci_shuttle("shuttle.tst", 384257, group="test",
                         sha256="f776934a628d9b94c482cb058a76ddaa63823e0f74aec065813c9dff3b89d661"),
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
    ),
    DatasetSpec(
        name="mnist",
        title="MNIST handwritten digits (part='all': 60,000 train + 10,000 test merged)",
        papers=(PAPER, "ridge_bls"),
        task="classification",
        files=(
            FileSpec(
                "mnist/train-images-idx3-ubyte.gz",
                (
                    "0b367032e93c5d0cea0925647cfdb18614af8ee15f83e6f2fc2ad904a6835971",
                    # The official gzip: the same payload as the reference copy (a
                    # recompression), other compressed bytes.
                    "440fcabf73cc546fa21475e81ea370265605f56be210a4024d2ca8f203523609",
                ),
                9719438,
                "https://ossci-datasets.s3.amazonaws.com/mnist/train-images-idx3-ubyte.gz",
                group="train",
            ),
            _mnist("train-labels-idx1-ubyte.gz", 28881, group="train",
                   sha256="3552534a0a558bbed6aed32b30c495cca23d567ec52cac8be1a0730e8010255c"),
            _mnist("t10k-images-idx3-ubyte.gz", 1648877, group="test",
                   sha256="8d422c7b0a1c1c79245a5bcf07fe86e33eeafee792b84584aec276f5a2dbc4e6"),
            _mnist("t10k-labels-idx1-ubyte.gz", 4542, group="test",
                   sha256="f7ae60f92e00ec6debd23a6088c31dbd2371eca3ffa0defaefb259924204aec6"),
        ),
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
    ),
    DatasetSpec(
        name="electricity",
        title="Electricity (Elec2, MOA elecNormNew), date and day columns dropped",
        papers=(PAPER,),
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
    ),
    DatasetSpec(
        name="covtype",
        title="UCI Covertype (forest cover type), natural order",
        papers=(PAPER,),
        task="classification",
        files=(
            _uci_covtype(
                "covtype.data.gz",
                sha256="614360d0257557dd1792834a85a1cdebfadc3c4f30b011d56afee7ffb5b15771",
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
    ),
)

#: Datasets of this paper declared with the paper that introduced them (none).
ALSO_USES: tuple[str, ...] = ()
