"""A fresh corpus for the secret gate (issue 23, item 5): credentials recognised by shape and place.

Written for this work, not taken from ``tests/secret_corpus.py`` or from any rule list: credential
forms outside the vendor table (generic ``prefix_`` tokens, prose and assignments with unusual
labels, connection strings, auth headers, ``.pgpass`` and ``.netrc`` lines, private keys of every
kind, seed phrases, values split across a memory's fields) and look-alikes that must stay clean
(commit and object ids, UUIDs, checksums, public keys, placeholders, agent-tool ids, prose about
passwords). Every value comes from a seeded generator; vendor prefixes are split in two so no git
host's scanner flags this file. Used by ``bench/bench_secrets.py``; the held-out set, written
after the rules were tuned, is ``bench/data/secrets_heldout.py``.

Each item is a memory: ``{"name", "class", "key", "description", "body", "meta"}``.
"""

from __future__ import annotations

import base64
import json
import runpy
import string
from pathlib import Path

_GEN = runpy.run_path(str(Path(__file__).with_name("secret_gen.py")))
_G = _GEN["Generator"](2323, "note", "Notes from the session")
_RNG = _G.rng
r, words, item = _G.r, _G.words, _G.item
b64, wrap = _GEN["b64"], _GEN["wrap"]
ALNUM, LOWER, UP, HEX, B64, URL, BECH32, D5, PK = (_GEN[k] for k in ("ALNUM", "LOWER", "UP", "HEX", "B64", "URL",
                                                                   "BECH32", "D5", "PK"))


def pw() -> str:
    return r(8) + _RNG.choice("!#%^*+@") + r(3, string.digits)


def b64url_num(n: int) -> str:
    return base64.urlsafe_b64encode(str(n).encode()).decode().rstrip("=")


