"""The building blocks of the config schema: kinds of values, keys and sections.

A kind parses one YAML value (:meth:`Kind.parse`, a :class:`~streamlearn.errors.ConfigError`
naming the key path on a mistake) and describes itself as JSON Schema
(:meth:`Kind.json_schema`), so that the validator and ``streamlearn schema`` read the same
declaration (:mod:`streamlearn.config.schema`). A rule that ties several keys together,
or a key to the registries or the data, is not a kind: it lives in
:mod:`streamlearn.config.validation`.

Registry names are not static: a kind that takes one names its table (``"protocols"``,
``"metrics"``, ``"streams"``, ``"algorithms"``) and reads the names from a context, a
mapping from those table names to the names a config may use there.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from streamlearn.errors import ConfigError
from streamlearn.file_names import unprintable_at
from streamlearn.params import _close_matches

#: registry names by table, e.g. ``{"metrics": ["oca", ...], "protocols": [...]}``
Context = Mapping[str, Sequence[str]]

#: a dotted path ``package.module:Class`` (algorithms and streams may be named so)
DOTTED_PATH = r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*:[A-Za-z_][A-Za-z0-9_.]*$"

_NO_DEFAULT: Any = object()
# line breaks, tabs and other control characters (the validator checks every Unicode
# category it refuses, see file_names.unprintable_at; JSON Schema patterns cannot)
_CONTROL = r"\u0000-\u001f\u007f-\u009f\u2028\u2029"
_LABEL_PATTERN = rf"^[^\s{_CONTROL}](?:[^{_CONTROL}]*[^\s{_CONTROL}])?$"


def fail(path: str, message: str) -> ConfigError:
    """The error for the key at ``path`` (``"<top level>"`` for the document)."""
    return ConfigError.at(path, message)


def type_name(value: Any) -> str:
    """``"a mapping"``, ``"an integer"``, ... (what a message says the user gave)."""
    return {dict: "a mapping", list: "a list", str: "a string", bool: "a boolean",
            int: "an integer", float: "a number", type(None): "null"}.get(type(value),
                                                                          type(value).__name__)


def key_path(path: str, key: Any) -> str:
    """``path.key``, or ``key`` at the top level."""
    return f"{path}.{key}" if path else str(key)


def mapping(value: Any, path: str) -> dict[str, Any]:
    """A mapping (``null`` is an empty one)."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise fail(path, f"expected a mapping (key: value), got {type_name(value)} {value!r}.")
    return value


def text(value: Any, path: str) -> str:
    """A non-empty string."""
    if not isinstance(value, str) or not value:
        raise fail(path, f"expected a non-empty string, got {type_name(value)} {value!r}.")
    return value


def label(value: Any, path: str, how: str = "") -> str:
    """A label: a non-empty string of plain printable text (it becomes a table row or
    heading, a plot legend and part of file names). ``how`` says where the text came from
    when it was derived (e.g. a filled sweep template)."""
    import unicodedata

    s = text(value, path)
    k = unprintable_at(s)
    if k is not None:
        ch = s[k]
        name = unicodedata.name(ch, f"U+{ord(ch):04X}")
        raise fail(path, f"the label {s!r}{how} contains the unprintable character "
                   f"{ch!r} ({name}) at position {k + 1}; a label is plain printable "
                   "text on one line (it becomes a table row, a heading and part of "
                   "file names).")
    if s != s.strip():
        raise fail(path, f"the label {s!r}{how} starts or ends with a space; remove it.")
    return s


def choice(value: Any, path: str, choices: Sequence[str]) -> str:
    """One of ``choices`` (the message offers the close ones)."""
    if not isinstance(value, str) or value not in choices:
        hint = _close_matches(str(value), list(choices))
        raise fail(path, f"invalid value {value!r}.{hint} Valid values: {', '.join(choices)}.")
    return value


def _or_null(schema: dict[str, Any], nullable: bool) -> dict[str, Any]:
    if not nullable:
        return schema
    kind = schema["type"]
    return {**schema, "type": [*(kind if isinstance(kind, list) else [kind]), "null"]}


# --------------------------------------------------------------------------------------
# Kinds of values
# --------------------------------------------------------------------------------------


