"""A fourth probe set for the secret gate's general classes: the classes of heldout10's untuned
misses, each with new forms (other commands, schemes, languages, files and layouts than heldout10's
items) and the look-alikes that share their place. Written by the helper who wrote the rules for
these classes, while tuning them: NOT held out, a check that a rule catches its class rather than
its example and does not cost false alarms.

Classes (the item's ``class``): ``codes`` (recovery and backup codes listed or alone, BitLocker
keys), ``otp`` (base32 seeds after an OTP word), ``seed`` (BIP-39 phrases under any name or quoted
word by word, Monero seeds), ``command`` (a password or token given to any command's flag, echo'd
into a key file or a password flag), ``url`` (a token as a URL's user, in its path or sign-in query,
an Oracle connect string in a JDBC URL), ``prose`` (a person's password after its word in many
languages, access codes, app passwords, a login as mail / password), ``table`` (a secret column of
a sheet), ``wallet`` (WIF keys). Same item format as the other corpora.

RESULT (``python bench/bench_secrets.py --set generic4``, and ``--code`` a checkout of 88084bb,
the code before these rules): before 9/51 forms (17.6%), 2/42 look-alikes (two password policies'
examples: "por ejemplo: Abc!1234xyz", "values like foo#1234bar"); after 51/51, 0/42. Written while
tuning, so the after figure measures coverage of the classes, not generalisation.
"""

from __future__ import annotations

import hashlib
import runpy
import zlib
from pathlib import Path

_GEN = runpy.run_path(str(Path(__file__).with_name("secret_gen.py")))
_G = _GEN["Generator"](20261204, "gen4", "Working notes")
r, item, uuid = _G.r, _G.item, _G.uuid
ALNUM, LOWER, UP, HEX, B64, B32, B58 = (_GEN[k] for k in ("ALNUM", "LOWER", "UP", "HEX", "B64", "B32", "B58"))
DIGITS = "0123456789"
CONSONANTS = "bcdfghjklmnpqrstvwxz"
_STEMS = ("Harbor", "Copper", "Lantern", "Saddle", "Walnut", "Tundra", "Meadow", "Quartz")


def pw() -> str:
    """A person's password: a word, a symbol, digits and a few letters."""
    return _G.rng.choice(_STEMS) + _G.rng.choice("!#&*^") + r(4, DIGITS) + r(3, "abcdefghkmnpqrstuvwxyz")


def b32(n: int) -> str:
    while True:
        s = r(n, B32)
        if sum(c.isdigit() for c in s) >= 3:
            return s


def monero(n: int = 25) -> str:
    words: list[str] = []
    while len(words) < n - 1:  # (the list's words differ in their first three letters)
        word = "".join(_G.rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(_G.rng.randint(4, 8)))
        if all(w[:3] != word[:3] for w in words):
            words.append(word)
    return " ".join(words + [words[zlib.crc32("".join(w[:3] for w in words).encode()) % (n - 1)]])


def wif(compressed: bool = True) -> str:
    raw = b"\x80" + _G.rand_bytes(32) + (b"\x01" if compressed else b"")
    raw += hashlib.sha256(hashlib.sha256(raw).digest()).digest()[:4]
    n, out = int.from_bytes(raw, "big"), ""
    while n:
        n, d = divmod(n, 58)
        out = B58[d] + out
    return out


def bitlocker() -> str:
    return "-".join(f"{11 * _G.rng.randrange(65536):06d}" for _ in range(8))


def letters_code() -> str:
    return "".join(_G.rng.choice(CONSONANTS) for _ in range(5)) + "-" + "".join(_G.rng.choice(CONSONANTS) for _ in range(5))


