"""The real CLI: exit codes, --json, stdin bodies, help for every command.

Run in process through ``main([...])`` (conftest's ``cli``); one test runs ``python -m vault_mem``
as a real process, for the entry point itself."""

import datetime as dt
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import cli, git, new_vault, run_cli

from vault_mem.index import vectors
from vault_mem.adapters.cli_parser import build_parser


@pytest.fixture
def vdir(tmp_path):
    """A fresh vault's folder: what `vault-mem init` makes there (:func:`conftest.new_vault`: a copy
    of one made once per worker; the tests of `init` itself run it)."""
    new_vault(tmp_path / "v").close()
    return tmp_path / "v"


def test_every_command_has_help():
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    assert len(sub.choices) >= 20
    for name, p in sub.choices.items():
        assert p.description, name
        assert "--json" in p.format_help(), name



def _parse(parser, argv):
    """(namespace or None, exit code or None, stdout, stderr) of ``parser.parse_args(argv)``."""
    import contextlib
    import io

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            return vars(parser.parse_args(argv)), None, out.getvalue(), err.getvalue()
        except SystemExit as exc:
            return None, exc.code, out.getvalue(), err.getvalue()


def test_a_command_parses_with_its_own_parser_exactly_as_with_the_whole():
    from vault_mem.adapters.cli_parser import COMMAND_NAMES, command_named

    whole = build_parser()
    sub = next(a for a in whole._actions if a.dest == "command")
    assert tuple(sub.choices) == COMMAND_NAMES  # the list the one-shot start reads is the parser's
    lines = [[], ["-h"], ["--help"], ["--json"], ["--vault", "x"], ["--vault=x", "--json"], ["--agent", "a", "-k", "3"],
             ["--nope"], ["-k", "2", "a"], ["x", "y", "--json"], ["--help", "--vault", "v"],
             ["--description", "d", "k", "--tags", "a,b", "--pinned"], ["--type", "fact"]]
    for name in COMMAND_NAMES:
        own = build_parser(name)
        for rest in lines:
            for argv in ([name, *rest], ["--vault", "v", name, *rest], ["--json", "--agent=a", name, *rest]):
                assert command_named(argv) == name, argv
                assert _parse(own, argv) == _parse(whole, argv), argv
    # no command found: the whole parser (its help lists every command; an unknown name is refused by it)
    for argv in [[], ["-h"], ["--help"], ["--he", "remember"], ["-h", "remember"], ["--vault"], ["nope"],
                 ["--vault", "remember"], ["--", "remember"], ["--v", "remember"], ["-x", "remember"], ["--version"]]:
        assert command_named(argv) is None, argv
    assert command_named(["--vau", "v", "recall", "q"]) == "recall"  # an abbreviated --vault takes its value
    assert _parse(whole, ["--help"])[2].count("\n") > 30

def test_the_vault_you_stand_in_wins_over_vault_mem_vault_and_every_write_names_its_vault(tmp_path):
    exported, here = tmp_path / "exported", tmp_path / "project"
    for root in (exported, here):
        assert cli("init", str(root)).returncode == 0
    r = cli("remember", "ci", "-d", "CI runs on Buildkite", cwd=here / "facts",
            env={"VAULT_MEM_VAULT": str(exported)})
    assert r.returncode == 0, r.stderr
    assert (here / "facts" / "ci.md").is_file() and not (exported / "facts" / "ci.md").exists()
    assert r.stdout.startswith(f"create: facts/ci.md in {here.resolve()} (commit ")
    r = cli("forget", "ci", "--json", cwd=here, env={"VAULT_MEM_VAULT": str(exported)})
    assert json.loads(r.stdout)["vault"] == str(here.resolve())
    r = cli("list", "--json", cwd=tmp_path, env={"VAULT_MEM_VAULT": str(exported)})  # in no vault: the fallback
    assert r.returncode == 0, r.stderr


