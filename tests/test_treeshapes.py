"""The shapes of big folder trees kept between processes (store/treeshapes.py) and the trees read
with them, unparsed (``ParsedTree.from_sizes``): the same bytes and answers as a parsed tree, and
no record trusted that this machine did not sign for the very tree it names."""

import json
import os
import random
import subprocess
import sys
from pathlib import Path

from conftest import git

from vault_mem import Vault
from vault_mem.store import treeshapes
from vault_mem.store.tree import ParsedTree, _entry_bytes
from vault_mem.store.treeshapes import TreeShapes

BLOB, TREE = 0o100644, 0o040000
_CHARS = "abcdefghijklmnopqrstuvwxyz0123456789._-"


def _name(rng: random.Random) -> str:
    first = rng.choice("abcdefghijklmnopqrstuvwxyz0123456789_")
    return first + "".join(rng.choice(_CHARS) for _ in range(rng.randrange(0, 12)))


def _oid(rng: random.Random) -> str:
    return "%040x" % rng.getrandbits(160)


def _tree_bytes(entries: dict[str, tuple[int, str]]) -> bytes:
    """A tree's bytes in git's order (a folder sorts as if its name ended in "/")."""
    order = sorted(entries, key=lambda n: n.encode() + (b"/" if entries[n][0] == TREE else b""))
    return b"".join(_entry_bytes((bytes.fromhex(entries[n][1]), entries[n][0], n)) for n in order)


def test_a_tree_read_with_its_shape_edits_and_answers_as_the_parsed_tree():
    """Puts (new, replaced, a file that becomes a folder and back), removes (present and absent)
    and gets on a tree read with its entry lengths give the bytes, lengths and answers the
    parsed tree gives, step after step; its entries, once asked for, are the parsed ones."""
    for seed in range(12):
        rng = random.Random(seed)
        entries = {_name(rng): (rng.choice((BLOB, BLOB, TREE)), _oid(rng)) for _ in range(rng.randrange(1, 60))}
        entries[".gitignore"] = (BLOB, _oid(rng))
        raw = _tree_bytes(entries)
        parsed = ParsedTree.parse(raw)
        lazy = ParsedTree.from_sizes(raw, list(parsed.sizes))
        assert lazy is not None and lazy.plain and lazy._entries is None
        for _ in range(40):
            names = [*entries, _name(rng)]
            name = rng.choice(names)
            op = rng.random()
            if op < 0.5:
                mode = rng.choice((BLOB, TREE))
                oid = _oid(rng)
                parsed, lazy = parsed.put(name, mode, oid), lazy.put(name, mode, oid)
                entries[name] = (mode, oid)
            elif op < 0.8:
                parsed, lazy = parsed.remove(name), lazy.remove(name)
                entries.pop(name, None)
            assert lazy.get(name) == parsed.get(name)
            assert lazy.raw == parsed.raw == _tree_bytes(entries)
            assert lazy.sizes == parsed.sizes and len(lazy) == len(parsed) == len(entries)
            assert lazy._entries is None  # never parsed to edit it
        assert lazy.entries == ParsedTree.parse(lazy.raw).entries and lazy.keys == parsed.keys


def test_a_shape_that_does_not_fit_the_bytes_is_not_used():
    """``from_sizes`` takes only lengths that tile the bytes into plain entries: lengths moved
    by one byte between two entries, lengths of other bytes, a tree with an entry that is not
    plain (an alias of ``.git``) are refused (None: the caller parses)."""
    rng = random.Random(7)
    raw = _tree_bytes({_name(rng) + str(i): (BLOB, _oid(rng)) for i in range(50)})
    sizes = ParsedTree.parse(raw).sizes
    for i in range(len(sizes) - 1):
        moved = list(sizes)
        moved[i] += 1
        moved[i + 1] -= 1
        assert ParsedTree.from_sizes(raw, moved) is None
    assert ParsedTree.from_sizes(raw, sizes[:-1]) is None
    assert ParsedTree.from_sizes(raw, [*sizes[:3], 0, *sizes[3:]]) is None  # an empty entry: no entry
    alias = _entry_bytes((bytes(20), BLOB, "a")) + b"100644 .GIT.\0" + bytes(20)
    assert ParsedTree.from_sizes(alias, [len(alias) - 33, 33]) is None
    assert ParsedTree.from_sizes(b"", []) is None


