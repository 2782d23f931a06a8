"""``python -m callstream.cli``: the same as the ``callstream`` console script."""

from __future__ import annotations

from callstream.cli import main

raise SystemExit(main())
