"""``vault-mem``: a thin command line over :class:`vault_mem.Vault`.

Only this module prints or exits. Exit codes: 0 ok, 1 the operation failed, 2 usage error, 3 a
write the daemon had whose answer was lost (it may or may not have been made; never made again).
Every command takes ``--json`` (one JSON document on stdout) and ``--vault PATH`` (that vault
alone). Without it, a command uses the vaults :func:`vault_mem.config.resolve_vaults` finds from
the working folder: ``recall``, ``get``, ``list`` and ``review`` both the project vault and the
personal vault, each hit and row naming its vault (:mod:`vault_mem.adapters.vaults`); ``forget``,
``edit``, ``log``, ``undo`` and ``resolve`` the vault holding the key (``personal:KEY`` /
``project:KEY`` names it), saying which; ``remember`` the project vault (``--personal``: the
personal one); the rest the vault writes go to. A configured personal vault that is not a vault
is skipped, said in one line on stderr (``doctor``: an error).

No stack trace reaches the user: a :class:`VaultMemError` is printed as ``error: <what to do>``;
an operating-system failure (a full disk, a permission) and any other exception as one line
that says what to try, with the stack trace only when ``VAULT_MEM_LOG_LEVEL=DEBUG``.

``recall``, ``get``, ``list`` and the Claude Code hooks are answered by the vault's daemon when
one runs (its model and vectors warm, over ``.vault-mem/daemon.sock``: :mod:`vault_mem.store.daemon_socket`),
else worked out here by the same functions (:mod:`vault_mem.adapters.reads`); either way they
print the same. ``remember`` and ``forget`` are made by the daemon too when one runs for a
command of its own environment (:mod:`vault_mem.adapters.writes`, :func:`_written_by_daemon`),
else here, by the same ``Vault`` call. Asking the daemon imports nothing heavy.

Each command imports the module that does its work inside its function: the vault, the index
and what they pull in (numpy, SQLite with sqlite-vec, httpx, watchdog, the MCP SDK) take about
0.2 s to import before any work (1 s more for MCP), which ``--help`` and ``vault-mem tools``
need not pay. Those imports are all of lower layers or of this adapters package.
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as dt
import gc
import json
import os
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from vault_mem.adapters.cli_output import escaping_streams, json_text, raw_stream
from vault_mem.config import CONFIG_FILE, PERSONAL, VERSION, daemon_may_answer
from vault_mem.store.finder import resolve_vault_root, resolve_vaults
from vault_mem.errors import UsageError, VaultMemError, WriteOutcomeUnknownError, for_person
from vault_mem.model.names import email_key, quoted, shell_word, shown, shown_email, shown_text
from vault_mem.model.render import author_label, json_notice, lines_notice
from vault_mem.platform.threads import one_blas_thread

if TYPE_CHECKING:
    import argparse

    from vault_mem.vault.core import Vault

#: The environment variable that turns on debug output (the daemon's log level too).
LOG_LEVEL_ENV = "VAULT_MEM_LOG_LEVEL"

COMMANDS: dict[str, Callable[[argparse.Namespace], int]] = {}
#: how many recall hits several vaults give together without -k (one vault: its vault.toml's)
DEFAULT_K = 5


def command(name: str):
    def register(fn):
        COMMANDS[name] = fn
        return fn
    return register


def emit(args: argparse.Namespace, data: Any, text: str | None = None, *, quotes: bool = False) -> None:
    """JSON for machines with --json, readable text otherwise. ``quotes``: the JSON holds memory
    text (``get``, a ``recall`` with hits, a ``list`` with rows), which is said once to be data on
    stderr (:func:`~vault_mem.model.render.json_notice`; the text forms say it themselves)."""
    if args.json:
        if quotes:
            _json_is_data()
        print(json_text(data))
    elif text is not None:
        print(text)


def _said_as_data(lines: list[str], empty: str) -> str:
    """``lines`` (each holding text its writer chose after ``| ``) under the one line that says
    it is data (:func:`~vault_mem.model.render.lines_notice`); ``empty`` when there are none."""
    return "\n".join([lines_notice(), *lines]) if lines else empty


def _json_is_data() -> None:
    """Say once, on stderr, that the JSON on stdout holds text its writers chose, data
    (:func:`~vault_mem.model.render.json_notice`): :func:`emit`'s ``quotes``, ``export``."""
    warn(f"note: {json_notice()}")


def warn(message: str) -> None:
    """A line of vault-mem's own on stderr, as the person reads it: the one place the CLI renders
    the names vault-mem's sentences mark (:func:`~vault_mem.errors.for_person`), whoever made the
    line (a notice of this process's or a daemon's, a write's warning), so no mark reaches the
    terminal."""
    print(for_person(message), file=sys.stderr)


def open_vault(args: argparse.Namespace, path: str | None = None) -> Vault:
    """The vault the command names (``path``, else --vault, else found from here), opened."""
    from vault_mem.vault.core import Vault  # lazy: start-up time (module docstring)

    found = resolve_vaults(path or args.vault)
    vault = Vault(found.vaults[0].root, agent=getattr(args, "agent", None))
    _passed_over(args, found.passed_notices)
    if getattr(args, "command", None) not in ("hooks", "init", "doctor"):  # those say it themselves
        from vault_mem.store.hooks import missing_hooks_notice

        missing = missing_hooks_notice(vault.repo.hooks_dir, vault.root, vault.repo.toplevel, vault.repo.common_dir)
        if missing:
            warn(f"warning: {missing}")
    vault.progress = _progress_bar("indexing")
    args.opened_vault = vault  # main() reports its notices whatever the command (a read recovers too)
    return vault


def read(args: argparse.Namespace, op: str, params: dict[str, Any]) -> Any:
    """``op(params)`` on the vault the command names: the daemon's answer when one answers
    (its notices printed), else the same function run here on the vault opened here."""
    from vault_mem.store import daemon_socket as protocol  # lazy: a write asks no daemon (start-up time)

    found = resolve_vaults(args.vault)
    root = found.vaults[0].root
    answered = protocol.ask(root, op, params)
    if answered is None:
        from vault_mem.adapters.read_here import read_here  # lazy: start-up time (module docstring)

        return read_here(open_vault(args, str(root)), op, params)
    result, notices = answered
    _passed_over(args, found.passed_notices)
    _notices(None, notices)
    return result


def vaults_of(args: argparse.Namespace):
    """Every vault the command uses (:class:`vault_mem.adapters.vaults.Vaults`): --vault's alone,
    else the project vault and the personal vault found from here."""
    from vault_mem.adapters.read_here import read_here  # lazy: start-up time (module docstring)
    from vault_mem.adapters.vaults import Vaults  # lazy: start-up time (module docstring)

    vaults = Vaults.resolve(args.vault, agent=getattr(args, "agent", None), here=read_here)
    _passed_over(args, vaults.found.passed_notices)
    return vaults


def _passed_over(args: argparse.Namespace, notes: tuple[str, ...]) -> None:
    """Keep what finding the vault said about a vault.toml it passed over (a teammate's that
    would have taken over as the vault) for main() to say once, whichever way the command went."""
    kept = args.__dict__.setdefault("passed_over", [])
    kept += [n for n in notes if n not in kept]


def open_for_key(args: argparse.Namespace, text: str | None, *, strict: bool = True):
    """``(vault, key, label)`` for a command acting on one vault about ``KEY`` or
    ``personal:KEY`` (:meth:`vault_mem.adapters.vaults.Vaults.locate`, the one home of that
    rule): the vault holding the key, opened; ``label`` names it when several are in use
    (``""`` otherwise). No key: the vault writes go to. ``strict``: a bare key held by several
    vaults is refused until told which (a write must not guess)."""
    vaults = vaults_of(args)
    if text is None:
        name, key, others = vaults.for_write().name, None, []
    else:
        name, key, others = vaults.locate(text, strict=strict)
    for other in others:
        warn(f"note: the {other} vault has a memory '{key}' too: {other}:{key} acts on it")
    args.vault_name = name if vaults.several else None
    return open_vault(args, str(vaults.root(name))), key, _vault_label(name, vaults.several)


def _vault_key(item: dict[str, Any]) -> str:
    """An item's key as a command takes it back: ``personal:KEY`` when it names a vault."""
    return f"{item['vault']}:{item['key']}" if item.get("vault") else item["key"]


def _vault_label(name: str, several: bool) -> str:
    """How text output names a vault: only when there is a choice (several, or the personal one)."""
    return f"{name} vault, " if several or name == PERSONAL else ""


def _named(args: argparse.Namespace, vault: Vault) -> dict[str, str]:
    """The JSON fields naming the vault a one-vault command acted on, when several are in use."""
    name = getattr(args, "vault_name", None)
    return {"vault": str(vault.root), "vault_name": name} if name else {}


def _notices(vault: Vault | None, notes: list[str] | None = None) -> None:
    for note in vault.take_notices() if notes is None else notes:  # each once, by a command or main()
        warn(f"note: {note}")


