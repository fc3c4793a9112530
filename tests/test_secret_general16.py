"""The secret gate judges a setting by its value, whatever the setting's name (sec23, issue 23 item 5).

Every earlier class reached a credential through a word: a label (``password``, ``token``, ``key``),
a vendor's prefix, a file's or a command's name. A vendor no rule lists names its settings as it
likes (``FROB_ACCESS``, ``HOOK_SIGNING``, ``"authz"``, ``<frobAccess>``, ``--using``), so a random
token there passed. Now a random token (upper and lower case and digits, high entropy, no name's
words; or 32 lower-case letters and digits mixed as a random draw mixes them) that is a setting's
value counts under a name of any words, in every syntax a setting is written in: a dotenv or shell
line, YAML (a tag before the value too), TOML, INI, JSON, a JS or Python object, XML, a Kubernetes
``name``/``value`` pair, a compose file's list, PowerShell's ``$env:``, an HTTP header line, a
command's ``--option``, ``NAME=X`` inside a line (``docker run -e``, systemd's ``Environment=``,
``helm --set``), a command that sets a variable (``setx``, ``set -gx``). Names are drawn from
made-up vendors' words, values from one seeded generator.

Beside each place, what must pass there: a name whose words say it holds an id, a digest, a public
part or a thing's name (``FROB_ID``, ``ARTIFACT_SUM``, ``requestId``, ``integrity``,
``VAPID_PUBLIC_KEY``, ``cursor``, ``imageTag``, a JWK's ``n``/``x``/``y``), a value an id's prefix
names (``price_<random>``), a base58 address or an extended public key, base64 of text or of an
image, hex, a UUID, words, a placeholder, a ``value`` beside a ``name`` that is an id's, a URL's
query (a page's tracking ids), a record's one-letter tag (DKIM's ``p=``) and a path of names
(``HuggingFaceH4/zephyr-7b-beta``, found in huggingface_hub's docstrings by ``bench/secret_real_text.py``). A thing's
noun names the value only as the name's last word (``FROB_APP`` is an app's id, ``APP_PEPPER`` the
app's pepper).

The same file holds the other classes sec23 found by probing forms no corpus had, each beside what
must pass in its place (``MORE``):

- a random token marked secret in words no label list holds, before or after the mark ("keep this
  safe: X", "X - don't share this one", "treat it as confidential"); a word between naming the value
  an id ("sensitive ticket, request id X") and a mark with no token pass;
- a password's name written short or misspelt (``pword``, ``pswd``, ``pasword``, ``passwrd``);
- a password alone on the line below a user's name given with no sign ("user jdoe", "account svc");
- a person's password of two words and a number named by its use with no label ("log in as root
  with <word>.<word><digits>", "jdoe / <word>-<word><digits>", "use X to unlock"); a word and a
  version or a year (``release.2026``, ``okta.sso2``) passes;
- a login's user and password joined as Basic auth joins them or by "and", after a login's word
  ("basic auth svc:X", "creds are admin and X", "account: admin:X"); an ARN's, a URL's or a port's
  colon passes.
"""

from __future__ import annotations

import base64
import json

import pytest

from secret_probe import ALNUM, HEX, Draw, refused, uuid4
from vault_mem.model.secret_tokens import base36_tail

_D = Draw(20261223)
_RNG = _D.rng
_B64 = ALNUM + "+/"
_VENDORS = ("frob", "quix", "zorvo", "plinth", "marlo", "tessic", "brumm", "vantly")
_PARTS = ("access", "signing", "pepper", "authz", "priv", "handshake", "bind", "unlock", "grant", "master", "relay", "hook")


def _name(style: str) -> str:
    """A made-up vendor's setting name with no credential word (``FROB_SIGNING``, ``quixAuthz``)."""
    vendor, part = _RNG.choice(_VENDORS), _RNG.choice(_PARTS)
    if style == "upper":
        return f"{vendor}_{part}".upper()
    if style == "camel":
        return vendor + part.capitalize()
    return f"{vendor}_{part}"


def _token(n: int = 40) -> str:
    return _D.r(n)


def _base36(n: int) -> str:
    while True:
        value = _D.r(n, "abcdefghijklmnopqrstuvwxyz0123456789")
        if base36_tail(value):
            return value


