"""The sidecar: memory files -> rows in ``.vault-mem/index.db``, kept in line by reconcile.

Everything here is derived from the files (and the embedder): deleting ``index.db`` loses
nothing. One table is derived from git and file times instead: ``changes``, when a hand edit
that left its ``updated:`` behind changed a memory (see :attr:`Sidecar.change_dates`); a rebuild
keeps it, and an uncommitted edit indexed before the database was deleted dates from its
``updated:`` again until it is committed. The sidecar never writes to a memory file.

Reconcile is cheap when nothing changed: every file's (mtime_ns, size), from GNU find's listing
compared with the last one (:mod:`vault_mem.index.listing`) or a stat per file, checked against the
rows' scan sum (:mod:`vault_mem.index.scansum`); a file is read and hashed only when they differ. A file
that cannot be used is recorded as a problem with its reason; if an earlier good version of the
same path was indexed, that version stays searchable until the file is fixed. A file holding a
credential is the exception: it is *quarantined* (``model/policy.py``), and its row keeps no text
at all (no description, body, FTS row or vector, no last good version, nothing embedded), so
nothing of it reaches INDEX.md, recall or ``list`` until the value is removed.

Reading the files is in :mod:`vault_mem.index.scan`; vectors (the embedder, the sqlite-vec store,
the two KNN searches, the floor's calibration) in :mod:`vault_mem.index.vectors`, a component the
sidecar holds as :attr:`Sidecar.vectors`; search itself in :mod:`vault_mem.index.search`.
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as dt
import hashlib
import json
import os
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from vault_mem.config import STATE_DIR, TYPE_FOLDERS, Config
from vault_mem.index import db as dbmod
from vault_mem.index import listing, queries, scansum
from vault_mem.index.folderscan import Scan, scan
from vault_mem.index.pathsets import left_out_sql
from vault_mem.index.scan import FileState, gate_fingerprint, read_file, state_from_bytes
from vault_mem.index.vectors import DEFAULT, VectorStore
from vault_mem.model import terms
from vault_mem.model.indexmd import SECTIONS, IndexEntry, render_index
from vault_mem.model.memory import is_memory_path, iso
from vault_mem.model.names import quoted
from vault_mem.model.policy import QUARANTINE_MARK, WritePolicy
from vault_mem.platform.logs import Logger

if TYPE_CHECKING:
    from vault_mem.index.search import Hit, RecallResult

log = Logger("vault_mem.index.sidecar")  # logging imported at the first message (start-up time)

TYPE_RANK = {t: i for i, t in enumerate(TYPE_FOLDERS)}  # preference 0 ... note 4
BATCH_FILES = 256  # files per write transaction during reconcile

Progress = Callable[[int, int], None]
#: ``change_dates([(path, mtime_ns, seen), ...]) -> {path: ISO date or None}``: see
#: :attr:`Sidecar.change_dates`
ChangeDates = Callable[[list[tuple[str, int, bool]]], dict[str, str | None]]
#: ``key_owner({key: paths}) -> {key: path}``: see :attr:`Sidecar.key_owner`
KeyOwner = Callable[[dict[str, list[str]]], dict[str, str]]

__all__ = ["DEFAULT", "Hit", "IndexEntry", "Problem", "RecallResult", "ReconcileReport", "Sidecar", "written_by"]


def written_by(dated: str | None, mtime_ns: int) -> str | None:
    """A memory's date as every reader takes it (INDEX.md's order and the budget, the session
    context, recall's and ``list``'s date, age and staleness, ``get``'s age): its ``updated:``
    (else ``created:``) date ``dated``, but no later than the day its file was written here
    (``mtime_ns``: this machine's clock; -1, bytes not on disk yet: today). Those lines are the
    writer's text: a peer's ``updated: 2099-12-31`` led its INDEX.md section above every memory
    the person's agent would write until 2099, and was never "may be outdated" (trust24). A file's
    time is when a checkout, a sync or an editor wrote it here, never earlier than the truth of a
    date written honestly; a clone dates a date from the future to its own day."""
    if not dated:
        return dated
    try:
        written = (dt.date.fromtimestamp(mtime_ns / 1e9) if mtime_ns >= 0 else dt.date.today()).isoformat()
    except (OverflowError, OSError, ValueError):
        return dated  # a file time no calendar holds (held at SQLite's bound): the date stands
    return min(dated, written)


def __getattr__(name: str):
    """``Hit`` and ``RecallResult`` (:mod:`vault_mem.index.search`'s), imported at their first use:
    a write, which searches nothing, does not import the search modules (start-up time)."""
    if name in ("Hit", "RecallResult"):
        from vault_mem.index import search

        return getattr(search, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


@dataclass(frozen=True)
class Problem:
    """A file the sidecar cannot use, and why."""

    path: str
    reason: str

    @property
    def quarantined(self) -> bool:
        """The file holds a credential (see ``model/policy.py``): nothing of it is indexed."""
        return self.reason.startswith(QUARANTINE_MARK)


@dataclass
class ReconcileReport:
    """What a reconcile changed. ``problems`` lists every problem file after it ran."""

    added: int = 0
    updated: int = 0
    removed: int = 0
    unchanged: int = 0
    problems: list[Problem] = field(default_factory=list)
    embedded: int = 0

    @property
    def changed(self) -> bool:
        return bool(self.added or self.updated or self.removed)


class _RollBack(Exception):
    """Ends a write transaction whose changes are only looked at (:meth:`Sidecar.render_index_with`)."""


def _file_id(path: Path) -> tuple[int, int] | None:
    """(device, inode) of the file at ``path``, None when there is none."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_dev, st.st_ino)


class Sidecar:
    """The derived index of one vault: reconcile, INDEX.md entries, lookups and recall; its
    vectors are :attr:`vectors`."""

    def __init__(self, root: Path, config: Config, *, embedder: object = DEFAULT,
                 _db_path: Path | None = None) -> None:
        self.root = Path(root)
        self.config = config
        self._db_path = _db_path or self.root / STATE_DIR / "index.db"
        #: the write gate: a file it would refuse is quarantined, not indexed
        self.policy = WritePolicy(max_body_bytes=config.max_body_bytes, max_file_bytes=config.max_file_bytes)
        self.db = dbmod.connect(self._db_path, made_for=self.root)
        self._opened = _file_id(self._db_path)
        #: the vector half: the embedder, the vector store and searches, the floor (index/vectors.py)
        self.vectors = VectorStore(self.db, config.embedder, min_similarity=config.recall_min_similarity,
                                   embedder=embedder)
        #: the last INDEX.md rendered, with the stamp of the rows it was rendered from (see
        #: :meth:`_render_stamp`): a write renders it for its commit, then for the disk, from
        #: the same rows when no file differs from HEAD
        self._rendered: tuple[tuple, str] | None = None
        #: When a file's new content last changed, asked only for files whose time is later than
        #: their ``updated:`` date (a hand edit keeps its old date), as (path, mtime_ns, seen:
        #: an edit of a file indexed before); answers {path: ISO date, or None: ``updated:``
        #: dates it}, a path left out keeps what the ``changes`` table says. Set by the vault,
        #: which knows git. None here: ``updated:`` alone dates a memory.
        self.change_dates: ChangeDates | None = None
        #: For each key that two files or more hold (paths with content, by path), the one that
        #: owns it; a key left out: the first by path. Asked only for such keys (rare). Set by the
        #: vault, which knows whose files are trusted: a peer's second file of the person's key
        #: (a plain ``git pull`` takes one; sync refuses it) owned the key when its path came
        #: first (``decisions/`` before ``preferences/``), the person's pinned memory a duplicate,
        #: out of the session context and the prompt hook.
        self.key_owner: KeyOwner | None = None

    # -- lifecycle -------------------------------------------------------------------------

    @property
    def read_only(self) -> str | None:
        """Why the index cannot be written here (with the fix), or None. Reads still work.
        Asked again each time: a remount or freed space ends it."""
        return self.db.check_read_only()

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> Sidecar:  # noqa: PYI034
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # -- reading files ---------------------------------------------------------------------

    def _scan(self) -> Scan:
        return scan(self.root)

    def _read(self, rel: str) -> FileState | None:
        return read_file(self.root, rel, max_bytes=self.config.max_file_bytes, policy=self.policy)

    # -- writing rows ----------------------------------------------------------------------

    def _apply(self, st: FileState, report: ReconcileReport, touched_keys: set[str]) -> None:
        """Upsert one file's state (inside a write transaction)."""
        row = self.db.execute(
            "SELECT id, key, has_content, content_sha256, problem, sha256, mtime_ns, size, blob FROM files WHERE path = ?",
            (st.path,),
        ).fetchone()
        blob = st.blob or None
        if row is not None and (row["mtime_ns"], row["size"], row["sha256"]) == (st.mtime_ns, st.size, st.sha256) \
                and st.sha256 and st.problem == row["problem"] and row["blob"] == blob:
            report.unchanged += 1  # another process got here first
            return
        touched_keys.add(st.key)
        if row is not None:
            touched_keys.add(row["key"])
        if st.problem is not None or st.memory is None:
            if row is None:
                self.db.execute(
                    "INSERT INTO files(path, key, type, type_rank, mtime_ns, size, sha256, problem, blob) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (st.path, st.key, st.type, TYPE_RANK[st.type], st.mtime_ns, st.size, st.sha256, st.problem, blob),
                )
                report.added += 1
            else:
                self.db.execute("UPDATE files SET mtime_ns = ?, size = ?, sha256 = ?, problem = ?, blob = ? WHERE id = ?",
                                (st.mtime_ns, st.size, st.sha256, st.problem, blob, row["id"]))
                report.updated += 1
                if st.quarantined and row["has_content"]:
                    self._forget_content(row["id"])
            if row is None or row["problem"] != st.problem:
                log.warning("vault-mem: %s: %s", quoted(st.path), st.problem)
            return
        if row is not None and row["has_content"] and row["content_sha256"] == st.sha256:
            # Same bytes as the indexed version (a touch, or a broken file restored).
            self.db.execute("UPDATE files SET mtime_ns = ?, size = ?, sha256 = ?, problem = NULL, blob = ? WHERE id = ?",
                            (st.mtime_ns, st.size, st.sha256, blob, row["id"]))
            report.updated += row["problem"] is not None
            report.unchanged += row["problem"] is None
            return
        m = st.memory
        created, updated = iso(m.created), iso(m.updated)  # type: ignore[attr-defined]
        sort_date = written_by(updated or created, st.mtime_ns)
        expires = iso(m.expires)  # type: ignore[attr-defined]
        tags, supersedes = m.tags, m.supersedes  # type: ignore[attr-defined]
        desc, body = m.description, m.body  # type: ignore[attr-defined]
        embed_sha = hashlib.sha256(terms.document_text(desc, body, sort_date).encode("utf-8")).hexdigest()
        conflict_of = m.meta.get("conflict_of")  # type: ignore[attr-defined]
        values = (st.key, st.type, TYPE_RANK[st.type], st.mtime_ns, st.size, st.sha256, st.sha256,
                  desc, created, updated, sort_date, int(m.pinned), expires,  # type: ignore[attr-defined]
                  json.dumps(tags), m.scope, m.source, json.dumps(supersedes), body, embed_sha,  # type: ignore[attr-defined]
                  conflict_of if isinstance(conflict_of, str) and conflict_of else None, blob)
        cols = ("key, type, type_rank, mtime_ns, size, sha256, content_sha256, description, created, updated, "
                "sort_date, pinned, expires, tags, scope, source, supersedes, body, embed_sha256, conflict_of, blob")
        if row is None:
            cur = self.db.execute(
                f"INSERT INTO files(path, {cols}, has_content, problem) VALUES (?, {','.join('?' * 21)}, 1, NULL)",
                (st.path, *values),
            )
            file_id = cur.lastrowid
            report.added += 1
        else:
            file_id = row["id"]
            sets = ", ".join(f"{c.strip()} = ?" for c in cols.split(","))
            old_embed = self.db.execute("SELECT embed_sha256, vec_model FROM files WHERE id = ?", (file_id,)).fetchone()
            self.db.execute(f"UPDATE files SET {sets}, has_content = 1, problem = NULL WHERE id = ?", (*values, file_id))
            if old_embed["embed_sha256"] != embed_sha or row["key"] != st.key:
                self.vectors.drop_vector(file_id)
            self.db.execute("DELETE FROM fts WHERE rowid = ?", (file_id,))
            self.db.execute("DELETE FROM tags WHERE file_id = ?", (file_id,))
            self.db.execute("DELETE FROM supersedes WHERE file_id = ?", (file_id,))
            report.updated += 1
        self.db.execute("INSERT INTO fts(rowid, description, body, extra) VALUES (?, ?, ?, ?)",
                        (file_id, desc, body, terms.keyword_extra(st.key, tags, sort_date)))
        self.db.executemany("INSERT OR IGNORE INTO tags(file_id, tag) VALUES (?, ?)", [(file_id, t) for t in tags])
        self.db.executemany("INSERT OR IGNORE INTO supersedes(file_id, target) VALUES (?, ?)",
                            [(file_id, t) for t in supersedes])

    def _forget_content(self, file_id: int) -> None:
        """Drop every trace of a row's text (a quarantined file: its last good version too, so
        the row cannot be listed, found or embedded); the problem row itself stays."""
        self.vectors.drop_vector(file_id)
        for sql in ("DELETE FROM fts WHERE rowid = ?", "DELETE FROM tags WHERE file_id = ?",
                    "DELETE FROM supersedes WHERE file_id = ?"):
            self.db.execute(sql, (file_id,))
        self.db.execute(
            "UPDATE files SET has_content = 0, content_sha256 = NULL, description = NULL, created = NULL, "
            "updated = NULL, sort_date = NULL, pinned = 0, expires = NULL, tags = NULL, scope = NULL, "
            "source = NULL, supersedes = NULL, body = NULL, embed_sha256 = NULL, conflict_of = NULL "
            "WHERE id = ?", (file_id,))

    def _remove(self, path: str, touched_keys: set[str]) -> bool:
        row = self.db.execute("SELECT id, key FROM files WHERE path = ?", (path,)).fetchone()
        if row is None:
            return False
        touched_keys.add(row["key"])
        fid = row["id"]
        self.vectors.drop_vector(fid)
        for sql in ("DELETE FROM fts WHERE rowid = ?", "DELETE FROM tags WHERE file_id = ?",
                    "DELETE FROM supersedes WHERE file_id = ?", "DELETE FROM files WHERE id = ?"):
            self.db.execute(sql, (fid,))
        self.db.execute("DELETE FROM changes WHERE path = ?", (path,))
        return True

    def resolve_shared_keys(self) -> bool:
        """Work out again the owner of each key two files or more hold, as indexing them does
        (:attr:`key_owner`): for a change of what decides it that changes no file (the person's
        approval of an author). True when an owner changed. One query when no key is shared."""
        with self.db.write():
            keys = [r[0] for r in self.db.execute(
                "SELECT key FROM files WHERE has_content GROUP BY key HAVING count(*) > 1").fetchall()]
            before = self.db.conn.total_changes
            if keys:
                self._resolve_keys(keys)
            return self.db.conn.total_changes != before

    def _resolve_keys(self, keys: Iterable[str]) -> None:
        """Per key, one path with content owns it (the one :attr:`key_owner` names, else the
        alphabetically first); the others are duplicates."""
        found = {key: self.db.execute(
            "SELECT id, path, has_content, duplicate_of, usable FROM files WHERE key = ? ORDER BY path", (key,)
        ).fetchall() for key in keys}
        held = {key: [r["path"] for r in rows if r["has_content"]] for key, rows in found.items()}
        shared = {key: paths for key, paths in held.items() if len(paths) > 1}
        # asked once for all the keys two files hold: a push of many costs one look at their authors
        owners = self.key_owner(shared) if shared and self.key_owner is not None else {}
        for key, rows in found.items():
            owner = owners.get(key)
            if owner not in held[key]:
                owner = held[key][0] if held[key] else None
            for r in rows:
                dup = None
                if r["has_content"] and r["path"] != owner:
                    dup = owner
                usable = int(bool(r["has_content"]) and dup is None)
                if (r["duplicate_of"], r["usable"]) != (dup, usable):
                    self.db.execute("UPDATE files SET duplicate_of = ?, usable = ? WHERE id = ?", (dup, usable, r["id"]))
                    if dup:
                        log.warning("vault-mem: %s duplicates key '%s' of %s", quoted(r["path"]), key, quoted(dup))

    # -- reconcile -------------------------------------------------------------------------

    def reconcile(self, *, progress: Progress | None = None, embed: bool | None = None) -> ReconcileReport:
        """Bring the rows in line with the files under the five type folders.

        Cheap when nothing changed. ``progress(done, total)`` is called while files are read
        and again while vectors are made (two passes, each from 0 to its total).

        New rows are keyword-searchable at once. Their vectors are made here when ``embed`` is
        True, or (the default, None) a bounded share of them when the embedder is already loaded
        in this process or was passed in (:meth:`VectorStore.make_owed`, the one rule); otherwise
        by the next :meth:`recall` or ``vectors.embed_pending()``. So ``list``, ``get`` and INDEX.md
        never load the model.
        """
        self.follow_replaced_file()
        try:
            return self._reconcile(progress=progress, embed=embed)
        except dbmod.database_error() as exc:
            if dbmod.is_busy(exc):  # another process held the write lock past the busy timeout
                raise dbmod.busy_error(self._db_path, exc) from exc
            if not dbmod.is_damage(exc):
                raise
            self._recover(exc)
            return self._reconcile(progress=progress, embed=embed)

    def _recover(self, exc: BaseException) -> None:
        """The db broke while in use. A damaged keyword index in a sound file is rebuilt from
        the ``files`` rows (the embedding cache and vectors stay); anything else: move the file
        aside and start a fresh one (rebuilt by the caller)."""
        if self.repair_fts(str(exc)):
            return
        self.db.close()
        dbmod.repair(self._db_path, str(exc))
        self._reconnect()

    def _reconnect(self) -> None:
        self.db = dbmod.connect(self._db_path, made_for=self.root)
        self._opened = _file_id(self._db_path)
        self._rendered = None  # its stamp names the old connection, whose id a new one may reuse
        self.vectors.reconnect(self.db)

    def follow_replaced_file(self) -> None:
        """A connection reads the file it opened: when ``index.db`` at the path is another file
        now (git wrote a commit's over it, then a command removed that and made it again; a
        damaged one moved aside by another process), a long-lived process (the daemon) would
        go on reading and writing a file no other process sees. Opened again, through the
        check that the file is this machine's (:func:`~vault_mem.index.db.connect`)."""
        if self._opened is None or _file_id(self._db_path) == self._opened or self.db.conn.in_transaction:
            return
        log.info("vault-mem: the index database %s was replaced; opening it again", self._db_path)
        with contextlib.suppress(Exception):
            self.db.close()
        self._reconnect()

    def _reconcile(self, *, progress: Progress | None, embed: bool | None) -> ReconcileReport:
        report = ReconcileReport()
        gate = gate_fingerprint()
        if self.get_meta("secret_gate") != gate:
            # rows indexed under other secret rules (an older vault-mem): read every file again,
            # so a file those rules let through is quarantined now (unchanged text is not re-embedded)
            with self.db.write():
                self.db.execute("UPDATE files SET mtime_ns = -1")
                self.db.set_meta("secret_gate", gate)
        # the no-change check: GNU find's listing against the last one where it can, else a stat
        # of every file here (index/listing.py); then the rows' scan sum (index/scansum.py)
        listed = listing.list_folders(self.root)
        last = listing.Snapshot.read(self._db_path.parent) if listed is not None else None
        moved = listed.moved_from(last) if listed is not None and last is not None else None
        within = self._within(moved) if moved is not None else None
        if moved is not None and within is not None:
            (todo, gone), count, kept = within, moved.count, listing.Snapshot(listed.raw, moved.count, moved.total)
        else:
            found = listed.scan() if listed is not None else None
            if found is None:
                listed, found = None, self._scan()
            total, count = scansum.scan_total(found), len(found)
            if scansum.matches(self.db, count, total):
                # the rows hold exactly these (path, mtime, size): nothing to read (index/scansum.py)
                todo, gone = [], []
            else:
                todo, gone = self._differing(found.as_dict(), total)
            if moved is not None:  # moved since the last listing, the row as the record: read again
                todo = moved.again(todo)
            kept = listing.Snapshot(listed.raw, count, total) if listed is not None else None
        report.unchanged = count - len(todo)
        self._process(sorted(todo), gone, report, progress)
        if kept is not None and (last is None or last.raw != kept.raw or (last.count, last.total) != (
                kept.count, kept.total)):
            kept.write(self._db_path.parent)  # for the next read: after the files it named were read
        report.embedded = self.vectors.make_owed(embed, progress=progress if report.changed else None)
        report.problems = self.problems()
        return report

    def _within(self, moved: listing.Moved) -> tuple[list[str], list[str]] | None:
        """(paths to read, paths gone) when the rows differ from the listing only at the paths
        whose record changed since the last listing (``moved``): the rows' stored sum, less those
        rows' terms, equals the listing's sum less its terms for the same paths (the argument of
        index/scansum.py, on all other rows at once); None when it does not, or the stored sum is
        not current (the caller compares every row)."""
        stored = scansum.current(self.db)
        if stored is None:
            return None
        paths = moved.paths()
        rows = scansum.sigs(self.db, paths) if paths else {}
        if scansum.generation(self.db) != stored[0]:
            return None  # a row changed meanwhile: the two reads are not of one state
        rows_rest = stored[2] - sum(scansum.term(p, *sig) for p, sig in rows.items())
        files_rest = moved.total - sum(scansum.term(p, *sig) for p, sig in moved.now.items())
        if stored[1] - len(rows) != moved.count - len(moved.now) or (rows_rest - files_rest) % scansum.Q:
            return None
        todo = moved.again([p for p, sig in moved.now.items() if rows.get(p) != sig])
        return todo, [p for p in rows if p not in moved.now]

    def _differing(self, on_disk: dict[str, tuple[int, int]], total: int) -> tuple[list[str], list[str]]:
        """(paths on disk whose row is missing or differs, paths whose file is gone), by one
        pass over the stored (path, mtime, size), as plain tuples from the covering index (at
        100k memories a second dict of them, or a Row object per row, cost more than the scan
        of the folders). Records the rows' scan sum on the way, so the next read with nothing
        changed reads no row."""
        gen = scansum.generation(self.db)  # before the rows: a change after it leaves the sum stale
        todo_set = set(on_disk)
        gone = []
        count, extra = 0, 0
        for path, mtime_ns, size in self.db.tuples("SELECT path, mtime_ns, size FROM files"):
            count += 1
            sig = on_disk.get(path)
            if sig is None:
                gone.append(path)
                extra += scansum.term(path, mtime_ns, size)
            elif sig[0] == mtime_ns and sig[1] == size:
                todo_set.discard(path)
            else:
                extra += scansum.term(path, mtime_ns, size)
        todo = [p for p in on_disk if p in todo_set]
        if gen is not None:
            # the rows' sum: the scan's, less the files whose row differs or is missing, plus
            # the rows that differ or whose file is gone
            value = total + extra - sum(scansum.term(p, *on_disk[p]) for p in todo)
            scansum.record(self.db, gen, count, value)
        return todo, gone

    def refresh_paths(self, rel_paths: Iterable[str], *, embed: bool | None = None) -> ReconcileReport:
        """Re-read just these vault-relative paths (upsert, or delete when the file is gone)."""
        report = ReconcileReport()
        todo: list[str] = []
        gone: list[str] = []
        for rel in dict.fromkeys(str(p).replace(os.sep, "/") for p in rel_paths):
            if not is_memory_path(rel):
                continue
            (todo if os.path.lexists(self.root / rel) else gone).append(rel)
        self._process(todo, gone, report, None)
        report.embedded = self.vectors.make_owed(embed)
        report.problems = self.problems()
        return report

    def _change_dates(self, states: Iterable[FileState | None]) -> dict[str, str | None]:
        """What the ``changes`` table must say for the files whose content is new here
        ({path: ISO date, or None to drop its row}; a path left out keeps its row)."""
        out: dict[str, str | None] = {}
        asked: list[tuple[str, int, bool]] = []
        for st in states:
            if st is None or st.memory is None or st.problem is not None:
                continue
            row = self.db.execute("SELECT sha256, content_sha256 FROM files WHERE path = ?", (st.path,)).fetchone()
            if row is not None and row["content_sha256"] == st.sha256:
                continue  # the same content as indexed (a touch): its date stands
            m = st.memory
            dated = iso(m.updated) or iso(m.created) or ""  # type: ignore[attr-defined]
            if self.change_dates is None or st.mtime_ns < 0 or \
                    dt.date.fromtimestamp(st.mtime_ns / 1e9).isoformat() <= dated:
                out[st.path] = None  # `updated:` is as late as the file: it dates the memory
            else:
                asked.append((st.path, st.mtime_ns, row is not None))
        if asked and self.change_dates is not None:
            out.update(self.change_dates(asked))
        return out

    def _process(self, todo: list[str], gone: list[str], report: ReconcileReport, progress: Progress | None) -> None:
        total = len(todo)
        for start in range(0, total, BATCH_FILES):
            states = [s for s in (self._read(p) for p in todo[start:start + BATCH_FILES])]
            dates = self._change_dates(states)
            touched: set[str] = set()
            with self.db.write():
                kept = scansum.before(self.db, todo[start:start + BATCH_FILES])
                for rel, st in zip(todo[start:start + BATCH_FILES], states):
                    if st is None:
                        report.removed += self._remove(rel, touched)
                    else:
                        self._apply(st, report, touched)
                scansum.after(self.db, kept)
                for rel, changed in dates.items():
                    if changed is None:
                        self.db.execute("DELETE FROM changes WHERE path = ?", (rel,))
                    else:
                        self.db.execute("INSERT OR REPLACE INTO changes(path, changed) VALUES (?, ?)", (rel, changed))
                self._resolve_keys(touched)
            if progress:
                progress(min(start + BATCH_FILES, total), total)
        if gone:
            touched = set()
            with self.db.write():
                kept = scansum.before(self.db, gone)
                for rel in gone:
                    report.removed += self._remove(rel, touched)
                scansum.after(self.db, kept)
                self._resolve_keys(touched)

    def rebuild(self, *, progress: Progress | None = None) -> ReconcileReport:
        """Drop every row and index all files again (the embedding cache is kept).

        A kept last good version of a file that cannot be parsed now is the one thing the files
        cannot give back, so those rows survive (and are re-checked against their file)."""
        kept = "SELECT id FROM files WHERE has_content = 1 AND problem IS NOT NULL"
        with self.db.write():
            for table, col in (("fts", "rowid"), ("tags", "file_id"), ("supersedes", "file_id")):
                self.db.execute(f"DELETE FROM {table} WHERE {col} NOT IN ({kept})")
            self.vectors.drop_vectors_for_rebuild(kept)
            self.db.execute("DELETE FROM files WHERE NOT (has_content = 1 AND problem IS NOT NULL)")
            self.db.execute("UPDATE files SET mtime_ns = -1, sha256 = ''")  # force a re-read
            self.vectors.new_epoch()
        return self.reconcile(progress=progress, embed=True)

    # -- reading rows ----------------------------------------------------------------------

    @staticmethod
    def _index_where(trusted: str = "by_path NOT IN (SELECT value FROM json_each(:hidden))") -> str:
        """The rows INDEX.md lists; ``trusted``: ``by_path`` is none of the paths left out of an
        agent's context (:meth:`_hidden_sql`), which supersede nothing there either."""
        return ("f.usable = 1 AND f.type_rank < 4 AND (f.expires IS NULL OR f.expires >= :today) "
                "AND f.conflict_of IS NULL "
                f"AND f.key NOT IN ({queries.trusted_superseded_keys_sql(trusted).replace('?', ':today', 1)})")

    def _hidden_sql(self, hidden: Collection[str]) -> tuple[str, str, dict]:
        """The conditions that ``f.path`` and ``by_path`` are none of ``hidden``, and their bound
        value: a :class:`~vault_mem.index.pathsets.PathTable` that answers on this connection is
        asked for the rows it keeps in (once per judgement, not a JSON list parsed and tested
        per row of every statement: issue 29)."""
        path, bound = left_out_sql(self.db, "f.path", hidden, ":hidden")
        by_path, _ = left_out_sql(self.db, "by_path", hidden, ":hidden")
        return path, by_path, {"hidden": bound[0]} if bound else {}

    def entries_for_index(self, today: dt.date, type_rank: int | None = None, *,
                          hidden: Collection[str] = ()) -> Iterator[IndexEntry]:
        """Usable memories in INDEX.md order: pinned, type, newest first, key; or only the
        section ``type_rank`` (pinned first, then newest). Lazy. ``hidden``: paths left out."""
        path, by_path, extra = self._hidden_sql(hidden)
        skip = "" if not hidden else f" AND {path}"
        # the rows kept in a table are few (where nearly every memory is a peer's): read from
        # there and sorted, not by a walk of the whole order's index past the hidden ones
        driven = bool(hidden) and not extra
        if type_rank is not None:
            # two range scans of files_index_order (pinned, type_rank, ...): each in the order wanted
            for pinned in (1, 0):
                yield from self._index_rows("AND f.pinned = :pinned AND f.type_rank = :rank" + skip,
                                            {"today": today.isoformat(), "pinned": pinned, "rank": type_rank, **extra},
                                            by_path, driven)
            return
        yield from self._index_rows(skip, {"today": today.isoformat(), **extra}, by_path, driven)

    def _index_rows(self, where: str, params: dict, trusted: str, driven: bool = False) -> Iterator[IndexEntry]:
        cur = self.db.conn.cursor()
        cur.execute(
            "SELECT f.key, f.type, f.path, f.description, f.sort_date, f.pinned FROM files f "
            f"{'' if driven else 'INDEXED BY files_index_order'} WHERE {self._index_where(trusted)} {where} "
            "ORDER BY f.pinned DESC, f.type_rank, f.sort_date DESC, f.key",
            params,
        )
        try:
            for r in cur:
                yield IndexEntry(key=r[0], type=r[1], path=r[2], description=r[3], date=r[4], pinned=bool(r[5]))
        finally:
            cur.close()

    def count_for_index(self, today: dt.date, type_rank: int | None = None) -> int:
        """How many entries :meth:`entries_for_index` yields in total (or in section ``type_rank``).

        Runs on every write (INDEX.md's "+N more" lines), so it never visits every row: the
        listable rows are counted by triggers (``db.m007_index_counter``, ``m009`` per section),
        and only the expired and the superseded ones, found through their indexes, are taken off."""
        listable = dbmod.listable_sql("f.")
        day = today.isoformat()
        name = dbmod.listed_counter(type_rank)
        counted = self.db.execute("SELECT n FROM counters WHERE name = ?", (name,)).fetchone()
        section, params = ("", ()) if type_rank is None else (" AND f.type_rank = ?", (type_rank,))
        if counted is None:  # the counter row is derived state too: recount (and keep) it
            with self.db.write():
                self.db.execute("INSERT OR REPLACE INTO counters(name, n) "
                                f"SELECT ?, count(*) FROM files f WHERE {listable}{section}", (name, *params))
            return self.count_for_index(today, type_rank)
        expired = self.db.execute(
            f"SELECT count(*) FROM files f INDEXED BY files_expires WHERE f.expires < ? AND {listable}{section}",
            (day, *params)).fetchone()[0]
        superseded = self.db.execute(
            f"SELECT count(*) FROM files f INDEXED BY files_key WHERE f.key IN ({queries.SUPERSEDED_KEYS_SQL}) "
            f"AND (f.expires IS NULL OR f.expires >= ?) AND {listable}{section}", (day, day, *params)).fetchone()[0]
        return counted[0] - expired - superseded

    def count_for_index_by_scan(self, today: dt.date, type_rank: int | None = None) -> int:
        """The same number as :meth:`count_for_index`, counted row by row (for ``doctor``)."""
        section = "" if type_rank is None else " AND f.type_rank = :rank"
        return self.db.execute(f"SELECT count(*) FROM files f INDEXED BY files_index_order WHERE {self._index_where()}"
                               f"{section}", {"today": today.isoformat(), "rank": type_rank, "hidden": "[]"}).fetchone()[0]

    def render_index(self, *, budget_tokens: int, today: dt.date | None = None,
                     hidden: Collection[str] = (), author_of: Callable[[str], str] | None = None,
                     for_file: bool = True) -> str:
        """The bytes of INDEX.md for the files this sidecar reflects (see indexmd.render_index):
        each section read lazily, in its own order, and counted by its own counter. For the
        agent's session context: ``hidden``, paths of memories left out (and out of the counts);
        ``author_of(path)``, the author each line names (asked only for the lines read);
        ``for_file`` False, without the file's note to agents that read it themselves."""
        today = today or dt.date.today()
        plain = not hidden and author_of is None and for_file
        stamp = self._render_stamp(budget_tokens, today) if plain and not self.db.conn.in_transaction else None
        if stamp is not None and self._rendered is not None and self._rendered[0] == stamp:
            return self._rendered[1]
        text = self._render(budget_tokens=budget_tokens, today=today, hidden=hidden, author_of=author_of,
                            for_file=for_file)
        if stamp is not None:
            self._rendered = (stamp, text)
        return text

    def _render_stamp(self, budget_tokens: int, today: dt.date) -> tuple:
        """What an INDEX.md rendered from the rows depends on besides the rows' code: this
        connection (a recovery replaces it), its changes so far (``total_changes``: a rolled-back
        change counts too, so a view :meth:`render_index_with` applied never matches), every other
        connection's commits (``PRAGMA data_version`` moves with each), the budget and the day."""
        return (*self.changes_stamp(), budget_tokens, today)

    def file_identity(self) -> tuple[str, tuple[int, int]] | None:
        """Which index file this connection reads, as a value two connections (two vaults of
        this folder in one process) compare: the random id the file was given when made here
        (:meth:`~vault_mem.index.db.Database.made_id`) and its (device, inode) when opened. A
        replaced file (deleted and made again, moved aside, a copy put back) is another value:
        what is counted in its rows (the judge log's entries) counts from elsewhere. None when
        it cannot be told (no id: nothing is taken for the same file)."""
        made = self.db.made_id()
        if made is None or self._opened is None:
            return None
        return made, self._opened

    def changes_stamp(self) -> tuple[int, int, int]:
        """A value that moves with every change to the rows, whoever makes it: this connection
        (a recovery replaces it), its changes so far (:meth:`Database.changes`: a rolled-back
        change counts too; vectors and a read's cache of git's answers do not, as nothing kept
        under this stamp reads them) and every other connection's commits (``PRAGMA
        data_version``). What is worked out from the rows alone (vectors aside) holds while it
        stays."""
        return self.db.rows_stamp()

    def _render(self, *, budget_tokens: int, today: dt.date, hidden: Collection[str],
                author_of: Callable[[str], str] | None, for_file: bool) -> str:
        rows = {type_: self.entries_for_index(today, TYPE_RANK[type_], hidden=hidden) for type_, _ in SECTIONS}
        sections = rows if author_of is None else \
            {t: (dataclasses.replace(e, author=author_of(e.path)) for e in gen) for t, gen in rows.items()}
        totals = {type_: self._count_shown(today, TYPE_RANK[type_], hidden) for type_, _ in SECTIONS}
        try:
            return render_index(sections, totals, budget_tokens=budget_tokens, for_file=for_file)
        finally:
            for gen in rows.values():
                gen.close()

    def _count_shown(self, today: dt.date, type_rank: int, hidden: Collection[str]) -> int:
        """How many lines section ``type_rank`` has with the ``hidden`` paths left out (which
        also supersede nothing there): counted by the triggers when none is (every write), else
        by scanning the section (an agent's context, once a session)."""
        if not hidden:
            return self.count_for_index(today, type_rank)
        path, by_path, extra = self._hidden_sql(hidden)
        return self.db.execute(
            f"SELECT count(*) FROM files f WHERE {self._index_where(by_path)} AND f.type_rank = :rank AND {path}",
            {"today": today.isoformat(), "rank": type_rank, **extra}).fetchone()[0]

    def render_index_with(self, overrides: dict[str, bytes | None] | Callable[[], dict[str, bytes | None]], *,
                          budget_tokens: int, today: dt.date | None = None) -> str:
        """:meth:`render_index` as if the files ``overrides`` names held those bytes (None: no
        file): applied in a transaction that is rolled back, so the same rules make it. A
        callable is called inside that transaction: what it reads of the rows is what the
        render sees (no other process's reconcile in between)."""
        if not callable(overrides) and not overrides:
            return self.render_index(budget_tokens=budget_tokens, today=today)
        text = ""
        today = today or dt.date.today()
        try:
            with self.db.write():
                before = self.db.conn.total_changes
                touched: set[str] = set()
                report = ReconcileReport()
                changes = overrides() if callable(overrides) else overrides
                for rel, data in sorted(changes.items()):
                    if data is None:
                        self._remove(rel, touched)
                    else:
                        self._apply(state_from_bytes(rel, data, max_bytes=self.config.max_file_bytes, policy=self.policy),
                                    report, touched)
                self._resolve_keys(touched)
                text = self.render_index(budget_tokens=budget_tokens, today=today)
                if self.db.conn.total_changes == before:  # no view applied: the rows as they stand
                    # (no other connection commits while this one holds the write lock; a
                    # rollback of no change moves neither stamp)
                    self._rendered = (self._render_stamp(budget_tokens, today), text)
                raise _RollBack
        except _RollBack:
            pass
        return text

    def superseder_paths(self) -> list[str]:
        """The usable memories that supersede another key: the only ones whose author recall
        must know (a peer's ``supersedes`` hides nothing, DESIGN §7). Few in any vault, so
        recall asks for their authors, never for every memory's. (CROSS JOIN: read from the
        small table; the planner chose to scan every file, 12 ms at 10k.)"""
        return [r[0] for r in self.db.execute(
            "SELECT DISTINCT g.path FROM supersedes s CROSS JOIN files g ON g.id = s.file_id "
            "WHERE g.usable = 1 AND g.key != s.target ORDER BY g.path")]

    def list_entries(self, *, type: str | None = None, tags: list[str] | None = None) -> list[dict]:
        """Every usable memory (expired ones too), by type order then key, optionally filtered
        by type and by all of ``tags``: key, type, description, date, path, tags, pinned."""
        clauses, params = ["f.usable = 1"], []
        if type:
            clauses.append("f.type = ?")
            params.append(type)
        held, wanted = queries.tag_clauses(tags)
        clauses += held
        params += wanted
        rows = self.db.execute(
            "SELECT key, type, description, sort_date, path, tags, pinned FROM files f "
            f"WHERE {' AND '.join(clauses)} ORDER BY type_rank, key", params)
        return [{"key": r[0], "type": r[1], "description": r[2], "date": r[3], "path": r[4],
                 "tags": json.loads(r[5] or "[]"), "pinned": bool(r[6])} for r in rows]

    def lookup(self, key: str) -> tuple[str, str] | None:
        """(type, rel path) of the usable memory with this key (expired ones included)."""
        r = self.db.execute("SELECT type, path FROM files WHERE key = ? AND usable = 1", (key,)).fetchone()
        return (r[0], r[1]) if r else None

    def holds_memories(self) -> bool:
        """Whether any file is indexed at all (False for a fresh clone's or a deleted sidecar
        before its first reconcile, and for a vault with no memory)."""
        return self.db.execute("SELECT 1 FROM files LIMIT 1").fetchone() is not None

    def keys(self) -> list[str]:
        return [r[0] for r in self.db.execute("SELECT key FROM files WHERE usable = 1 ORDER BY key")]

    def problems(self) -> list[Problem]:
        """Files the sidecar cannot use, with the reason (and whether an old version is kept)."""
        out = []
        cols = "SELECT path, problem, duplicate_of, has_content FROM files"
        # Two partial-index lookups (an OR or a sorted UNION would scan every row).
        rows = {r["path"]: r for q in (f"{cols} WHERE problem IS NOT NULL", f"{cols} WHERE duplicate_of IS NOT NULL")
                for r in self.db.execute(q)}
        for _, r in sorted(rows.items()):
            if r["problem"]:
                reason = r["problem"]
                if r["has_content"] and not r["duplicate_of"]:
                    reason += " (its last good version stays searchable)"
            else:
                reason = f"duplicate key: {r['duplicate_of']} has the same key; rename or delete one of them"
            out.append(Problem(path=r["path"], reason=reason))
        return out

    def duplicates_of(self, paths: Iterable[str]) -> dict[str, str]:
        """``{path: the path that owns its key}`` of those of ``paths`` that are out of use as a
        second file of a key (see :meth:`_resolve_keys`)."""
        wanted = sorted(set(paths))
        out: dict[str, str] = {}
        for i in range(0, len(wanted), 500):
            part = wanted[i:i + 500]
            out.update({r["path"]: r["duplicate_of"] for r in self.db.execute(
                f"SELECT path, duplicate_of FROM files WHERE duplicate_of IS NOT NULL AND path IN "
                f"({','.join('?' * len(part))})", part)})
        return out

    def get_meta(self, name: str) -> str | None:
        return self.db.get_meta(name)

    def set_meta(self, name: str, value: str | None) -> None:
        self.db.set_meta(name, value)

    # -- recall ----------------------------------------------------------------------------

    def recall(self, query: str, *, k: int = 5, type: str | None = None, tags: list[str] | None = None,
               scope: str | None = None, include_expired: bool = False, today: dt.date | None = None,
               distrusted: Collection[str] = (), queries: Sequence[str] = (),
               excluded: Collection[str] = ()) -> RecallResult:
        """Hybrid search (see :mod:`vault_mem.index.search`); never raises on the query text.
        ``distrusted``: paths whose ``supersedes`` hides nothing (peers' memories); ``excluded``:
        paths left out of the search (peers' memories, for the prompt hook); ``queries``:
        alternative phrasings searched with the query (:func:`~vault_mem.index.search.run_recall`)."""
        from vault_mem.index.search import KeywordIndexDamageError  # lazy: a write imports no search

        args = {"k": k, "type": type, "tags": tags, "scope": scope, "include_expired": include_expired,
                "today": today, "distrusted": distrusted, "queries": queries, "excluded": excluded}
        try:
            return self._recall(query, **args)
        except KeywordIndexDamageError as exc:
            # Rebuilt if FTS5's check fails; if it passes, a concurrent write raced the search:
            # ask again, and rebuild only if the index still cannot answer.
            self.repair_fts(str(exc))
            try:
                return self._recall(query, **args)
            except KeywordIndexDamageError as again:
                self.repair_fts(str(again), force=True)
            # rebuilt from the files just now: a probe that still misses is a probe the index
            # cannot answer, not damage; the answer stands (never an internal error)
            return self._recall(query, **args, check_index=False)
        except dbmod.database_error() as exc:
            if not dbmod.is_damage(exc):
                raise
            self._recover(exc)
            self._reconcile(progress=None, embed=None)
            return self._recall(query, **args)

    def _recall(self, query: str, *, k: int, type: str | None, tags: list[str] | None, scope: str | None,
                include_expired: bool, today: dt.date | None, distrusted: Collection[str] = (),
                queries: Sequence[str] = (), check_index: bool = True,
                excluded: Collection[str] = ()) -> RecallResult:
        from vault_mem.index import search  # lazy: a write imports no search

        return search.run_recall(self, query, k=k, type=type, tags=tags, scope=scope,
                                 include_expired=include_expired, today=today or dt.date.today(),
                                 distrusted=distrusted, queries=queries, check_index=check_index,
                                 excluded=excluded)

    # -- the keyword index -----------------------------------------------------------------

    def fts_problem(self) -> str | None:
        """Why the FTS5 keyword index is damaged (its integrity check), or None."""
        return dbmod.fts_problem(self.db)

    def repair_fts(self, reason: str, *, force: bool = False) -> bool:
        """Rebuild a damaged keyword index from the ``files`` rows, as a damaged vector table is
        rebuilt from the embedding cache; True when it was rebuilt. Only when the rest of the
        file is sound (SQLite's quick_check) and the index fails FTS5's integrity check (or
        ``force``: a search found rows missing that the check may not see)."""
        problem = self.fts_problem()
        if problem is None and not force:
            return False
        if dbmod.quick_check_fails(self._db_path, except_fts=True) is not None:
            return False  # the file itself is damaged: the caller moves it aside
        log.warning("vault-mem: the keyword index is damaged (%s); rebuilding it from the indexed memories",
                    problem or reason)
        with self.db.write():
            dbmod.recreate_fts(self.db)
            rows = self.db.execute("SELECT id, key, tags, sort_date, description, body FROM files "
                                   "WHERE has_content = 1").fetchall()
            self.db.executemany(
                "INSERT INTO fts(rowid, description, body, extra) VALUES (?, ?, ?, ?)",
                [(r["id"], r["description"], r["body"],
                  terms.keyword_extra(r["key"], json.loads(r["tags"] or "[]"), r["sort_date"])) for r in rows])
        return True

    # -- doctor ----------------------------------------------------------------------------

    def doctor(self) -> list[str]:
        """Differences between this sidecar and a fresh rebuild from the files ([] if none)."""
        import shutil  # lazy: only doctor needs them (start-up time, issue 29)
        import tempfile

        tmp = Path(tempfile.mkdtemp(prefix="vault-mem-doctor-"))
        try:
            fresh = Sidecar(self.root, self.config, embedder=None, _db_path=tmp / "index.db")
            fresh.key_owner = self.key_owner  # the one rule of which file of a key is in use
            try:
                self.vectors.embed_pending()  # an explicit check: make any vectors still owed first
                fresh.reconcile(embed=False)
                return self._compare(fresh)
            finally:
                fresh.close()
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    _DOCTOR_COLS = ("key", "type", "sha256", "has_content", "usable", "problem", "duplicate_of", "description",
                    "created", "updated", "sort_date", "pinned", "expires", "tags", "scope", "source",
                    "supersedes", "body", "embed_sha256", "conflict_of")

    # What a kept last good version holds that a fresh rebuild of the broken file cannot.
    _KEPT_VERSION_COLS = frozenset(_DOCTOR_COLS) - {"key", "type", "sha256", "problem", "duplicate_of"}

    def _compare(self, fresh: Sidecar) -> list[str]:
        damaged = self.fts_problem()
        if damaged is not None:
            # Said first, then repaired (as recall would), so the comparison sees the rebuilt index.
            if self.repair_fts(damaged):
                return [f"keyword index: damaged ({damaged}); rebuilt it from the indexed memories"] \
                    + self._compare(fresh)
            return [(f"keyword index: damaged ({damaged}) and so is the database file; delete "
                    f"{self._db_path} (it is rebuilt from the memory files)")]
        cols = ", ".join(self._DOCTOR_COLS)
        mine = {r[0]: tuple(r[1:]) for r in self.db.execute(f"SELECT path, {cols} FROM files")}
        theirs = {r[0]: tuple(r[1:]) for r in fresh.db.execute(f"SELECT path, {cols} FROM files")}
        out: list[str] = []
        for path in sorted(mine.keys() | theirs.keys()):
            a, b = mine.get(path), theirs.get(path)
            if a == b:
                continue
            if b is None:
                out.append(f"{path}: indexed, but the file is gone")
            elif a is None:
                out.append(f"{path}: on disk, but not indexed")
            else:
                fields = [c for c, x, y in zip(self._DOCTOR_COLS, a, b) if x != y]
                if set(fields) <= self._KEPT_VERSION_COLS and a[self._DOCTOR_COLS.index("has_content")] \
                        and not b[self._DOCTOR_COLS.index("has_content")] and a[self._DOCTOR_COLS.index("problem")]:
                    continue  # a kept last good version (DESIGN §5): reported by problems(), not a drift
                out.append(f"{path}: index differs from the file ({', '.join(fields)})")
        ok = self.db.execute(
            "SELECT count(*) FROM files f JOIN fts ON fts.rowid = f.id WHERE f.has_content = 1 "
            "AND fts.description IS f.description AND fts.body IS f.body").fetchone()[0]
        n_content = self.db.execute("SELECT count(*) FROM files WHERE has_content = 1").fetchone()[0]
        n_fts = self.db.execute("SELECT count(*) FROM fts").fetchone()[0]
        if ok != n_content or n_fts != n_content:
            out.append(f"keyword index: {n_fts} rows, {ok} of {n_content} memories match their file")
        today = dt.date.today()
        for rank, where in ((None, ""), *((TYPE_RANK[t], f" ({title})") for t, title in SECTIONS)):
            counted, scanned = self.count_for_index(today, rank), self.count_for_index_by_scan(today, rank)
            if counted != scanned:
                out.append(f"INDEX.md counter{where}: {counted} listed memories counted, {scanned} in the index")
        return out + self.vectors.doctor()
