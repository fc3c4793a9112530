"""Writes bench/data/devvault.json: a developer's project vault (one group, 64 curated memories
of the kinds an coding agent keeps: preferences, facts, decisions with reasons, procedures), with
questions a coding agent would ask about them and near misses (questions about things close to
stored topics but never stored; expected: nothing). Written for vault-mem's recall work (issue
24) as a set tuned on nothing: no outside text, not derived from any other benchmark.

    python bench/data/make_devvault.py   # regenerates the JSON next to this file

Near-duplicate pairs are deliberate (old and new states, two notes on one subsystem): the strong
slots must not be crowded by look-alikes. Questions mix plain paraphrases with ones that share a
word or two with their memory, as people ask.
"""

import json
from pathlib import Path

# (key, type, description, body)
M = [
    ("editor-helix", "preference", "Uses Helix as the main editor", "Switched from Neovim in 2026 for the built-in LSP; config in ~/.config/helix."),
    ("editor-neovim-old", "preference", "Used Neovim with lazy.nvim until early 2026", "The plugin churn got tiring."),
    ("shell-fish", "preference", "Interactive shell is fish; scripts stay POSIX sh", "Never commit fish syntax to repo scripts."),
    ("terminal", "preference", "Terminal emulator is WezTerm with a light theme", "Font: Iosevka Term 13."),
    ("commit-style", "preference", "Commit messages: imperative subject under 60 chars, body says why", "No emoji, no ticket number in the subject."),
    ("review-style", "preference", "Prefers small pull requests, one concern each", "Split refactors from behaviour changes."),
    ("tests-first", "preference", "Writes a failing test before fixing a bug", ""),
    ("python-version", "fact", "The service targets Python 3.12", "3.13 is blocked on the grpcio wheels."),
    ("package-manager", "decision", "Python dependencies are managed with uv", "Chosen over Poetry for lock speed; uv.lock is committed."),
    ("poetry-old", "decision", "Used Poetry for dependencies until March 2026", "Replaced by uv; pyproject still has a [tool.poetry] leftover."),
    ("formatter", "decision", "Ruff formats and lints all Python code", "Black and isort were removed; line length 100."),
    ("type-checker", "decision", "Type checking runs mypy in strict mode on src/", "tests/ is exempt."),
    ("ci-runner", "fact", "CI runs on GitHub Actions with self-hosted runners", "Two runners in the office rack, labels linux-x64-big."),
    ("ci-cache", "fact", "CI caches the uv download cache keyed on uv.lock", "A cache miss adds about four minutes."),
    ("ci-flaky", "fact", "test_sync_upstream is flaky on the self-hosted runners", "Fails about one run in twenty with a timeout; rerun once."),
    ("deploy-procedure", "procedure", "How to deploy the API to production", "1. Merge to main. 2. Tag vX.Y.Z. 3. The release workflow builds the image. 4. Approve the prod environment in Actions. 5. Watch the error rate in Grafana for 15 minutes."),
    ("rollback-procedure", "procedure", "How to roll back a bad production release", "Re-run the release workflow on the previous tag, then post in #incidents."),
    ("staging-url", "fact", "Staging lives at staging.internal.example.net", "Behind the VPN; basic auth from the team vault."),
    ("prod-region", "fact", "Production runs in eu-central-1", "A warm standby exists in eu-west-1."),
    ("billing-db", "decision", "Billing data is kept in PostgreSQL 16, not DynamoDB", "Needed transactions across invoices and payments; reporting joins were painful in Dynamo."),
    ("cache-redis", "decision", "Session cache is Redis with a 30-minute TTL", "Memcached was considered; Redis won for pub/sub."),
    ("queue-choice", "decision", "Background jobs use Celery on RabbitMQ", "SQS was rejected for local development pain."),
    ("orm", "decision", "SQLAlchemy 2.0 with the typed ORM style", "Raw SQL only in the reporting module."),
    ("migrations", "procedure", "How to add a database migration", "Run `alembic revision --autogenerate -m msg`, review the file by hand, then `alembic upgrade head` locally; never edit a merged migration."),
    ("db-local", "procedure", "How to start the local database", "`docker compose up db` then `make seed` for fixtures."),
    ("api-framework", "decision", "The HTTP API is built on FastAPI", "Flask was dropped for async support and generated OpenAPI docs."),
    ("api-versioning", "decision", "API versions live in the URL path (/v1, /v2)", "Header versioning confused client teams."),
    ("auth", "fact", "Users log in through Keycloak with OIDC", "Realm name: acme-prod."),
    ("jwt-expiry", "fact", "Access tokens expire after 15 minutes; refresh tokens after 7 days", ""),
    ("logging", "decision", "Logs are structured JSON through structlog", "Shipped to Loki; no print statements in services."),
    ("metrics", "fact", "Metrics go to Prometheus and are graphed in Grafana", "Dashboards live in the infra repo under grafana/."),
    ("alerts", "fact", "PagerDuty pages the on-call for error rate above 2% over 5 minutes", ""),
    ("oncall", "fact", "On-call rotates weekly, handover on Mondays at 10:00", ""),
    ("team-lead", "fact", "Priya Raman leads the platform team", "Ask her before changing shared infrastructure."),
    ("sre-contact", "fact", "Jonas Weber is the team's SRE", "Owns the Terraform state and the runners."),
    ("designer", "fact", "Mei Lin designs the web dashboard", ""),
    ("frontend-stack", "decision", "The dashboard is React with TypeScript and Vite", "Next.js was tried and dropped; no server rendering needed."),
    ("css", "decision", "Styling uses Tailwind CSS", ""),
    ("node-version", "fact", "The frontend builds with Node 22 LTS", "Pinned in .nvmrc."),
    ("e2e-tests", "fact", "End-to-end tests use Playwright against staging", "They run nightly, not on every push."),
    ("coverage-bar", "decision", "Unit test coverage must stay above 85% for merges", "Enforced by a CI check on the backend only."),
    ("secrets", "decision", "Secrets are stored in HashiCorp Vault, never in .env files in git", "Local development reads them through direnv and vault kv get."),
    ("infra-as-code", "decision", "Infrastructure is managed with Terraform", "State in an S3 bucket with DynamoDB locking."),
    ("k8s", "fact", "Services run on EKS with Helm charts", "Charts live in deploy/charts."),
    ("docker-base", "decision", "Container images build from python:3.12-slim", "Alpine broke numpy wheels."),
    ("branching", "decision", "Trunk-based development with short-lived branches", "Branches older than three days get a reminder."),
    ("release-cadence", "fact", "Releases go out on Tuesdays and Thursdays", "No deploys on Fridays."),
    ("code-owners", "fact", "CODEOWNERS requires platform review for anything under infra/", ""),
    ("license", "decision", "The SDK is published under the Apache 2.0 licence", "The service itself stays proprietary."),
    ("sdk-publish", "procedure", "How to publish the Python SDK", "Bump the version in pyproject, `uv build`, then `uv publish` with the PyPI token from Vault."),
    ("bug-timezone", "fact", "Invoice dates were off by one day because of a UTC conversion bug", "Fixed in v2.3.1: store dates, not datetimes."),
    ("bug-memory-leak", "fact", "The worker leaked memory through an unbounded lru_cache", "Capped at 1024 entries in v2.4.0."),
    ("perf-target", "fact", "API p95 latency target is 200 ms", "The search endpoint is the usual offender."),
    ("search-engine", "decision", "Product search uses OpenSearch", "Postgres full-text was too slow past a million rows."),
    ("feature-flags", "decision", "Feature flags are handled by Unleash", "Flags older than a quarter must be removed."),
    ("error-tracking", "fact", "Exceptions are reported to Sentry", "Project: api-backend."),
    ("docs-site", "fact", "Developer docs are built with MkDocs Material and hosted on GitHub Pages", ""),
    ("meeting-standup", "fact", "Stand-up is at 9:30 on weekdays, fifteen minutes", ""),
    ("laptop", "fact", "Works on a 14-inch MacBook Pro M3 with 36 GB RAM", ""),
    ("vpn", "procedure", "How to connect to the office VPN", "Install WireGuard, import the config from the IT portal, enable the tunnel 'acme-office'."),
    ("naming", "preference", "Prefers descriptive names over abbreviations in code", "`request_count`, not `req_cnt`."),
    ("docstrings", "preference", "Docstrings in Google style", ""),
    ("pairing", "preference", "Likes pair programming for tricky migrations only", ""),
    ("coffee", "preference", "Drinks flat whites, no sugar", ""),
]

