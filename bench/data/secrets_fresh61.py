"""fresh61 whole: the tuning half (``secrets_fresh61a.py``) and the held-out half
(``secrets_fresh61b.py``) together, 84 credential forms and 90 look-alikes.

    python bench/bench_secrets.py --set fresh61 [--misses]
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import secrets_fresh61a as _a  # noqa: E402
import secrets_fresh61b as _b  # noqa: E402

FORMS = _a.FORMS + _b.FORMS
LOOK_ALIKES = _a.LOOK_ALIKES + _b.LOOK_ALIKES
