"""Claude Code hooks and git hooks, run the way their hosts run them.

Claude Code sends one JSON object on stdin (``session_id``, ``transcript_path``, ``cwd``,
``hook_event_name`` and the event's own fields, e.g. ``prompt``) and reads, on exit 0, a JSON
object whose ``hookSpecificOutput`` has ``hookEventName`` and ``additionalContext``
(code.claude.com/docs/en/hooks). The Claude Code side runs ``vault-mem hook NAME`` in process
(conftest's ``cli``: the same stdin, stdout and exit code, without a new interpreter each time).
git runs the installed scripts itself, as real processes: these tests make real commits,
checkouts and merges.
"""

from __future__ import annotations

import json
import os
import random
import re
import shlex
import shutil
import string
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import app_repository, cli, git, parse_fenced, publish
from fakes import write_memory

from vault_mem import Vault
from vault_mem.adapters.contexts import MAX_CONTEXT_CHARS, PROMPT_BODY_CHARS, prompt_context
from vault_mem.adapters.hooks import run_hook
from vault_mem.model.indexmd import READER_NOTE
from vault_mem.adapters.tools import memory_preamble
from vault_mem.errors import UsageError
from vault_mem.store import provenance
from vault_mem.store.hooks import HOOK_NAMES, HOOK_PURPOSES, LAUNCHED, RECORD, SHELL_ONLY, hooks_dir, install


def claude_event(event: str, vault_root: Path, **fields) -> str:
    return json.dumps({"session_id": "3f2a9c1e-0000-4000-8000-000000000001",
                       "transcript_path": "/home/u/.claude/projects/p/3f2a9c1e.jsonl",
                       "cwd": str(vault_root), "permission_mode": "default",
                       "hook_event_name": event, **fields})


def check_output(proc, event: str) -> str:
    """The documented shape, exactly: one JSON object, exit 0; returns additionalContext."""
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert set(data) == {"hookSpecificOutput"}
    out = data["hookSpecificOutput"]
    assert set(out) == {"hookEventName", "additionalContext"} and out["hookEventName"] == event
    assert isinstance(out["additionalContext"], str) and len(out["additionalContext"]) < 10_000
    return out["additionalContext"]


@pytest.fixture
def filled(vault):
    vault.remember("editor-choice", "Uses Helix as the main editor (switched from Neovim, Oct 2026)",
                   type="preference", source="user")
    vault.remember("release-steps", "How to cut a release", "1. git pull\n2. make release\n", type="procedure")
    return vault


# -- Claude Code -----------------------------------------------------------------------------
def test_session_start_puts_index_md_into_context(filled):
    proc = cli("hook", "session-start", "--vault", str(filled.root),
               input=claude_event("SessionStart", filled.root, source="startup", model="claude-sonnet-4-5"))
    context = check_output(proc, "SessionStart")
    _, (index,) = parse_fenced(context)
    assert 'file="INDEX.md" authors="A: agent@vault-mem.local (an agent on this machine)"' in index[0]
    # the file's lines, each naming its author; the file's note to agents reading it themselves is not there
    assert re.sub(r", by A\)", ")", index[1]) + "\n" == (filled.root / "INDEX.md").read_text().replace(READER_NOTE, "")
    assert "- editor-choice (" in index[1] and all(
        "by A)" in ln for ln in index[1].splitlines() if ln.startswith("- ")), "every line names its author"
    assert "editor-choice" in context and "recall before remember" in context
    assert context.startswith(memory_preamble(filled.root, tools="vault-mem MCP tools"))


def test_session_start_finds_the_vault_from_the_event_cwd_or_environment(filled):
    sub = filled.root / "facts"
    proc = cli("hook", "session-start", input=claude_event("SessionStart", sub, source="resume"))
    assert "editor-choice" in check_output(proc, "SessionStart")
    proc = cli("hook", "session-start", input=claude_event("SessionStart", Path("/")),
               env={"VAULT_MEM_VAULT": str(filled.root)})
    assert "editor-choice" in check_output(proc, "SessionStart")


