"""The look-alikes a read-only review of blind32's four rules wrote around each (SNMP communities,
a value after the words for signing in, a pair commented out or quoted, a key named for what it
locks): every one must be stored. 36 of them were refused on main after blind32 (stored before
it); the rest guard what was already stored. One judgement of a value made of a name's parts
(``secret_judge.name_like``: ``Ledger-Nano-S2``, ``v1.2.3-beta.4+build5``, ``UID=0,GID=0``,
``03.11.2024T10:00``) serves rules 2-4; an SNMP ``community`` counts only as a config key first
on its line, and the bare word is no label at all in a text that does not name SNMP.

The review's look-alikes that were refused before blind32 too (other rules', not this class; left):
#   'snmp community: Region-EU-West-1'  (the label `snmp community`, a password's name since before)
#   'I posted the SNMP question to the community: Cisco-Community-Forum-Post#4451\n'
#   'To unlock the secret ending: Beat-Boss#2-without-dying'
#   'masterKey: See-KeyVault-Entry-1'
#   'unseal_key: Shamir-Share-3of5'
#   'BACKUP_KEY=AWS-KMS-Alias/Backup1'
#   'cipher_key: ChaCha20-Poly1305'
#   'signing_key: Ed25519-Key-2024'
#   'encryption_key: Key-Rotation-2024-Q4'
#   'disk_key: BitLocker-Recovery-ID#1'
#   'masterKey: Azure-Cosmos-Primary1'
#   'encryption_key: Customer-Managed-Key1'
"""

from __future__ import annotations

import pytest

from vault_mem.errors import SecretError
from vault_mem.model.policy import check_write


def refused(body: str) -> bool:
    try:
        check_write(key="probe", description="notes", body=body, meta={})
    except SecretError:
        return True
    return False


