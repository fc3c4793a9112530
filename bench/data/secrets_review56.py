"""Fresh probes of the secret gate written by review56 (2026-12-05) while reviewing sec51: ordinary
developer notes that sit near secrets (commit SHAs, digests, UUIDs, base64 image names, env var names,
URLs with token-like paths, Go constructors, DynamoDB keys, push tokens) and real-looking secrets of
other forms (connection strings, vendor tokens, device access tokens, composite-key look-alikes).
Not held out: written after reading sec51's diff, and two of its classes were fixed on what they found
(a random token under a push address's name; a composite record key holding a random part). None is
an item of another corpus; values come from seeded ``random.Random`` generators at import (no value is
a real credential).

    PYTHONPATH=$PWD python bench/bench_secrets.py --set review56 [--misses]

The misses it lists are name-based passes sec51 made on purpose and review56 left (a cursor's name,
``SYNC_TOKEN``; an error's name, ``invalid_token``; ``hashed_secret``; ``password <uuid>``).
"""

from __future__ import annotations

import base64
import hashlib
import random
import string
import uuid


def _items(texts: list[str], cls: str, prefix: str) -> list[dict]:
    return [{"name": f"{prefix}-{i}", "class": cls, "key": f"{prefix}-{i}", "description": "notes",
             "meta": {}, "body": t} for i, t in enumerate(texts)]


