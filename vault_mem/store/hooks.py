"""Install vault-mem's git hooks into the vault's repository, or repair them.

Each hook is a small ``sh`` script, rendered from the one template ``hooks/git/hook.in``. It
bakes in no path of the vault: it finds the vault when it runs, from the repository it runs in
(``git rev-parse --show-toplevel``) plus the vault's folder inside it (the prefix, relative), so
moving, copying (``cp -r``) or cloning a vault keeps its hooks checking that very vault. It runs
:data:`LAUNCH` (the Python that installed it), else ``vault-mem`` on PATH.

Nothing in a vault is ever run (DESIGN §7). A hook runs in the repository's top folder, whose
files a peer's commits fill; ``python -m vault_mem`` there would put that folder first on
``sys.path``, and a peer's ``vault_mem/__main__.py``, ``yaml.py`` or ``sitecustomize.py`` would run
as the person (and stand in for the pre-commit secret gate). So the hook starts Python with ``-P``
(the working folder or script folder never joins ``sys.path``) and ``-E`` (no ``PYTHONPATH`` and
friends, where an empty entry means the working folder too), and a two-line bootstrap adds
vault-mem's own folder when it runs from a source checkout. Not ``-I``: that also drops the user's
site-packages, where ``pip install --user`` puts vault-mem; that folder is the person's own. The
fallback, the ``vault-mem`` console script, puts its own ``bin/`` folder on ``sys.path``, never the
working folder; the hook unsets ``PYTHONPATH`` for it and sets ``PYTHONSAFEPATH``. A hook of ours
in an older form (:func:`unsafe_hooks`) is named by every command and rewritten by :func:`install`.

``post-commit`` is plain shell alone (:data:`SHELL_ONLY`): it records the commit as made here
and starts nothing, so a person's commit costs no Python.

When neither exists (the virtual environment moved or was deleted), the other post-* hooks say
so and do nothing: they only refresh derived state, and git ignores their exit status anyway. The
pre-commit hook is the secret and format gate, so it does not pass silently: a commit that
stages anything inside the vault is refused with a message naming ``vault-mem hooks install``
(and ``--no-verify`` to skip the check once); a commit that touches nothing of the vault (a
project's own files, when the vault is a folder of a bigger repository) still goes through. A
gate that quietly lets a credential into history, which is then hard to purge, costs more than
one refused commit that says exactly how to fix it.

:func:`install` is idempotent and reports what it changed. A hook file that is not vault-mem's
is never overwritten: it is moved to ``NAME.before-vault-mem`` and ours runs it first with the
same arguments (its exit status still stops the commit), so a person's own hook keeps working.
A hook of an older vault-mem (an absolute vault path, ``python -m vault_mem``) is rewritten.

A hooks folder the project owns (``core.hooksPath`` naming a folder of the repository's work tree
outside the vault: husky's ``.husky/``, lefthook's, a ``.githooks/``) gets nothing from vault-mem:
its files are the team's, a ``git commit -a`` would publish anything written there (with this
machine's Python path), and a teammate's change to them would replace the hook that records this
machine's commits. Nor does a hooks folder outside the repository (``core.hooksPath`` in the
person's global configuration): every repository of the person runs it, and hooks rendered for one
vault's folder found "no vault" in every other (a second project's init rewrote them for its own
folder, and the first project's pre-commit let a credential in, while its commands said nothing was
missing). :func:`shared_hooks` tells both. The hooks then go to the git folder (:func:`own_hooks_dir`, never cloned, never
in a commit), rendered to find the ``git`` that runs them among their ancestors (the project's
hook runner stands between), and the person adds to each of the project's hook files one line
(:func:`project_line`) that runs ours when it is there: the same line on every teammate's machine,
naming no path of this one, doing nothing where vault-mem is not installed. :func:`install` and
``doctor`` print the lines; every command names the hooks whose line is missing.
"""

from __future__ import annotations

import os
import re
import shlex
import site
import stat
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from vault_mem.errors import VaultMemError
from vault_mem.platform import procs
from vault_mem.store.arrivals import PER_WORKTREE
from vault_mem.store.files import read_own

if TYPE_CHECKING:
    from vault_mem.store.git import GitRepo

MARKER = "# vault-mem hook:"
#: Each git hook vault-mem installs, and what it does (the comment at the top of the script).
HOOK_PURPOSES = {
    "pre-commit": "refuses broken memory files (file and reason) and regenerates and stages INDEX.md\n"
                  "# (`git commit --no-verify` skips it once)",
    "prepare-commit-msg": "marks a commit that concludes a squash, cherry-pick or revert for post-commit's\n"
                          "# check (git runs it even for `git commit --no-verify`, which skips pre-commit)",
    "post-commit": "records the commit as made on this machine, so that its author counts as this\n"
                   "# machine's person (a commit fetched from elsewhere counts only if its author is approved)",
    "post-merge": "brings the search index and INDEX.md up to date after a merge or pull",
    "post-checkout": "brings the search index and INDEX.md up to date after a checkout",
    "post-rewrite": "records the rewritten commits of this machine's as made here and brings the search\n"
                    "# index and INDEX.md up to date after an amend or rebase",
}
HOOK_NAMES = tuple(HOOK_PURPOSES)
#: The hooks that are plain shell alone (recording a commit costs a person's ``git commit`` no
#: Python): their script ends with their record (:data:`RECORD`) and never starts vault-mem.
SHELL_ONLY = frozenset({"prepare-commit-msg", "post-commit"})
#: The hooks that start ``vault-mem hook NAME``: the git names that command handles
#: (:data:`vault_mem.adapters.hook_names.HOOK_NAMES`).
LAUNCHED = tuple(name for name in HOOK_NAMES if name not in SHELL_ONLY)
TEMPLATE = "hook.in"
#: First thing in pre-commit, before Python starts: tell agent writers which ``git commit``
#: (the hook's parent) is under way, so that none moves the branch under it (see
#: ``GitRepo.person_commit``); git re-reads HEAD only at its very end.
#: Plain shell, no process started: it is what stands between git reading HEAD and agents
#: knowing a commit is under way.
_MARK_LINE = ('if [ -n "$GIT_DIR" ]; then D=$GIT_DIR; elif [ -d .git ]; then D=.git; '
              'else read -r _ D < .git 2>/dev/null; fi; '
              '[ -n "$D" ] && echo "$PPID" > "$D/vault-mem-commit" 2>/dev/null')