def _progress_bar(label: str, *, min_total: int = 200):
    """A progress callback that draws a bar on stderr, only when stderr is a terminal (or
    $VAULT_MEM_PROGRESS is set): piped or captured output stays clean. Work of fewer than
    ``min_total`` items draws nothing (a read that re-indexes three files needs no bar). A new
    pass (the files read, then their vectors made) starts a new line."""
    state = {"total": None, "done": -1}

    def progress(done: int, total: int) -> None:
        if total < min_total or not sys.stderr.isatty() and not os.environ.get("VAULT_MEM_PROGRESS"):
            return
        new_pass = state["total"] not in (None, total) or done < state["done"]
        err = raw_stream(sys.stderr)  # our own \r, never escaped
        if new_pass and state["done"] < state["total"]:
            err.write("\n")  # the last pass ended before its total: keep its line
        state["total"], state["done"] = total, done
        width = 30
        filled = int(width * done / max(total, 1))
        err.write(f"\r{label} [{'#' * filled}{'.' * (width - filled)}] {done}/{total}")
        if done >= total:
            err.write("\n")
        err.flush()

    return progress


# -- commands ------------------------------------------------------------------------------
@command("init")
def cmd_init(args) -> int:
    from vault_mem.vault.core import Vault  # lazy: start-up time (module docstring)

    target = args.path or args.vault or "."
    if (Path(target) / CONFIG_FILE).is_file():  # an existing vault, or a fresh clone of one
        from vault_mem.store.upstream import other_lines  # lazy: start-up time (module docstring)
        from vault_mem.vault.create import ensure_gitignore  # lazy: start-up time (module docstring)

        vault = open_vault(args, target)
        notes = vault.install_hooks()
        changed = [n for n in notes if not n.endswith("already installed")]
        added = ensure_gitignore(vault.root)
        # a clone is made under the umask (others may read it): taken on private, as init makes one
        closed = vault.ws.make_private()
        # a clone checks out the branch the remote's HEAD names: anyone's push (atk24)
        elsewhere = other_lines(vault.repo, vault.prefix, vault.config.sync_remote_name())
        # and a peer's agent, editor or git files the clone took unasked (no hooks ran yet): the
        # notice every command gives, said here once as init's warning
        held = vault.ws.held_note
        if held in vault.notices:
            vault.notices.remove(held)
        warnings = [w for w in (elsewhere and elsewhere.text, held) if w]
        for w in warnings:  # as every command says a warning: on stderr, the JSON's "warnings"
            warn(f"warning: {w}")
        lines = [f"{vault.root} is already a vault" + ("" if changed or added or closed else "; nothing changed")]
        if closed:
            lines.append(_closed_line(vault.root, closed))
        if changed:
            lines += ["its git hooks:", *(f"  {n}" for n in changed)]
        if added:
            lines.append(f"added to its .gitignore what editors leave behind: {' '.join(added)} "
                         "(review and commit it: git commit .gitignore)")
        emit(args, {"vault": str(vault.root), "created": False, "hooks": notes, "gitignore_added": added,
                    "made_private": [str(p) for p in closed],
                    "other_branches": elsewhere.branches if elsewhere else [], "warnings": warnings},
             "\n".join(lines))
        return 0
    vault = Vault.init(target, agent=args.agent)
    notes = vault.take_notices()
    _notices(vault, notes)
    closed = vault.made_private
    emit(args, {"vault": str(vault.root), "prefix": vault.prefix, "created": True, "notes": notes,
                "made_private": [str(p) for p in closed]},
         f"created vault at {vault.root}" + (f" (inside repository {vault.repo.toplevel})" if vault.prefix else "")
         + (f"\n{_closed_line(vault.root, closed)}" if closed else ""))
    return 0


def _closed_line(root: Path, closed: list[Path]) -> str:
    """What ``init`` closed to other users of this machine (``Workspace.make_private``), said
    rather than done in silence: the folders by name, then how many paths in them."""
    from vault_mem.store.health import CLOSE_COMMAND  # lazy: start-up time (module docstring)

    named = [p for p in closed if p == root or p.parent == root and p.is_dir()]
    shown_ = " ".join(shell_word(str(p)) for p in named[:4])
    more = len(closed) - len(named[:4])
    return (f"made it private to you (other users of this machine could read its memory): {CLOSE_COMMAND} "
            f"{shown_}" + (f" and {more} more path{'s' if more != 1 else ''} vault-mem made" if more else "")
            + "; nothing else in the folder was changed")


def _split_tags(value: str | None) -> list[str] | None:
    if value is None:
        return None
    return [t.strip() for t in value.split(",") if t.strip()]


#: the largest body a write sends to the daemon (over it, or not UTF-8: the command writes itself)
DAEMON_BODY_BYTES = 512 * 1024


@command("remember")
def cmd_remember(args) -> int:
    from vault_mem.adapters.cli_input import body_text, read_body  # lazy: start-up time (module docstring)

    vaults = vaults_of(args)
    try:
        target = vaults.for_write_key(args.key, PERSONAL if args.personal else None)
    finally:
        vaults.close()  # a key both vaults hold was looked up in them: the write opens its own
    label = _vault_label(target.name, vaults.several)
    raw = read_body(args.body, args.body_file, DAEMON_BODY_BYTES)
    expires = _date_or_none(args.expires)
    fits = raw.stream is None and (raw.where is None or _utf8(raw.data)) and (expires is not None or not args.expires)
    if fits:  # the vault's daemon does it when it runs (no vault opened here: start-up time)
        body = raw.data if raw.where is None else raw.data.decode("utf-8")
        done = _written_by_daemon(args, target.root, "remember", {
            "key": args.key, "description": args.description, "body": body, "body_from": raw.where,
            "type": args.type, "tags": _split_tags(args.tags), "source": args.source, "pinned": args.pinned,
            "expires": expires.isoformat() if expires else None, "supersedes": _split_tags(args.supersedes),
            "scope": args.scope, "refs": _split_tags(args.refs)}, raw.note)
        if done is not None:
            _say_remembered(args, done, done.pop("root"), target.name, label)
            return 0
    _name_this_process("remember")
    vault = open_vault(args, str(target.root))
    body, note = body_text(raw, vault.config.max_body_bytes), raw.note
    if note:
        warn(f"note: {note}")
    result = vault.remember(args.key, args.description, body, type=args.type,
                            tags=_split_tags(args.tags), source=args.source, pinned=args.pinned,
                            expires=_date_arg(args.expires, "--expires") if args.expires else None,
                            supersedes=_split_tags(args.supersedes), scope=args.scope,
                            refs=_split_tags(args.refs))
    _say_remembered(args, result.to_dict(), str(vault.root), target.name, label)
    return 0


def _say_remembered(args: argparse.Namespace, result: dict[str, Any], root: str, name: str, label: str) -> None:
    for w in result["warnings"]:
        warn(f"warning: {w}")
    short = (result["commit"] or "")[:10]
    # every write names the vault and the file: no write lands anywhere silently (DESIGN §8)
    text = (f"unchanged: {result['path']} in {root} ({label}identical content, no commit)"
            if result["action"] == "unchanged" else f"{result['action']}: {result['path']} in {root} ({label}commit {short})")
    emit(args, {**result, "vault": root, "vault_name": name}, text)


def _utf8(data: str | bytes) -> bool:
    try:
        data.decode("utf-8") if isinstance(data, bytes) else data.encode("utf-8")
    except UnicodeError:
        return False
    return True


def _date_or_none(value: str | None) -> dt.date | None:
    try:
        return dt.date.fromisoformat(value) if value else None
    except ValueError:
        return None  # refused by the write done here, in its turn (after the vault's warnings)


def _written_by_daemon(args: argparse.Namespace, root: Path, op: str, params: dict[str, Any],
                       note: str | None = None) -> dict[str, Any] | None:
    """The result of the write ``op(params)`` done by the vault's daemon, its warnings, note and
    notices said as the command says its own; None when no daemon took it (the command then
    writes itself: nothing was done). A write the daemon took and whose answer was lost is
    never made again: :class:`WriteOutcomeUnknownError` says how to tell whether it was made."""
    if not daemon_may_answer(root):
        return None  # no daemon to ask: not even its client is imported (start-up time)
    from vault_mem.store import daemon_socket as protocol  # lazy: start-up time (module docstring)

    status, got = protocol.submit(root, op, params, protocol.writer(getattr(args, "agent", None)))
    if status == protocol.NOT_TAKEN:
        return None
    if status == protocol.UNKNOWN or not _an_answer(got[0]):
        why = got if status == protocol.UNKNOWN else "its answer could not be read"
        key = params["key"]
        raise WriteOutcomeUnknownError(
            f"the vault's daemon took this {op} of '{key}' but {why}: it may or may not have been made, and it was "
            f"not made again here. See whether it was: `vault-mem --vault {shell_word(str(root))} log {key}` or "
            f"`git -C {shell_word(str(root))} log -1 --format='%h %s'` (a commit '{op}: {key} — ...'); "
            f"`vault-mem daemon --status {shell_word(str(root))}` says whether the daemon still runs")
    answer, args.daemon_notices, logged = got
    for line in answer["before"]:
        warn(line)
    if note:
        warn(f"note: {note}")
    for line in logged:  # as this process's logging would have said them (Python's last resort)
        warn(line)
    if "error" in answer:
        protocol.raise_as(answer["kind"], answer["error"])
    return answer["result"]


