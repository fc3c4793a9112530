"""``python -m vault_mem``: the command line (what the installed git hooks run)."""

import sys

from vault_mem.adapters.cli import main

if __name__ == "__main__":
    sys.exit(main())
