"""Writes bench/data/smallvaults.json: eight brand-new vaults of 1-8 memories each (a developer's
first preferences, facts, decisions and procedures), with the prompts a coding agent sees early
on: questions a memory plainly answers (paraphrased, as people ask), instructions a memory
informs ("open the config file in my editor"), near misses (a stored topic, an unstored detail)
and unrelated prompts (expected: nothing strong). Written for vault-mem's recall work (issue 24:
"a floor that is sound from the first memory") before any tuning, from no outside text.

    python bench/data/make_smallvaults.py   # regenerates the JSON next to this file

Eight groups, so ``bench_verdict.py --half`` splits by vault: v1-v4 are the tune half, v5-v8 the
held-out half (not tuned on). v1 is issue 24's own four-memory vault. ``smallvaults-joined.json``
holds the same memories and prompts in two vaults, v1-v4 (13 memories) and v5-v8 (18): still
under the 20 vectors a vault's own floor calibration needs, but past the stand-out's 9 others.
"""

import json
from pathlib import Path

# group -> (memories: (key, type, description, body), prompts: (prompt, key or None))
V = {
    "v1-issue24": (
        [("editor-choice", "preference", "Uses Helix as the main editor (switched from Neovim, Oct 2026)", ""),
         ("db-choice", "decision", "Use Postgres for the ledger", ""),
         ("release-steps", "procedure", "How to cut a release: git pull, make release", ""),
         ("ci-runner", "fact", "CI runs on GitHub Actions with self-hosted runners", "")],
        [("open the config file in my editor", "editor-choice"),
         ("where do our CI jobs run?", "ci-runner"),
         ("which database do we store the ledger in?", "db-choice"),
         ("how do I ship a new version?", "release-steps"),
         ("what editor am I using these days?", "editor-choice"),
         ("what's the weather in Paris?", None),
         ("write a haiku about autumn", None),
         ("fix the off-by-one in this loop", None),
         ("which Helix theme do I use?", None),
         ("how many CI runners are in the cloud?", None)]),
    "v2-python": (
        [("py-version", "fact", "The service targets Python 3.12", "3.13 waits on the grpcio wheels."),
         ("deps-uv", "decision", "Python dependencies are managed with uv", "Picked over Poetry for lock speed; uv.lock is committed."),
         ("lint-ruff", "decision", "Ruff formats and lints all Python code", "Line length 100.")],
        [("which Python release does the service run on?", "py-version"),
         ("how do I add a new package to the project?", "deps-uv"),
         ("what tool formats our code?", "lint-ruff"),
         ("format this file before I commit", "lint-ruff"),
         ("what's the capital of Australia?", None),
         ("explain how a hash map works", None),
         ("which mypy flags do we use?", None),
         ("what Python version does the mobile app use?", None)]),
    "v3-single": (
        [("tabs-spaces", "preference", "Indent with four spaces, never tabs", "")],
        [("should I use tabs or spaces for indentation?", "tabs-spaces"),
         ("how wide is an indent in my code?", "tabs-spaces"),
         ("who won the world cup in 2018?", None),
         ("rename this variable to something clearer", None),
         ("how many spaces go after a period in prose?", None)]),
    "v4-frontend": (
        [("fe-stack", "decision", "The dashboard is React with TypeScript and Vite", "Next.js was tried and dropped."),
         ("css-tailwind", "decision", "Styling uses Tailwind CSS", ""),
         ("node-22", "fact", "The frontend builds with Node 22 LTS", "Pinned in .nvmrc."),
         ("designer-mei", "fact", "Mei Lin designs the web dashboard", ""),
         ("e2e-playwright", "fact", "End-to-end tests use Playwright against staging", "They run nightly.")],
        [("what framework is the web UI built with?", "fe-stack"),
         ("how do we write the styles for components?", "css-tailwind"),
         ("which Node version do I need to build the front end?", "node-22"),
         ("who should review the new page layout?", "designer-mei"),
         ("when do the browser tests run?", "e2e-playwright"),
         ("how do I bake sourdough bread?", None),
         ("what is Mei Lin's email address?", None),
         ("which Vite plugins do we use?", None),
         ("add a loading spinner to this component", None)]),
    "v5-ops": (
        [("deploy-prod", "procedure", "How to deploy the API to production", "Merge to main, tag vX.Y.Z, approve the prod environment in Actions, watch Grafana for 15 minutes."),
         ("prod-region", "fact", "Production runs in eu-central-1", "A warm standby exists in eu-west-1."),
         ("oncall", "fact", "On-call rotates weekly, handover on Mondays at 10:00", ""),
         ("sre-jonas", "fact", "Jonas Weber is the team's SRE", "Owns the Terraform state.")],
        [("what are the steps to release the API to prod?", "deploy-prod"),
         ("which AWS region hosts production?", "prod-region"),
         ("when does the on-call shift change?", "oncall"),
         ("who do I ask about the Terraform state?", "sre-jonas"),
         ("push this change to production", "deploy-prod"),
         ("what's a good name for a cat?", None),
         ("what is Jonas's phone number?", None),
         ("how many nodes does the prod cluster have?", None),
         ("summarise this stack trace for me", None)]),
    "v6-data": (
        [("billing-pg", "decision", "Billing data is kept in PostgreSQL 16, not DynamoDB", "Needed transactions across invoices and payments."),
         ("cache-redis", "decision", "Session cache is Redis with a 30-minute TTL", ""),
         ("migrations", "procedure", "How to add a database migration", "alembic revision --autogenerate, review it by hand, then alembic upgrade head."),
         ("backups", "fact", "Database backups run nightly at 02:00 UTC and are kept 30 days", ""),
         ("orm", "decision", "SQLAlchemy 2.0 with the typed ORM style", "Raw SQL only in reporting."),
         ("queue", "decision", "Background jobs use Celery on RabbitMQ", "SQS was rejected.")],
        [("why did we pick the billing database?", "billing-pg"),
         ("how long do user sessions last?", "cache-redis"),
         ("I need to change a table's schema, how?", "migrations"),
         ("how long are backups retained?", "backups"),
         ("what runs our async tasks?", "queue"),
         ("write a query that joins orders and users", "orm"),
         ("what's the tallest mountain in Africa?", None),
         ("what is the Redis max memory setting?", None),
         ("which Kafka topics do we consume?", None),
         ("translate this sentence into German", None)]),
    "v7-habits": (
        [("commit-style", "preference", "Commit messages: imperative subject under 60 chars, body says why", "No emoji."),
         ("tests-first", "preference", "Writes a failing test before fixing a bug", ""),
         ("small-prs", "preference", "Prefers small pull requests, one concern each", "")],
        [("how should I word the commit message?", "commit-style"),
         ("commit these changes", "commit-style"),
         ("what do I do first when fixing a bug?", "tests-first"),
         ("should I split this big PR?", "small-prs"),
         ("how do I cook rice in a pan?", None),
         ("which git hosting do we use?", None),
         ("what's the time in Tokyo?", None)]),
    "v8-secrets": (
        [("secrets-vault", "decision", "Secrets are stored in HashiCorp Vault, never in .env files in git", "Local development reads them through direnv."),
         ("auth-keycloak", "fact", "Users log in through Keycloak with OIDC", "Realm name: acme-prod."),
         ("token-expiry", "fact", "Access tokens expire after 15 minutes; refresh tokens after 7 days", ""),
         ("staging-url", "fact", "Staging lives at staging.internal.example.net", "Behind the VPN."),
         ("vpn", "procedure", "How to connect to the VPN", "WireGuard profile from the IT portal; ask IT for a new key.")],
        [("where do we keep API keys?", "secrets-vault"),
         ("which identity provider handles sign-in?", "auth-keycloak"),
         ("how long is a login token valid?", "token-expiry"),
         ("what's the address of the staging environment?", "staging-url"),
         ("I can't reach staging from home", "vpn"),
         ("add the Stripe key to the .env file", "secrets-vault"),
         ("how do I rotate the Keycloak admin password?", None),
         ("what is the best pizza topping?", None),
         ("which realm does the staging Keycloak use?", None),
         ("make this function async", None)]),
}