def _an_answer(answer: Any) -> bool:
    """Whether ``answer`` has the shape :mod:`vault_mem.adapters.writes` gives."""
    if not isinstance(answer, dict) or not isinstance(answer.get("before"), list):
        return False
    if "error" in answer:
        return isinstance(answer["error"], str) and isinstance(answer.get("kind"), str)
    result = answer.get("result")
    return isinstance(result, dict) and isinstance(result.get("root"), str) and \
        all(k in result for k in ("key", "type", "path", "action", "commit", "warnings"))


def _date_arg(value: str, flag: str) -> dt.date:
    try:
        return dt.date.fromisoformat(value)
    except ValueError:
        raise UsageError(f"{flag} takes a date as YYYY-MM-DD, got '{value}'") from None


@command("forget")
def cmd_forget(args) -> int:
    vaults = vaults_of(args)
    name, key, _ = vaults.locate(args.key, strict=True)
    done = _written_by_daemon(args, vaults.root(name), "forget", {"key": key})
    if done is None:
        _name_this_process("forget")
        vault = open_vault(args, str(vaults.root(name)))
        done = {**vault.forget(key).to_dict(), "root": str(vault.root)}
    root = done.pop("root")
    emit(args, {**done, "vault": root, "vault_name": name},
         f"forgot: {done['path']} in {root} ({_vault_label(name, vaults.several)}commit {(done['commit'] or '')[:10]})")
    return 0


@command("edit")
def cmd_edit(args) -> int:
    from vault_mem.store.editor import run_editor  # lazy: start-up time (module docstring)
    from vault_mem.vault.hand_edits import check_edit, commit_edit, differs_from_head

    vault, key, label = open_for_key(args, args.key)
    found = vault.find_file(key)
    if found is None:
        vault.get(key)  # raises the not-found error, with the close keys
    rel = found[1]
    path = vault.root / rel
    # what the commit needs (the person's git identity, a branch to commit on) is asked before the
    # editor opens: an edit made first and refused after stayed on disk, uncommitted
    who = check_edit(vault)
    before = vault.ws.disk_bytes(rel)  # never through a link: a linked memory file is refused by name
    run_editor(path)
    where = f"{rel} ({label}{vault.root})" if label else rel
    data = {"key": key, "path": rel, **_named(args, vault)}
    # committed when it differs from HEAD, whoever changed it: an edit an earlier session left
    # uncommitted (a refusal, an editor that crashed) is committed now, never reported "not changed"
    if not differs_from_head(vault, rel):
        same = vault.ws.disk_bytes(rel) == before
        emit(args, {**data, "commit": None, "changed": not same},
             f"{where}: not changed" if same else f"{where}: your edit is committed already (by the daemon?)")
        return 0
    earlier = vault.ws.disk_bytes(rel) == before  # the difference from HEAD predates this session
    done = commit_edit(vault, rel, who=who, note="Edited by hand with `vault-mem edit`.")
    data = {**data, "commit": done.commit, "changed": True, "skipped": done.skipped}
    if rel in done.skipped:
        emit(args, data, f"{where}: your edit is kept on disk but not committed: {done.skipped[rel]}; "
             f"fix it (`vault-mem edit {args.key}`) and it is committed then")
        return 1
    what = "the uncommitted changes it held from before" if earlier else "your edit"
    emit(args, data, f"{where}: committed {what} ({(done.commit or '')[:10]})")
    return 0


@command("get")
def cmd_get(args) -> int:
    vaults = vaults_of(args)
    if vaults.several:
        from vault_mem.adapters.vaults import get_view  # lazy: start-up time (module docstring)

        try:
            view = get_view(vaults, args.key, lambda name, key: vaults.read(name, "get", {"key": key}))
        finally:
            _notices(None, vaults.take_notices())
            vaults.close()
    else:  # one vault: a prefix still names it, or is refused as one naming no vault in use here
        from vault_mem.model.fusion import split_key  # lazy: start-up time (module docstring)

        view = read(args, "get", {"key": split_key(args.key, vaults.names)[1]})
    emit(args, view, _get_text(view), quotes=True)
    return 0


def _by(author: str | None, trusted: bool) -> str:
    """Who wrote a memory, as a line or a list's mark says it: "by EMAIL", or for a peer's not
    approved here :func:`~vault_mem.model.render.author_label`'s own phrase ("from a peer not
    approved on this machine: EMAIL"), which reads alone ("by from a peer ..." did not)."""
    label = author_label(author, trusted)
    return f"by {label}" if trusted else label


def _get_text(view: dict) -> str:
    flags = f"  [{', '.join(view['flags'])}]" if view["flags"] else ""
    age = f"{view['age_days']} days old" if view["age_days"] is not None else "undated"
    where = f"{view['vault']} vault, " if view.get("vault") else ""
    when = f"updated {view['updated']}, {age}" if view.get("updated") else age  # no `updated:`: "undated"
    # the author before the description: a peer's file is read as it is, and a description of
    # 40,000 characters pushed a line naming it after that past a pager's first screen, `head`, or
    # an agent's shell tool that keeps the start of a long output (atk23)
    lines = [f"{_peer_lead(view)}{view['key']} ({where}{view['type']}, {view['path']}) {when}{flags}",
             _by(view.get("author"), view.get("trusted", True)), lines_notice(), *_quoted(view["description"])]
    for note in view.get("notes", []):
        lines.append(f"note: {note}")
    if view["body"].strip():
        lines += ["", *_quoted(view["body"])]
    return "\n".join(lines + _peer_end(view))


def _quoted(body: str, indent: str = "") -> list[str]:
    """A memory's text (its description, its body) as the CLI prints it: each line after ``| ``,
    so no line of it reads as one of ours (a hit, an author, a note); its writer may be a peer,
    its reader an agent. A peer's description printed bare by `get` and `recall` read as a
    `note:` or `by person@example.com` line of vault-mem's, above the line naming the peer."""
    return [f"{indent}| {ln}" for ln in body.strip("\n").splitlines()]


def _peer_end(row: dict, indent: str = "") -> list[str]:
    """The line that ends a peer's memory (none for one trusted here): its key and author again,
    after its quoted text. A client that keeps the head and the tail of a long output and cuts the
    middle out (Codex's shell tool) showed the tail of a peer's ``| `` lines under the person's
    hit above the cut, the peer's own header and author line cut away with the middle (inj23);
    the fenced rendering's close marker names the memory again for the same reason."""
    return [] if row.get("trusted", True) else [f"{indent}[end of {row['key']}, {_by(row.get('author'), False)}]"]


def _peer_mark(row: dict) -> str:
    """What a listing line adds when a peer not approved here wrote it (nothing otherwise): a
    peer picks its text, its name and its email, so the line says whose it is, as recall does.
    Said at both ends of a line of `list` and `log` (:func:`_peer_lead`): a client that cuts the
    middle out of a long output (Codex's shell tool) keeps a line's end alone (inj23)."""
    return "" if row.get("trusted", True) else f"  [{_by(row.get('author'), False)}]"


def _peer_lead(row: dict) -> str:
    """:func:`_peer_mark` said before a peer's text on its line too (a key, a description, an
    author's name and a subject), not after it: padded with 3,000 spaces, a peer's description
    pushed the mark off the screen of `vault-mem list` (a pager, a terminal that does not wrap,
    a tool output cut per line), and the line read as the person's. The key too is the peer's
    choice (shape-checked: up to 80 lowercase letters, digits and dashes, which can still say
    "the-persons-own-rule-trusted"): a line or a header that starts with a peer's key starts
    with the mark (issue 23: `list` printed the key before it, `get`'s and `recall`'s headers
    the key bare, the author two lines on)."""
    return "" if row.get("trusted", True) else f"[{_by(row.get('author'), False)}] "


@command("list")
def cmd_list(args) -> int:
    params = {"type": args.type, "tags": _split_tags(args.tags)}
    vaults = vaults_of(args)
    if vaults.several:
        from vault_mem.adapters.tools import several_list_rows  # lazy: start-up time (module docstring)

        try:
            rows = several_list_rows(vaults, lambda n: vaults.read(n, "list", params))
        finally:
            _notices(None, vaults.take_notices())
            vaults.close()
    else:
        rows = read(args, "list", params)
    # each description quoted after `| `, said once to be data, as `get` and `recall` quote memory text
    text = _said_as_data([_peer_lead(r) + f"{r['key']:<32} {r['type']:<10} " + (f"[{r['vault']}] " if r.get("vault") else "")
                          + "| " + r["description"] + _peer_mark(r) for r in rows], "(no memories)")
    emit(args, rows, text, quotes=bool(rows))
    return 0


