"""``vault-mem doctor``'s check lives in ops/doctor.py; the command only prints what it found.

Real vaults: a healthy one, then one with an unusable file, a stale INDEX.md and a git hook
removed, checked through :func:`diagnose` and through the real command line, which must report
exactly what the check computed.
"""

from __future__ import annotations

import json

from conftest import cli

from vault_mem.ops.doctor import Diagnosis, diagnose
from vault_mem.store.hooks import hooks_dir


def test_a_healthy_vault_is_ok(vault):
    vault.remember("alpha", "Alpha is the first fact", "one\n")
    found = diagnose(vault)
    assert isinstance(found, Diagnosis) and found.ok and found.to_dict()["ok"] is True
    assert (found.differences, found.problems, found.quarantined, found.blockers, found.history,
            found.ignored_folders) == ([], [], [], [], None, [])
    assert found.index_md_current


def test_what_is_wrong_is_found_and_the_command_prints_it(vault):
    vault.remember("alpha", "Alpha is the first fact", "one\n")
    (vault.root / "facts/broken.md").write_text("---\ndescription: [unclosed\n---\nbody\n")
    vault.reconcile()  # the broken file is seen; INDEX.md is then made stale by hand
    (vault.root / "INDEX.md").write_text("stale\n")
    (hooks_dir(vault) / "pre-commit").unlink()
    found = diagnose(vault)
    assert not found.ok
    assert [p.path for p in found.problems] == ["facts/broken.md"]
    assert found.index_md_current is False
    assert any("pre-commit" in w for w in found.warnings), found.warnings
    data = found.to_dict()
    assert list(data) == ["ok", "history", "differences", "blockers", "ignored_folders", "problems",
                          "quarantined", "index_md_current", "daemon_pid", "warnings"]
    r = cli("--vault", str(vault.root), "doctor", "--json")
    assert r.returncode == 1
    shown = json.loads(r.stdout)
    assert {k: shown[k] for k in data} == data
    text = cli("--vault", str(vault.root), "doctor").stdout
    assert "unusable file facts/broken.md" in text and "INDEX.md does not match the files" in text