def test_session_context_stays_under_the_inline_limit(vault):
    for i in range(400):
        write_memory(vault.root, f"fact-{i:03d}", f"Fact number {i} about a long list of things " + "x" * 60)
    proc = cli("hook", "session-start", "--vault", str(vault.root),
               input=claude_event("SessionStart", vault.root, source="startup"))
    context = check_output(proc, "SessionStart")
    # built within the limit, not cut at its end: the rest is counted where it belongs
    assert len(context) <= MAX_CONTEXT_CHARS and "more: use recall to search them." in context


def test_prompt_gets_the_relevant_memories(filled):
    proc = cli("hook", "user-prompt-submit", "--vault", str(filled.root),
               input=claude_event("UserPromptSubmit", filled.root, prompt="Open this file in my Helix editor"))
    context = check_output(proc, "UserPromptSubmit")
    _, memories = parse_fenced(context)
    assert len(memories) == 1 and 'key="editor-choice" type="preference" author="agent@vault-mem.local" updated="' in memories[0][0]
    assert 'age_days="0"' in memories[0][0] and memories[0][1].startswith("Uses Helix")
    assert "release-steps" not in context


def test_procedures_come_whole(filled):
    proc = cli("hook", "user-prompt-submit", "--vault", str(filled.root),
               input=claude_event("UserPromptSubmit", filled.root, prompt="how do I cut a release?"))
    context = check_output(proc, "UserPromptSubmit")
    assert parse_fenced(context)[1][0][1] == "How to cut a release\n\n1. git pull\n2. make release"


def test_long_bodies_give_descriptions_and_a_pointer_never_a_cut_body(vault):
    """When the hits' bodies together pass PROMPT_BODY_CHARS, every hit shows its description and
    "(details: get KEY)"; no body is shown, so none is cut part-way."""
    steps = "\n".join(f"{i}. deploy the billing service to region {i} and wait for green checks"
                      for i in range(1, 80))
    assert len(steps) > PROMPT_BODY_CHARS
    vault.remember("billing-deploy", "How to deploy the billing service", steps, type="procedure")
    vault.remember("billing-owner", "The billing service is owned by the payments team",
                   "Ask in #payments before a billing deploy.")
    proc = cli("hook", "user-prompt-submit", "--vault", str(vault.root),
               input=claude_event("UserPromptSubmit", vault.root, prompt="deploy the billing service"))
    context = check_output(proc, "UserPromptSubmit")
    memories = {m[0].split('key="')[1].split('"')[0]: m for m in parse_fenced(context)[1]}
    assert memories["billing-deploy"][1] == "How to deploy the billing service"
    assert memories["billing-owner"][1] == "The billing service is owned by the payments team"
    assert 'details="get billing-deploy"' in memories["billing-deploy"][0]
    assert 'details="get billing-owner"' in memories["billing-owner"][0]
    assert "wait for green checks" not in context and "#payments" not in context


def test_nothing_relevant_means_no_output(filled):
    for prompt in ("What is the capital of Peru?", "", "   "):
        proc = cli("hook", "user-prompt-submit", "--vault", str(filled.root),
                   input=claude_event("UserPromptSubmit", filled.root, prompt=prompt))
        assert proc.returncode == 0 and proc.stdout == "" and proc.stderr == ""


def test_old_memories_are_marked_may_be_outdated(vault):
    write_memory(vault.root, "ci-server", "The CI server is named jenkins-01")  # dated 2026-01-05
    proc = cli("hook", "user-prompt-submit", "--vault", str(vault.root),
               input=claude_event("UserPromptSubmit", vault.root, prompt="restart the CI server jenkins"))
    context = check_output(proc, "UserPromptSubmit")
    assert "ci-server" in context and "may be outdated" in context


def test_a_missing_vault_is_a_non_blocking_error(tmp_path):
    proc = cli("hook", "user-prompt-submit", "--vault", str(tmp_path / "gone"),
               input=claude_event("UserPromptSubmit", tmp_path, prompt="hi"))
    assert proc.returncode == 1 and proc.stdout == "" and "not a vault" in proc.stderr  # exit 2 would block


