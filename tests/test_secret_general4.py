"""The secret gate's classes from the tenth blind corpus's misses: recovery codes and one-time
password seeds, seed phrases under any name and Monero's, a password given to any command's flag,
a credential in a URL's userinfo or path, and a password named in more languages' prose.

Each test draws its values afresh from a seeded generator and puts them in several forms of one
class (none is an item of a bench corpus), beside the look-alikes that share the place. Each
fails on the code before these rules (checked against the parent commit).
"""

from __future__ import annotations

import string
import zlib

import pytest

from secret_probe import HEX, Draw, found
from vault_mem.model.seed_words import BIP39_ENGLISH

B32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
_DRAW = Draw(20261204)
r, _RNG = _DRAW.r, _DRAW.rng


def b32(n: int = 32) -> str:
    while True:
        s = r(n, B32)
        if sum(c.isdigit() for c in s) >= 3:
            return s


def pw() -> str:
    """A person's password: a word, a symbol, digits and letters."""
    word = _RNG.choice(("Marlin", "Copper", "Velvet", "Harbor", "Sierra", "Falcon", "Meadow"))
    return word + _RNG.choice("!#&*^$") + r(4, string.digits) + r(3, string.ascii_lowercase)


# --- recovery codes, one-time password seeds, recovery keys ----------------------------------

def _letters_code() -> str:
    consonants = "bcdfghjklmnpqrstvwxz"
    return "".join(_RNG.choice(consonants) for _ in range(5)) + "-" + "".join(_RNG.choice(consonants) for _ in range(5))


@pytest.mark.parametrize("make", (
    lambda: "Backup codes (Proton):\n" + "\n".join(_letters_code() for _ in range(6)),
    lambda: "recovery codes for the registrar\n\n" + "\n".join(f"{i}. {r(4, string.digits)} {r(4, string.digits)}" for i in range(1, 9)),
    lambda: "2FA backup codes:\n" + "\n".join(f"- {r(8, string.digits)}" for _ in range(5)),
))
def test_codes_listed_alone_on_their_lines_below_their_label(make) -> None:
    for _ in range(3):
        text = make()
        assert found(text), text


@pytest.mark.parametrize("text", (
    "Backup codes: see the vault entry.\nNext steps:\nrotate\nrevoke\nreissue",
    "Recovery codes printed and filed.\n- done\n- todo\n- later",
    "recovery codes policy\n1. 2024\n2. 2025\n3. 2026",
    "backup codes rollout\nalpha-build\nbeta-build\ngamma-build",
))
def test_lists_of_words_and_years_under_a_codes_label_pass(text: str) -> None:
    assert not found(text), text


@pytest.mark.parametrize("template", (
    "oathtool --totp -b {v}",
    "authenticator seed {v} (scan failed, typed by hand)",
    "mfa:\n  account: ops\n  totp_secret: \"{v}\"",
    "OTP_SEED={v}",
))
def test_a_base32_seed_after_an_otp_word_on_its_line(template: str) -> None:
    for n in (16, 32):
        text = template.format(v=b32(n))
        assert found(text), text


@pytest.mark.parametrize("text", (
    "oathtool --totp -b $OTP_SEED",
    "mfa: enabled for ABCDEFGHIJKLMNOP team members",
    "otp length 6, period 30, algorithm SHA1",
    "2fa: required (policy RFC6238 ABCDEFGHIJKLMNOPQRST)",
))
def test_otp_words_beside_names_and_references_pass(text: str) -> None:
    assert not found(text), text


def _bitlocker() -> str:
    return "-".join(f"{11 * _RNG.randrange(65536):06d}" for _ in range(8))


def test_a_bitlocker_recovery_key_by_its_checked_groups() -> None:
    for template in ("{v}", "Recovery key for DESKTOP-7Q: {v}", "manage-bde -unlock D: -RecoveryPassword {v}"):
        text = template.format(v=_bitlocker())
        assert found(text), text
    # eight groups of six digits that are not multiples of 11: a serial, a part number
    assert not found("Serial: 123456-234567-345678-456789-567890-678901-789012-890123")


# --- seed phrases under any name, and Monero's -----------------------------------------------

def _bip39(n: int = 12) -> str:
    return " ".join(_RNG.choice(BIP39_ENGLISH) for _ in range(n))


@pytest.mark.parametrize("template", (
    'MNEMONIC="{v}"', "WALLET_WORDS='{v}'", "export DEPLOYER_PHRASE=\"{v}\"", "seed = \"{v}\";",
))
def test_a_seed_phrase_quoted_and_assigned_to_any_name(template: str) -> None:
    text = template.format(v=_bip39(_RNG.choice((12, 24))))
    assert found(text), text


