"""A fresh corpus of credential forms and look-alikes written by the atk28 attack run (issue 23),
none of them taken from the suite's corpora: prints how many of each the secret gate refuses.

    python bench/secrets_corpus_atk28.py

The forms are made from seeded random tokens, so each run prints the same figures. Two forms are
password hashes in crypt(3) format (htpasswd's ``$apr1$``, shadow's ``$6$``), which the gate passes
by decision (``model/secret_values.in_crypt_hash``): they are counted and named apart."""

from __future__ import annotations

import base64
import os
import random
import string
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from vault_mem.model.policy import secret_findings  # noqa: E402

#: forms the gate passes by decision, not misses
BY_DECISION = {"htpasswd", "shadow"}


def corpus(seed: int):
    rng = random.Random(seed)

    def tok(n, alpha=string.ascii_letters + string.digits):
        return "".join(rng.choice(alpha) for _ in range(n))

    def hexs(n):
        return tok(n, "0123456789abcdef")

    def b64(n):
        return base64.b64encode(bytes(rng.randrange(256) for _ in range(n))).decode()

    return rng, tok, hexs, b64


def first():
    rng, tok, hexs, b64 = corpus(2312)
    POS = [
     ("kubeconfig", "user:\n  client-certificate-data: " + b64(600) + "\n  client-key-data: " + b64(900)),
     ("docker-auth", '{"auths": {"registry.internal.example:5000": {"auth": "' + base64.b64encode(b"deploy:Vr7#kLq92mZx").decode() + '"}}}'),
     ("redis-url", "Cache lives at redis://:" + tok(14) + "!x@cache.internal:6379/0"),
     ("mysql-cli", "Restore with: mysql -h db1 -u root -p" + tok(12) + " shop < dump.sql"),
     ("sshpass", "Jump box: sshpass -p '" + tok(10) + "&3' ssh ops@bastion.internal"),
     ("curl-u", "Check health: curl -u admin:" + tok(11) + "#! https://grafana.internal/api/health"),
     ("wget-pass", "wget --user=ci --password=" + tok(13) + " https://artifacts.internal/build.tgz"),
     ("basic-hdr", "The proxy wants Authorization: Basic " + base64.b64encode(b"svc-proxy:" + tok(12).encode()).decode()),
     ("x-api-key", "Call it with the header X-Api-Key: " + hexs(32)),
     ("wifi", "Office wifi is ACME-Guest, the WPA2 passphrase is Blue-Falcon-92-Orchid"),
     ("totp-uri", "Team 2FA seed: otpauth://totp/ACME:ops?secret=" + tok(32, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567") + "&issuer=ACME"),
     ("backup-codes", "GitLab 2FA backup codes: " + ", ".join(hexs(8) for _ in range(6))),
     ("bitlocker", "BitLocker recovery key for the laptop: " + "-".join(str(rng.randrange(100000, 999999)) for _ in range(8))),
     ("wireguard", "[Interface]\nAddress = 10.8.0.2/24\nPrivateKey = " + b64(32) + "\nListenPort = 51820"),
     ("azure-conn", "DefaultEndpointsProtocol=https;AccountName=acmelogs;AccountKey=" + b64(64) + ";EndpointSuffix=core.windows.net"),
     ("azure-sas", "Upload URL: https://acmelogs.blob.core.windows.net/in?sv=2022-11-02&ss=b&srt=co&sp=rwdlac&se=2027-01-01T00:00:00Z&sig=" + tok(43) + "%3D"),
     ("telegram", "Alert bot token " + str(rng.randrange(10**9, 10**10)) + ":AA" + tok(33)),
     ("twilio", "Twilio account AC" + hexs(32) + " with auth token " + hexs(32)),
     ("django", "settings.py has SECRET_KEY = 'django-insecure-" + tok(50, string.ascii_lowercase + string.digits + "!@#$%^&*(-_=+)") + "'"),
     ("rails", "config/credentials: secret_key_base: " + hexs(128)),
     ("flask", "app.secret_key = b'" + tok(24) + "'"),
     ("ansible-prose", "the ansible vault pass is hunter2-Gorilla-77"),
     ("keychain-add", "security add-generic-password -a ci -s deploy -w '" + tok(14) + "'"),
     ("git-cred", "~/.git-credentials holds https://deploy:" + tok(16) + "@git.internal.example"),
     ("htpasswd", "nginx htpasswd line: admin:$apr1$" + tok(8) + "$" + tok(22, string.ascii_letters + string.digits + "./")),
     ("shadow", "root:$6$" + tok(16) + "$" + tok(86, string.ascii_letters + string.digits + "./") + ":19700:0:99999:7:::"),
     ("ldap-bind", "ldapsearch -x -D cn=admin,dc=acme,dc=io -w " + tok(12) + " -b dc=acme,dc=io"),
     ("pgpassword-env", "PGPASSWORD='" + tok(12) + "' psql -h db.internal -U app app"),
     ("keytool", "keytool -importkeystore -srcstorepass " + tok(12) + " -deststorepass " + tok(12)),
     ("openssl-pass", "openssl pkcs12 -export -in c.pem -inkey k.pem -passout pass:" + tok(14)),
     ("german", "Passwort für den Router: " + tok(11) + "!"),
     ("french", "Le mot de passe du NAS est " + tok(10) + "#7"),
     ("spanish", "La contraseña del servidor es " + tok(12)),
     ("cookie", "Reuse my session: Cookie: sessionid=" + tok(32, string.ascii_lowercase + string.digits) + "; csrftoken=" + tok(32)),
     ("bearer-prose", "just use bearer " + tok(40) + " against the staging API"),
     ("enc-pkcs8", "-----BEGIN ENCRYPTED PRIVATE KEY-----\n" + "\n".join(b64(48) for _ in range(8)) + "\n-----END ENCRYPTED PRIVATE KEY-----"),
     ("discord-hook", "Post alerts to https://discord.com/api/webhooks/" + str(rng.randrange(10**17, 10**18)) + "/" + tok(68, string.ascii_letters + string.digits + "_-")),
     ("webhook-token", "CI trigger: https://ci.internal.example/hooks/build?token=" + tok(28)),
     ("b64-creds", "creds (base64): " + base64.b64encode(b"admin:" + tok(12).encode()).decode()),
     ("passphrase-quoted", "the gpg passphrase is 'tangerine submarine lantern 42'"),
     ("mongo", "mongodb+srv://app:" + tok(16) + "@cluster0.ab1cd.mongodb.net/prod"),
     ("amqp", "amqp://worker:" + tok(14) + "@mq.internal:5672/%2f"),
     ("smtp", "SMTP relay smtp.internal:587 user notify@acme.io pass " + tok(16)),
     ("vnc", "VNC to the lab box, password " + tok(8)),
     ("split", None),
     ("yaml-nested", "database:\n  host: db.internal\n  username: app\n  password: " + tok(14)),
     ("env-lowercase", "export my_service_credential=" + tok(32)),
     ("ini", "[deploy]\nhost = prod1\nsecret = " + tok(30)),
     ("hex-key-aes", "AES-256 key for the backups: " + hexs(64)),
     ("jks-pass-prose", "the keystore is unlocked with " + tok(10) + "$9"),
     ("sops-age", "SOPS_AGE_KEY=AGE-SECRET-KEY-1" + tok(58, "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L").upper()),
     ("npmrc-custom", "//npm.internal.example/:_authToken=" + tok(36)),
     ("pypirc", "[internal]\nrepository = https://pypi.internal.example\nusername = ci\npassword = " + tok(20)),
     ("netrc-oneline", "machine api.internal.example login bot password " + tok(18)),
     ("pin-prose", "My bank card PIN is 4831"),
     ("recovery-email", "Apple ID recovery key: " + "-".join(tok(4, string.ascii_uppercase + string.digits) for _ in range(7))),
    ]
    NEG = [
     ("commit", "Fixed in commit " + hexs(40) + " last week"),
     ("sha256", "sha256: " + hexs(64) + "  release.tar.gz"),
     ("uuid", "Tenant id 3f2c1a9e-8b7d-4c6e-9f1a-2b3c4d5e6f70 is the staging tenant"),
     ("digest", "image ghcr.io/acme/api@sha256:" + hexs(64)),
     ("integrity", '"integrity": "sha512-' + b64(64) + '"'),
     ("ssh-pub", "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + tok(43) + " ops@acme"),
     ("pgp-fpr", "Signing key fingerprint 4AEE 18F8 3AFD EB23 AB3D  C9E4 3B69 B3A1 5B2F 4B13"),
     ("env-ref", "password: ${DB_PASSWORD}"),
     ("placeholder", "api_key: <your-api-key-here>"),
     ("replace-me", 'token = "REPLACE_ME"'),
     ("ipv6", "The gateway is 2001:db8:85a3::8a2e:370:7334"),
     ("mac", "NIC MAC address 00:1A:2B:3C:4D:5E"),
     ("btc-addr", "Donations: bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq"),
     ("eth-addr", "Contract at 0x" + hexs(40)),
     ("ulid", "Job 01ARZ3NDEKTSV4RRFFQ69G5FAV finished"),
     ("objectid", "Mongo document 507f1f77bcf86cd799439011"),
     ("traceparent", "traceparent: 00-" + hexs(32) + "-" + hexs(16) + "-01"),
     ("test-card", "Stripe test card 4242 4242 4242 4242"),
     ("policy", "The password policy requires 12 characters and a symbol"),
     ("expiry", "The token expires after 3600 seconds; refresh it with the refresh endpoint"),
     ("shortcut", "key: ctrl+shift+p opens the command palette"),
     ("secretref", "env:\n- name: DB_PASSWORD\n  valueFrom:\n    secretKeyRef:\n      name: db\n      key: password"),
     ("pgpass-fmt", "The .pgpass format is hostname:port:database:username:password"),
     ("gosum", "golang.org/x/text v0.3.7 h1:olpwvP2KacW1ZWvsR7uQhoyTYvKAupfQrRGBFM352Gk="),
     ("pem-pub", "-----BEGIN PUBLIC KEY-----\n" + "\n".join(b64(48) for _ in range(5)) + "\n-----END PUBLIC KEY-----"),
     ("age-pub", "Encrypt to age1ql3z7hjy54pw3hyww5ayyfg7zqgvc7w3j2elw8zmrj2kg5sfn9aqmcac8p"),
     ("wg-pub", "[Peer]\nPublicKey = " + b64(32) + "\nAllowedIPs = 10.8.0.0/24"),
     ("doc-totp", "For testing authenticators, the RFC 6238 example uses the ASCII secret 12345678901234567890"),
     ("version", "Upgraded to 3.12.1-rc2+build.8841"),
     ("color", "Brand colors #1a2b3c #ff8800 #00aaff"),
     ("request-id", "Support asked for request id req_" + tok(24)),
     ("s3-path", "Backups are under s3://acme-backups/prod/2026/12/db.sql.gz"),
     ("secret-sauce", "The secret to fast builds is caching node_modules"),
     ("key-rotation", "Rotate the signing key every 90 days; the key id is kid-2026-12"),
     ("mysql-noval", "Connect with mysql -h db1 -u root -p shop (it prompts for the password)"),
     ("curl-var", 'curl -u "$API_USER:$API_PASS" https://api.internal/health'),
     ("hash-cmd", "git rev-parse HEAD printed " + hexs(40)),
     ("iban-example", "Example IBAN from the docs: DE89 3704 0044 0532 0130 00"),
     ("base64-img", "Favicon: data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="),
     ("jwt-docs-like", "JWTs have three parts: header.payload.signature, each base64url"),
    ]
    return POS, NEG, tok


def second():
    rng, tok, hexs, b64 = corpus(777)
    POS = [
     ("vnc2", "VNC password for the lab box: " + tok(8)),
     ("router-admin", "Router admin login admin / " + tok(10)),
     ("login-with", "Log in to the NAS as root with " + tok(9) + "!"),
     ("creds-slash", "jenkins creds: ci-bot / " + tok(12)),
     ("user-pass-table", "| host | user | pass |\n|---|---|---|\n| db1 | app | " + tok(12) + " |"),
     ("csv", "host,user,password\ndb1,app," + tok(12)),
     ("psk", "IPsec pre-shared key " + tok(20)),
     ("snmp", "snmpwalk -v2c -c " + tok(12) + " switch1"),
     ("radius", "RADIUS shared secret on the APs: " + tok(16)),
     ("keychain-find", "security add-internet-password -s api.internal -a me -w " + tok(16)),
     ("docker-login", "docker login -u ci -p " + tok(20) + " registry.internal"),
     ("helm", "helm repo add internal https://charts.internal --username ci --password " + tok(16)),
     ("kubectl-token", "kubectl --token=" + tok(40) + " get pods"),
     ("aws-cli-secret", "aws configure set aws_secret_access_key " + tok(40)),
     ("gh-token-env", "GH_TOKEN=" + tok(40) + " gh pr list"),
     ("url-query-key", "https://maps.internal.example/api?key=" + tok(39) + "&q=paris"),
     ("jdbc", "jdbc:postgresql://db.internal:5432/app?user=app&password=" + tok(14)),
     ("odbc", "Driver={ODBC Driver 18};Server=sql1;Database=app;Uid=app;Pwd=" + tok(14) + ";"),
     ("sqlserver", "Server=sql1;Database=app;User Id=sa;Password=" + tok(14) + ";"),
     ("ftp-url", "ftp://upload:" + tok(12) + "@ftp.partner.example/in/"),
     ("mqtt", "mosquitto_pub -h broker -u dev -P " + tok(14) + " -t x -m y"),
     ("rsync-pass", "RSYNC_PASSWORD=" + tok(14) + " rsync -a rsync://backup@nas/share ."),
     ("redis-cli-a", "redis-cli -h cache -a " + tok(18) + " ping"),
     ("unlock-code", "The unlock code for the deploy laptop is " + tok(8) + "#2"),
     ("safe", "Server room safe combination: 31-07-84"),
     ("token-in-json", '{"client_id": "acme-web", "client_secret": "' + tok(40) + '"}'),
     ("tfvars", 'db_password = "' + tok(16) + '"'),
     ("ps-securestring", "$pw = ConvertTo-SecureString '" + tok(14) + "' -AsPlainText -Force"),
     ("net-use", "net use Z: \\\\fs1\\share /user:ACME\\svc " + tok(12)),
     ("runas", "The local admin password on the kiosks is " + tok(10)),
    ]
    return POS


def refused(name: str, text: str | None, tok) -> bool:
    if text is None:  # a credential split across fields: the description names it, the body holds it
        return bool(secret_findings(key="staging-db-login", description="Password for the staging database",
                                    body=tok(14) + "!", meta={}))
    return bool(secret_findings(key="note-" + name, description="A note", body=text, meta={}))


def main() -> None:
    pos, neg, tok = first()
    pos = pos + second()
    hit = [n for n, t in pos if refused(n, t, tok)]
    missed = [n for n, t in pos if n not in hit and n not in BY_DECISION]
    passed = [n for n, t in pos if n not in hit and n in BY_DECISION]
    fp = [n for n, t in neg if refused(n, t, tok)]
    counted = len(pos) - len(passed)
    print(f"credential forms refused: {len(hit)} of {counted} ({100 * len(hit) / counted:.1f}%), "
          f"missed: {', '.join(missed) or 'none'}")
    print(f"passed by decision (crypt-format hashes): {', '.join(passed) or 'none'}")
    print(f"look-alikes refused: {len(fp)} of {len(neg)}{': ' + ', '.join(fp) if fp else ''}")


if __name__ == "__main__":
    main()