def test_garbage_on_stdin_is_an_empty_event(filled):
    proc = cli("hook", "user-prompt-submit", "--vault", str(filled.root), input="not json")
    assert proc.returncode == 0 and proc.stdout == ""
    proc = cli("hook", "session-start", "--vault", str(filled.root), input="")
    assert "editor-choice" in check_output(proc, "SessionStart")


def test_unknown_hook_name():
    with pytest.raises(UsageError, match="unknown hook"):
        run_hook("pre-push", "")


def test_the_hook_names_are_one_list_for_the_help_the_dispatch_and_the_installed_hooks(filled, tmp_path):
    """`vault-mem hook post-commit` said "unknown hook 'post-commit': use one of ..., post-commit":
    the list named a hook nothing handled (post-commit is plain shell and starts nothing), and the
    help left out `stop`. Now the help lists exactly the names handled, each of them runs, and
    every installed git hook that starts vault-mem names one of them."""
    from vault_mem.adapters.cli_parser import build_parser
    from vault_mem.adapters.hook_names import HOOK_NAMES as NAMES

    root = str(filled.root)
    parser = build_parser("hook")
    sub = next(a for a in parser._actions if a.dest == "command")
    help_text = " ".join(sub.choices["hook"].format_help().split())
    assert "one of " + ", ".join(NAMES) + " " in help_text, help_text
    for name in NAMES:  # each name handled (pre-commit with nothing staged, the post-* refresh)
        code, _, err = run_hook(name, claude_event("Stop", filled.root), vault=root)
        assert code == 0, (name, err)
    started = set()
    for name in HOOK_NAMES:  # the installed git hooks
        text = (hooks_dir(filled) / name).read_text()
        found = re.findall(r'\bhook ([a-z-]+) "\$@"', text)
        assert found == ([name, name] if name in LAUNCHED else []), (name, found)
        started.update(found)
    assert started == set(LAUNCHED) and started <= set(NAMES) and SHELL_ONLY.isdisjoint(NAMES)
    for name in SHELL_ONLY:
        with pytest.raises(UsageError, match=f"unknown hook '{name}'"):
            run_hook(name, "", vault=root)
    # a real commit runs them all quietly: post-commit records the commit and starts nothing
    (filled.root / "facts" / "by-hand.md").write_text("---\ndescription: Written by hand\n---\n\nbody\n")
    git(filled.root, "add", "facts/by-hand.md")
    proc = subprocess.run(["git", "commit", "-m", "by hand"], cwd=filled.root, capture_output=True, text=True,
                          check=False)
    assert proc.returncode == 0 and "vault-mem" not in proc.stderr, proc.stderr


# -- installing the git hooks ----------------------------------------------------------------
def test_install_is_idempotent(vault):
    notes = install(vault)  # "installed", or "already installed" once `vault-mem init` installs them
    assert [n.split(":")[0] for n in notes] == list(HOOK_NAMES) and all("installed" in n for n in notes)
    assert install(vault) == [f"{n}: already installed" for n in HOOK_NAMES]
    for name in HOOK_NAMES:
        path = hooks_dir(vault) / name
        # no path of the vault baked in: it is found from the repository the hook runs in
        assert os.access(path, os.X_OK) and str(vault.root) not in path.read_text()


def test_a_foreign_hook_is_kept_and_chained_never_overwritten(vault):
    target = hooks_dir(vault)
    for name in HOOK_NAMES:  # as if a person's hook was there before vault-mem's
        (target / name).unlink()
    (target / "pre-commit").write_text("#!/bin/sh\necho my-linter ran >> \"$(git rev-parse --show-toplevel)/lint.log\"\n")
    (target / "pre-commit").chmod(0o755)
    notes = install(vault)
    assert any(n.startswith("pre-commit: installed (your hook moved to pre-commit.before-vault-mem") for n in notes)
    assert (target / "pre-commit.before-vault-mem").read_text().startswith("#!/bin/sh\necho my-linter")
    assert install(vault) == [f"{n}: already installed" for n in HOOK_NAMES]  # idempotent, chain kept
    (vault.root / "facts" / "broken.md").write_text("no frontmatter\n")
    git(vault.root, "add", "--", "facts/broken.md")
    proc = subprocess.run(["git", "commit", "-m", "hand edit"], cwd=vault.root, capture_output=True, text=True,
                          check=False)
    assert proc.returncode == 1 and "facts/broken.md" in proc.stderr  # ours ran
    assert (vault.root / "lint.log").read_text() == "my-linter ran\n"  # and theirs, first


