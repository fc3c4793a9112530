"""Imports from other memory tools: Claude Code's auto-memory, Codex's memories, CLAUDE.md, Basic Memory, a folder
of Markdown, JSON/JSONL (mem0-style, or vault-mem's own export). See :mod:`.plan` for what
happens to each memory, and each source's module for how it is read."""

from vault_mem.ops.importers.plan import KINDS, ImportItem, ImportReport, detect, import_source

__all__ = ["KINDS", "ImportItem", "ImportReport", "detect", "import_source"]