@command("log")
def cmd_log(args) -> int:
    vault, key, label = open_for_key(args, args.key, strict=False)
    entries = vault.log(key, limit=args.limit)
    # the mark before the author's name and the subject: both are text the commit's writer chose,
    # quoted after `| ` and said once to be data, as memory text is (the name stood before `| `,
    # outside what the line above calls data: mendinj33)
    text = _said_as_data([f"{e.commit[:10]} {e.date} " + _peer_lead({"author": e.email, "trusted": e.trusted})
                          + f"| {e.author}: {e.subject}" + _peer_mark({"author": e.email, "trusted": e.trusted})
                          for e in entries], "(no history)")
    if label:  # the JSON stays a list of entries, each naming its vault
        text = f"{label.rstrip(', ')} {vault.root}:\n{text}"
    emit(args, [{**e.to_dict(), **_named(args, vault)} for e in entries], text, quotes=bool(entries))
    return 0


@command("undo")
def cmd_undo(args) -> int:
    vault, target, label = open_for_key(args, args.target)
    result = vault.undo(target, commit=args.commit)
    for w in result.said():
        warn(f"warning: {w}")
    emit(args, {**result.to_dict(), **_named(args, vault)},
         f"undone: {result.key} ({label}commit {(result.commit or '')[:10]})")
    return 0


@command("index")
def cmd_index(args) -> int:
    """INDEX.md as every agent path shows it (an agent with a shell runs this): fenced, each
    line's author named, the memories of peers not approved here left out and counted
    (:func:`~vault_mem.adapters.tools.context_index`), never the file's lines, which say
    nobody's name (a teammate's pinned line read as the vault's). ``--write`` also regenerates
    the file; people read the file itself (``cat INDEX.md``, ``git diff``)."""
    from vault_mem.adapters.tools import context_index  # lazy: start-up time (module docstring)

    vault = open_vault(args)
    changed = vault.regenerate_index() if args.write else False  # which reconciles, forced
    text = context_index(vault, reconciled=args.write)
    emit(args, {"changed": changed, "text": text}, text.rstrip("\n"))
    return 0


@command("recall")
def cmd_recall(args) -> int:
    params = {"query": " ".join(args.query), "queries": args.queries, "k": args.k, "type": args.type, "tags": _split_tags(args.tags),
              "scope": args.scope, "include_expired": args.include_expired, "full": args.full}
    vaults = vaults_of(args)
    if vaults.several:
        from vault_mem.model.fusion import merge_recall  # lazy: start-up time (module docstring)

        try:
            data = merge_recall(vaults.each(lambda n: vaults.read(n, "recall", params)), args.k or DEFAULT_K)
        finally:
            _notices(None, vaults.take_notices())
            vaults.close()
    else:
        data = read(args, "recall", params)
    if args.json:
        emit(args, data, quotes=bool(data["hits"]))
        return 0
    from vault_mem.model import verdict  # lazy: start-up time (module docstring)

    lines = [f"{data['verdict']}: " + verdict.guidance(data["verdict"], keyword_only=data["keyword_only"],
                                                        reason=data["reason"], unembedded=data.get("unembedded", 0),
                                                        unchecked=bool(data.get("unchecked")))
             + (f" ({data['note']})" if data.get("note") else "")]
    if data["hits"]:
        lines.append(lines_notice())
    for i, hit in enumerate(data["hits"], 1):
        flags = f" [{', '.join(hit['flags'])}]" if hit["flags"] else ""
        age = f", {hit['age_days']} days old" if hit["age_days"] is not None else ""
        where = f"{hit['vault']} vault, " if hit.get("vault") else ""
        lines.append(f"{i}. {_peer_lead(hit)}{hit['key']} ({where}{hit['type']}, {hit['date'] or 'undated'}{age}){flags}  {hit['match']} match, "
                     f"score {hit['score']:.3f}")
        lines.append(f"   {_by(hit.get('author'), hit.get('trusted', True))}")  # before its text: see _get_text
        lines.extend(_quoted(hit["description"], "   "))
        if hit["note"]:
            lines.append(f"   ({hit['note']})")
        if hit["body"].strip():
            lines.extend(_quoted(hit["body"], "   "))
        lines.extend(_peer_end(hit, "   "))
    print("\n".join(lines))
    return 0


@command("reindex")
def cmd_reindex(args) -> int:
    report = open_vault(args).reindex(progress=_progress_bar("reindex", min_total=1))
    emit(args, dataclasses.asdict(report),
         f"reindexed: {report.added + report.updated + report.unchanged} memories, "
         f"{len(report.problems)} problem file(s)")
    return 0


@command("doctor")
def cmd_doctor(args) -> int:
    from vault_mem.ops.doctor import diagnose  # lazy: start-up time (module docstring)
    from vault_mem.ops.review import describe_quarantined  # lazy: start-up time (module docstring)

    found = diagnose(open_vault(args), progress=_progress_bar("indexing"))
    data = found.to_dict()
    diffs, repaired, problems, held = found.differences, found.repaired, found.problems, found.quarantined
    blockers, history, ignored = found.blockers, found.history, found.ignored_folders
    index_ok, warnings = found.index_md_current, found.warnings
    lines = [f"repaired: {d}" for d in repaired]
    lines += [f"sidecar differs from a fresh rebuild: {d}" for d in diffs if d not in repaired]
    if len(diffs) > len(repaired):
        lines.append("run `vault-mem reindex` to rebuild the sidecar from the files (it holds nothing else)")
    if not index_ok:
        lines.append("INDEX.md does not match the files: run `vault-mem index --write`")
    lines += [f"credential in {describe_quarantined(q)}" for q in held]
    lines += [f"unusable file {quoted(p.path)}: {p.reason}" for p in problems]
    lines += [f"writes are refused: {b}" for b in blockers]
    lines += [f"git ignores new memory files in {folder} (a .gitignore or exclude rule): they are in no commit "
              f"and no sync; find the rule with `git check-ignore -v --no-index {folder}new-memory.md {folder}*.md` and remove it"
              for folder in ignored]
    lines += [history] if history else []
    lines += [for_person(found.unapproved_note)] if found.unapproved_note else []
    warned = [f"warning: {w}" for w in warnings]
    data["platform"], weaker = _platform_report()
    warned = [_mechanisms_line(data["platform"]), *warned, *weaker]
    data["agent_configs_outdated"], stale = _outdated_connections()
    warned += stale
    if not lines:
        lines.append("ok: the sidecar and INDEX.md match the files")
    elif len(diffs) == len(repaired) and index_ok:
        lines.append("the sidecar and INDEX.md match the files" +
                     (" (the files above are skipped until they are fixed)" if problems else
                      " (see above)" if blockers else " now"))
    resolved, how = vault_resolution(args)
    data["vaults"] = resolved
    if any(line.startswith("error: ") for line in how):  # a personal vault that is not a vault
        data["ok"] = False
    emit(args, data, "\n".join([*how, *lines, *warned]))
    return 0 if data["ok"] else 1


def vault_resolution(args: argparse.Namespace) -> tuple[list[dict[str, str | None]], list[str]]:
    """How the vaults of a command run here were found (DESIGN §8), for ``doctor``: the JSON
    (``[{"name", "root", "how"}]``) and its lines, the notes on a vault not found included."""

    found = resolve_vaults(args.vault)
    # passed_over: a vault.toml this machine never approved that would have made its folder the vault
    rows = [{"name": v.name, "root": str(v.root), "how": v.how, "passed_over": [str(p) for p in v.passed_over]}
            for v in found.vaults]
    lines = [f"{v.name} vault: {v.root} (from {v.how})" for v in found.vaults]
    if found.personal_problem:
        rows.append({"name": PERSONAL, "root": None, "how": None, "error": found.personal_problem})
        lines.append(f"error: the personal vault is skipped by every command: {found.personal_problem}")
    return rows, lines + [f"note: {n}" for n in found.notes]


#: commands that use no vault found from here, or (doctor) report the personal vault themselves
_NO_PERSONAL_LINE = frozenset({"init", "tools", "completion", "doctor", "hook", "connect", "eval"})


def _say_personal_skipped(args: argparse.Namespace) -> None:
    """One line on stderr when the configured personal vault is not a vault: the command goes
    on with the project vault (:func:`vault_mem.config.resolve_vaults` leaves it out), and the
    person hears why and how to fix it, once."""
    if args.vault or getattr(args, "path", None) or args.command in _NO_PERSONAL_LINE:
        return
    from vault_mem.config import personal_vault_or_problem  # lazy, as the rest

    _, problem = personal_vault_or_problem()
    if problem:
        warn(f"warning: the personal vault is skipped: {problem}")