def minimal_path(*extra: Path) -> str:
    """A PATH with git and sh but without this Python's bin folder (so no vault-mem on it)."""
    dirs = [str(d) for d in extra] + [str(Path(shutil.which("git")).parent), "/usr/bin", "/bin"]
    assert not any(shutil.which("vault-mem", path=d) for d in dirs[len(extra):]), "vault-mem is installed system-wide"
    return os.pathsep.join(dict.fromkeys(dirs))


def test_a_hook_whose_python_is_gone_refuses_a_vault_commit_and_says_how_to_repair(vault, tmp_path, monkeypatch):
    """The pre-commit hook is the secret gate: with neither its Python nor vault-mem on PATH it
    does not pass silently (it once did, letting unchecked files in); it refuses, naming
    `vault-mem hooks install`. The post-* hooks only say so: they refresh derived state."""
    with monkeypatch.context() as m:
        m.setattr(sys, "executable", str(tmp_path / "uninstalled" / "bin" / "python3"))
        install(vault)
    root = vault.root
    (root / "facts" / "broken.md").write_text("no frontmatter\n")  # would be refused if the hook ran
    git(root, "add", "--", "facts/broken.md")
    env = {**os.environ, "PATH": minimal_path()}
    proc = subprocess.run(["git", "commit", "-m", "hand edit"], cwd=root, capture_output=True, text=True,
                          env=env, check=False)
    assert proc.returncode == 1, proc.stderr
    assert f"the recorded Python ({tmp_path}/uninstalled/bin/python3) is gone" in proc.stderr
    assert "commit refused" in proc.stderr and "`vault-mem hooks install`" in proc.stderr
    assert "--no-verify" in proc.stderr
    proc = subprocess.run(["git", "commit", "--no-verify", "-m", "hand edit"], cwd=root, capture_output=True,
                          text=True, env=env, check=False)
    assert proc.returncode == 0, proc.stderr
    hook = hooks_dir(vault) / "post-merge"
    proc = subprocess.run([str(hook)], cwd=root, capture_output=True, text=True, env=env, check=False)
    assert proc.returncode == 0 and proc.stdout == ""
    assert proc.stderr == (f"vault-mem: the recorded Python ({tmp_path}/uninstalled/bin/python3) is gone and "
                           "vault-mem is not on PATH; the post-merge hook did nothing (repair it: run "
                           f"`vault-mem hooks install` in the vault, or delete {hook})\n")


def test_a_hook_whose_python_is_gone_falls_back_to_vault_mem_on_path(vault, tmp_path, monkeypatch):
    with monkeypatch.context() as m:
        m.setattr(sys, "executable", str(tmp_path / "uninstalled" / "bin" / "python3"))
        install(vault)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "vault-mem").write_text(f"#!/bin/sh\nexec {shlex.quote(sys.executable)} -m vault_mem \"$@\"\n")
    (bin_dir / "vault-mem").chmod(0o755)
    root = vault.root
    (root / "facts" / "broken.md").write_text("no frontmatter\n")
    git(root, "add", "--", "facts/broken.md")
    proc = subprocess.run(["git", "commit", "-m", "hand edit"], cwd=root, capture_output=True, text=True,
                          env={**os.environ, "PATH": minimal_path(bin_dir)}, check=False)
    assert proc.returncode == 1 and "commit refused" in proc.stderr and "facts/broken.md" in proc.stderr
    assert "is gone" not in proc.stderr


