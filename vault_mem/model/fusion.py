"""Results from several vaults as one (DESIGN §8): recall hits merged, keys named by vault.

Each vault has its own sidecar, embedder and calibrated relevance floor, so the raw scores of
two vaults are not on one scale (a cosine from one model against BM25-fused ranks from another,
or the same model with different floors). Hits are therefore merged by what each vault itself
concluded about them, their ``match`` level (``strong`` before ``candidate``), and only then by
score; the merged verdict is the best of the hits' levels. Pure: the callers fetch each vault's
result (from its daemon or in-process) and hand the JSON over.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any, TypeVar

from vault_mem.errors import UsageError
from vault_mem.model.verdict import CANDIDATE, INCOMPLETE, NONE, STRONG, verdict_of

#: the order hits are merged in: a vault's strong hit before any candidate of another vault
_LEVEL = {STRONG: 0, CANDIDATE: 1}

H = TypeVar("H")

#: the share of a recall's ``k`` places the peers' best hits keep when the person's memories
#: want them (:func:`keep_trusted`): half, rounded down (``-k 1`` gives the person's alone)
PEERS_SHARE = 0.5


def keep_trusted(ranked: list[H], more: list[H], k: int, *, ident: Callable[[H], Hashable],
                 trusted: Callable[[H], bool], order: Callable[[H], Any]) -> list[H]:
    """``ranked`` (a recall's top ``k``, some hits a peer's, an author not approved here)
    holding the person's memories (``trusted``) that ``more`` has beyond it: the lowest-ranked
    of the peers' hits make room for them, so look-alikes a peer pushes cannot hide the
    person's own memories from a recall on request (one vault: ``more`` is a search without
    the peers; several: every vault's trusted hits the merge cut). The peers' best keep up to
    ``k // 2`` places they won (PEERS_SHARE): the person's memories take every place the peers'
    crowd, never the peers' answer itself (before, any ``k`` memories of the person's over the
    hit bar, however unrelated, pushed every peer's hit out of a recall asked for, its answer
    first: a vault half of whose memories were a teammate's kept none of them in 64 of 83
    recalls). The person's kept are those ``ranked`` holds, then ``more``'s in its order. At
    most ``k``, by ``order``."""
    have = {ident(h) for h in ranked}
    kept = [h for h in ranked if trusted(h)]
    mine = kept + [h for h in more if trusted(h) and ident(h) not in have]
    if len(mine) == len(kept):
        return ranked
    peers = [h for h in ranked if not trusted(h)]
    peers = peers[:min(len(peers), max(k - len(mine), int(k * PEERS_SHARE)))]
    return sorted(mine[:max(0, k - len(peers))] + peers, key=order)[:k]


def merge_recall(named: list[tuple[str, dict[str, Any]]], k: int) -> dict[str, Any]:
    """One recall result from each vault's (``[(vault name, result JSON), ...]``): each hit
    named by its ``vault``, ordered by match level then score, the first ``k`` kept, where the
    lowest of the peers' hits make room for the person's (:func:`keep_trusted`). Whether
    the search was keyword-only, why, and each vault's note are kept, named by vault."""
    hits = [{**h, "vault": name} for name, data in named for h in data.get("hits") or []]

    def order(h: dict[str, Any]) -> tuple[int, float]:
        return _LEVEL.get(h.get("match"), 2), -float(h.get("score") or 0.0)

    hits.sort(key=order)
    # a teammate's look-alikes in one vault take at most PEERS_SHARE of the places of the
    # person's memories in the other (each vault's own result already keeps them: Vault.recall)
    hits = keep_trusted(hits[:k], hits[k:], k, ident=lambda h: (h["vault"], h.get("key")),
                        trusted=lambda h: h.get("trusted", True) is not False, order=order)
    keyword_only = any(data.get("keyword_only") for _, data in named)
    verdicts = [data.get("verdict") for _, data in named]
    if hits:
        verdict = verdict_of((h.get("match") for h in hits), keyword_only=keyword_only)
    else:
        verdict = INCOMPLETE if INCOMPLETE in verdicts else NONE
    reasons = [f"{name}: {data['reason']}" for name, data in named if data.get("keyword_only") and data.get("reason")]
    notes = [f"{name}: {data['note']}" for name, data in named if data.get("note")]
    out: dict[str, Any] = {**named[0][1], "hits": hits, "verdict": verdict, "keyword_only": keyword_only,
                           "reason": "; ".join(reasons) or None, "note": "; ".join(notes) or None,
                           "vaults": [name for name, _ in named]}
    unembedded = sum(int(data.get("unembedded") or 0) for _, data in named)
    if unembedded:
        out["unembedded"] = unembedded
    if any(data.get("unchecked") for _, data in named):
        out["unchecked"] = True
    elif "unchecked" in out:
        out["unchecked"] = False
    if "answered" in out:
        out["answered"] = any(h.get("match") == STRONG for h in hits)
    for per_vault in ("embedder", "floor"):
        if per_vault in out:
            out[per_vault] = {name: data.get(per_vault) for name, data in named}
    if not keyword_only and not any("keyword_only" in data for _, data in named):
        del out["keyword_only"], out["reason"]  # the tools' shape says it only when it is so
    return out


def split_key(text: str, names: tuple[str, ...]) -> tuple[str | None, str]:
    """``("personal", "KEY")`` for ``personal:KEY`` (any of ``names``), ``(None, KEY)`` for a
    bare key. A prefix naming no vault in use is refused, listing the ones there are."""
    prefix, sep, key = text.partition(":")
    if not sep:
        return None, text
    if prefix not in names:
        raise UsageError(f"'{prefix}:' names no vault in use here; use {' or '.join(f'{n}:KEY' for n in names)}, "
                         "or the bare key")
    return prefix, key