SNMP_LOOKALIKES = [
    "SNMP monitoring: the community is set per site. For Berlin use community: berlin-office-ro and for Paris community: paris-office-ro.",
    "snmp_exporter auths:\n  public_v2:\n    community: public\n    version: 2\n",
    "# SNMP runbook\nRead-only community: monitoring-readonly (documented in the wiki, rotate yearly)\n",
    "The SNMP v2c community: NetworkOps team owns the device list.\n",
    "snmp poller notes: community: ${SNMP_COMMUNITY} is injected from Vault at deploy time.\n",
    'snmp_exporter:\n  auths:\n    v2:\n      community: "{{ snmp_community }}"\n',
    'Telegraf [[inputs.snmp]] config: community = "$SNMP_COMMUNITY"\n',
    "SNMP: we use v3 now; the old community: legacy-readonly is disabled on all switches.\n",
    "Slack channel for the SNMP exporter community: #observability-community on the CNCF slack.\n",
    "snmp_exporter is maintained by the Prometheus community: github.com/prometheus/snmp_exporter\n",
    "SNMP traps go to Zabbix. Community: Zabbix-Community-Forum is where we asked about the template.\n",
    "Met the LibreNMS community at FOSDEM; they suggested snmp bulkwalk. community: LibreNMS-discord.\n",
    "SNMP setup:\n  version: 2c\n  community: private\n",
    "# snmpd.conf (net-snmp)\ncom2sec readonly default public\ngroup MyROGroup v2c readonly\n",
    "# snmpd.conf\ncom2sec local localhost private\ncom2sec mynetwork 10.0.0.0/16 public\n",
    "net-snmp docs: com2sec NAME SOURCE COMMUNITY maps a community to a security name.\n",
    "Example from the man page: `com2sec secname source community`\n",
    "snmpd: com2sec notConfigUser default ${COMMUNITY}\n",
    "SNMP migration ticket NET-4412. community: Network-Engineering-2024 (the Confluence space).\n",
    "SNMP polling of the UPS units. community: APC-UPS-Monitoring group in Outlook handles alerts.\n",
    "SNMP dashboard for the community: Grafana-Community-Dashboards-v2\n",
    "Our snmp collector labels each device with community: Emea-Branch-01 as the site tag.\n",
    "We switched SNMP from v2c to v3. The community-driven MIB repo: github.com/librenms/librenms\n",
    "snmpwalk -v2c -c public 192.0.2.10 system\n",
    "In the SNMP section, community_name: Datacenter-West-2 is the tag Zabbix shows.\n",
    "# snmpd.conf\ncom2sec readonly default <community>\n",
    "# snmpd.conf\ncom2sec paranoid default COMMUNITY_STRING\n",
    "# snmpd.conf\ncom2sec local localhost YOUR_COMMUNITY\n",
    "snmpd.conf example: com2sec notConfigUser default public\n",
    "SNMP collector per region:\n- community: Region-EU-West-1\n- community: Region-US-East-2\n",
    "SNMP inventory export: device=sw1 site=HQ community: Campus-North-3F\n",
    "Zabbix SNMP template: community: {$SNMP_COMMUNITY}\n",
    "SNMP notes: the community we use in docs is example-community (RFC placeholder).\n",
    "SNMP exporter module if_mib; community: Default-Public-v2c (read-only default)\n",
    "SNMP: ask the community: r/networking-2024 thread had tips on bulkwalk timeouts.\n",
    "SNMP trap receiver tagged community: Monitoring-Team-Berlin in the alert labels.\n",
    "snmp_exporter generator: auths: {community: public} (the default).\n",
    "SNMP v1 used by the old printers; community: HP-LaserJet-4250 shows up as sysName.\n",
    "Kubernetes SNMP sidecar image from community: docker.io/prom/snmp-exporter:v0.26.0\n",
    "SNMP meetup at the Python community: PyCon-DE-2024 talk on pysnmp.\n",
    "community: docker.io/prom/snmp-exporter:v0.26.0",
]
SIGN_LOOKALIKES = [
    "To log in to the VPN: use your SSO account (firstname.lastname).",
    "To unlock the door: badge at reception, then press the green button.",
    "To sign in: click the Okta tile named 'Grafana-Prod'.",
    "To log in to grafana: https://grafana.internal.example.com/login",
    "To log in to Jenkins: SSO-only since 2025, ask #infra for access.",
    "For logging in to the build box: ssh-agent-forwarding must be enabled.",
    "To sign in to AWS: aws-sso-util login --profile Prod-Admin",
    "To unlock the laptop: Fingerprint-or-PIN (Windows Hello) as per IT policy.",
    "To authenticate: OAuth2-PKCE-flow, see RFC7636.",
    "To decrypt the backups: age-keygen output is in 1Password item Backup-Age-Key.",
    "To log in to Kibana: Elastic-Cloud-SSO via the company IdP.",
    "To login to the staging cluster: kubectl-oidc_login plugin, then pick Dev-Team.",
    "For unlocking the vault -> Shamir-Shares held by 3 of 5 people.",
    "To unlock the bike: Combination-On-Sticky-Note-Removed (we moved to Kryptonite U-lock).",
    "To sign in to Confluence: Atlassian-Access (Google Workspace SSO).",
    "To log in to the router: http://192.168.1.1 (admin account is in the vault).",
    "Steps to log in to Vault: vault login -method=oidc role=Dev-Readers",
    "To authenticate against the API: Bearer-token-from-/auth/token endpoint, expires in 1h.",
    "To log in to the Windows VM: CORP\\first.last with your AD password.",
    "To unlock the encrypted disk: LUKS-header-backup is in /root/luks-backup.img",
    "To sign in with a passkey: YubiKey-5C-NFC or Touch-ID.",
    "For signing in to npm: npm-login-with-2FA (use `npm login --auth-type=web`).",
    "How to log in to the demo: Demo-User-Account is created by the seed script.",
    "To log in to Grafana: Admin-Account-Disabled; use GitHub OAuth.",
    "To log in to prod DB: Teleport-Access-Request with approval from on-call.",
    "To unlock the iPhone: Face-ID-Enrolled, backup code in the safe.",
    "To log in to the NAS: DSM-Portal at port 5001 (HTTPS).",
    "To unlock the screen: Ctrl+Alt+Del, then your Windows-Hello PIN.",
    "To log in to grafana: admin/admin (default, changed on first login)",
    "To sign in: Use-your-Google-account",
    "To authenticate: mTLS-client-cert",
    "To unlock: Hold-Power+VolUp-10s",
    "For authenticating requests: HMAC-SHA256-signature",
    "To decrypt: gpg --decrypt secrets.gpg",
    "To unlock the car: Key-Fob-or-App",
    "To sign in to the kiosk: Badge+PIN4",
    "To unlock premium features: Upgrade-to-Pro!",
    "To unlock the next level: Collect-3-Keys!",
    "To log in to staging: Staging-Admin-Role (assume role)",
    "To unlock the door: Code-in-Signal-msg",
    "For unlocking the safe -> Ask-Facilities@x",
    "To log in to the Azure portal: MFA+Authenticator-App",
    "To login to the jump host: Port-2222 only",
    "To log in to Jira: Atlassian-ID (work email) + 2FA",
    "To authenticate with GitHub: gh auth login --web",
    "To unlock the PDF: Ask-Finance-for-it",
    "To decrypt the file: Age-v1.1+YubiKey",
    "To log in to the printer: Admin-Panel-v3",
    "To sign in to Teams: Work-or-School-Account",
    "To authenticate: Kerberos-TGT (kinit first)",
]
MARK_LOOKALIKES = [
    "> user: alice\n> hey can you check the build?\n> user: bob\n> sure, looking now\n",
    "> **user:** what is the deploy status?\n> assistant: All-green-on-main\n",
    "Chat log:\n> user: deploy-bot\n> Deployment-started-at-14:02\n",
    "-- user: app_rw\n-- 2024 migration\nALTER TABLE orders ADD COLUMN note text;\n",
    "-- user: reporting\n-- Migration_2024_11_03_add_index\nCREATE INDEX ...;\n",
    "# user: deploy\n# Owner-Team-Platform\nDEPLOY_USER=deploy\n",
    "// user: admin\n// TODO-remove-before-release\nconst user = 'admin';\n",
    "; account: svc-backup\n; Schedule=Nightly-0200\n",
    "# login: ops\n# See-RUNBOOK-123.md\n",
    "> user: can you summarise this?\n> Summarised-in-3-bullets\n",
    "> User: How do I reset my password?\n> Assistant: Go-to-Settings->Security\n",
    "# user: ci-runner\n# /var/lib/gitlab-runner\n",
    "-- user: etl\n-- schema_version_42\n",
    "-- account: finance_ro\n-- Ticket-DATA-1234\n",
    "# user: jdoe\n# 2024-11-03T10:00:00Z\n",
    "# user: jdoe\n# 2024-11-03_10-00\n",
    "# user: jdoe\n# 03/11/2024-10:00\n",
    "# user: jdoe\n# Mon-Nov-3-2024\n",
    "> user: alice\n> Thanks-a-lot!!\n",
    "# Username: postgres\n# Database-Name-Orders\n",
    "// user: svc\n// @deprecated-since-v2\n",
    "> login: guest\n> Welcome-to-Ubuntu-22.04\n",
    "# user: bob\n# ~/.ssh/id_ed25519\n",
    "-- user: app\n-- v2024.11.03-rc1\n",
    "# client secret:\n# Stored-in-Vault-at-secret/app\n",
    "# password:\n# See-1Password-Entry\n",
    "> password:\n> Sent-via-Signal\n",
    "-- password:\n-- ${DB_PASSWORD}\n",
    "> user: jane\n> Meeting-moved-to-3pm!\n",
    "> User: fix the bug\n> Done-in-PR#1234\n",
    "# login: ops\n# Last-rotated-2024-Q3\n",
    "-- user: app\n-- Created-By-Flyway-V42!\n",
    "# account: prod\n# Region=eu-west-1\n",
    "// user: admin\n// FIXME(jdoe):refactor\n",
    "# user: jdoe\n# 2024/11/03-10:00\n",
    "# user: jdoe\n# 03.11.2024T10:00\n",
    "-- user: app\n-- 2024-migration-v2\n",
    "> user: can you help?\n> Sure!-What's-up?\n",
    "> user: alice\n> LGTM,-merging-now\n",
    "# user: root\n# UID=0,GID=0\n",
    "; account: svc\n; Expires=2025-01-01\n",
    "// login: guest\n// ReadOnly-Access#2\n",
    "> user: mike\n> :+1::tada::rocket:\n",
    "-- user: etl\n-- Owner:data-team\n",
    "# user: www-data\n# Group:www-data\n",
    "> user: tom\n> v1.2.3-beta.4+build5\n",
    "# password:\n#   required-in-prod!\n",
    "# password:\n# Min-12-chars,1-digit\n",
    "> password:\n> Rotated-2024-11-03!\n",
    "user: tom\nv1.2.3-beta.4+build5\n",
    "user: root\nUID=0,GID=0\n",
    "user: jdoe\n03.11.2024T10:00\n",
    "password:\nMin-12-chars,1-digit\n",
    "password:\nRotated-2024-11-03!\n",
    "user: app\nv2024.11.03-rc1\n",
]
LOCK_LOOKALIKES = [
    "ENCRYPTION_KEY=<your-32-byte-key>",
    "ENCRYPTION_KEY=${ENCRYPTION_KEY}",
    "ENCRYPTION_KEY=arn:aws:kms:eu-west-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab",
    "Generate ENCRYPTION_KEY with `openssl rand -base64 32` and keep it in Vault.",
    "ENCRYPTION_KEY: Generated-By-Openssl-Rand",
    '// masterKey: Loaded-From-Env at startup\nvar masterKey = Environment.GetEnvironmentVariable("MASTER_KEY");',
    "wallet_key: Stored-In-HSM#1",
    "ENCRYPTION_KEY=Change-Me-123!",
    "ENCRYPTION_KEY=YourEncryptionKey1!",
    "ENCRYPTION_KEY=My-Key-V2",
    "DISK_KEY: /etc/keys/Disk-01.key",
    'masterKey => Config.Get("Master")',
    "ENCRYPTION_KEY=AES-256-GCM",
    "ENCRYPTION_KEY: Rotate-Quarterly-Q1",
    "vault_key: Team-Ops-2024!",
    "archive_key: Archive-2024-Q3",
    "zip_key: Project-X-Files-v2",
    "volume_key: LUKS2-Volume-1",
    "keychain_key: Login-Keychain-Default",
    "ENCRYPTION_KEY = os.environ['ENCRYPTION_KEY']",
    "masterKey: process.env.MASTER_KEY",
    "wallet_key: Ledger-Nano-S2",
    "keystore_key: Android-Release-Keystore-1",
    "ENCRYPTION_KEY: KMS-Key-Id-mrk-1a2b",
    "master_key: Primary-Region-1",
    "keystore_key: Release-Key-Alias1",
    "zip_key: Project-Atlas-2024",
    "masterKey: MasterKey-v2.1",
    "ENCRYPTION_KEY: Alias-Prod-EU1",
    "backup_key: Restic-Repo-NAS1",
    "wallet_key: MetaMask-Acct2",
    "wallet_key: Trezor-Model-T1",
    "unseal_key: Key-Share-1of5",
    "encryption_key: KMS-Alias-Prod1",
    "decryption_key: Private-Key-PEM1",
    "vault_key: HashiCorp-Vault-KV2",
    "volume_key: EBS-Vol-0a1b2c",
    "ENCRYPTION_KEY: Tink-AEAD-Keyset1",
    "archive_key: Glacier-Deep-Archive-1",
    "signing_key: Cosign-Key-Pair1",
    "masterKey: Primary-Key-Slot0",
]