def forms() -> list[dict]:
    f = []
    # codes
    f.append(item("codes letters bulleted", "codes", "Proton backup codes\n" + "\n".join(f"* {letters_code()}" for _ in range(6))))
    f.append(item("codes eight digits", "codes", "2FA recovery codes (registrar):\n\n" + "\n".join(r(8, DIGITS) for _ in range(8))))
    f.append(item("codes numbered pairs", "codes", "backup codes\n" + "\n".join(f"{i}) {r(5, DIGITS)} {r(5, DIGITS)}" for i in range(1, 7))))
    f.append(item("one recovery code", "codes", f"Recovery code for the password manager: {r(4, UP)}-{r(4, UP)}-{r(4, UP)}-{r(4, UP)}"))
    f.append(item("one backup code digits", "codes", f"the backup code is {r(5, DIGITS)}-{r(5, DIGITS)}, keep it offline"))
    f.append(item("bitlocker in table", "codes", f"| host | key |\n|---|---|\n| LAP-07 | {bitlocker()} |"))
    f.append(item("bitlocker manage-bde", "codes", f"manage-bde -unlock E: -RecoveryPassword {bitlocker()}"))
    # otp
    f.append(item("otp env", "otp", f"GRAFANA_ADMIN_TOTP={b32(32)}"))
    f.append(item("authenticator seed prose", "otp", f"authenticator key {b32(16).lower()} (typed in by hand, QR did not scan)"))
    f.append(item("mfa json", "otp", f'{{"user": "ci", "mfa_seed": "{b32(32)}"}}'))
    f.append(item("oathtool hotp", "otp", f"oathtool --hotp -b -c 7 {b32(20)}"))
    # seed
    f.append(item("bip39 export", "seed", f"export WALLET_MNEMONIC='{' '.join(_G.words(12))}'"))
    f.append(item("bip39 toml", "seed", f"[signer]\nphrase = \"{' '.join(_G.words(24))}\""))
    f.append(item("bip39 quoted list", "seed", "recovery words: " + ", ".join(f"'{w}'" for w in _G.words(12))))
    f.append(item("monero alone", "seed", monero(25), description="wallet restore"))
    f.append(item("monero labelled", "seed", "Restore from seed:\n" + monero(25)))
    f.append(item("monero prose", "seed", "old wallet, restore words: " + monero(25) + " (feather)"))
    # command
    f.append(item("unrar attached", "command", f"unrar x -p{pw()} archive.part1.rar"))
    f.append(item("7z separate flag", "command", f"7za x -y -p{pw()} dump.7z -o/tmp/dump"))
    f.append(item("rdesktop windows flag", "command", f"wfreerdp /v:10.4.0.12 /u:CORP\\ops /p:{pw()} /size:1600x900"))
    f.append(item("sshpass", "command", f"sshpass -p '{pw()}' ssh ops@10.0.0.4 uptime"))
    f.append(item("token flag", "command", f"nats-like pub --server nats://mq:4222 -k {r(44)} subject msg"))
    f.append(item("secret flag", "command", f"minio-client alias set backup https://s3.corp.example -a ops -s {r(40)}"))
    f.append(item("curl key as user", "command", f"curl https://api.mailer.example/v3/send -u {r(32, HEX)}:"))
    f.append(item("net use positional", "command", f"net use P: \\\\fs02\\projects {pw()} /user:CORP\\proj /persistent:no"))
    f.append(item("echo to key file", "command", f"echo '{_GEN['b64'](_G.rand_bytes(32))}' > /etc/wireguard/peer.psk"))
    f.append(item("printf tee token", "command", f"printf '%s' '{r(36)}' | sudo tee /var/lib/agent/token >/dev/null"))
    f.append(item("echo password stdin", "command", f"echo '{r(28)}' | podman login -u ci --password-stdin quay.corp.example"))
    # url
    f.append(item("hex token user npm", "url", f"registry=https://{r(40, HEX)}@npm.corp.example/repository/npm/"))
    f.append(item("bot path segment", "url", f"POST https://chat-gw.example.net/bot{r(9, DIGITS)}:{r(35, ALNUM + '_-')}/sendDocument"))
    f.append(item("id secret path", "url", f"callback url: https://relay.example.org/hook/v2/{r(8, DIGITS)}:{r(30)}"))
    f.append(item("magic link code", "url", f"sign-in link: https://app.example.com/login/verify?email=ops%40corp.example&code={r(40)}"))
    f.append(item("push key", "url", f"curl -fsS https://uptime.example.net/api/push/{r(11)}?status=up"))
    f.append(item("invite path", "url", f"team invite: https://chat.example.io/invite/{r(14)}"))
    f.append(item("jdbc oracle thin", "url", f"spring.datasource.url=jdbc:oracle:thin:report/{pw()}@//ora-prod.corp:1521/REPORTS"))
    # prose
    f.append(item("portuguese", "prose", f"A senha do Wi-Fi do escritório de Lisboa é {pw()}"))
    f.append(item("french", "prose", f"Le mot de passe du compte de service pour les sauvegardes : {pw()}"))
    f.append(item("italian", "prose", f"La parola chiave del router in magazzino: {pw()}"))
    f.append(item("turkish", "prose", f"Muhasebe sunucusunun şifresi {pw()} olarak güncellendi."))
    f.append(item("vietnamese", "prose", f"Mật khẩu tài khoản quản trị là {pw()}"))
    f.append(item("indonesian", "prose", f"Kata sandi server cadangan di kantor Bandung adalah {pw()}"))
    f.append(item("dutch", "prose", f"Het wachtwoord voor de printer op de tweede verdieping is {pw()}"))
    f.append(item("russian latin", "prose", f"parol ot wifi na dache: {pw()}"))
    f.append(item("english long prose", "prose", f"the password for the shared finance drive in the berlin office: {pw()}"))
    f.append(item("access code french", "prose", f"Code d'accès de l'alarme de l'entrepôt : {pw()}"))
    f.append(item("app password", "prose", "app password for thunderbird: " + " ".join("".join(_G.rng.choice(CONSONANTS) for _ in range(4)) for _ in range(4))))
    f.append(item("mail pair", "prose", f"Spotify family plan: rui.costa@mail.example / {pw()}"))
    # table
    f.append(item("tsv api key column", "table", f"team\tproject\tapi_key\nsearch\tindexer\t{r(38)}\nads\tbidder\t{r(38)}"))
    f.append(item("csv token column", "table", f"name,owner,access_token\nci-bot,platform,{r(40)}\n"))
    # wallet
    f.append(item("wif compressed", "wallet", f"sweep this key into the new wallet: {wif(True)}"))
    f.append(item("wif uncompressed", "wallet", f"importprivkey {wif(False)} \"paper\" false"))
    return f


