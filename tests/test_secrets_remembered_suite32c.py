"""find_secrets keeps its findings for a text it has scanned (the write gate, the commit's check and
the sidecar's reconcile ask about the same texts within one command): what it answers from what it
kept is what a fresh scan finds, on every credential form and look-alike of the corpus, and a
caller that changes the list it got changes nothing that a later call sees."""

from __future__ import annotations

import pytest
from secret_corpus import FORMS, LOOK_ALIKES

import vault_mem.model.secrets as secrets
from vault_mem.model.secrets import find_secrets

_TEXTS = [text for _, text in FORMS] + list(LOOK_ALIKES)
_WRAPPED = [f"key: x\n---\nnotes for the deploy\n\n{text}\n\nthat's all\n" for text in _TEXTS]


def _fresh(text: str) -> list:
    return secrets._resolve(secrets._candidates(text, 0, [secrets._DECODE_BUDGET]))


def test_a_kept_answer_is_a_fresh_scans_answer_on_the_whole_corpus() -> None:
    for text in _TEXTS + _WRAPPED:
        first = find_secrets(text)
        assert first == _fresh(text), text
        assert find_secrets(text) == first, text  # the kept answer, asked again


def test_a_text_asked_about_again_is_not_scanned_again(monkeypatch: pytest.MonkeyPatch) -> None:
    scans: list[str] = []
    real = secrets._candidates

    def counted(text: str, depth: int, budget: list[int]) -> list:
        if depth == 0:
            scans.append(text)
        return real(text, depth, budget)

    monkeypatch.setattr(secrets, "_candidates", counted)
    text = "a note for suite32c's kept scans: nothing secret here, only prose " * 3
    first = find_secrets(text)
    find_secrets(text)
    find_secrets(text)
    assert first == []
    assert scans == [text]


def test_a_changed_answer_changes_nothing_a_later_call_sees() -> None:
    text = next(t for t in _TEXTS if _fresh(t))
    got = find_secrets(text)
    want = list(got)
    got.clear()
    assert find_secrets(text) == want


def test_a_long_text_is_scanned_each_time_and_answers_the_same() -> None:
    text = "x " * secrets._REMEMBERED_CHARS + _TEXTS[0]
    assert len(text) > secrets._REMEMBERED_CHARS
    assert find_secrets(text) == _fresh(text)
    assert find_secrets(text) == _fresh(text)