def test_version_prints_the_package_version_without_a_vault(tmp_path):
    from vault_mem.config import VERSION

    r = cli("--version", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == f"vault-mem {VERSION}"


def test_get_of_a_hand_written_memory_with_no_updated_field_says_undated(vdir):
    """A memory written by hand without ``updated:`` is shown "undated" (never "updated None")."""
    (vdir / "facts" / "handmade.md").write_text("---\ndescription: Written by hand, no date\n---\nbody\n")
    r = cli("get", "handmade", "--vault", str(vdir))
    assert r.returncode == 0, r.stderr
    head = r.stdout.splitlines()[0]
    assert "None" not in head and "undated" in head, head


def test_recall_of_a_hand_written_memory_with_no_dates_says_undated(vdir):
    """recall's line of a memory with neither ``created:`` nor ``updated:`` says "undated" as
    ``get`` does (it printed "(fact, None)": attack24)."""
    (vdir / "facts" / "handmade.md").write_text("---\ndescription: Written by hand about quokkas\n---\nbody\n")
    r = cli("recall", "quokkas written by hand", "--vault", str(vdir))
    assert r.returncode == 0, r.stderr
    line = next(x for x in r.stdout.splitlines() if "handmade" in x)
    assert "None" not in line and "(fact, undated)" in line, line


def test_remember_get_list_log_forget_round_trip(vdir):
    r = cli("--vault", str(vdir), "remember", "db-choice", "--type", "decision",
            "-d", "Use Postgres for the ledger", "--tags", "db,infra", "--json",
            input="Because we need row-level locks.\n")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["action"] == "create" and out["path"] == "decisions/db-choice.md" and len(out["commit"]) == 40
    assert "row-level locks" in (vdir / "decisions/db-choice.md").read_text()

    r = cli("get", "db-choice", "--vault", str(vdir), "--json")
    view = json.loads(r.stdout)
    assert view["body"].strip() == "Because we need row-level locks." and view["age_days"] == 0
    assert view["tags"] == ["db", "infra"]

    r = cli("list", "--vault", str(vdir))
    assert "db-choice" in r.stdout and "Use Postgres" in r.stdout

    r = cli("log", "db-choice", "--vault", str(vdir), "--json")
    entries = json.loads(r.stdout)
    assert entries[0]["key"] == "db-choice" and entries[0]["action"] == "create"

    r = cli("forget", "db-choice", "--vault", str(vdir))
    assert r.returncode == 0 and not (vdir / "decisions/db-choice.md").exists()
    r = cli("undo", "db-choice", "--vault", str(vdir))
    assert r.returncode == 0 and (vdir / "decisions/db-choice.md").exists()


def test_exit_codes_and_clear_errors(vdir, tmp_path):
    n = git(vdir, "rev-list", "--count", "HEAD")
    r = cli("--vault", str(vdir), "remember", "../../etc/passwd", "-d", "x")
    assert r.returncode == 2 and "invalid key" in r.stderr and "Traceback" not in r.stderr
    r = cli("--vault", str(vdir), "remember", "ok", "-d", "x", "--type", "memo")
    assert r.returncode == 2 and "unknown type" in r.stderr
    r = cli("--vault", str(vdir), "forget", "nope")
    assert r.returncode == 1 and "no memory with key 'nope'" in r.stderr
    r = cli("--vault", str(tmp_path / "elsewhere"), "list")
    assert r.returncode == 1 and "vault-mem init" in r.stderr
    r = cli("remember")  # argparse usage error
    assert r.returncode == 2
    r = cli("--vault", str(vdir), "remember", "k", "-d", "x", "--json", "--type", "memo")
    assert json.loads(r.stdout)["kind"] == "InvalidMemoryError"
    assert git(vdir, "rev-list", "--count", "HEAD") == n


def test_vault_found_from_cwd_and_env(vdir, tmp_path):
    (vdir / "facts").mkdir(exist_ok=True)
    r = cli("remember", "from-cwd", "-d", "found by walking up", cwd=vdir / "facts")
    assert r.returncode == 0, r.stderr
    r = cli("list", cwd=tmp_path, env={"VAULT_MEM_VAULT": str(vdir)})
    assert "from-cwd" in r.stdout


@pytest.mark.parametrize("where", ["notes.txt", "notes.txt/vault"])
def test_init_on_a_file_says_it_is_a_file(tmp_path, where):
    """`vault-mem init FILE` (or a path through a file) said "[Errno 17] File exists ...; check the
    path, its permissions and the free disk space, then retry": a retry never helps."""
    (tmp_path / "notes.txt").write_text("a person's file\n")
    r = cli("init", str(tmp_path / where))
    assert r.returncode == 2, (r.stdout, r.stderr)
    assert f"{(tmp_path / 'notes.txt').resolve()} is a file, not a folder" in r.stderr, r.stderr
    assert "Errno" not in r.stderr and "disk space" not in r.stderr
    assert (tmp_path / "notes.txt").read_text() == "a person's file\n"


@pytest.mark.parametrize("name", ["vault.toml", "README.md", ".gitignore", "facts"])
def test_init_never_writes_the_template_through_a_link(tmp_path, name):
    """`vault-mem init memory/` in a project where a teammate committed ``memory/NAME`` as a link
    to a file that does not exist yet: init's probe (``exists()``, which follows links) took the
    dangling link for no file and copied the template through it, creating the link's target
    outside the vault (DESIGN §7: vault-mem never follows a link for a file it writes). Now a
    linked vault.toml is refused by name and any other linked template file is left as it is; so
    is a linked type folder (its ``.gitkeep`` was written into the link's target folder)."""
    proj = tmp_path / "proj"
    (proj / "memory").mkdir(parents=True)
    git(proj, "init", "-q")
    if name == "facts":
        (proj / f"planted-{name}").mkdir()
    (proj / "memory" / name).symlink_to(f"../planted-{name}")
    r = cli("init", str(proj / "memory"))
    if name == "facts":
        assert list((proj / f"planted-{name}").iterdir()) == [], (r.stdout, r.stderr)
    else:
        assert not (proj / f"planted-{name}").exists(), (r.stdout, r.stderr)
    assert (proj / "memory" / name).is_symlink()
    if name == "vault.toml":
        assert r.returncode != 0 and "is a symlink" in r.stderr, (r.stdout, r.stderr)
    elif name != "facts":  # (a linked type folder: the vault's reads refuse it by name afterwards)
        assert r.returncode == 0, r.stderr
        assert name not in git(proj, "ls-files", "memory").split(), git(proj, "ls-files")


def test_outside_any_vault_the_error_names_the_ways_to_reach_one_made_elsewhere(vdir, tmp_path, monkeypatch):
    """After the set-up (a vault in ~/agent-memory), `vault-mem list` in another folder said only
    "create one with `vault-mem init THIS-FOLDER` or pass --vault PATH": the person wanted the
    vault they had made. Each way it names now reaches it."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.delenv("VAULT_MEM_VAULT", raising=False)
    monkeypatch.delenv("VAULT_MEM_PERSONAL", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "no-config"))
    r = cli("list", cwd=elsewhere)
    assert r.returncode == 1, r.stderr
    for way in ("--vault PATH", "$VAULT_MEM_VAULT=PATH", "VAULT_MEM_PERSONAL=PATH", f"`vault-mem init {elsewhere.resolve()}`"):
        assert way in r.stderr, (way, r.stderr)
    for env in ({"VAULT_MEM_VAULT": str(vdir)}, {"VAULT_MEM_PERSONAL": str(vdir)}):
        r = cli("list", cwd=elsewhere, env=env)
        assert r.returncode == 0, (env, r.stderr)


def test_init_twice_changes_nothing(vdir):
    head = git(vdir, "rev-parse", "HEAD")
    r = cli("init", str(vdir))
    assert r.returncode == 0 and "already a vault" in r.stdout
    assert git(vdir, "rev-parse", "HEAD") == head


def test_index_prints_what_the_agents_context_carries(vdir):
    """`vault-mem index` is the rendering every agent path uses (fenced, authors named), the
    file's lines in it; the file is for people and git (tests/test_index_note.py)."""
    from vault_mem import Vault
    from vault_mem.adapters.tools import context_index

    cli("--vault", str(vdir), "remember", "a", "-d", "first")
    r = cli("--vault", str(vdir), "index")
    with Vault(vdir) as v:
        assert r.stdout == context_index(v)
    assert "- a (" in r.stdout and "never an instruction" in r.stdout


def test_index_write_brings_the_sidecar_in_line_once(vdir, monkeypatch):
    """`index --write` reconciled twice: the forced one that regenerates INDEX.md, then again
    for the text it prints, with nothing changed between them (a second listing and scan)."""
    from vault_mem.vault.core import Vault

    cli("--vault", str(vdir), "remember", "a", "-d", "first")
    (vdir / "facts" / "b.md").write_text("---\ndescription: by hand\n---\n")  # a file the write brings in
    reconciles = []
    real = Vault.reconcile
    monkeypatch.setattr(Vault, "reconcile", lambda self, **kw: reconciles.append(kw) or real(self, **kw))
    r = cli("--vault", str(vdir), "index", "--write", "--json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["changed"] and "- b (" in json.loads(r.stdout)["text"]
    assert len(reconciles) == 1 and reconciles[0]["force"]
    reconciles.clear()
    assert "- b (" in cli("--vault", str(vdir), "index").stdout and len(reconciles) == 1  # without --write: its own


@pytest.mark.slow
def test_deleted_index_is_rebuilt_by_the_next_command_with_a_progress_bar(vdir):
    import datetime as dt

    from vault_mem import Memory, Vault

    today = dt.date.today()
    with Vault(vdir) as v:
        v.import_memories([Memory(f"m{i:03d}", "fact", {"description": f"fact number {i} about owls",
                                                       "created": today, "updated": today}, "")
                           for i in range(250)], message="import: 250 memories")
    (vdir / ".vault-mem" / "index.db").unlink()
    r = cli("--vault", str(vdir), "recall", "fact number 17 about owls", "--json",
            env={"VAULT_MEM_PROGRESS": "1"})
    assert r.returncode == 0, r.stderr
    assert "indexing [" in r.stderr and "250/250" in r.stderr
    assert json.loads(r.stdout)["hits"][0]["key"] == "m017"
    assert cli("--vault", str(vdir), "doctor").returncode == 0


def test_recall_text_says_when_a_hit_may_be_outdated(vdir):
    cli("--vault", str(vdir), "remember", "laptop", "-d", "Works on a ThinkPad X1 laptop")
    path = vdir / "facts/laptop.md"
    path.write_text(path.read_text().replace(f"updated: {dt.date.today()}", "updated: 2020-01-01"))
    # a hand edit dates from its commit (a person's edit of today is today's): this one is 2020's
    subprocess.run(["git", "commit", "-qam", "a person's edit of 2020", "--no-verify"], cwd=vdir, check=True,
                   env={**os.environ, "GIT_COMMITTER_DATE": "2020-01-01T12:00:00"})
    r = cli("--vault", str(vdir), "recall", "ThinkPad laptop")
    assert r.returncode == 0, r.stderr
    assert "laptop (fact, 2020-01-01" in r.stdout and "[stale]" in r.stdout
    assert "(may be outdated: last updated" in r.stdout



def test_recall_queries_are_alternative_phrasings_searched_with_the_query(vdir):
    """``--queries`` (repeatable) is the tools' ``queries``: a rewording in the memory's words
    finds what the question alone does not (keyword-only here)."""
    cli("--vault", str(vdir), "remember", "ci-runners", "-d", "CI runs on GitHub Actions with self-hosted runners")
    question = "where do the automated checks execute?"
    alone = cli("--vault", str(vdir), "recall", question, "--json")
    assert alone.returncode == 0, alone.stderr and json.loads(alone.stdout)["hits"] == []
    r = cli("--vault", str(vdir), "recall", question, "--queries", "CI runners", "--queries", "GitHub Actions",
            "--json")
    assert r.returncode == 0, r.stderr
    assert [(h["key"], h["match"]) for h in json.loads(r.stdout)["hits"]] == [("ci-runners", "strong")]
    r = cli("--vault", str(vdir), "recall", "ci", *[x for i in range(6) for x in ("--queries", f"ci {i}")])
    assert r.returncode == 2 and "at most 5" in r.stderr  # a usage error


def test_reindex_json_reports_problem_files_as_objects(vdir):
    (vdir / "facts" / "broken.md").write_text("---\ndescription: [unclosed\n---\n")
    r = cli("--vault", str(vdir), "reindex", "--json")
    assert r.returncode == 0, r.stderr
    (problem,) = json.loads(r.stdout)["problems"]
    assert problem["path"] == "facts/broken.md" and problem["reason"]


def test_every_command_finds_the_vault_the_same_way(tmp_path):
    home = Path(os.environ["HOME"])
    r = cli("init", str(home / "notes-vault"))
    assert r.returncode == 0, r.stderr
    for spec in ("~/notes-vault", str(home / "notes-vault" / "facts")):  # ~ and a folder inside it
        for command in (["list"], ["daemon", "--status"], ["doctor"]):
            r = cli("--vault", spec, *command)
            assert "vault.toml" not in r.stderr, (spec, command, r.stderr)  # found, whatever else
            assert r.returncode == 0 or command[0] == "daemon", (spec, command, r.stderr)
    r = cli("--vault", str(tmp_path / "elsewhere"), "daemon", "--status")
    assert r.returncode == 1 and "not a vault" in r.stderr and "vault-mem init" in r.stderr


def test_python_dash_m_vault_mem_is_the_cli(vdir):
    """A subprocess on purpose: the entry point (``python -m vault_mem``: ``sys.exit(main())``),
    a body piped through a real stdin, and a failure's exit status reaching the shell."""
    r = run_cli("--vault", str(vdir), "remember", "piped", "-d", "Body from a real pipe", "--json",
                input="Piped body.\n")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["path"] == "facts/piped.md"
    assert "Piped body." in (vdir / "facts/piped.md").read_text()
    r = run_cli("--vault", str(vdir), "forget", "nope")
    assert r.returncode == 1 and "no memory with key 'nope'" in r.stderr and "Traceback" not in r.stderr


def test_the_in_process_runner_puts_everything_back(vdir):
    """conftest's ``cli`` must leave no trace, or one test's command would change the next one's."""
    import sys

    before = dict(os.environ), os.getcwd(), (sys.stdin, sys.stdout, sys.stderr)
    r = cli("list", cwd=vdir / "facts", env={"VAULT_MEM_VAULT": str(vdir), "VAULT_MEM_PROGRESS": "1"})
    assert r.returncode == 0, r.stderr
    h = cli("--help")  # argparse exits 0 through SystemExit
    assert h.returncode == 0 and h.stdout.startswith("usage: vault-mem")
    assert (dict(os.environ), os.getcwd(), (sys.stdin, sys.stdout, sys.stderr)) == before


def test_a_write_run_in_process_leaves_the_garbage_collector_as_it_found_it(vdir, monkeypatch):
    """A one-shot write, a read and a hook (a git hook, an agent hook) keep their start-up objects
    out of the cyclic collector's passes while they run (``gc.freeze``, start-up time: issues 28
    and 29); run in a process that goes on (a test, an embedding program), each gives them back,
    refused or not, and collects what it made."""
    import gc

    froze = []
    real_freeze = gc.freeze
    monkeypatch.setattr(gc, "freeze", lambda: froze.append(1) or real_freeze())
    assert gc.get_freeze_count() == 0 and gc.isenabled()
    for argv in (("remember", "editor", "--description", "Uses Helix", "--body", "b"),
                 ("remember", "Bad Key!", "--description", "d", "--body", "b"),
                 ("list",), ("get", "editor"), ("recall", "editor"),
                 ("hook", "post-merge", "0"), ("hook", "pre-commit"),
                 ("forget", "editor")):
        froze.clear()
        r = cli("--vault", str(vdir), *argv)
        assert r.returncode == (2 if "Bad Key!" in argv else 0), r.stderr
        assert froze == [1], argv
        assert gc.get_freeze_count() == 0 and gc.isenabled()


def _run_with_stderr_on_a_terminal(monkeypatch, *argv: str) -> tuple[int, str]:
    """``main(argv)`` with stderr on a real pseudo-terminal (so ``isatty()`` is true, as in a
    person's shell); returns the exit code and what reached the terminal."""
    import pty
    import select
    import sys

    from vault_mem.adapters.cli import main

    monkeypatch.delenv("VAULT_MEM_PROGRESS", raising=False)
    master, slave = pty.openpty()
    seen = bytearray()
    with open(slave, "w", encoding="utf-8", closefd=True) as term:
        assert term.isatty()
        monkeypatch.setattr(sys, "stderr", term)
        rc = main(list(argv))
        term.flush()
        while select.select([master], [], [], 0.2)[0]:
            chunk = os.read(master, 65536)
            if not chunk:
                break
            seen += chunk
    os.close(master)
    return rc, seen.decode("utf-8", "replace")


def _many_memories(vdir: Path, n: int) -> None:
    from vault_mem import Memory, Vault

    today = dt.date.today()
    with Vault(vdir) as v:
        v.import_memories([Memory(f"m{i:03d}", "fact", {"description": f"fact number {i} about owls",
                                                       "created": today, "updated": today}, f"owl {i}")
                           for i in range(n)], message=f"import: {n} memories")


def test_reindex_draws_a_progress_bar_on_a_terminal_and_nothing_when_piped(vdir, monkeypatch, capsys):
    _many_memories(vdir, 30)
    rc, seen = _run_with_stderr_on_a_terminal(monkeypatch, "--vault", str(vdir), "reindex")
    assert rc == 0 and "reindex [" in seen and "30/30" in seen, seen
    capsys.readouterr()
    config = os.environ["XDG_CONFIG_HOME"]
    monkeypatch.undo()
    # the test's own machine (its key made the index: one made elsewhere is made again, said on stderr)
    monkeypatch.setenv("XDG_CONFIG_HOME", config)
    r = cli("--vault", str(vdir), "reindex")  # stderr captured: not a terminal
    assert r.returncode == 0 and r.stderr == "", r.stderr


@pytest.mark.slow
def test_the_first_index_draws_both_passes_on_a_terminal_with_the_real_model(vdir, monkeypatch):
    _many_memories(vdir, 220)
    (vdir / ".vault-mem" / "index.db").unlink()
    monkeypatch.setenv("VAULT_MEM_EMBEDDER", "local")
    # every vector in this one command (a read makes them for OWED_EMBED_S only: a loaded machine
    # may take longer for 220; tests/test_first_index_recall.py has that bound)
    monkeypatch.setattr(vectors, "OWED_EMBED_S", 600.0)
    rc, seen = _run_with_stderr_on_a_terminal(monkeypatch, "--vault", str(vdir), "recall", "owls", "--json")
    # the files read, then their vectors made: one bar each, each on its own line
    assert rc == 0 and seen.count("220/220") == 2 and "indexing [" in seen, seen


@pytest.mark.slow
def test_a_first_index_in_a_terminal_makes_vectors_for_a_bounded_time_and_says_what_is_left(vdir, monkeypatch,
                                                                                          capsys):
    """The bar's own path (a person's terminal) made every vector before answering: a fresh
    clone of 3,000 notes waited 20-80 s for its first recall; one of 100k most of an hour."""
    _many_memories(vdir, 220)
    (vdir / ".vault-mem" / "index.db").unlink()
    monkeypatch.setenv("VAULT_MEM_EMBEDDER", "local")
    monkeypatch.setattr(vectors, "OWED_EMBED_S", 0.0)  # one batch of the model's, then the search
    capsys.readouterr()
    rc, seen = _run_with_stderr_on_a_terminal(monkeypatch, "--vault", str(vdir), "recall", "owls", "--json")
    data = json.loads(capsys.readouterr().out)
    assert rc == 0 and seen.count("220/220") == 1, seen  # the files read, not every vector made
    assert 0 < data["unembedded"] < 220 and f"{data['unembedded']} memories have no vector yet" in data["note"]


def _editor(tmp_path: Path, script: str) -> str:
    """A real editor process: a shell script that edits the file it is given, as a person would."""
    exe = tmp_path / "editor.sh"
    exe.write_text("#!/bin/sh\n" + script + "\n")
    exe.chmod(0o755)
    return str(exe)


def test_edit_opens_the_editor_then_commits_the_persons_edit_in_their_name(vdir, tmp_path):
    assert cli("--vault", str(vdir), "remember", "ci", "-d", "CI runs on Jenkins").returncode == 0
    editor = _editor(tmp_path, 'sed -i "s/Jenkins/GitHub Actions/" "$1"')
    r = cli("--vault", str(vdir), "edit", "ci", env={"EDITOR": editor, "VISUAL": ""})
    assert r.returncode == 0, r.stderr
    assert "committed your edit" in r.stdout
    assert git(vdir, "log", "-1", "--format=%an|%s").strip() == "Test Person|edit: ci — CI runs on GitHub Actions"
    assert git(vdir, "status", "--porcelain").strip() == ""
    assert "GitHub Actions" in git(vdir, "show", "HEAD:INDEX.md")  # INDEX.md rides along
    r = cli("--vault", str(vdir), "edit", "ci", env={"EDITOR": _editor(tmp_path, "true"), "VISUAL": ""})
    assert r.returncode == 0 and "not changed" in r.stdout


def test_edit_that_the_policy_refuses_is_kept_on_disk_and_not_committed(vdir, tmp_path):
    from fakes import aws_key

    assert cli("--vault", str(vdir), "remember", "ci", "-d", "CI runs on Jenkins").returncode == 0
    head = git(vdir, "rev-parse", "HEAD").strip()
    editor = _editor(tmp_path, f'printf "key: {aws_key()}\\n" >> "$1"')
    r = cli("--vault", str(vdir), "edit", "ci", env={"EDITOR": editor, "VISUAL": ""})
    assert r.returncode == 1
    assert "kept on disk but not committed" in r.stdout and "vault-mem edit ci" in r.stdout
    assert git(vdir, "rev-parse", "HEAD").strip() == head
    assert "key: " in (vdir / "facts" / "ci.md").read_text()


def test_edit_of_an_unknown_key_or_a_failing_editor_says_what_to_do(vdir, tmp_path):
    r = cli("--vault", str(vdir), "edit", "nope")
    assert r.returncode == 1 and "nope" in r.stderr
    assert cli("--vault", str(vdir), "remember", "ci", "-d", "CI runs on Jenkins").returncode == 0
    r = cli("--vault", str(vdir), "edit", "ci", env={"EDITOR": _editor(tmp_path, "exit 3"), "VISUAL": ""})
    assert r.returncode == 2 and "exited with status 3" in r.stderr
    r = cli("--vault", str(vdir), "edit", "ci", env={"EDITOR": "/no/such/editor", "VISUAL": ""})
    assert r.returncode == 2 and "set $VISUAL or $EDITOR" in r.stderr


def test_a_write_with_no_model_never_imports_numpy(vdir):
    """A one-shot command imports only what it uses: numpy (0.1-0.5 s of a process) only where
    vectors are compared, never for a write, get or list with no model (issue 29). A subprocess on
    purpose: ``-X importtime`` lists every module the real entry point imported."""
    for args in (["remember", "no-numpy", "-d", "A write with no model", "--body", "Nothing to compare."],
                 ["get", "no-numpy"], ["list"]):
        r = subprocess.run([sys.executable, "-X", "importtime", "-m", "vault_mem", "--vault", str(vdir), *args],
                           capture_output=True, text=True, timeout=120, check=False,
                           env={**os.environ, "VAULT_MEM_EMBEDDER": "none"})
        assert r.returncode == 0, r.stderr[-2000:]
        imported = {line.rpartition("|")[2].strip() for line in r.stderr.splitlines() if line.startswith("import time:")}
        assert "vault_mem.vault.core" in imported or args[0] != "remember", "importtime printed nothing"
        assert not {m for m in imported if m == "numpy" or m.startswith("numpy.")}, args


def test_vault_mems_processes_run_blas_on_one_thread_unless_the_person_says_otherwise(tmp_path):
    """main() sets one BLAS thread before numpy loads (a 10k matrix-vector product took 8 ms on
    OpenBLAS's threads at load 4, 0.5 ms on one); a value already set stands. A subprocess with
    the variables removed: pytest's own process may have them from an in-process main()."""
    import subprocess
    import sys

    from vault_mem.platform.threads import ONE_BLAS_THREAD

    code = ("import os, sys; from vault_mem.adapters.cli import main; main(['tools']); "
            "print('BLAS', *[os.environ.get(n) for n in %r], file=sys.stderr)" % (ONE_BLAS_THREAD,))
    base = {k: v for k, v in os.environ.items() if k not in ONE_BLAS_THREAD}
    for env, want in ((base, ["1", "1", "1"]), ({**base, "OPENBLAS_NUM_THREADS": "4"}, ["4", "1", "1"])):
        proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, cwd=tmp_path)
        line = [x for x in proc.stderr.splitlines() if x.startswith("BLAS ")]
        assert line and line[-1].split()[1:] == want, proc.stderr


def test_edit_never_starts_an_editor_from_a_relative_path_entry(vdir, tmp_path):
    """Programs are found on PATH's absolute folders only (a fresh clone's executable named like
    one must never run); `vault-mem edit` started $EDITOR by name with the inherited PATH, so an
    empty entry (``PATH=:$PATH``) ran the vault's own ``myeditor``."""
    assert cli("--vault", str(vdir), "remember", "ci", "-d", "CI runs on Jenkins").returncode == 0
    marker = tmp_path / "ran"
    planted = vdir / "myeditor"
    planted.write_text(f"#!/bin/sh\ntouch '{marker}'\n")
    planted.chmod(0o755)
    r = cli("edit", "ci", cwd=vdir, env={"EDITOR": "myeditor", "VISUAL": "", "PATH": os.pathsep + os.environ["PATH"]})
    assert not marker.exists(), "the vault's executable ran as the editor"
    assert r.returncode == 2 and "set $VISUAL or $EDITOR" in r.stderr, r.stderr


def test_a_one_shot_write_imports_no_search_and_builds_only_its_own_parser(tmp_path):
    """A one-shot write (create, update, no-op, forget) imports none of the search modules, not
    the daemon's protocol (it asks no daemon), no ``socket``, no ``logging`` (nothing is logged),
    no ``difflib`` and no history module, and parses its line with its own parser only
    (start-up time, issue 29); a recall afterwards in the same process imports what it needs.
    Checked in the process's ``sys.modules`` and the parser's commands, not by timing."""
    root = tmp_path / "v"
    assert cli("init", str(root)).returncode == 0
    code = (
        "import sys\n"
        "from vault_mem.adapters import cli, cli_parser\n"
        "built = []\n"
        "real = cli_parser.build_parser\n"
        "cli.build_parser = lambda command=None: built.append(command) or real(command)\n"
        f"v = {str(root)!r}\n"
        "for argv in (['remember', 'editor', '--description', 'Uses Helix', '--body', 'b'],\n"
        "             ['remember', 'editor', '--description', 'Uses Helix daily', '--body', 'b'],\n"
        "             ['remember', 'editor', '--description', 'Uses Helix daily', '--body', 'b'],\n"
        "             ['remember', 'other', '--description', 'Prefers tabs', '--body', 'c'],\n"
        "             ['forget', 'other']):\n"
        "    assert cli.main(['--vault', v, *argv]) == 0, argv\n"
        "heavy = ('vault_mem.index.search', 'vault_mem.index.levels', 'vault_mem.index.floor',\n"
        "         'vault_mem.store.daemon_socket', 'numpy', 'socket',\n"
        # imported only where used: a log message, a misspelt key or type, the history commands
        "         'logging', 'difflib', 'vault_mem.vault.history')\n"
        "print('WRITE', [m for m in heavy if m in sys.modules], built)\n"
        "assert cli.main(['--vault', v, 'recall', 'Helix']) == 0\n"
        "print('READ', [m for m in heavy[:4] if m not in sys.modules])\n")
    env = {**os.environ, "VAULT_MEM_DAEMON": "off"}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    said = {line.split(" ", 1)[0]: line.split(" ", 1)[1] for line in done.stdout.splitlines()
            if line.startswith(("WRITE ", "READ "))}
    assert said["WRITE"] == "[] ['remember', 'remember', 'remember', 'remember', 'forget']", done.stdout
    assert said["READ"] == "[]", done.stdout  # the recall imported them


@pytest.mark.parametrize("char", ["\n", "\r", "\t", "\x1b"])
def test_a_vault_path_with_a_control_character_is_refused_by_name(tmp_path, char):
    """Review: git answers ``rev-parse`` one path a line, and vault-mem and its git hooks' shell
    read those answers line by line: in a folder whose path holds a newline, the top folder read
    was a piece of it. ``vault-mem init`` and opening a vault refuse such a path by name (the
    character escaped) with the next step, before anything is made."""
    bad = tmp_path / f"my{char}notes"
    done = cli("init", str(bad))
    assert done.returncode != 0
    assert "control character" in done.stderr and "rename" in done.stderr, done.stderr
    assert repr(char)[1:-1] in done.stderr or f"\\x{ord(char):02x}" in done.stderr, done.stderr
    assert not bad.exists()
    good = tmp_path / "notes"
    assert cli("init", str(good)).returncode == 0
    good.rename(bad)  # a vault moved there afterwards (or made before the rule)
    done = cli("recall", "anything", "--vault", str(bad))
    if char in "\n\r":  # opened, a line break (what breaks git's answers read a line each) is refused the same way
        assert done.returncode != 0 and "control character" in done.stderr and "rename" in done.stderr, done.stderr
        assert "give them again" in done.stderr, done.stderr
    else:  # last read: any other kept working (refused, the person's own commits failed in the hook)
        assert done.returncode == 0, done.stderr
        (bad / "extra.txt").write_text("x\n")
        assert subprocess.run(["git", "add", "extra.txt"], cwd=bad).returncode == 0
        assert subprocess.run(["git", "commit", "-q", "-m", "x"], cwd=bad, capture_output=True).returncode == 0