def _first() -> tuple[list[str], list[str]]:
    rng = random.Random(5656)
    A = string.ascii_letters + string.digits

    def r(n: int, al: str = A) -> str:
        return "".join(rng.choice(al) for _ in range(n))

    def hx(n: int) -> str:
        return r(n, "0123456789abcdef")
    sha = hashlib.sha1(b"x").hexdigest()
    sha256 = hashlib.sha256(b"release").hexdigest()
    u = str(uuid.UUID(int=rng.getrandbits(128), version=4))
    b64img = base64.b64encode(bytes(rng.getrandbits(8) for _ in range(30))).decode()
    ordinary = [
     f"The regression came in with commit {sha}; reverting it fixes the flaky login test.",
     f"Bisect landed on {sha[:12]} (\"tighten token refresh\"); the auth middleware change broke SSO.",
     f"Release tarball checksum (sha256): {sha256}",
     f"The Docker image is pinned by digest: ghcr.io/acme/api@sha256:{sha256}",
     f"Tenant id for the staging workspace is {u}; the billing service keys customers by it.",
     f"Sentry issue {hx(32)} is the password reset crash; it only happens on Safari.",
     f"The avatar upload stores files as {b64img.replace('/', '_')}.png under s3://acme-avatars/.",
     "Env vars the service reads: DATABASE_URL, REDIS_URL, STRIPE_SECRET_KEY, JWT_SIGNING_KEY (values in 1Password).",
     "Set GITHUB_TOKEN in the CI secrets page, never in the workflow file; the deploy job reads ${{ secrets.GITHUB_TOKEN }}.",
     "The password reset link looks like https://app.acme.dev/reset/<token>; tokens expire after 30 minutes.",
     f"Share links are https://files.acme.dev/s/{r(10)} and are public by design (anyone with the link can view).",
     f"The OpenAPI spec lives at https://api.acme.dev/v2/tokens/{hx(8)}/scopes — an admin-only endpoint.",
     "Rotate the API key every 90 days; the rotation script is scripts/rotate_keys.py and it pages #infra when done.",
     "Our token bucket rate limiter allows 100 requests per minute per API key.",
     f"Git LFS pointer: oid sha256:{sha256} size 4821",
     f"The migration id is {r(26, '0123456789ABCDEFGHJKMNPQRSTVWXYZ')} (a ULID); rerun it with alembic upgrade.",
     "The password policy: at least 12 characters, one digit, no reuse of the last 5 passwords.",
     "Never log the Authorization header; the logger masks anything matching Bearer <...>.",
     f"The CSS module hash for the button is _btn_{r(5)}_1; Storybook snapshots depend on it.",
     f"Webpack emits main.{hx(20)}.js; the CDN caches by that content hash forever.",
     "kubectl get secret db-creds -o jsonpath='{.data.password}' | base64 -d  — how to read the DB password when on call.",
     "aws sts get-caller-identity shows which role you are; use --profile staging for the staging account.",
     f"The Stripe test card is 4242 4242 4242 4242 with any CVC; the test mode customer is cus_{r(14)}.",
     f"The Slack channel id for alerts is C0{r(9, string.ascii_uppercase + string.digits)}; the bot posts there.",
     f"The Postgres advisory lock key is 72{rng.randrange(10**8, 10**9)}; only the scheduler takes it.",
     "The session cookie is named __Host-session and is HttpOnly, Secure, SameSite=Lax.",
     f"The GPG key fingerprint for release signing: {' '.join(hx(4).upper() for _ in range(10))}",
     f"The SSH host key fingerprint of bastion is SHA256:{base64.b64encode(bytes(rng.getrandbits(8) for _ in range(32))).decode().rstrip('=')}",
     "token_type is always 'Bearer' in our OAuth responses; expires_in is 3600.",
     f"Feature flag key: checkout-v2-{hx(6)}; LaunchDarkly toggles it per tenant.",
     "To reset the admin password locally: python manage.py changepassword admin (prompts; nothing stored).",
     f"The build cache key in CI is linux-node18-{hx(40)}.",
     f"The npm package integrity is sha512-{base64.b64encode(hashlib.sha512(b'pkg').digest()).decode()}",
     f"Request ids look like req_{r(24)}; grep the logs for them when a customer reports an error.",
     f"The Terraform state lock id was {u} when the apply hung; force-unlock with that id.",
     "The secret scanning in CI (gitleaks) runs on every push; allowlist entries go in .gitleaks.toml.",
     f"Jira ticket AUTH-{rng.randrange(100,999)}: the token refresh loops when the clock skew exceeds 5 minutes.",
     "We hash passwords with argon2id (m=64MB, t=3, p=4); bcrypt hashes from the old system are upgraded on login.",
     "Example JWT header: eyJhbGciOiJIUzI1NiJ9 decodes to {\"alg\":\"HS256\"}; never paste full tokens in tickets.",
     "The Vault path for the DB creds is secret/data/payments/db; the policy name is payments-ro.",
     f"Photo ids in the gallery are base64url: {base64.urlsafe_b64encode(bytes(rng.getrandbits(8) for _ in range(12))).decode()}; they are not secret.",
     f"Run `git log --format=%H -1` to get the SHA; the last release was {hx(40)}.",
     "The env var AWS_PROFILE picks the credentials profile; AWS_REGION defaults to eu-west-1.",
     f"Our Google Analytics measurement id is G-{r(10, string.ascii_uppercase + string.digits)}; it goes in every page.",
     f"The public key for verifying webhooks is in docs/webhooks.md (ed25519, {hx(64)}).",
     f"Cloudflare zone id: {hx(32)} (not secret; the API token is in 1Password).",
     f"The Android app's SHA-1 signing certificate fingerprint is {':'.join(hx(2).upper() for _ in range(20))}.",
     "Password field in the signup form must have autocomplete=new-password.",
     f"The Redis key for rate limits is ratelimit:{{user_id}}:{hx(8)}.",
     "The k8s service account token is mounted at /var/run/secrets/kubernetes.io/serviceaccount/token.",
     "Recovery: if the deploy key is lost, generate a new one with ssh-keygen -t ed25519 and add it in repo settings.",
     f"Commit {hx(7)} renamed API_KEY to ACME_API_KEY everywhere; update your .env.",
     f"The cache busting query string is ?v={hx(10)}.",
     f"The webhook URL path is /hooks/{r(8).lower()}/incoming; the signing secret is in the env, not in the URL.",
     f"Unsubscribe links carry a signed id: /u/{hx(16)}; the HMAC is checked server side.",
    ]
    secrets = [
     f"The staging DB password is {rng.choice(['Tarn','Mossy','Quill'])}{rng.randrange(10,99)}!{r(4)}Lx",
     f"DATABASE_URL=postgres://app:{r(18)}@db.internal:5432/app",
     f"export ACME_API_KEY={r(32)}",
     f"Stripe live secret: sk_live_{r(24)}",
     f"GitHub PAT for the release bot: ghp_{r(36)}",
     f"Slack bot token xoxb-{rng.randrange(10**11,10**12)}-{rng.randrange(10**11,10**12)}-{r(24)}",
     f"AWS creds for the backup job: AKIA{r(16, string.ascii_uppercase + '234567')} / {r(40, A + '/+')}",
     f"curl -H 'Authorization: Bearer {r(48)}' https://api.acme.dev/v2/me",
     f"The webhook signing secret is whsec_{r(32)}",
     f"SendGrid key: SG.{r(22)}.{r(43)}",
     f"redis://:{r(24)}@cache.internal:6379/0",
     f"mysql -u root -p'{r(14)}' -h 10.0.3.4",
     f"The wifi password at the office is {rng.choice(['amber','cobalt','maple'])}-{rng.choice(['river','stone','cloud'])}-{rng.randrange(100,999)}",
     f"JWT_SECRET={r(64, A + '-_')}",
     f"Basic auth for the admin panel: admin / {r(12)}",
     f"npm token: npm_{r(36)}",
     f"OpenAI key sk-proj-{r(48)}",
     f"-----BEGIN OPENSSH PRIVATE KEY-----\n{r(70, A + '+/')}\n{r(70, A + '+/')}\n-----END OPENSSH PRIVATE KEY-----",
     f"https://hooks.slack.com/services/T{r(8, string.ascii_uppercase + string.digits)}/B{r(8, string.ascii_uppercase + string.digits)}/{r(24)}",
     f"Login for the vendor portal is ops@acme.dev, password {r(6)}{rng.randrange(1000,9999)}#",
     f"GitLab runner registration token glrt-{r(20)}",
     f"The Twilio auth token is {hx(32)}",
     f"client_secret: {r(34, A + '~._-')}",
     f"PGPASSWORD={r(16)} psql -h db -U app",
     f"The root password on the NAS is {r(10)}",
     f"Mailgun: key-{hx(32)}",
     f"api_key = \"{r(40)}\"",
     f"docker login -u deploy -p {r(20)} registry.acme.dev",
     f"The Discord bot token is {r(24)}.{r(6)}.{r(38, A + '_-')}",
     f"Shopify admin token shpat_{hx(32)}",
    ]
    return ordinary, secrets


