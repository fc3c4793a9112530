"""The classes blind26's blind corpus (``bench/data/secrets_heldout26.py``) found the gate missing,
each beside what must pass in its place (issue 23 item 5). Values are drawn from one seeded
generator; none is the corpus's string.

- A password of two or three capitalised words run together and a number (``LanternGlacier1117``)
  was read as a CamelCase type's name (``password: SecretStr``) and passed after ``password:``, in
  prose ("pw for the NAS is X", "Remember that X is the root password"), after Japanese and
  Turkish labels and after ``-passin pass:``. A type's name ends in a size or a version
  (``HmacSha256``, ``TokenV2``) and still passes.
- A ``%`` inside a password before a word (``Amber%raven66``) was read as a format directive
  (``%r``) and the value as a template. A directive is no letter that a lower-case letter follows;
  ``'%s'``, ``'%(db_password)s'`` and ``pass_%d`` stay templates.
- An ODBC password in braces (``Pwd={sierra.maple.426}``, the braces quote it) had to look random;
  a person's words and number count as a quoted value does. ``{password}``, ``{db_pass}``,
  ``{settings.pass12}`` and ``{0}`` stay a template's fields.
- A seed phrase under a label in Chinese, Japanese or Korean (``助记词：``, ``復元フレーズ：``) or
  French ("les 24 mots :"), its words all of one BIP-39 list but its checksum not a wallet's (a
  word copied wrong): the label's reader took lower-case Latin words only. A sentence after the
  label, and a French keyword list ("mots-clés :"), pass.
- Asana's personal access tokens (``2/<user id>/<app id>:<32 hex>``): one row of the provider
  table; a task's URL (``/0/<id>/<id>``) passes.
- A JWT pasted one part a line (broken at its dots): the three lines are read as one token by
  the provider formats; the jwt.io sample split so still passes.
- A setting whose own name says it is an id (``GOOGLE_CLIENT_ID=<id>``) was refused as the
  credential its memory's description or tags name ("sign-in", ``auth``). The value's name
  outranks the label; a secret's name (``GOOGLE_CLIENT_SECRET=``) under the same label is refused.
"""

from __future__ import annotations

import pytest

from secret_probe import ALNUM, Draw, refused, uuid4
from vault_mem.errors import SecretError
from vault_mem.model.policy import check_write
from vault_mem.model.secrets import find_secrets

_D = Draw(20261205_18)
_RNG = _D.rng
_NAMES = ["Falcon", "Harbor", "Walnut", "Copper", "Meadow", "Thistle", "Cobalt", "Juniper", "Lantern", "Sierra",
          "Tundra", "Orchid", "Pepper", "Glacier", "Raven", "Marble", "Cinder", "Willow"]


def _camel() -> str:
    """Two capitalised words run together and three to four digits: a password a person made."""
    a, b = _RNG.sample(_NAMES, 2)
    return f"{a}{b}{_RNG.randrange(100, 9999)}"


def _camels() -> list[tuple[str, str, bool]]:
    return [
        ("yaml-list-item", f"db_users:\n  - name: app\n    password: {_camel()}\n    flags: LOGIN", True),
        ("ini", f"[db]\nuser = billing\npassword = {_camel()}\nport = 5432", True),
        ("prose-pw-for", f"pw for the NAS admin page is {_camel()}", True),
        ("prose-value-first", f"Remember that {_camel()} is the root password on db-03.", True),
        ("japanese", f"本番サーバーのパスワードは {_camel()} です", True),
        ("turkish", f"veritabanı şifresi: {_camel()}", True),
        ("openssl-passin", f"openssl rsa -in key.pem -passin pass:{_camel()} -out plain.pem", True),
        ("three-words", f"password: {_RNG.choice(_NAMES)}{_RNG.choice(_NAMES)}{_RNG.choice(_NAMES)}{_RNG.randrange(100, 999)}", True),
        # a type's name after the label: a type hint, a size, a version
        ("type-hint", "password: SecretStr", False),
        ("type-size", "password: HmacSha256", False),
        ("type-version", "token: TokenV2", False),
        ("key-size", "password: RsaKey2048", False),
        ("model-prose", "the password manager runs on the MacBook in room 2", False),
    ]


def _percents() -> list[tuple[str, str, bool]]:
    word = _RNG.choice(_NAMES)
    return [
        ("ini-percent", f"[database]\npassword = {word}%raven{_RNG.randrange(10, 99)}", True),
        ("env-percent", f"DB_PASS={word}%kite{_RNG.randrange(10, 99)}", True),
        ("yaml-percent", f"password: {word.lower()}%Tulip{_RNG.randrange(100, 999)}", True),
        ("format-s", 'password = "%s"', False),
        ("format-named", "password: '%(db_password)s'", False),
        ("format-d", 'PASSWORD_TEMPLATE = "pass_%d"', False),
        ("format-pair", "creds = '%s:%s' % (user, password)", False),
    ]


def _braces() -> list[tuple[str, str, bool]]:
    a, b = _RNG.sample([n.lower() for n in _NAMES], 2)
    return [
        ("odbc-dotted", f"Driver={{ODBC Driver 18 for SQL Server}};Server=tcp:db,1433;Uid=bi;Pwd={{{a}.{b}.{_RNG.randrange(100, 999)}}};",
         True),
        ("odbc-dashed", f"DSN=erp;UID=report;PWD={{{a.capitalize()}-{b}-{_RNG.randrange(10, 99)}}};", True),
        ("odbc-random", f"Uid=sa;Pwd={{{_D.r(16)}}};", True),
        ("odbc-field", "Uid={user};Pwd={password};", False),
        ("odbc-snake-field", 'conn = f"Uid={db_user};Pwd={db_pass};"', False),
        ("odbc-dotted-field", 'conn = f"Uid={settings.user};Pwd={settings.pass12};"', False),
        ("odbc-index", 'conn = "Uid={0};Pwd={1};".format(user, pw)', False),
    ]


