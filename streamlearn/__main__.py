"""``python -m streamlearn``: the same as the ``streamlearn`` command."""

from __future__ import annotations

from streamlearn._entry import main

main()