def _monero(n: int = 25) -> str:
    letters = string.ascii_lowercase
    words: list[str] = []
    while len(words) < n - 1:  # (the list's words differ in their first three letters)
        word = "".join(_RNG.choice(letters) for _ in range(_RNG.randint(4, 9)))
        if all(w[:3] != word[:3] for w in words):
            words.append(word)
    prefixes = "".join(w[:3] for w in words)
    return " ".join(words + [words[zlib.crc32(prefixes.encode()) % (n - 1)]])


@pytest.mark.parametrize("template", ("{v}", "Restore seed:\n{v}", "electrum-like wallet, words: {v}."))
def test_a_monero_seed_by_its_checksum_word(template: str) -> None:
    for _ in range(3):
        text = template.format(v=_monero(25))
        assert found(text), text


def test_runs_of_words_without_the_checksum_pass() -> None:
    words = _monero(25).split()
    words[-1] = words[-1] + "s"  # the checksum word changed: 25 words of prose or a word list
    assert not found(" ".join(words))
    prose = ("during standup today everyone agreed that parsing should happen inside worker threads because "
             "blocking calls slowed every request after midnight when backups started their nightly runs again")
    assert not found(prose)
    # thirteen words whose last repeats the one the CRC names: the old short form, too weak to read
    assert not found("Joanna reflects on the tough times finishing her screenplay and realizes that the joyful moments "
                     "make the journey worth it.")


# --- a password or token given to any command's flag ------------------------------------------

@pytest.mark.parametrize("template", (
    "unrar x -p{p} vault.rar",
    "7za a -t7z -mhe=on -p{p} out.7z ./docs",
    "rdesktop-like /v:10.1.2.3 /u:ops /p:{p}",
    "psexec \\\\host01 -u CORP\\svc -p {p} cmd",
    "zip -e -P {p} -r notes.zip notes/",
    "runas-tool /password:{p} /domain:CORP",
    "net use L: \\\\files01\\legal {p} /user:CORP\\legal /persistent:no",
))
def test_a_password_after_any_commands_password_flag(template: str) -> None:
    for _ in range(3):
        text = template.format(p=pw())
        assert found(text), text


@pytest.mark.parametrize("template", (
    "vaultctl login -t {t}",
    "mc alias set prod https://s3.corp.example -a ops -s {t}",
    "curl -u {h}: https://api.billing.example/v1/invoices",
    "curl --user {t}: https://api.example.net/v2/items",
    "nomad-like job run -k {t} job.hcl",
))
def test_a_token_after_a_one_letter_flag_or_as_an_empty_password_user(template: str) -> None:
    for _ in range(3):
        text = template.format(t=r(40), h=r(32, HEX))
        assert found(text), text


@pytest.mark.parametrize("text", (
    "msbuild app.sln /p:Configuration=Release /p:Platform=x64",
    "gcc -pthread -pedantic -O2 -pipe main.c",
    "docker run -p 8080:80 -t ubuntu:22.04 bash",
    "mkdir -p ~/src/project2 && tar -t -f backup-2024.tar",
    "ssh -p 2222 -t ops@bastion.corp.example",
    "sort -k 2 -t , data.csv; grep -a -s pattern file.bin",
    "curl -u alice: https://example.com  # prompts for the password",
    "sha256sum -c -a sha512 FILE; git log -S 'Fix for #1234' -p",
    "openssl dgst -sha256 -k $SIGNING_KEY -a file.bin",
    "net use Z: \\\\nas\\backup /user:backup /persistent:yes",
))
def test_flags_for_ports_paths_properties_and_references_pass(text: str) -> None:
    assert not found(text), text


# --- a credential in a URL's userinfo or path -------------------------------------------------

@pytest.mark.parametrize("template", (
    "git remote set-url origin https://{h}@git.internal.example/platform/api.git",
    "pip install --index-url https://{h}@pypi.corp.example/simple/ pkg",
    "https://hooks.bridge.example/bot{n}:{t}/sendMessage?chat_id=42",
    "callback: https://relay.example.org/v1/{n}:{t}",
    "one-time sign-in: https://portal.example.com/session/start?user=ops&code={t}",
    "https://status.example.net/api/push/{k}?status=up",
    "join: https://chat.example.io/invite/{k}",
    "jdbc:oracle:thin:{u}/{p}@//db.corp.example:1521/SVC",
    "jdbc:oracle:oci:{u}/{p}@db.corp.example:1521/ORCL",
))
def test_a_token_in_a_urls_userinfo_path_or_sign_in_query(template: str) -> None:
    for _ in range(3):
        text = template.format(h=r(40, HEX), t=r(36), n=r(10, string.digits), k=r(12), u="app_rw", p=r(12))
        assert found(text), text