#: The record of commits made on this machine (vault_mem/store/provenance.py), kept by plain shell
#: (per hook: the lines that keep it; the only part of a hook besides its name and purpose that differs)
#: so that a person's commit costs no Python: post-commit adds HEAD, unless the commit is an amend
#: (HEAD's reflog says so) or a pick of a rebase (left to post-rewrite); post-rewrite adds each new
#: commit whose old ones were recorded (a peer's commit rebased or amended here stays a peer's: `git
#: commit --amend` after a fast-forward pull keeps the peer's author and text, and post-commit once
#: recorded it as made here).
#: A commit git makes by replaying a change onto other texts (a rebase's pick, a cherry-pick, a
#: revert) holds texts git merged: the person's edit of a memory and a peer's edit of the same
#: memory become one new text, which would be first seen in a commit recorded here and so pass as
#: the person's (the peer's lines in the prompt hook). So such a commit is recorded only when every
#: text it leaves (INDEX.md aside: generated) existed before it: for a rebase, in the commits it
#: replayed (or the text the replay started from at that path is the one the old commit started
#: from: nothing else came in, so an edit while the rebase stood is the person's); for a
#: cherry-pick or a revert, in any commit at that path that the texts' origins read from any worktree
#: (:func:`vault_mem.store.history.shared_tips`: never another worktree's HEAD, nor the stash); for a
#: ``git merge --squash`` concluded with ``git commit``, in the squashed tip. Otherwise it is not this machine's, and its memories
#: are judged as a peer's until edited here (tests/test_peer_attacks7.py).
#: A pick or revert is told by git's state, never by the words of its log line (a conflicted
#: revert concluded with ``--continue`` is logged ``commit: Revert "..."``; a person's message may
#: say "revert"): git's own commits of one by their log line's exact start (``cherry-pick: ``,
#: ``revert: ``, ``commit (cherry-pick): ``), and a ``git commit`` that concludes one (also after
#: ``revert -n`` or ``cherry-pick -n``, which leave only ``MERGE_MSG``) by what pre-commit sees:
#: ``CHERRY_PICK_HEAD``, ``REVERT_HEAD``, a ``sequencer`` folder, ``MERGE_MSG`` with no merge or
#: rebase under way, and ``SQUASH_MSG`` (git removes them all before post-commit runs). pre-commit
#: leaves its marks (``vault-mem-replay``; ``vault-mem-squash`` with the squashed tip's id) headed
#: by its parent's process id, the ``git commit`` that runs post-commit and post-rewrite too: a
#: mark counts only for that very commit (one left by a commit that never was counts for nothing)
#: and goes at the next post-commit or post-rewrite. An amend's marks are checked by post-rewrite,
#: which that ``git commit`` runs after post-commit.
#: A merge the person concludes with ``git commit`` (a ``git pull`` or ``git merge`` stopped on a
#: conflict; git's own merge commit runs no post-commit and is never recorded) holds the texts git
#: merged too: the peer's line appended to a memory whose description the person edited is in
#: neither parent. So a merge commit is recorded only when each text it leaves that no parent
#: holds is at a path the other parents left as at their merge base (the person's own edit while
#: the merge stood); otherwise it is not this machine's (tests/test_peer_attacks8.py).
_RECORD_DIR = 'R=$(git rev-parse --git-common-dir 2>/dev/null) && R="$R/vault-mem" && (umask 077; mkdir -p "$R")'
#: ``image C``: what commit C leaves, one line a path it changes ("MODE BLOB<tab>PATH"), INDEX.md aside;
#: ``squashed C T``: each text C leaves is squashed tip T's; ``replayed C``: each existed before C at
#: its path; ``merged M``: each text merge M leaves that no parent holds is at a path the other
#: parents did not change since their merge base; ``S`` and ``X``: this commit's marks (the tip,
#: else empty; 1 for a pick or revert).
#: a worktree's own refs (store/arrivals.PER_WORKTREE), as the replay check's awk and find leave them out
_OWN = "|".join(PER_WORKTREE)
_OWN_LOGS = " ".join(f"! -path 'refs/{name}/*'" for name in PER_WORKTREE)
_CHECKS = ("image() { git -c core.quotePath=false diff-tree -r --no-commit-id --no-renames \"$1\" 2>/dev/null | "
           "awk -F'\\t' -v skip=\"${VAULT_PREFIX:+$VAULT_PREFIX/}INDEX.md\" "
           "'{ split($1, a, \" \"); if ($2 != skip) print a[2] \" \" a[4] \"\\t\" $2 }'; }\n"
           'squashed() {\n'
           '    [ "$2" != - ] || return 1\n'
           '    image "$1" | while IFS="$(printf \'\\t\')" read -r MB P; do\n'
           '        case "${MB#* }" in *[!0]*) ;; *) continue ;; esac\n'
           '        [ "$(git rev-parse -q --verify "$2:$P" 2>/dev/null)" = "${MB#* }" ] || exit 1\n'
           '    done\n'
           '}\n'
           'tips() {\n'
           "    # the commits whose texts count as existing before, read as store/history.shared_tips reads them:\n"
           "    # the shared refs but the stash and a worktree's own, the main worktree's HEAD, their logs; never\n"
           "    # a linked worktree's HEAD or log (vault/authors.Origins reads those only in that worktree, and\n"
           "    # `git worktree remove` deletes them): a text only they held would be the pick's, made here\n"
           '    K=$(git rev-parse --git-common-dir 2>/dev/null) || return 0\n'
           "    { git for-each-ref --format='%(objectname) %(refname)' 2>/dev/null |\n"
           f"          awk '$2 != \"refs/stash\" && $2 !~ /^refs\\/({_OWN})\\// {{ print $1 }}'\n"
           '      cat "$K/HEAD" "$K/vault-mem/replayed-from" 2>/dev/null\n'
           '      ( cd "$K/logs" 2>/dev/null || exit 0; cat HEAD 2>/dev/null\n'
           f"        find refs -type f ! -path refs/stash {_OWN_LOGS} -exec cat {{}} + 2>/dev/null ) |\n"
           "          awk -F'[ ]' '{ if (NF >= 2) print $1; if (NF >= 3) print $2 }'\n"
           "    } | awk '/^[0-9a-f]+$/ && /[^0]/ && (length($0) == 40 || length($0) == 64) { print $0 \"^{commit}\" }' |\n"
           "        git cat-file --batch-check='%(objectname) %(objecttype)' 2>/dev/null | awk '$2 == \"commit\" { print $1 }'\n"
           '}\n'
           'replayed() {\n'
           '    # one git log for every text C leaves (a path by path look, one `git log --all` each, held a\n'
           "    # revert of 1,000 memories for 11 s, 5 s of CPU): each (blob, path) must be in another commit's change;\n"
           "    # --full-history: simplified with all the paths at once, a merge's first parent went unwalked for one\n"
           '    # path that the path alone would walk (any commit at that path counts, whatever parent a merge keeps)\n'
           "    # log.follow=false and one path a line: a person's log.follow makes a one-path log follow renames,\n"
           "    # whose line pairs the new text with the old path\n"
           "    # --literal-pathspecs: a top-level name starting with ':' is no pathspec magic\n"
           '    C=$(git rev-parse "$1" 2>/dev/null) || return 1\n'
           '    W=$(image "$C" | awk -F\'\\t\' \'{ split($1, m, " "); if (m[2] ~ /[^0]/) print m[2] "\\t" $2 }\')\n'
           '    [ -n "$W" ] || return 0\n'
           '    T=$(tips)\n'
           '    [ -n "$T" ] || return 1\n'
           '    F=$({ printf \'%s\\n--\\n\' "$W"\n'
           '      { printf \'%s\\n--\\n\' "$T"; printf \'%s\\n\' "$W" | cut -f2; } |\n'
           "          git --literal-pathspecs -c core.quotePath=false -c log.follow=false log --stdin --full-history --no-renames --no-abbrev --format='commit %H' --raw 2>/dev/null\n"
           '    } | awk -F\'\\t\' -v c="$C" \'\n'
           '        !inlog { if ($0 == "--") { inlog = 1; next }\n'
           '               if (substr($2, 1, 1) == "\\"") bad = 1\n'
           '               need[$0] = 1; next }\n'
           '        /^commit / { h = substr($0, 8); next }\n'
           '        /^:/ && NF == 2 && h != c { split($1, f, " ")\n'
           '                         if ((f[3] "\\t" $2) in need && !((f[3] "\\t" $2) in seen)) seen[f[3] "\\t" $2] = h\n'
           '                         if ((f[4] "\\t" $2) in need && !((f[4] "\\t" $2) in seen)) seen[f[4] "\\t" $2] = h }\n'
           "        END { if (bad) exit 1; for (k in need) if (!(k in seen)) exit 1\n"
           "              for (k in need) if (!(seen[k] in out)) { out[seen[k]] = 1; print seen[k] } }') || return 1\n"
           "    # the commits that held them, not made here (nor kept already), stay named for the origins (history.shared_tips reads\n"
           "    # them): a branch deleted or a worktree removed before vault-mem reads the repository would leave\n"
           "    # the texts first seen in this commit, made here\n"
           '    K=$(git rev-parse --git-common-dir 2>/dev/null) || return 1\n'
           '    for E in "$K/vault-mem/local-commits" "$K/vault-mem/replayed-from"; do\n'
           '        [ -f "$E" ] && F=$(printf \'%s\\n\' "$F" | grep -vxF -f "$E")\n'
           '    done\n'
           '    [ -z "$F" ] || { (umask 077; mkdir -p "$K/vault-mem") && printf \'%s\\n\' "$F" >> "$K/vault-mem/replayed-from"; }\n'
           '}\n'
           'merged() {\n'
           '    # git lists the paths whose text differs from every parent\'s (-c): one process, however many\n'
           '    # files the merge brings (a path by path look took 43 s for a merge bringing 2,000)\n'
           '    N=$(git -c core.quotePath=false diff-tree -r -c --no-commit-id "$1" 2>/dev/null | '
           'awk -F\'\\t\' -v skip="${VAULT_PREFIX:+$VAULT_PREFIX/}INDEX.md" '
           '\'{ n = split($1, a, " "); if ($2 != skip && a[n - 1] ~ /[^0]/) print $2 }\')\n'
           '    [ -n "$N" ] || return 0\n'
           '    for Q in $(git rev-parse "$1^@" | tail -n +2); do\n'
           '        MB=$(git merge-base "$1^1" "$Q" 2>/dev/null) || return 1\n'
           '        printf \'%s\\n\' "$N" | while IFS= read -r P; do\n'
           '            [ "$(git rev-parse -q --verify "$MB:$P" 2>/dev/null)" = '
           '"$(git rev-parse -q --verify "$Q:$P" 2>/dev/null)" ] || exit 1\n'
           '        done || return 1\n'
           '    done\n'
           '}\n'
           'marks() {\n'
           '    [ -n "$G" ] || return 0\n'
           '    if [ -f "$G/vault-mem-squash" ]; then\n'
           '        [ "$(sed -n 1p "$G/vault-mem-squash")" = "$PPID" ] && { S=$(sed -n 2p "$G/vault-mem-squash"); S=${S:--}; }\n'
           '        rm -f "$G/vault-mem-squash"\n'
           '    fi\n'
           '    if [ -f "$G/vault-mem-replay" ]; then\n'
           '        [ "$(sed -n 1p "$G/vault-mem-replay")" = "$PPID" ] && X=1\n'
           '        rm -f "$G/vault-mem-replay"\n'
           '    fi\n'
           '}\n')
