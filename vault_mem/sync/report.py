"""What one sync did (:class:`SyncReport`): filled in by the remote half and the replay alike.

Its own module so that :mod:`vault_mem.sync.remote` (fetch, push) and :mod:`vault_mem.sync.replay`
(the local commits rebuilt) both import it and neither imports the other for it.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from vault_mem.model.names import quoted, shell_word, shown, shown_email

__all__ = ["SyncReport"]


@dataclass
class SyncReport:
    """What one sync did."""

    remote: str
    branch: str
    head: str | None = None
    received: int = 0  # commits that came from the remote
    replayed: int = 0  # local commits rebuilt on top of the remote's
    pushed: int = 0  # commits the remote got from us
    dropped: list[str] = field(default_factory=list)  # local commits already on the remote
    conflicts: list[dict[str, Any]] = field(default_factory=list)
    attempts: int = 0
    upstream_set: bool = False  # this sync made remote/branch the branch's upstream (git pull works)
    #: memory files from the remote holding a credential: path, commit, author, reason, how_to_purge
    quarantined: list[dict[str, Any]] = field(default_factory=list)
    #: memory files the remote's commits brought beside another file of their key, set aside
    #: (kept out of use; the other file keeps the key): path, key, owner (sync/replay.collisions)
    duplicates: list[dict[str, Any]] = field(default_factory=list)
    #: entries of the remote's commits no clone can take (a name a file system cannot hold,
    #: anything but a regular file, a file over the size limit), taken out by one commit of this
    #: sync that is pushed with the rest: path, why, commit (the remote's tip, which keeps it)
    removed: list[dict[str, Any]] = field(default_factory=list)
    #: how many more were taken out than :attr:`removed` names (it names the first 50)
    removed_more: int = 0
    #: this machine's trusted memories that the remote's commits by an author not approved here
    #: deleted or changed: path, what, by, commit, base (vault/authors.displaced_by_peers)
    displaced: list[dict[str, str]] = field(default_factory=list)
    #: the remote's commits this sync did not take, because git's check refuses an object of
    #: them: commit (the first), count, refused (git's words), author, subject, unpushed (the
    #: local commits that cannot be pushed meanwhile); None when it took the branch whole
    set_aside: dict[str, Any] | None = None
    #: the sync created the branch on the remote, whose HEAD (what a new clone checks out) names
    #: another branch or none: what to do (store/upstream.remote_head_notice); None otherwise
    remote_head: str | None = None
    #: the commits the remote's branch held at this clone's last look and holds no more (a
    #: force-push over the vault's own history); 0: it only went on
    rewritten: int = 0

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def add_displaced(self, found: list[dict[str, str]]) -> None:
        """Add what :func:`~vault_mem.vault.authors.displaced_by_peers` found in one attempt: a
        retry after the remote moved looks at the newer commits only, so each attempt's finds
        are kept (one per path)."""
        seen = {d["path"] for d in self.displaced}
        self.displaced += [d for d in found if d["path"] not in seen]

    def displaced_lines(self) -> list[str]:
        """One sentence per memory of this machine's a peer deleted or changed, with the way
        back (said by a sync that succeeded and by one whose push then failed alike)."""
        return [displaced_line(d) for d in self.displaced]

    def summary(self) -> str:
        parts = [f"synced with {self.remote}/{self.branch}: received {self.received} commit(s), pushed "
                 + str(self.pushed)]
        if self.rewritten:
            parts.append(f"{self.remote}/{self.branch} no longer holds {self.rewritten} commit(s) it held when this "
                         "clone last looked: someone rewrote it (a force-push); what this clone holds of them "
                         f"is put back on top, and a memory the new history changed too is a conflict (see `git "
                         f"log {self.remote}/{self.branch}` and `git reflog {self.remote}/{self.branch}`)")
        if self.replayed:
            parts.append(f"replayed {self.replayed} local commit(s) on top of the remote's")
        if self.dropped:
            parts.append(f"{len(self.dropped)} local commit(s) were already on the remote")
        for c in self.conflicts:
            parts.append(f"conflict on '{c['key']}': {c['detail']}")
        if any(c["kind"] == "copy" for c in self.conflicts):
            parts.append("see them with `vault-mem review`; settle each with "
                         "`vault-mem resolve KEY --keep mine|theirs|both`")
        if self.upstream_set:
            parts.append(f"{self.remote}/{self.branch} is now the branch's upstream (plain `git pull` works)")
        for q in self.quarantined:
            parts.append(f"{quoted(q['path'])} came from the remote ({(q['commit'] or '')[:10]}) holding a credential "
                         f"and is quarantined: {q['reason']}. {q['how_to_purge']}")
        for d in self.duplicates:
            parts.append(duplicate_line(d))
        parts += [removed_line(d) for d in self.removed]
        if self.removed_more:
            parts.append(f"{self.removed_more} more entries of the remote's commits were taken out likewise "
                         "(`git show --stat` of this sync's commit that takes them out lists them all)")
        parts += self.displaced_lines()
        if self.set_aside is not None:
            parts.append(set_aside_line(self.remote, self.branch, self.set_aside))
        if self.remote_head:
            parts.append(self.remote_head)
        if self.attempts > 1:
            parts.append(f"the remote moved during the sync; it took {self.attempts} attempts")
        return "; ".join(parts) + "."


def duplicate_line(d: dict[str, Any]) -> str:
    """The sentence that names a memory file a sync set aside (a second file of a key), with what
    to do: its text stays in the file and in git, out of recall and INDEX.md."""
    return (f"{quoted(d['path'])} and {quoted(d['owner'])} hold the same key '{shown(d['key'])}' since "
            f"this sync: {quoted(d['path'])} is set aside (kept out of recall and INDEX.md; {quoted(d['owner'])} keeps "
            f"the key). To use its text, move it to a key of its own (`git mv {shell_word(d['path'])} "
            "FOLDER/NEW-KEY.md`, commit, sync), or delete it (`git rm`)")


def removed_line(d: dict[str, Any]) -> str:
    """The sentence that names an entry of the remote's commits a sync took out (never written
    here; removed from the branch by a commit of this sync, pushed with the rest), why, and how
    to see it again."""
    return (f"{quoted(d['path'])} in the remote's commits was taken out ({d['why']}): it is not in this "
            f"vault, and this sync's commit removes it from the branch for every clone; see it with "
            f"`{d['show']}`")


def displaced_line(d: dict[str, str], path: str | None = None) -> str:
    """The sentence that names one memory of this machine's a peer deleted or changed (a find of
    :func:`~vault_mem.vault.authors.displaced_by_peers`), with the way back: said by a sync and by
    the post-merge hook after a plain ``git pull``. ``path``: the file as git names it from where
    the person runs it (the project's top for a vault in ``memory/``); the vault-relative path else."""
    c, back, where = d["commit"][:10], d["base"][:10], path or d["path"]
    if d.get("own"):
        # this machine's own email on a commit not made here: someone typed it (attack24); approving
        # it would let in every commit anyone writes under it, so it is not offered as the way out
        return (f"{shown(where)}, a memory of this machine's, was {d['what']} under {shown_email(d['by'])}, this "
                f"machine's own email, by a commit not made here (commit {c}: another machine of yours, or "
                "anyone who typed that email), so the agent no longer sees your version: bring it back with "
                f"`git checkout {back} -- {shell_word(where)}` and commit (approving that email with `vault-mem "
                "trust --author` would let in every commit anyone writes under it)")
    return (f"{shown(where)}, a memory of this machine's, was {d['what']} by {shown_email(d['by'])} "
            f"(commit {c}), an author not approved here, so the agent no longer sees your version: "
            f"bring it back with `git checkout {back} -- {shell_word(where)}` and commit, or approve "
            f"that author with `vault-mem trust --author {shell_word(d['by'])}`")


def unapproved_line(path: str, change: str, before: str, git_file: bool) -> str:
    """The sentence that names a file that takes approval (``store/gitfiles.needs_approval``)
    which the commits a plain ``git pull`` merged changed to a version not approved here: a
    sync stops on it; the person's own git command cannot be stopped, so the hook git runs after
    it names it with the way back. ``path``: as git names it from where the person runs it;
    ``change``: ``added``, ``changed`` or ``deleted``; ``before``: HEAD before the pull."""
    what = ("a file git itself interprets (attributes, submodules, ignore rules, the author map)" if git_file else
            "a file vault-mem does not read but an agent, editor or shell started in the vault may "
            "(settings, hooks, instructions, scripts)")
    # a name a shell must quote is the peer's text: said once, quoted as vault-mem quotes names,
    # and the commands take it as PATH (shell quoting would set it outside that quotation)
    word = shell_word(path)
    arg, which = (word, "") if word == shown(path) else ("PATH", ", PATH being that file's name")
    back = (f"take it out with `git rm -q -- {arg}`" if change == "added" else
            f"put it back with `git checkout {before[:10]} -- {arg}`")
    return (f"{quoted(path)}, {what}, was {change} by the merged commits, a version not approved on this machine: "
            f"read the change with `git diff {before[:10]} HEAD -- {arg}` before starting an agent "
            f"here, and {back} and commit{which} (a sync would have stopped on it until the person approved "
            "it with `vault-mem trust`)")


def set_aside_line(remote: str, branch: str, a: dict[str, Any]) -> str:
    """The sentence that names the remote's commit a sync set aside (git's check refuses an
    object of it), what that holds back, and the fix."""
    c, after = a["commit"][:10], a["count"] - 1
    # named by its id alone: its subject and author's name are text its writer chose (remote._set_aside_info)
    held = (f"your {a['unpushed']} commit(s) stay committed here and are not pushed" if a["unpushed"] else
            "nothing of yours waits to be pushed, and nothing can be")
    return (f"the remote's commit {c} holds an object git's check refuses ({shown(a['refused'])}): "
            "no git command makes one, so it was written by hand. "
            + (f"It and the {after} commit(s) after it on {shown(remote)}/{shown(branch)} were set aside, nothing of "
               "them" if after else "It was set aside, nothing of it")
            + f" taken into this repository; {held} until it leaves the "
            f"remote's branch: whoever pushed it replaces it there with a commit git makes (from its parent, "
            f"`git checkout {c}^ && git checkout {c} -- . && git commit`, the commits after it picked on top) "
            "and pushes that (`--force-with-lease`); then sync again. Your plain `git pull` refuses such "
            "commits too after `git config fetch.fsckObjects true`")