def _need_posix() -> None:
    """Refuse in one line where vault-mem cannot keep its promises at all (no file locks:
    Windows outside WSL)."""
    from vault_mem.platform import locking  # lazy: start-up time (module docstring)

    if not locking.available():
        from vault_mem.platform.report import NO_LOCKS  # lazy: start-up time (module docstring)

        raise VaultMemError(NO_LOCKS)


def _outdated_connections() -> tuple[list[dict[str, str]], list[str]]:
    """Doctor's report of agent configurations an older ``vault-mem connect`` wrote in a form this
    one does not (:func:`vault_mem.adapters.connect_outdated.outdated`), user scope and the working folder's."""
    from vault_mem.adapters.connect_outdated import outdated  # lazy: start-up time (module docstring)

    found = outdated(project=Path.cwd())
    rows = [{"agent": o.agent, "scope": o.scope, "path": str(o.path), "why": o.why, "fix": o.fix} for o in found]
    return rows, [f"warning: {o.agent}'s configuration {shown(str(o.path))}: {o.why}; run `{o.fix}` to rewrite it"
                  for o in found]


def _mechanisms_line(report: dict) -> str:
    """Doctor's line naming which OS-specific mechanisms are native here and which portable."""
    by: dict[str, list[str]] = {}
    for name, how in report["mechanisms"].items():
        by.setdefault(how, []).append(name)
    said = "; ".join(f"{how}: {', '.join(names)}" for how, names in sorted(by.items()))
    forced = f", forced by {report['switch']}=1" if report["forced_portable"] else ""
    return f"OS mechanisms on this system ({report['flavour']}{forced}): {said}"


def _platform_report() -> tuple[dict, list[str]]:
    """Doctor's ``platform`` object (each OS-specific mechanism: native or portable) and its
    lines saying where a guarantee is weaker here."""
    from vault_mem.platform.report import summary  # lazy: start-up time (module docstring)

    report = summary()
    return report, [f"weaker on this system: {w}" for w in report["weaker"]]


@command("eval")
def cmd_eval(args) -> int:
    from vault_mem.ops import eval as evalmod  # lazy: start-up time (module docstring)

    path = Path(args.file)
    if not path.is_file():
        raise UsageError(f"{path} does not exist: give a JSON benchmark or a file of 'question → key' lines")
    if evalmod.is_question_file(path):
        # a person's own test: their questions against their own vault, with its embedder
        questions = evalmod.parse_questions(path.read_text(encoding="utf-8"), source=str(path))
        report = evalmod.run_questions(open_vault(args), questions)
        emit(args, report, evalmod.format_questions(report))
        return 0
    embedder = evalmod.DEFAULT
    if args.vault:  # the benchmark, embedded the way that vault is configured
        embedder = open_vault(args).sidecar.vectors.get_embedder()
    report = evalmod.run_eval(path, embedder=embedder, progress=_progress_bar("eval"))
    emit(args, report, evalmod.format_report(report))
    return 0


@command("daemon")
def cmd_daemon(args) -> int:
    from vault_mem.adapters.reads import READS  # lazy: start-up time (module docstring)
    from vault_mem.adapters.writes import WRITES  # lazy: start-up time (module docstring)
    from vault_mem.daemon.main import run_daemon  # lazy: start-up time (module docstring)
    from vault_mem.daemon.process import daemon_status  # lazy: start-up time (module docstring)

    root = _root_arg(args)
    if args.status:
        status = daemon_status(root)
        text = (f"daemon running for {root} (pid {status['pid']})" if status.get("running")
                else f"no daemon running for {root}")
        emit(args, status, text)
        return 0 if status.get("running") else 1
    return run_daemon(root, reads=READS, writes=WRITES)


def _root_arg(args) -> Path:
    return resolve_vault_root(getattr(args, "path", None) or args.vault)


@command("mcp")
def cmd_mcp(args) -> int:
    import logging  # lazy: a one-shot command logs nothing (start-up time, issue 29)

    from vault_mem.adapters.mcp_server import serve  # lazy: start-up time (module docstring)

    if not logging.getLogger().handlers:  # to stderr: stdout is the MCP protocol's alone
        logging.basicConfig(stream=sys.stderr, level=logging.WARNING,
                            format="vault-mem mcp: %(levelname)s %(message)s")

    serve(resolve_vaults(getattr(args, "path", None) or args.vault), agent=args.agent)
    return end_process(0)


def end_process(code: int) -> int:
    """``code``, or end the process at once with it when another thread still runs.

    A long-lived command returns while its start-up work may still be going on (the MCP server
    whose client closed during the model load). An interpreter exiting normally meanwhile runs
    onnxruntime's C++ static destructors while that thread is inside onnxruntime (a daemon
    thread keeps running native code that holds no interpreter lock): the process aborts
    (``terminate called without an active exception``, status 134). A load cannot be stopped
    half-way, and waiting for it can outlast the client's grace before it kills the server
    (2 s in the MCP SDK), so the process ends without the teardown, after flushing what it
    wrote. The command has closed its vault: every write is committed, nothing is lost."""
    if not any(t.is_alive() for t in threading.enumerate() if t is not threading.main_thread()):
        return code  # the interpreter's own exit is safe
    import logging  # lazy: only a long-lived command gets here

    logging.shutdown()  # flushes every handler (a log file too)
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # the client closed the pipe, or it is closed already
            pass
    os._exit(code)


@command("tools")
def cmd_tools(args) -> int:
    from vault_mem.adapters.tools import schemas  # lazy: start-up time (module docstring)

    print(json.dumps(schemas(args.format), indent=2, ensure_ascii=False))
    return 0


@command("agent")
def cmd_agent(args) -> int:
    from vault_mem.adapters.agent import run_agent  # lazy: start-up time (module docstring)

    vault = open_vault(args)
    result = run_agent(vault, " ".join(args.message), url=args.url, model=args.model,
                       api_key_env=args.api_key_env, max_rounds=args.max_rounds)
    emit(args, result.to_dict(), result.reply)
    return 0


@command("hook")
def cmd_hook(args) -> int:
    from vault_mem.adapters.hook_names import CLAUDE_HOOKS, STOP_HOOK  # lazy: start-up time (module docstring)
    from vault_mem.adapters.hooks import run_hook  # lazy: start-up time (module docstring)
    from vault_mem.store.jsonfiles import MAX_JSON_BYTES  # lazy: start-up time (module docstring)

    # an agent hook's event is JSON, read bounded (one over the bound is unreadable: an empty
    # event); a git hook's stdin (post-rewrite's list of commits) is read whole
    bound = MAX_JSON_BYTES + 1 if args.name in (*CLAUDE_HOOKS, STOP_HOOK) else -1
    stdin_text = "" if sys.stdin is None or sys.stdin.isatty() else sys.stdin.read(bound)
    code, out, err = run_hook(args.name, stdin_text, vault=args.vault, extra=args.hook_args)
    if out:
        sys.stdout.write(out)
    if err:
        sys.stderr.write(err)
    return code


@command("completion")
def cmd_completion(args) -> int:
    import shtab  # lazy: only this command needs it

    # path arguments carry their kind of completion (cli_parser.DIRECTORY / FILE)
    sys.stdout.write(shtab.complete(build_parser(), shell=args.shell))
    return 0


@command("hooks")
def cmd_hooks(args) -> int:
    vault = open_vault(args, getattr(args, "path", None))
    notes = vault.install_hooks()  # the one action so far: install (add or repair)
    emit(args, {"vault": str(vault.root), "hooks": notes}, "\n".join(notes))
    return 0


@command("connect")
def cmd_connect(args) -> int:
    from vault_mem.adapters.connect import connect  # lazy: start-up time (module docstring)

    # --vault pins that vault; without it, each session uses the vaults of its working folder
    pinned = open_vault(args).root if args.vault else None
    changes = connect(args.agent, pinned, scope=args.scope, dry_run=args.dry_run)
    verb = "would be " if args.dry_run else ""
    lines = [f"{c.path}: {verb + c.action if c.action != 'unchanged' else 'unchanged'} ({c.what})" for c in changes]
    uses = (str(pinned) if pinned else "the project vault of each session's working folder and the personal vault"
            f" ({_personal_or_hint()})")
    if all(c.action == "unchanged" for c in changes):
        lines.append(f"{args.agent} was already connected to {uses}")
    elif not args.dry_run:
        lines.append(f"{args.agent} now uses {uses}; start a new session to load it")
    emit(args, {"agent": args.agent, "scope": args.scope, "vault": str(pinned) if pinned else None,
                "dry_run": args.dry_run, "changes": [c.to_dict() for c in changes]}, "\n".join(lines))
    return 0


def _personal_or_hint() -> str:
    from vault_mem.config import personal_hint, personal_vault_or_problem  # lazy, as the rest

    found, problem = personal_vault_or_problem()
    return str(found.root) if found else f"not in use: {problem}" if problem else f"none yet: {personal_hint()}"