def _id_names() -> list[tuple[str, str, str, tuple[str, ...], bool]]:
    client = f"{_RNG.randrange(10**11, 10**12)}-{_D.r(32, 'abcdefghijklmnopqrstuvwxyz0123456789')}.apps.googleusercontent.com"
    return [
        ("google-client-id", f"GOOGLE_CLIENT_ID={client}", "Google sign-in client id (public)", ("auth",), False),
        ("tenant-id", f"AZURE_TENANT_ID={uuid4(_RNG)}", "Tenant of the app registration's login", ("auth",), False),
        ("app-id", f"APP_ID={_D.r(20)}", "Login app for the partner API", ("auth",), False),
        ("client-secret", f"GOOGLE_CLIENT_SECRET=GOCSPX-{_D.r(28, ALNUM + '-_')}", "Google sign-in client", ("auth",), True),
        ("auth-secret", f"AUTH_SECRET={_D.r(40)}", "Login setup", ("auth",), True),
        ("bare-value", _D.r(40), "Login secret for the partner API", ("auth",), True),
    ]


def _phrases() -> list[tuple[str, str, bool]]:
    from vault_mem.model.seed_words_other import other_lists

    lists = other_lists()

    def words(lang: str, n: int, sep: str = " ") -> str:
        return sep.join(_RNG.sample(lists[lang][:300], n))

    return [
        ("chinese-label", f"助记词：{words('chinese_simplified', 12)}", True),
        ("chinese-label-after-word", f"钱包助记词: {words('chinese_simplified', 12)}", True),
        ("japanese-label", f"復元フレーズ：{words('japanese', 12, chr(0x3000))}", True),
        ("korean-label", f"복구 구문: {words('korean', 12)}", True),
        ("french-count", f"les 24 mots : {words('french', 24)}", True),
        ("chinese-sentence", "助记词：请妥善保管，不要截图，也不要发给任何人", False),
        ("japanese-sentence", "復元フレーズ：紙に書いて金庫に保管してください", False),
        ("french-keywords", "mots-clés : sécurité, réseau, chiffrement, stockage, sauvegarde, mémoire, agent, "
                            "journal, fichier, branche, dépôt, index", False),
    ]


def _asana() -> list[tuple[str, str, bool]]:
    ids = [str(_RNG.randrange(10**15, 10**16)) for _ in range(4)]
    return [
        ("asana-v2", f"ASANA_PAT=2/{ids[0]}/{ids[1]}:{_D.r(32, '0123456789abcdef')}", True),
        ("asana-v1-prose", f"the triage bot signs in with 1/{ids[2]}:{_D.r(32, '0123456789abcdef')}", True),
        ("asana-task-url", f"https://app.asana.com/0/{ids[2]}/{ids[3]}/f", False),
        ("fraction-and-hash", f"2/{ids[3]} of the runs; commit {_D.r(40, '0123456789abcdef')}", False),
    ]


def _jwt_lines() -> list[tuple[str, str, bool]]:
    import base64
    import json

    def part(obj: dict) -> str:
        return base64.urlsafe_b64encode(json.dumps(obj).encode()).decode().rstrip("=")

    head, body = part({"alg": "HS256", "typ": "JWT"}), part({"sub": "svc-sync", "iat": 1764900000})
    sample = ("eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9\neyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ"
              "\nSflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c")
    return [
        ("jwt-three-lines", f"{head}\n{body}\n{_D.r(43, ALNUM + '-_')}", True),
        ("jwt-indented-lines", f"token:\n    {head}\n    {body}\n    {_D.r(43, ALNUM + '-_')}", True),
        ("jwt-io-sample-lines", sample, False),
        ("jwt-header-and-payload", f"header: {head}\npayload: {body}\n(the signature is checked by the gateway)", False),
    ]


CASES = _camels() + _percents() + _braces() + _phrases() + _asana() + _jwt_lines()


@pytest.mark.parametrize(("body", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_blind26_classes(body: str, expected: bool) -> None:
    assert refused(body, description="notes") == expected, body


def _refused_with(body: str, description: str, tags: tuple[str, ...]) -> bool:
    try:
        check_write(key="probe", description=description, body=body, meta={"tags": list(tags)})
    except SecretError:
        return True
    return False


@pytest.mark.parametrize(("body", "description", "tags", "expected"), [c[1:] for c in _id_names()],
                         ids=[c[0] for c in _id_names()])
def test_a_value_named_an_id_is_not_the_credential_its_description_names(
        body: str, description: str, tags: tuple[str, ...], expected: bool) -> None:
    assert _refused_with(body, description, tags) == expected, body


# --- hostile input completes ---------------------------------------------------------------------

_SIZE = 200 * 1024


@pytest.mark.parametrize("text", [
    "password: " + "LanternGlacier1117 " * (_SIZE // 19),  # capitalised words and numbers, again and again
    "password = " + "a%r" * (_SIZE // 3),  # directives' look-alikes in one value
    "Pwd={" + "sierra.maple.426." * (_SIZE // 17) + "}",  # a braced value as long as the text
    "eyJhbGciOiJIUzI1NiJ9\n" * (_SIZE // 21),  # JWT headers, one a line
    "助记词：" + "的 " * (_SIZE // 2),  # a phrase's label and one list word again and again
    "2/" + "1234567890/" * (_SIZE // 11),  # Asana's ids with no end
])
def test_a_text_made_of_blind26s_markers_completes(text: str) -> None:
    find_secrets(text[:_SIZE])  # completing is the point (each read stays within a reach)