def main() -> None:
    memories, queries = [], []
    n_mem = answerable = 0
    for group, (mems, prompts) in V.items():
        keys = {k for k, *_ in mems}
        assert len(keys) == len(mems), f"duplicate key in {group}"
        memories += [{"key": k, "type": t, "description": d, "body": b, "created": "2026-10-01", "group": group}
                     for k, t, d, b in mems]
        n_mem += len(mems)
        for prompt, key in prompts:
            assert key is None or key in keys, key
            answerable += key is not None
            queries.append({"id": f"{group}-{len(queries)}", "q": prompt, "relevant": [key] if key else [],
                            "category": "answerable" if key else "near-miss", "group": group})
    data = {"meta": {"name": "vault-mem small new vaults", "licence": "same as vault-mem", "memories": n_mem,
                     "answerable": answerable, "near_miss": len(queries) - answerable},
            "memories": memories, "queries": queries}
    out = Path(__file__).with_name("smallvaults.json")
    out.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"{out}: {n_mem} memories, {answerable} answerable, {len(queries) - answerable} near misses")
    joined = {"meta": {**data["meta"], "name": "vault-mem small new vaults, joined in two"},
              "memories": [{**m, "group": "v1-v4" if m["group"] < "v5" else "v5-v8"} for m in memories],
              "queries": [{**q, "group": "v1-v4" if q["group"] < "v5" else "v5-v8"} for q in queries]}
    out = Path(__file__).with_name("smallvaults-joined.json")
    out.write_text(json.dumps(joined, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"{out}: the same in two vaults")


if __name__ == "__main__":
    main()
