"""The experiment config, declared once: every key, its kind, range, default and meaning.

The validator (:mod:`streamlearn.config.validation`) parses a config with this declaration,
and ``streamlearn schema`` writes it as a JSON Schema (:func:`json_schema`) that editors
use to complete and check a config. A config, in short::

    name: quickstart
    protocol: prequential-classification
    repeats: 3
    streams:
      - {name: sea, label: SEA, params: {n_samples: 20000}}
    algorithms:
      - {name: hoeffding_tree, label: HT}
    metrics: [oca, bacc]

Rules that tie several keys together (``normalize: range`` needs ``normalize_range``, a
swept parameter may not be fixed too), or a key to the registries (a learner's
parameters, the metrics a protocol provides) or to the data, are the validator's.
"""

from __future__ import annotations

from typing import Any

from streamlearn.config.fields import (
    Boolean,
    Choice,
    ComponentName,
    Context,
    Either,
    Entries,
    Fraction,
    Integer,
    Key,
    Label,
    ListOf,
    Parameters,
    Range,
    ReferenceValues,
    Section,
    Seeds,
    String,
    Sweep,
    Text,
)

JSON_SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"

MAX_REPEATS = 10_000
MAX_RUNS = 100_000
MAX_CHECKPOINTS = 100_000
NORMALIZERS = ("none", "minmax", "zscore", "range", "row_minmax")
TABLE_FORMATS = ("markdown", "csv")
PLOT_KINDS = ("learning_curve", "time", "sweep")
DEFAULT_PROTOCOL = "prequential-classification"

_SWEEP_DOC = ("Parameters to sweep, each with a list of values: the cartesian product, one "
              "labelled variant each, and a metric-vs-parameter plot.")

STREAM = Section(
    doc="A stream: a registry name (`streamlearn list streams`) or a dotted path "
        "'package.module:Class', with its parameters and preparation.",
    shorthand="name",
    nullable=False,
    keys=(
        Key("name", ComponentName("streams"), "Registry name or dotted path "
            "'package.module:Class'.", required=True),
        Key("label", Label(), "Display label, unique among the streams; with a sweep, a "
            "template such as 'SEA noise={noise}'.", computed="the name"),
        Key("params", Parameters(), "Constructor parameters of the stream.", default={}),
        Key("shuffle", Boolean(nullable=True), "Shuffle the samples? null: shuffle unless "
            "the stream has a natural order.", default=None),
        Key("reseed", Boolean(nullable=True), "Generated streams: a new stream for each "
            "seed? null: the stream's default (paper streams: a fixed seed).",
            default=None),
        Key("normalize", Choice(NORMALIZERS), "Input scaling: none, minmax, zscore, "
            "range (the declared input range normalize_range to [0, 1]), or row_minmax "
            "(each sample by its own min and max to [0, 1]; nothing fitted).",
            default="none"),
        Key("normalize_warmup", Integer(low=2, nullable=True), "Fit the scale on the "
            "first N samples (null: on all).", default=None),
        Key("normalize_range", Range(), "With normalize: range, the declared input range "
            "[lo, hi].", default=None),
        Key("max_samples", Integer(low=1, nullable=True), "Cap on the number of samples, "
            "at the step the protocol declares: after shuffling (prequential), after tiling "
            "(regression series), on each part (train/test split). Null: no cap.",
            default=None),
        Key("sweep", Sweep(), _SWEEP_DOC + " E.g. {noise: [0.0, 0.1]}."),
    ),
)

ALGORITHM = Section(
    doc="A learner: a registry name (`streamlearn list algorithms`), a dotted path "
        "'package.module:Class', or a River estimator (river: module.Class).",
    shorthand="name",
    nullable=False,
    one_of=("name", "river"),
    exclusive=(("name", "river"),),
    keys=(
        Key("name", ComponentName("algorithms"), "Registry name or dotted path "
            "'package.module:Class'."),
        Key("river", String(pattern=r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)+$",
                            mismatch="expected River's module and class, e.g. "
                                     "'linear_model.LogisticRegression', got {value!r}."),
            "A River estimator by its module and class, e.g. "
            "linear_model.LogisticRegression (instead of name)."),
        Key("label", Label(), "Display label, unique among the algorithms; with a sweep, "
            "a template such as 'HT d={delta:g}' (without a {field}, ' delta=...' is "
            "appended).", computed="the name (with river: the module and class)"),
        Key("params", Parameters(), "Constructor parameters of the learner.", default={}),
        Key("smoke_params", Parameters(), "Parameters that replace those in params under "
            "--smoke.", default={}),
        Key("sweep", Sweep(), _SWEEP_DOC + " E.g. {grace_period: [50, 200]}."),
        Key("optional", Boolean(), "true: leave the entry out, with a note, when the "
            "learner cannot run here (e.g. MOA without Java).", default=False),
    ),
)

PROTOCOL = Section(
    doc="A protocol with parameters.",
    nullable=False,
    keys=(
        Key("name", Choice(table="protocols", text_first=True),
            "The protocol (`streamlearn list protocols`).", required=True),
        Key("params", Parameters(), "Its parameters.", default={}),
    ),
)

