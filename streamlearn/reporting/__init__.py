"""Tables and plots built from saved run records only: those of any experiment
(``streamlearn report``: summary, tables, plots, html) and those of the reproduced papers
(``papers/``, ``streamlearn tables``)."""

from __future__ import annotations
