"""The typed config objects the rest of the code reads (what :func:`parse_config` returns).

Their ``to_dict()`` output goes into every run record and its digest: change a field or
its order only with a migration of the records.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class SweepPoint:
    """One variant of a swept config entry: the entry it came from (``group``, its label
    template) and the swept parameters' values for this variant."""

    group: str
    values: tuple[tuple[str, Any], ...]

    def to_dict(self) -> dict[str, Any]:
        return {"group": self.group, "values": dict(self.values)}


@dataclass(frozen=True)
class StreamConfig:
    """One stream entry (one variant of a swept one): the keys of ``streams[i]``."""

    name: str
    label: str
    params: dict[str, Any] = field(default_factory=dict)
    shuffle: bool | None = None
    reseed: bool | None = None
    normalize: str = "none"
    normalize_warmup: int | None = None
    normalize_range: tuple[float, float] | None = None
    max_samples: int | None = None
    sweep: SweepPoint | None = None

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {
            "name": self.name,
            "label": self.label,
            "params": dict(self.params),
            "shuffle": self.shuffle,
            "reseed": self.reseed,
            "normalize": self.normalize,
            "normalize_warmup": self.normalize_warmup,
            "max_samples": self.max_samples,
        }
        if self.normalize_range is not None:  # only when set: keeps older run digests
            d["normalize_range"] = list(self.normalize_range)
        if self.sweep is not None:
            d["sweep"] = self.sweep.to_dict()
        return d


@dataclass(frozen=True)
class AlgorithmConfig:
    """One algorithm entry (one variant of a swept one): the keys of ``algorithms[i]``."""

    name: str
    label: str
    params: dict[str, Any] = field(default_factory=dict)
    smoke_params: dict[str, Any] = field(default_factory=dict)
    sweep: SweepPoint | None = None

    def to_dict(self) -> dict[str, Any]:
        d = {
            "name": self.name,
            "label": self.label,
            "params": dict(self.params),
            "smoke_params": dict(self.smoke_params),
        }
        if self.sweep is not None:
            d["sweep"] = self.sweep.to_dict()
        return d


@dataclass(frozen=True)
class EvaluationConfig:
    """The ``evaluation`` section."""

    chunk_size: int = 1000
    checkpoints: int = 200
    save_predictions: bool = False
    memory_profile: bool = False
    fused: bool = True
    window: int | None = None
    fading: float | None = None

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {
            "fused": self.fused,
            "chunk_size": self.chunk_size,
            "checkpoints": self.checkpoints,
            "save_predictions": self.save_predictions,
            "memory_profile": self.memory_profile,
        }
        # only when set: keeps the manifests of earlier experiments
        if self.window is not None:
            d["window"] = self.window
        if self.fading is not None:
            d["fading"] = self.fading
        return d


@dataclass(frozen=True)
class OutputsConfig:
    """The ``outputs`` section (``dir`` with ``~`` expanded)."""

    dir: str
    tables: tuple[str, ...] = ("markdown", "csv")
    plots: tuple[str, ...] = ("learning_curve", "time")
    curve_metric: str = "oce"
    cpu_time: bool = False

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "dir": self.dir,
            "tables": list(self.tables),
            "plots": list(self.plots),
            "curve_metric": self.curve_metric,
        }
        if self.cpu_time:  # only when asked: older experiment.json files stay equal
            out["cpu_time"] = True
        return out


@dataclass(frozen=True)
class ReferenceConfig:
    """The ``reference`` section: the paper's numbers."""

    source: str = ""
    values: dict[str, dict[str, dict[str, float | None]]] = field(default_factory=dict)
    cited: tuple[str, ...] = ()
    notes: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "values": self.values,
            "cited": list(self.cited),
            "notes": self.notes,
        }


@dataclass(frozen=True)
class SmokeConfig:
    """The ``smoke`` section: what ``--smoke`` runs."""

    max_samples: int = 2000
    repeats: int = 1
    protocol_params: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"max_samples": self.max_samples, "repeats": self.repeats}
        if self.protocol_params:  # only when set (e.g. a smaller grown network)
            d["protocol_params"] = dict(self.protocol_params)
        return d


@dataclass(frozen=True)
class ExperimentConfig:
    """A validated config: every stream and algorithm entry expanded (sweeps), defaults
    filled in, seeds listed."""

    name: str
    protocol: str
    seeds: tuple[int, ...]
    streams: tuple[StreamConfig, ...]
    algorithms: tuple[AlgorithmConfig, ...]
    metrics: tuple[str, ...]
    evaluation: EvaluationConfig
    outputs: OutputsConfig
    reference: ReferenceConfig
    smoke: SmokeConfig
    description: str = ""
    source_path: str | None = None
    protocol_params: dict[str, Any] = field(default_factory=dict)
    #: notes for the user from validation (optional entries left out); in no digest
    notes: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "description": self.description,
            "protocol": self.protocol,
            "protocol_params": dict(self.protocol_params),
            "seeds": list(self.seeds),
            "streams": [s.to_dict() for s in self.streams],
            "algorithms": [a.to_dict() for a in self.algorithms],
            "metrics": list(self.metrics),
            "evaluation": self.evaluation.to_dict(),
            "outputs": self.outputs.to_dict(),
            "reference": self.reference.to_dict(),
            "smoke": self.smoke.to_dict(),
        }

    def smoke_version(self) -> ExperimentConfig:
        """The config as ``--smoke`` runs it: few samples, one repetition, tiny budgets."""
        streams = tuple(
            StreamConfig(
                **{
                    **s.to_dict(),
                    "normalize_range": s.normalize_range,
                    "sweep": s.sweep,
                    "max_samples": min(s.max_samples or self.smoke.max_samples,
                                       self.smoke.max_samples),
                    "normalize_warmup": (
                        None if s.normalize_warmup is None
                        else min(s.normalize_warmup, self.smoke.max_samples)
                    ),
                }
            )
            for s in self.streams
        )
        algorithms = tuple(
            AlgorithmConfig(
                name=a.name,
                label=a.label,
                params={**a.params, **a.smoke_params},
                smoke_params={},
                sweep=a.sweep,
            )
            for a in self.algorithms
        )
        return ExperimentConfig(
            name=self.name,
            protocol=self.protocol,
            seeds=self.seeds[: self.smoke.repeats],
            streams=streams,
            algorithms=algorithms,
            metrics=self.metrics,
            evaluation=self.evaluation,
            outputs=self.outputs,
            reference=self.reference,
            smoke=self.smoke,
            description=self.description,
            source_path=self.source_path,
            notes=self.notes,
            protocol_params={**self.protocol_params, **self.smoke.protocol_params},
        )