@command("sync")
def cmd_sync(args) -> int:
    from vault_mem.sync.remote import sync  # lazy: start-up time (module docstring)

    vault = open_vault(args, getattr(args, "path", None))
    report = sync(vault, remote=args.remote)
    if report.set_aside is not None and not args.json:
        warn(report.summary())  # the command fails (below): what it did and why, on stderr
    else:
        emit(args, report.to_dict(), report.summary())
    if report.received:  # a vault.toml or ignore rule from the remote: said now, not at the next command
        from vault_mem.store.workspace import Workspace  # lazy: start-up time (module docstring)

        fresh = Workspace(vault.root, repo=vault.repo)  # the same repository: no git process to find it
        vault.notices.extend(n for n in fresh.notices if n not in vault.notices)
    # part of the remote's branch was set aside (git's check refuses an object of it): what
    # could be taken was, and nothing can be pushed until the remote is fixed
    return 1 if report.set_aside is not None else 0


@command("trust")
def cmd_trust(args) -> int:
    """``vault-mem trust [PATH...] [--all]``: each pending change shown (which file, whose commit,
    what it changes) and approved only as the person answers on the terminal: one by one, or the
    files they named (``PATH...``), or ``--all`` (asked once, each listed). A vault.toml named
    outside the vault asks whether its folder may be a vault of this machine."""
    from vault_mem.adapters import trust_items  # lazy: start-up time (module docstring)
    from vault_mem.config import setting_values, told_value  # lazy, as the rest
    from vault_mem.platform.terminal import has_terminal
    from vault_mem.store.gitfiles import approve_incoming, git_file_text, held_unapproved, pending_git_files
    from vault_mem.store.template import template_blobs

    folders = [p for p in args.paths if os.path.isdir(p)]
    names = [p for p in args.paths if not os.path.isdir(p)]
    if len(folders) > 1 or (folders and args.vault):
        raise UsageError("trust takes one vault (a folder, or --vault PATH); the other PATHs name pending files")
    args.path = folders[0] if folders else None
    if names and args.approve_all:
        raise UsageError("--all approves every pending file; name files or give --all, not both")
    places = [n for n in names if trust_items.vault_place(n) is not None]
    if places:
        if len(places) != len(names) or args.author:
            raise UsageError("a vault.toml that would make its folder a vault is approved alone: run "
                             f"`vault-mem trust {shell_word(places[0])}` by itself")
        return _trust_places(args, [trust_items.vault_place(n) for n in places])  # type: ignore[misc]
    vault = open_vault(args, args.path)
    if args.author:
        if names or args.approve_all:
            raise UsageError("--author approves authors; approve files in a command of their own")
        return _trust_authors(args, vault)
    ws = vault.ws
    vault.take_notices()  # the pending notices: this command says them in full below
    s = ws.settings
    # what HEAD holds that no one approved or committed here (a plain pull's, a fresh clone's, a
    # reset's: the rule every command's notice reads), found in full; then what a fetched branch
    # a sync takes would bring
    files = [("HEAD", f) for f in held_unapproved(ws.root, ws.repo, ws.prefix, template_blobs())]
    listed = {(f.path, f.approval) for _, f in files}
    files += [(ref, f) for ref, f in pending_git_files(ws.root, ws.repo, ws.prefix, s.config.sync_remote)
              if (f.path, f.approval) not in listed]
    # the one decision of what this run shows, its text and its JSON alike: a peer's text (a
    # file, a new value, an author's name) at the person's terminal only; run without one (an
    # agent's shell), each change is named, by its length where it is text (trust_items.pending_items).
    # --json is for programs, never the person's eyes: named so too (an agent's shell tool that runs
    # commands under a pseudo-terminal, Gemini CLI's and Codex's, has a terminal: the review of mendinj33)
    whole = has_terminal() and not args.json
    shown_texts = trust_items.git_files_shown(ws.repo, files) if whole else [None] * len(files)
    items = trust_items.pending_items(ws, s, files, shown_texts, whole=whole)
    data: dict[str, Any] = {
        "vault": str(ws.root), "pending": {k: [old, new if whole else told_value(k, new)]
                                           for k, (old, new) in s.changes.items()},
        "settings_pending": s.pending_raw is not None, "problem": s.problem,
        "in_force": setting_values(s.config), "approved": False, "approved_files": [], "trust_file": None,
        "items": [{k: v for k, v in item.items() if k not in ("text", "head")} for item in items],
        "git_files": [{"path": f.path, "remote": ref, "blob": f.theirs, "ours": f.ours, "shown": text}
                      for (ref, f), text in zip(files, shown_texts, strict=True)]}
    head = [f"vault.toml is not in force: {s.problem} (nothing of it to approve until it is fixed)"] if s.problem else []
    if not items:
        if names:
            raise UsageError(f"nothing waits for approval in {ws.root}, so {', '.join(map(shown, names))} "
                             "cannot be approved")
        done = ("nothing else to approve: no fetched commit brings a file git interprets or vault-mem does not read"
                if s.problem else  # the file is not in force: it asks for nothing the line could name
                "nothing to approve: the settings in force are what vault.toml asks for, and no fetched "
                "commit brings a file git interprets or vault-mem does not read")
        emit(args, *_with_authors(vault, data, "\n".join([*head, done])))
        return 0
    asking = trust_items.named_items(ws, items, names) if names else items
    if names or args.approve_all:  # one question, after every file it approves
        asked = "\n".join([*head, *trust_items.said_once(item["text"] for item in asking)])
        yes, why_not = _person_approves(args, asked, f"approve {'all ' if args.approve_all else ''}"
                                                     f"{trust_items.these(asking)} for this vault on this machine?")
        approved = asking if yes else []
    else:
        approved, why_not = _ask_each(args, head, items, lambda item: trust_items.indented(shown_text(
            git_file_text(ws.repo, files[item["index"]][1], at_head=files[item["index"]][0] == "HEAD"))))
    if not approved:
        # asked: the person saw each already; else each change as the one decision above made it
        asked = trust_items.asked_on_terminal(why_not)
        listing = "" if asked else "\n".join([*head, *trust_items.said_once(item["text"] for item in asking),
                                              *[f"({trust_items.BRIEF_WHY})"] * (not whole)])
        who = "; ".join(f"`{item['check']}`" for item in asking)
        emit(args, *_with_authors(vault, data, f"{listing}\nnot approved ({why_not}); check who changed them ({who}), "
                                  "then run `vault-mem trust` in a terminal and type the word it shows for each you approve, or "
                                  "`vault-mem trust PATH...` naming them".lstrip("\n")))
        return 0
    written = None
    if any(item["kind"] == "settings" for item in approved):
        written = ws.approve_settings()
    picked_at = [files[item["index"]] for item in approved if item["kind"] != "settings"]
    picked = [f for _, f in picked_at]
    if picked:
        written = approve_incoming(ws.root, picked)
    data["trust_file"], data["approved"] = str(written), True
    data["approved_files"] = [item["name"] for item in approved]
    left = [item["name"] for item in items if item not in approved]
    lines = [f"approved for {ws.root} on this machine, in force from the next command (kept in {written}):",
             *trust_items.said_once(f"  {shown(item['name'])} ({item['what']})" for item in approved)]
    if left:
        lines.append(f"not approved, still pending: {', '.join(shown(n) for n in left)}")
    # HEAD's (a plain pull took them, a clone's) are in the work tree already: no sync takes them
    if any(ref == "HEAD" for ref, _ in picked_at):
        lines.append("the approved files HEAD holds are in the work tree already")
    if any(ref != "HEAD" for ref, _ in picked_at):
        lines.append("`vault-mem sync` takes the approved files from the remote now")
    emit(args, *_with_authors(vault, data, "\n".join(lines)))
    return 0


def _ask_each(args, head: list[str], items: list[dict[str, Any]],
              body: Callable[[dict[str, Any]], str]) -> tuple[list[dict[str, Any]], str]:
    """Ask the person about each pending item on the terminal, one question each, a file shown
    whole (``body``: its text, cut at :func:`~vault_mem.store.gitfiles.git_file_text`'s limit, not
    at the listing's budget: each question is about the file it shows); the items approved, and
    why the rest were not approved."""
    from vault_mem.adapters import trust_items  # lazy: start-up time (module docstring)
    approved: list[dict[str, Any]] = []
    why_not = "the person did not type the word shown"
    for n, item in enumerate(items, 1):
        lead = "\n".join([*head, ""]) if n == 1 and head else ""
        text = f"{item['head']}\n{body(item)}" if "head" in item else item["text"]
        yes, why = _person_approves(args, f"{lead}[{n}/{len(items)}] {text}",
                                    f"approve {shown(item['name'])} for this vault on this machine?")
        if yes:
            approved.append(item)
        elif not trust_items.asked_on_terminal(why):
            return [], why  # no terminal (or --json): nothing asked, nothing approved
    return approved, why_not


