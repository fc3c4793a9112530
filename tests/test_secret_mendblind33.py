"""The review of blind33's own rules (mendblind33): 197 look-alikes written to sit near each rule
blind33 added (a password's property named before its sign, "password policy: ThreeWordsMinimum";
praise ending in `!`, "Password strength: Excellent!"; a table line starting with AUTH, "AUTH
keycloak-22"; a serial read out in the phonetic alphabet in sentence case; "Key findings" above
"Part 1: ..."; an aside saying the codes are an example; a list of tar flags; a sentence after a
credential word's full stop naming something else) and 59 credentials in the same neighbourhood.

Every look-alike is stored, but ten that rules older than blind33 refused before it too (strict
xfail: a fix there shows here); every form is refused but two the gate missed before and after
blind33 (strict xfail). Judged as the bench judges a memory, by ``policy.secret_findings``.
"""

from __future__ import annotations

import pytest

from vault_mem.model.policy import secret_findings

# Look-alikes aimed at blind33's new rules: none holds a credential.
LOOKALIKES = [
    # --- camel_phrase: 3-4 capitalised words after a password label (names, sources, UI, enums)
    "Password: ShowHideToggle",
    "Password policy: ThreeWordsMinimum",
    "password policy: TwelveCharactersMinimum",
    "password type: OneTimeCode",
    "password reset: MagicLinkEmail",
    "password reset: HelpDeskTicket",
    "password hint: FavoriteChildhoodPet",
    "password rotation: QuarterlyCalendarReminder",
    "password source: AzureActiveDirectory",
    "password source: GitHubActionsSecrets",
    "password source: GoogleWorkspaceSync",
    "password source: JumpCloudDirectory",
    "password store: AwsSecretsManager",
    "password: BitbucketRepositoryVariables",
    "password: VercelEnvironmentVariables",
    "password: NetlifyBuildEnvironment",
    "password: KeychainAccessApp",
    "password: GnomeKeyringDaemon",
    "password: OktaVerifyPush",
    "password: MicrosoftAuthenticatorPush",
    "password: WindowsHelloFace",
    "password: BiometricFaceUnlock",
    "password: ActiveDirectorySync",
    "password: TerraformCloudWorkspace",
    "password: JasyptEncryptorBean",
    "Login form password: CapsLockWarning shown when caps lock is on",
    "password field icon: EyeIconToggle",
    "Storybook story for password: DarkThemeFocus",
    "password complexity: HighMediumLow",
    "password policy: RequireUppercaseLowercase",
    "password: SingleSignOnOnly",
    "password: UseTheVault",
    "password: AskSarahTomorrow",
    "password: StoredInKeychain",
    "password: ChangeMeLater",
    "password: KubernetesSecretStore",
    "token: AccessTokenProvider",
    "secret: ExternalSecretsOperator",
    "secret: SealedSecretsController",
    "token: RefreshTokenRotation",
    "The admin password field is PasswordRevealButton in the design system.",
    "password manager: BitwardenTeamsPlan",
    "password strength meter: ZxcvbnScoreFour",
    "password: HunterTwoMeme (the old joke; not used anywhere)",
    "passphrase generator: DicewareLongList",
    "wifi password: PrintedOnRouter",
    "wifi password: GuestNetworkPortal",
    "password: CaptivePortalLogin",
    "password login: DisabledForServiceAccounts",
    "Password: Show Hide Toggle",
    "password: Use The Vault",
    "Password policy: Three Words Minimum",
    "password error message: TooShortTryAgain",
    "password flow: ForgotPasswordScreen",
    "password: SlackHuddleTomorrow",
    "password reset owner: PlatformTeamOncall",
    "passcode screen: FaceIdFallback",
    "password auth: ApacheShiroRealm",
    "password: PostgresScramSha",
    "password hashing: ArgonTwoId",
    "password validator: ZxcvbnPythonPort",
    # --- trailing ! after a label's sign
    "Status: Approved!",
    "Answer: Yes!",
    "Password reset: Done!",
    "Password change: Success!",
    "Password strength: Excellent!",
    "Password strength: Fantastic!",
    "Password check: Passed!",
    "Password match: Perfect!",
    "password reset: Tonight!",
    "password expiry: Friday!",
    "Password audit: Clean!",
    "password vault: Unlocked!",
    "Password policy: Enforced!",
    "password hint: Pizza!",
    "Password manager: Bitwarden!",
    "password rotation: Tomorrow!",
    "Password length: Twelve!",
    "Password: Congratulations!",
    "password sharing policy: Never!",
    "password login: Blocked!",
    "Password field: Mandatory!",
    "Password = Nope!",
    "password: Finally!",
    "password protected: Absolutely!",
    "Password reset flow: Awesome!",
    "Wifi password: Ask!",
    "password result: Brilliant!",
    "Password fix: Shipped!",
    "Password migration: Complete!",
    "pass: Excellent!",
    # --- AUTH in other contexts
    "AUTH LOGIN",
    "AUTH PLAIN",
    "AUTH CRAM-MD5",
    "AUTH LOGIN PLAIN",
    "AUTH XOAUTH2",
    "AUTH SCRAM-SHA-256",
    "AUTH requires a password when requirepass is set",
    "AUTH failed",
    "AUTH token expired",
    "AUTH <password>",
    "AUTH default <password>",
    "AUTH default ${REDIS_PASSWORD}",
    "AUTH default $REDIS_PASSWORD",
    "127.0.0.1:6379> AUTH mypassword",
    "127.0.0.1:6379> auth foobared",
    "AUTH 401 Unauthorized",
    "Service map:\nDB postgres-14\nAUTH keycloak-22\nCACHE redis-7",
    "Ownership:\nAPI team-payments\nAUTH team-identity\nUI team-web",
    "AUTH user=alice status=denied",
    "AUTH mechanism=SCRAM-SHA-512",
    "AUTH -> auth-svc:8443",
    "> Auth flow: oauth2-pkce",
    "> auth provider: auth0",
    "> Auth header missing",
    "Ports:\nHTTP 8080\nAUTH 9443\nMETRICS 9100",
    "Versions:\nCORE v1.4.2\nAUTH v2.3.1",
    "Status board:\nAUTH degraded-since-0914\nBILLING ok",
    "Module layout:\nAUTH src/auth/\nBILLING src/billing/",
    "SMTP transcript:\n> EHLO mail.example.org\n< 250-AUTH LOGIN PLAIN\n> AUTH LOGIN\n< 334 VXNlcm5hbWU6",
    "Redis docs: AUTH <username> <password> authenticates the connection; ACL users from Redis 6.",
    "127.0.0.1:6379> AUTH\n(error) ERR wrong number of arguments for 'auth' command",
    # --- backup codes after an aside
    "backup codes (see 1Password): regenerate yearly",
    "Backup codes (GitHub): stored in 1Password, regenerated 2024-03-01",
    "backup codes (format): xxxx-xxxx, 10 codes",
    "backup codes (example from the docs): 12345678, 23456789, 34567890, 45678901",
    "Backup codes (Google Workspace admin): regenerated on 2025-01-14, old set revoked",
    "backup codes (ticket INC-4821): requested, pending approval",
    "Backup codes (per user): 10, each valid once, 8 digits",
    "backup codes (status): used 3, left 7",
    "backup codes (regenerated): 2024-01-15, 2024-07-15, 2025-01-15",
    "backup codes (Jira tickets): SEC-1042, SEC-1043, SEC-1051",
    "backup codes (hosts that need them): web01, web02, db01, cache01",
    "recovery codes (error codes seen): E1042, E2231, E3310, E4410",
    "backup codes (HTTP status on failure): 401, 403, 429",
    "Backup codes (who holds a printed set): ana, bo, chen, dev-lead",
    "recovery codes (sizes by provider): github 16, google 8, microsoft 12",
    "backup codes (versions of the runbook): v1.0, v1.1, v2.0",
    # --- characters listed with commas
    "letters a, b, c, d, e, f, g, h",
    "vim motions to practise: h, j, k, l, w, b, e, 0, $",
    "Hex digits: 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, a, b, c, d, e, f",
    "Excluded ambiguous characters in the id generator: 0, O, 1, l, I, 5, S, 8, B",
    "Keys reserved by the game: W, A, S, D, Q, E, R, F, 1, 2, 3, 4",
    "Quiz answers: 1, a, 2, c, 3, b, 4, d",
    "Base32 alphabet tail: W, X, Y, Z, 2, 3, 4, 5, 6, 7",
    "Shortcut keys in the viewer: j, k, n, p, g, G, /, ?, 1, 2",
    "Grades used: A, B, C, D, F, P, 1, 2",
    "CSV row: 1,0,0,1,x,0,1,y,1",
    "Single-letter tar flags we pass: x, v, z, f, C, 2, j, J",
    "Seat rows A, B, C, D, E, F, G, H and columns 1 to 12",
    "Section markers used in the doc: §, A, B, 1, 2, i, ii",
    "Drive letters mapped on the build box: C, D, E, F, G, H, X, Z",
    # --- phonetic alphabet in ordinary use
    "server is Alpha Bravo 7",
    "Serial read to Dell support: Hotel seven kilo two lima niner three xray",
    "Spelled the hostname for support: Sierra echo romeo victor echo romeo one two",
    "Booking reference read over the phone: Kilo Lima Seven Two Niner Echo Alpha Bravo",
    "Read the serial to support: Alpha Two Three Seven Four Kilo Lima Niner",
    "Phonetic cheat sheet: Alfa Bravo Charlie Delta Echo Foxtrot Golf Hotel India Juliett Kilo Lima Mike November Oscar Papa Quebec Romeo Sierra Tango Uniform Victor Whiskey X-ray Yankee Zulu, digits Zero One Two Three Four Five Six Seven Eight Niner",
    "Call signs: Alpha one, Bravo two, Charlie three, Delta four",
    "Grid reference: Echo Foxtrot three four five six seven eight",
    "Ticket number for the vendor, read out: Charlie alpha seven four two niner kilo lima",
    "Tail number read to ATC: November four seven two kilo bravo, Cessna one seven two",
    "Golf one two three four five six seven is the parking bay list",
    "Sprint names: Alpha, Bravo, Charlie, Delta, Echo, Foxtrot, Golf, Hotel",
    "Case id read to the bank: Papa echo three three seven one kilo kilo",
    "Flight confirmation: Victor kilo seven one two sierra tango zero (Delta, seat 14C)",
    # --- a credential word ending its sentence, ordinary text after
    "We keep no secret. Deploys run at 9",
    "Rotated the API token. Build 4821 passed afterwards.",
    "Forgot the password. Ticket INC-20931 opened with IT.",
    "Stale client secret. Swapped it for a managed identity (mi-prod-eastus2).",
    "Removed the hardcoded password. Switched to Workload Identity: wi-payments-7f3c",
    "The job failed on the expired token. Retried as run 88213402 and it passed.",
    "Asked Sam for the passphrase. He said use the vault entry prod/db/main.",
    "Reset the password. New policy is min-length=14.",
    "Lost the token. Regenerated via `gh auth refresh`.",
    "Moved off the shared secret. Now mTLS with cert CN=payments-api.prod.",
    "Don't commit the key. Use sops with age recipient age1ql3z7hjy54pw3hyww5ayyfg7zqgvc7w3j2elw8zmrj2kg5sfn9aqmcac8p",
    "Dropped the old client secret. Swapped it for federated credentials on app-reg-7731.",
    "No more static token. Replaced it with OIDC role arn:aws:iam::123456789012:role/gh-deploy.",
    "Checked the webhook secret. Changed it to HMAC-SHA256 verification in v2.8.1.",
    "We rotated the signing key. New kid is 2025-06-rsa.",
    "Expired password. Set it to rotate every 90d via policy pw-rotate-90.",
    "The token. Renamed it to GH_DEPLOY_TOKEN in CI.",
    "Forgot the passcode. Used recovery flow; case ref CS-448812.",
    # --- parts / halves that are not a password
    "Secret rotation PR landed in two parts.\nPart 1: 3f9a2c7\nPart 2: b81e0d4",
    "Key findings\nPart 1: p95=420ms\nPart 2: p99=1.2s",
    "Pin the versions\nPart 1: node@20.11\nPart 2: pnpm@8.15",
    "Password migration in two halves.\nFirst half: users-a-m\nSecond half: users-n-z",
    "Secrets audit timeline\nFirst half: Jan-Jun\nSecond half: Jul-Dec",
    "Key results\nFirst half: +12.4%\nSecond half: -3.1%",
    "API key rotation schedule\nFirst half: Q1-2025\nSecond half: Q3-2025",
    "Key takeaways\nPart 1: retry-w/jitter\nPart 2: cap@30s",
    "Credential migration batches\nPart 1: ids 1-5000\nPart 2: ids 5001-9k",
    "Password reset emails went in two chunks.\nChunk 1: 14:02Z\nChunk 2: 14:37Z",
    "Key metrics\nFirst half: 99.95%\nSecond half: 99.2%",
    "PIN pad firmware rollout\nPart 1: fw-3.2.1a\nPart 2: fw-3.2.1b",
    "Secret scanning backfill\nChunk 1: 0/412\nChunk 2: 3/388",
]

