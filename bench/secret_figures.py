"""Figures for the secret gate (the numbers quoted in RELIABILITY.md, "Trust boundary").

    python bench/secret_figures.py             # corpus figures, then timings
    python bench/secret_figures.py --quick     # fewer timing rounds

Prints: credential forms tried, refused and missed, and harmless look-alikes tried and wrongly
refused, from the corpus in ``tests/secret_corpus.py`` (and the older one in
``tests/test_policy.py``); then the time ``find_secrets`` takes on a typical 4 KB memory (prose,
a command or two, a config snippet), on 4 KB of code and of non-ASCII prose, and the worst of a
set of 200 KB pathological inputs (near matches that would make a backtracking pattern explode).
It asserts nothing; the tests check every form and look-alike.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from corpus import load_line  # bench/ is on sys.path when run as a script
from secret_corpus import FORMS, LOOK_ALIKES

from vault_mem.model.secrets import find_secrets

_PROSE = """## Deploy notes

The staging cluster runs on three nodes behind the load balancer; deploys go through the
`release` workflow and take about nine minutes. Rotate the database password monthly and keep it
in 1Password (item "staging db"), never in this vault. The token for the CI bot lives in the
GitHub Actions secrets as `CI_TOKEN`.

- Prefers `uv` over pip for new projects; pins Python 3.12.
- Runs `pytest -q -x` before every commit; the slow tests are marked `@pytest.mark.slow`.
- Commit 3f9c2a1b7e4d5c6a8b9f0e1d2c3b4a5f6e7d8c9b fixed the flaky retry test.

```yaml
database:
  host: db.staging.internal
  port: 5432
  user: app
  password: ${DB_PASSWORD}
```

Asked to keep answers short and to show the command before running it. The API docs are at
https://docs.example.com/api/v2/auth#tokens and the request id for the outage was
123e4567-e89b-12d3-a456-426614174000.
"""

_CODE = '''def connect(settings: Settings, *, retries: int = 3) -> Connection:
    """Open a connection with the configured credentials, retrying on timeouts."""
    password = os.environ["DB_PASSWORD"]
    for attempt in range(retries):
        try:
            return psycopg.connect(host=settings.host, user=settings.user, password=password,
                                   connect_timeout=settings.timeout_seconds)
        except psycopg.OperationalError as exc:
            log.warning("connect failed (attempt %d of %d): %s", attempt + 1, retries, exc)
            time.sleep(2 ** attempt)
    raise ConnectionError(f"could not reach {settings.host} after {retries} attempts")
'''

_NON_ASCII = ("Заметки: пароль меняется ежемесячно, токен хранится в 1Password. "
              "メモ：パスワードは毎月変更、トークンは保管庫に。 Ο κωδικός αλλάζει κάθε μήνα. ")


def _fill(piece: str, size: int = 4096) -> str:
    return (piece * (size // len(piece) + 1))[:size]


def _pathological(size: int = 200 * 1024) -> dict[str, str]:
    rng = random.Random(3)
    b64 = "".join(rng.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/") for _ in range(size))
    shapes = {
        "one base64 run": b64,
        "base64 lines": "\n".join(b64[i:i + 64] for i in range(0, size, 64)),
        "ey run": "ey" * (size // 2),
        "jwt-ish": "eyJhbGciOiJ." * (size // 12),
        "token run": "gh" + "p_" + "a" * size,
        "wrapped near-tokens": ("gh" + "p_" + "a1" * 10 + "\n  ") * (size // 28),
        "quoted pieces": ('"aB3dE5gH9k" +\n  ') * (size // 16),
        "percent run": "%41" * (size // 3),
        "percent words": "a%2 " * (size // 4),
        "keywords": "password " * (size // 9),
        "assignments": "password=" * (size // 9),
        "zero-width": ("x\u200b" * (size // 2)),
        "homoglyphs": "АКІА" * (size // 4),
        "url colons": "a://" + "a:" * (size // 2),
        "digits colon AA": ("1234567890:AA" + "b" * 20 + " ") * (size // 34),
        "mysql": ("mysql " + "x " * 100) * (size // 206),
        "pem headers": ("-----BEGIN RSA " + "PRIVATE KEY-----\n" + "A" * 30 + "\n") * (size // 62),
        "nested base64": "",
        "key= run": "key=" * (size // 4),
        "labels with digits": "token 1 " * (size // 8),
        "values before labels": "aB3dE5gH9kLm is the token " * (size // 26),
        "plural labels": "tokens: " * (size // 8),
        "der words": ("MII" + "A" * 60 + " ") * (size // 64),
        "foreign words": "clave токен 密钥 " * (size // 16),
    }
    import base64

    nested = "password=" + "S3cr3t!x" * 10
    for _ in range(4):
        nested = base64.b64encode(nested.encode()).decode()
    shapes["nested base64"] = _fill(nested + " ", size)
    return shapes


def _time_per_call(text: str, rounds: int) -> float:
    times = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        find_secrets(text)
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer timing rounds")
    args = parser.parse_args()
    rounds = 50 if args.quick else 300

    refused = [name for name, text in FORMS if find_secrets(text)]
    missed = [name for name, text in FORMS if not find_secrets(text)]
    false_pos = [text for text in LOOK_ALIKES if find_secrets(text)]
    print(f"credential forms tried: {len(FORMS)}, refused: {len(refused)}, missed: {len(missed)}")
    for name in missed:
        print(f"  missed: {name}")
    print(f"harmless look-alikes tried: {len(LOOK_ALIKES)}, false positives: {len(false_pos)}")
    for text in false_pos:
        print(f"  false positive: {text[:60]!r}")
    try:
        from test_policy import NEGATIVES, POSITIVES
    except ImportError:  # pytest and hypothesis are test extras
        pass
    else:
        caught = sum(1 for _, text in POSITIVES if find_secrets(text))
        clean = sum(1 for text in NEGATIVES if not find_secrets(text))
        print(f"older corpus (tests/test_policy.py): {caught}/{len(POSITIVES)} refused, "
              f"{clean}/{len(NEGATIVES)} look-alikes accepted")

    print("\nfind_secrets, median of", rounds, "calls:")
    for label, text in [("typical 4 KB memory (prose)", _fill(_PROSE)), ("4 KB of code", _fill(_CODE)),
                        ("4 KB non-ASCII prose", _fill(_NON_ASCII)),
                        ("4 KB of the credential corpus", _fill("\n".join(t for _, t in FORMS)))]:
        t = _time_per_call(text, rounds)
        print(f"  {label:34s} {t * 1000:7.3f} ms  ({t * 1000 / (len(text) / 1024):.3f} ms/KB)")
    worst = ("", 0.0)
    print("\n200 KB pathological inputs, one call each:")
    for label, text in _pathological().items():
        t = _time_per_call(text, 1)
        worst = max(worst, (label, t), key=lambda x: x[1])
        print(f"  {label:24s} {t * 1000:8.1f} ms")
    print(f"worst: {worst[0]} at {worst[1] * 1000:.1f} ms for 200 KB")
    return 0


if __name__ == "__main__":
    code = main()
    print(load_line())
    sys.exit(code)
