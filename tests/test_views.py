"""What a reader sees (vault_mem.model.views, index.queries and the read paths): age, "may be
outdated", expiry and supersession, in `get`, recall hits and INDEX.md."""

from __future__ import annotations

import datetime as dt
import json

import pytest
from conftest import cli
from fakes import write_memory

from vault_mem.adapters.tools import get_view
from vault_mem.index.queries import supersession_chain
from vault_mem.model.memory import Memory
from vault_mem.model.views import memory_view

TODAY = dt.date.today()
LONG_AGO = TODAY - dt.timedelta(days=400)
RECENT = TODAY - dt.timedelta(days=10)


@pytest.fixture(autouse=True)
def _today() -> None:
    """Today as each test starts, not as the module was imported: a run that crosses midnight
    (a CI run started at 23:57 UTC) made every age one day more than the test expected."""
    global TODAY, LONG_AGO, RECENT
    TODAY = dt.date.today()
    LONG_AGO = TODAY - dt.timedelta(days=400)
    RECENT = TODAY - dt.timedelta(days=10)


def view(vault, key, **kw):
    return get_view(vault, key, **kw)


# -- staleness ---------------------------------------------------------------------------------
def test_fresh_memory_has_age_and_no_flags(vault):
    write_memory(vault.root, "fresh", "A fresh fact", created=RECENT, updated=RECENT)
    v = view(vault, "fresh")
    assert v["age_days"] == 10 and v["flags"] == [] and v["notes"] == []
    assert v["superseded_by"] == [] and v["current"] is None and v["supersedes"] == []


def test_old_memory_may_be_outdated_per_type(vault):
    write_memory(vault.root, "laptop", "Laptop is a ThinkPad", created=LONG_AGO, updated=LONG_AGO)
    mid = TODAY - dt.timedelta(days=200)
    write_memory(vault.root, "old-fact", "Some fact", created=mid, updated=mid)
    write_memory(vault.root, "old-pref", "Prefers dark mode", type_="preference", created=mid, updated=mid)
    v = view(vault, "laptop")
    assert v["age_days"] == 400 and v["flags"] == ["stale"]
    (note,) = v["notes"]
    assert note.startswith("may be outdated: last updated 400 days ago") and "after 180 days" in note
    assert view(vault, "old-fact")["flags"] == ["stale"]  # facts: 180 days
    assert view(vault, "old-pref")["flags"] == []  # preferences: 365 days


def test_age_counts_from_updated_not_created(vault):
    write_memory(vault.root, "k", "Kept current", created=LONG_AGO, updated=RECENT)
    v = view(vault, "k")
    assert v["age_days"] == 10 and v["flags"] == []


def test_recall_hits_carry_age_and_stale(vault):
    write_memory(vault.root, "laptop", "Laptop is a ThinkPad", created=LONG_AGO, updated=LONG_AGO)
    write_memory(vault.root, "phone", "Phone is a Pixel", created=RECENT, updated=RECENT)
    hits = {h.key: h for h in vault.recall("laptop thinkpad phone pixel").hits}
    assert hits["laptop"].flags == ["stale"] and hits["laptop"].age_days == 400
    assert hits["phone"].flags == [] and hits["phone"].age_days == 10


def test_cli_get_and_recall_show_age_and_outdated_note(tmp_path):
    root = tmp_path / "v"
    assert cli("init", str(root)).returncode == 0
    write_memory(root, "laptop", "Laptop is a ThinkPad", "Bought in 2024.", created=LONG_AGO, updated=LONG_AGO)
    r = cli("--vault", str(root), "get", "laptop")
    assert r.returncode == 0, r.stderr
    assert "400 days old  [stale]" in r.stdout and "note: may be outdated" in r.stdout
    data = json.loads(cli("--vault", str(root), "get", "laptop", "--json").stdout)
    assert data["age_days"] == 400 and data["flags"] == ["stale"]
    r = cli("--vault", str(root), "recall", "thinkpad")
    assert "400 days old) [stale]" in r.stdout


# -- expiry ------------------------------------------------------------------------------------
def test_expired_memory_is_hidden_unless_asked_for(vault):
    write_memory(vault.root, "visa", "Visa for the Japan trip", expires=TODAY - dt.timedelta(days=1),
                 created=RECENT, updated=RECENT)
    write_memory(vault.root, "pass", "Passport renewal for the Japan trip", expires=TODAY,
                 created=RECENT, updated=RECENT)  # expires today: still valid today
    assert [h.key for h in vault.recall("japan trip").hits] == ["pass"]
    hidden = {h.key: h.flags for h in vault.recall("japan trip", include_expired=True).hits}
    assert hidden == {"visa": ["expired"], "pass": []}
    vault.regenerate_index()
    index = (vault.root / "INDEX.md").read_text()
    assert "- pass (" in index and "- visa (" not in index and "Visa for" not in index
    assert {r["key"] for r in vault.list()} == {"visa", "pass"}  # list shows everything on disk
    v = view(vault, "visa")
    assert v["flags"] == ["expired"]
    assert any(n.startswith(f"expired on {(TODAY - dt.timedelta(days=1)).isoformat()}: hidden from recall")
               for n in v["notes"])