def test_installed_hooks_differ_only_in_their_name_purpose_and_missing_tool_rule(vault):
    """One template; only the end differs (what to do when vault-mem cannot be found): the
    pre-commit gate refuses, the others only say so."""
    texts = {name: (hooks_dir(vault) / name).read_text() for name in HOOK_NAMES}  # init installed them
    # pre-commit alone first marks the commit under way (agents do not move the branch under it)
    mark = next(line for line in texts["pre-commit"].splitlines() if "vault-mem-commit" in line)
    assert not any("vault-mem-commit" in texts[n] for n in HOOK_NAMES if n != "pre-commit")
    texts["pre-commit"] = texts["pre-commit"].replace(mark + "\n", "\n")
    def common(name: str) -> str:
        text = texts[name].replace(RECORD.get(name, "") + "\n", "\n")  # post-commit, post-rewrite keep the record
        head = text.split("# neither is there: vault-mem cannot run\n")[0]
        return head.replace(name, "NAME").replace(HOOK_PURPOSES[name], "PURPOSE")
    for name, text in texts.items():
        assert text.startswith(f"#!/bin/sh\n# vault-mem hook: {name} (installed by `vault-mem hooks install`")
        assert not re.search(r"@[A-Z_]+@", text)  # all filled in
        assert text.rstrip().endswith("exit 1" if name == "pre-commit" else "exit 0")
        if name in SHELL_ONLY:  # the record alone, then the end: the part that starts vault-mem left out
            assert text.endswith(RECORD[name] + "\n") and "hook " + name not in text and "$PYTHON" not in text
            assert common("pre-commit").startswith(text.replace(RECORD[name] + "\n", "\n")
                                                   .replace(name, "NAME").replace(HOOK_PURPOSES[name], "PURPOSE"))
            continue
        assert f"hook {name} \"$@\"" in text
        assert common(name) == common("pre-commit")


def test_commits_made_here_by_hand_are_recorded_and_fetched_ones_are_not(vault, tmp_path):
    """The post-commit and post-rewrite hooks record the person's commits (an amend: the new
    commit, as its old one was recorded) as made on this machine; a commit fetched by `git pull`
    is not recorded."""
    root = vault.root
    common = Path(git(root, "rev-parse", "--git-common-dir").strip())
    common = common if common.is_absolute() else root / common
    (root / "facts" / "by-hand.md").write_text("---\ndescription: By hand\n---\nA note.\n")
    git(root, "add", "facts/by-hand.md")
    git(root, "commit", "-q", "-m", "by hand")
    first = git(root, "rev-parse", "HEAD").strip()
    assert first in provenance.recorded(common)[1]
    git(root, "commit", "-q", "--amend", "-m", "by hand, reworded")
    amended = git(root, "rev-parse", "HEAD").strip()
    assert amended != first and amended in provenance.recorded(common)[1]
    publish(root, tmp_path)
    peer = tmp_path / "peer"
    (peer / "facts" / "peer.md").write_text("---\ndescription: A peer's\n---\nText.\n")
    git(peer, "add", "-A")
    git(peer, "commit", "-q", "--no-verify", "-m", "peer")
    git(peer, "push", "-q", "origin", "main")
    fetched = git(peer, "rev-parse", "HEAD").strip()
    (root / "facts" / "mine.md").write_text("---\ndescription: Mine\n---\nText.\n")
    git(root, "add", "facts/mine.md")
    git(root, "commit", "-q", "-m", "mine")
    mine = git(root, "rev-parse", "HEAD").strip()
    git(root, "pull", "-q", "--no-rebase", "--no-edit", "origin", "main")  # the peer's commit comes in
    ids = provenance.recorded(common)[1]
    assert fetched in git(root, "rev-list", "HEAD") and fetched not in ids
    assert mine in ids


# -- pre-commit ------------------------------------------------------------------------------
@pytest.fixture
def hooked(vault):
    install(vault)
    return vault


def commit(root: Path, *paths: str, message: str = "hand edit") -> subprocess.CompletedProcess:
    git(root, "add", "--", *paths)
    return subprocess.run(["git", "commit", "-m", message], cwd=root, capture_output=True, text=True, check=False)


def fake_token() -> str:
    rng = random.Random(7)  # built at run time: no literal for secret scanners to flag
    return "gh" + "p_" + "".join(rng.choice(string.ascii_letters + string.digits) for _ in range(36))