class Kind:
    """A kind of config value: parses one, and says what it is as JSON Schema."""

    def parse(self, value: Any, path: str, names: Context) -> Any:
        raise NotImplementedError

    def json_schema(self, names: Context) -> dict[str, Any]:
        raise NotImplementedError


@dataclass(frozen=True)
class Integer(Kind):
    """An integer in ``[low, high]``; ``too_high`` is the message above ``high``
    (``{value}``, ``{high}`` filled in)."""

    low: int | None = None
    high: int | None = None
    nullable: bool = False
    too_high: str = "must be ≤ {high}, got {value}."

    def parse(self, value: Any, path: str, names: Context) -> int | None:
        if value is None and self.nullable:
            return None
        if isinstance(value, bool) or not isinstance(value, int):
            raise fail(path, f"expected an integer, got {type_name(value)} {value!r}.")
        if self.low is not None and value < self.low:
            raise fail(path, f"must be ≥ {self.low}, got {value}.")
        if self.high is not None and value > self.high:
            raise fail(path, self.too_high.format(value=value, high=self.high))
        return value

    def json_schema(self, names: Context) -> dict[str, Any]:
        out: dict[str, Any] = {"type": "integer"}
        if self.low is not None:
            out["minimum"] = self.low
        if self.high is not None:
            out["maximum"] = self.high
        return _or_null(out, self.nullable)


@dataclass(frozen=True)
class Fraction(Kind):
    """A real number strictly between 0 and 1 (e.g. a fading factor), or null when
    nullable."""

    nullable: bool = False

    def parse(self, value: Any, path: str, names: Context) -> float | None:
        if value is None and self.nullable:
            return None
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise fail(path, f"expected a number between 0 and 1, got {type_name(value)} "
                             f"{value!r}.")
        if not (math.isfinite(value) and 0.0 < value < 1.0):
            raise fail(path, f"must be strictly between 0 and 1, got {value!r}.")
        return float(value)

    def json_schema(self, names: Context) -> dict[str, Any]:
        return _or_null({"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1},
                        self.nullable)


@dataclass(frozen=True)
class Boolean(Kind):
    """``true`` or ``false`` (or ``null`` when nullable: "decide for me")."""

    nullable: bool = False

    def parse(self, value: Any, path: str, names: Context) -> bool | None:
        if value is None and self.nullable:
            return None
        if not isinstance(value, bool):
            raise fail(path, f"expected true or false, got {type_name(value)} {value!r}.")
        return value

    def json_schema(self, names: Context) -> dict[str, Any]:
        return _or_null({"type": "boolean"}, self.nullable)


@dataclass(frozen=True)
class String(Kind):
    """A non-empty string, optionally matching ``pattern`` (else ``mismatch``, with
    ``{value}`` filled in)."""

    pattern: str | None = None
    mismatch: str = ""

    def parse(self, value: Any, path: str, names: Context) -> str:
        s = text(value, path)
        if self.pattern is not None and not re.search(self.pattern, s):
            raise fail(path, self.mismatch.format(value=s))
        return s

    def json_schema(self, names: Context) -> dict[str, Any]:
        out: dict[str, Any] = {"type": "string", "minLength": 1}
        if self.pattern is not None:
            out["pattern"] = self.pattern
        return out


@dataclass(frozen=True)
class Text(Kind):
    """Free text for people (a description, a source); any value is read as text."""

    def parse(self, value: Any, path: str, names: Context) -> str:
        return str(value)

    def json_schema(self, names: Context) -> dict[str, Any]:
        return {"type": "string"}


@dataclass(frozen=True)
class Label(Kind):
    """A label: plain printable text on one line, no spaces around it (:func:`label`)."""

    def parse(self, value: Any, path: str, names: Context) -> str:
        return label(value, path)

    def json_schema(self, names: Context) -> dict[str, Any]:
        return {"type": "string", "minLength": 1, "pattern": _LABEL_PATTERN}


@dataclass(frozen=True)
class Choice(Kind):
    """One of fixed ``choices``, or of the names of the registry table ``table``.
    ``text_first``: a value that is not a non-empty string gets :func:`text`'s message."""

    choices: tuple[str, ...] = ()
    table: str | None = None
    text_first: bool = False

    def options(self, names: Context) -> list[str]:
        return list(names[self.table]) if self.table is not None else list(self.choices)

    def parse(self, value: Any, path: str, names: Context) -> str:
        if self.text_first:
            text(value, path)
        return choice(value, path, self.options(names))

    def json_schema(self, names: Context) -> dict[str, Any]:
        return {"enum": self.options(names)}


@dataclass(frozen=True)
class ComponentName(Kind):
    """A name in the registry table ``table`` or a dotted path ``package.module:Class``.
    Parsing only requires a non-empty string: the lookup (plugins and dotted paths
    included) and its message are the validator's."""

    table: str

    def parse(self, value: Any, path: str, names: Context) -> str:
        return text(value, path)

    def json_schema(self, names: Context) -> dict[str, Any]:
        return {"anyOf": [{"enum": list(names[self.table])},
                          {"type": "string", "pattern": DOTTED_PATH}]}


@dataclass(frozen=True)
class ListOf(Kind):
    """A list of distinct ``item`` values; a single value stands for a list of one.
    ``empty`` (with the context's names filled in) refuses an empty list."""

    item: Kind
    empty: str = ""

    def parse(self, value: Any, path: str, names: Context) -> tuple[Any, ...]:
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list):
            raise fail(path, f"expected a list, got {type_name(value)} {value!r}.")
        out = [self.item.parse(v, f"{path}[{i}]", names) for i, v in enumerate(value)]
        if len(set(out)) != len(out):
            raise fail(path, f"duplicate entries in {out}.")
        if not out and self.empty:
            raise fail(path, self.empty.format(**{k: ", ".join(v) for k, v in names.items()}))
        return tuple(out)

    def json_schema(self, names: Context) -> dict[str, Any]:
        item = self.item.json_schema(names)
        many: dict[str, Any] = {"type": "array", "items": item, "uniqueItems": True}
        if self.empty:
            many["minItems"] = 1
        return {"anyOf": [item, many]}


