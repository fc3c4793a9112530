"""``python -m vault_mem.cli``: kept for git hooks installed by vault-mem 0.1, which run this
module; new hooks run ``python -m vault_mem``. The command line lives in
:mod:`vault_mem.adapters.cli`."""

import sys

from vault_mem.adapters.cli import main

__all__ = ["main"]

if __name__ == "__main__":
    sys.exit(main())