#: What a commit that concludes a squash, pick or revert leaves for post-commit (git removes its
#: trace before post-commit runs): left by pre-commit and again by prepare-commit-msg, which git
#: runs for every ``git commit``, ``--no-verify`` too (a squash of a peer's branch committed with
#: ``--no-verify`` left no mark: post-commit recorded the merged text, the peer's line in it, as
#: made here, and the peer's commit is in no history of its path: issue 23)
_MARKS_WORK = ('{ rm -f "$G/vault-mem-squash" "$G/vault-mem-replay"\n'
          '# a squash: its tip, the first "commit ID" line of SQUASH_MSG (commit messages are indented there)\n'
          'if [ -f "$G/SQUASH_MSG" ]; then { echo "$PPID"\n'
          '    sed -n "s/^commit \\([0-9a-f]\\{40,64\\}\\)\\$/\\1/p" "$G/SQUASH_MSG" | head -n 1; } > "$G/vault-mem-squash"\n'
          'fi\n'
          '# a cherry-pick or revert this commit concludes (git removes its trace before post-commit)\n'
          'if [ ! -d "$G/rebase-merge" ] && [ ! -d "$G/rebase-apply" ] && { [ -f "$G/CHERRY_PICK_HEAD" ] || '
          '[ -f "$G/REVERT_HEAD" ] || [ -d "$G/sequencer" ] || { [ -f "$G/MERGE_MSG" ] && [ ! -f "$G/MERGE_HEAD" ]; }; }; then\n'
          '    echo "$PPID" > "$G/vault-mem-replay"\n'
          'fi; } 2>/dev/null')
