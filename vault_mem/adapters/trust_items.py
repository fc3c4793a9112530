"""What ``vault-mem trust`` shows and asks about: each change waiting for approval on this
machine, as the person reads it (which file, whose commit, what it changes), the files a person
names, and a vault.toml that would make its folder a vault (DESIGN §7). Every part of a text
but vault-mem's own words is escaped: it is text a peer chose. The command itself, which asks
the person and prints, is :func:`vault_mem.adapters.cli.cmd_trust`."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from vault_mem.config import CONFIG_FILE
from vault_mem.errors import UsageError, VaultMemError
from vault_mem.model.names import quoted, shell_word, shown, shown_email, shown_text

if TYPE_CHECKING:
    from vault_mem.store.git import GitRepo
    from vault_mem.store.workspace import Workspace
    from vault_mem.store.gitfiles import IncomingGitFile


def said_once(texts: Iterable[str]) -> list[str]:
    """``texts`` with :data:`OTHERS` said in the first that holds it only (a thousand files of
    one kind: one explanation, not a thousand)."""
    out, said = [], False
    for text in texts:
        if said:
            text = text.replace(OTHERS, "", 1)
        said = said or OTHERS in text
        out.append(text)
    return out


def these(items: list[dict[str, Any]]) -> str:
    """The files of a question: ``these 3 files``, or the one file's name."""
    return f"these {len(items)} files" if len(items) != 1 else shown(items[0]["name"])


def asked_on_terminal(why_not: str) -> bool:
    """Whether a "not approved" reason (:func:`vault_mem.adapters.cli._person_approves`) is the
    person's own answer, not a missing terminal or ``--json``."""
    return why_not.startswith("the person")


def change_by(repo: GitRepo, rev: str, top: str) -> tuple[str, str, str] | None:
    """``(commit, author email, the text naming them)`` of the last commit reachable from
    ``rev`` that changed the top-level path ``top``, or None (no such commit, or no history to
    read): how ``trust`` names whose change it asks about, escaped (a peer chose the name and
    email)."""
    from vault_mem.store.history import last_change_by

    try:
        got = last_change_by(repo, rev, [top])
    except VaultMemError:
        return None
    if got is None:
        return None
    commit, name, email = got
    return commit, email, f"commit {commit[:10]} by {quoted(name)} <{shown_email(email)}>"


def pending_items(ws: Workspace, s, files, texts: list[str] | None, *, whole: bool) -> list[dict[str, Any]]:
    """Each change waiting for approval, as ``trust`` shows and asks about it: its ``name`` (the
    vault-relative file, what ``trust PATH`` takes), whose commit brought it, what it changes
    (``what``), and the ``text`` shown (escaped: every part but vault-mem's words is text a peer
    chose). ``whole`` (the person's terminal, :func:`~vault_mem.platform.terminal.has_terminal`):
    each file's text (``texts``) and the new values themselves; else no file's text, no author's
    name, and a new text value by its length (as the notices say them), in ``text`` and ``what``
    alike, so the text form and the JSON (built from these items) follow the one decision: an
    agent told to run `vault-mem trust` read a peer's CLAUDE.md whole (inj33), and its ``--json``
    still did after the text form stopped (mendinj33)."""
    from vault_mem.config import describe_changes
    from vault_mem.store.gitfiles import is_git_file

    items: list[dict[str, Any]] = []

    def whose(rev: str, rel: str) -> tuple[str | None, str | None, str]:
        commit, email, by = change_by(ws.repo, rev, ws.prefix + rel) or (None, None, "a commit not found (git log names it)")
        if commit is not None and not whole:  # the author's name is text its writer chose: the email names them
            by = f"commit {commit[:10]} by <{shown_email(email or '')}>"
        return commit, email, by

    if s.pending_raw is not None:
        commit, email, by = whose("HEAD", CONFIG_FILE)
        what = f"changes settings: {describe_changes(s.changes, new_text=whole)}"
        items.append({"name": CONFIG_FILE, "kind": "settings", "commit": commit, "author": email, "what": what,
                      "check": f"git log -p -- {CONFIG_FILE}", "text": f"{CONFIG_FILE} in {ws.root}, {by}, {what}"})
    for index, (ref, f) in enumerate(files):
        commit, email, by = whose(ref, f.path)
        verb = "deletes" if f.theirs is None else "adds" if f.ours is None else "changes"
        kind = "a file git itself interprets" if is_git_file(f.path) else f"a file vault-mem does not read{OTHERS}"
        what = f"{verb} {kind}"
        # the name quoted: a file name is text a peer chose, here at the head of our line (atk23)
        # HEAD: a file HEAD holds already, from a commit not made here (store/gitfiles.held_unapproved)
        where = "in HEAD, from a commit not made here" if ref == "HEAD" else f"from {shown(ref)}"
        head = f"{quoted(f.path)} {where}, {by}, {what} ({(f.theirs or 'deleted')[:10]}):"
        text = f"{head}\n{indented(texts[index])}" if whole and texts is not None else \
            f"{head[:-1]}; its text is shown on the person's terminal"
        items.append({"name": f.path, "kind": "git file", "index": index, "remote": ref, "commit": commit,
                      "author": email, "what": what, "check": f"git log -p {shell_word(ref)} -- {shell_word(f.path)}",
                      "head": head, "text": text})
    return items