BROKEN = [
    ("facts/bad-yaml.md", "---\ndescription: [unclosed\n---\nbody\n", "frontmatter is not valid YAML"),
    ("facts/no-fence.md", "just text, no frontmatter\n", "no frontmatter"),
    ("facts/no-desc.md", "---\ncreated: 2026-11-29\n---\nbody\n", "'description:' must be"),
    ("facts/Bad Name.md", "---\ndescription: fine\n---\n", "not a valid key"),
    ("facts/sub/deep.md", "---\ndescription: fine\n---\n", "directly in a type folder"),
    ("facts/long-desc.md", "---\ndescription: " + "word " * 60 + "\n---\n", "at most 200"),
    ("facts/huge.md", "---\ndescription: big\n---\n" + "x" * 100_000, "over the limit"),
    ("facts/token.md", "---\ndescription: CI bot access\n---\ntoken: {token}\n", "looks like a"),
    ("facts/binary.md", "---\ndescription: fine\n---\nbody\x00with a NUL\n", "NUL bytes"),  # as the index says
]


@pytest.mark.parametrize("rel, text, reason", BROKEN, ids=[b[0] for b in BROKEN])
def test_a_broken_memory_file_is_refused_with_file_and_reason(hooked, rel, text, reason):
    root = hooked.root
    head = git(root, "rev-parse", "HEAD")
    (root / rel).parent.mkdir(parents=True, exist_ok=True)
    (root / rel).write_text(text.replace("{token}", fake_token()))
    proc = commit(root, rel)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "commit refused" in proc.stderr and rel in proc.stderr and reason in proc.stderr
    assert fake_token() not in proc.stderr
    assert git(root, "rev-parse", "HEAD") == head


def test_a_duplicate_key_is_refused(hooked):
    root = hooked.root
    write_memory(root, "db", "Use Postgres (2026-11-29)", type_="decision")
    write_memory(root, "db", "The database is Postgres")
    proc = commit(root, "decisions/db.md", "facts/db.md")
    assert proc.returncode == 1 and "also used by" in proc.stderr