_MARKS = 'G=$(git rev-parse --git-dir 2>/dev/null) && ' + _MARKS_WORK
RECORD = {
    # pre-commit asks its top folder (for the template, which then asks no more) with its git
    # folder: one git, not two
    "pre-commit": ('G=; O=$(git rev-parse --show-toplevel --git-dir 2>/dev/null) && '
                   '{ IFS= read -r TOP; IFS= read -r G; } <<EOF\n'
                   '$O\n'
                   'EOF\n'
                   '[ -n "$G" ] || G=$(git rev-parse --git-dir 2>/dev/null)\n'
                   '[ -n "$G" ] && ' + _MARKS_WORK),
    "prepare-commit-msg": _MARKS + "\nexit 0",
    "post-commit": (_CHECKS +
                    '# one git for the folders, HEAD and its parents (one each was four git processes a commit)\n'
                    'S=; X=; G=; K=; H=; P1=; P2=\n'
                    'O=$(git rev-parse --git-dir --git-common-dir HEAD "HEAD^@" 2>/dev/null) && '
                    '{ IFS= read -r G; IFS= read -r K; IFS= read -r H; IFS= read -r P1; IFS= read -r P2; } <<EOF\n'
                    '$O\n'
                    'EOF\n'
                    '[ -n "$G" ] || exit 0\n'
                    'L=$(git reflog -1 --format=%gs HEAD 2>/dev/null)\n'
                    '# an amend: post-rewrite, which this git runs next, checks it with the marks and records it\n'
                    'case "$L" in "commit (amend): "*) exit 0;; esac\n'
                    'marks\n'
                    '# a rebase (or git am) under way: post-rewrite records what it replayed of this machine\'s\n'
                    'if [ -d "$G/rebase-merge" ] || [ -d "$G/rebase-apply" ]; then exit 0; fi\n'
                    '[ -n "$H" ] || exit 0\n'
                    'case "$L" in "cherry-pick: "*|"revert: "*|"commit (cherry-pick): "*) X=1;; esac\n'
                    'if [ -n "$S" ]; then squashed "$H" "$S" || exit 0; fi\n'
                    'if [ -n "$X" ]; then replayed "$H" || exit 0; fi\n'
                    'if [ -n "$P2" ]; then merged "$H" || exit 0; fi\n'
                    '[ -n "$K" ] && R="$K/vault-mem" && (umask 077; mkdir -p "$R") && echo "$H" >> "$R/local-commits"\n'
                    "exit 0"),
    "post-rewrite": (_CHECKS + 'G=$(git rev-parse --git-dir 2>/dev/null); S=; X=\n' + 'marks\n' + f'if {_RECORD_DIR}; then\n'
                     '    RW="$R/rewritten.$$"  # (not W: replayed() sets W; the shell has one scope)\n'
                     '    cat > "$RW"\n'
                     '    for NEW in $(cut -d " " -f 2 "$RW" | sort -u); do\n'
                     '        OK=1; : > "$RW.old"; OLDS=$(awk -v n="$NEW" \'$2 == n { print $1 }\' "$RW")\n'
                     '        for OLD in $OLDS; do\n'
                     '            grep -qx "$OLD" "$R/local-commits" 2>/dev/null || OK=\n'
                     '            image "$OLD" >> "$RW.old"\n'
                     '        done\n'
                     '        # an amend that concludes a squash, pick or revert: as post-commit checks one\n'
                     '        if [ -n "$OK" ] && [ "$1" = amend ]; then\n'
                     '            if [ -n "$S" ]; then squashed "$NEW" "$S" || OK=; fi\n'
                     '            if [ -n "$X" ]; then replayed "$NEW" || OK=; fi\n'
                     '        fi\n'
                     '        # a rebase that merged a text (a peer\'s edit of the same memory) leaves one no commit replayed\n'
                     '        # held, at a path whose text the replay started from differs (an edit while stopped does not)\n'
                     '        if [ -n "$OK" ] && [ "$1" = rebase ]; then\n'
                     '            image "$NEW" | while IFS= read -r L; do\n'
                     '                grep -qxF -- "$L" "$RW.old" && continue\n'
                     '                P=${L#*"$(printf \'\\t\')"}; B=$(git rev-parse -q --verify "$NEW^:$P" 2>/dev/null)\n'
                     '                for OLD in $OLDS; do\n'
                     '                    [ "$(git rev-parse -q --verify "$OLD^:$P" 2>/dev/null)" = "$B" ] && continue 2\n'
                     '                done\n'
                     '                exit 1\n'
                     '            done || OK=\n'
                     '        fi\n'
                     '        if [ -n "$OK" ]; then echo "$NEW" >> "$R/local-commits"; fi\n'
                     '    done\n'
                     '    rm -f "$RW" "$RW.old"\n'
                     'fi'),
}
#: What Python runs in a hook: ``sys.argv[1]`` is vault-mem's own folder (empty when installed),
#: put on ``sys.path`` unless it is there already (never ahead of the standard library otherwise).
BOOTSTRAP = ("import sys; d = sys.argv.pop(1); d and d not in sys.path and sys.path.insert(0, d); "
             "from vault_mem.adapters.cli import main; sys.exit(main())")
