"""The classes blind27's blind corpus (``bench/data/secrets_heldout27.py``) found the gate missing,
each beside what must pass in its place (issue 23 item 5). Values are drawn from one seeded
generator; none is the corpus's string. One table: (id, body, refused?).

- A password named in another language's prose with words between the label and its "is":
  Dutch "voor de router", Swedish "till servern", Russian "от", Ukrainian "до", Vietnamese
  "quản trị", Polish "hasło do VPN to X" (Polish writes "is" as "to"), a dash as the sign; French
  « X » and German „X“ quote as ASCII quotes do; an adverb after "is" ("is apparently X"); one long
  word, a joint and two digits (``Kanelbulle_99``).
- A Windows variable (``PASSWORD=%DB_PASSWORD%``) was decoded as URL escapes (``%DB`` as the
  byte 0xDB) and refused; an escape that decodes to no UTF-8 character is no URL-encoding.
- Commands: ``net use`` with the password after ``/user:``; a user and password in one argument
  (``smbclient -U u%X``, ``lftp -u u,X``, ``http -a u:X``) with a person's words and number; a
  spelled-out ``/password:X`` flag; a quoted password after ``add_user``; a quoted passphrase after
  ``openssl -k``; an OTP secret given to ``ykman oath accounts add`` or ``oathtool``; a registry
  value named for a password (``reg add /v DefaultPassword /d X``, ``-Name ... -Value X``); a value
  piped into ``/dev/stdin`` for a password.
- Passphrases: capitalised words, or words and a number, in quotes; words and a trailing number
  joined ("the router password to <w>-<w>-<w>-42"); "new one is '<Words> 88'".
- Places: an account's login read out with a slash (``root / X``, ``admin/X``), the line under a
  login's user, a ``.pgpass`` line inside a sentence naming the file, a Wi-Fi QR code's ``P:``,
  "with password 'X'", numeric backup codes "for <account>:", a seed phrase in a Markdown table,
  armour named for a token, a Django key whose bracket follows a digit (no call's name starts so).
"""

from __future__ import annotations

import pytest

from secret_probe import HEX, Draw, bip39_words, person, refused
from vault_mem.model.secrets import find_secrets

_D = Draw(20261205_19)
_RNG = _D.rng
_TITLES = ["Falcon", "Harbor", "Walnut", "Copper", "Meadow", "Thistle", "Cobalt", "Juniper", "Lantern", "Sierra",
           "Tundra", "Orchid", "Pepper", "Glacier", "Raven", "Marble", "Cinder", "Willow", "Puffin", "Heron"]
_B32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"


def _titled(sep: str = "-", digits: int = 2) -> str:
    """Two capitalised words and a number joined as a person joins them (``Harbor-Walnut-42``)."""
    a, b = _RNG.sample(_TITLES, 2)
    return f"{a}{sep}{b}{sep}{_RNG.randrange(10 ** (digits - 1), 10 ** digits)}"


def _prose() -> list[tuple[str, str, bool]]:
    return [
        ("dutch-voor", f"Het wachtwoord voor de router is {person(_RNG)}", True),
        ("swedish-till", f"Lösenordet till servern är {_RNG.choice(_TITLES)}bulle_{_RNG.randrange(10, 99)}", True),
        ("russian-ot", f"Пароль от сервера: Берёза-Волга-{_RNG.randrange(10, 99)}", True),
        ("ukrainian-do-dash", f"Пароль до адмінки — Вишня_Київ_{_RNG.randrange(2000, 2030)}", True),
        ("vietnamese-quan-tri", f"Mật khẩu quản trị là {_titled()}", True),
        ("polish-to", f"hasło do VPN to {person(_RNG)}", True),
        ("polish-to-titled", f"Hasło do routera to {_titled()}", True),
        ("french-guillemets", f"Le mot de passe du wifi est « {_titled()} ».", True),
        ("german-low-quotes", f"Das Passwort lautet „{_RNG.choice(_TITLES)} {_RNG.choice(_TITLES).lower()} {_RNG.randrange(10, 99)}“", True),
        ("adverb-after-is", f"His Gmail password is apparently {_RNG.choice(_TITLES)}{_RNG.randrange(1950, 2010)} (he asked me to keep it)", True),
        ("dash-sign", f"password for the NAS — {person(_RNG)}", True),
        ("long-word-two-digits", f"password: {_RNG.choice(_TITLES)}bulle_{_RNG.randrange(10, 99)}", True),
        # what must pass in their place
        ("property-noun", "the password policy is Policy_v2", False),
        ("dutch-state", "Het wachtwoord voor de router is verlopen", False),
        ("polish-state", "hasło do VPN to nowe", False),
        ("typographic-quoted-word", "the “password” field is required", False),
        ("adverb-state", "the password is now expired", False),
        ("adverb-prose", "Generally a shrink pass is just any function that calls", False),
        ("dash-arithmetic", "token - 1", False),
        ("dash-field", "the password field - Version_10", False),
        ("one-word-name", "password: Route_66", False),
    ]


