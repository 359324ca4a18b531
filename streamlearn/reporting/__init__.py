"""Tables and plots built from saved run records only."""

from __future__ import annotations