def _second() -> tuple[list[str], list[str]]:
    rng = random.Random(5657)
    A = string.ascii_letters + string.digits

    def r(n: int, al: str = A) -> str:
        while True:
            s = "".join(rng.choice(al) for _ in range(n))
            if al != A or (any(c.isdigit() for c in s) and any(c.isupper() for c in s) and any(c.islower() for c in s)):
                return s

    def hx(n: int) -> str:
        return r(n, "0123456789abcdef")
    ordinary = [
     'errors.New("invalid password") is what the login handler returns; wrap it with fmt.Errorf.',
     'tmpl := template.New("reset-password-email") parses templates/reset.html.',
     'req, _ := http.NewRequest("GET", "https://api.acme.dev/v1/me", nil) then set the Authorization header from the env.',
     'client := redis.NewClient(&redis.Options{Addr: "localhost:6379", Password: os.Getenv("REDIS_PASSWORD")})',
     'logger := zap.NewExample(); logger.Info("token refreshed", zap.String("user", "dana"))',
     'db, err := sql.Open("postgres", os.Getenv("DATABASE_URL"))',
     'cfg := aws.NewConfig().WithRegion("eu-west-1") — credentials come from the instance role.',
     'g := gin.New(); g.Use(auth.New("session", "cookie"))',
     'The DynamoDB table uses PK: USER#1234 and SK: PROFILE#2026-12-04; query begins_with(SK, "ORDER#").',
     'The CLI takes --ak and --sk flags for the access key pair; pass them from the env, never literally.',
     'Sort key (sk) is the ISO timestamp; pk is the tenant.',
     'UPDATE settings SET value = \'true\' WHERE key = \'smtp_enabled\';',
     "UPDATE settings SET value = 'smtp.acme.dev' WHERE key = 'smtp_host';",
     "UPDATE options SET value = 'en_US' WHERE option_name = 'password_reset_locale';",
     'radius-server host 10.0.0.9 auth-port 1812 acct-port 1813 key 7 <from the vault>',
     'The switch config uses "snmp-server community public RO" only in the lab; production uses SNMPv3.',
     'In vim, " starts a comment: " TOTP_AUTH is not a vim option, it is from the google authenticator file.',
     'The 1Password Secret Key starts with A3- and has six groups; it is in the Emergency Kit PDF, not here.',
     'Session token lifetime is 12h; the refresh token lives 30 days.',
     'token: null in the response means the login failed; check error.code.',
     'Pagination: pass next_page_token back until it is empty.',
     'The SHA-256 of the empty string is e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855.',
     'md5 of "password" is 5f4dcc3b5aa765d61d327deb882cf99 (do not use md5).',
     f'Build {hx(8)}: the key rotation job (key id {hx(16)}) ran at 03:00.',
     f'JWKS: kid {r(22)} is the current signing key id; the old one retires Friday.',
     f'Salt for the test fixtures: fixed to "{hx(16)}" so snapshots are stable (test only).',
     f'The password reset email template id is d-{hx(32)} in SendGrid.',
     'auth ok: user=dana role=admin (from the audit log, 2026-11-03)',
     'password=******** in the logs is the masked form; the logger never prints the real one.',
     'Set PASSWORD_MIN_LENGTH=12 and PASSWORD_REQUIRE_DIGIT=true in the settings.',
     f'Object key in S3: uploads/2026/11/{hx(32)}.jpg',
     'The license key format is XXXXX-XXXXX-XXXXX-XXXXX; customers find theirs in the portal.',
     'The API token scope list: read:user, repo, workflow.',
     f'The cache key is sha256(user_id + ":" + locale) = {hx(64)} for the test user.',
     'To log in to the staging DB: psql "$STAGING_DB_URL" (the URL is in the team vault).',
     'Private key file lives at ~/.ssh/id_ed25519 (never commit it); the public half is id_ed25519.pub.',
     'export GOOGLE_APPLICATION_CREDENTIALS=~/keys/ci-service-account.json',
     f'Secret name in AWS Secrets Manager: prod/payments/stripe-{hx(6)}',
     'The token endpoint is POST /oauth/token with grant_type=client_credentials.',
     f'git tag v2.3.1 points at {hx(40)}; the changelog is generated from it.',
    ]
    secrets = [
     f'SYNC_TOKEN={r(40)}',
     f'Pushover push token: {r(30).lower()}',
     f'THINGSBOARD_DEVICE_TOKEN={r(20)}',
     f'invalid_token={r(32)}',
     f'hashed_secret: {r(40)}',
     f'The vendor API key is {r(32)} (search-only key for admin)',
     f'auth: value={r(32)}',
     f'password {str(uuid.UUID(int=rng.getrandbits(128), version=4))}',
     f'session_token = "{r(48)}"',
     f'--sk {r(40)}',
     f'HUAWEICLOUD_SDK_SK={r(40)}',
     f'tacacs-server host 10.1.1.1 key 0 {r(14)}',
     f'The SMTP password: {r(16)}',
     f'AccountKey={base64.b64encode(bytes(rng.getrandbits(8) for _ in range(64))).decode()}',
     f'sha256 password hash input: password="{r(14)}"',
     f'api secret is {r(28)}; the id is {hx(8)}',
     f'The deploy key passphrase: {r(5).lower()}-{r(5).lower()}-{r(5).lower()}-{r(5).lower()}',
     f'REFRESH_TOKEN={r(64)}',
     f'The bot token for the CI notifier is {rng.randrange(10**9,10**10)}:AA{r(33)}',
     f'PAGE_TOKEN={r(120)}',
    ]
    return ordinary, secrets


_O1, _S1 = _first()
_O2, _S2 = _second()
FORMS = _items(_S1, "real-looking", "probe-a") + _items(_S2, "near-sec51-rules", "probe-b")
LOOK_ALIKES = _items(_O1, "ordinary-notes", "note-a") + _items(_O2, "near-sec51-rules", "note-b")