#: How a hook starts vault-mem (module docstring): nothing of the working folder on ``sys.path``.
LAUNCH = f'"$PYTHON" -E -P -c {shlex.quote(BOOTSTRAP)} "$VAULT_MEM_HOME"'
#: Where a person's own hook goes when ours takes its place (ours runs it first).
CHAINED_SUFFIX = ".before-vault-mem"
_PREFIX_LINE = re.compile(r"^VAULT_PREFIX=(.*)$", re.MULTILINE)
_PLACEHOLDER = re.compile(r"@([A-Z_]+)@")


def template_path() -> Path:
    """``hooks/git/hook.in``: inside the installed package, or at the repository root (editable)."""
    package = Path(__file__).resolve().parent.parent
    for base in (package, package.parent):
        candidate = base / "hooks" / "git" / TEMPLATE
        if candidate.is_file():
            return candidate
    raise VaultMemError("vault-mem's git hook template (hooks/git/hook.in) is missing from the installation; "
                        "reinstall vault-mem")


class RepoFolder(Protocol):
    """What the hooks need of a vault: its repository and its folder in it (``""`` at the top,
    else ``sub/``). A :class:`~vault_mem.vault.core.Vault` and a
    :class:`~vault_mem.store.workspace.Workspace` are both one."""

    @property
    def repo(self) -> GitRepo: ...

    @property
    def prefix(self) -> str: ...


def hooks_dir(vault: RepoFolder) -> Path:
    """Where git looks for this repository's hooks (honours ``core.hooksPath`` and worktrees)."""
    return Path(vault.repo.hooks_dir)


def _record(name: str, wrapped: bool = False) -> str:
    """Hook ``name``'s record lines (:data:`RECORD`), as a wrapped hook holds them (:func:`render`)."""
    text = RECORD.get(name, "")
    return text.replace("$PPID", "$VM_GIT_PID") if wrapped else text


#: the hooks' test for a vault whose vault.toml a commit deleted (hooks/git/hook.in): an older
#: hook looked for vault.toml alone, so a peer's deletion of it, taken by a plain `git pull`,
#: turned off the check of the person's commits for credentials while every command went on
VAULT_FOUND = '[ ! -f "$VAULT/.vault-mem/index.db" ]'


def unsafe_hooks(folder: Path, wrapped: bool = False) -> list[str]:
    """vault-mem's hooks in ``folder`` that an older vault-mem wrote: they start Python without
    :data:`LAUNCH` (``python -m vault_mem`` with the repository as the working folder), so a file
    a peer commits to the vault can run in their place, or keep the record of commits made here
    by older lines than :data:`RECORD`'s (which recorded a commit holding a text git merged from
    a peer's change as made here), or do nothing once a commit deletes vault.toml
    (:data:`VAULT_FOUND`). A few small reads, no process."""
    found = []
    for name in HOOK_NAMES:
        text = _read(folder / name)
        # a plain-shell hook of ours is unsafe only in a form that starts vault-mem another way
        starts = name not in SHELL_ONLY or f"hook {name}" in text
        if MARKER in text and ((starts and (LAUNCH not in text or VAULT_FOUND not in text))
                               or _record(name, wrapped) not in text):
            found.append(name)
    return found


def missing_hooks(folder: Path) -> list[str]:
    """vault-mem's hooks that are not in ``folder`` at all (a fresh clone: git does not clone
    hooks), so hand commits skip the secret and format gate. A few stats, no process."""
    return [name for name in HOOK_NAMES if MARKER not in _read(folder / name)]


def missing_hooks_notice(folder: Path, root: Path, toplevel: Path | None = None, git_dir: Path | None = None,
                         *, full: bool = False) -> str | None:
    """The one line a command run in a clone without vault-mem's hooks says, or None. Its fix is
    ``vault-mem init ROOT``, what a fresh clone needs (the hooks, INDEX.md's merge driver, the
    clone made private to its person), with the vault's path: init with no path makes a vault
    in the working folder. A hooks folder not the repository's own (``toplevel`` and ``git_dir``
    given, :func:`shared_hooks`): :func:`project_hooks_notice` (``full``: with the lines to add)."""
    if toplevel is not None and git_dir is not None and shared_hooks(folder, root, git_dir):
        return project_hooks_notice(folder, root, toplevel, git_dir, full=full)
    absent = missing_hooks(folder)
    if not absent:
        return None
    if len(absent) < len(HOOK_NAMES):  # ours installed by an older vault-mem (a hook added since: issue 23)
        return (f"vault-mem's git hooks here lack {', '.join(absent)} (installed by an older vault-mem, or "
                f"deleted from {folder}): install them with `vault-mem hooks install "
                f"{shlex.quote(str(root))}`")
    return (f"no vault-mem git hooks here ({', '.join(absent)} missing from {folder}; git does not clone them), "
            "so a hand commit skips the check for credentials and broken memory files: install them with "
            f"`vault-mem init {shlex.quote(str(root))}` (what a fresh clone needs: the hooks, INDEX.md's merge "
            "driver, the folder made private to you)")


def in_vault(folder: Path, root: Path, git_dir: Path) -> bool:
    """Whether the hooks folder ``folder`` lies in the vault's folder ``root``, outside the git
    folder ``git_dir``: ``core.hooksPath`` set to a folder of the work tree (``.githooks``, in the
    person's global configuration or the repository's). Git runs as the person whatever a
    peer's commit puts there (a ``reference-transaction`` or ``post-merge`` that a plain ``git
    pull`` checks out and then runs): files of a vault never run (DESIGN §7). A project's own
    hooks folder (``.husky`` beside ``memory/``) is the project's, not the vault's."""
    folder, root, git_dir = (Path(os.path.abspath(p)) for p in (folder, root, git_dir))
    return folder.is_relative_to(root) and not folder.is_relative_to(git_dir)


#: In the git folder: vault-mem's hooks for a repository whose hooks folder is the project's
#: (:func:`shared_hooks`), run by a line in each of the project's hook files (:func:`project_line`).
OWN_HOOKS = "vault-mem/hooks"
#: The start of what a wrapped hook runs first (:func:`render` with ``wrapped``): the pid of the
#: ``git`` that runs the hooks, an ancestor (husky runs ``.husky/_/NAME``, which runs
#: ``sh -e .husky/NAME``, which runs ours), in place of ``$PPID`` everywhere the hook uses it.
_FIND_GIT = "# run by a line in the project's own hook: the git that runs the hooks is an ancestor, not the parent\n" + \
    procs.GIT_ANCESTOR_SH