# Credentials in the neighbourhood of blind33's new rules: each should be refused.
FORMS = [
    # camel_phrase
    "password: BlueHarborTulip",
    "pw: MapleCrescentOtter!",
    "Password = QuietRiverLantern",
    "wifi password: SunnyMangoPelican",
    "the root password is CobaltMeadowFinch",
    "password: OliviaMartinezRiver",
    "login admin / password: PurpleWalrusCanyon",
    "password: GraniteOwlHarvest#",
    "PASSWORD=AmberFoxTrellis",
    "password: CopperLionMistJuniper",
    "Sam gave me the NAS password: VelvetPondSparrow",
    "router admin password: TigerLilyOrbit",
    # Redis AUTH
    "> AUTH default xK9mP2qLw7",
    "127.0.0.1:6379> auth Tr0ub4dor&3x",
    "AUTH s3cr3tRedisPw!",
    "redis-cli -h cache.internal\n> AUTH app_user 9fJq2LmZx7",
    "cache.prod:6380> AUTH Zq8vNw3Lr5",
    "redis-cli\n127.0.0.1:6379> AUTH ops-admin hunter2-prod",
    "AUTH default Kp7rWq2zXn4L",
    # backup codes after an aside
    "GitHub recovery codes (personal account): 4f2a1-b9c3e, 7d8e2-a1f4c, 9b3c7-e2d1f, 1a6f4-c8e2b",
    "backup codes (Okta, admin): 83920174, 29384756, 61728394, 50493827, 17283946",
    "Backup codes (break-glass account): k3m9-x7q2, p8w4-r2n6, t5z1-h9j3, v7c4-b2d8",
    "recovery codes (shared ops login) = 48217-93610, 77201-18344, 50938-66127",
    # comma-spelled
    "Wi-Fi key, letter by letter: T, 7, r, $, q, M, 2, x, L",
    "pw spelled out: 9, k, F, !, w, 2, Z, p",
    "password (spelled): a,B,3,$,x,9,Q,m",
    "The kiosk password, letter by letter: R, 4, t, #, m, 8, W, q, 2 (case matters).",
    # phonetic
    "Router password in NATO so it survives the phone call: Kilo seven Victor hotel Bravo nine Zulu quebec.",
    "alarm code read out: Sierra four tango Hotel niner papa X-ray two",
    "Vault unseal pw over the phone: romeo Echo five mike Lima three whiskey Delta",
    "NAS password for the on-call: Golf two hotel Papa six yankee Tango eight oscar",
    # split halves
    "The admin password is in two parts.\nFirst half: Xk9#mQ2\nSecond half: vL7$pR4",
    "VPN passphrase split for two keyholders:\nPart 1: 8fJ2kQ\nPart 2: Lm9zX3",
    "Safe's password, two pieces.\nPiece 1: Tr7!vQ\nPiece 2: zK4@wN",
    "The root pw is split:\nFirst part: hB8$kZ\nSecond part: 3pQ!xR",
    # credential word ending a sentence, value in the next
    "Session summary: the 401s came from a stale client secret. Swapped it for Qm7xK2pL9vR4tZ8wB3nY.",
    "Lost the old password. Changed it to Harbor!Falcon72.",
    "Had a weak password. Set it to Vx8#kL2qMz.",
    "Rotated the staging token. New one is tK9vL2mQ8xR4pZ7wN3.",
    "Revoked the bot secret. Replaced it with 7fQx9LmK2pVz8RtW4nB6.",
    "We had a leaked passphrase. Changed it to mango-Orbit-47-lantern.",
    # trailing ! after a sign
    "password: Quicksilver!",
    "wifi password= Marmalade!",
    "admin password: Thunderbolt!",
    "PASSWORD=Sunflower!",
    "root password: Pineapple!",
    "db password: Gooseberry!",
    "login bob, password: Hummingbird!",
    "Guest Wi-Fi password: Tangerine!",
    # mixed
    "password: BlueHarborTulip (Sam set it yesterday)",
    "password: RiverStoneMaple!",
    "The kiosk pin, letter by letter: 4, 9, 1, 7, a, K, z, 2",
    "backup codes (for the shared admin): 7261-9043, 1180-4427, 3395-8812, 6604-2219",
    "> AUTH Wq3#pLz8Rt",
    "Kafka SASL password for the consumer: HollowPineGlacier",
    "smtp password: IronWillowComet",
    "password — FrostyNebulaCactus",
    "Password is SilentAuroraBadger, username deploy",
    "ssh pass: CrimsonTundraFalcon",
]

