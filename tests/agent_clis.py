"""The real agent CLIs (Claude Code, Codex, Gemini CLI) for the end-to-end tests: where they are,
the environment a session runs in, and ``vault-mem connect`` run as a person runs it.

Shared by tests/test_connect.py, tests/test_distill.py and tests/test_vaults.py; the fixtures
(``project``, ``two_vaults``) are in tests/conftest.py.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def agent_cli(name: str) -> str:
    """The agent CLI ``name``'s executable; the test is skipped, saying why, without it."""
    for folder in (os.environ.get("VAULT_MEM_AGENT_CLIS"), ROOT / ".ci" / "node" / "node_modules" / ".bin"):
        if folder and (Path(folder) / name).is_file():
            return str(Path(folder) / name)
    found = shutil.which(name)
    if found:
        return found
    if shutil.which("node") is None:
        pytest.skip(f"node is not installed, so the {name} CLI cannot run (bash .ci/run installs it)")
    pytest.skip(f"the {name} CLI is not installed: `npm install --prefix .ci/node` with its package, "
                "or set VAULT_MEM_AGENT_CLIS to a node_modules/.bin holding it")


#: the model API's address for a Claude Code command that asks no model (``mcp list``, ``mcp
#: get``, ``plugin validate``): loopback, nothing listening. With no address given, Claude Code
#: (2.1.197) looks up api.anthropic.com at its start, and on this network-less machine its
#: retries (1, 2, 4, 8 s apart) held `mcp list` and `mcp get` ~18 s each before they went on (21 s
#: wall for 0.7 s of CPU); given an address of its own, it sends nothing there for these commands.
NO_MODEL_URL = "http://127.0.0.1:9"


def claude_env(home: Path, model_url: str | None = None) -> dict[str, str]:
    """Claude Code's environment: its own home, the stand-in model at ``model_url`` (none:
    :data:`NO_MODEL_URL`)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "CLAUDE"))}
    env.update(HOME=str(home), ANTHROPIC_API_KEY="sk-stand-in", DISABLE_TELEMETRY="1",
               CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1", DISABLE_AUTOUPDATER="1")
    env.pop("VAULT_MEM_VAULT", None)
    env["VAULT_MEM_EMBEDDER"] = "local"  # the bundled model, as a person's agent runs it
    env["ANTHROPIC_BASE_URL"] = model_url or NO_MODEL_URL
    return env


def connect_cli(proj: Path, home: Path, *extra: str, agent: str = "claude-code", pin: bool = True) -> str:
    """``vault-mem [--vault PROJ/memory] connect AGENT EXTRA...`` run in ``proj`` (``pin``: name
    the project's vault; without it, sessions use the vaults of their working folder). Its stdout.

    In this process (tests/conftest.py's ``cli``): what it writes is the same as a separate
    process's (the entry point it names is the one beside this Python either way), and the agent
    CLI that reads it is the real process; a ``vault-mem`` start-up here was ~0.1 s of CPU a call."""
    from conftest import cli

    pinned = ["--vault", str(proj / "memory")] if pin else []
    r = cli(*pinned, "connect", agent, *extra, cwd=proj, env={"HOME": str(home)})
    assert r.returncode == 0, r.stderr
    return r.stdout