@dataclass(frozen=True)
class Parameters(Kind):
    """Keyword parameters of a component (checked against its signature by the
    validator); ``null`` is none."""

    def parse(self, value: Any, path: str, names: Context) -> dict[str, Any]:
        return dict(mapping(value, path))

    def json_schema(self, names: Context) -> dict[str, Any]:
        return {"type": ["object", "null"]}


@dataclass(frozen=True)
class Seeds(Kind):
    """A non-empty list of distinct integers ≥ 0."""

    def parse(self, value: Any, path: str, names: Context) -> tuple[int, ...]:
        if not isinstance(value, list) or not value:
            raise fail(path, f"expected a non-empty list of integers, got {value!r}.")
        seed = Integer(low=0)
        seeds = tuple(seed.parse(s, f"{path}[{i}]", names) for i, s in enumerate(value))
        if len(set(seeds)) != len(seeds):
            raise fail(path, f"duplicate seeds in {list(seeds)}.")
        return seeds  # type: ignore[return-value]

    def json_schema(self, names: Context) -> dict[str, Any]:
        return {"type": "array", "minItems": 1, "uniqueItems": True,
                "items": {"type": "integer", "minimum": 0}}


@dataclass(frozen=True)
class Range(Kind):
    """A declared ``[lo, hi]`` input range: two finite numbers, ``lo < hi``; or null."""

    def parse(self, value: Any, path: str, names: Context) -> tuple[float, float] | None:
        if value is None:
            return None
        ok = (
            isinstance(value, list)
            and len(value) == 2
            and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in value)
        )
        if ok:
            lo, hi = float(value[0]), float(value[1])
            ok = math.isfinite(lo) and math.isfinite(hi) and lo < hi
        if not ok:
            raise fail(path, f"must be a list [lo, hi] of two finite numbers with lo < hi, "
                       f"got {value!r}.")
        return lo, hi

    def json_schema(self, names: Context) -> dict[str, Any]:
        return {"type": ["array", "null"], "minItems": 2, "maxItems": 2,
                "items": {"type": "number"}}