def test_a_good_hand_commit_gets_index_md_regenerated_and_included(hooked):
    root = hooked.root
    write_memory(root, "deploy-target", "Deploys go to the staging cluster first")
    proc = commit(root, "facts/deploy-target.md")
    assert proc.returncode == 0, proc.stderr
    assert set(git(root, "show", "--name-only", "--format=", "HEAD").split()) == {"facts/deploy-target.md", "INDEX.md"}
    index = git(root, "show", "HEAD:INDEX.md")
    assert "deploy-target" in index and "Deploys go to the staging cluster first" in index
    assert index == (root / "INDEX.md").read_text() == hooked.render_index()
    assert git(root, "status", "--porcelain") == ""
    # and a deletion by hand drops the line
    git(root, "rm", "-q", "facts/deploy-target.md")
    proc = subprocess.run(["git", "commit", "-m", "drop"], cwd=root, capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr
    assert "deploy-target" not in git(root, "show", "HEAD:INDEX.md") and git(root, "status", "--porcelain") == ""


def test_index_md_follows_what_is_staged_not_the_working_tree(hooked):
    root = hooked.root
    write_memory(root, "staged-one", "This one is committed")
    write_memory(root, "not-yet", "This one is still being written")
    proc = commit(root, "facts/staged-one.md")
    assert proc.returncode == 0, proc.stderr
    committed = git(root, "show", "HEAD:INDEX.md")
    assert "staged-one" in committed and "not-yet" not in committed
    on_disk = (root / "INDEX.md").read_text()
    assert "staged-one" in on_disk and "not-yet" in on_disk  # the file follows the files on disk


def test_commit_all_and_commit_paths_modes(hooked):
    """``git commit -a`` and ``git commit PATH`` commit from a temporary index; the hook's INDEX.md
    must land in it."""
    root = hooked.root
    hooked.remember("ci", "CI runs on every push")
    (root / "facts/ci.md").write_text((root / "facts/ci.md").read_text().replace("every push", "every pull request"))
    proc = subprocess.run(["git", "commit", "-qam", "edit"], cwd=root, capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr
    assert "every pull request" in git(root, "show", "HEAD:INDEX.md") and git(root, "status", "--porcelain") == ""
    (root / "facts/ci.md").write_text((root / "facts/ci.md").read_text().replace("pull request", "merge"))
    proc = subprocess.run(["git", "commit", "-qm", "only", "facts/ci.md"], cwd=root, capture_output=True,
                          text=True, check=False)
    assert proc.returncode == 0, proc.stderr
    assert "CI runs on every merge" in git(root, "show", "HEAD:INDEX.md")


def test_a_hand_edited_index_md_is_replaced_by_the_generated_one(hooked):
    root = hooked.root
    (root / "INDEX.md").write_text("my own index\n")
    proc = commit(root, "INDEX.md")
    assert proc.returncode == 0, proc.stderr
    assert git(root, "show", "HEAD:INDEX.md") == hooked.render_index()
    assert (root / "INDEX.md").read_text() == hooked.render_index()


def test_other_files_in_the_vault_pass_untouched(hooked):
    root = hooked.root
    (root / "README.md").write_text("my notes about this vault\n")
    (root / "notes" / "diagram.png").write_bytes(b"\x89PNG\r\n")
    proc = commit(root, "README.md", "notes/diagram.png")
    assert proc.returncode == 0, proc.stderr
    assert "INDEX.md" not in git(root, "show", "--name-only", "--format=", "HEAD")


def test_vault_inside_a_project_repository(tmp_path):
    project = app_repository(tmp_path / "project")
    vault = Vault.init(project / "memory")
    try:
        install(vault)
        (project / "app.py").write_text("print('hello')\n")
        proc = commit(project, "app.py", message="app change")
        assert proc.returncode == 0, proc.stderr
        assert git(project, "show", "--name-only", "--format=", "HEAD").split() == ["app.py"]
        write_memory(vault.root, "lint-rule", "The project lints with ruff")
        proc = commit(project, "memory/facts/lint-rule.md")
        assert proc.returncode == 0, proc.stderr
        assert "lint-rule" in git(project, "show", "HEAD:memory/INDEX.md")
        (vault.root / "facts" / "broken.md").write_text("no frontmatter\n")
        proc = commit(project, "memory/facts/broken.md")
        assert proc.returncode == 1 and "memory/facts/broken.md" in proc.stderr
    finally:
        vault.close()


# -- post-checkout / post-merge --------------------------------------------------------------
def sidecar_keys(root: Path) -> list[str]:
    v = Vault(root)  # opening does not reconcile: this reads what the hooks left in the sidecar
    try:
        return v.sidecar.keys()
    finally:
        v.close()


def test_checkout_and_merge_bring_the_sidecar_up_to_date(hooked):
    root = hooked.root
    git(root, "checkout", "-q", "-b", "topic")
    write_memory(root, "topic-fact", "Only on the topic branch")
    assert commit(root, "facts/topic-fact.md").returncode == 0
    assert "topic-fact" in sidecar_keys(root)
    git(root, "checkout", "-q", "main")
    assert "topic-fact" not in sidecar_keys(root)  # post-checkout reconciled
    git(root, "merge", "-q", "--no-edit", "topic")
    assert "topic-fact" in sidecar_keys(root)  # post-merge reconciled
    assert "topic-fact" in (root / "INDEX.md").read_text()


def test_relevance_with_the_real_embedder(filled):
    """With vectors (the default offline model) a paraphrase finds the memory and an unrelated
    prompt still adds nothing: the floor, not the nearest wrong answer."""
    env = {"VAULT_MEM_EMBEDDER": "local"}
    proc = cli("hook", "user-prompt-submit", "--vault", str(filled.root), env=env,
               input=claude_event("UserPromptSubmit", filled.root, prompt="which text editor do I use?"))
    assert "editor-choice" in check_output(proc, "UserPromptSubmit")
    proc = cli("hook", "user-prompt-submit", "--vault", str(filled.root), env=env,
               input=claude_event("UserPromptSubmit", filled.root, prompt="What is the capital of Peru?"))
    assert proc.returncode == 0 and proc.stdout == "", proc.stdout


def test_a_new_users_first_memories_reach_the_prompt_with_the_real_model(vault, monkeypatch):
    """Four memories, the real model, the real CLI hook: an instruction about the editor gets the
    editor memory injected (the vault's own sample of 4 memories put the floor out of reach; the
    answer check, meant for questions, demoted it on "file"); an unrelated prompt adds nothing."""
    from conftest import real_embedder

    real_embedder()
    monkeypatch.setenv("VAULT_MEM_EMBEDDER", "local")
    with Vault(vault.root) as v:
        v.remember("editor", "Uses Helix as the main editor (switched from Neovim, Oct 2026)",
                   "The user moved to Helix for its built-in LSP support. Neovim config is archived.",
                   type="preference", source="user")
        v.remember("billing-db", "Chose Postgres for billing because it needs row-level locking", type="decision")
        v.remember("shell", "Uses fish as the login shell", type="preference")
        v.remember("ci", "CI runs on GitHub Actions with self-hosted runners")
    proc = cli("hook", "user-prompt-submit", "--vault", str(vault.root),
               input=claude_event("UserPromptSubmit", vault.root, prompt="open the config file in my editor"))
    context = check_output(proc, "UserPromptSubmit")
    assert "Uses Helix as the main editor" in context and "billing-db" not in context
    proc = cli("hook", "user-prompt-submit", "--vault", str(vault.root),
               input=claude_event("UserPromptSubmit", vault.root, prompt="What is the capital of Peru?"))
    assert proc.returncode == 0 and proc.stdout == ""


def test_the_prompt_hook_searches_what_the_person_typed_not_other_hooks_context(filled):
    """Gemini CLI hands BeforeAgent the prompt with the session-start context (INDEX.md, the
    policy) prepended in <hook_context>: searched whole, it matched the policy, not the question."""
    from vault_mem.adapters.contexts import person_prompt

    wrapped = "<hook_context>Long-term memory ...\nINDEX.md ... deploy, billing, editor</hook_context>\n\nwhich text editor do I use?"
    assert person_prompt(wrapped) == "which text editor do I use?"
    proc = cli("hook", "user-prompt-submit", "--vault", str(filled.root),
               input=claude_event("UserPromptSubmit", filled.root, prompt=wrapped))
    assert "editor-choice" in check_output(proc, "UserPromptSubmit")
    assert prompt_context(filled, {"prompt": "<hook_context>only context</hook_context>"}) is None


def test_pre_commit_reads_the_staged_files_in_a_batch_however_many_a_commit_holds(vault, tmp_path):
    """pre-commit read each staged memory file through a `git cat-file` of its own, twice (its
    checks, then the commit's INDEX.md): a person's commit of 1,000 hand-written memories ran
    2,001 git processes and held `git commit` for 40 s (load ~17). Counted from GIT_TRACE, not
    timed; the commit's INDEX.md still lists what it holds, and a bad file is still refused."""
    root = vault.root
    for i in range(150):
        (root / "facts" / f"bulk-{i}.md").write_text(f"---\ndescription: bulk fact number {i}\n---\nBody {i}.\n")
    git(root, "add", "facts")
    trace = tmp_path / "trace.txt"
    env = {**os.environ, "GIT_TRACE": str(trace)}
    subprocess.run(["git", "commit", "-q", "-m", "bulk"], cwd=root, env=env, check=True, capture_output=True)
    reads = [line for line in trace.read_text().splitlines() if "built-in: git cat-file" in line]
    assert len(reads) < 10, f"{len(reads)} git cat-file"
    index = git(root, "show", "HEAD:INDEX.md")
    assert "bulk fact number 0" in index and "bulk fact number 149" in index
    (root / "facts" / "bulk-7.md").write_text("---\ndescription: [unclosed\n---\nBody.\n")
    (root / "facts" / "bulk-8.md").write_text("---\ndescription: bulk fact number 8, edited\n---\nBody 8.\n")
    git(root, "add", "facts")
    proc = subprocess.run(["git", "commit", "-q", "-m", "bad"], cwd=root, capture_output=True, text=True)
    assert proc.returncode != 0 and "bulk-7.md" in proc.stderr and "bulk-8.md" not in proc.stderr, proc.stderr