def own_hooks_dir(git_dir: Path) -> Path:
    """Where vault-mem's hooks go when the repository's hooks folder is the project's."""
    return Path(git_dir) / OWN_HOOKS


def shared_hooks(folder: Path, root: Path, git_dir: Path) -> bool:
    """Whether the hooks folder ``folder`` is not this repository's own: outside the git folder
    ``git_dir`` and outside the vault ``root`` (:func:`in_vault`: the vault's own folder is moved
    to the git folder's hooks). In the work tree it is the project's (tracked or not, its files
    are the team's: a ``.githooks/`` may be committed any day); outside the repository it is the
    person's, run by every repository of theirs. vault-mem writes nothing there."""
    folder = Path(os.path.abspath(folder))
    return not folder.is_relative_to(Path(os.path.abspath(git_dir))) and not in_vault(folder, root, git_dir)


def _whose(folder: Path, toplevel: Path) -> str:
    """A :func:`shared_hooks` folder in words: the project's (in the work tree ``toplevel``), else
    the person's, shared by their repositories."""
    if Path(os.path.abspath(folder)).is_relative_to(Path(os.path.abspath(toplevel))):
        return "the project's own folder (core.hooksPath)"
    return "a folder your other repositories run too (core.hooksPath)"


def project_line(name: str) -> str:
    """The line that runs vault-mem's hook ``name`` from the project's own hook file: the script
    in the git folder (:func:`own_hooks_dir`), when there, with git's arguments; its failure
    (pre-commit's refusal) stops the commit. It names no path of this machine.

    post-rewrite reads the rewritten commits on its input, which git gives once: the line keeps a
    copy, runs ours on it and gives the rest of the script the same input (``exec <``), whose
    own post-rewrite read nothing after ours (and ours nothing after it: the person's amended
    commit went unrecorded, a peer's); git ignores post-rewrite's status, so ours never stops it."""
    find = f'vault_mem_hook="$(git rev-parse --git-common-dir 2>/dev/null)/{OWN_HOOKS}/{name}"; '
    if name == "post-rewrite":
        return find + ('if [ -x "$vault_mem_hook" ] && vault_mem_in=$(mktemp 2>/dev/null); then cat > "$vault_mem_in"; '
                       '"$vault_mem_hook" "$@" < "$vault_mem_in" || :; exec < "$vault_mem_in"; rm -f "$vault_mem_in"; fi')
    return find + 'if [ -x "$vault_mem_hook" ]; then "$vault_mem_hook" "$@" || exit $?; fi'


def paste_folder(folder: Path) -> Path:
    """Where the person's hook files are for the hooks folder git runs: husky 9 points
    ``core.hooksPath`` at ``.husky/_`` (its generated runners, git-ignored), which run
    ``.husky/NAME``; any other folder holds the hooks themselves."""
    folder = Path(folder)
    return folder.parent if folder.name == "_" and (folder / "h").is_file() else folder


#: A line that ends a hook script whatever happened before it: ``exit``, or ``exec`` of a command
#: (``exec < /dev/tty`` only redirects), at the top level of the script (not indented: not in an
#: ``if`` or a function). A line after it never runs.
_SCRIPT_END = re.compile(r"^(?:exit(?![\w-])|exec[ \t]+(?![0-9]*[<>]))", re.MULTILINE)


def runs_line(text: str, line: str) -> bool:
    """Whether the hook script ``text`` holds ``line`` where it runs: before any line that ends
    the script (:data:`_SCRIPT_END`). A line pasted below a hook's ``exit 0`` or ``exec
    npx lint-staged`` counted as there, and the credential check never ran, with nothing said."""
    at = text.find(line)
    if at < 0:
        return False
    end = _SCRIPT_END.search(text, 0, at)
    return end is None


def lines_missing(folder: Path) -> list[str]:
    """The hooks whose file in the hooks folder (:func:`shared_hooks`) does not run
    :func:`project_line` (:func:`runs_line`), or that git would not run (not executable:
    husky's runner reads its files through ``sh``) (a few reads)."""
    where = paste_folder(folder)
    found = []
    for name in HOOK_NAMES:
        if not runs_line(_read(where / name, links=True), project_line(name)) or where == Path(folder) and not os.access(where / name, os.X_OK):
            found.append(name)
    return found


def snippet(folder: Path, names: list[str] | tuple[str, ...] = HOOK_NAMES) -> str:
    """What the person adds to the hook files of a :func:`shared_hooks` folder: for each hook, its
    file and its two lines."""
    where = paste_folder(folder)
    parts = [f"add to the git hooks in {where} these lines, above any line that ends the script (`exit`, `exec`) "
             "or reads its input (post-rewrite's) "
             "(plain shell; a file that is not there: create it with `#!/bin/sh` as its first line and make it "
             "executable; every teammate and every repository may keep them, they run vault-mem only where it "
             "is installed):"]
    for name in names:
        parts.append(f"  {where / name}:\n    # vault-mem: {name} (its hook in the git folder, "
                     f"kept by `vault-mem hooks install`)\n    {project_line(name)}")
    return "\n".join(parts)


def project_hooks_notice(folder: Path, root: Path, toplevel: Path, git_dir: Path, *, full: bool = False) -> str | None:
    """For a hooks folder not the repository's own (:func:`shared_hooks`): the one line naming
    what is missing (vault-mem's hooks in the git folder, or their lines in the folder's hook
    files), else None. ``full``: with the lines to add (``doctor``)."""
    own = own_hooks_dir(git_dir)
    absent = missing_hooks(own)
    lines = lines_missing(folder)
    if not absent and not lines:
        return None
    text = f"git runs this repository's hooks from {folder}, {_whose(folder, toplevel)}, where vault-mem writes nothing"
    if absent:
        text += (f"; vault-mem's hooks are not in the git folder ({', '.join(absent)} missing from {own}), so a hand "
                 "commit skips the check for credentials and broken memory files: install them with "
                 f"`vault-mem init {shlex.quote(str(root))}`, which prints the lines to add to the hooks there")
    else:
        text += (f"; the hooks there do not run vault-mem's {', '.join(lines)}"
                 + (", so a hand commit skips the check for credentials and broken memory files" if "pre-commit" in lines
                    else "") + ": `vault-mem hooks install` or `vault-mem doctor` prints the lines to add")
    return text + ("\n" + snippet(folder, lines) if full and lines else "")