LOOKALIKES = [
    (g, b)
    for g, items in (
        ("snmp", SNMP_LOOKALIKES),
        ("sign", SIGN_LOOKALIKES),
        ("mark", MARK_LOOKALIKES),
        ("lock", LOCK_LOOKALIKES),
    )
    for b in items
]


@pytest.mark.parametrize(
    "body", [b for _, b in LOOKALIKES], ids=[f"{g}-{i}" for i, (g, _) in enumerate(LOOKALIKES)]
)
def test_lookalike_stored(body: str) -> None:
    assert not refused(body)


# What the four rules still refuse beside them: a person's password or a drawn value has a symbol
# or a shape no name has
STILL_REFUSED = [
    "snmp:\n  version: 2c\n  community: Vq3!hT8mZp2w\n",
    "SNMP collector per region:\n- community: Kx7$mP2wQz9r\n",
    "volume_key: Plover#Canyon-71",
    "to unlock the backup drive -> Wq7#bN2kLx9p",
    "# user: svc_reports\n# Tq8#vW2nLp5x\n",
    "> password:\n> Hv7!pQ3mWz8n\n",
    "ENCRYPTION_KEY=Quartz!2023map",
    "wallet_key: Plover#Canyon71",
    "unseal_key: Wy6%hG3kLp9d",
    # drawn codes in groups of one length are no name (name_like)
    "password:\nAB12-CD34-EF56\n",
    "# user: admin\n# K7QX-M2PW-9RTZ\n",
    "user: admin\nX7K2P-Q9M4R-T3W8N\n",
    "To unlock the drive: 4KQ7-XM2P-W9RT-ZB3N",
    "ENCRYPTION_KEY=Ab12-Cd34-Ef56",
]


@pytest.mark.parametrize("body", STILL_REFUSED)
def test_credential_still_refused(body: str) -> None:
    assert refused(body)


def test_community_table_not_counted_as_labels() -> None:
    """A 29 KB table of community-call notes (1,008 "community"s, no SNMP) is stored, not refused
    whole as "too many credential labels"."""
    rows = "| date | channel | topic |\n|---|---|---|\n" + "".join(
        f"| 2024-{m:02d}-{d:02d} | community | Community call recap: roadmap and community feedback #{m * 31 + d} |\n"
        for m in range(1, 13)
        for d in range(1, 29)
    )
    assert rows.lower().count("community") > 1000
    assert not refused(rows)


@pytest.mark.parametrize(
    "value",
    [
        "correct-horse-battery-staple",
        "Purple-Monkey-77!",
        "Xk9-Pq2-Lm7",
        "Quartz!2023map",
        "Wq7#bN2kLx9p",
        "Summer2024!",
        "Plover#Canyon-71",
        "AB12-CD34-EF56",
    ],
)
def test_name_like_not_a_password(value: str) -> None:
    from vault_mem.model.secret_judge import name_like  # (here: main's tree has none, the table runs there)

    assert not name_like(value)