def look_alikes() -> list[dict]:
    la = []
    # codes
    la.append(item("codes policy", "codes", "Backup codes: see the vault entry.\nNext steps:\nrotate\nrevoke\nreissue"))
    la.append(item("codes years", "codes", "recovery codes rollout\n1. 2024\n2. 2025\n3. 2026"))
    la.append(item("codes words dashed", "codes", "backup codes feature flags\nalpha-build\nbeta-build\ngamma-build"))
    la.append(item("one code date", "codes", "the recovery code expires 2025-06-30"))
    la.append(item("serial groups", "codes", "Serial: 123456-234567-345678-456789-567890-678901-789012-890123"))
    # otp
    la.append(item("otp reference", "otp", "oathtool --totp -b \"$OTP_SEED\""))
    la.append(item("otp settings", "otp", "otp: digits 6, period 30, algorithm SHA1, issuer ACME"))
    la.append(item("rfc test vector", "otp", "totp test seed GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ (RFC 6238 appendix B)"))
    la.append(item("mfa uppercase words", "otp", "MFA: REQUIRED FOR ALL ADMINS SINCE 2023"))
    # seed
    la.append(item("fruit list code", "seed", "FRUITS = [\"apple\", \"banana\", \"cherry\", \"grape\", \"lemon\", \"mango\", \"melon\", \"orange\", "
                                                  "\"pear\", \"plum\", \"kiwi\", \"olive\"]"))
    la.append(item("long prose run", "seed", "during standup everyone agreed parsing should happen inside worker threads because blocking "
                                               "calls slowed every request after midnight when backups started their nightly runs"))
    la.append(item("monero broken checksum", "seed", " ".join(monero(25).split()[:-1] + ["zzzz"])))
    # command
    la.append(item("msbuild property", "command", "msbuild app.sln /p:Configuration=Release /p:Platform=x64 /m"))
    la.append(item("compiler flags", "command", "cc -pthread -pedantic -pipe -O2 -o app main.c"))
    la.append(item("ports", "command", "docker run --rm -p 8443:443 -t nginx:1.27 && ssh -p 2222 -t ops@bastion"))
    la.append(item("sort flags", "command", "sort -k 3 -t , report.csv | grep -a -s total"))
    la.append(item("curl user prompt", "command", "curl -u alice: https://api.example.com/v1/me   # prompts for the password"))
    la.append(item("echo public key", "command", "echo 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl ops' >> ~/.ssh/authorized_keys"))
    la.append(item("echo var to key", "command", "echo \"$WG_PRIVATE_KEY\" > /etc/wireguard/private.key && chmod 600 /etc/wireguard/private.key"))
    la.append(item("echo pubkey file", "command", f"echo '{_GEN['b64'](_G.rand_bytes(32))}' > /etc/wireguard/server.pub"))
    la.append(item("net use no password", "command", "net use Z: \\\\nas\\backup /user:backup /persistent:yes"))
    la.append(item("stdin reference", "command", "echo $CI_REGISTRY_PASSWORD | docker login -u $CI_REGISTRY_USER --password-stdin $CI_REGISTRY"))
    # url
    la.append(item("sentry dsn", "url", f"dsn: https://{r(32, HEX)}@o{r(6, DIGITS)}.ingest.us.sentry.io/{r(16, DIGITS)}"))
    la.append(item("docs auth path", "url", "https://docs.example.com/auth/GettingStarted2 and https://example.com/login/Windows10Setup"))
    la.append(item("keys path name", "url", "https://keys.example.org/keys/RSA4096PublicKeys"))
    la.append(item("promo code", "url", "https://shop.example.com/cart?promo_code=SUMMER2024&utm_source=mail"))
    la.append(item("oauth authorize", "url", "https://github.com/login/oauth/authorize?client_id=Iv1.8a61f9b3a7aba766&state=af0ifjsldkj"))
    la.append(item("id colon path", "url", "https://tracker.example.com/issues/48213:comments/latest"))
    la.append(item("jdbc no credentials", "url", "jdbc:oracle:thin:@//ora-prod.corp:1521/REPORTS"))
    # prose
    la.append(item("policy spanish", "prose", "La contraseña debe tener al menos 12 caracteres, por ejemplo: Abc!1234xyz"))
    la.append(item("policy german", "prose", "Das Passwort muss Sonderzeichen enthalten, z.B. Sommer!2024"))
    la.append(item("policy english like", "prose", "The password field rejects values like foo#1234bar in the form."))
    la.append(item("vietnamese rule", "prose", "Mật khẩu phải có ít nhất 8 ký tự."))
    la.append(item("portuguese manager", "prose", "A senha expira em 90 dias; use o gerenciador de senhas da empresa."))
    la.append(item("parole", "prose", "the parole hearing is on monday at 10:30"))
    la.append(item("http access code", "prose", "HTTP access code: 200 OK, then 302 to /login"))
    la.append(item("password manager words", "prose", "password manager: uses very long keys"))
    la.append(item("contacts pair", "prose", "contact: alice@corp.example / bob@corp.example"))
    # table
    la.append(item("token name column", "table", "service,token_name,expires\nci,deploy-bot,2025-01-01\nweb,render,2025-03-01\n"))
    la.append(item("secret reference column", "table", "app\tclient_id\tclient_secret\nbilling\t42\tsee vault: billing/prod\n"))
    # wallet
    la.append(item("bitcoin address", "wallet", "send to 1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2 (cold storage address)"))
    la.append(item("wif documented", "wallet", "the Bitcoin wiki's example: 5HueCGU8rMjxEXxiPuD5BDku4MkFqeZyd4dZ1jvhTVqvbTLvyTJ"))
    return la


FORMS = forms()
LOOK_ALIKES = look_alikes()