def _places(name: str, value: str, camel: str, snake: str) -> list[tuple[str, str]]:
    """(place, body) for one value under a name, in each syntax a setting is written in."""
    return [
        ("dotenv", f"{name}={value}"),
        ("export", f"export {name}=\"{value}\""),
        ("yaml", f"{snake.split('_')[0]}:\n  endpoint: https://api.example.org\n  {snake}: {value}"),
        ("toml", f"[{snake.split('_')[0]}]\nhost = \"api.example.org\"\n{snake} = \"{value}\""),
        ("ini", f"[remote]\nurl=https://x.example.org\n{snake}={value}"),
        ("json", json.dumps({"service": "acme", camel: value})),
        ("js-object", f"const cfg = {{ region: 'eu', {camel}: '{value}' }};"),
        ("xml", f"<config><{camel}>{value}</{camel}></config>"),
        ("k8s-env", f"env:\n  - name: {name}\n    value: {value}"),
        ("compose-list", f"environment:\n  - {name}={value}"),
        ("powershell", f"$env:{name} = \"{value}\""),
        ("header", f"X-{camel}: {value}"),
        ("flag", f"{snake.split('_')[0]}ctl connect --{snake.replace('_', '-')} {value}"),
        ("flag-equals", f"{snake.split('_')[0]}ctl connect --{snake.replace('_', '-')}={value}"),
        ("docker-e", f"docker run -d -e {name}={value} {snake.split('_')[0]}/agent"),
        ("systemd", f"[Service]\nEnvironment=\"{name}={value}\""),
        ("helm-set", f"helm install {snake.split('_')[0]} charts/agent --set {camel}={value}"),
        ("setx", f"setx {name} {value}"),
        ("fish-set", f"set -gx {name} {value}"),
        ("yaml-tag", f"{snake}: !unsafe '{value}'"),
    ]


def _cases() -> list[tuple[str, str, bool]]:
    cases = []
    for i in range(3):  # three draws of names and values in each place
        for place, body in _places(_name("upper"), _token(_RNG.choice((28, 36, 40, 48))), _name("camel"), _name("snake")):
            cases.append((f"{place}-{i}", body, True))
        # base64 of random bytes (a key's material) under an unknown name
        # 32 or more lower-case letters and digits drawn at random (base36), mixed as base36_tail
        # reads a random draw: 85% of raw 32-character draws and 90% of 40-character ones are (the
        # rest, digit-poor, read as letters run together and pass; RELIABILITY.md says so)
        cases.append((f"base36-{i}", f"{_name('upper')}={_base36(_RNG.choice((32, 40)))}", True))
        cases.append((f"b64-material-{i}", f"{_name('upper')}={base64.b64encode(bytes(_RNG.randrange(256) for _ in range(32))).decode()}", True))
    t = _token
    passes = [
        # names whose words say what else the value is
        ("id-name", f"FROB_ID={t(32)}"),
        ("sum-name", f"ARTIFACT_SUM={t(44)}"),
        ("request-id", json.dumps({"requestId": t(32)})),
        ("integrity", f'"integrity": "sha512-{_D.r(86, _B64)}=="'),
        ("public-key-name", f"VAPID_PUBLIC_KEY={t(44)}"),
        ("cursor", json.dumps({"cursor": t(40)})),
        ("image-tag", f"imageTag: {t(30)}"),
        ("fingerprint", json.dumps({"fingerprint": t(43)})),
        ("jwk-public", json.dumps({"kty": "EC", "crv": "P-256", "x": _D.r(43, ALNUM + "-_"), "y": _D.r(43, ALNUM + "-_")})),
        ("checksum-yaml", f"checksum: {t(44)}"),
        ("state", json.dumps({"state": t(32), "redirect_uri": "https://app.example.org/cb"})),
        ("nonce", f"nonce={t(32)}"),
        ("trace", f"--trace-id {t(32)}"),
        ("commit-flag", f"deployctl rollout --commit {t(40)}"),
        # values that say what they are
        ("price-id", f"PRO_MONTHLY=price_{t(24)}"),
        ("base58-address", f"FROB_TREASURY={''.join(_RNG.choice('123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz') for _ in range(25))}"
                           .replace("FROB_TREASURY=", "FROB_TREASURY=1")),
        ("xpub", f"FROB_WATCH=xpub661MyMwAqRbc{''.join(_RNG.choice('123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz') for _ in range(95))}"),
        ("b64-text", f"FROB_BANNER={base64.b64encode(b'Welcome to the staging cluster, be nice').decode()}"),
        ("b64-json", f"FROB_PREFS={base64.b64encode(json.dumps({'theme': 'dark', 'lang': 'de'}).encode()).decode()}"),
        ("b64-png", f"PIXEL = '{base64.b64encode(bytes.fromhex('89504e470d0a1a0a') + bytes(_RNG.randrange(256) for _ in range(40))).decode()}'"),
        ("hex", f"FROB_BUILD_REV={_D.r(40, HEX)}"),
        ("uuid", f"FROB_TENANT={uuid4(_RNG)}"),
        ("words", "FROB_GREETING=HelloFromTheStagingClusterV2"),
        ("placeholder", "FROB_ACCESS=<your-frob-access-here>"),
        ("masked", "FROB_ACCESS=xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"),
        ("variable", "FROB_ACCESS=${FROB_ACCESS_FROM_VAULT}"),
        ("har-value-id", '{"name": "x-amz-cf-id", "value": "' + t(54) + '=="}'),
        ("public-value", json.dumps({"typeUrl": "type.googleapis.com/google.crypto.tink.Ed25519PublicKey", "value": t(43)})),
        ("prose-colon", f"Top hits: vec_{t(26)} and more"),
        ("short", f"FROB_ACCESS={t(16)}"),
        ("app-id", f"FROB_APP={t(32)}"),
        ("if-none-match", f"fetch(url, {{ headers: {{ 'If-None-Match': '{t(32)}' }} }})"),
        ("dkim-p", f'sel._domainkey.example.org. TXT "v=DKIM1; k=rsa; p={_D.r(300, _B64)}"'),
        ("query-tracking", f"https://www.example.org/search?q=sqlite&ved={t(40)}&ei={t(24)}"),
        ("docker-e-build-id", f"docker run -e FROB_BUILD_ID={t(32)} frob/agent"),
        ("model-path", '...     model="m-a-p/YuE-s1-7B-anneal-en-cot",'),
        ("source-path", 'FROB_SOURCE="HuggingFaceH4/zephyr-7b-beta"'),
        ("lower-words", "FROB_GREETING=thequickbrownfoxjumpsoverthelazydog42"),
        ("lower-slug-run", "FROB_CHANNEL_TOPIC=releasenotesforversiontwentysix2026"),
    ]
    cases.append(("owner-noun-first", f"APP_PEPPER={t(40)}", True))
    cases.append(("owner-noun-user", f"USER_SIGNING={t(40)}", True))
    cases.extend((name, body, False) for name, body in passes)
    return cases