def _windows_variables() -> list[tuple[str, str, bool]]:
    return [
        ("windows-variable", "PASSWORD=%DB_PASSWORD%\nsqlcmd -S . -U sa -P %PASSWORD%", False),
        ("windows-variable-token", "set API_TOKEN=%VAULT_TOKEN%", False),
        ("url-encoded-password", f"password=Vq{_RNG.randrange(10, 99)}%40mLx2%21tR9", True),
    ]


def _commands() -> list[tuple[str, str, bool]]:
    hotp = _D.r(40, HEX)
    return [
        ("net-use-after-user", f"net use Z: \\\\fs01\\projects /user:CORP\\ana {person(_RNG)} /persistent:yes", True),
        ("net-use-after-user-titled", f"net use Z: \\\\fs01\\finance /user:CORP\\jdoe {_titled('.', 4)}", True),
        ("smbclient-percent", f"smbclient //nas/media -U ana%{_titled()}", True),
        ("lftp-comma", f"lftp -u backup,{_titled('.')} sftp://files.corp.example", True),
        ("httpie-a", f"http -a deploy:{_RNG.choice(_TITLES)}-Fuel-{_RNG.randrange(10, 99)} PUT https://nexus.lan/raw/app.tgz", True),
        ("wmic-password", f"wmic /node:10.0.0.20 /user:admin /password:{_RNG.choice(_TITLES)}-Rain-{_RNG.randrange(1, 9)} process list",
         True),
        ("add-user-quoted", f"rabbitmqctl add_user metrics '{_RNG.choice(_TITLES)}!Coral!{_RNG.randrange(1, 9)}'", True),
        ("openssl-k-words", f"openssl enc -aes-256-cbc -d -in vault.enc -k '{' '.join(_RNG.sample(_TITLES, 3))} {_RNG.randrange(1, 9)}'",
         True),
        ("ykman-hotp-hex", f"ykman oath accounts add --oath-type HOTP --counter 0 vpn-hotp {hotp}", True),
        ("ykman-base32", f"ykman oath accounts add -i GitHub ana {_D.r(32, _B32)}", True),
        ("oathtool-hex", f"oathtool --hotp {_D.r(40, HEX)}", True),
        ("reg-add-default-password", f"reg add HKLM\\SOFTWARE\\Microsoft\\Windows NT\\CurrentVersion\\Winlogon /v DefaultPassword"
                                     f" /t REG_SZ /d {person(_RNG)} /f", True),
        ("set-itemproperty", f"Set-ItemProperty -Path $reg -Name DefaultPassword -Value '{person(_RNG)}'", True),
        ("piped-dev-stdin", f"echo -n '{_titled()}' | kubectl create secret generic smtp --from-file=password=/dev/stdin", True),
        # what must pass in their place
        ("net-use-prompt", "net use Z: \\\\fs01\\share /user:CORP\\%USERNAME% *", False),
        ("net-use-variable", "net use Z: \\\\fs01\\share /user:CORP\\ana %PASSWORD%", False),
        ("docker-user-group", "docker run -u www-data:www-data nginx", False),
        ("curl-doc-pair", "curl -u username:password https://api.example.com/v1/items", False),
        ("user-version", "curl -u user:v1.2.3-beta https://x.example", False),
        ("wmic-prompt", "wmic /user:admin /password:* process list", False),
        ("add-user-own-name", "rabbitmqctl add_user metrics 'metrics'", False),
        ("ykman-usage", "ykman oath accounts add <name> <base32-secret>", False),
        ("ykman-list", "ykman oath accounts list", False),
        ("reg-add-user-name", "reg add HKLM\\SOFTWARE\\X /v DefaultUserName /t REG_SZ /d kiosk /f", False),
        ("set-itemproperty-variable", "Set-ItemProperty -Path $reg -Name DefaultPassword -Value $pw", False),
        ("piped-text", "echo hello-world-42 | cat /dev/stdin", False),
    ]