def _equal(a: Any, b: Any) -> bool:
    """``a == b`` as one truth value (False where the comparison is not one)."""
    try:
        return bool(a == b)
    except Exception:
        return False


@dataclass(frozen=True)
class Sweep(Kind):
    """``{parameter: [value, ...], ...}``: parameter names with non-empty lists of
    distinct values, in the order written."""

    def parse(self, value: Any, path: str, names: Context) -> dict[str, list[Any]]:
        d = mapping(value, path)
        if not d:
            raise fail(path, "is empty: give at least one parameter with a list of values.")
        for key, values in d.items():
            if not isinstance(key, str):
                raise fail(path, f"keys must be parameter names, got {key!r}.")
            if not isinstance(values, list) or not values:
                raise fail(f"{path}.{key}", f"expected a non-empty list of values, got "
                           f"{type_name(values)} {values!r}.")
            reprs = [repr(v) for v in values]
            if len(set(reprs)) != len(reprs):
                raise fail(f"{path}.{key}", f"duplicate values in {values!r}.")
            same = [(a, b) for i, a in enumerate(values) for b in values[i + 1:]
                    if _equal(a, b)]
            if same:  # 1 and 1.0, true and 1: one parameter value under two labels
                raise fail(f"{path}.{key}", f"the values {same[0][0]!r} and {same[0][1]!r} "
                           f"are equal (one parameter value, two sweep points); keep one.")
        return dict(d)

    def json_schema(self, names: Context) -> dict[str, Any]:
        return {"type": "object", "minProperties": 1,
                "additionalProperties": {"type": "array", "minItems": 1}}


@dataclass(frozen=True)
class ReferenceValues(Kind):
    """stream label → algorithm label → metric → a number (``null``: not reported)."""

    def parse(self, value: Any, path: str,
              names: Context) -> dict[str, dict[str, dict[str, float | None]]]:
        out: dict[str, dict[str, dict[str, float | None]]] = {}
        for s_label, per_algo in mapping(value, path).items():
            out[s_label] = {}
            for a_label, per_metric in mapping(per_algo, f"{path}.{s_label}").items():
                p = f"{path}.{s_label}.{a_label}"
                out[s_label][a_label] = {}
                for metric, v in mapping(per_metric, p).items():
                    if v is not None and (isinstance(v, bool) or not isinstance(v, int | float)):
                        raise fail(f"{p}.{metric}", f"expected a number (percent), got {v!r}.")
                    out[s_label][a_label][metric] = None if v is None else float(v)
        return out

    def json_schema(self, names: Context) -> dict[str, Any]:
        number = {"type": ["number", "null"]}
        per_algo = {"type": ["object", "null"], "additionalProperties": number}
        per_stream = {"type": ["object", "null"], "additionalProperties": per_algo}
        return {"type": ["object", "null"], "additionalProperties": per_stream}


# --------------------------------------------------------------------------------------
# Keys and sections
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Key:
    """One config key: its kind, what it means, and its default — a value as written in
    YAML (``default``), or, when it depends on other keys, a sentence (``computed``)."""

    name: str
    kind: Kind
    doc: str
    required: bool = False
    default: Any = _NO_DEFAULT
    computed: str = ""

    @property
    def has_default(self) -> bool:
        return self.default is not _NO_DEFAULT

    def json_schema(self, names: Context) -> dict[str, Any]:
        out = dict(self.kind.json_schema(names))
        doc = self.doc + (f" Default: {self.computed}." if self.computed else "")
        out["description"] = doc
        if self.has_default:
            out["default"] = self.default
        return out


