"""Evaluation protocols, one module each: how one (stream, algorithm, seed) run is carried
out and scored. Every public module is imported so that its ``@register_protocol``
decorator runs: a new protocol is a new module here."""

from __future__ import annotations

from streamlearn._discovery import import_public_modules

import_public_modules(__path__, __name__)