def test_a_record_counts_only_for_its_own_tree_and_when_signed_here(tmp_path):
    """A record gives back the lengths kept for that tree at that folder, and nothing for
    another tree or folder, a record whose lengths were changed, one sealed for another vault,
    a small tree (not worth one), or a link in the record's place."""
    root = Vault.init(tmp_path / "v").root
    shapes = TreeShapes(root, root / ".vault-mem")
    oid, other = "1" * 40, "2" * 40
    sizes = [40 + i % 7 for i in range(treeshapes.MIN_ENTRIES)]
    shapes.record("facts/", oid, sizes)
    assert shapes.sizes("facts/", oid) == sizes == shapes.sizes("facts", oid)
    assert shapes.sizes("facts", other) is None
    assert shapes.sizes("notes", oid) is None
    path = root / ".vault-mem" / treeshapes.SHAPES_DIR / "facts"
    outer = json.loads(path.read_bytes())
    payload = json.loads(outer["payload"])
    payload["sizes"] = payload["sizes"][:-4] + "0100"
    outer["payload"] = json.dumps(payload, sort_keys=True)
    path.write_text(json.dumps(outer))
    assert shapes.sizes("facts", oid) is None
    TreeShapes(tmp_path, root / ".vault-mem").record("facts", oid, sizes)  # sealed for another root
    assert shapes.sizes("facts", oid) is None
    shapes.record("notes", oid, sizes[:treeshapes.MIN_ENTRIES - 1])
    assert not (path.parent / "notes").exists()
    path.unlink()
    os.symlink(tmp_path / "elsewhere", path)
    assert shapes.sizes("facts", oid) is None
    shapes.record("facts", oid, sizes)  # refused, and the write it serves goes on
    assert not (tmp_path / "elsewhere").exists()


#: run in a new process, as the CLI runs: one write; prints the most entries of a tree it parsed
_WRITE = """
import sys
from vault_mem.store import tree
parsed = [0]
for name in ("_plain_entries", "_entries"):
    real = getattr(tree, name)
    def counted(raw, real=real):
        found = real(raw)
        if found is not None:
            parsed[0] = max(parsed[0], len(found[0] if isinstance(found, tuple) else found))
        return found
    setattr(tree, name, counted)
from vault_mem.adapters.cli import main
assert main(sys.argv[1:]) == 0
print(parsed[0])
"""


def _one_shot_write(root: Path, key: str) -> int:
    env = {**os.environ, "VAULT_MEM_DAEMON": "off"}
    done = subprocess.run([sys.executable, "-c", _WRITE, "--vault", str(root), "remember", key,
                           "--description", f"The {key} fact", "--body", "b"],
                          capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    return int(done.stdout.strip().splitlines()[-1])


def test_a_one_shot_write_into_a_big_folder_splices_its_tree_without_parsing_it(tmp_path):
    """A one-shot ``vault-mem remember`` into a folder of 1,200 memories parses that folder's
    tree only when no write of this vault made it (the first write, the first after a person's
    commit there); the next process's write reads it with the shape the last one recorded. Each
    commit's tree is git's own for the files (``git fsck --strict``, a clean status, the folder
    listed as git lists it)."""
    root = Vault.init(tmp_path / "v").root
    for i in range(1200):
        (root / "facts" / f"fact-{i:04d}.md").write_text(
            f"---\ndescription: Fact number {i}\ncreated: 2026-01-01\nupdated: 2026-01-01\nsource: user\n---\nbody {i}\n")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "a person's facts")
    assert _one_shot_write(root, "new-a") >= 1200  # no record yet: parsed, then recorded
    assert _one_shot_write(root, "new-b") < 1200
    assert _one_shot_write(root, "fact-0007") < 1200  # an update in place
    (root / "facts" / "fact-0100.md").unlink()
    git(root, "commit", "-qam", "a person removes one")
    assert _one_shot_write(root, "new-c") >= 1200  # a tree another git made: parsed
    assert _one_shot_write(root, "new-d") < 1200
    assert git(root, "status", "--porcelain") == ""
    git(root, "fsck", "--strict", "--no-dangling")
    listed = git(root, "ls-tree", "--name-only", "HEAD:facts").split()
    assert listed == sorted({".gitkeep", *(f"fact-{i:04d}.md" for i in range(1200) if i != 100),
                             *(f"new-{c}.md" for c in "abcd")})
    assert "The fact-0007 fact" in git(root, "show", "HEAD~1:facts/fact-0007.md")


def test_a_warm_process_records_the_first_tree_it_makes_on_one_it_read(tmp_path):
    """In a process that goes on writing (the API, the daemon), the first write into a folder
    records the tree it makes; the next ones, each on the tree the last one made, do not
    rewrite the record; a write on a tree someone else made (a person's commit) records again.
    The records stay each for the tree they name (:meth:`TreeShapes.sizes`)."""
    root = Vault.init(tmp_path / "v").root
    for i in range(treeshapes.MIN_ENTRIES + 10):
        (root / "notes" / f"n-{i:04d}.md").write_text(f"---\ndescription: Note {i}\nsource: user\n---\nb\n")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "a person's notes")
    shapes = TreeShapes(root, root / ".vault-mem")
    with Vault(root) as vault:
        vault.remember("w-1", "First", "b", type="note")
        first = git(root, "rev-parse", "HEAD:notes").strip()
        assert shapes.sizes("notes", first) is not None
        vault.remember("w-2", "Second", "b", type="note")
        assert shapes.sizes("notes", first) is not None  # not rewritten
        assert shapes.sizes("notes", git(root, "rev-parse", "HEAD:notes").strip()) is None
        (root / "notes" / "n-0001.md").unlink()
        git(root, "commit", "-qam", "a person removes one")
        vault.remember("w-3", "Third", "b", type="note")
        assert shapes.sizes("notes", git(root, "rev-parse", "HEAD:notes").strip()) is not None
    assert git(root, "status", "--porcelain") == ""
    git(root, "fsck", "--strict", "--no-dangling")