# refused by rules older than blind33 before it too (4ab13b6e): not this review's
_OLD_FALSE_ALARMS = frozenset(
    [
        "> Auth flow: oauth2-pkce",
        "AUTH mechanism=SCRAM-SHA-512",
        "Password = Nope!",
        "backup codes (hosts that need them): web01, web02, db01, cache01",
        "passcode screen: FaceIdFallback",
        "password hashing: ArgonTwoId",
        "password: ChangeMeLater",
        "password: SingleSignOnOnly",
        "recovery codes (error codes seen): E1042, E2231, E3310, E4410",
        "wifi password: PrintedOnRouter",
    ]
)
# missed before blind33 and after it
_MISSED = frozenset(
    [
        "The kiosk pin, letter by letter: 4, 9, 1, 7, a, K, z, 2",
        "We had a leaked passphrase. Changed it to mango-Orbit-47-lantern.",
    ]
)


def _refused(body: str) -> bool:
    return bool(
        secret_findings(key="session-note", description="what I learned this session", body=body, meta={})
    )


def _cases(items: list[str], known: frozenset[str], reason: str) -> list[object]:
    assert known <= set(items)
    return [
        pytest.param(s, marks=pytest.mark.xfail(reason=reason, strict=True)) if s in known else s
        for s in items
    ]


@pytest.mark.parametrize(
    "body", _cases(LOOKALIKES, _OLD_FALSE_ALARMS, "refused before blind33 too (older rules)")
)
def test_lookalike_stored(body: str) -> None:
    assert not _refused(body)


@pytest.mark.parametrize("body", _cases(FORMS, _MISSED, "missed before and after blind33"))
def test_form_refused(body: str) -> None:
    assert _refused(body)