def _phrases() -> list[tuple[str, str, bool]]:
    words = "-".join(_RNG.sample(["purple", "monkey", "basket", "lantern", "copper", "meadow"], 3))
    return [
        ("quoted-titled-words", f"passphrase is \"{' '.join(_RNG.sample(_TITLES, 3))}\"", True),
        ("quoted-camel-and-words", f"The backup disk unlocks with the passphrase \"{_RNG.choice(_TITLES)}{_RNG.choice(_TITLES)}"
                                   f"{_RNG.randrange(1000, 9999)} orbit {_RNG.randrange(100, 999)}\".", True),
        ("new-one-quoted-words", f"Guest network password changed; new one is '{' '.join(_RNG.sample(_TITLES, 2))} {_RNG.randrange(10, 99)}'",
         True),
        ("password-to-words-number", f"I changed the router password to {words}-{_RNG.randrange(10, 99)} yesterday.", True),
        ("with-password-quoted", f"poll imap.example.com user 'ana' there with password '{_RNG.choice(_TITLES)}9Breeze{_RNG.randrange(2, 9)}'",
         True),
        # what must pass in their place
        ("quoted-state-words", "the passphrase 'Not Set Yet'", False),
        ("quoted-prompt", "the password \"Enter Your Password\" label", False),
        ("new-one-prose", "the password changed, new one is 'in the vault'", False),
        ("password-to-words", "set the password to expire-after-ninety-days", False),
        ("pass-verb-quoted", "Cannot pass 'force_download=True' and 'local_files_only=True' at the same time.", False),
        ("quoted-word", "the password 'admin' is rejected", False),
    ]


def _places() -> list[tuple[str, str, bool]]:
    seed = bip39_words(_RNG, 12)
    table = "| # | word |\n|---|---|\n" + "\n".join(f"| {i} | {w} |" for i, w in enumerate(seed, 1))
    codes = ", ".join(str(_RNG.randrange(10**7, 10**8)) for _ in range(8))
    return [
        ("account-spaced-slash", f"UniFi controller SSH: root / {_titled('-', 4)}", True),
        ("account-slash", f"Router admin at 192.168.0.1, admin/{_RNG.choice(_TITLES)}#Home#{_RNG.randrange(2, 9)}", True),
        ("login-two-lines", f"OpenVPN auth-user-pass file:\nana\n{_titled('-', 4)}", True),
        ("pgpass-in-sentence", f"~/.pgpass line for the replica: pg-replica.internal:5432:*:readonly:{_titled()}", True),
        ("wifi-qr", f"WIFI:S:CafeCorner;T:WPA;P:{_titled()};;  (QR on the counter)", True),
        ("codes-for-account", f"Google backup codes for ana@corp.example: {codes}", True),
        ("seed-markdown-table", table, True),
        ("armour-token", "-----BEGIN ARGO TUNNEL TOKEN-----\n" + "\n".join(_D.r(64) for _ in range(4))
         + "\n-----END ARGO TUNNEL TOKEN-----", True),
        ("django-bracket-after-digit", f"SECRET_KEY = '{_D.r(7)}$+cg!0uk5u(@laj=h5n-s#{_D.r(12)}'", True),
        # what must pass in their place
        ("slash-page", "see admin/Settings2024 page", False),
        ("slash-path", "cd /root/Projects2024", False),
        ("pgpass-format", "The .pgpass format is hostname:port:database:username:password, one per line.", False),
        ("wifi-qr-default", "WIFI:T:WPA;S:Home;P:changeme;;", False),
        ("codes-small-numbers", "backup codes for the team: 10, 20, 30", False),
        ("word-table", "| name | status |\n|---|---|\n| apple | ready |\n| access | open |\n| budget | draft |", False),
        ("armour-certificate", "-----BEGIN CERTIFICATE-----\n" + "\n".join(_D.r(64) for _ in range(4))
         + "\n-----END CERTIFICATE-----", False),
        ("call-in-value", "API_KEY = 'os.environ.get(\"X\")'", False),
    ]


CASES = _prose() + _windows_variables() + _commands() + _phrases() + _places()


@pytest.mark.parametrize(("body", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_blind27_classes(body: str, expected: bool) -> None:
    assert refused(body, description="notes") == expected, body


# --- hostile input completes ---------------------------------------------------------------------

_SIZE = 200 * 1024


@pytest.mark.parametrize("text", [
    "net use Z: \\\\h\\s /user:" + "a" * (_SIZE // 2),  # a user with no end
    "ykman oath accounts add " + "-i x " * (_SIZE // 5),  # options and no secret
    "reg add k /v DefaultPassword " + "/t x " * (_SIZE // 5),  # a name and no value
    "backup codes for " + "ab " * (_SIZE // 3),  # an owner with no colon
    "WIFI:" + "S:x;" * (_SIZE // 4),  # a QR code's fields and no password
    "pgpass " + "h:1:d:u:" * (_SIZE // 8),  # .pgpass fields run together
    "| " + "| apple " * (_SIZE // 8),  # a table's marks and list words
    "password is just " + "any " * (_SIZE // 4),  # an adverb, then words
])
def test_a_text_made_of_blind27s_markers_completes(text: str) -> None:
    find_secrets(text[:_SIZE])  # completing is the point (each read stays within a reach)

