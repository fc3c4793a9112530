"""The names ``vault-mem hook NAME`` answers, in one list (:data:`HOOK_NAMES`): the agents' hooks
(session start, each prompt, the end of a session) and the git hooks that start vault-mem
(:data:`vault_mem.store.hooks.LAUNCHED`; ``post-commit`` is plain shell and starts nothing).

The parser's help, the dispatch (:func:`vault_mem.adapters.hooks.run_hook`) and the git hooks
vault-mem installs all take the names from here. Kept apart from the hooks' code so that the
parser reads the list without importing it (start-up time).
"""

from __future__ import annotations

from vault_mem.store.hooks import LAUNCHED

#: the agents' context hooks and the event name Claude Code's JSON answer carries for each
CLAUDE_HOOKS = {"session-start": "SessionStart", "user-prompt-submit": "UserPromptSubmit"}
#: the end-of-session hook (:mod:`vault_mem.adapters.distill`): asks the agent to save what it learned
STOP_HOOK = "stop"
#: every name ``vault-mem hook`` handles, in the order its help lists them
HOOK_NAMES = (*CLAUDE_HOOKS, STOP_HOOK, *LAUNCHED)