# (question, key or None)
Q = [
    ("which editor do I code in now?", "editor-helix"),
    ("what did I use before my current editor?", "editor-neovim-old"),
    ("can I write the repo's helper scripts in fish?", "shell-fish"),
    ("what font and terminal app do I use?", "terminal"),
    ("how should I word a commit message?", "commit-style"),
    ("how big should a PR be?", "review-style"),
    ("what do I do first when fixing a bug?", "tests-first"),
    ("which Python release does the backend run on?", "python-version"),
    ("why can't we move to Python 3.13 yet?", "python-version"),
    ("what tool installs our Python packages?", "package-manager"),
    ("why did we switch away from Poetry?", "package-manager"),
    ("do we still use black for formatting?", "formatter"),
    ("is mypy run on the tests folder?", "type-checker"),
    ("where do our CI jobs run?", "ci-runner"),
    ("why are some CI builds four minutes slower?", "ci-cache"),
    ("a sync test failed with a timeout in CI, is that known?", "ci-flaky"),
    ("how do I ship a new version of the API?", "deploy-procedure"),
    ("production release is broken, how do I revert it?", "rollback-procedure"),
    ("what is the address of the staging environment?", "staging-url"),
    ("which AWS region hosts prod?", "prod-region"),
    ("why did we pick the billing database?", "billing-db"),
    ("how long do sessions stay cached?", "cache-redis"),
    ("what runs our background tasks?", "queue-choice"),
    ("why not SQS for jobs?", "queue-choice"),
    ("which ORM do we use and in what style?", "orm"),
    ("how do I create a schema change for the database?", "migrations"),
    ("how do I get postgres running on my machine with test data?", "db-local"),
    ("which web framework is the API written in?", "api-framework"),
    ("how do clients pick an API version?", "api-versioning"),
    ("what identity provider handles sign-in?", "auth"),
    ("how long is an access token valid?", "jwt-expiry"),
    ("where do service logs end up?", "logging"),
    ("where are the dashboards for metrics defined?", "metrics"),
    ("when does someone get paged?", "alerts"),
    ("when is the on-call handover?", "oncall"),
    ("who should I ask before touching shared infra?", "team-lead"),
    ("who owns the terraform state?", "sre-contact"),
    ("who does the design for the web dashboard?", "designer"),
    ("what is the frontend built with?", "frontend-stack"),
    ("did we go with Next.js?", "frontend-stack"),
    ("what node version does the UI need?", "node-version"),
    ("when do the browser end-to-end tests run?", "e2e-tests"),
    ("what coverage do I need for a merge?", "coverage-bar"),
    ("where should I put an API key for local dev?", "secrets"),
    ("where is the terraform state stored?", "infra-as-code"),
    ("where are the helm charts?", "k8s"),
    ("why don't we use alpine images?", "docker-base"),
    ("how long may a feature branch live?", "branching"),
    ("can I deploy on a Friday?", "release-cadence"),
    ("who must review changes to infra files?", "code-owners"),
    ("what licence is the SDK under?", "license"),
    ("how do I release the SDK to PyPI?", "sdk-publish"),
    ("why were invoice dates a day off?", "bug-timezone"),
    ("what caused the worker's memory growth?", "bug-memory-leak"),
    ("what latency should the API stay under?", "perf-target"),
    ("what powers product search?", "search-engine"),
    ("how do we toggle features for some users?", "feature-flags"),
    ("where do crash reports go?", "error-tracking"),
    ("what generates the developer documentation site?", "docs-site"),
    ("what time is the daily standup?", "meeting-standup"),
    ("how much memory does my laptop have?", "laptop"),
    ("how do I get on the office network from home?", "vpn"),
    ("do I prefer short variable names?", "naming"),
    ("which docstring format do I use?", "docstrings"),
    ("how do I take my coffee?", "coffee"),
    # near misses: close to stored topics, never stored
    ("what is Jonas's phone number?", None),
    ("which Helix theme do I use?", None),
    ("what is the staging database password?", None),
    ("how many CI runners do we have in the cloud?", None),
    ("what is the billing service's p95 latency last week?", None),
    ("who designed the mobile app?", None),
    ("which Kafka topics does the API publish to?", None),
    ("how do I deploy the dashboard to staging?", None),
    ("what was the root cause of the March outage?", None),
    ("which Grafana alert fired most last month?", None),
    ("how do I rotate the Keycloak admin password?", None),
    ("what GraphQL library do we use?", None),
    ("what is Priya's preferred meeting time?", None),
    ("which Redis version runs in production?", None),
    ("how do I run the load tests?", None),
    ("what is the name of the Slack channel for releases?", None),
    ("how do we back up the OpenSearch cluster?", None),
    ("what Vim plugins do I use?", None),
]


def main() -> None:
    keys = {k for k, *_ in M}
    assert len(keys) == len(M), "duplicate key"
    memories = [{"key": k, "type": t, "description": d, "body": b, "created": "2026-06-01", "group": "dev"}
                for k, t, d, b in M]
    queries = []
    for i, (q, key) in enumerate(Q):
        assert key is None or key in keys, key
        queries.append({"id": f"{'p' if key else 'n'}{i}", "q": q, "relevant": [key] if key else [],
                        "category": "answerable" if key else "near-miss", "group": "dev"})
    answerable = sum(1 for _, k in Q if k)
    data = {"meta": {"name": "vault-mem developer vault set", "licence": "same as vault-mem",
                     "memories": len(M), "answerable": answerable, "near_miss": len(Q) - answerable},
            "memories": memories, "queries": queries}
    out = Path(__file__).with_name("devvault.json")
    out.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"{out}: {len(M)} memories, {answerable} answerable, {len(Q) - answerable} near misses")


if __name__ == "__main__":
    main()