def forms() -> list[dict]:
    """Credential forms: every one must be refused."""
    lw = "".join(words(3))  # a long lowercase password made of words
    return [
        # assignments and prose: the label says what the value is, the value's shape is judged
        item("pw colon in prose", "assignment", f"Router admin pw: {pw()}"),
        item("my password colon lowercase words", "assignment", f"my password: {lw}"),
        item("passwd equals", "assignment", f"passwd={r(10, LOWER)}"),
        item("token for staging is", "assignment", f"the token for staging is {r(32)}"),
        item("password for the router is", "assignment", f"The password for the NAS is {r(6, string.ascii_lowercase)}{r(3, string.digits)}"),
        item("pass colon", "assignment", f"host: files.corp\nuser: backup\npass: {r(12)}"),
        item("GCP private_key_id", "assignment", f'"private_key_id": "{r(40, HEX)}",'),
        item("export PAT", "assignment", f"export GH_PAT={r(40)}"),
        item("--password flag", "assignment", f"restic init --password {pw()} --repo s3:backups"),
        item("auth colon hex", "assignment", f"auth: {r(40, HEX)}"),
        item("secret_key_base yaml", "assignment", f"production:\n  secret_key_base: {r(128, HEX)}"),
        item("passphrase is words", "assignment", f"The Wi-Fi passphrase is {'-'.join(words(3))}-{r(2, string.digits)}"),
        item("pwd python", "assignment", f'pwd = "{r(6, string.ascii_lowercase)}{r(2, string.digits)}"'),
        item("credential json", "assignment", f'{{"username": "svc", "credential": "{r(24)}"}}'),
        item("api key prose", "assignment", f"Weather service api key {r(32, HEX)} (free tier)"),
        item("PIN-free lowercase password after password is", "assignment", f"wifi password is {lw}"),
        # connection strings, headers, credential files
        item("redis URL empty user", "connection", f"REDIS_URL=redis://:{r(20)}@cache.internal:6379/0"),
        item("amqp URL", "connection", f"broker amqps://orders:{r(16, LOWER)}@mq.corp:5671/vhost"),
        item("ftp URL", "connection", f"ftp://uploader:{pw()}@ftp.partner.net/in/"),
        item("smtp URL lowercase pw", "connection", f"smtp://alerts:{''.join(words(2))}@mail.corp:587"),
        item("Authorization Token", "header", f"Authorization: Token {r(40, HEX)}"),
        item("Okta SSWS", "header", "curl -H 'Authorization: SS" + f"WS 00{r(40, URL)}' https://corp.okta.com/api/v1/users"),
        item("X-API-Key header", "header", f"X-API-Key: {r(32)}"),
        item("PRIVATE-TOKEN header", "header", f'curl --header "PRIVATE-TOKEN: {r(26, URL)}" https://git.corp/api/v4/projects'),
        item("Basic header", "header", f"Proxy-Authorization: Basic {b64('svc-proxy:' + r(14))}"),
        item(".pgpass line", "file", f"db.prod.internal:5432:orders:app_rw:{r(18)}"),
        item(".pgpass wildcard lowercase", "file", f"*:*:*:postgres:{''.join(words(2))}{r(2, string.digits)}"),
        item(".netrc default", "file", f"default login anonymous password {r(14)}"),
        item(".npmrc _auth", "file", f"_auth={b64('ci:' + r(18))}\nalways-auth=true"),
        # private keys of any kind
        item("PuTTY v3 key", "private key", "PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nComment: deploy@ci\n"
             f"Public-Lines: 2\n{r(64, B64)}\n{r(24, B64)}\nPrivate-Lines: 1\n{r(44, B64)}\nPrivate-MAC: {r(64, HEX)}"),
        item("PuTTY v2 key", "private key", "PuTTY-User-Key-File-2: ssh-rsa\nEncryption: none\nComment: rsa-key-2019\n"
             f"Public-Lines: 6\n{wrap(r(360, B64))}\nPrivate-Lines: 14\n{wrap(r(880, B64))}\nPrivate-MAC: {r(40, HEX)}"),
        item("age secret key", "private key", "# created: 2025-03-01\n# public key: age1" + r(58, BECH32) + "\nAGE-SECRET-" + "KEY-1" + r(58, BECH32).upper()),
        item("WireGuard private key", "private key", f"[Interface]\nAddress = 10.8.0.2/24\nPrivateKey = {b64(bytes(_RNG.randrange(256) for _ in range(32)))}"),
        item("JWK private d", "private key", json.dumps({"kty": "EC", "crv": "P-256", "x": r(43, URL), "y": r(43, URL), "d": r(43, URL)})),
        item("DSA PEM", "private key", f"{D5}BEGIN DSA {PK}{D5}\n{wrap(r(600, B64))}\n{D5}END DSA {PK}{D5}"),
        item("ENCRYPTED PEM", "private key", f"{D5}BEGIN ENCRYPTED {PK}{D5}\n{wrap(r(400, B64))}\n{D5}END ENCRYPTED {PK}{D5}"),
        item("PGP private block", "private key", f"{D5}BEGIN PGP {PK} BLOCK{D5}\nComment: backup\n\n{wrap(r(500, B64))}\n={r(4, B64)}\n{D5}END PGP {PK} BLOCK{D5}"),
        item("minisign secret key", "private key", f"untrusted comment: minisign encrypted secret key\nRWRTY0Iy{r(150, B64)}=="),
        item("OpenSSH key on one line", "private key", f"key: {D5}BEGIN OPENSSH {PK}{D5} b3BlbnNzaC1rZXktdjEAAAAA{r(200, B64)} {D5}END OPENSSH {PK}{D5}"),
        # vendor-style tokens by shape
        item("Docker PAT", "token", "docker login -u me -p dck" + f"r_pat_{r(27, URL)}"),
        item("Figma token", "token", "FIGMA=fi" + f"gd_{r(40, URL)}"),
        item("Notion token", "token", "nt" + f"n_{r(11, string.digits)}{r(35)}"),
        item("Perplexity key", "token", "pp" + f"lx-{r(48)}"),
        item("Tavily key", "token", "Tavily: tv" + f"ly-{r(32)}"),
        item("Pinecone key", "token", "pc" + f"sk_{r(6)}_{r(62)}"),
        item("Resend key", "token", "re" + f"_{r(8)}_{r(24)}"),
        item("Tailscale key", "token", "ts" + f"key-auth-k{r(11)}CNTRL-{r(33)}"),
        item("NVIDIA key", "token", "nv" + f"api-{r(64, URL)}"),
        item("fly.io token", "token", "fo" + f"1_{r(43, URL)}"),
        item("Dynatrace token", "token", "dt" + f"0c01.{r(24, UP)}.{r(64, UP)}"),
        item("PlanetScale password", "token", "ps" + f"cale_pw_{r(43, URL)}"),
        item("Discord bot token, numeric id", "token", f"DISCORD={b64url_num(_RNG.randrange(10**17, 10**19))}.{r(6, URL)}.{r(38, URL)}"),
        item("Discord bot token, random first part", "token", f"bot token {r(26, URL)}.{r(6, URL)}.{r(27, URL)}"),
        # seed phrases
        item("seed phrase 12 words", "seed", "wallet backup: " + " ".join(words(12))),
        item("seed phrase 24 words on lines", "seed", "\n".join(" ".join(words(6)) for _ in range(4))),
        item("seed phrase numbered", "seed", "\n".join(f"{i + 1}. {w}" for i, w in enumerate(words(12)))),
        item("seed phrase 18 words", "seed", "Recovery: " + " ".join(words(18)) + "."),
        # split across the fields of one memory
        item("description names the password, body holds it", "split", f"{''.join(words(2))}{r(2, string.digits)}",
             description="Staging DB password"),
        item("description names the token, body holds it", "split", r(40, URL), description="Figma token for the design sync"),
        item("key names the passphrase, body holds it", "split", "-".join(words(4)), key="vpn-passphrase",
             description="Office VPN"),
        item("user and pass fields", "split", "Login for the build box.", description="Build box login",
             meta={"login": {"user": "builder", "pass": r(10, LOWER)}}),
        item("secret field", "split", "See fields.", description="Webhook", meta={"secret": r(32)}),
        item("description says api key, body value then note", "split", f"{r(32, HEX)}\n\n(free tier, 1000 calls a day)",
             description="API key for the weather service"),
    ]