EVALUATION = Section(
    doc="How runs are evaluated.",
    keys=(
        Key("chunk_size", Integer(low=1), "Samples per fused predict-and-learn call.",
            default=1000),
        Key("checkpoints", Integer(low=2, high=MAX_CHECKPOINTS,
                                   too_high="{value:,} is more than {high:,} points per "
                                            "curve."),
            "Points per learning curve.", default=200),
        Key("save_predictions", Boolean(), "Save each run's predictions beside its "
            "record.", default=False),
        Key("memory_profile", Boolean(), "An extra untimed pass under tracemalloc that "
            "records the peak memory.", default=False),
        Key("fused", Boolean(), "Use the learner's fused predict_learn_many; false: the "
            "per-sample loop, so that predict and update are timed separately.",
            default=True),
        Key("window", Integer(low=1, nullable=True), "Also compute every metric that allows "
            "it over a sliding window of this many samples (at each checkpoint: the last "
            "`window` samples), beside the cumulative value. Null: no windowed metrics.",
            default=None),
        Key("fading", Fraction(nullable=True), "Also compute every metric that allows it "
            "with this fading factor alpha in (0, 1) (Gama et al. 2013: each sample "
            "weighs alpha^age). Null: no faded metrics.", default=None),
    ),
)

OUTPUTS = Section(
    doc="Where and what to write.",
    keys=(
        Key("dir", String(), "Output directory; relative: to the working directory, "
            "'~' is the home directory.", computed="results/<name>"),
        Key("tables", ListOf(Choice(TABLE_FORMATS)), "Table formats.",
            default=list(TABLE_FORMATS)),
        Key("plots", ListOf(Choice(PLOT_KINDS)), "Plots to draw.",
            computed="learning_curve and time, and sweep when an entry sweeps"),
        Key("curve_metric", Choice(table="metrics"), "The metric of the learning-curve "
            "plot.", computed="the protocol's"),
        Key("cpu_time", Boolean(), "Also tabulate each timed run's process CPU time: CPU "
            "µs per sample and samples per CPU-second (what a cluster bills; other jobs "
            "on the machine change it less than the wall-clock times).", default=False),
    ),
)

REFERENCE = Section(
    doc="The paper's numbers, shown beside ours in the tables.",
    keys=(
        Key("source", Text(), "Where the numbers come from, e.g. 'Online-BLS, Table 4'.",
            default=""),
        Key("values", ReferenceValues(), "stream label → algorithm label → metric → "
            "value in the metric's display unit (% for accuracies).", default={}),
        Key("cited", ListOf(Label()), "Algorithm labels shown only with the paper's "
            "values (not run).", default=[]),
        Key("notes", Text(), "Notes shown with the reference values.", default=""),
    ),
)

SMOKE = Section(
    doc="What --smoke runs: few samples, one repetition.",
    keys=(
        Key("max_samples", Integer(low=10), "Cap on each stream's samples.", default=2000),
        Key("repeats", Integer(low=1), "Number of seeds.", default=1),
        Key("protocol_params", Parameters(), "Protocol parameters that replace those of "
            "protocol.params.", default={}),
    ),
)

CONFIG = Section(
    doc="A streamlearn experiment: streams × algorithms × seeds, run under a protocol.",
    nullable=False,
    exclusive=(("seeds", "repeats"),),
    keys=(
        Key("name", String(pattern=r"^(?!\.+$)[A-Za-z0-9_.-]+$",
                           mismatch="{value!r} may only contain letters, digits, '_', '.' "
                                    "and '-', and may not be '.' or '..'."),
            "Names the experiment and its output folder.", required=True),
        Key("description", Text(), "What the experiment is.", default=""),
        Key("protocol", Either(Choice(table="protocols"), PROTOCOL), "How each run is "
            "carried out (`streamlearn list protocols`): a name, or {name: ..., params: "
            "{...}}.", default=DEFAULT_PROTOCOL),
        Key("repeats", Integer(low=1, high=MAX_REPEATS,
                               too_high="{value:,} repetitions is more than {high:,}; a "
                                        "config this large is almost certainly a typo."),
            "Number of seeds: 0, 1, ..., repeats-1.", default=1),
        Key("seeds", Seeds(), "The seeds, e.g. [0, 7, 42] (instead of repeats)."),
        Key("streams", Entries(STREAM), "The streams.", required=True),
        Key("algorithms", Entries(ALGORITHM), "The learners.", required=True),
        Key("metrics", ListOf(Choice(table="metrics"), empty=(
            "is empty; name at least one metric (or remove the key for the protocol's "
            "defaults: {default_metrics}).")),
            "Metrics of each run (`streamlearn list metrics`).",
            computed="the protocol's default metrics"),
        Key("evaluation", EVALUATION, "How runs are evaluated.", default={}),
        Key("outputs", OUTPUTS, "Where and what to write.", default={}),
        Key("reference", REFERENCE, "The paper's numbers, for side-by-side tables.",
            default={}),
        Key("smoke", SMOKE, "What --smoke runs.", default={}),
    ),
)


def registry_names() -> dict[str, list[str]]:
    """The names registered here (built-ins and installed plugins), by table."""
    from streamlearn import components, registry

    components.load_all()
    return {"protocols": sorted(registry.PROTOCOLS), "metrics": sorted(registry.METRICS),
            "streams": sorted(registry.STREAMS), "algorithms": sorted(registry.ALGORITHMS)}


def json_schema(names: Context) -> dict[str, Any]:
    """The config as a JSON Schema (draft 2020-12). ``names`` are the registry names to
    offer (streams and algorithms may also be dotted paths)."""
    return {
        "$schema": JSON_SCHEMA_DIALECT,
        "title": "streamlearn experiment config",
        **CONFIG.json_schema(names),
    }