def _trust_places(args, folders: list[Path]) -> int:
    """``vault-mem trust FOLDER/vault.toml``: make these folders vaults of this machine, so that
    commands at or below them use them (a teammate's vault.toml is otherwise ignored there)."""
    from vault_mem.adapters import trust_items  # lazy: start-up time (module docstring)
    from vault_mem.config import choose_vault
    from vault_mem.store.git import GitRepo
    from vault_mem.store.trust import record_vault, vault_standing

    for folder in folders:
        if (folder / CONFIG_FILE).is_symlink():
            raise UsageError(f"{shown(str(folder / CONFIG_FILE))} is a symlink: vault-mem never follows links for its "
                             f"own files, so {shown(str(folder))} cannot be a vault; nothing approved")
        holder = trust_items.vault_holding(folder)
        if holder is not None:  # approving would change nothing: refused rather than said "approved"
            raise UsageError(f"{shown(str(folder / CONFIG_FILE))} is a file of the vault {shown(str(holder))}, "
                             f"which stays the vault at {shown(str(folder))} whatever is approved (a vault.toml "
                             f"below a vault's top is a file of that vault); nothing approved. If it is not "
                             f"yours, remove it (`git log -- {shell_word(str(folder / CONFIG_FILE))}` shows "
                             "whose commit added it)")
    lines = []
    for folder in folders:
        now = choose_vault(folder, vault_standing).root
        try:
            repo = GitRepo(folder)
            rel = os.path.relpath(folder / CONFIG_FILE, repo.toplevel.resolve()).replace(os.sep, "/")
            got = trust_items.change_by(repo, "HEAD", rel)
            by = got[2] if got else "in no commit"
        except VaultMemError:
            by = "in no git repository"
        instead = f" in place of {shown(str(now))}" if now is not None and now != folder else ""
        lines.append(f"{shown(str(folder / CONFIG_FILE))} ({by}): approving makes {shown(str(folder))} a vault of "
                     f"this machine, the vault of commands and agent sessions at or below it{instead}; its settings "
                     "are then shown by `vault-mem trust` run there")
    asked = "\n".join(lines)
    data: dict[str, Any] = {"vaults": [str(f) for f in folders], "approved": False, "approved_files": [],
                            "trust_file": None}
    yes, why_not = _person_approves(args, asked, "approve these folders as vaults on this machine?"
                                    if len(folders) > 1 else "approve this folder as a vault on this machine?")
    if not yes:
        emit(args, data, f"{asked}\nnot approved ({why_not}); the vault found as before stays in use")
        return 0
    written = None
    for folder in folders:
        written = record_vault(folder, "trust")
    data.update(approved=True, approved_files=[str(f / CONFIG_FILE) for f in folders], trust_file=str(written))
    emit(args, data, f"approved as vaults on this machine: {', '.join(shown(str(f)) for f in folders)} (kept in "
                     f"{written}); commands at or below them use them from the next command")
    return 0


def _person_approves(args, text: str, question: str) -> tuple[bool, str]:
    """Whether the person approves ``text``, asked on the controlling terminal (never standard
    input, which an agent writes: :mod:`vault_mem.platform.terminal`), and if not, why not.
    ``--json`` only reports what waits: a program reading JSON is not the person."""
    from vault_mem.platform.terminal import ask_person  # lazy: start-up time (module docstring)

    if args.yes:
        raise UsageError("`--yes` does not approve: an approval is the person's answer on a terminal, so that "
                         "an agent told to run a command cannot give it; run `vault-mem trust` in a terminal "
                         "and type the word it shows")
    if args.json:
        return False, "--json only shows what waits; approve by running `vault-mem trust` in a terminal"
    answer = ask_person(text, question)
    if answer is None:
        return False, ("this command has no terminal to ask the person on (an approval is the person's answer, "
                       "never standard input)")
    return answer, "the person did not type the word shown"


def _with_authors(vault: Vault, data: dict[str, Any], text: str) -> tuple[dict[str, Any], str]:
    """``data`` and ``text`` of ``vault-mem trust`` with the authors pending approval added:
    whose memories are not put in front of an agent unasked, and how many each has."""
    from vault_mem.vault.authors import own_emails, pending_authors  # lazy: start-up time (module docstring)

    vault.reconcile()
    pending = pending_authors(vault.ws, vault.sidecar)
    own = own_emails(vault.ws)
    data["authors_pending"] = pending
    data["own_emails_pending"] = [email for email in pending if email_key(email) in own]
    if pending:
        listed = "\n".join(f"  {shown_email(email)}: {n} memor{'y' if n == 1 else 'ies'}"
                           + (f" ({_OWN_EMAIL})" if email_key(email) in own else "")
                           for email, n in pending.items())
        text += (f"\nauthors pending (their memories reach an agent only when it asks, marked, until approved; "
                 f"read them with `vault-mem log`, then `vault-mem trust --author EMAIL`):\n{listed}")
    return data, text


#: what ``trust`` says of a pending author whose email is one of this machine's own
#: (:func:`vault_mem.vault.authors.own_emails`): a person approves their own email without a thought
_OWN_EMAIL = ("this machine's own email, but these commits were not made here: another machine of yours, "
              "or anyone who typed it; approving it lets in every commit anyone writes under it")


def _trust_authors(args, vault: Vault) -> int:
    """``vault-mem trust --author EMAIL ...``: approve these commit authors for this vault here."""
    from vault_mem.store.trust import approve_authors
    from vault_mem.vault.authors import own_emails, pending_authors  # lazy: start-up time (module docstring)

    emails = [email_key(e.strip()) for e in args.author if e.strip()]
    if not emails or any("\n" in e or " " in e for e in emails):
        raise UsageError("--author takes an email as git records it, e.g. --author alice@example.com")
    vault.reconcile()
    before = pending_authors(vault.ws, vault.sidecar)
    own = own_emails(vault.ws)
    asked = (f"approving these authors for {vault.root} lets their memories reach an agent unasked (the session "
             "context, the prompt hook); read them first with `vault-mem log`:\n"
             + "\n".join(f"  {shown(e)}: {before.get(e, 0)} memor{'y' if before.get(e, 0) == 1 else 'ies'}"
                         + (f" ({_OWN_EMAIL})" if e in own else "") for e in emails))
    approve, why_not = _person_approves(args, asked, "approve these authors for this vault on this machine?")
    if not approve:
        emit(args, {"vault": str(vault.root), "approved_authors": [], "asked": emails, "trust_file": None,
                    "memories": {e: before.get(e, 0) for e in emails}},
             f"{asked}\nnot approved ({why_not})")
        return 0
    path = approve_authors(vault.root, emails)
    vault.reconcile(force=True)  # now, a daemon's vault too: of two files of one key, the owner follows approvals
    data = {"vault": str(vault.root), "approved_authors": emails, "trust_file": str(path),
            "memories": {e: before.get(e, 0) for e in emails}}
    emit(args, data, f"approved on this machine for {vault.root}: "
         + ", ".join(f"{e} ({before.get(e, 0)} memories)" for e in emails)
         + f"; their memories may now reach an agent unasked (kept in {path})")
    return 0


@command("resolve")
def cmd_resolve(args) -> int:
    from vault_mem.sync.resolve import resolve  # lazy: start-up time (module docstring)

    vault, key, label = open_for_key(args, args.key)
    result = resolve(vault, key, keep=args.keep)
    emit(args, {**result.to_dict(), **_named(args, vault)},
         f"resolved {key}: kept {args.keep} ({label}commit {(result.commit or '')[:10]})")
    return 0


@command("review")
def cmd_review(args) -> int:
    from vault_mem.ops.review import review  # lazy: start-up time (module docstring)

    if args.limit is not None and args.limit < 1:
        raise UsageError("--limit takes a whole number from 1")
    vaults = vaults_of(args)
    items: list[dict[str, Any]] = []
    for name in vaults.names:  # every vault in use, as list and recall: each item names its own
        vault = open_vault(args, str(vaults.root(name)))
        found = review(vault, type=args.type, flag=args.flag)
        items += [{**i, "vault": name} for i in found] if vaults.several else found
        if name != vaults.names[-1]:  # main() says the last one's notices
            _notices(vault)
            vault.close()
    listed = items[:args.limit] if args.limit is not None else items
    # with several vaults a key is shown as personal:KEY / project:KEY, what edit or forget takes
    # the key (a file's name for an unusable file: a peer's sentence, taken by a plain `git pull`)
    # and the detail (an unusable file's reason quotes a piece of its value) after `| `, said once
    # to be data (the name stood quoted with no such line: mendinj33)
    text = _said_as_data([f"{_peer_lead(i)}{i['flag']:<11} | {(quoted if i['flag'] == 'problem' else shown)(_vault_key(i))}: "
                          f"{i['detail']}{_peer_mark(i)}" for i in listed], "nothing to review")
    if len(listed) < len(items):
        text += f"\n(+{len(items) - len(listed)} more: raise --limit, or narrow with --type / --flag)"
    emit(args, listed, text, quotes=bool(listed))
    return 0


