"""Patterns compiled at their first use (vault_mem/model/lazy_patterns.py): the secret gate's
modules compile none at import, and a stand-in answers as the compiled pattern does."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from vault_mem.model.lazy_patterns import lazy


def test_importing_the_secret_gate_compiles_none_of_its_patterns() -> None:
    """A one-shot write pays only for the patterns its text reaches (issue 29: ~180 patterns,
    ~50 ms of a write's CPU when all were compiled at import)."""
    code = (
        "import sys, vault_mem.model.policy, vault_mem.model.secrets  # the gate: imported at its first check\n"
        "from vault_mem.model.lazy_patterns import _LazyPattern\n"
        "stand_ins = [v for n, m in list(sys.modules.items()) if n.startswith('vault_mem.model.')\n"
        "             for v in vars(m).values() if isinstance(v, _LazyPattern)]\n"
        "rules = [r.pattern for r in sys.modules['vault_mem.model.secret_checks'].COMPILED_RULES]\n"
        "stand_ins += [r for r in rules if isinstance(r, _LazyPattern)]\n"
        "print(len(stand_ins), sum('search' in vars(v) for v in stand_ins))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    made, compiled = int(out[0]), int(out[1])
    assert made > 150
    assert compiled == 0


def test_a_stand_in_answers_as_the_compiled_pattern() -> None:
    text = "token=abc123 and TOKEN=XYZ, then token=q"
    for pattern, flags in ((r"token=(?P<v>\w+)", 0), (r"token=(?P<v>\w+)", re.IGNORECASE), (r"[,=]", 0)):
        real, stand_in = re.compile(pattern, flags), lazy(pattern, flags)
        assert stand_in.pattern == real.pattern
        assert [m.span() for m in stand_in.finditer(text)] == [m.span() for m in real.finditer(text)]
        assert stand_in.search(text, 5).span() == real.search(text, 5).span()
        assert stand_in.sub("#", text) == real.sub("#", text)
        assert stand_in.split(text) == real.split(text)
        assert stand_in.fullmatch(text) is None and real.fullmatch(text) is None
        assert (stand_in.flags, stand_in.groups, dict(stand_in.groupindex)) == \
            (real.flags, real.groups, dict(real.groupindex))


def test_a_broken_pattern_fails_at_its_first_use() -> None:
    broken = lazy(r"(unclosed")
    with pytest.raises(re.error):
        broken.search("x")


def test_every_pattern_of_the_secret_gate_compiles() -> None:
    """Most patterns wait behind a marker a typical text lacks: a typo in one would show only on
    a person's memory. Each is used once here (a search of an empty text compiles it)."""
    code = (
        "import sys, vault_mem.model.policy, vault_mem.model.secrets  # the gate: imported at its first check\n"
        "from vault_mem.model.lazy_patterns import _LazyPattern\n"
        "found = [v for n, m in list(sys.modules.items()) if n.startswith('vault_mem.model.')\n"
        "         for v in vars(m).values() if isinstance(v, _LazyPattern)]\n"
        "found += [r.pattern for r in sys.modules['vault_mem.model.secret_checks'].COMPILED_RULES if isinstance(r.pattern, _LazyPattern)]\n"
        "for p in found:\n"
        "    p.search('')\n"
        "print(len(found))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert int(proc.stdout) > 150