#: what a listing says where no terminal can ask the person (:func:`pending_items` not ``whole``)
BRIEF_WHY = ("a change is shown whole only where the person can answer, on their terminal: its text is a peer's, "
             "and whoever runs this command without one (an agent's shell) is never shown it")


#: after "a file vault-mem does not read": who reads it (the first time a listing says it)
OTHERS = " (other programs may: settings, hooks, instructions, scripts)"


def named_items(ws: Workspace, items: list[dict[str, Any]], names: list[str]) -> list[dict[str, Any]]:
    """The pending items the person named: each name a vault-relative path (``vault.toml``,
    ``facts/.gitignore``), or a path from here into the vault; one naming nothing pending is
    refused with what is pending (a typo approves nothing, and nothing else)."""
    chosen: list[dict[str, Any]] = []
    for name in names:
        rel = name
        full = Path(name).expanduser()
        full = full if full.is_absolute() else Path.cwd() / full
        try:
            rel = os.path.relpath(os.path.abspath(full), ws.root).replace(os.sep, "/")
        except ValueError:
            pass
        hits = [item for item in items if item["name"] in (name, rel)]
        if not hits:
            raise UsageError(f"{shown(name)} is not waiting for approval in {ws.root}; what waits: "
                             f"{', '.join(shown(item['name']) for item in items)} (run `vault-mem trust` to see each)")
        chosen += [item for item in hits if item not in chosen]
    return chosen


def vault_place(name: str) -> Path | None:
    """The folder of ``name`` when it names a vault.toml of a folder that is no vault of this
    machine (:func:`vault_mem.store.trust.known_vault`): what ``trust PATH`` approves as a vault."""
    from vault_mem.config import choose_vault
    from vault_mem.store.trust import known_vault, vault_standing

    path = Path(name).expanduser()
    if path.name != CONFIG_FILE or not path.is_file():
        return None
    # the folder holding the name, not its target's: a vault.toml linked to another folder's
    # approved that other folder while the person named this one (and a link is never read)
    folder = path.absolute().parent.resolve()
    # the vault found there anyway (a fresh clone's): its vault.toml is a settings file to approve
    return None if known_vault(folder) or choose_vault(folder, vault_standing).root == folder else folder


def vault_holding(folder: Path) -> Path | None:
    """The vault that stays the vault at ``folder`` even if the person approved ``folder`` as one
    (a recorded vault above it in its repository: a vault.toml below a vault's top is a file of
    that vault, :func:`vault_mem.config.choose_vault`), or None when approving makes ``folder``
    the vault there. ``trust`` asks only about an approval that does what it says."""
    from vault_mem.config import RECORDED, choose_vault
    from vault_mem.store.trust import vault_standing

    chosen = choose_vault(folder, lambda f: RECORDED if f == folder else vault_standing(f)).root
    return None if chosen == folder else chosen


def git_files_shown(repo: GitRepo, files: list[tuple[str, IncomingGitFile]]) -> list[str]:
    """Each incoming file's text for ``trust`` to show (:func:`git_file_text`, escaped; ``files``:
    ``(ref, file)``, ref ``HEAD`` for a file HEAD holds already), within one budget for them all:
    a push of a thousand files must not flood the person's terminal (nor a JSON reader); past
    the budget a file is named with the command that shows it."""
    from vault_mem.store.gitfiles import git_file_text

    out, room = [], 40_000
    for ref, f in files:
        if room <= 0:
            out.append("(not shown: the files above filled this listing; read it with "
                       + (f"`git cat-file -p {f.theirs}`" if f.theirs else "`git log -p -- PATH`") + " before approving)")
            continue
        out.append(shown_text(git_file_text(repo, f, at_head=ref == "HEAD")))
        room -= len(out[-1])
    return out


#: columns of a peer's file text per shown line, its indentation and a continuation mark included
_SHOWN_WIDTH = 76


def indented(text: str) -> str:
    """A peer's file text (escaped already) as ``trust`` shows it under the file's name: every
    line indented, and cut into pieces that fit :data:`_SHOWN_WIDTH` columns, each continuation
    marked. A line longer than the terminal was wrapped by the terminal to column 0, outside the
    indentation, so a peer could pad a line with spaces to print its own "approved" or "[y/N]"
    lines where vault-mem's own stand."""
    import unicodedata

    def width(ch: str) -> int:
        return 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1

    out = []
    for line in text.splitlines():
        piece, used, first = "", 0, True
        for ch in line:
            if used + width(ch) > _SHOWN_WIDTH - 6:
                out.append(("    " if first else "    > ") + piece)
                piece, used, first = "", 0, False
            piece += ch
            used += width(ch)
        out.append(("    " if first else "    > ") + piece)
    return "\n".join(out) or "    (empty)"