@command("scan")
def cmd_scan(args) -> int:
    from vault_mem.ops.review import scan  # lazy: start-up time (module docstring)

    vault = open_vault(args)
    findings = scan(vault, history=args.history)
    lines = [f"{f['where']}: {f['kind']} in {f['field']}" for f in findings]
    if findings:
        lines.append(findings[0].get("how_to_purge", ""))
    emit(args, findings, "\n".join(lines) if findings else "no secrets found")
    return 1 if findings else 0


@command("check-refs")
def cmd_check_refs(args) -> int:
    from vault_mem.ops.review import check_refs  # lazy: start-up time (module docstring)

    vault = open_vault(args)
    missing = check_refs(vault, Path(args.repo))
    # the key and the reference after `| ` (text their writer chose, a peer's line starting with
    # the mark: _peer_lead), said once to be data: the reference stood quoted in our sentence with
    # no such line (mendinj33)
    text = _said_as_data([f"{_peer_lead(m)}| {m['key']}: {quoted(m['ref'])} does not exist{_peer_mark(m)}"
                          for m in missing], "every referenced path exists")
    emit(args, missing, text, quotes=bool(missing))
    return 1 if missing else 0


@command("dupes")
def cmd_dupes(args) -> int:
    from vault_mem.ops.review import dupes  # lazy: start-up time (module docstring)

    vault = open_vault(args)
    pairs = dupes(vault)
    def whose(p: dict, name: str) -> dict:
        return {"trusted": p[f"{name}_trusted"], "author": p[f"{name}_author"]}

    # a line starts with the mark of a peer's key that starts it (_peer_lead), as `list` and `log` do
    # the keys (text their writers chose) after `| `, said once to be data, as list says it
    text = _said_as_data([f"{_peer_lead(whose(p, 'a'))}| {p['a']}{_peer_mark(whose(p, 'a'))} ~ {p['b']}"
                          f"{_peer_mark(whose(p, 'b'))} ({p['similarity']:.2f})" for p in pairs], "no likely duplicates")
    emit(args, pairs, text, quotes=bool(pairs))  # the JSON holds both descriptions
    return 0


def _failed(args: argparse.Namespace, exc: BaseException, message: str, kind: str) -> int:
    """Report a failure that is not a VaultMemError: one line (JSON too with --json), exit 1."""
    if getattr(args, "json", False):
        print(json.dumps({"error": message, "kind": kind}))
    print(f"error: {message}", file=sys.stderr)
    if os.environ.get(LOG_LEVEL_ENV, "").upper() == "DEBUG":
        import traceback  # lazy: only a failure shown in full needs it

        traceback.print_exception(exc, file=sys.stderr)
    return 1


@command("import")
def cmd_import(args) -> int:
    from vault_mem.ops.importers import import_source  # lazy: start-up time (module docstring)

    vault = open_vault(args)
    report = import_source(vault, args.source, kind=args.source_kind, dry_run=args.dry_run,
                           progress=_progress_bar("importing"))
    emit(args, report.to_dict(), "\n".join(report.lines()))
    return 1 if report.of("refuse") else 0


@command("export")
def cmd_export(args) -> int:
    from vault_mem.ops.export import export_memories, render, write_export  # lazy: start-up time

    if args.json and args.jsonl:
        raise UsageError("give --json or --jsonl, not both")
    vault = open_vault(args)
    records, problems = export_memories(vault, type=args.type)
    for problem in problems:
        warn(f"not exported: {problem}")
    text = render(records, "json" if args.json else "jsonl")
    if not args.output:  # memory text an agent may read as it is printed: said once to be data
        if records:
            _json_is_data()
        sys.stdout.write(text)
        return 0
    path = write_export(text, args.output)
    print(f"exported {len(records)} memories to {path}", file=sys.stderr)
    return 0


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser (:func:`vault_mem.adapters.cli_parser.build_parser`), imported when a command
    line is parsed: a git hook's line is read without it (:func:`git_hook_args`)."""
    from vault_mem.adapters.cli_parser import build_parser as build  # lazy: a git hook's start-up time

    return build(command)


def git_hook_args(argv: list[str]) -> argparse.Namespace | None:
    """The parsed arguments of a line exactly as vault-mem's git hooks write it (``--vault VAULT
    hook NAME [ARG...]``, :mod:`vault_mem.store.hooks`), without argparse and the parser (their
    import and building were ~10 ms of CPU of each hook of a person's git command); the same
    namespace the parser gives (tests/test_cli.py checks). None for any other line: the parser
    reads it, with every message it gives."""
    from types import SimpleNamespace

    from vault_mem.adapters.hook_names import HOOK_NAMES

    if len(argv) < 4 or argv[0] != "--vault" or argv[2] != "hook" or argv[3] not in HOOK_NAMES:
        return None
    if any(not word or word.startswith("-") for word in (argv[1], *argv[4:])):
        return None  # an option, "--", or an empty word: the parser's to read
    return SimpleNamespace(vault=argv[1], json=False, agent=None, command="hook", name=argv[3],  # type: ignore[return-value]
                           hook_args=list(argv[4:]))


def main(argv: list[str] | None = None) -> int:
    one_blas_thread()  # before numpy loads (platform/threads.py)
    argv = sys.argv[1:] if argv is None else argv
    if argv == ["--version"]:  # what argparse's version action prints, without building every command's parser
        print(f"vault-mem {VERSION}")
        return 0
    args = git_hook_args(argv)
    if args is None:
        from vault_mem.adapters.cli_parser import command_named  # lazy: a git hook's start-up time

        parser = build_parser(command_named(argv))  # only the command's own parser: start-up time
        args = parser.parse_args(argv)
        if not args.command:
            parser.print_help(sys.stderr)
            return 2
    if args.command not in _NAMED_WHEN_LOCKING:
        _name_this_process(args.command)
    # what a command prints reaches a terminal escaped (adapters/cli_output.py); a hook's and the
    # MCP server's output is a protocol an agent reads, fenced and escaped by their own rendering
    streams = contextlib.nullcontext() if args.command in _PROTOCOL_COMMANDS else escaping_streams()
    frozen = args.command in _FROZEN_COMMANDS
    if frozen:
        gc.freeze()
    try:
        with streams:
            return _run(args)
    finally:
        if frozen:
            gc.unfreeze()  # an in-process caller's objects are collected as before


#: one-shot commands whose start-up objects (the modules, their classes and tables) all live to
#: the exit: they are kept out of the cyclic collector's passes while the command runs
#: (``gc.freeze``); ~25 collections re-traversed them, ~4-8 ms of a one-shot write's CPU
#: (issue 29). The hooks (every git hook a person's git runs, every agent hook) and the reads
#: an agent runs are one-shot too: 2-3% of a git hook's instructions (bench/bench_startup.py,
#: issue 28). What the command itself makes is collected as usual
_FROZEN_COMMANDS = frozenset({"remember", "forget", "hook", "recall", "get", "list"})
#: commands whose stdout is a protocol for a program, not text for a terminal
_PROTOCOL_COMMANDS = frozenset({"hook", "mcp", "completion"})
#: commands that name their process (for lock files) only when they go on to lock something
#: themselves: what the daemon answers or makes for them never loads the store (start-up time)
_NAMED_WHEN_LOCKING = frozenset({"hook", "remember", "forget"})


def _name_this_process(command: str) -> None:
    from vault_mem.store.locks import name_this_process  # lazy: start-up time (module docstring)

    name_this_process(command)  # lock files and "waiting for ..." messages name it


def _run(args: argparse.Namespace) -> int:
    try:
        _need_posix()
        _say_personal_skipped(args)
        return COMMANDS[args.command](args) or 0
    except VaultMemError as exc:
        if getattr(args, "json", False):
            print(json.dumps({"error": str(exc), "kind": type(exc).__name__}))
        print(f"error: {exc}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    except OSError as exc:  # the machine refused (disk full, permissions, a vanished folder)
        return _failed(args, exc, f"{exc}; check the path, its permissions and the free disk space, "
                       "then retry", "OSError")
    except Exception as exc:  # noqa: BLE001 - a bug: say so in one line, never as a stack trace
        return _failed(args, exc, f"internal error in vault-mem ({type(exc).__name__}: {exc}); this is a bug: "
                       f"please report it with the command you ran ({LOG_LEVEL_ENV}=DEBUG shows where it "
                       "happened); `vault-mem log` lists any commit the command made", "InternalError")
    finally:
        if getattr(args, "passed_over", None):
            _notices(None, args.passed_over)
        if getattr(args, "opened_vault", None) is not None:
            _notices(args.opened_vault)
        if getattr(args, "daemon_notices", None):  # a write the daemon made: its vault's notices
            _notices(None, args.daemon_notices)


if __name__ == "__main__":
    sys.exit(main())
