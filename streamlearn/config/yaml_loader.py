"""A bounded, strict YAML reader for experiment configs.

PyYAML's ``safe_load`` accepts what a config should not: a repeated key silently replaces
the first (a second ``algorithms:`` drops every algorithm above it), an alias bomb
("billion laughs") expands into more nodes than memory holds once the config is walked,
and deep nesting recurses until Python gives up. This reader refuses all three with a
message, and refuses documents larger than :data:`MAX_BYTES`. It also reads ``1e-3`` as
the number it is in YAML 1.2 (PyYAML follows YAML 1.1, where a float needs a dot:
``lam: 1e-3`` was the string ``'1e-3'``, refused as "must be a number").
"""

from __future__ import annotations

import re
from typing import Any

import yaml

MAX_BYTES = 1 << 20  # 1 MiB: the largest config here is ~5 KB
MAX_NODES = 200_000  # scalars + collections after alias expansion
MAX_DEPTH = 64


class YAMLConfigError(ValueError):
    """The document is not an acceptable config document (the message says why)."""


class _StrictLoader(yaml.SafeLoader):
    """SafeLoader that rejects duplicate mapping keys."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict:
        seen: dict[Any, int] = {}
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=True)
            try:
                hash(key)
            except TypeError:
                continue  # SafeLoader reports unhashable keys itself
            line = key_node.start_mark.line + 1
            if key in seen:
                raise YAMLConfigError(
                    f"duplicate key {key!r} at line {line} (first at line {seen[key]}); "
                    "a repeated key would silently replace the first one.")
            seen[key] = line
        return super().construct_mapping(node, deep=deep)


#: YAML 1.2's floats without a dot (``1e-3``, ``-2E5``); the dotted ones, ``.inf`` and
#: ``.nan`` PyYAML reads already, and integers stay integers (their resolver comes first)
_EXPONENT_FLOAT = re.compile(r"^[-+]?[0-9][0-9_]*[eE][-+]?[0-9]+$")
_StrictLoader.add_implicit_resolver("tag:yaml.org,2002:float", _EXPONENT_FLOAT,
                                    list("-+0123456789"))


def _check_size(root: yaml.Node) -> None:
    """Count nodes with aliases expanded and measure depth, without recursion."""
    count = 0
    stack: list[tuple[yaml.Node, int]] = [(root, 1)]
    while stack:
        node, depth = stack.pop()
        count += 1
        if count > MAX_NODES:
            raise YAMLConfigError(
                f"the document expands to more than {MAX_NODES:,} values (are aliases "
                "repeating a large block?); a config is far smaller.")
        if depth > MAX_DEPTH:
            raise YAMLConfigError(f"the document is nested more than {MAX_DEPTH} levels deep.")
        if isinstance(node, yaml.MappingNode):
            for k, v in node.value:
                stack.append((k, depth + 1))
                stack.append((v, depth + 1))
        elif isinstance(node, yaml.SequenceNode):
            stack.extend((v, depth + 1) for v in node.value)


def load_yaml(text: str) -> Any:
    """Parse one YAML document with the bounds above; :class:`YAMLConfigError` or
    :class:`yaml.YAMLError` on a bad document."""
    if len(text.encode("utf-8", errors="replace")) > MAX_BYTES:
        raise YAMLConfigError(f"the file is larger than {MAX_BYTES // 1024} KiB; "
                              "a config is far smaller.")
    loader = _StrictLoader(text)
    try:
        try:
            root = loader.get_single_node()
        except RecursionError:
            raise YAMLConfigError(
                f"the document is nested more than {MAX_DEPTH} levels deep.") from None
        if root is None:
            return None
        _check_size(root)
        return loader.construct_document(root)
    finally:
        loader.dispose()