# -- supersession --------------------------------------------------------------------------------
def test_superseded_memory_is_hidden_and_get_shows_the_chain(vault):
    root = vault.root
    write_memory(root, "vim", "Uses Vim as the editor", created=RECENT, updated=RECENT)
    write_memory(root, "neovim", "Uses Neovim as the editor", supersedes=["vim"], created=RECENT, updated=RECENT)
    write_memory(root, "helix", "Uses Helix as the editor", supersedes=["neovim"], created=RECENT, updated=RECENT)
    assert [h.key for h in vault.recall("editor vim neovim helix").hits] == ["helix"]
    flags = {h.key: h.flags for h in vault.recall("editor vim neovim helix", include_expired=True).hits}
    assert flags == {"vim": ["superseded"], "neovim": ["superseded"], "helix": []}
    vault.regenerate_index()
    index = (vault.root / "INDEX.md").read_text()
    assert "- helix (" in index and "- neovim (" not in index and "- vim (" not in index

    old = view(vault, "vim")
    assert old["flags"] == ["superseded"] and old["superseded_by"] == ["neovim"] and old["current"] == "helix"
    assert any("superseded by neovim (chain: vim -> neovim -> helix): read 'helix'" in n for n in old["notes"])
    mid = view(vault, "neovim")
    assert mid["superseded_by"] == ["helix"] and mid["current"] == "helix" and mid["supersedes"] == ["vim"]
    assert "supersedes vim" in mid["notes"]
    new = view(vault, "helix")
    assert new["flags"] == [] and new["notes"] == ["supersedes neovim"] and new["current"] is None
    assert supersession_chain(vault.sidecar.db, "vim") == ["neovim", "helix"]


def test_memory_view_shows_what_it_is_given_without_a_vault():
    """The model layer does no I/O: the caller passes the supersession it looked up."""
    mem = Memory(key="vim", type="fact", meta={"description": "Uses Vim", "created": RECENT, "updated": RECENT})
    v = memory_view(mem, stale_after={"fact": 180}, superseded_by=["neovim"], chain=["neovim", "helix"], today=TODAY)
    assert v["flags"] == ["superseded"] and v["superseded_by"] == ["neovim"] and v["current"] == "helix"
    assert v["age_days"] == 10 and v["notes"] == [
        ("superseded by neovim (chain: vim -> neovim -> helix): read 'helix' for the current version; "
         "this one is hidden from recall and INDEX.md")]
    fresh = memory_view(mem, stale_after={"fact": 180}, superseded_by=[], chain=[], today=TODAY)
    assert fresh["flags"] == [] and fresh["current"] is None and fresh["notes"] == []


def test_supersession_by_an_expired_memory_does_not_hide(vault):
    write_memory(vault.root, "office", "Office is in Berlin", created=RECENT, updated=RECENT)
    write_memory(vault.root, "office-temp", "Office is temporarily in Hamburg", supersedes=["office"],
                 expires=TODAY - dt.timedelta(days=1), created=RECENT, updated=RECENT)
    assert [h.key for h in vault.recall("office berlin").hits] == ["office"]
    assert view(vault, "office")["flags"] == []


def test_supersession_cycle_terminates(vault):
    write_memory(vault.root, "a", "A says one thing", supersedes=["b"], created=RECENT, updated=RECENT)
    write_memory(vault.root, "b", "B says another", supersedes=["a"], created=RECENT, updated=RECENT)
    v = view(vault, "a")
    assert v["superseded_by"] == ["b"] and supersession_chain(vault.sidecar.db, "a") == ["b"]


def test_cli_get_shows_superseded_by(tmp_path):
    root = tmp_path / "v"
    assert cli("init", str(root)).returncode == 0
    assert cli("--vault", str(root), "remember", "neovim", "-d", "Uses Neovim").returncode == 0
    r = cli("--vault", str(root), "remember", "helix", "-d", "Uses Helix", "--supersedes", "neovim")
    assert r.returncode == 0, r.stderr
    r = cli("--vault", str(root), "get", "neovim")
    assert "[superseded]" in r.stdout and "note: superseded by helix" in r.stdout
    r = cli("--vault", str(root), "get", "helix")
    assert "note: supersedes neovim" in r.stdout


def test_an_expiry_that_is_not_a_date_is_refused_by_the_write_itself(vault):
    from vault_mem.errors import InvalidMemoryError

    with pytest.raises(InvalidMemoryError, match="YYYY-MM-DD"):
        vault.remember("trip", "Visa for the trip", extra={"expires": "next tuesday"})
    assert not (vault.root / "facts" / "trip.md").exists()
    vault.remember("trip", "Visa for the trip", extra={"expires": "2026-12-01"})
    assert "expires: 2026-12-01" in (vault.root / "facts" / "trip.md").read_text()
