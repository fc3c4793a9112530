"""blind29's held-out corpus (issue 23 item 5): written at cb97d7c before reading the secret rules
(vault_mem/model/secret_*.py, policy); only heldout28's helpers and bench_secrets.py's loader were read
for the format, and earlier corpora were grepped for which vendor names they already hold, so the
vendors here are mostly ones no earlier corpus names. Measured once on main (the blind figure)
before any fix.

Credential forms a developer might paste into a memory (FORMS, each must be refused) and
look-alikes a developer's memory really contains that must pass (LOOK_ALIKES). Random parts come
from a fixed seed, so the corpus is the same on every run.
``python bench/bench_secrets.py --set heldout29 --misses``.
"""

from __future__ import annotations

import base64
import hashlib
import json
import random
import string
import uuid

_rng = random.Random(2029)
_AN = string.ascii_letters + string.digits
_LOW = string.ascii_lowercase + string.digits
_UP = string.ascii_uppercase + string.digits


def _s(n: int, alphabet: str = _AN) -> str:
    return "".join(_rng.choice(alphabet) for _ in range(n))


def _hex(n: int) -> str:
    return _s(n, "0123456789abcdef")


def _b64(n: int) -> str:
    return _s(n, _AN + "+/")


def _url(n: int) -> str:
    return _s(n, _AN + "-_")