def unsafe_hooks_notice(folder: Path, root: Path | None = None, git_dir: Path | None = None,
                        toplevel: Path | None = None) -> str | None:
    """The one line that names :func:`unsafe_hooks` of ``folder``, or a hooks folder inside the
    vault at ``root`` (:func:`in_vault`), and the fix; or None. A hooks folder not the
    repository's own (``toplevel`` given, :func:`shared_hooks`): hooks an earlier vault-mem wrote
    there, or unsafe ones of :func:`own_hooks_dir`."""
    if root is not None and git_dir is not None and toplevel is not None and shared_hooks(folder, root, git_dir):
        ours = [name for name in HOOK_NAMES if MARKER in _read(folder / name)]
        if ours:
            project = Path(os.path.abspath(folder)).is_relative_to(Path(os.path.abspath(toplevel)))
            why = ("where a `git commit -a` publishes them to the team" if project else
                   "where they check one vault's folder in every repository that runs them")
            return (f"an earlier vault-mem wrote its git hooks {', '.join(ours)} into {folder}, "
                    f"{_whose(folder, toplevel)}, {why}: run `vault-mem hooks install`, which takes them out (a "
                    "file the project committed it only names, for you to `git rm`), puts back the hooks it had "
                    "moved aside and prints the lines to add instead")
        folder = own_hooks_dir(git_dir)
        names = unsafe_hooks(folder, wrapped=True)
        return (f"the git hooks {', '.join(names)} in {folder} are an older vault-mem's: rewrite them with "
                "`vault-mem hooks install`") if names else None
    if root is not None and git_dir is not None and in_vault(folder, root, git_dir):
        return (f"git runs this repository's hooks from {folder}, a folder of the vault (core.hooksPath): a "
                "peer's commit that puts a file there runs as you at your next git command; run `vault-mem "
                "hooks install`, which moves vault-mem's hooks to the git folder and points core.hooksPath there "
                "for this repository")
    names = unsafe_hooks(folder)
    if not names:
        return None
    return (f"the git hooks {', '.join(names)} in {folder} are an older vault-mem's, which start Python so that a "
            "file in the repository (a peer's vault_mem/ or yaml.py) runs in their place, or take a text git merged "
            "from a peer's change for one made here, or check nothing once a commit deletes vault.toml: "
            "rewrite them with `vault-mem hooks install`")


#: the most of a hook file read: a hook is a script of a few lines (vault-mem's a few KB)
HOOK_READ_BYTES = 1 << 20


def _read(path: Path, *, links: bool = False) -> str:
    """The text of hook file ``path``, or "" when it cannot be read (missing: no hook). Read as
    vault-mem reads its own files (:func:`~vault_mem.store.files.read_own`): never through a
    link, a regular file only, bounded. A project's hooks folder holds what any teammate
    commits, and every command reads it: a committed link to ``/dev/zero`` or ``/dev/stdin``
    made each one read forever or wait for input. A link counts as a hook without vault-mem's
    mark or line; with ``links`` (the project's hooks, whose pasted lines git runs through a
    link as well: ``.githooks/pre-commit -> ../scripts/pre-commit``) one to a regular file is
    read the same way (never blocking, bounded), a link to anything else still counts so."""
    if links and os.path.islink(path):
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
        except OSError:
            return ""
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):  # a FIFO, a device, a folder
                return ""
            return os.read(fd, HOOK_READ_BYTES).decode("utf-8", errors="replace")
        except OSError:
            return ""
        finally:
            os.close(fd)
    try:
        data = read_own(path, max_bytes=HOOK_READ_BYTES)
    except (OSError, VaultMemError):  # a link (LinkError), a folder, a FIFO, a device
        return ""
    return data.decode("utf-8", errors="replace") if data is not None else ""


def _home_dir() -> str:
    """The folder holding this ``vault_mem`` when it runs from a source checkout (the hook's
    bootstrap puts it on ``sys.path``); empty when it is installed in a site-packages folder."""
    pkg_parent = str(Path(__file__).resolve().parent.parent.parent)
    installed = {str(Path(p).resolve()) for p in [*site.getsitepackages(), site.getusersitepackages()]}
    return "" if pkg_parent in installed else shlex.quote(pkg_parent)


def _missing(name: str) -> str:
    """The end of hook ``name``: neither the recorded Python nor ``vault-mem`` on PATH exists."""
    where = "the recorded Python ($PYTHON) is gone and vault-mem is not on PATH"
    if name != "pre-commit":
        return (f'echo "vault-mem: {where}; the {name} hook did nothing (repair it: run '
                f'\\`vault-mem hooks install\\` in the vault, or delete $0)" >&2\nexit 0')
    return (
        "# a commit that stages nothing inside the vault does not need the check\n"
        'if [ -z "$(git diff --cached --name-only -- "$VAULT" 2>/dev/null)" ]; then\n    exit 0\nfi\n'
        f'echo "vault-mem: {where}, so the check of the staged memory files (format, credentials) '
        'cannot run: commit refused. Repair the hooks: run \\`vault-mem hooks install\\` in the vault '
        'with vault-mem as installed now (or commit with --no-verify to skip the check once)." >&2\nexit 1'
    )


def render(name: str, prefix: str, wrapped: bool = False) -> str:
    """The text of hook ``name`` (one of :data:`HOOK_NAMES`) for the vault at ``prefix`` (its
    folder in the repository, ``""`` at the top, else like ``memory/``). ``wrapped``: run by a
    line in the project's own hook (:func:`project_line`), so git is an ancestor rather than the
    parent: the hook finds its pid first and uses it where it would use ``$PPID``."""
    folder = prefix.rstrip("/")
    values = {
        "HOOK": name,
        "PURPOSE": HOOK_PURPOSES[name],
        "PYTHON": shlex.quote(sys.executable),
        "PREFIX": shlex.quote(folder) if folder else "",
        "PREFIX_SHOWN": folder or ".",
        "HOME_DIR": _home_dir(),
        "LAUNCH": LAUNCH,
        "MARK_LINE": _MARK_LINE if name == "pre-commit" else "",
        "RECORD": RECORD.get(name, ""),
        "MISSING": _missing(name),
    }
    text = template_path().read_text(encoding="utf-8")
    if name in SHELL_ONLY:  # its record is all it does: the part that starts vault-mem is left out
        text = text[:text.index("@RECORD@")] + "@RECORD@\n"
    # one pass: a path holding "@HOOK@" or the like is not expanded again
    text = _PLACEHOLDER.sub(lambda m: values[m.group(1)], text)
    if wrapped:
        head, sep, rest = text.partition("\nVAULT_MEM_HOME=")
        line, _, rest = rest.partition("\n")
        text = head + sep + line + "\n" + _FIND_GIT + "\n" + rest.replace("$PPID", "$VM_GIT_PID")
    return text