@pytest.mark.parametrize("text", (
    "SENTRY_DSN=https://8a1f0c2e3b4d5f60718293a4b5c6d7e8@o450123.ingest.sentry.io/4505123456",
    "https://docs.example.com/auth/GettingStarted2",
    "https://example.com/keys/RSA4096PublicKeys",
    "https://example.com/login/Windows10Setup",
    "https://github.com/login/oauth/authorize?client_id=Iv1.8a61f9b3a7aba766&state=xyz",
    "https://shop.example.com/cart?promo_code=SUMMER2024",
    "jdbc:oracle:thin:@//db.corp.example:1521/SVC",
    "https://api.example.com/v2/orders/1234567890:summary",
    "https://tracker.example.com/issues/48213:comments/latest",
))
def test_documentation_paths_dsns_and_public_ids_in_urls_pass(text: str) -> None:
    assert not found(text), text


# --- a person's password named in more languages' prose ---------------------------------------

@pytest.mark.parametrize("template", (
    "La contraseña del servidor de copias de seguridad en Madrid: {p}",
    "A senha do painel administrativo da loja virtual é {p}",
    "Le mot de passe du routeur de la salle de réunion est {p}",
    "Das Kennwort für den Drucker im zweiten Stock: {p}",
    "Yedek sunucunun şifresi {p} olarak ayarlandı.",
    "Mật khẩu máy chủ sao lưu là {p}",
    "Kata sandi untuk akun admin server adalah {p}",
    "Hasło do konta serwisowego na serwerze plików: {p}",
    "Het wachtwoord van de NAS in het kantoor is {p}",
    "La contrasenya del router de l'oficina: {p}",
    "parol ot servera v ofise: {p}",
    "the password for the staging database server in the frankfurt region: {p}",
))
def test_a_persons_password_after_its_word_in_many_languages(template: str) -> None:
    for _ in range(3):
        text = template.format(p=pw())
        assert found(text), text


@pytest.mark.parametrize("text", (
    "La contraseña debe tener al menos 12 caracteres, por ejemplo: Abc!1234xyz",
    "Das Passwort muss Sonderzeichen enthalten, z.B. Sommer!2024",
    "The password field rejects values like foo#1234bar in the form.",
    "Mật khẩu phải có ít nhất 8 ký tự.",
    "A senha expira em 90 dias; use o gerenciador de senhas.",
    "the parole hearing is on monday at 10:30",
    "Yeni şifre politikası 2025 yılında yürürlüğe girdi.",
))
def test_password_policies_examples_and_words_in_those_languages_pass(text: str) -> None:
    assert not found(text), text


@pytest.mark.parametrize("template", (
    'The passphrase for the offsite disk is "{w} {w2} {w3} {w4} 42".',
    "Vault unseal passphrase: '{w} {w2} {w3} 7 {w4}'",
))
def test_a_quoted_passphrase_of_words_and_a_number(template: str) -> None:
    words = ["copper", "lantern", "meadow", "quartz", "saddle", "tundra", "walnut", "zephyr"]
    _RNG.shuffle(words)
    text = template.format(w=words[0], w2=words[1], w3=words[2], w4=words[3])
    assert found(text), text
    assert not found('The passphrase rules are in "see the wiki page 12".')


# --- a secret column of a sheet, a WIF key, a value written into a key file -------------------

def test_a_secret_or_token_column_of_a_tab_or_comma_separated_sheet() -> None:
    for sep in ("\t", ","):
        for column in ("client_secret", "api_key", "access_token"):
            text = sep.join(("app", "client_id", column)) + "\n" + sep.join(("billing", "Iv1." + r(16, HEX), r(34))) + "\n"
            assert found(text), text
    # names, ids and dates under such columns, and a column that names a token without holding it
    assert not found("app\tclient_id\tclient_secret\nbilling\t42\tsee vault: billing/prod\n")
    assert not found("service,token_name,expires\nci,deploy-bot,2025-01-01\n")


_B58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"


def _wif(compressed: bool) -> str:
    import hashlib
    raw = b"\x80" + bytes(_RNG.randrange(256) for _ in range(32)) + (b"\x01" if compressed else b"")
    raw += hashlib.sha256(hashlib.sha256(raw).digest()).digest()[:4]
    n, out = int.from_bytes(raw, "big"), ""
    while n:
        n, d = divmod(n, 58)
        out = _B58[d] + out
    return out


