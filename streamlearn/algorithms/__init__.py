"""Registered algorithms: every public module in this package and its subpackages is imported
so that its ``@register_*`` decorators run (discovery, as in scikit-learn's
``all_estimators``): a new module is found, not listed."""

from __future__ import annotations

from streamlearn._discovery import import_public_modules

import_public_modules(__path__, __name__)
