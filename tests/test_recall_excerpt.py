"""Recall hits carry a bounded excerpt of each body (model/views.body_excerpt, the one rule),
not the whole body: three long facts once put 30 KB into the agent's context. A procedure
comes whole or as a pointer, never cut; ``full`` asks for whole bodies everywhere."""

from __future__ import annotations

import json

import pytest
from conftest import cli

from vault_mem.adapters.tools import call_tool, schemas
from vault_mem.model.views import EXCERPT_CHARS, WHOLE_PROCEDURE_CHARS, body_excerpt

LONG = "".join(f"Line {i}: the owl survey of the north meadow counted birds at dawn.\n" for i in range(150))


def test_a_long_body_is_cut_at_a_line_with_a_marker_naming_get():
    text, cut = body_excerpt("owls", "fact", LONG)
    assert cut and len(text) <= EXCERPT_CHARS + 80
    head, marker = text.rsplit("\n", 1)
    assert LONG.startswith(head + "\n")  # whole lines only
    assert marker.startswith("[… ") and "get owls for the whole memory" in marker
    assert f"{len(LONG.rstrip()) - len(head)} more characters" in marker
    assert body_excerpt("short", "fact", "One line.\n") == ("One line.\n", False)
    one_line = "word " * 400
    text, cut = body_excerpt("wide", "fact", one_line)
    assert cut and one_line.startswith(text.split("\n")[0]) and text.split("\n")[0].endswith("word")


def test_a_procedure_is_whole_or_a_pointer_never_cut():
    steps = "".join(f"{i}. do step {i}\n" for i in range(1, 60))
    assert len(steps) > EXCERPT_CHARS
    assert body_excerpt("deploy", "procedure", steps) == (steps, False)
    huge = "".join(f"{i}. do step {i} with care and check the output\n" for i in range(1, 400))
    assert len(huge) > WHOLE_PROCEDURE_CHARS
    text, cut = body_excerpt("deploy", "procedure", huge)
    assert cut and "get deploy" in text and "1. do step" not in text  # a pointer, no part of the steps


@pytest.fixture
def owls(vault):
    for i in range(3):
        vault.remember(f"owl-survey-{i}", f"Owl survey {i} of the north meadow", LONG)
    vault.remember("deploy-steps", "How to deploy the owl survey site",
                   "".join(f"{i}. step {i} of the owl survey deploy\n" for i in range(1, 60)), type="procedure")
    return vault


def test_vault_recall_excerpts_and_full(owls):
    hits = owls.recall("owl survey north meadow", k=4).hits
    facts = [h for h in hits if h.type == "fact"]
    assert len(facts) == 3 and all(h.excerpt and len(h.body) < EXCERPT_CHARS + 80 for h in facts)
    proc = next(h for h in hits if h.type == "procedure")
    assert not proc.excerpt and proc.body.count("\n") == 59  # whole
    full = owls.recall("owl survey north meadow", k=4, full=True).hits
    assert all(not h.excerpt for h in full) and {len(h.body) for h in full if h.type == "fact"} == {len(LONG)}


def test_cli_and_tool_say_full_the_same_way(owls):
    r = cli("--vault", owls.root, "recall", "owl survey north meadow", "--json")
    data = json.loads(r.stdout)
    assert sum(len(h["body"]) for h in data["hits"]) < 4 * (EXCERPT_CHARS + 80) + 2000
    r = cli("--vault", owls.root, "recall", "owl survey north meadow", "--full", "--json")
    assert any(len(h["body"]) == len(LONG) for h in json.loads(r.stdout)["hits"])
    r = cli("--vault", owls.root, "recall", "owl survey north meadow")
    assert "get owl-survey-0 for the whole memory" in r.stdout or "get owl-survey-1" in r.stdout
    out = call_tool(owls, "recall", {"query": "owl survey north meadow"}).data
    assert all(h.get("excerpt") for h in out["hits"] if h["type"] == "fact")
    out = call_tool(owls, "recall", {"query": "owl survey north meadow", "full": True}).data
    assert not any(h.get("excerpt") for h in out["hits"])
    for fmt in ("openai", "mcp"):
        text = json.dumps(schemas(fmt))
        assert '"full"' in text, fmt