def test_a_wallet_import_format_key_by_its_checksum() -> None:
    for template in ("{v}", "paper wallet (sweep me): {v}", "importprivkey {v} \"cold\" false"):
        for compressed in (True, False):
            text = template.format(v=_wif(compressed))
            assert found(text), text
    broken = _wif(True)
    broken = broken[:-1] + ("2" if broken[-1] != "2" else "3")  # the checksum fails
    assert not found(f"wallet: {broken}")
    assert not found("address 1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2")  # an address is public


@pytest.mark.parametrize("template", (
    "echo '{b}' > /etc/wireguard/wg0.key",
    "printf '%s' '{t}' | sudo tee /etc/app/api_token >/dev/null",
    "echo -n {t} > ~/.config/tool/credentials",
    "echo \"{p}\" > /root/.smbpass && chmod 600 /root/.smbpass",
))
def test_a_value_written_into_a_file_named_for_a_credential(template: str) -> None:
    import base64
    for _ in range(3):
        text = template.format(b=base64.b64encode(bytes(_RNG.randrange(256) for _ in range(32))).decode(), t=r(32), p=pw())
        assert found(text), text


@pytest.mark.parametrize("text", (
    'echo "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl ops" >> ~/.ssh/authorized_keys',
    "echo 'df2elVYije/Grs8Vjr3gBFMnmIbN1TMvcozatsv1yv0=' > /etc/wireguard/public.key",
    "echo $WG_PRIVATE_KEY > /etc/wireguard/private.key",
    'echo "done building release 2024" > build-token-status.txt',
    "echo 'export PATH=$HOME/bin:$PATH' >> ~/.bashrc",
))
def test_public_keys_references_and_notes_written_to_files_pass(text: str) -> None:
    assert not found(text), text


# --- one code after its label, access codes, app passwords, logins as pairs -------------------

@pytest.mark.parametrize("make", (
    lambda: f"Recovery code: {r(4, 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789')}-{r(4, '23456789')}-{r(4, 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789')}-{r(2, 'ABCDEFGH')}{r(2, '23456789')}",
    lambda: f"The backup code is {r(4, string.digits)}-{r(4, string.digits)}",
    lambda: f"Le code d'accès du portail est {pw()}",
    lambda: f"access code for the gate: {pw()}",
    lambda: "app password for the mail client: " + " ".join("".join(_RNG.choice("bcdfghjklmnpqrstvwxz") for _ in range(4)) for _ in range(4)),
    lambda: f"Netflix (family): ana.lima@mail.example / {pw()}",
    lambda: f"ansible-playbook site.yml --vault-password-file <(echo '{pw()}')",
    lambda: f"echo '{r(24)}' | docker login -u ci --password-stdin registry.corp.example",
))
def test_one_code_an_access_code_an_app_password_and_a_login_pair(make) -> None:
    for _ in range(3):
        text = make()
        assert found(text), text


@pytest.mark.parametrize("text", (
    "recovery code: see 1password",
    "backup code expires 2024-12-01",
    "the recovery code is 12-digit",
    "HTTP access code: 200 OK",
    "password manager: uses very long keys",
    "contact: alice@corp.example / bob@corp.example",
    "mail ops@corp.example / slack #ops-alerts",
    "echo $TOKEN | docker login --password-stdin",
    'echo "hello world 2024" | grep -c hello',
))
def test_dates_lengths_statuses_and_contacts_pass(text: str) -> None:
    assert not found(text), text


def test_a_seed_phrase_as_a_list_of_quoted_words_under_its_label() -> None:
    words = [_RNG.choice(BIP39_ENGLISH) for _ in range(12)]
    quoted = ", ".join(f'"{w}"' for w in words)
    assert found(f"wallet backup, 12 words: {quoted}")
    assert found(f"seed_words = [{quoted}]")
    # a list of words in code with no seed's label: a list (unless its checksum is a phrase's)
    fruit = ["apple", "banana", "cherry", "grape", "lemon", "mango", "melon", "orange", "pear", "plum", "kiwi", "olive"]
    assert not found("FRUITS = [" + ", ".join(f'"{w}"' for w in fruit) + "]")


@pytest.mark.parametrize("template", (
    "restic -r s3:s3.example.com/bkt --password-command \"echo {p}\" backup /srv",
    "borg create --passcommand 'echo {p}' repo::daily /home",
    "lftp -u ops,{p} sftp://files.corp.example",
    "mosquitto_sub -h mq -U dev,{p} -t sensors/#",
))
def test_a_password_echoed_into_a_password_command_or_paired_with_its_user(template: str) -> None:
    for _ in range(3):
        text = template.format(p=pw())
        assert found(text), text
    assert not found('ssh -o "ProxyCommand echo jumphost2024x" host')
    assert not found("curl -u alice:$API_PASS https://api.example.com")