def _hook_prefix(text: str) -> str | None:
    """The vault folder a hook of ours was installed for; None for an older hook (absolute path)."""
    m = _PREFIX_LINE.search(text)
    if m is None:
        return None
    words = shlex.split(m.group(1)) if m.group(1).strip() else [""]
    return words[0] if words else ""


def install(vault: RepoFolder) -> list[str]:
    """Write or repair the hooks in the repository's hooks folder; one note per hook saying what
    changed (``installed``, ``updated``, ``already installed``, a chained or skipped hook)."""
    target = hooks_dir(vault)
    prefix = str(getattr(vault, "prefix", "") or "")
    folder = prefix.rstrip("/")
    toplevel = Path(vault.repo.toplevel)
    notes: list[str] = []
    common = Path(vault.repo.common_dir)
    if in_vault(target, toplevel / folder, common):
        own = common / "hooks"
        # lazy: a daemon client's write imports no git module (tests/test_daemon_writes.py)
        from vault_mem.store.worktree import forget_config

        try:
            vault.repo.run("config", "--local", "core.hooksPath", str(own))
        finally:
            forget_config(vault.repo)
        vault.repo.hooks_dir = own
        for name in HOOK_NAMES:  # ours, left there by an earlier install: gone (a pull would trip on them)
            try:
                if MARKER in (target / name).read_text(encoding="utf-8", errors="replace"):
                    (target / name).unlink()
            except OSError:
                continue
        notes.append(f"core.hooksPath named {target}, a folder of the vault, where git runs what a peer's commit "
                     f"puts: set to {own} for this repository (hooks of yours there no longer run; move them)")
        target = own
    project = shared_hooks(target, toplevel / folder, common)
    if project:
        notes += _take_out(target, _tracked(vault, target))
        shown, target = target, own_hooks_dir(common)
    target.mkdir(parents=True, exist_ok=True)
    for name in HOOK_NAMES:
        path = target / name
        text = render(name, prefix, wrapped=project)
        verb = "installed"
        if path.exists() or path.is_symlink():
            try:
                old = path.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                old = ""
            if MARKER not in old:
                chained = path.with_name(name + CHAINED_SUFFIX)
                if chained.exists() or chained.is_symlink():
                    notes.append(f"skipped {name}: {path} is not vault-mem's and {chained} exists too; "
                                 f"merge them, then run `vault-mem hooks install` again")
                    continue
                os.replace(path, chained)
                verb = f"installed (your hook moved to {chained.name}; it runs first)"
            else:
                other = _hook_prefix(old)
                if other is not None and other != folder and (toplevel / other / "vault.toml").is_file():
                    notes.append(f"skipped {name}: {path} is vault-mem's hook for the vault in "
                                 f"{other or 'the top folder'} of this repository")
                    continue
                if old == text:
                    notes.append(f"{name}: already installed")
                    _make_executable(path)
                    continue
                verb = "updated"
        tmp = path.with_name(f".{name}.vault-mem-tmp")
        tmp.write_text(text, encoding="utf-8")
        _make_executable(tmp)
        os.replace(tmp, path)
        notes.append(f"{name}: {verb} {path}")
    missing = lines_missing(shown) if project else []
    if missing:  # said while a line is missing (once all are there, a repeated install changes nothing)
        notes.append(f"core.hooksPath names {shown}, {_whose(shown, toplevel)}: vault-mem writes nothing "
                     f"there; its hooks went to {target} (the git folder: never in a commit), which the "
                     "hooks there run once they hold these lines\n" + snippet(shown, missing))
    return notes


def _tracked(vault: RepoFolder, folder: Path) -> set[str]:
    """The names of the files in ``folder`` that the repository's HEAD or index holds (none for a
    folder outside its work tree): the project's committed hooks."""
    top = Path(vault.repo.toplevel)
    if not Path(os.path.abspath(folder)).is_relative_to(top):
        return set()
    out = vault.repo.run("ls-files", "-z", "--", os.path.relpath(folder, top), binary=True, cwd=top,
                         env={"GIT_LITERAL_PATHSPECS": "1"})
    return {os.path.basename(p.decode("utf-8", "surrogateescape")) for p in out.split(b"\0") if p}


def _take_out(folder: Path, tracked: set[str]) -> list[str]:
    """Undo what an earlier vault-mem did in the hooks folder ``folder`` (:func:`shared_hooks`): its
    hooks out, the hooks it moved aside (``NAME.before-vault-mem``) back in their place. A file the
    project committed (``tracked``) with nothing moved aside beside it is only named: vault-mem's
    mark in it is text any teammate can commit, and a mark alone once made every install delete
    the team's hook from the person's work tree."""
    notes = []
    for name in HOOK_NAMES:
        path, chained = folder / name, folder / (name + CHAINED_SUFFIX)
        if MARKER not in _read(path):
            continue
        if chained.exists() or chained.is_symlink():
            os.replace(chained, path)
            notes.append(f"{name}: the project's hook put back in {path} (an earlier vault-mem had moved it aside)")
        elif name in tracked:
            notes.append(f"{name}: {path} is the project's committed file and holds vault-mem's mark; left as it "
                         "is: if an earlier vault-mem wrote it, `git rm` it (or restore the project's own)")
        else:
            path.unlink()
            notes.append(f"{name}: an earlier vault-mem's hook taken out of {path}")
    return notes


def _make_executable(path: Path) -> None:
    """Executable by whoever may read it (``chmod +x`` under the file's own read bits): a hook of a
    vault made private (``init``) stays this user's alone, every later install included."""
    mode = path.stat().st_mode
    path.chmod(mode | 0o100 | (mode & 0o044) >> 2)