@dataclass(frozen=True)
class Section(Kind):
    """A mapping with declared keys. ``shorthand`` names the key a bare string stands
    for (``- sea`` is ``- {name: sea}``); ``exclusive`` pairs of keys may not be given
    together; ``one_of`` keys: at least one must be given."""

    keys: tuple[Key, ...]
    doc: str = ""
    shorthand: str | None = None
    exclusive: tuple[tuple[str, str], ...] = ()
    one_of: tuple[str, ...] = ()
    nullable: bool = True
    _index: dict[str, Key] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_index", {k.name: k for k in self.keys})

    @property
    def required(self) -> list[str]:
        return [k.name for k in self.keys if k.required]

    def check_keys(self, d: dict[Any, Any], path: str) -> None:
        """Unknown keys (with the close ones), then missing required keys, then keys
        given together that exclude each other."""
        allowed = sorted(self._index)
        for key in d:
            if not isinstance(key, str):
                raise fail(path, f"keys must be strings, got {key!r}.")
            if key not in self._index:
                raise fail(key_path(path, key),
                           f"unknown key {key!r}.{_close_matches(key, allowed)} "
                           f"Valid keys here: {', '.join(allowed)}.")
        for key in sorted(self.required):
            if key not in d:
                raise fail(path or "<top level>", f"the required key {key!r} is missing.")
        if self.one_of and not any(k in d for k in self.one_of):
            raise fail(path or "<top level>", f"the required key {self.one_of[0]!r} is "
                       "missing.")
        for first, second in self.exclusive:
            if first in d and second in d:
                raise fail(key_path(path, first), f"give either {first!r} or {second!r}, "
                           "not both.")

    def value(self, d: dict[str, Any], name: str, path: str, names: Context,
              default: Any = _NO_DEFAULT) -> Any:
        """Key ``name`` of the checked mapping ``d``, parsed; when absent, its declared
        default, or ``default`` (as written in YAML) for a key whose default is computed."""
        key = self._index[name]
        if name in d:
            return key.kind.parse(d[name], key_path(path, name), names)
        if default is _NO_DEFAULT:
            default = key.default
        if default is _NO_DEFAULT:
            raise KeyError(name)  # a computed default the caller did not give
        return key.kind.parse(default, key_path(path, name), names)

    def parse(self, value: Any, path: str, names: Context,
              defaults: dict[str, Any] | None = None) -> dict[str, Any]:
        """The mapping checked and each key parsed, in declaration order; an absent key
        gets its default: declared, or from ``defaults`` for computed ones (without one,
        it is left out)."""
        if self.shorthand is not None and isinstance(value, str):
            value = {self.shorthand: value}
        d = mapping(value, path)
        self.check_keys(d, path)
        defaults = defaults or {}
        return {k.name: self.value(d, k.name, path, names, defaults.get(k.name, _NO_DEFAULT))
                for k in self.keys if k.name in d or k.has_default or k.name in defaults}

    def json_schema(self, names: Context) -> dict[str, Any]:
        out: dict[str, Any] = {
            "type": ["object", "null"] if self.nullable else "object",
            "properties": {k.name: k.json_schema(names) for k in self.keys},
            "additionalProperties": False,
        }
        if self.doc:
            out["description"] = self.doc
        if self.required:
            out["required"] = self.required
        rules: list[dict[str, Any]] = [{"not": {"required": list(pair)}}
                                       for pair in self.exclusive]
        if self.one_of:
            rules.append({"anyOf": [{"required": [k]} for k in self.one_of]})
        if rules:
            out["allOf"] = rules
        if self.shorthand is not None:
            short = self._index[self.shorthand].kind.json_schema(names)
            out = {"anyOf": [short, out]}
        return out


@dataclass(frozen=True)
class Either(Kind):
    """A bare value (``short``) or a mapping (``full``), e.g. a protocol's name or
    ``{name: ..., params: {...}}``."""

    short: Kind
    full: Section

    def parse(self, value: Any, path: str, names: Context) -> Any:
        if isinstance(value, dict):
            return self.full.parse(value, path, names)
        return self.short.parse(value, path, names)

    def json_schema(self, names: Context) -> dict[str, Any]:
        return {"anyOf": [self.short.json_schema(names), self.full.json_schema(names)]}


@dataclass(frozen=True)
class Entries(Kind):
    """A non-empty list of ``entry`` sections. Parsing checks the list only: the caller
    parses each entry, which may expand into several (a sweep)."""

    entry: Section

    def parse(self, value: Any, path: str, names: Context) -> list[Any]:
        if not isinstance(value, list) or not value:
            raise fail(path, f"expected a non-empty list, got {type_name(value)}.")
        return value

    def json_schema(self, names: Context) -> dict[str, Any]:
        return {"type": "array", "minItems": 1, "items": self.entry.json_schema(names)}