def _b32(n: int) -> str:
    return _s(n, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")


def _digits(n: int) -> str:
    return _s(n, string.digits)


def _bytes(n: int) -> bytes:
    return bytes(_rng.getrandbits(8) for _ in range(n))


def _key44() -> str:
    """A 32-byte key in base64, as WireGuard and many HMAC settings print it."""
    return base64.b64encode(_bytes(32)).decode()


def _pw() -> str:
    """A password a person picks: words, digits and a symbol, not a random blob."""
    words = ["Gravel", "lantern", "Osprey", "thistle", "Marble", "cinder", "Puffin", "walnut", "Glacier", "paprika",
             "Heron", "saffron", "Comet", "bramble", "Fjord", "velvet", "Sparrow", "nutmeg", "Tinsel", "quill"]
    return (_rng.choice(words) + _rng.choice(["", "_", "-", "."]) + _rng.choice(words).lower()
            + _digits(_rng.choice([2, 3, 4])) + _rng.choice("!@#$%&*?"))


def _plain_pw() -> str:
    """A password without a symbol or capital, as people really pick them."""
    words = ["sunflower", "kettle", "harbour", "pebble", "meadow", "tractor", "biscuit", "lighthouse", "orchard"]
    return _rng.choice(words) + _rng.choice(words) + _digits(_rng.choice([2, 4]))


def _uid() -> str:
    return str(uuid.UUID(int=_rng.getrandbits(128), version=4))


def _ulid() -> str:
    return _s(26, "0123456789ABCDEFGHJKMNPQRSTVWXYZ")


def _jwt(claims: dict | None = None, alg: str = "HS256") -> str:
    def enc(d: dict) -> str:
        return base64.urlsafe_b64encode(json.dumps(d, separators=(",", ":")).encode()).decode().rstrip("=")
    head = enc({"alg": alg, "typ": "JWT"})
    body = enc(claims or {"sub": _uid(), "scope": "admin", "iat": 1764900000, "exp": 1796436000})
    return f"{head}.{body}.{_url(43)}"


def _b(s: str) -> str:
    return base64.b64encode(s.encode()).decode()


def _pem_body(nbytes: int) -> str:
    raw = base64.b64encode(_bytes(nbytes)).decode()
    return "\n".join(raw[i:i + 64] for i in range(0, len(raw), 64))


FORMS: list[dict] = []
LOOK_ALIKES: list[dict] = []


def _item(cls: str, name: str, body: str, description: str, key: str | None, meta: dict | None) -> dict:
    slug = "".join(c if c.isalnum() and c.isascii() else "-" for c in (key or name).lower())
    slug = "-".join(part for part in slug.split("-") if part)[:60] or "note"
    return {"class": cls, "name": f"{cls}/{name}", "key": slug,
            "description": description, "body": body, "meta": meta if meta is not None else {"tags": ["notes"]}}


def F(cls: str, name: str, body: str, description: str = "working notes", key: str | None = None,
      meta: dict | None = None) -> None:
    FORMS.append(_item(cls, name, body, description, key, meta))


def L(cls: str, name: str, body: str, description: str = "working notes", key: str | None = None,
      meta: dict | None = None) -> None:
    LOOK_ALIKES.append(_item(cls, name, body, description, key, meta))


# --- vendor tokens of services no earlier corpus names, each in a line a person writes ------------
_VENDORS = [
    ("liveblocks", f"sk_prod_{_url(64)}", "liveblocks secret key {v}"),
    ("jina", f"jina_{_s(60)}", "JINA_API_KEY={v}"),
    ("dbt cloud", f"dbtc_{_url(56)}", "dbt cloud service token: {v}"),
    ("openshift", f"sha256~{_url(43)}", "oc login --token={v} --server=https://api.ocp.corp:6443"),
    ("pinterest", f"pina_{_s(96, string.ascii_uppercase + string.digits)}", "pinterest app token {v}"),
    ("cal.com", f"cal_live_{_hex(32)}", "cal.com api key is {v}"),
    ("deno deploy", f"ddp_{_s(36)}", "DENO_DEPLOY_TOKEN={v}"),
    ("pubnub secret", f"sec-c-{_b64(48).replace('/', 'Z').replace('+', 'Q')}", "pubnub secret key (server only): {v}"),
    ("amazon lwa secret", f"amzn1.oa2-cs.v1.{_hex(64)}", "LWA client secret {v}"),
    ("amazon refresh", f"Atzr|IwEBI{_url(300)}", "sp-api refresh token: {v}"),
    ("duffel", f"duffel_live_{_url(43)}", "duffel live access token {v}"),
    ("mercury", f"secret-token:mercury_production_wma_{_s(44)}_yrucrem", "mercury bank api token {v}"),
    ("retool", f"retool_01{_s(24, _LOW)}", "retool api token {v}"),
    ("storyblok", f"{_s(22)}tt", "storyblok management token {v}"),
    ("workos", f"sk_{_s(64)}", "WORKOS_API_KEY={v}"),
    ("fauna", f"fnAF{_url(36)}", "fauna db secret {v}"),
    ("shodan", _s(32), "shodan init {v}"),
    ("virustotal", _hex(64), "curl -H 'x-apikey: {v}' https://www.virustotal.com/api/v3/files/x"),
    ("fivetran", f"{_s(16)}:{_s(32)}", "fivetran api key:secret {v}"),
    ("tableau pat", f"{_b64(22)}==:{_s(32)}", "tableau PAT secret for the refresh job: {v}"),
    ("teleport join", _hex(32), "teleport start --roles=node --token={v} --auth-server=tele.corp:3025"),
    ("akeyless", f"p-{_s(12, _LOW)} {_key44()}", "akeyless access id and key: {v}"),
    ("woocommerce", f"ck_{_hex(40)} / cs_{_hex(40)}", "woocommerce REST consumer key/secret {v}"),
    ("chargebee", f"live_{_s(34)}", "chargebee site api key {v}"),
    ("xero", _url(48), "xero app client secret: {v}"),
    ("brex", f"bxt_{_s(40)}", "brex user token {v}"),
    ("docusign secret", _uid(), "docusign integration secret key: {v}"),
    ("bunny", f"{_uid()}{_uid()[:8]}", "bunny.net AccessKey header {v}"),
    ("cocoapods netrc", f"machine trunk.cocoapods.org\n  login dev@corp.example\n  password {_hex(32)}", "{v}"),
    ("snapcraft", _b64(320) + "==", "SNAPCRAFT_STORE_CREDENTIALS={v}"),
    ("here", _url(43), "HERE maps apiKey={v}"),
    ("tomtom", _s(32), "tomtom search key {v}"),
    ("wolfram", f"{_s(6, _UP)}-{_s(10, _UP)}", "wolfram alpha appid {v}"),
    ("mux", f"{_uid()}:{_b64(75)}", "MUX_TOKEN_ID:MUX_TOKEN_SECRET {v}"),
    ("algolia admin", _hex(32), "algolia admin api key {v}"),
    ("twitch", _s(30, _LOW), "twitch client secret {v}"),
    ("backblaze", f"005{_hex(22)} K005{_s(27)}", "b2 authorize-account {v}"),
    ("scaleway", f"SCW{_s(17, _UP)} {_uid()}", "scaleway access key + secret key: {v}"),
    ("hetzner", _s(64), "HCLOUD_TOKEN={v}"),
    ("vultr", _s(36, _UP), "vultr api key {v}"),
    ("linode", _hex(64), "LINODE_TOKEN={v}"),
    ("ovh", f"AK {_s(16)} AS {_s(32)} CK {_s(32)}", "ovh keys: {v}"),
    ("cloudinary", f"cloudinary://{_digits(15)}:{_url(27)}@acme-media", "CLOUDINARY_URL={v}"),
    ("firebase fcm", f"AAAA{_url(7)}:APA91b{_url(134)}", "FCM legacy server key {v}"),
    ("expo", _url(40), "EXPO_TOKEN={v}"),
    ("clickup", f"pk_{_digits(8)}_{_s(32, _UP)}", "clickup personal token {v}"),
    ("todoist", _hex(40), "todoist api token {v}"),
    ("zoom s2s", _s(32), "zoom server-to-server oauth client secret {v}"),
    ("spotify", _hex(32), "spotify client_secret={v}"),
    ("reddit", _url(30), "reddit app secret {v}"),
    ("rancher", f"token-{_s(5, _LOW)}:{_s(54, _LOW)}", "rancher api bearer {v}"),
    ("k3s", f"K10{_hex(64)}::server:{_hex(32)}", "K3S_TOKEN={v}"),
    ("harbor robot", f"robot$ci+push {_s(32)}", "harbor robot account and secret: {v}"),
    ("sumo logic", f"su{_s(12)} {_s(64)}", "sumo access id/key {v}"),
    ("datadog app", _hex(40), "DD_APP_KEY={v}"),
    ("pagerduty", f"u+{_url(18)}", "pagerduty user api token {v}"),
    ("opsgenie", _uid(), "Authorization: GenieKey {v}"),
    ("launchdarkly sdk", f"sdk-{_uid()}", "launchdarkly server sdk key {v}"),
    ("snyk", _uid(), "SNYK_TOKEN={v}"),
    ("codecov", _uid(), "codecov upload token {v}"),
    ("fastly", _url(32), "FASTLY_API_TOKEN={v}"),
    ("mailchimp", f"{_hex(32)}-us21", "mailchimp api key {v}"),
    ("plaid", _hex(30), "PLAID_SECRET={v}"),
    ("braintree", _hex(32), "braintree private key {v}"),
    ("adyen", f"AQE{_url(12)}+{_b64(150)}", "adyen api key {v}"),
    ("paystack", f"sk_live_{_hex(40)}", "paystack secret {v}"),
    ("mollie", f"live_{_s(30)}", "mollie api key: {v}"),
    ("binance", f"{_s(64)} {_s(64)}", "binance api key + secret {v}"),
    ("alchemy", _url(32), "https://eth-mainnet.g.alchemy.com/v2/{v}"),
    ("infura", _hex(32), "infura project secret {v}"),
    ("etherscan", _s(34, _UP), "ETHERSCAN_API_KEY={v}"),
    ("lob", f"live_{_hex(35)}", "lob live key {v}"),
    ("intercom", _b(f"tok:{_uid()}:1:0") .rstrip("="), "intercom access token {v}"),
    ("zendesk", f"ops@corp.example/token:{_s(40)}", "zendesk basic auth {v}"),
    ("salesforce session", f"00D{_s(12)}!AQ{_url(96)}", "sf session id {v}"),
    ("typeform", f"tfp_{_url(44)}_{_s(14)}", "typeform token {v}"),
    ("webflow", _hex(64), "webflow site api token {v}"),
    ("sanity", f"sk{_s(180)}", "SANITY_AUTH_TOKEN={v}"),
    ("ghost admin", f"{_hex(24)}:{_hex(64)}", "ghost admin api key {v}"),
    ("stytch", f"secret-live-{_url(36)}", "stytch project secret {v}"),
    ("rollbar", _hex(32), "rollbar post_server_item token {v}"),
    ("bugsnag", _hex(32), "bugsnag api key {v}"),
    ("mixpanel", _s(32), "mixpanel service account secret {v}"),
    ("amplitude", _hex(32), "amplitude secret key {v}"),
    ("gitea", _hex(40), "tea login add --token {v}"),
    ("azure devops pat", _s(84, string.ascii_letters + string.digits), "AZURE_DEVOPS_EXT_PAT={v}"),
    ("railway", _uid(), "RAILWAY_TOKEN={v}"),
    ("koyeb", _s(64), "koyeb login token {v}"),
    ("elastic apikey", _b(f"{_url(20)}:{_url(22)}"), "Authorization: ApiKey {v}"),
    ("confluent", f"{_s(16, _UP)} {_b64(64)}", "confluent cloud api key/secret {v}"),
    ("modal", f"ak-{_s(22)} as-{_s(22)}", "modal token set --token-id/--token-secret {v}"),
    ("runpod", f"rpa_{_s(40, _UP)}", "RUNPOD_API_KEY={v}"),
    ("together", _hex(64), "TOGETHER_API_KEY={v}"),
    ("elevenlabs", f"sk_{_hex(48)}", "xi-api-key: {v}"),
    ("assemblyai", _hex(32), "assemblyai key {v}"),
    ("wandb", _hex(40), "wandb login {v}"),
    ("kaggle", json.dumps({"username": "jdoe", "key": _hex(32)}), "~/.kaggle/kaggle.json: {v}"),
    ("looker", f"client_id={_s(20)} client_secret={_s(24)}", "looker api3 {v}"),
    ("ngrok", f"2{_s(26)}_{_s(20)}", "ngrok config add-authtoken {v}"),
    ("infisical", f"st.{_uid()}.{_hex(32)}.{_hex(32)}", "INFISICAL_TOKEN={v}"),
    ("bitwarden", _s(30), "BW_CLIENTSECRET={v}"),
    ("hasura", _url(40), "HASURA_GRAPHQL_ADMIN_SECRET={v}"),
    ("appwrite", f"standard_{_hex(256)}", "appwrite api key {v}"),
    ("convex", f"prod:happy-otter-123|{_b64(80)}", "CONVEX_DEPLOY_KEY={v}"),
    ("auth0", _url(64), "auth0 client secret {v}"),
    ("keycloak", _s(32), "keycloak confidential client secret {v}"),
    ("checkout.com", f"sk_sbox_{_s(26, _LOW)}", "checkout.com secret key {v}"),
    ("jenkins", f"11{_hex(32)}", "jenkins api token for the deploy user: {v}"),
    ("teamcity", f"eyJ0eXAiOiAiVENWMiJ9.{_url(36)}.{_url(48)}", "teamcity access token {v}"),
    ("octopus", f"API-{_s(26, _UP)}", "octopus api key {v}"),
    ("harness", f"pat.{_url(22)}.{_s(24)}.{_s(20)}", "harness PAT {v}"),
    ("bitrise", _url(86), "bitrise personal access token {v}"),
    ("consul", _uid(), "CONSUL_HTTP_TOKEN={v}"),
    ("nomad", _uid(), "export NOMAD_TOKEN={v}"),
    ("argocd", _jwt({"iss": "argocd", "sub": "ci:apiKey", "jti": _uid()}), "ARGOCD_AUTH_TOKEN={v}"),
    ("postmark", _uid(), "X-Postmark-Server-Token: {v}"),
    ("heroku uuid", _uid(), "heroku api key {v}"),
    ("vonage", f"{_hex(8)} {_s(16)}", "vonage api_key/api_secret {v}"),
    ("coinbase cdp", f"organizations/{_uid()}/apiKeys/{_uid()}", "coinbase cdp key name {v} secret " + _b64(88)),
    ("snowflake pat", _jwt({"p": f"{_digits(9)}:{_digits(9)}", "iss": "SF"}, alg="ES256"), "snowflake programmatic access token {v}"),
]
for _name, _tok, _tmpl in _VENDORS:
    F("vendor", _name, _tmpl.format(v=_tok))


# --- config formats: the file a developer pastes, with the value in its usual place --------------
_CONFIG = [
    # HCL / terraform
    ("hcl db instance", f'resource "aws_db_instance" "main" {{\n  engine   = "postgres"\n  username = "app"\n  password = "{_pw()}"\n}}'),
    ("hcl provider token", f'provider "github" {{\n  owner = "acme"\n  token = "{_s(40)}"\n}}'),
    ("hcl tfvars", f'db_admin_password = "{_pw()}"\nregion = "eu-west-1"'),
    ("hcl vault provider", f'provider "vault" {{\n  address = "https://vault.corp:8200"\n  token   = "{_url(26)}"\n}}'),
    ("hcl random override", f'variable "api_secret" {{\n  default = "{_url(32)}"\n}}'),
    ("hcl backend", f'terraform {{\n  backend "s3" {{\n    bucket     = "tf-state"\n    access_key = "{_s(20, _UP)}"\n    secret_key = "{_b64(40)}"\n  }}\n}}'),
    ("hcl datadog", f'provider "datadog" {{\n  api_key = "{_hex(32)}"\n  app_key = "{_hex(40)}"\n}}'),
    ("hcl locals", f'locals {{\n  smtp_password = "{_pw()}"\n}}'),
    # Kubernetes secrets
    ("k8s secret data", f"apiVersion: v1\nkind: Secret\nmetadata:\n  name: db-creds\ntype: Opaque\ndata:\n  username: {_b('app')}\n  password: {_b(_pw())}"),
    ("k8s stringData", f"kind: Secret\nmetadata:\n  name: api\nstringData:\n  API_TOKEN: {_s(40)}"),
    ("k8s dockerconfigjson", "kind: Secret\ntype: kubernetes.io/dockerconfigjson\ndata:\n  .dockerconfigjson: "
     + _b(json.dumps({"auths": {"registry.corp": {"auth": _b("ci:" + _pw())}}}))),
    ("k8s tls key", f"kind: Secret\ntype: kubernetes.io/tls\ndata:\n  tls.crt: {_b64(120)}\n  tls.key: "
     + _b("-----BEGIN PRIVATE KEY-----\n" + _pem_body(300) + "\n-----END PRIVATE KEY-----\n")),
    ("kubectl create secret", f"kubectl create secret generic pg --from-literal=password='{_pw()}'"),
    ("kubeconfig token", f"users:\n- name: ci\n  user:\n    token: {_jwt({'iss': 'kubernetes/serviceaccount', 'sub': 'system:serviceaccount:ci:deployer'}, alg='RS256')}"),
    ("kubeconfig client key", f"users:\n- name: admin\n  user:\n    client-certificate-data: {_b64(200)}\n    client-key-data: "
     + _b("-----BEGIN EC PRIVATE KEY-----\n" + _pem_body(120) + "\n-----END EC PRIVATE KEY-----\n")),
    ("helm set", f"helm upgrade --install app ./chart --set postgresql.auth.password={_pw()}"),
    ("k8s secret german base64", f"das secret hat data.password: {_b(_plain_pw())} (base64)"),
    # docker config.json
    ("docker config auths", json.dumps({"auths": {"https://index.docker.io/v1/": {"auth": _b("jdoe:" + _pw())}}}, indent=2)),
    ("docker config ghcr", json.dumps({"auths": {"ghcr.io": {"auth": _b("jdoe:" + _s(40))}}})),
    ("docker config identitytoken", json.dumps({"auths": {"acr.azurecr.io": {"identitytoken": _jwt(alg="RS256")}}})),
    ("docker login -p", f"docker login registry.corp -u deploy -p '{_pw()}'"),
    ("docker password-stdin echo", f"echo '{_pw()}' | docker login --username ops --password-stdin quay.io"),
    ("compose env", f"services:\n  db:\n    image: mysql:8\n    environment:\n      MYSQL_ROOT_PASSWORD: {_plain_pw()}"),
    # .npmrc / yarnrc
    ("npmrc _auth", f"registry=https://nexus.corp/repository/npm/\n_auth={_b('build:' + _pw())}\nalways-auth=true"),
    ("npmrc _password", f"//nexus.corp/repository/npm/:username=build\n//nexus.corp/repository/npm/:_password={_b(_pw())}"),
    ("npmrc authtoken uuid", f"//registry.corp/:_authToken={_uid()}"),
    ("yarnrc npmAuthToken", f'npmRegistries:\n  "https://npm.corp":\n    npmAuthToken: "{_s(36)}"'),
    ("yarnrc npmAuthIdent", f'npmAuthIdent: "build:{_pw()}"'),
    # pip / poetry / cargo / composer / maven / gradle / nuget
    ("pip.conf index-url", f"[global]\nindex-url = https://build:{_pw().replace('@', '9').replace('#', '8')}@pypi.corp/simple"),
    ("pip extra-index-url", f"pip install --extra-index-url https://__token__:{_s(40)}@gitlab.corp/api/v4/projects/12/packages/pypi/simple acme"),
    ("poetry http basic", f"POETRY_HTTP_BASIC_INTERNAL_PASSWORD={_pw()}"),
    ("poetry config", f"poetry config http-basic.internal build {_pw()}"),
    ("cargo credentials", f'[registries.corp]\ntoken = "{_s(32)}"'),
    ("composer auth.json", json.dumps({"http-basic": {"repo.packagist.com": {"username": "token", "password": _hex(40)}}})),
    ("composer github-oauth", json.dumps({"github-oauth": {"github.com": _s(40)}})),
    ("maven settings", f"<server>\n  <id>nexus</id>\n  <username>deploy</username>\n  <password>{_pw()}</password>\n</server>"),
    ("gradle properties", f"ossrhUsername=jdoe\nossrhPassword={_pw()}\nsigning.keyId=0A1B2C3D\nsigning.password={_plain_pw()}"),
    ("nuget config", f'<packageSourceCredentials><corp><add key="Username" value="ci" /><add key="ClearTextPassword" value="{_pw()}" /></corp></packageSourceCredentials>'),
    ("gemrc credentials", f"---\n:rubygems_api_key: {_hex(48)}\n:corp: {_s(32)}"),
    ("hex config", f"mix hex.config api_key {_hex(32)}"),
    # JDBC / ODBC / connection strings
    ("jdbc sqlserver", f"jdbc:sqlserver://sql01.corp:1433;databaseName=Billing;user=billing;password={_pw()};encrypt=true"),
    ("jdbc oracle", f"jdbc:oracle:thin:scott/{_plain_pw()}@//ora01.corp:1521/ORCL"),
    ("jdbc mysql params", f"jdbc:mysql://db.corp:3306/shop?user=shop&password={_plain_pw()}&useSSL=true"),
    ("jdbc postgres", f"spring.datasource.url=jdbc:postgresql://pg.corp/app\nspring.datasource.username=app\nspring.datasource.password={_pw()}"),
    ("odbc dsn", f"Driver={{ODBC Driver 18 for SQL Server}};Server=tcp:sql.corp,1433;Uid=report;Pwd={_pw()};"),
    ("odbc ini", f"[Warehouse]\nDriver=PostgreSQL Unicode\nServername=wh.corp\nUsername=etl\nPassword={_plain_pw()}"),
    ("ado.net", f"Data Source=sql02;Initial Catalog=crm;User ID=crm_app;Password={_plain_pw()}"),
    ("mongodb srv", f"mongodb+srv://app:{_s(16)}@cluster0.ab1cd.mongodb.net/prod?retryWrites=true"),
    ("redis url", f"REDIS_URL=rediss://default:{_s(32)}@eu1-sharp-fox-31337.upstash.io:6379"),
    ("amqp url", f"amqp://orders:{_plain_pw()}@rabbit.corp:5672/%2F"),
    ("azure storage", f"DefaultEndpointsProtocol=https;AccountName=acmelogs;AccountKey={base64.b64encode(_bytes(64)).decode()};EndpointSuffix=core.windows.net"),
    ("azure service bus", f"Endpoint=sb://acme.servicebus.windows.net/;SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey={_key44()}"),
    ("azure sas", f"https://acme.blob.core.windows.net/backups?sv=2022-11-02&ss=b&srt=co&sp=rl&se=2027-01-01&sig={_b64(43)}%3D"),
    ("clickhouse dsn", f"clickhouse://default:{_plain_pw()}@ch.corp:9000/analytics"),
    # LDAP bind
    ("ldapsearch -w", f'ldapsearch -x -H ldaps://dc1.corp -D "cn=svc-ldap,ou=svc,dc=corp,dc=example" -w \'{_pw()}\' -b "dc=corp,dc=example"'),
    ("ldap bindPassword", f"ldap:\n  url: ldaps://ad.corp:636\n  bindDN: CN=gitlab,OU=Service,DC=corp\n  bindPassword: {_pw()}"),
    ("sssd conf", f"[domain/corp]\nldap_default_bind_dn = cn=sssd,dc=corp\nldap_default_authtok = {_plain_pw()}"),
    ("gitlab ldap", f"main:\n  bind_dn: 'CN=GitLab,OU=Svc,DC=corp'\n  password: '{_pw()}'"),
    ("ldap manager prose", f"the LDAP manager DN is cn=Manager,dc=corp and its bind pw is {_plain_pw()}"),
    # SMTP
    ("smtp url", f"EMAIL_URL=smtp+tls://alerts@corp.example:{_plain_pw()}@smtp.office365.com:587"),
    ("smtp env", f"SMTP_HOST=smtp.mailgun.org\nSMTP_USER=postmaster@mg.corp\nSMTP_PASS={_hex(32)}-{_hex(8)}-{_hex(8)}"),
    ("postfix sasl", f"[smtp.gmail.com]:587 alerts@corp.example:{_s(4, _LOW)} {_s(4, _LOW)} {_s(4, _LOW)} {_s(4, _LOW)}"),
    ("msmtprc", f"account default\nhost smtp.fastmail.com\nuser me@fastmail.com\npassword {_s(16, _LOW)}"),
    ("swaks", f"swaks --to ops@corp --server smtp.corp --auth LOGIN --auth-user alerts --auth-password '{_pw()}'"),
    ("gmail app password", f"gmail app password for the scanner: {_s(4, _LOW)} {_s(4, _LOW)} {_s(4, _LOW)} {_s(4, _LOW)}"),
    ("django email", f"EMAIL_HOST_USER = 'noreply@corp.example'\nEMAIL_HOST_PASSWORD = '{_pw()}'"),
    # SNMP
    ("snmpwalk community", f"snmpwalk -v2c -c {_s(12)} 10.20.0.1 .1.3.6.1.2.1.1"),
    ("snmp-server rw", f"snmp-server community {_s(10)} RW 10"),
    ("snmpd.conf", f"rocommunity {_plain_pw()} 10.0.0.0/8"),
    ("snmpv3 user", f"snmp-server user monitor v3grp v3 auth sha {_pw()} priv aes 128 {_pw()}"),
    ("net-snmp v3", f"snmpget -v3 -l authPriv -u nms -a SHA -A '{_pw()}' -x AES -X '{_pw()}' core-sw1 sysUpTime.0"),
    ("snmp prose", f"the switches' SNMP community string is {_s(9)} (RW), rotate it after the audit"),
    # WireGuard
    ("wg interface", f"[Interface]\nPrivateKey = {_key44()}\nAddress = 10.8.0.2/24\n\n[Peer]\nPublicKey = {_key44()}\nEndpoint = vpn.corp:51820"),
    ("wg preshared", f"[Peer]\nPublicKey = {_key44()}\nPresharedKey = {_key44()}\nAllowedIPs = 0.0.0.0/0"),
    ("wg set", f"wg set wg0 private-key <(echo {_key44()})"),
    ("wg prose", f"my laptop's wireguard private key: {_key44()}"),
    ("wg nixos", f'networking.wireguard.interfaces.wg0.privateKey = "{_key44()}";'),
    # JWTs with secrets
    ("jwt secret env", f"JWT_SECRET={_url(48)}"),
    ("jwt sign literal", f"const t = jwt.sign({{ sub: user.id }}, '{_s(32)}', {{ expiresIn: '1h' }});"),
    ("pyjwt encode", f'jwt.encode(payload, "{_s(40)}", algorithm="HS256")'),
    ("jwt signing key yaml", f"auth:\n  jwt:\n    signing_key: {_key44()}\n    issuer: api.corp"),
    ("nextauth secret", f"NEXTAUTH_SECRET={_key44()}"),
    ("supabase jwt secret", f"supabase jwt secret: {_url(40)}"),
    ("hs256 token with secret", f"token {_jwt()} signed with secret {_s(24)}"),
    ("session cookie secret", f"app.use(session({{ secret: '{_pw()}', resave: false }}))"),
    # TOTP / otpauth
    ("otpauth uri", f"otpauth://totp/Corp:jdoe@corp.example?secret={_b32(32)}&issuer=Corp&digits=6"),
    ("totp seed prose", f"TOTP seed for the shared admin account: {_b32(32)}"),
    ("totp spaced", f"2FA setup key (AWS root): {' '.join(_b32(4).lower() for _ in range(8))}"),
    ("otpauth hotp", f"otpauth://hotp/VPN:ops?secret={_b32(16)}&counter=0"),
    ("oathtool", f"oathtool --totp -b {_b32(32)}"),
    ("pyotp", f'pyotp.TOTP("{_b32(32)}").now()'),
    ("mfa secret yaml", f"mfa:\n  secret: {_b32(16)}\n  issuer: GitLab"),
    ("authy backup", f"authenticator export line: otpauth-migration://offline?data={_url(120)}%3D%3D"),
    # recovery codes
    ("github recovery codes", "GitHub recovery codes:\n" + "\n".join(f"{_hex(5)}-{_hex(5)}" for _ in range(8))),
    ("google backup codes", "Google backup codes: " + ", ".join(f"{_digits(4)} {_digits(4)}" for _ in range(5))),
    ("bitlocker", f"BitLocker recovery key for LAPTOP-7: {'-'.join(_digits(6) for _ in range(8))}"),
    ("1password secret key", f"1Password Secret Key: A3-{_s(6, _UP)}-{_s(6, _UP)}-{_s(5, _UP)}-{_s(5, _UP)}-{_s(5, _UP)}-{_s(5, _UP)}"),
    ("apple recovery key", f"Apple ID recovery key: {'-'.join(_s(4, _UP) for _ in range(7))}"),
    ("bitwarden recovery", f"bitwarden two-step login recovery code {_s(32, _UP)}"),
    ("aws mfa recovery", "root MFA is lost; the backup codes are " + " ".join(_s(8, _LOW) for _ in range(6))),
    ("filevault", f"FileVault recovery key: {'-'.join(_s(4, _UP) for _ in range(6))}"),
    ("veracrypt", f"veracrypt volume password: {_pw()} (pim 485)"),
    ("luks", f"cryptsetup luksOpen /dev/sdb1 backup  # passphrase {_plain_pw()}"),
    ("ledger", "ledger recovery sheet: " + " ".join(f"{i}.{w}" for i, w in enumerate(
        ["orbit", "canyon", "velvet", "ladder", "harvest", "pilot", "ozone", "fabric", "timber", "salmon", "riddle", "upgrade"], 1))),
    ("monero seed", "monero wallet seed: " + " ".join(["abbey", "acumen", "aerial", "afield", "agenda", "aglow", "ailments", "airport",
                                                       "alchemy", "algebra", "almost", "amidst", "anchor", "angled", "ankle", "apart",
                                                       "apex", "aptitude", "arbitrary", "arena", "argue", "arises", "army", "arrow", "acumen"])),
]
for _name, _body in _CONFIG:
    F("config", _name, _body)


# --- prose in languages earlier corpora use less ------------------------------------------------
_PROSE = [
    ("croatian", f"Lozinka za poslužitelj je {_pw()}"),
    ("slovak", f"heslo k databáze: {_pw()}"),
    ("hungarian", f"Az admin jelszó: {_pw()}"),
    ("finnish", f"Palvelimen salasana on {_pw()}"),
    ("swedish", f"Lösenordet till routern är {_plain_pw()}"),
    ("danish", f"adgangskoden til NAS'en er {_pw()}"),
    ("norwegian", f"Passordet for VPN er {_pw()}"),
    ("greek", f"Ο κωδικός πρόσβασης είναι {_pw()}"),
    ("hebrew", f"הסיסמה לשרת היא {_pw()}"),
    ("arabic", f"كلمة المرور للخادم: {_pw()}"),
    ("hindi", f"सर्वर का पासवर्ड {_pw()} है"),
    ("thai", f"รหัสผ่านของเซิร์ฟเวอร์คือ {_pw()}"),
    ("persian", f"رمز عبور پایگاه داده: {_pw()}"),
    ("romanian", f"Parola pentru contul de admin este {_pw()}"),
    ("catalan", f"La contrasenya del servidor és {_pw()}"),
    ("basque", f"Zerbitzariaren pasahitza: {_pw()}"),
    ("swahili", f"Nenosiri la seva ni {_pw()}"),
    ("tagalog", f"Ang password ng admin ay {_pw()}"),
    ("malay", f"Kata laluan pelayan: {_pw()}"),
    ("ukrainian", f"Пароль до бази: {_pw()}"),
    ("bulgarian", f"Паролата за сървъра е {_pw()}"),
    ("serbian cyrillic", f"Лозинка за сервер: {_pw()}"),
    ("lithuanian", f"Serverio slaptažodis: {_pw()}"),
    ("latvian", f"Servera parole ir {_pw()}"),
    ("estonian", f"Serveri parool on {_pw()}"),
    ("icelandic", f"Lykilorðið er {_pw()}"),
    ("welsh", f"Y cyfrinair yw {_pw()}"),
    ("irish", f"Is é an pasfhocal ná {_pw()}"),
    ("afrikaans", f"Die wagwoord vir die bediener is {_pw()}"),
    ("bengali", f"সার্ভারের পাসওয়ার্ড: {_pw()}"),
    ("tamil", f"சர்வர் கடவுச்சொல்: {_pw()}"),
    ("urdu", f"سرور کا پاس ورڈ {_pw()} ہے"),
    ("georgian", f"სერვერის პაროლი: {_pw()}"),
    ("armenian", f"Սերվերի գաղտնաբառը՝ {_pw()}"),
    ("kazakh", f"Сервердің құпия сөзі: {_pw()}"),
    ("amharic", f"የአገልጋዩ የይለፍ ቃል {_pw()} ነው"),
    ("slovenian", f"Geslo za strežnik je {_pw()}"),
    ("albanian", f"Fjalëkalimi i serverit është {_pw()}"),
    ("mongolian", f"Серверийн нууц үг: {_pw()}"),
    ("nepali", f"सर्भरको पासवर्ड {_pw()} हो"),
    ("chinese token", f"这个服务的访问令牌是 {_s(40)}"),
    ("japanese api key", f"本番のAPIキーは {_s(40)} です"),
    ("korean secret", f"운영 시크릿 키: {_s(40)}"),
    ("german token", f"Der Zugangsschlüssel für die API lautet {_s(40)}"),
    ("spanish token", f"la clave secreta de la API es {_url(40)}"),
    ("french token", f"le jeton d'accès du bot : {_s(40)}"),
    ("italian token", f"il token di accesso è {_s(40)}"),
    ("portuguese key", f"a chave da API de produção é {_s(40)}"),
    ("dutch key", f"de geheime sleutel van de API is {_s(40)}"),
    ("polish key", f"klucz API do produkcji: {_s(40)}"),
    ("turkish key", f"API anahtarı: {_s(40)}"),
    ("vietnamese key", f"khóa bí mật API là {_s(40)}"),
    ("indonesian key", f"kunci rahasia API: {_s(40)}"),
    ("russian token", f"токен доступа к API: {_s(40)}"),
    ("czech token", f"přístupový token k API je {_s(40)}"),
    ("mixed german english", f"Hab das Passwort geändert, neues pw ist jetzt {_plain_pw()}"),
    ("spanish chat", f"oye, la contra del wifi es {_plain_pw()}"),
    ("french chat mdp", f"mdp du compte partagé : {_pw()}"),
    ("portuguese chat", f"a senha do roteador mudou pra {_plain_pw()}"),
    ("russian translit", f"parol ot servera: {_pw()}"),
]
for _name, _body in _PROSE:
    F("prose", _name, _body)


# --- chat-style and notes: how people tell an agent -----------------------------------------------
_CHAT = [
    ("remember my login", f"remember: my login for the grafana box is admin / {_plain_pw()}"),
    ("creds slash", f"staging creds: deploy/{_pw()}"),
    ("user at colon", f"jdoe:{_pw()} works for the old jira"),
    ("the secret is", f"the webhook signing secret is {_s(32)}"),
    ("use this key", f"use this key for the geocoder: {_s(39)}"),
    ("the token, quoted", f'the bot token is "{_s(35)}"'),
    ("pass lowercase colon", f"pass: {_plain_pw()}"),
    ("passcode", f"door/alarm passcode at the office {_digits(6)}, the server room pin is {_digits(4)}"),
    ("pin for sim", f"SIM PIN {_digits(4)} PUK {_digits(8)} for the LTE router"),
    ("client secret dash", f"client secret - {_url(40)}"),
    ("key in parentheses", f"updated the analytics key ({_hex(32)}) in the dashboard"),
    ("token arrow", f"prod token → {_s(48)}"),
    ("pwd equals space", f"pwd = {_pw()}"),
    ("admin password was reset to", f"reset the admin password to {_plain_pw()} for now"),
    ("creds table", f"| host | user | password |\n|---|---|---|\n| db1 | root | {_pw()} |\n| db2 | root | {_pw()} |"),
    ("markdown list creds", f"- host: ftp.corp\n- user: upload\n- pass: {_plain_pw()}"),
    ("csv export", f"name,username,password,url\nCorp VPN,jdoe,{_pw()},https://vpn.corp"),
    ("keepass xml", f"<Entry><String><Key>Password</Key><Value>{_pw()}</Value></String></Entry>"),
    ("env file mixed", f"APP_ENV=production\nAPP_DEBUG=false\nAPP_KEY=base64:{_key44()}"),
    ("dotenv quoted", f'SECRET_KEY_BASE="{_hex(128)}"'),
    ("ini section", f"[database]\nhost = db.corp\nuser = app\npasswd = {_plain_pw()}"),
    ("toml secret", f'[auth]\nclient_id = "web"\nclient_secret = "{_url(40)}"'),
    ("json creds", json.dumps({"host": "db.corp", "user": "app", "pass": _pw()})),
    ("xml attribute", f'<add name="Main" connectionString="Server=db;Uid=app;Pwd={_plain_pw()}" />'),
    ("properties file", f"mail.smtp.password={_pw()}"),
    ("shell heredoc", f"cat > ~/.pgpass <<EOF\ndb.corp:5432:*:app:{_pw()}\nEOF"),
    ("curl -u", f"curl -u admin:{_pw()} https://nexus.corp/service/rest/v1/status"),
    ("mysql -p", f"mysql -h db.corp -u root -p'{_pw()}' shop"),
    ("sshpass", f"sshpass -p '{_pw()}' ssh ops@10.0.0.5"),
    ("psql PGPASSWORD", f"PGPASSWORD={_plain_pw()} psql -h pg.corp -U app"),
    ("git credential store", f"https://jdoe:{_s(40)}@git.corp"),
    ("netrc one line", f"machine api.corp login jdoe password {_pw()}"),
    ("rclone obscured", f"[s3]\ntype = s3\naccess_key_id = {_s(20, _UP)}\nsecret_access_key = {_b64(40)}"),
    ("aws credentials", f"[prod]\naws_access_key_id = {_s(20, _UP)}\naws_secret_access_key = {_b64(40)}"),
    ("gcp sa json", json.dumps({"type": "service_account", "project_id": "acme-prod", "private_key_id": _hex(40),
                                "client_email": "ci@acme-prod.iam.gserviceaccount.com"})),
    ("api key two fields", f"api_key_id: {_s(12, _UP)}\napi_key_secret: {_s(36)}"),
    ("key split over lines", f"the key is in two parts because of the chat limit:\npart 1: {_s(20)}\npart 2: {_s(20)}"),
    ("ansible vault pass", f"echo '{_pw()}' > ~/.ansible/vault_pass.txt"),
    ("htpasswd plain", f"htpasswd -b -c /etc/nginx/.htpasswd admin {_plain_pw()}"),
    ("mosquitto", f"mosquitto_pub -h mqtt.corp -u sensor -P {_plain_pw()} -t temp -m 21"),
]
for _name, _body in _CHAT:
    F("chat", _name, _body)


# --- private keys and key material outside PEM-with-known-label -----------------------------------
_KEYS = [
    ("ed25519 raw hex", f"ed25519 signing seed (hex): {_hex(64)}"),
    ("nostr nsec", f"my nostr key nsec1{_s(58, 'qpzry9x8gf2tvdw0s3jn54khce6mua7l')}"),
    ("minisign secret", "untrusted comment: minisign encrypted secret key\nRWRTY0Iy" + _b64(200)),
    ("signify secret", "untrusted comment: signify secret key\nRWRCSwAAAA" + _b64(130)),
    ("tor onion key", "== ed25519v1-secret: type0 ==\n" + _b64(86)),
    ("ethereum private key", f"deployer wallet private key 0x{_hex(64)}"),
    ("wif key", f"bitcoin WIF: 5{_s(50, '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz')}"),
    ("xprv", f"xprv9s21ZrQH143K{_s(95, '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz')}"),
    ("jwk private", json.dumps({"kty": "EC", "crv": "P-256", "x": _url(43), "y": _url(43), "d": _url(43)})),
    ("jwk oct", json.dumps({"kty": "oct", "k": _url(43), "alg": "HS256"})),
    ("pkcs12 b64", f"cert.p12 (password {_plain_pw()}): MII{_b64(200)}"),
    ("ssh key in yaml", "deploy_key: |\n  -----BEGIN OPENSSH PRIVATE KEY-----\n  " + _pem_body(200).replace("\n", "\n  ")
     + "\n  -----END OPENSSH PRIVATE KEY-----"),
    ("pem one line escaped", '"private_key": "-----BEGIN RSA PRIVATE KEY-----\\n' + _pem_body(300).replace("\n", "\\n")
     + '\\n-----END RSA PRIVATE KEY-----\\n"'),
    ("dkim private", "DKIM selector s1 private key: MIIEvQIBADANBgkqhkiG9w0BAQEFAASC" + _b64(400)),
    ("tls session ticket key", f"ssl_session_ticket_key is {base64.b64encode(_bytes(80)).decode()}"),
    ("fernet key", f"FERNET_KEY={base64.urlsafe_b64encode(_bytes(32)).decode()}"),
    ("rails master key", f"config/master.key: {_hex(32)}"),
    ("laravel key", f"APP_KEY=base64:{_key44()}"),
    ("encryption key hex", f"AES-256 data key for the backups: {_hex(64)}"),
    ("vault unseal", "unseal keys:\n" + "\n".join(f"Unseal Key {i}: {_key44()}" for i in range(1, 4))),
]
for _name, _body in _KEYS:
    F("keys", _name, _body)


# --- one credential split across the memory's fields ---------------------------------------------
_SPLIT = [
    ("key says password, body bare", _pw(), "grafana", "grafana-admin-password", None),
    ("description says token, body bare", _s(40), "the sentry-like token for the crash reporter", "crash-reporter", None),
    ("meta secret field", "smtp relay for alerts", "smtp relay", "smtp-relay",
     {"tags": ["ops"], "smtp_user": "alerts", "smtp_password": _pw()}),
    ("meta api_key", "geocoding service", "geocoder", "geocoder", {"tags": ["api"], "api_key": _s(39)}),
    ("meta nested", "the billing webhook", "billing", "billing-webhook",
     {"tags": ["billing"], "webhook": {"url": "https://api.corp/hooks/billing", "secret": _s(32)}}),
    ("meta list of codes", "my 2fa backup codes are in the metadata", "backup codes", "backup-codes",
     {"tags": ["2fa"], "codes": [f"{_hex(5)}-{_hex(5)}" for _ in range(6)]}),
    ("user here, secret there", f"secret: {_url(40)}", "client id is web-portal", "oauth-client", None),
    ("id in key, secret in body", _b64(40), "aws secret for the deploy user", f"akia{_s(16, _LOW)}", None),
    ("description holds the totp seed", "the seed is in the description", f"totp {_b32(32)}", "totp-admin", None),
    ("tag holds snmp community", "see tags for the community", "snmp", "snmp-core", {"tags": ["snmp", f"community:{_s(10)}"]}),
    ("meta password in list of hosts", "fleet access", "fleet", "fleet-access",
     {"tags": ["fleet"], "hosts": [{"name": "web1", "user": "root", "password": _pw()}]}),
    ("body table, desc host", f"root | {_pw()}", "ipmi for rack 4 (host, user | password)", "ipmi-rack4", None),
    ("wifi psk in key", "guest network", f"psk {_plain_pw()}", "office-wifi-psk", None),
    ("description holds ldap bind", "ldap binding", f"bind dn cn=svc,dc=corp pw {_pw()}", "ldap-bind", None),
    ("meta source url with token", "imported from the wiki", "wiki import", "wiki-import",
     {"tags": ["import"], "source": f"https://wiki.corp/export?token={_s(40)}"}),
    ("description jdbc", "db notes", f"jdbc:mysql://db/app?user=app&password={_plain_pw()}", "db-notes", None),
    ("key holds secret word, body wireguard", _key44(), "laptop vpn", "wireguard-private-key", None),
    ("meta username, body pass bare", _plain_pw(), "the nas login", "nas-login", {"tags": ["home"], "username": "admin"}),
]
for _name, _body, _desc, _key, _meta in _SPLIT:
    F("split", _name, _body, description=_desc, key=_key, meta=_meta)


# --- infrastructure and network device configs: the value where that daemon reads it -------------
_INFRA = [
    ("cisco enable secret 0", f"enable secret 0 {_pw()}"),
    ("cisco username", f"username netadmin privilege 15 password 0 {_pw()}"),
    ("juniper plain", f"set system root-authentication plain-text-password-value \"{_pw()}\""),
    ("radius shared secret", f"radius-server host 10.0.0.10 key {_s(16)}"),
    ("tacacs key", f"tacacs-server host 10.0.0.11 key 0 {_s(14)}"),
    ("bgp neighbor password", f"neighbor 192.0.2.1 password {_s(12)}"),
    ("ospf md5", f"ip ospf message-digest-key 1 md5 {_s(10)}"),
    ("ipsec psk", f"crypto isakmp key {_s(20)} address 198.51.100.7"),
    ("strongswan secrets", f'%any %any : PSK "{_s(24)}"'),
    ("openvpn auth file", f"auth-user-pass creds.txt  # creds.txt: vpnuser / {_pw()}"),
    ("hostapd", f"ssid=CorpGuest\nwpa=2\nwpa_passphrase={_plain_pw()}"),
    ("wpa_supplicant", f'network={{\n    ssid="HomeNet"\n    psk="{_plain_pw()}"\n}}'),
    ("nmcli wifi", f"nmcli dev wifi connect Office password '{_pw()}'"),
    ("cifs credentials", f"username=backup\npassword={_pw()}\ndomain=CORP"),
    ("mount cifs", f"mount -t cifs //nas/share /mnt -o username=jdoe,password={_plain_pw()}"),
    ("smbpasswd", f"(echo {_plain_pw()}; echo {_plain_pw()}) | smbpasswd -s -a jdoe"),
    ("ipmitool", f"ipmitool -I lanplus -H 10.1.1.4 -U ADMIN -P {_s(10, _UP)} chassis power cycle"),
    ("idrac racadm", f"racadm -r idrac-r4 -u root -p {_pw()} serveraction powercycle"),
    ("redis requirepass", f"requirepass {_s(32)}"),
    ("redis-cli -a", f"redis-cli -h cache.corp -a '{_pw()}' INFO memory"),
    ("mongo create user", f'db.createUser({{user: "app", pwd: "{_pw()}", roles: ["readWrite"]}})'),
    ("postgres alter user", f"ALTER USER app WITH PASSWORD '{_pw()}';"),
    ("mysql create user", f"CREATE USER 'report'@'%' IDENTIFIED BY '{_pw()}';"),
    ("sql server sa", f"docker run -e ACCEPT_EULA=Y -e MSSQL_SA_PASSWORD='{_pw()}' mcr.microsoft.com/mssql/server:2022-latest"),
    ("rabbitmq default", f"default_user = admin\ndefault_pass = {_plain_pw()}"),
    ("grafana ini", f"[security]\nadmin_user = admin\nadmin_password = {_pw()}"),
    ("prometheus basic auth", f"basic_auth:\n  username: prom\n  password: {_pw()}"),
    ("alertmanager smtp", f"global:\n  smtp_auth_username: alerts@corp.example\n  smtp_auth_password: '{_pw()}'"),
    ("elastic bootstrap", f"ELASTIC_PASSWORD={_s(20)}"),
    ("fluentd shared key", f"<security>\n  self_hostname agg01\n  shared_key {_s(24)}\n</security>"),
    ("consul gossip", f'encrypt = "{_key44()}"'),
    ("minio root", f"MINIO_ROOT_USER=admin\nMINIO_ROOT_PASSWORD={_s(24)}"),
    ("gitlab root", f"gitlab_rails['initial_root_password'] = '{_pw()}'"),
    ("home assistant secrets", f"# secrets.yaml\nwifi_password: {_plain_pw()}\nmqtt_password: {_pw()}"),
    ("esphome api key", f"api:\n  encryption:\n    key: \"{_key44()}\"\nota:\n  password: \"{_hex(32)}\""),
    ("zigbee network key", f"network_key: [{', '.join(str(_rng.randrange(256)) for _ in range(16))}]"),
    ("systemd environment", f"[Service]\nEnvironment=API_TOKEN={_s(40)}\nExecStart=/usr/local/bin/exporter"),
    ("crontab with password", f"0 3 * * * mysqldump -u backup -p{_plain_pw()} shop | gzip > /backup/shop.sql.gz"),
    ("nginx basic header", f'proxy_set_header Authorization "Basic {_b("scraper:" + _pw())}";'),
    ("jenkins casc", f"jenkins:\n  securityRealm:\n    local:\n      users:\n        - id: admin\n          password: {_pw()}"),
    ("s3cfg", f"[default]\naccess_key = {_s(20, _UP)}\nsecret_key = {_b64(40)}"),
    ("pypirc", f"[pypi]\nusername = jdoe\npassword = {_pw()}"),
    ("keycloak admin", f"KC_BOOTSTRAP_ADMIN_USERNAME=admin KC_BOOTSTRAP_ADMIN_PASSWORD={_pw()}"),
    ("restic password", f"RESTIC_PASSWORD={_plain_pw()} restic -r s3:s3.amazonaws.com/backups snapshots"),
    ("borg passphrase", f"export BORG_PASSPHRASE='{_pw()}'"),
]
for _name, _body in _INFRA:
    F("infra", _name, _body)


# ================================== LOOK-ALIKES ==================================================
_commit = hashlib.sha1(b"blind29").hexdigest()
_UNSIGNED_JWT = ".".join(base64.urlsafe_b64encode(part).decode().rstrip("=")
                         for part in (b'{"alg":"none"}', b'{"sub":"test"}')) + "."
_LOOKS = [
    # commit ids and object ids in prose
    ("commit", "commit in prose", f"The regression came in with {_commit} (merge of #412); reverting it fixes the flake."),
    ("commit", "short shas", f"cherry-picked {_hex(7)}, {_hex(7)} and {_hex(12)} onto release/2.4"),
    ("commit", "git log line", f"commit {_hex(40)}\nAuthor: Jane Doe <jane@corp.example>\nDate:   Fri Dec 4 10:12:00 2026 +0100"),
    ("commit", "range", f"git diff {_hex(40)}..{_hex(40)} -- src/"),
    ("commit", "tree and blob", f"tree {_hex(40)}\nparent {_hex(40)}"),
    ("commit", "sha256 repo object", f"in the sha256 repo the commit is {_hex(64)}"),
    ("commit", "github compare url", f"https://github.com/acme/api/compare/{_hex(40)}...{_hex(40)}"),
    ("commit", "pinned action", f"uses: actions/checkout@{_hex(40)} # v4.2.2"),
    ("commit", "submodule status", f" {_hex(40)} vendor/libfoo (v1.2.3-4-g{_hex(7)})"),
    ("commit", "bisect", f"git bisect good {_hex(40)}\ngit bisect bad HEAD"),
    # image digests and checksums
    ("digest", "docker digest", f"image: ghcr.io/acme/api@sha256:{_hex(64)}"),
    ("digest", "docker pull output", f"Digest: sha256:{_hex(64)}\nStatus: Downloaded newer image for postgres:16"),
    ("digest", "oci index", json.dumps({"mediaType": "application/vnd.oci.image.manifest.v1+json", "digest": f"sha256:{_hex(64)}", "size": 1234})),
    ("digest", "sha256sum output", f"{_hex(64)}  vault-mem-0.9.0.tar.gz"),
    ("digest", "md5 of file", f"md5sum dump.sql -> {_hex(32)}"),
    ("digest", "sha512 checksum file", f"{_hex(128)}  node-v20.18.1-linux-x64.tar.xz"),
    ("digest", "s3 etag", f'ETag: "{_hex(32)}-12"'),
    ("digest", "kustomize images", f"images:\n- name: api\n  digest: sha256:{_hex(64)}"),
    ("digest", "helm chart digest", f"Digest: sha256:{_hex(64)}\nPulled: oci://registry.corp/charts/api:1.4.2"),
    ("digest", "git lfs pointer", f"version https://git-lfs.github.com/spec/v1\noid sha256:{_hex(64)}\nsize 48213"),
    # npm integrity, SRI, lockfile hashes
    ("lockfile", "npm integrity", f'"integrity": "sha512-{base64.b64encode(_bytes(64)).decode()}"'),
    ("lockfile", "package-lock entry", json.dumps({"node_modules/lodash": {"version": "4.17.21", "resolved": "https://registry.npmjs.org/lodash/-/lodash-4.17.21.tgz",
                                                   "integrity": "sha512-" + base64.b64encode(_bytes(64)).decode()}}, indent=2)),
    ("lockfile", "sri script tag", f'<script src="https://cdn.jsdelivr.net/npm/htmx.org@2.0.3" integrity="sha384-{base64.b64encode(_bytes(48)).decode()}" crossorigin="anonymous"></script>'),
    ("lockfile", "yarn lock", f'lodash@^4.17.21:\n  version "4.17.21"\n  resolved "https://registry.yarnpkg.com/lodash/-/lodash-4.17.21.tgz#{_hex(40)}"\n  integrity sha512-{base64.b64encode(_bytes(64)).decode()}'),
    ("lockfile", "pnpm lock", f"  /zod@3.23.8:\n    resolution: {{integrity: sha512-{base64.b64encode(_bytes(64)).decode()}}}"),
    ("lockfile", "poetry lock", f'files = [\n    {{file = "requests-2.32.3-py3-none-any.whl", hash = "sha256:{_hex(64)}"}},\n]'),
    ("lockfile", "pip hashes", f"requests==2.32.3 \\\n    --hash=sha256:{_hex(64)} \\\n    --hash=sha256:{_hex(64)}"),
    ("lockfile", "cargo lock", f'[[package]]\nname = "serde"\nversion = "1.0.215"\nsource = "registry+https://github.com/rust-lang/crates.io-index"\nchecksum = "{_hex(64)}"'),
    ("lockfile", "go.sum", f"golang.org/x/net v0.31.0 h1:{base64.b64encode(_bytes(32)).decode()}\ngolang.org/x/net v0.31.0/go.mod h1:{base64.b64encode(_bytes(32)).decode()}"),
    ("lockfile", "uv lock", f'sdist = {{ url = "https://files.pythonhosted.org/packages/x/click-8.1.7.tar.gz", hash = "sha256:{_hex(64)}", size = 336121 }}'),
    ("lockfile", "nix hash", f'src = fetchFromGitHub {{ owner = "acme"; repo = "tool"; rev = "v1.2"; hash = "sha256-{base64.b64encode(_bytes(32)).decode()}"; }};'),
    ("lockfile", "gemfile lock checksum", f"CHECKSUMS\n  rack (3.1.8) sha256={_hex(64)}"),
    ("lockfile", "composer lock", f'"dist": {{"type": "zip", "url": "https://api.github.com/repos/x/y/zipball/{_hex(40)}", "reference": "{_hex(40)}", "shasum": ""}}'),
    ("lockfile", "terraform lock", f'provider "registry.terraform.io/hashicorp/aws" {{\n  version = "5.80.0"\n  hashes = [\n    "h1:{base64.b64encode(_bytes(32)).decode()}",\n    "zh:{_hex(64)}",\n  ]\n}}'),
    # UUIDs, ULIDs, other ids
    ("ids", "uuid in prose", f"The failing job is {_uid()}; its parent run is {_uid()}."),
    ("ids", "request id", f"x-request-id: {_uid()} (ask support with this)"),
    ("ids", "ulid", f"event {_ulid()} was processed twice; the dedupe key is {_ulid()}"),
    ("ids", "trace id", f"traceparent: 00-{_hex(32)}-{_hex(16)}-01"),
    ("ids", "aws arn", f"arn:aws:iam::{_digits(12)}:role/deploy-{_s(8, _LOW)}"),
    ("ids", "aws request id", f"RequestId: {_uid()}  Duration: 412.3 ms"),
    ("ids", "azure subscription", f"subscription id {_uid()}, tenant id {_uid()}"),
    ("ids", "gcp project number", f"project number {_digits(12)}, service account {_digits(21)}"),
    ("ids", "stripe object ids", f"customer cus_{_s(14)} paid invoice in_{_s(24)} via pi_{_s(24)}"),
    ("ids", "mongo object ids", f"ObjectId('{_hex(24)}') and ObjectId('{_hex(24)}') are duplicates"),
    ("ids", "sentry event id", f"Sentry event {_hex(32)} shows the null deref"),
    ("ids", "slack ids", f"channel C0{_s(9, _UP)}, user U0{_s(9, _UP)}, thread ts 1764912345.123456"),
    ("ids", "ksuid", f"ksuid {_s(27)} sorts by time"),
    ("ids", "nanoid", f"short link /s/{_url(21)} expired"),
    ("ids", "google drive file id", f"the spec is at https://docs.google.com/document/d/{_url(44)}/edit"),
    ("ids", "youtube and figma links", f"https://www.figma.com/design/{_s(22)}/Onboarding?node-id=12-345"),
    ("ids", "cloudflare zone/account", f"zone id {_hex(32)}, account id {_hex(32)}"),
    ("ids", "launchdarkly client id", f"LD client-side id (public, goes in the bundle): {_hex(24)}"),
    ("ids", "pubnub subscribe key", f"PubNub subscribe key for the web client: sub-c-{_uid()}"),
    ("ids", "algolia search key", f"algolia app id {_s(10, _UP)} and the search-only key {_hex(32)} (public, in the frontend)"),
    # public keys and fingerprints
    ("public", "ssh-ed25519 pub", f"ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI{_b64(43)} jane@laptop"),
    ("public", "authorized_keys rsa", f"ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABgQ{_b64(500)} deploy@ci"),
    ("public", "ssh fingerprint", f"ED25519 key fingerprint is SHA256:{base64.b64encode(_bytes(32)).decode().rstrip('=')}."),
    ("public", "known_hosts", f"github.com ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI{_b64(43)}"),
    ("public", "gpg fingerprint", f"pub   ed25519 2024-03-01 [SC]\n      {' '.join(_hex(4).upper() for _ in range(10))}\nuid   Jane Doe <jane@corp.example>"),
    ("public", "gpg key id", f"git config user.signingkey {_hex(16).upper()}"),
    ("public", "pem public key", "-----BEGIN PUBLIC KEY-----\n" + _pem_body(294) + "\n-----END PUBLIC KEY-----"),
    ("public", "certificate", "-----BEGIN CERTIFICATE-----\n" + _pem_body(900) + "\n-----END CERTIFICATE-----"),
    ("public", "cert serial", f"Serial Number:\n    {':'.join(_hex(2) for _ in range(16))}"),
    ("public", "cert sha256 fingerprint", f"SHA256 Fingerprint={':'.join(_hex(2).upper() for _ in range(32))}"),
    ("public", "wireguard public only", f"[Peer]\n# office gateway\nPublicKey = {_key44()}\nEndpoint = gw.corp:51820\nAllowedIPs = 10.8.0.0/24"),
    ("public", "wg show output", f"peer: {_key44()}\n  endpoint: 203.0.113.7:51820\n  latest handshake: 42 seconds ago"),
    ("public", "age recipient", f"age -r age1{_s(58, 'qpzry9x8gf2tvdw0s3jn54khce6mua7l')} -o backup.age backup.tar"),
    ("public", "minisign public", f"minisign -Vm release.tar.gz -P RWQ{_b64(53)}"),
    ("public", "nostr npub", f"follow me: npub1{_s(58, 'qpzry9x8gf2tvdw0s3jn54khce6mua7l')}"),
    ("public", "eth address", f"send testnet ETH to 0x{_hex(40)}"),
    ("public", "btc address", f"donations: bc1q{_s(38, 'qpzry9x8gf2tvdw0s3jn54khce6mua7l')}"),
    ("public", "jwks public", json.dumps({"keys": [{"kty": "RSA", "kid": _hex(16), "use": "sig", "n": _url(342), "e": "AQAB"}]})),
    ("public", "dkim dns record", f"s1._domainkey TXT \"v=DKIM1; k=rsa; p=MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA{_b64(300)}\""),
    ("public", "tls pin", f"Public-Key-Pins: pin-sha256=\"{base64.b64encode(_bytes(32)).decode()}\"; max-age=5184000"),
    ("public", "tor onion address", f"the mirror is at {_s(56, 'abcdefghijklmnopqrstuvwxyz234567')}.onion"),
    ("public", "ipfs cid", f"pinned as bafybei{_s(52, 'abcdefghijklmnopqrstuvwxyz234567')}"),
    # base64 test fixtures and encoded data
    ("fixture", "base64 fixture image", f'PNG_1PX = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk{_b64(20)}AAAAABJRU5ErkJggg=="'),
    ("fixture", "base64 json fixture", f"fixture payload: {_b(json.dumps({'event': 'push', 'ref': 'refs/heads/main', 'commits': 3}))}"),
    ("fixture", "test jwt unsigned", "decode test uses " + _UNSIGNED_JWT),
    ("fixture", "hmac test vector", "RFC 4231 test case 1: key = 0x0b repeated 20 times, data = \"Hi There\""),
    ("fixture", "pytest fake creds", 'monkeypatch.setenv("API_TOKEN", "test-token")\nmonkeypatch.setenv("DB_PASSWORD", "not-a-real-password")'),
    ("fixture", "factory boy", "password = factory.Faker('password', length=12)"),
    ("fixture", "snapshot hash", f"exports[`Button renders 1`] = `<button class=\"btn-{_hex(8)}\">Save</button>`;"),
    ("fixture", "protobuf bytes", f"wire bytes: {' '.join(_hex(2) for _ in range(24))}"),
    ("fixture", "webpack chunk names", f"main.{_hex(20)}.js, vendors.{_hex(20)}.js, runtime.{_hex(8)}.js"),
    ("fixture", "vite asset", f"dist/assets/index-{_url(8)}.js   142.31 kB │ gzip: 45.90 kB"),
    ("fixture", "random seed", f"torch.manual_seed({_digits(9)}); np.random.seed({_digits(6)})"),
    ("fixture", "base64 of config", "the configmap's data is " + _b("log_level=debug\nworkers=4\nregion=eu-west-1\n")),
    # placeholders
    ("placeholder", "angle brackets", "curl -H 'Authorization: Bearer <your-token>' https://api.corp/v1/me"),
    ("placeholder", "env template", "API_KEY=\nAPI_SECRET=\nDATABASE_URL=postgres://user:password@localhost:5432/app"),
    ("placeholder", "xxx", "STRIPE_SECRET_KEY=sk_live_xxxxxxxxxxxxxxxxxxxxxxxx"),
    ("placeholder", "changeme", "the default admin password is changeme until first login forces a new one"),
    ("placeholder", "helm values placeholder", "auth:\n  password: \"\"  # set with --set auth.password=$PG_PASSWORD"),
    ("placeholder", "terraform var ref", 'resource "aws_db_instance" "main" {\n  password = var.db_password\n}'),
    ("placeholder", "k8s secretKeyRef", "env:\n- name: DB_PASSWORD\n  valueFrom:\n    secretKeyRef:\n      name: db-creds\n      key: password"),
    ("placeholder", "compose secret file", "environment:\n  POSTGRES_PASSWORD_FILE: /run/secrets/db_password\nsecrets:\n  - db_password"),
    ("placeholder", "gh actions secret", "env:\n  NPM_TOKEN: ${{ secrets.NPM_TOKEN }}\n  PYPI_TOKEN: ${{ secrets.PYPI_API_TOKEN }}"),
    ("placeholder", "shell var ref", 'docker login -u "$REGISTRY_USER" -p "$REGISTRY_PASSWORD" registry.corp'),
    ("placeholder", "npmrc env ref", "//registry.npmjs.org/:_authToken=${NPM_TOKEN}"),
    ("placeholder", "pip.conf env", "index-url = https://${PIP_USER}:${PIP_PASSWORD}@pypi.corp/simple"),
    ("placeholder", "jinja template", "password: {{ vault_db_password }}\nuser: {{ db_user }}"),
    ("placeholder", "dots", "token: ••••••••••••  (masked in the UI)"),
    ("placeholder", "redacted", "Authorization: Bearer [REDACTED]"),
    ("placeholder", "asterisks", "PGPASSWORD=******** psql -h db.corp"),
    ("placeholder", "example otpauth", "otpauth://totp/Example:alice@example.com?secret=JBSWY3DPEHPK3PXP&issuer=Example (the RFC example)"),
    ("placeholder", "wg template", "[Interface]\nPrivateKey = <contents of privatekey>\nAddress = 10.8.0.2/24"),
    ("placeholder", "jdbc template", "jdbc:postgresql://<host>:5432/<db>?user=<user>&password=<password>"),
    ("placeholder", "snmp public default", "most printers still answer on the default community string 'public'; we disable v1/v2c"),
    # env var names and variable names, no values
    ("names", "env var list", "Required env: OPENAI_API_KEY, ANTHROPIC_API_KEY, DATABASE_URL, REDIS_PASSWORD, JWT_SECRET"),
    ("names", "api_key_env", 'provider:\n  name: openai\n  api_key_env: OPENAI_API_KEY\n  base_url: https://api.openai.com/v1'),
    ("names", "password_file option", "--password-file /etc/restic/password and --repository-file /etc/restic/repo"),
    ("names", "secret names k8s", "kubectl get secret db-creds-prod api-token-staging registry-pull-secret -n payments"),
    ("names", "vault paths", "vault kv get secret/data/payments/stripe-api-key; vault kv get -field=password kv/prod/postgres"),
    ("names", "aws secrets manager arn", f"arn:aws:secretsmanager:eu-west-1:{_digits(12)}:secret:prod/db/password-{_s(6)}"),
    ("names", "ssm parameter", "aws ssm get-parameter --name /prod/api/jwt_secret --with-decryption"),
    ("names", "1password reference", "op read op://Engineering/Prod Postgres/password"),
    ("names", "doppler names", "doppler secrets get STRIPE_SECRET_KEY --plain (the value never goes in notes)"),
    ("names", "code reading env", 'api_key = os.environ["WEATHER_API_KEY"]\npassword = os.getenv("DB_PASSWORD", "")'),
    ("names", "settings class", "class Settings(BaseSettings):\n    db_password: SecretStr\n    api_token: SecretStr"),
    ("names", "sealed secret", "kubeseal --format yaml < secret.yaml > sealed-secret.yaml  # commit only the sealed one"),
    ("names", "hcl variable sensitive", 'variable "db_password" {\n  type      = string\n  sensitive = true\n}'),
    ("names", "ldap bind dn only", "bind DN is cn=svc-ldap,ou=svc,dc=corp,dc=example; the password is in vault at kv/ldap/svc"),
    ("names", "smtp settings no pw", "SMTP: smtp.office365.com:587 STARTTLS, user alerts@corp.example, password from SMTP_PASSWORD"),
    # prose about passwords, tokens, hashing
    ("prose", "token budget", "Keep the prompt under a 128k token budget; the summary step spends about 4k tokens per file."),
    ("prose", "tokenizer", "tiktoken counts 'password' as one token and 'correcthorse' as three tokens."),
    ("prose", "hashing discussion", "bcrypt cost 12 takes ~250 ms here; argon2id with 64 MiB is the plan; never store the plain password."),
    ("prose", "key rotation", "We rotate the JWT signing key monthly; the old key stays valid for verification for 24 hours."),
    ("prose", "secret scanning", "gitleaks flagged a false positive on the sha512 integrity lines in package-lock.json."),
    ("prose", "api key naming", "Name API keys by owner and purpose, e.g. 'ci-deploy-readonly', so revocation is obvious."),
    ("prose", "passkeys", "Passkeys replace passwords with a key pair; the private key never leaves the authenticator."),
    ("prose", "totp explanation", "TOTP codes are six digits derived from a shared seed and the time; the seed must stay secret."),
    ("prose", "recovery code policy", "Print the recovery codes and store them in the safe; do not paste them anywhere digital."),
    ("prose", "snmp v3 migration", "Move from SNMP v2c communities to v3 with authPriv (SHA-256/AES-128) on all switches by Q1."),
    ("prose", "wireguard how", "Generate keys with `wg genkey | tee privatekey | wg pubkey > publickey`; share only publickey."),
    ("prose", "german prose", "Das Passwort wird mit argon2 gehasht; Tokens laufen nach 15 Minuten ab."),
    ("prose", "spanish prose", "La contraseña debe tener al menos 12 caracteres y se cambia cada 90 días."),
    ("prose", "japanese prose", "パスワードは1Passwordに保存してください。ここには書かないこと。"),
    ("prose", "french prose", "Le mot de passe est dans le coffre ; ne le colle jamais dans le chat."),
    ("prose", "key count", "We have 3 API keys in use: one for CI, one for the dashboard, one for the nightly export."),
    ("prose", "password reset flow", "The reset flow emails a one-time link valid for 30 minutes; the token is hashed with SHA-256 in the DB."),
    ("prose", "secret in var name", "secret_santa_2026: Alice→Bob, Bob→Carol, Carol→Dave; budget 25 EUR."),
    ("prose", "key in music", "The song is in the key of F# minor; the bridge modulates to A major."),
    ("prose", "token ring", "The old office network was token ring; the new one is 10 GbE."),
    # logs and terminals with long random-looking values that are not secrets
    ("logs", "pip install log", f"Successfully installed numpy-2.1.3 (wheel {_hex(64)})"),
    ("logs", "docker build", f" => => writing image sha256:{_hex(64)}\n => => naming to docker.io/library/api:dev"),
    ("logs", "kubectl pods", f"api-7c{_s(8, _LOW)}-{_s(5, _LOW)}   1/1   Running   0   3h\nworker-{_s(10, _LOW)}-{_s(5, _LOW)}   1/1   Running   2   3h"),
    ("logs", "terraform plan", f"aws_instance.web: Refreshing state... [id=i-0{_hex(16)}]\nPlan: 0 to add, 1 to change, 0 to destroy."),
    ("logs", "git push output", f"To github.com:acme/api.git\n   {_hex(7)}..{_hex(7)}  main -> main"),
    ("logs", "npm audit", f"found 0 vulnerabilities\nrun `npm fund` for details; cache {_hex(40)}"),
    ("logs", "gpg verify", f"gpg: Signature made Fri 04 Dec 2026\ngpg:                using EDDSA key {_hex(40).upper()}\ngpg: Good signature"),
    ("logs", "ssh-keygen output", f"Your public key has been saved in /home/jane/.ssh/id_ed25519.pub\nThe key fingerprint is:\nSHA256:{base64.b64encode(_bytes(32)).decode().rstrip('=')} jane@laptop"),
    ("logs", "wg genkey public", f"$ wg pubkey < privatekey\n{_key44()}"),
    ("logs", "cert expiry", f"notAfter=Mar  4 12:00:00 2027 GMT\nserial={_hex(32).upper()}"),
    ("logs", "ci cache key", f"Cache restored from key: Linux-pip-{_hex(64)}"),
    ("logs", "hash of a password discussion", "the hash column is bcrypt ($2b$, cost 12); the migration rehashes on next login"),
    ("logs", "base64 data url svg", "background: url(data:image/svg+xml;base64," + _b('<svg xmlns="http://www.w3.org/2000/svg" width="8" height="8"><rect width="8" height="8" fill="#eee"/></svg>') + ")"),
    ("logs", "csrf field name", '<input type="hidden" name="csrfmiddlewaretoken" value="{{ csrf_token }}">'),
]
for _cls, _name, _body in _LOOKS:
    L(_cls, _name, _body)