def look_alikes() -> list[dict]:
    """Harmless text that looks like a credential: every one must be stored."""
    sha1, sha256 = r(40, HEX), r(64, HEX)
    bodies = [
        f"Fixed by {sha1}; see also {r(7, HEX)}.",
        f"commit: {sha1}",
        f"object_id = {sha256}",
        f"tree {r(40, HEX)}\nparent {r(40, HEX)}",
        f"request_id: {r(8, HEX)}-{r(4, HEX)}-4{r(3, HEX)}-8{r(3, HEX)}-{r(12, HEX)}",
        f"api_key_id: {r(8, HEX)}-{r(4, HEX)}-4{r(3, HEX)}-9{r(3, HEX)}-{r(12, HEX)}",
        f"{sha256}  vault-mem-0.3.1.tar.gz",
        f"sha512: {r(128, HEX)}",
        f"md5 checksum {r(32, HEX)}",
        f'integrity="sha384-{r(64, B64)}"',
        f'ETag: "{r(32, HEX)}"',
        f"ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI{r(43, B64)} deploy@ci",
        f"ecdsa-sha2-nistp256 AAAAE2VjZHNhLXNoYTItbmlzdHAyNTYAAAAIbmlzdHAyNTYAAABBB{r(120, B64)}= me@host",
        f"{D5}BEGIN PUBLIC KEY{D5}\n{wrap(r(200, B64))}\n{D5}END PUBLIC KEY{D5}",
        f"recipient: age1{r(58, BECH32)}",
        f"[Peer]\nPublicKey = {b64(bytes(_RNG.randrange(256) for _ in range(32)))}\nAllowedIPs = 10.8.0.0/24",
        json.dumps({"kty": "EC", "crv": "P-256", "x": r(43, URL), "y": r(43, URL), "use": "sig"}),
        f"gpg fingerprint {r(40, HEX).upper()}",
        f"github.com ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABgQ{r(300, B64)}",
        "api_key: <your-token>",
        "token: xxxxxxxx",
        "password: changeme",
        "export API_KEY=${API_KEY}",
        "curl -H \"Authorization: Bearer $TOKEN\" https://api.corp/v1",
        "password: ***",
        "aws_access_key_id = AKIAIOSFODNN7EXAMPLE",
        "FIGMA_TOKEN=fi" + "gd_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
        "docker login -p dck" + "r_pat_... (see 1Password)",
        "postgres://user:password@localhost:5432/app",
        "hostname:port:database:username:password",
        "Authorization: Bearer <token>",
        'api_key = "YOUR_API_KEY_HERE"',
        f"data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAA{b64(bytes(_RNG.randrange(256) for _ in range(300)))}",
        "Upgraded to 3.12.4; node v20.11.1; vault-mem 0.1.0rc2",
        "Logs are in /var/log/vault-mem/daemon-2024-10-01.log and ~/.config/vault-mem/config.toml",
        "https://github.com/org/repo/pull/4312/files#diff-3f9c2a1b7e4d5c6a8b9f",
        "Rotate the password monthly.",
        "The password policy requires 12 chars and a symbol.",
        "my password manager is Bitwarden",
        "The token expired yesterday, so I asked for a new one.",
        "Password: see 1Password item 'db-prod'",
        "the token for staging is in the CI secrets",
        "pw: ask Dana",
        "My password is incorrect apparently, reset it tomorrow.",
        "Reset-password links expire after 30 minutes.",
        f"Claude message msg_01{r(22)} answered in 3 s",
        f"tool call toolu_01{r(22)} failed",
        f"OpenAI call_{r(24)} and chatcmpl-{r(29)}",
        f"Stripe customer cus_{r(14)}, payment pi_{r(24)}",
        "word list: apple banana cherry orange lemon grape melon mango peach plum kiwi lime",
        "We agreed to move the weekly planning meeting to Thursday afternoon because the office is closed on Monday.",
        "see os.path.join and collections.abc.Mapping for details",
        "Release 2024.10.01 of Mr.Roboto.v2 landed; api.staging.example.com is up",
        "timestamps 2024:10:01:12:30 and fe80::1:2:3:4 and 00:1A:2B:3C:4D:5E",
        "password_min_length: 12\ntoken_ttl: 3600\nmax_tokens: 4096",
        "secret_name: prod-db-creds\npassword_file: /run/secrets/db_password",
        "docker login --password-stdin < token.txt",
        "test_parse_utf8_roundtrip_v2_large_input_with_bom failed on CI",
        "AbstractTokenAuthenticationProviderFactory2",
        f"user: deploy\nhost: {r(8, LOWER)}.internal:5432",
        "the secret sauce is brown butter",
        "age secret keys start with AGE-SECRET-KEY-1 and public ones with age1",
        "paste the -----BEGIN OPENSSH PRIVATE KEY----- block into the deploy key field",
        "Passphrase: use four random words, never a sentence you have posted.",
    ]
    out = [item(f"look-alike {i}", "look-alike", body) for i, body in enumerate(bodies)]
    out.append(item("description about password rotation, body a plain note", "look-alike",
                    "Every ninety days, from the admin console.", description="How we rotate the staging DB password"))
    out.append(item("description names a token, body a UUID", "look-alike",
                    f"{r(8, HEX)}-{r(4, HEX)}-4{r(3, HEX)}-a{r(3, HEX)}-{r(12, HEX)}", description="Request id of the failed token refresh"))
    out.append(item("description names a password, body a URL", "look-alike", "https://wiki.corp/it/password-reset",
                    description="Where to reset the VPN password"))
    out.append(item("key names a key, body a path", "look-alike", "~/.ssh/id_ed25519", key="ssh-key-location",
                    description="Where the deploy key lives"))
    return out


FORMS = forms()
LOOK_ALIKES = look_alikes()
