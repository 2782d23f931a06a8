"""Run each tool the moment its call is sealed, while the model streams the others.

(Under construction: see issue 14.)
"""

from __future__ import annotations
