"""Metrics: classification and regression (prequential), regret, and the node-update
metrics of the incremental-nodes protocol. Every public module is imported so that its
``@register_metric`` decorators run."""

from __future__ import annotations

from streamlearn._discovery import import_public_modules

import_public_modules(__path__, __name__)