CASES = _cases()


@pytest.mark.parametrize(("body", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_a_setting_is_judged_by_its_value_whatever_its_name(body: str, expected: bool) -> None:
    assert refused(body, description="service settings") == expected, body


_DESC = "service settings"


def _warned() -> list[tuple[str, str, bool]]:
    t = _token
    return [
        ("keep-safe", f"keep this safe: {t(36)}", True),
        ("dont-share-after", f"{t(36)} - don't share this one", True),
        ("never-expose", f"never expose this outside the cluster: {t(32)}", True),
        ("treat-confidential", f"treat it as confidential, {t(40)}", True),
        ("keep-to-yourself", f"keep it to yourself\n{t(40)}", True),
        ("request-id-between", f"sensitive ticket OPS-{_RNG.randrange(1000, 9999)}, request id {t(32)}", False),
        ("mark-no-token", "keep this safe: the printed recovery sheet is in the drawer", False),
        ("dont-share-link", f"don't share the link to build {_RNG.randrange(1000, 9999)}", False),
        ("confidential-uuid", f"confidential: draft {uuid4(_RNG)} of the roadmap", False),
        ("commit-before", f"merged {_D.r(40, HEX)} - do not share the branch yet", False),
    ]


def _person() -> str:
    a, b = _RNG.sample(["quartz", "walnut", "harbor", "saffron", "ember", "tundra", "cobalt", "meadow"], 2)
    return f"{a}.{b}{_RNG.randrange(10, 99)}"


def _labels() -> list[tuple[str, str, bool]]:
    return [
        ("pword", f"pword: {_person()}", True),
        ("pswd", f"router pswd = {_pw()}", True),
        ("pasword", f"pasword: {_person()}", True),
        ("passwrd", f"vpn passwrd {_pw()}", True),
        ("pword-policy", "the pword policy says 12 characters", False),
        ("pswd-unset", "pswd: (unset)", False),
    ]


def _pw() -> str:
    return _D.r(14, ALNUM + "#%&*+=?@!")


def _below() -> list[tuple[str, str, bool]]:
    return [
        ("user-no-sign", f"NAS\nuser jdoe\n{_pw()}", True),
        ("account-no-sign", f"backup target\naccount svc-backup\n{_pw()}", True),
        ("user-guide", "user guide\nsee chapter 4 for the details", False),
        ("account-page", "account settings\nhttps://app.example.org/account", False),
    ]


def _used() -> list[tuple[str, str, bool]]:
    return [
        ("log-in-as-with", f"log in as root with {_person()}", True),
        ("signs-in-slash", f"she signs in with jdoe / {_person()}", True),
        ("use-to-unlock", f"use {_person().replace('.', '-')} to unlock the backup disk", True),
        ("sign-in-release", "sign in with release.2026 once the upgrade is done", False),
        ("log-in-okta", "log in with okta.sso2 from the portal", False),
        ("slash-build-step", "pipeline: deploy / build-step12 failed", False),
    ]


def _pairs() -> list[tuple[str, str, bool]]:
    return [
        ("basic-auth-colon", f"basic auth svc:{_pw()}", True),
        ("creds-are-and", f"creds are admin and {_person()}", True),
        ("account-colon-pair", f"account: admin:{_pw()}", True),
        ("credentials-arn", f"credentials: aws:iam::{_RNG.randrange(10**11, 10**12)}:role/deploy", False),
        ("login-host-port", "login: db.internal:5432 for the reports", False),
        ("login-and-words", "login is admin and the usual one", False),
    ]


MORE = _warned() + _labels() + _below() + _used() + _pairs()


@pytest.mark.parametrize(("body", "expected"), [c[1:] for c in MORE], ids=[c[0] for c in MORE])
def test_a_mark_a_short_label_or_a_user_above_names_a_credential(body: str, expected: bool) -> None:
    assert refused(body, description="notes") == expected, body
