"""``python -m callstream``: the ``callstream`` command, as the console script runs it
(the same as ``python -m callstream.cli``)."""

from __future__ import annotations

from callstream.cli import main

raise SystemExit(main())
