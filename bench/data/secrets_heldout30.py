"""blind30's held-out corpus (issue 23 item 5): written at c977825 before reading the secret rules
(vault_mem/model/secret*.py, policy); only the top of heldout29 (its helpers and F/L) and
bench_secrets.py's loader were read, for the format. No earlier corpus was opened, so vendors and
shapes here come from the writer's own knowledge and may overlap earlier ones. Measured once on
main (the blind figure) before any fix.

Credential forms a developer might paste into a memory (FORMS, each must be refused) and
look-alikes a developer's memory really contains that must pass (LOOK_ALIKES). Random parts come
from a fixed seed, so the corpus is the same on every run.
``python bench/bench_secrets.py --set heldout30 --misses``.
"""

from __future__ import annotations

import base64
import json
import random
import string
import uuid

_rng = random.Random(3030)
_AN = string.ascii_letters + string.digits
_LOW = string.ascii_lowercase + string.digits
_UP = string.ascii_uppercase + string.digits
_HEXU = "0123456789ABCDEF"


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


def _b58(n: int) -> str:
    return _s(n, "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz")


def _digits(n: int) -> str:
    return _s(n, string.digits)


def _bytes(n: int) -> bytes:
    return bytes(_rng.getrandbits(8) for _ in range(n))


def _b(s: str) -> str:
    return base64.b64encode(s.encode()).decode()


def _key44() -> str:
    return base64.b64encode(_bytes(32)).decode()


def _pem_body(nbytes: int) -> str:
    raw = base64.b64encode(_bytes(nbytes)).decode()
    return "\n".join(raw[i:i + 64] for i in range(0, len(raw), 64))


def _pw() -> str:
    """A password a person picks: words, digits and a symbol."""
    words = ["Anchor", "bristle", "Cobalt", "dapple", "Ember", "falcon", "Granite", "hollow", "Indigo", "juniper",
             "Kestrel", "lichen", "Mango", "nimbus", "Otter", "pepper", "Quartz", "raven", "Sable", "tundra"]
    return (_rng.choice(words) + _rng.choice(["", "_", "-", "."]) + _rng.choice(words).lower()
            + _digits(_rng.choice([2, 3, 4])) + _rng.choice("!@#$%&*?"))


def _plain_pw() -> str:
    words = ["pancake", "seagull", "copper", "windmill", "blanket", "thunder", "pickle", "bicycle", "cactus", "maple"]
    return _rng.choice(words) + _rng.choice(words) + _digits(_rng.choice([2, 3, 4]))


def _rand_pw(n: int = 20) -> str:
    return _s(n, _AN + "!#%^*-_=+")


def _uid() -> str:
    return str(uuid.UUID(int=_rng.getrandbits(128), version=4))


def _jwt(claims: dict | None = None, alg: str = "HS256") -> str:
    def enc(d: dict) -> str:
        return base64.urlsafe_b64encode(json.dumps(d, separators=(",", ":")).encode()).decode().rstrip("=")
    head = enc({"alg": alg, "typ": "JWT"})
    body = enc(claims or {"sub": _uid(), "role": "service", "iat": 1764900000, "exp": 1796436000})
    return f"{head}.{body}.{_url(43 if alg.startswith('HS') else 342)}"


_WORDS = ("abandon ability able about above absent absorb abstract absurd abuse access accident account accuse "
          "achieve acid acoustic acquire across act action actor actress actual adapt add addict address adjust "
          "admit adult advance advice aerobic affair afford afraid again age agent agree ahead aim air airport "
          "aisle alarm album alcohol alert alien all alley allow almost alone alpha already also alter always "
          "amateur amazing among amount amused analyst anchor ancient anger angle angry animal ankle announce "
          "annual another answer antenna antique anxiety any apart apology appear apple approve april arch arctic "
          "area arena argue arm armed armor army around arrange arrest arrive arrow art artefact artist artwork "
          "ask aspect assault asset assist assume asthma athlete atom attack attend attitude attract auction audit "
          "august aunt author auto autumn average avocado avoid awake aware away awesome awful awkward axis "
          "baby bachelor bacon badge bag balance balcony ball bamboo banana banner bar barely bargain barrel base "
          "basic basket battle beach bean beauty because become beef before begin behave behind believe below "
          "belt bench benefit best betray better between beyond bicycle bid bike bind biology bird birth bitter "
          "black blade blame blanket blast bleak bless blind blood blossom blouse blue blur blush board boat "
          "body boil bomb bone bonus book boost border boring borrow boss bottom bounce box boy bracket brain "
          "brand brass brave bread breeze brick bridge brief bright bring brisk broccoli broken bronze broom "
          "brother brown brush bubble buddy budget buffalo build bulb bulk bullet bundle bunker burden burger "
          "burst bus business busy butter buyer buzz cabbage cabin cable cactus cage cake call calm camera camp "
          "canal cancel candy cannon canoe canvas canyon capable capital captain car carbon card cargo carpet "
          "carry cart case cash casino castle casual cat catalog catch category cattle caught cause caution cave "
          "ceiling celery cement census century cereal certain chair chalk champion change chaos chapter charge "
          "chase chat cheap check cheese chef cherry chest chicken chief child chimney choice choose chronic "
          "chuckle chunk churn cigar cinnamon circle citizen city civil claim clap clarify claw clay clean clerk "
          "clever click client cliff climb clinic clip clock clog close cloth cloud clown club clump cluster "
          "clutch coach coast coconut code coffee coil coin collect color column combine come comfort comic "
          "common company concert conduct confirm congress connect consider control convince cook cool copper "
          "copy coral core corn correct cost cotton couch country couple course cousin cover coyote crack cradle "
          "craft cram crane crash crater crawl crazy cream credit creek crew cricket crime crisp critic crop "
          "cross crouch crowd crucial cruel cruise crumble crunch crush cry crystal cube culture cup cupboard "
          "curious current curtain curve cushion custom cute cycle").split()


def _seed(n: int) -> str:
    return " ".join(_rng.choice(_WORDS) for _ in range(n))


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


# ================================ FORMS ==========================================================

# --- vendor tokens, each in a line a person writes ------------------------------------------------
_VENDORS = [
    ("openai project", f"sk-proj-{_url(74)}T3BlbkFJ{_url(74)}", "OPENAI_API_KEY={v}"),
    ("openai svcacct", f"sk-svcacct-{_url(74)}T3BlbkFJ{_url(74)}", "service account key for the eval runner: {v}"),
    ("openai admin", f"sk-admin-{_url(74)}T3BlbkFJ{_url(74)}", "org admin key (usage API only): {v}"),
    ("anthropic api", f"sk-ant-api03-{_url(93)}AA", "export ANTHROPIC_API_KEY={v}"),
    ("anthropic admin", f"sk-ant-admin01-{_url(93)}AA", "Admin API key for the workspace report: `{v}`"),
    ("github classic", f"ghp_{_s(36)}", "git remote set-url origin https://{v}@github.com/acme/infra.git"),
    ("github oauth", f"gho_{_s(36)}", "gh auth token printed {v} -- revoke after the demo"),
    ("github app install", f"ghs_{_s(36)}", "installation token (1h): {v}"),
    ("github refresh", f"ghr_{_s(76)}", "refresh_token={v}"),
    ("github fine grained", f"github_pat_11{_s(20, _UP)}_{_s(59)}", "GH_TOKEN: {v}"),
    ("gitlab pat", f"glpat-{_url(20)}", "gitlab token for the mirror job: {v}"),
    ("gitlab trigger", f"glptt-{_hex(40)}", "curl -X POST -F token={v} -F ref=main https://gitlab.com/api/v4/projects/42/trigger/pipeline"),
    ("gitlab deploy", f"gldt-{_url(20)}", "deploy token gitlab+deploy-token-7 / {v}"),
    ("gitlab runner", f"glrt-{_url(20)}", "gitlab-runner register --token {v}"),
    ("slack bot", f"xoxb-{_digits(12)}-{_digits(13)}-{_s(24)}", "SLACK_BOT_TOKEN={v}"),
    ("slack user", f"xoxp-{_digits(12)}-{_digits(12)}-{_digits(13)}-{_hex(32)}", "my slack user token {v}"),
    ("slack app level", f"xapp-1-A{_s(10, _UP)}-{_digits(13)}-{_hex(64)}", "socket mode app token: {v}"),
    ("stripe live secret", f"sk_live_51{_s(97)}", "stripe.api_key = \"{v}\""),
    ("stripe restricted", f"rk_live_51{_s(97)}", "read-only restricted key for the dashboard: {v}"),
    ("stripe webhook", f"whsec_{_s(32)}", "STRIPE_WEBHOOK_SECRET={v}"),
    ("google api", f"AIza{_url(35)}", "Gemini key {v} (billing on the ml project)"),
    ("google oauth secret", f"GOCSPX-{_url(28)}", "client_secret: {v}"),
    ("google access token", f"ya29.a0{_url(150)}", "curl -H 'Authorization: Bearer {v}' https://www.googleapis.com/drive/v3/files"),
    ("google refresh token", f"1//0{_url(99)}", "refresh token from the oauth playground: {v}"),
    ("azure ad secret", f"{_s(3)}8Q~{_url(31)}", "AZURE_CLIENT_SECRET={v}"),
    ("twilio api key secret", f"SK{_hex(32)}:{_s(32)}", "twilio api key:secret {v}"),
    ("sendgrid", f"SG.{_url(22)}.{_url(43)}", "SENDGRID_API_KEY='{v}'"),
    ("mailgun", f"key-{_hex(32)}", "mailgun private api key {v}"),
    ("mailchimp", f"{_hex(32)}-us21", "mailchimp api key: {v}"),
    ("npm automation", f"npm_{_s(36)}", "//registry.npmjs.org/:_authToken={v}"),
    ("pypi", f"pypi-AgEIcHlwaS5vcmc{_url(140)}", "[pypi]\n  username = __token__\n  password = {v}"),
    ("docker hub pat", f"dckr_pat_{_url(27)}", "echo {v} | docker login -u acmebot --password-stdin"),
    ("hugging face", f"hf_{_s(34)}", "huggingface-cli login --token {v}"),
    ("replicate", f"r8_{_s(37)}", "REPLICATE_API_TOKEN={v}"),
    ("groq", f"gsk_{_s(52)}", "groq key: {v}"),
    ("perplexity", f"pplx-{_s(48)}", "PERPLEXITY_API_KEY={v}"),
    ("xai", f"xai-{_s(80)}", "grok api key {v}"),
    ("openrouter", f"sk-or-v1-{_hex(64)}", "OPENROUTER_API_KEY={v}"),
    ("deepseek", f"sk-{_hex(32)}", "deepseek key is {v}"),
    ("linear", f"lin_api_{_s(40)}", "LINEAR_API_KEY={v}"),
    ("notion new", f"ntn_{_digits(11)}{_s(35)}", "notion integration secret {v}"),
    ("notion old", f"secret_{_s(43)}", "NOTION_TOKEN=\"{v}\""),
    ("figma", f"figd_{_url(40)}", "figma personal access token {v}"),
    ("airtable pat", f"pat{_s(14)}.{_hex(64)}", "AIRTABLE_TOKEN={v}"),
    ("shopify admin", f"shpat_{_hex(32)}", "X-Shopify-Access-Token: {v}"),
    ("shopify shared secret", f"shpss_{_hex(32)}", "app shared secret {v}"),
    ("atlassian api", f"ATATT3xFfGF0{_url(170)}={_hex(8).upper()}", "jira token for jane@acme.io: {v}"),
    ("sentry user token", f"sntryu_{_hex(64)}", "SENTRY_AUTH_TOKEN={v}"),
    ("new relic user", f"NRAK-{_s(27, _UP)}", "new relic user key {v}"),
    ("new relic ingest", f"NRII-{_url(32)}", "license/ingest key: {v}"),
    ("grafana service account", f"glsa_{_s(32)}_{_hex(8)}", "GRAFANA_TOKEN={v}"),
    ("grafana cloud", f"glc_{_b(json.dumps({'o': 'acme', 'n': 'stack-1-ci', 'k': _s(24), 'm': {'r': 'us'}}))}", "grafana cloud access policy token {v}"),
    ("doppler service", f"dp.st.prd.{_s(43)}", "DOPPLER_TOKEN={v}"),
    ("vault service", f"hvs.{_url(90)}", "VAULT_TOKEN={v}"),
    ("vault batch", f"hvb.AAAAAQ{_url(130)}", "batch token for the ci role: {v}"),
    ("terraform cloud", f"{_s(14)}.atlasv1.{_s(67)}", "credentials \"app.terraform.io\" {{ token = \"{v}\" }}"),
    ("pulumi", f"pul-{_hex(40)}", "PULUMI_ACCESS_TOKEN={v}"),
    ("postman", f"PMAK-{_hex(24)}-{_hex(34)}", "postman api key {v}"),
    ("digitalocean", f"dop_v1_{_hex(64)}", "doctl auth init -t {v}"),
    ("heroku", f"HRKU-AA{_url(58)}", "HEROKU_API_KEY={v}"),
    ("fly", f"FlyV1 fm2_{_b64(200)}", "FLY_API_TOKEN=\"{v}\""),
    ("netlify", f"nfp_{_s(36)}", "NETLIFY_AUTH_TOKEN={v}"),
    ("supabase pat", f"sbp_{_hex(40)}", "supabase login --token {v}"),
    ("supabase secret", f"sb_secret_{_url(31)}", "new-style supabase secret key {v}"),
    ("planetscale password", f"pscale_pw_{_url(43)}", "DATABASE_PASSWORD={v}"),
    ("planetscale token", f"pscale_tkn_{_url(43)}", "service token {v}"),
    ("neon", f"napi_{_s(64, _LOW)}", "NEON_API_KEY={v}"),
    ("render", f"rnd_{_s(32)}", "render api key {v}"),
    ("cloudflare global", f"{_hex(37)}", "CF_API_KEY={v}\nCF_API_EMAIL=ops@acme.io"),
    ("cloudflare api token", f"{_url(40)}", "CLOUDFLARE_API_TOKEN={v}"),
    ("clerk", f"sk_live_{_s(46)}", "CLERK_SECRET_KEY={v}"),
    ("resend", f"re_{_s(8)}_{_s(24)}", "RESEND_API_KEY={v}"),
    ("discord bot", f"M{_s(25)}.{_url(6)}.{_url(38)}", "discord bot token: {v}"),
    ("telegram bot", f"{_digits(10)}:AA{_url(33)}", "TELEGRAM_BOT_TOKEN={v}"),
    ("mapbox secret", f"sk.eyJ1IjoiYWNtZSIsImEiOiJ{_url(30)}.{_url(22)}", "mapbox secret token (downloads scope) {v}"),
    ("square", f"EAAA{_url(60)}", "SQUARE_ACCESS_TOKEN={v}"),
    ("braintree", f"access_token$production${_s(16, _LOW)}${_hex(32)}", "braintree: {v}"),
    ("okta ssws", f"00{_url(40)}", "curl -H \"Authorization: SSWS {v}\" https://acme.okta.com/api/v1/users"),
    ("contentful", f"CFPAT-{_url(43)}", "contentful management token {v}"),
    ("tailscale auth", f"tskey-auth-k{_s(10)}CNTRL-{_s(33)}", "tailscale up --authkey={v}"),
    ("tailscale api", f"tskey-api-k{_s(10)}CNTRL-{_s(33)}", "TS_API_KEY={v}"),
    ("ngrok", f"2{_s(26)}_{_s(21)}", "ngrok config add-authtoken {v}"),
    ("dropbox", f"sl.B{_url(135)}", "dropbox short-lived token {v}"),
    ("asana", f"2/{_digits(16)}/{_digits(16)}:{_hex(32)}", "asana PAT {v}"),
    ("bitbucket app password", f"ATBB{_s(28)}{_hex(8).upper()}", "bitbucket app password for ci-bot: {v}"),
    ("circleci", f"CCIPAT_{_s(22)}_{_hex(40)}", "CIRCLE_TOKEN={v}"),
    ("buildkite", f"bkua_{_hex(40)}", "BUILDKITE_API_TOKEN={v}"),
    ("sonarqube", f"squ_{_hex(40)}", "sonar.token={v}"),
    ("sourcegraph", f"sgp_{_hex(16)}_{_hex(40)}", "SRC_ACCESS_TOKEN={v}"),
    ("jfrog", f"cmVmdGtuOjAxOjE3{_s(50)}", "artifactory reference token: {v}"),
    ("rubygems", f"rubygems_{_hex(48)}", "GEM_HOST_API_KEY={v}"),
    ("nuget", f"oy2{_s(43, _LOW)}", "dotnet nuget push pkg.nupkg --api-key {v} --source nuget.org"),
    ("crates", f"cio{_s(32)}", "cargo login {v}"),
    ("databricks", f"dapi{_hex(32)}", "DATABRICKS_TOKEN={v}"),
    ("langsmith", f"lsv2_pt_{_hex(32)}_{_hex(10)}", "LANGSMITH_API_KEY={v}"),
    ("pinecone", f"pcsk_{_s(6)}_{_s(62)}", "PINECONE_API_KEY={v}"),
    ("wandb", f"{_hex(40)}", "wandb login {v}"),
    ("elevenlabs", f"sk_{_hex(48)}", "xi-api-key: {v}"),
    ("facebook", f"EAAG{_s(180)}", "page access token (never expires): {v}"),
    ("shippo", f"shippo_live_{_hex(40)}", "SHIPPO_TOKEN={v}"),
    ("razorpay", f"rzp_live_{_s(14)}", "RAZORPAY_KEY_ID={v}\nRAZORPAY_KEY_SECRET=" + _s(24)),
    ("flutterwave", f"FLWSECK-{_hex(32)}-X", "flutterwave secret {v}"),
    ("hubspot", f"pat-na1-{_uid()}", "hubspot private app token {v}"),
    ("posthog personal", f"phx_{_s(43)}", "POSTHOG_PERSONAL_API_KEY={v}"),
    ("launchdarkly sdk", f"sdk-{_uid()}", "LD_SDK_KEY={v}"),
    ("launchdarkly api", f"api-{_uid()}", "LaunchDarkly API access token {v}"),
    ("1password service", f"ops_eyJ{_url(300)}", "OP_SERVICE_ACCOUNT_TOKEN={v}"),
    ("prefect", f"pnu_{_s(36)}", "PREFECT_API_KEY={v}"),
    ("modal", f"as-{_s(22)}", f"modal token set --token-id ak-{_s(22)} --token-secret {{v}}"),
    ("runpod", f"rpa_{_s(44, _UP)}", "RUNPOD_API_KEY={v}"),
    ("nvidia", f"nvapi-{_url(64)}", "NVIDIA_API_KEY={v}"),
    ("cerebras", f"csk-{_s(48, _LOW)}", "cerebras key {v}"),
    ("voyage", f"pa-{_url(43)}", "VOYAGE_API_KEY={v}"),
    ("azure openai", f"{_hex(32)}", "curl $ENDPOINT -H \"api-key: {v}\""),
    ("upstash rest", f"AX{_s(4)}ACQgN{_url(60)}", "UPSTASH_REDIS_REST_TOKEN={v}"),
    ("convex deploy", f"prod:happy-otter-123|{_url(90)}", "CONVEX_DEPLOY_KEY={v}"),
    ("firebase server", f"AAAA{_url(7)}:APA91b{_url(134)}", "FCM legacy server key {v}"),
    ("expo", f"{_url(40)}", "EXPO_TOKEN={v}"),
    ("honeycomb", f"hcaik_{_s(58, _LOW)}", "HONEYCOMB_API_KEY={v}"),
    ("axiom", f"xaat-{_uid()}", "AXIOM_TOKEN={v}"),
    ("rollbar", f"{_hex(32)}", "rollbar post_server_item access token: {v}"),
    ("linode", f"{_hex(64)}", "LINODE_TOKEN={v}"),
    ("vultr", f"{_s(36, _UP)}", "VULTR_API_KEY={v}"),
    ("hetzner", f"{_s(64)}", "hcloud context create prod  # token: {v}"),
    ("scaleway", f"{_uid()}", f"SCW_ACCESS_KEY=SCW{_s(17, _UP)}\nSCW_SECRET_KEY={{v}}"),
    ("alibaba", f"LTAI5t{_s(18)}", "aliyun AccessKeyId {v} AccessKeySecret " + _s(30)),
    ("tencent", f"AKID{_s(32)}", "SecretId={v} SecretKey=" + _s(32)),
    ("ibm cloud", f"{_url(44)}", "ibmcloud login --apikey {v}"),
    ("backblaze", f"K005{_s(27)}", f"B2_APPLICATION_KEY_ID=005{_hex(22)}\nB2_APPLICATION_KEY={{v}}"),
    ("r2", f"{_hex(64)}", f"R2 access key id {_hex(32)} secret {{v}}"),
    ("adafruit io", f"aio_{_s(28)}", "ADAFRUIT_IO_KEY={v}"),
    ("age identity", f"AGE-SECRET-KEY-1{_s(58, 'QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L')}", "# created: 2026-11-02\n# public key: age1" + _s(58, "qpzry9x8gf2tvdw0s3jn54khce6mua7l") + "\n{v}"),
    ("nostr nsec", f"nsec1{_s(58, 'qpzry9x8gf2tvdw0s3jn54khce6mua7l')}", "my nostr key (nsec) {v}"),
    ("lemon squeezy", f"eyJ0eXAiOiJKV1QiLCJhbGciOiJSUzI1NiJ9.{_url(300)}.{_url(342)}", "LEMONSQUEEZY_API_KEY={v}"),
    ("mux", f"{_uid()}", f"MUX_TOKEN_ID={_uid()}\nMUX_TOKEN_SECRET={{v}}"),
    ("plaid", f"{_hex(30)}", f"PLAID_CLIENT_ID={_hex(24)}\nPLAID_SECRET={{v}}"),
    ("paystack", f"sk_live_{_hex(40)}", "paystack secret key {v}"),
    ("lob", f"live_{_hex(35)}", "LOB_API_KEY={v}"),
    ("easypost", f"EZAK{_hex(56)}", "easypost production key {v}"),
    ("twitch", f"oauth:{_s(30, _LOW)}", "irc PASS {v}"),
    ("zendesk", f"{_s(40)}", "jane@acme.io/token:{v}"),
    ("snyk", f"{_uid()}", "SNYK_TOKEN={v}"),
    ("segment write", f"{_s(32)}", "analytics.load(\"{v}\")  # segment server-side write key (secret for server sources)"),
    ("frame.io", f"fio-u-{_url(64)}", "frame.io dev token {v}"),
    ("typeform", f"tfp_{_url(44)}_{_url(14)}", "TYPEFORM_TOKEN={v}"),
    ("calendly", f"eyJraWQiOiIxY2UxZTEzNjE3ZGNmNzY2YjNjZWJjY2Y4ZGM1YmFmYThhNjVlNjg0MDIzZjdjMzJiZTgzNDliMjM4MDEzNWI0IiwidHlwIjoiUEFUIiwiYWxnIjoiRVMyNTYifQ.{_url(200)}.{_url(86)}", "calendly PAT {v}"),
    ("doppler cli", f"dp.ct.{_s(43)}", "doppler configure set token {v}"),
    ("infisical", f"st.{_uid()}.{_hex(32)}.{_hex(32)}", "INFISICAL_TOKEN={v}"),
    ("fastly", f"{_url(32)}", "FASTLY_API_TOKEN={v}"),
    ("mistral", f"{_s(32)}", "MISTRAL_API_KEY={v}"),
    ("cohere", f"{_s(40)}", "co = cohere.Client(\"{v}\")"),
    ("together", f"tgp_v1_{_url(43)}", "TOGETHER_API_KEY={v}"),
    ("fireworks", f"fw_{_s(24)}", "FIREWORKS_API_KEY={v}"),
    ("deepgram", f"{_hex(40)}", "Authorization: Token {v}"),
    ("assemblyai", f"{_hex(32)}", "aai.settings.api_key = \"{v}\""),
    ("browserbase", f"bb_live_{_url(27)}", "BROWSERBASE_API_KEY={v}"),
    ("e2b", f"e2b_{_hex(40)}", "E2B_API_KEY={v}"),
    ("exa", f"{_uid()}", "EXA_API_KEY={v}"),
    ("tavily", f"tvly-{_s(32)}", "TAVILY_API_KEY={v}"),
    ("firecrawl", f"fc-{_hex(32)}", "FIRECRAWL_API_KEY={v}"),
    ("serpapi", f"{_hex(64)}", "serpapi api_key={v}"),
    ("stability", f"sk-{_s(48)}", "STABILITY_KEY={v}"),
    ("wandb new", f"wandb_v1_{_s(60)}", "wandb api key {v}"),
    ("unkey root", f"unkey_{_s(24)}", "UNKEY_ROOT_KEY={v}"),
]
for _name, _v, _tpl in _VENDORS:
    F("vendor", _name, _tpl.format(v=_v))

# --- cloud credentials --------------------------------------------------------------------------
_ak, _sk = "AKIA" + _s(16, _UP), _b64(40)
F("cloud", "aws credentials file", f"[default]\naws_access_key_id = {_ak}\naws_secret_access_key = {_sk}\nregion = eu-west-1")
F("cloud", "aws env pair", f"export AWS_ACCESS_KEY_ID={_ak}\nexport AWS_SECRET_ACCESS_KEY={_b64(40)}")
F("cloud", "aws secret alone", f"AWS_SECRET_ACCESS_KEY={_b64(40)}")
F("cloud", "aws session", f"AWS_ACCESS_KEY_ID=ASIA{_s(16, _UP)}\nAWS_SECRET_ACCESS_KEY={_b64(40)}\nAWS_SESSION_TOKEN=IQoJb3JpZ2luX2VjE{_b64(300)}")
F("cloud", "aws cli configure", f"aws configure set aws_secret_access_key {_b64(40)} --profile prod")
F("cloud", "aws keys in prose", f"The deploy user's keys are {'AKIA' + _s(16, _UP)} and {_b64(40)}; rotate in March.")
F("cloud", "aws boto3 code", f"s3 = boto3.client('s3', aws_access_key_id='{'AKIA' + _s(16, _UP)}', aws_secret_access_key='{_b64(40)}')")
F("cloud", "aws access key alone", f"old IAM key for the backup user: {'AKIA' + _s(16, _UP)} (secret is in the vault)")
_gcp = {"type": "service_account", "project_id": "acme-prod-4821", "private_key_id": _hex(40),
        "private_key": "-----BEGIN PRIVATE KEY-----\n" + _pem_body(1216) + "\n-----END PRIVATE KEY-----\n",
        "client_email": "deployer@acme-prod-4821.iam.gserviceaccount.com", "client_id": _digits(21)}
F("cloud", "gcp service account json", json.dumps(_gcp, indent=2))
F("cloud", "gcp private_key_id only", '{\n  "type": "service_account",\n  "project_id": "acme-ml",\n  "private_key_id": "' + _hex(40) + '",\n  "client_email": "trainer@acme-ml.iam.gserviceaccount.com"\n}')
F("cloud", "gcp private key escaped", '"private_key": "-----BEGIN PRIVATE KEY-----\\n' + _pem_body(600).replace("\n", "\\n") + '\\n-----END PRIVATE KEY-----\\n"')
F("cloud", "azure storage conn", f"DefaultEndpointsProtocol=https;AccountName=acmelogs;AccountKey={base64.b64encode(_bytes(64)).decode()};EndpointSuffix=core.windows.net")
F("cloud", "azure sas url", f"https://acmelogs.blob.core.windows.net/exports?sv=2022-11-02&ss=b&srt=co&sp=rl&se=2027-01-01T00:00:00Z&st=2026-12-01T00:00:00Z&spr=https&sig={_b64(43)}%3D")
F("cloud", "azure sp json", json.dumps({"appId": _uid(), "displayName": "ci-deployer", "password": f"{_s(3)}8Q~{_url(31)}", "tenant": _uid()}, indent=2))
F("cloud", "azure cli login", f"az login --service-principal -u {_uid()} -p '{_s(3)}8Q~{_url(31)}' --tenant {_uid()}")
F("cloud", "azure servicebus", f"Endpoint=sb://acme-bus.servicebus.windows.net/;SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey={_key44()}")
F("cloud", "azure cosmos", f"AccountEndpoint=https://acme-cosmos.documents.azure.com:443/;AccountKey={base64.b64encode(_bytes(64)).decode()};")
F("cloud", "azure devops pat", f"AZURE_DEVOPS_EXT_PAT={_s(52, 'abcdefghijklmnopqrstuvwxyz234567')}")
F("cloud", "s3 presigned", f"https://acme-exports.s3.amazonaws.com/report.csv?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential={'AKIA' + _s(16, _UP)}%2F20261205%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Date=20261205T101500Z&X-Amz-Expires=604800&X-Amz-SignedHeaders=host&X-Amz-Signature={_hex(64)}")
F("cloud", "kubeconfig token", f"users:\n- name: ci\n  user:\n    token: {_jwt({'iss': 'kubernetes/serviceaccount', 'sub': 'system:serviceaccount:ci:deployer'}, 'RS256')}")
F("cloud", "kubeconfig client key", f"users:\n- name: admin\n  user:\n    client-certificate-data: {_b64(120)}\n    client-key-data: {_b('-----BEGIN RSA PRIVATE KEY-----' + chr(10) + _pem_body(300))}")
F("cloud", "k8s secret manifest", f"apiVersion: v1\nkind: Secret\nmetadata:\n  name: db-creds\ntype: Opaque\ndata:\n  username: {_b('app')}\n  password: {_b(_pw())}")
F("cloud", "k8s stringData", f"apiVersion: v1\nkind: Secret\nmetadata:\n  name: api\nstringData:\n  API_KEY: {_s(40)}")
F("cloud", "kubectl create secret", f"kubectl create secret generic db --from-literal=password='{_pw()}' -n prod")
F("cloud", "docker config auths", json.dumps({"auths": {"registry.acme.io": {"auth": _b("robot$ci:" + _s(32))}}}, indent=2))
F("cloud", "docker login flag", f"docker login registry.acme.io -u deploy -p {_rand_pw(24)}")
F("cloud", "gcloud access token", f"gcloud auth print-access-token\nya29.c.b0{_url(200)}")
F("cloud", "oci config", f"[DEFAULT]\nuser=ocid1.user.oc1..{_s(60, _LOW)}\nfingerprint={':'.join(_hex(2) for _ in range(16))}\nkey_file=~/.oci/key.pem\npass_phrase={_pw()}\ntenancy=ocid1.tenancy.oc1..{_s(60, _LOW)}")
F("cloud", "minio root", f"MINIO_ROOT_USER=admin\nMINIO_ROOT_PASSWORD={_rand_pw(24)}")
F("cloud", "wasabi", f"wasabi keys: access {_s(20, _UP)} secret {_s(40)}")
F("cloud", "digitalocean spaces", f"SPACES_KEY={_s(20, _UP)}\nSPACES_SECRET={_b64(43)}")

# --- connection strings ---------------------------------------------------------------------------
_CONN = [
    ("postgres url", f"postgres://app:{_rand_pw(18)}@db.acme.internal:5432/app"),
    ("postgresql sslmode", f"postgresql://analytics:{_pw()}@10.0.3.7/warehouse?sslmode=require"),
    ("mysql url", f"mysql://root:{_plain_pw()}@127.0.0.1:3306/shop"),
    ("mongodb srv", f"mongodb+srv://admin:{_rand_pw(16)}@cluster0.ab1cd.mongodb.net/?retryWrites=true"),
    ("redis url", f"redis://default:{_s(32)}@redis-12345.c1.us-east-1.ec2.cloud.redislabs.com:12345"),
    ("rediss no user", f"rediss://:{_s(40)}@cache.acme.io:6380/0"),
    ("amqp", f"amqp://guest_ops:{_pw()}@rabbit.acme.internal:5672/prod"),
    ("mssql ado", f"Server=tcp:acme.database.windows.net,1433;Database=crm;User ID=crmapp;Password={_pw()};Encrypt=True;"),
    ("jdbc params", f"jdbc:postgresql://db:5432/app?user=svc&password={_rand_pw(16)}"),
    ("jdbc oracle", f"jdbc:oracle:thin:scott/{_plain_pw()}@//ora.acme.local:1521/ORCL"),
    ("odbc pwd", f"Driver={{ODBC Driver 18 for SQL Server}};Server=sql01;UID=report;PWD={_pw()};"),
    ("snowflake", f"snowflake://etl_user:{_pw()}@acme-xy12345/ANALYTICS/PUBLIC?warehouse=ETL_WH"),
    ("clickhouse", f"clickhouse://default:{_s(24)}@ch.acme.cloud:9440/default?secure=true"),
    ("sqlalchemy", f"SQLALCHEMY_DATABASE_URI = 'postgresql+psycopg://web:{_pw()}@localhost/web'"),
    ("ldap bind", f"ldapsearch -H ldaps://ldap.acme.io -D 'cn=admin,dc=acme,dc=io' -w '{_pw()}' -b dc=acme,dc=io"),
    ("smtp url", f"SMTP_URL=smtp://postmaster@mg.acme.io:{_hex(32)}-{_hex(8)}-{_hex(8)}@smtp.mailgun.org:587"),
    ("kafka sasl", f"sasl.mechanism=PLAIN\nsasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username=\"{_s(16, _UP)}\" password=\"{_b64(64)}\";"),
    ("elasticsearch url", f"https://elastic:{_s(20)}@es.acme.io:9200"),
    ("ftp url", f"ftp://upload:{_plain_pw()}@files.partner.com/incoming/"),
    ("git https token", f"git clone https://oauth2:{_url(20)}@gitlab.acme.io/platform/charts.git"),
    ("git credentials file", f"https://jane:{'ghp_' + _s(36)}@github.com\nhttps://jane:{_s(20)}@bitbucket.org"),
    ("neo4j", f"NEO4J_AUTH=neo4j/{_pw()}"),
    ("cassandra", f"cqlsh cass01 -u cassandra -p '{_pw()}'"),
    ("influx", f"influx config create -n prod -u https://influx.acme.io -t {_url(86)}== -o acme"),
    ("nats creds", f"-----BEGIN NATS USER JWT-----\n{_jwt(alg='ES256')}\n------END NATS USER JWT------\n\n-----BEGIN USER NKEY SEED-----\nSU{_s(56, _UP)}\n------END USER NKEY SEED------"),
    ("mqtt", f"mosquitto_pub -h mqtt.acme.io -u sensor -P {_rand_pw(14)} -t temp -m 21"),
    ("proxy url", f"export HTTPS_PROXY=http://jdoe:{_pw()}@proxy.corp.acme.com:8080"),
    ("sftp in prose", f"the partner SFTP is sftp://acme_drop:{_plain_pw()}@sftp.partner.net:22 (they never rotate it)"),
]
for _name, _v in _CONN:
    F("conn", _name, _v)

# --- dotfiles that hold credentials ----------------------------------------------------------------
F("dotfile", "pgpass", f"db.acme.internal:5432:app:app_rw:{_pw()}")
F("dotfile", "pgpass wildcard", f"# ~/.pgpass\n*:*:*:postgres:{_rand_pw(16)}")
F("dotfile", "netrc", f"machine api.heroku.com\n  login jane@acme.io\n  password {_uid()}")
F("dotfile", "netrc one line", f"machine ftp.partner.net login acme password {_plain_pw()}")
F("dotfile", "npmrc", f"@acme:registry=https://npm.pkg.github.com\n//npm.pkg.github.com/:_authToken={'ghp_' + _s(36)}")
F("dotfile", "npmrc base64 auth", f"registry=https://nexus.acme.io/repository/npm/\n_auth={_b('deployer:' + _pw())}\nalways-auth=true")
F("dotfile", "pypirc", f"[distutils]\nindex-servers = internal\n\n[internal]\nrepository = https://pypi.acme.io/\nusername = ci\npassword = {_rand_pw(22)}")
F("dotfile", "pip conf url", f"[global]\nextra-index-url = https://ci:{_s(24)}@pypi.acme.io/simple/")
F("dotfile", "mycnf", f"[client]\nuser=root\npassword=\"{_pw()}\"\nhost=127.0.0.1")
F("dotfile", "htpasswd plain", f"# basic auth for staging, user/pass\nstaging:{_plain_pw()}")
F("dotfile", "gradle properties", f"ossrhUsername=acme\nossrhPassword={_rand_pw(20)}\nsigning.password={_pw()}")
F("dotfile", "maven settings", f"<server>\n  <id>nexus</id>\n  <username>deploy</username>\n  <password>{_rand_pw(18)}</password>\n</server>")
F("dotfile", "composer auth", json.dumps({"http-basic": {"repo.packagist.com": {"username": "token", "password": _hex(40)}}}, indent=2))
F("dotfile", "cargo credentials", f"[registry]\ntoken = \"cio{_s(32)}\"")
F("dotfile", "wpa supplicant", f"network={{\n    ssid=\"AcmeGuest\"\n    psk=\"{_plain_pw()}\"\n}}")
F("dotfile", "rclone conf", f"[b2]\ntype = b2\naccount = 005{_hex(22)}\nkey = K005{_s(27)}")
F("dotfile", "boto cfg", f"[Credentials]\naws_access_key_id = {'AKIA' + _s(16, _UP)}\naws_secret_access_key = {_b64(40)}")
F("dotfile", "git config url", f"[url \"https://x-access-token:{'ghs_' + _s(36)}@github.com/\"]\n    insteadOf = https://github.com/")
F("dotfile", "terraformrc", f"credentials \"app.terraform.io\" {{\n  token = \"{_s(14)}.atlasv1.{_s(67)}\"\n}}")
F("dotfile", "yarnrc", f"npmRegistryServer: \"https://npm.acme.io\"\nnpmAuthToken: \"{_uid()}\"")
F("dotfile", "s3cfg", f"[default]\naccess_key = {_s(20, _UP)}\nsecret_key = {_b64(40)}\nhost_base = s3.acme.io")

# --- config assignments in many languages and formats ---------------------------------------------
_ASSIGN = [
    ("env db password", f"DB_PASSWORD={_pw()}"),
    ("env quoted secret", f"export APP_SECRET='{_s(48)}'"),
    ("env jwt secret", f"JWT_SECRET={_b64(64)}"),
    ("env session secret", f"SESSION_SECRET=\"{_hex(64)}\""),
    ("env encryption key", f"ENCRYPTION_KEY={_key44()}"),
    ("env django", f"DJANGO_SECRET_KEY='django-insecure-{_s(50, _LOW + '!@#$%^&*(-_=+)')}'"),
    ("env rails", f"SECRET_KEY_BASE={_hex(128)}"),
    ("env laravel", f"APP_KEY=base64:{_key44()}"),
    ("env nextauth", f"NEXTAUTH_SECRET={_key44()}"),
    ("env api key generic", f"PAYMENTS_API_KEY={_s(32)}"),
    ("env admin password", f"ADMIN_PASSWORD={_plain_pw()}"),
    ("env redis password", f"REDIS_PASSWORD={_s(32)}"),
    ("env client secret", f"OAUTH_CLIENT_SECRET={_url(40)}"),
    ("env webhook secret", f"GITHUB_WEBHOOK_SECRET={_hex(40)}"),
    ("env private key hex", f"SIGNER_PRIVATE_KEY=0x{_hex(64)}"),
    ("env lowercase", f"db_pass={_pw()}"),
    ("env passphrase", f"GPG_PASSPHRASE=\"{_pw()} {_plain_pw()}\""),
    ("yaml password", f"database:\n  host: db.internal\n  username: app\n  password: {_pw()}"),
    ("yaml quoted", f"smtp:\n  user: alerts@acme.io\n  pass: \"{_rand_pw(16)}\""),
    ("yaml api key", f"openweather:\n  api_key: {_hex(32)}"),
    ("yaml token nested", f"integrations:\n  pagerduty:\n    routing_key: {_hex(32)}"),
    ("yaml compose env", f"services:\n  db:\n    image: postgres:16\n    environment:\n      POSTGRES_PASSWORD: {_pw()}"),
    ("yaml compose list", f"    environment:\n      - MYSQL_ROOT_PASSWORD={_plain_pw()}\n      - MYSQL_DATABASE=shop"),
    ("yaml github actions literal", f"    env:\n      NPM_TOKEN: npm_{_s(36)}"),
    ("yaml spring", f"spring:\n  datasource:\n    url: jdbc:mysql://db/app\n    username: app\n    password: {_pw()}"),
    ("yaml ansible", f"ansible_user: deploy\nansible_become_pass: {_pw()}"),
    ("json password", json.dumps({"db": {"user": "app", "password": _pw()}}, indent=2)),
    ("json apiKey", json.dumps({"apiKey": _s(32), "region": "eu"})),
    ("json client secret", json.dumps({"web": {"client_id": f"{_digits(12)}-{_s(32, _LOW)}.apps.googleusercontent.com", "client_secret": f"GOCSPX-{_url(28)}"}})),
    ("json token", '{"auth": {"token": "' + _s(40) + '"}}'),
    ("json appsettings", json.dumps({"ConnectionStrings": {"Default": f"Server=.;Database=Shop;User Id=sa;Password={_pw()};"}}, indent=2)),
    ("toml password", f"[database]\nurl = \"localhost\"\npassword = \"{_pw()}\""),
    ("toml token", f"[tool.poetry.http-basic.internal]\nusername = \"ci\"\npassword = \"{_s(30)}\""),
    ("toml secret key", f"[server]\nsecret_key = \"{_s(50)}\""),
    ("ini password", f"[mysql]\nhost = 10.0.0.5\nuser = backup\npassword = {_plain_pw()}"),
    ("ini api secret", f"[exchange]\napi_key = {_s(64)}\napi_secret = {_s(64)}"),
    ("properties", f"db.url=jdbc:h2:mem\ndb.user=sa\ndb.password={_pw()}"),
    ("xml attribute", f"<add name=\"Main\" connectionString=\"Data Source=sql01;Initial Catalog=App;User ID=app;Password={_pw()}\" />"),
    ("hcl", f"resource \"aws_db_instance\" \"main\" {{\n  username = \"admin\"\n  password = \"{_rand_pw(20)}\"\n}}"),
    ("tfvars", f"datadog_api_key = \"{_hex(32)}\"\ndatadog_app_key = \"{_hex(40)}\""),
    ("nginx", f"proxy_set_header Authorization \"Basic {_b('svc:' + _pw())}\";"),
    ("apache", f"SSLPassPhraseDialog exec:/bin/echo {_pw()}"),
    ("dockerfile env", f"FROM node:20\nENV NPM_TOKEN={'npm_' + _s(36)}\nRUN npm ci"),
    ("dockerfile arg", f"ARG DB_PASSWORD={_pw()}"),
    ("systemd env", f"[Service]\nEnvironment=\"API_TOKEN={_s(40)}\""),
    ("helm values", f"postgresql:\n  auth:\n    postgresPassword: {_pw()}\n    password: {_pw()}"),
    ("github actions step", f"- run: curl -fsS -H \"Authorization: token {'ghp_' + _s(36)}\" https://api.github.com/repos/acme/app"),
    ("makefile", f"deploy:\n\tTOKEN={_s(40)} ./deploy.sh"),
    ("powershell", f"$securePass = ConvertTo-SecureString '{_pw()}' -AsPlainText -Force"),
    ("cmd set", f"set DB_PASS={_pw()}"),
    ("fish set", f"set -gx OPENAI_API_KEY sk-proj-{_url(74)}T3BlbkFJ{_url(74)}"),
]
for _name, _v in _ASSIGN:
    F("assign", _name, _v)

# --- code -------------------------------------------------------------------------------------------
_CODE = [
    ("python kwarg", f"client = Client(api_key=\"{_s(40)}\", timeout=30)"),
    ("python dict", f"HEADERS = {{'Authorization': 'Bearer {_url(48)}'}}"),
    ("python psycopg", f"conn = psycopg.connect(host='db', user='etl', password='{_pw()}')"),
    ("python requests auth", f"r = requests.get(url, auth=('admin', '{_pw()}'))"),
    ("python constant", f"SECRET = b'{_s(32)}'"),
    ("python settings", f"SECRET_KEY = '{_s(50, _LOW + '!@#$%^&*(-_=+)')}'"),
    ("js const", f"const apiKey = '{_s(32)}';"),
    ("js object", f"const config = {{\n  user: 'svc',\n  password: '{_pw()}',\n  host: 'db'\n}};"),
    ("js fetch header", f"fetch(url, {{ headers: {{ 'X-API-Key': '{_s(40)}' }} }})"),
    ("ts process env default", f"const token = process.env.TOKEN ?? '{_s(40)}';"),
    ("go struct", f"cfg := Config{{\n\tUser:     \"admin\",\n\tPassword: \"{_pw()}\",\n}}"),
    ("go const", f"const apiToken = \"{_s(40)}\""),
    ("java setter", f"dataSource.setPassword(\"{_pw()}\");"),
    ("java annotation", f"@Value(\"${{api.key:{_s(32)}}}\")\nprivate String apiKey;"),
    ("kotlin", f"val secret = \"{_hex(64)}\""),
    ("rust", f"let token = \"{_s(40)}\";\nlet client = Client::new(token);"),
    ("ruby", f"Stripe.api_key = 'sk_live_51{_s(97)}'"),
    ("ruby hash", f"config.smtp_settings = {{ user_name: 'apikey', password: 'SG.{_url(22)}.{_url(43)}' }}"),
    ("php define", f"define('DB_PASSWORD', '{_pw()}');"),
    ("php array", f"'password' => '{_pw()}',"),
    ("csharp", f"var cred = new NetworkCredential(\"svc_backup\", \"{_pw()}\");"),
    ("swift", f"let apiKey = \"{_s(40)}\""),
    ("sql create user", f"CREATE USER reporting WITH PASSWORD '{_pw()}';"),
    ("sql alter identified", f"ALTER USER 'app'@'%' IDENTIFIED BY '{_pw()}';"),
    ("sql grant", f"GRANT ALL ON app.* TO 'ops'@'localhost' IDENTIFIED BY '{_plain_pw()}';"),
    ("bash variable", f"TOKEN=\"{_s(40)}\"\ncurl -H \"Authorization: Bearer $TOKEN\" https://api.acme.io/v1/me"),
    ("lua", f"local secret = \"{_hex(48)}\""),
    ("elixir", f"config :app, App.Repo, password: \"{_pw()}\""),
    ("scala", f"val password = \"{_pw()}\""),
    ("r", f"Sys.setenv(OPENAI_API_KEY = \"sk-proj-{_url(74)}T3BlbkFJ{_url(74)}\")"),
    ("dart", f"const String apiKey = '{_s(39)}';"),
    ("haskell", f"secretKey = \"{_s(44)}\" :: ByteString"),
    ("nim hmac key", f"let hmacKey = \"{_b64(44)}\""),
    ("jupyter cell", f"In [3]: os.environ['HF_TOKEN'] = 'hf_{_s(34)}'"),
]
for _name, _v in _CODE:
    F("code", _name, _v)

# --- CLI flags and shell history ----------------------------------------------------------------------
_CLI = [
    ("mysql -p", f"mysql -h 10.0.1.4 -u root -p{_pw()} shop < dump.sql"),
    ("mysql --password", f"mysqldump --user=backup --password='{_pw()}' --all-databases > all.sql"),
    ("pgpassword env", f"PGPASSWORD={_rand_pw(18)} psql -h db -U app -c 'select 1'"),
    ("curl -u", f"curl -u admin:{_pw()} https://jenkins.acme.io/api/json"),
    ("curl bearer", f"curl -H 'Authorization: Bearer {_url(64)}' https://api.acme.io/v2/items"),
    ("curl api key header", f"curl https://api.acme.io/v1/report -H \"x-api-key: {_s(40)}\""),
    ("curl data password", f"curl -X POST https://auth.acme.io/token -d 'grant_type=password&username=jane&password={_pw()}'"),
    ("curl client creds", f"curl -d client_id=backend -d client_secret={_url(32)} -d grant_type=client_credentials https://sso.acme.io/token"),
    ("sshpass", f"sshpass -p '{_pw()}' ssh deploy@10.0.0.12"),
    ("redis-cli -a", f"redis-cli -h cache -a {_s(32)} FLUSHALL"),
    ("htpasswd -b", f"htpasswd -b -c /etc/nginx/.htpasswd admin {_pw()}"),
    ("openssl pass", f"openssl pkcs12 -export -in cert.pem -inkey key.pem -out bundle.p12 -passout pass:{_pw()}"),
    ("7z password", f"7z a -p{_pw()} backup.7z ./exports"),
    ("zip -P", f"zip -P {_plain_pw()} secrets.zip creds.txt"),
    ("java keytool", f"keytool -importkeystore -srckeystore a.jks -srcstorepass {_pw()} -deststorepass {_pw()}"),
    ("helm repo add", f"helm repo add acme https://charts.acme.io --username ci --password {_s(24)}"),
    ("npm login token", f"npm config set //registry.npmjs.org/:_authToken {'npm_' + _s(36)}"),
    ("gh secret set", f"gh secret set DEPLOY_KEY --body '{_s(40)}'"),
    ("vault kv put", f"vault kv put secret/app db_password='{_pw()}'"),
    ("ansible extra vars", f"ansible-playbook site.yml -e 'ansible_password={_pw()}'"),
    ("net use", f"net use Z: \\\\fs01\\share /user:ACME\\jdoe {_pw()}"),
    ("mount cifs", f"mount -t cifs //nas/backup /mnt/b -o username=backup,password={_plain_pw()}"),
    ("rdp cmd", f"xfreerdp /v:10.0.0.9 /u:Administrator /p:'{_pw()}'"),
    ("wget creds", f"wget --user=ci --password={_rand_pw(16)} https://artifacts.acme.io/build.tgz"),
    ("psql url cli", f"psql 'postgresql://postgres:{_rand_pw(20)}@localhost:5433/postgres'"),
    ("docker run env", f"docker run -e POSTGRES_PASSWORD={_pw()} -p 5432:5432 postgres:16"),
    ("heroku config set", f"heroku config:set STRIPE_SECRET=sk_live_51{_s(97)} -a acme-api"),
    ("fly secrets set", f"fly secrets set DATABASE_URL=postgres://app:{_rand_pw(18)}@db.flycast:5432/app"),
    ("wrangler secret", f"echo '{_s(40)}' | npx wrangler secret put API_TOKEN"),
    ("shell history", f"  512  export OPENAI_API_KEY=sk-proj-{_url(74)}T3BlbkFJ{_url(74)}\n  513  python eval.py"),
]
for _name, _v in _CLI:
    F("cli", _name, _v)

# --- HTTP headers, cookies, URLs with tokens ----------------------------------------------------------
_HTTP = [
    ("basic header", f"Authorization: Basic {_b('jane@acme.io:' + _pw())}"),
    ("bearer opaque", f"Authorization: Bearer {_s(64)}"),
    ("bearer jwt", f"Authorization: Bearer {_jwt()}"),
    ("token header", f"Authorization: token {_hex(40)}"),
    ("x-api-key", f"X-API-Key: {_s(48)}"),
    ("apikey header", f"apikey: {_jwt({'iss': 'supabase', 'ref': _s(20, _LOW), 'role': 'service_role', 'iat': 1700000000, 'exp': 2000000000})}"),
    ("cookie session", f"Cookie: sessionid={_s(32, _LOW)}; csrftoken={_s(64)}"),
    ("set-cookie", f"Set-Cookie: __Secure-next-auth.session-token={_url(200)}; Path=/; HttpOnly"),
    ("url access_token", f"https://graph.facebook.com/v19.0/me?access_token=EAAG{_s(160)}"),
    ("url api_key", f"https://api.openweathermap.org/data/2.5/weather?q=Oslo&appid={_hex(32)}"),
    ("url key param", f"https://maps.googleapis.com/maps/api/geocode/json?address=Oslo&key=AIza{_url(35)}"),
    ("url token param", f"wss://stream.acme.io/v1/feed?token={_url(48)}"),
    ("url jwt param", f"https://app.acme.io/magic-login?jwt={_jwt()}"),
    ("url user pass", f"https://admin:{_pw()}@grafana.acme.io/api/dashboards"),
    ("slack webhook", f"https://hooks.slack.com/services/T{_s(10, _UP)}/B{_s(10, _UP)}/{_s(24)}"),
    ("discord webhook", f"https://discord.com/api/webhooks/{_digits(19)}/{_url(68)}"),
    ("teams webhook", f"https://acme.webhook.office.com/webhookb2/{_uid()}@{_uid()}/IncomingWebhook/{_hex(32)}/{_uid()}/V2{_url(43)}"),
    ("zapier hook", f"https://hooks.zapier.com/hooks/catch/{_digits(7)}/{_s(7, _LOW)}/"),
    ("google chat webhook", f"https://chat.googleapis.com/v1/spaces/AAAA{_url(7)}/messages?key=AIza{_url(35)}&token={_url(43)}%3D"),
    ("mattermost webhook", f"https://chat.acme.io/hooks/{_s(26, _LOW)}"),
    ("pagerduty events url", f"curl -X POST https://events.pagerduty.com/v2/enqueue -d '{{\"routing_key\":\"{_hex(32)}\",\"event_action\":\"trigger\"}}'"),
    ("ifttt", f"https://maker.ifttt.com/trigger/door/with/key/{_url(43)}"),
    ("telegram api url", f"https://api.telegram.org/bot{_digits(10)}:AA{_url(33)}/sendMessage?chat_id=-100{_digits(10)}"),
    ("signed gcs url", f"https://storage.googleapis.com/acme-exp/a.csv?X-Goog-Algorithm=GOOG4-RSA-SHA256&X-Goog-Credential=svc%40acme.iam.gserviceaccount.com%2F20261205%2Fauto%2Fstorage%2Fgoog4_request&X-Goog-Date=20261205T000000Z&X-Goog-Expires=604800&X-Goog-SignedHeaders=host&X-Goog-Signature={_hex(512)}"),
    ("cloudinary url", f"CLOUDINARY_URL=cloudinary://{_digits(15)}:{_url(27)}@acme"),
    ("sentry dsn with secret", f"https://{_hex(32)}:{_hex(32)}@sentry.acme.io/7"),
    ("http request dump", f"POST /v1/charges HTTP/1.1\nHost: api.stripe.com\nAuthorization: Bearer sk_live_51{_s(97)}\nContent-Type: application/x-www-form-urlencoded"),
    ("grpc metadata", f"grpcurl -H 'authorization: Bearer {_url(60)}' api.acme.io:443 acme.v1.Users/List"),
    ("websocket proto", f"new WebSocket(url, ['access_token', '{_url(48)}'])"),
]
for _name, _v in _HTTP:
    F("http", _name, _v)

# --- private keys of every kind, and fragments ---------------------------------------------------------
F("privkey", "rsa pem", "-----BEGIN RSA PRIVATE KEY-----\n" + _pem_body(1190) + "\n-----END RSA PRIVATE KEY-----")
F("privkey", "ec pem", "-----BEGIN EC PRIVATE KEY-----\n" + _pem_body(121) + "\n-----END EC PRIVATE KEY-----")
F("privkey", "pkcs8", "-----BEGIN PRIVATE KEY-----\n" + _pem_body(1218) + "\n-----END PRIVATE KEY-----")
F("privkey", "encrypted pkcs8", "-----BEGIN ENCRYPTED PRIVATE KEY-----\n" + _pem_body(1298) + "\n-----END ENCRYPTED PRIVATE KEY-----")
F("privkey", "openssh", "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n" + _pem_body(300) + "\n-----END OPENSSH PRIVATE KEY-----")
F("privkey", "dsa pem", "-----BEGIN DSA PRIVATE KEY-----\n" + _pem_body(440) + "\n-----END DSA PRIVATE KEY-----")
F("privkey", "pgp private", "-----BEGIN PGP PRIVATE KEY BLOCK-----\n\nlQVYBGYx" + _pem_body(900) + "\n=" + _b64(4) + "\n-----END PGP PRIVATE KEY BLOCK-----")
F("privkey", "putty ppk v3", "PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nComment: eddsa-key-20261201\nPublic-Lines: 2\n" + _pem_body(51) + "\nPrivate-Lines: 1\n" + _b64(44) + "\nPrivate-MAC: " + _hex(64))
F("privkey", "putty ppk v2 rsa", "PuTTY-User-Key-File-2: ssh-rsa\nEncryption: none\nComment: rsa-key-20190101\nPublic-Lines: 6\n" + _pem_body(279) + "\nPrivate-Lines: 14\n" + _pem_body(800) + "\nPrivate-MAC: " + _hex(40))
F("privkey", "wireguard", f"[Interface]\nPrivateKey = {_key44()}\nAddress = 10.8.0.2/24\n\n[Peer]\nPublicKey = {_key44()}\nEndpoint = vpn.acme.io:51820")
F("privkey", "wireguard preshared", f"[Peer]\nPublicKey = {_key44()}\nPresharedKey = {_key44()}\nAllowedIPs = 0.0.0.0/0")
F("privkey", "pem body fragment", "the middle of the deploy key (header got cut when I pasted):\n" + _pem_body(600))
F("privkey", "pem no newlines", "-----BEGIN RSA PRIVATE KEY----- " + base64.b64encode(_bytes(600)).decode() + " -----END RSA PRIVATE KEY-----")
F("privkey", "pem in code fence", "```\n-----BEGIN PRIVATE KEY-----\n" + _pem_body(200) + "\n```\n(truncated)")
F("privkey", "pem header only then body", "-----BEGIN OPENSSH PRIVATE KEY-----\n" + _pem_body(180) + "\n...")
F("privkey", "jwk private", json.dumps({"kty": "EC", "crv": "P-256", "x": _url(43), "y": _url(43), "d": _url(43), "kid": "sig-2026"}, indent=2))
F("privkey", "jwk rsa private", json.dumps({"kty": "RSA", "n": _url(342), "e": "AQAB", "d": _url(342), "p": _url(171), "q": _url(171)}))
F("privkey", "eth private key", f"metamask export for the test wallet: 0x{_hex(64)}")
F("privkey", "eth private key env", f"DEPLOYER_PRIVATE_KEY={_hex(64)}")
F("privkey", "bitcoin wif", f"wallet import format key: 5{_b58(50)}")
F("privkey", "bitcoin wif compressed", f"privkey: K{_b58(51)}")
F("privkey", "xprv", f"xprv9s21ZrQH143K{_b58(95)}")
F("privkey", "solana keypair", "id.json for the devnet deployer: [" + ",".join(str(_rng.randrange(256)) for _ in range(64)) + "]")
F("privkey", "solana base58 secret", f"phantom export private key: {_b58(88)}")
F("privkey", "tor hs key", "== ed25519v1-secret: type0 ==\n" + base64.b64encode(_bytes(64)).decode())
F("privkey", "ssh key in json", json.dumps({"deploy_key": "-----BEGIN OPENSSH PRIVATE KEY-----\n" + _pem_body(400) + "\n-----END OPENSSH PRIVATE KEY-----"}))
F("privkey", "pem base64 wrapped", f"SSH_PRIVATE_KEY_B64={_b('-----BEGIN OPENSSH PRIVATE KEY-----' + chr(10) + _pem_body(300) + chr(10) + '-----END OPENSSH PRIVATE KEY-----')}")
F("privkey", "minisign secret", f"untrusted comment: minisign encrypted secret key\nRWRTY0Iy{_b64(204)}")
F("privkey", "signify secret", f"untrusted comment: signify secret key\nRWRCSwAAA{_b64(140)}")
F("privkey", "ssh key passphrase", f"the passphrase for ~/.ssh/id_ed25519 is {_pw()}")
F("privkey", "keystore password", f"android release keystore: storePassword={_pw()} keyPassword={_pw()}")
F("privkey", "nkey seed", f"SU{_s(56, _UP)}")
F("privkey", "libsodium secret hex", f"ed25519 signing key (seed+pk) {_hex(128)}")

# --- JWTs ------------------------------------------------------------------------------------------
F("jwt", "bare jwt", f"token from the staging login: {_jwt()}")
F("jwt", "supabase service role", f"SUPABASE_SERVICE_ROLE_KEY={_jwt({'iss': 'supabase', 'ref': _s(20, _LOW), 'role': 'service_role', 'iat': 1700000000, 'exp': 2000000000})}")
F("jwt", "rs256 jwt in json", json.dumps({"access_token": _jwt(alg="RS256"), "token_type": "Bearer", "expires_in": 3600}))
F("jwt", "jwt in local storage dump", f"localStorage.getItem('auth') => \"{_jwt()}\"")
F("jwt", "jwt split lines", "id token (wrapped by the terminal):\n" + (lambda t: t[:60] + "\n" + t[60:120] + "\n" + t[120:])(_jwt()))
F("jwt", "jwe", f"encrypted token: eyJhbGciOiJSU0EtT0FFUCIsImVuYyI6IkEyNTZHQ00ifQ.{_url(342)}.{_url(16)}.{_url(200)}.{_url(22)}")
F("jwt", "refresh token yaml", f"oauth:\n  refresh_token: {_jwt()}")
F("jwt", "jwt secret hs256", f"the HS256 signing secret for the api is {_s(48)}")

# --- seed phrases and crypto --------------------------------------------------------------------------
F("seed", "bip39 12", f"wallet recovery phrase: {_seed(12)}")
F("seed", "bip39 24", f"ledger backup (24 words):\n{_seed(24)}")
F("seed", "bip39 numbered", "seed words:\n" + "\n".join(f"{i + 1}. {w}" for i, w in enumerate(_seed(12).split())))
F("seed", "bip39 mnemonic env", f"MNEMONIC=\"{_seed(12)}\"")
F("seed", "bip39 in js", f"const wallet = ethers.Wallet.fromPhrase('{_seed(12)}');")
F("seed", "bip39 two rows", "metamask words\n" + _seed(6) + "\n" + _seed(6))
F("seed", "bip39 18 prose", f"the cold wallet's phrase is {_seed(18)} -- store offline")
F("seed", "bip39 comma", "seed: " + ", ".join(_seed(12).split()))

# --- prose: passwords and tokens in sentences, many languages -----------------------------------------
_PROSE = [
    ("my password is", f"Note to self: my password for the staging admin is {_pw()}"),
    ("wifi password", f"Office wifi: AcmeHQ, password {_plain_pw()}"),
    ("pw colon", f"router login admin pw: {_pw()}"),
    ("login slash", f"jenkins login: admin / {_pw()}"),
    ("creds are", f"creds for the demo tenant are demo@acme.io and {_pw()}"),
    ("user pass pair", f"user: svc_reports pass: {_rand_pw(16)}"),
    ("passphrase", f"the GPG passphrase is \"{_plain_pw()} {_plain_pw()}\""),
    ("password was reset to", f"IT reset my VPN password to {_pw()} - change on first login"),
    ("token is", f"The CI token is {_s(40)}, it expires in January."),
    ("secret is", f"webhook signing secret is {_hex(48)}"),
    ("api key for", f"api key for the weather service: {_hex(32)}"),
    ("correct horse style", f"my password: {_plain_pw()}{_plain_pw()}"),
    ("passphrase words", "the disk encryption passphrase is correct-staple-battery-horse-" + _s(4, _LOW)),
    ("remember to use", f"remember to use {_pw()} for the root account on the new NAS"),
    ("in parentheses", f"SSH into the box (root, pw {_pw()}) and restart nginx"),
    ("dash separated", f"db creds — user: app — password: {_pw()}"),
    ("french", f"Le mot de passe du serveur est {_pw()}"),
    ("german", f"Passwort für den Testserver: {_pw()}"),
    ("spanish", f"La contraseña de la base de datos es {_pw()}"),
    ("portuguese", f"senha do painel: {_pw()}"),
    ("italian", f"la password dell'account admin è {_pw()}"),
    ("dutch", f"wachtwoord voor de router: {_pw()}"),
    ("polish", f"hasło do serwera: {_pw()}"),
    ("russian", f"пароль от базы: {_pw()}"),
    ("japanese", f"ステージング環境のパスワード：{_pw()}"),
    ("chinese", f"数据库密码是 {_pw()}"),
    ("korean", f"관리자 비밀번호: {_pw()}"),
    ("turkish", f"sunucu şifresi: {_pw()}"),
    ("swedish", f"lösenordet till wifi är {_plain_pw()}"),
    ("ukrainian", f"токен доступу: {_s(40)}"),
    ("french token", f"la clé API de production : {_s(40)}"),
    ("german key", f"API-Schlüssel für Prod: {_s(40)}"),
    ("spanish token", f"el token de acceso es {_url(40)}"),
    ("agent memory style", f"User shared their Anthropic key ({'sk-ant-api03-' + _url(93) + 'AA'}) for the eval script; use it for batch runs."),
    ("agent memory pw", f"- The user's NAS admin password is {_pw()} (they asked me to remember it)"),
    ("pin code", f"Door alarm code and safe PIN: alarm 4821, safe PIN {_digits(6)}; bank card PIN {_digits(4)}"),
    ("otp recovery codes", "GitHub 2FA recovery codes:\n" + "\n".join(f"{_hex(5)}-{_hex(5)}" for _ in range(8))),
    ("totp seed", f"TOTP secret for the shared admin account: {_b32(32)}"),
    ("otpauth uri", f"otpauth://totp/Acme:ops@acme.io?secret={_b32(32)}&issuer=Acme"),
    ("app password google", f"gmail app password for the alert script: {_s(4, string.ascii_lowercase)} {_s(4, string.ascii_lowercase)} {_s(4, string.ascii_lowercase)} {_s(4, string.ascii_lowercase)}"),
    ("apple app specific", f"app-specific password for notarytool: {_s(4, string.ascii_lowercase)}-{_s(4, string.ascii_lowercase)}-{_s(4, string.ascii_lowercase)}-{_s(4, string.ascii_lowercase)}"),
    ("bank login", f"online banking: customer number {_digits(10)}, password {_pw()}"),
    ("pass phrase sentence", f"Vault unseal key 1: {_b64(44)}"),
    ("unseal keys", "Unseal Key 1: " + _b64(44) + "\nUnseal Key 2: " + _b64(44) + "\nInitial Root Token: hvs." + _url(24)),
    ("keepass master", f"KeePass master password: {_pw()}"),
    ("encryption key prose", f"the AES-256 key for the backups is {_hex(64)}"),
    ("restic password", f"RESTIC_PASSWORD={_plain_pw()}-{_plain_pw()}"),
    ("borg passphrase", f"export BORG_PASSPHRASE='{_pw()}'"),
    ("license key", f"JetBrains license activation code: {_s(5, _UP)}-{_s(5, _UP)}-{_s(5, _UP)}-{_s(5, _UP)}-{_s(5, _UP)}"),
    ("short pw in prose", f"the pw is {_s(10)}"),
]
for _name, _v in _PROSE:
    F("prose", _name, _v)

# --- markdown tables and fences ----------------------------------------------------------------------
F("markdown", "table password col", f"| service | user | password |\n|---|---|---|\n| grafana | admin | {_pw()} |\n| kibana | elastic | {_pw()} |")
F("markdown", "table token col", f"| env | token |\n|-----|-------|\n| prod | `{_s(40)}` |\n| stage | `{_s(40)}` |")
F("markdown", "table key value", f"| key | value |\n|---|---|\n| DB_HOST | db.internal |\n| DB_PASSWORD | {_pw()} |")
F("markdown", "table api keys", f"| vendor | key |\n|---|---|\n| groq | gsk_{_s(52)} |\n| tavily | tvly-{_s(32)} |")
F("markdown", "fenced env", f"```env\nAPI_URL=https://api.acme.io\nAPI_SECRET={_s(48)}\n```")
F("markdown", "fenced json", f"```json\n{{\n  \"username\": \"bot\",\n  \"password\": \"{_rand_pw(20)}\"\n}}\n```")
F("markdown", "inline code pw", f"Log in with `admin` / `{_pw()}` on first boot.")
F("markdown", "bullet list creds", f"- host: 10.0.4.2\n- user: pi\n- password: {_plain_pw()}")
F("markdown", "definition list", f"**Username**: ops-bot\n**Password**: {_pw()}")
F("markdown", "heading and value", f"## Staging API key\n\n{_s(40)}")
F("markdown", "blockquote", f"> From Sam on Slack: the prod read-replica password is {_pw()}")
F("markdown", "html details", f"<details><summary>creds</summary>\n\nroot / {_pw()}\n\n</details>")

# --- encoded: base64, hex, url-encoded --------------------------------------------------------------
F("encoded", "base64 user pass", f"the basic auth string is {_b('deploy:' + _pw())}")
F("encoded", "base64 of env line", f"base64 of the .env: {_b('DB_PASSWORD=' + _pw() + chr(10) + 'API_KEY=' + _s(32))}")
F("encoded", "base64 of ghp", f"GH_TOKEN_B64={_b('ghp_' + _s(36))}")
F("encoded", "base64 of json creds", f"CREDENTIALS_JSON={_b(json.dumps({'client_secret': _s(32), 'refresh_token': _url(60)}))}")
F("encoded", "hex of password", f"password (hex): {'token=' .encode().hex()}{_pw().encode().hex()}")
F("encoded", "url-encoded password", f"postgres://app:{_pw().replace('!', '%21').replace('@', '%40').replace('#', '%23').replace('$', '%24').replace('&', '%26').replace('?', '%3F').replace('%', '%25', 0)}@db:5432/app")
F("encoded", "k8s data token", f"data:\n  token: {_b(_s(40))}")
F("encoded", "base64 private key", f"TLS_KEY={_b('-----BEGIN PRIVATE KEY-----' + chr(10) + _pem_body(300) + chr(10) + '-----END PRIVATE KEY-----')}")
F("encoded", "base64 aws creds file", f"aws creds b64: {_b('[default]' + chr(10) + 'aws_access_key_id=AKIA' + _s(16, _UP) + chr(10) + 'aws_secret_access_key=' + _b64(40))}")
F("encoded", "escaped json string", '"{\\"password\\": \\"' + _pw() + '\\"}"')
F("encoded", "reversed hint", f"stored as hex: 0x{_hex(64)} (the HMAC key)")

# --- split across lines and fields ---------------------------------------------------------------------
_tok = "ghp_" + _s(36)
F("split", "token split in two lines", f"github token part 1: {_tok[:20]}\npart 2: {_tok[20:]}")
_sk2 = "sk-proj-" + _url(74) + "T3BlbkFJ" + _url(74)
F("split", "key wrapped at 80", "OPENAI_API_KEY=" + _sk2[:65] + "\n" + _sk2[65:])
F("split", "user in description pw in body", f"password: {_pw()}", description="staging postgres, user app_rw")
F("split", "password in description", "rotate monthly", description=f"NAS admin password {_pw()}")
F("split", "token in key", "the token for the build bot", key=f"ghp_{_s(36)}")
F("split", "token in meta tag", "build bot notes", meta={"tags": ["ci", f"glpat-{_url(20)}"]})
F("split", "host user pass lines", f"host: db.acme.io\nuser: reporting\n\n(pass below)\n\n{_pw()}")
F("split", "access key and secret separate paragraphs", f"Access key: AKIA{_s(16, _UP)}\n\nSome notes about the bucket policy and lifecycle rules.\n\nSecret: {_b64(40)}")
F("split", "string concat", f"key = \"sk_live_51{_s(40)}\" +\n      \"{_s(57)}\"")
F("split", "key split with spaces", "stripe key: " + " ".join(("sk_live_51" + _s(97))[i:i + 16] for i in range(0, 107, 16)))
F("split", "pem in description", "see the body", description="-----BEGIN EC PRIVATE KEY----- " + base64.b64encode(_bytes(121)).decode())
F("split", "password in title", f"# Wifi password {_plain_pw()}\n\nFor the guest network.")

# --- misc realistic notes ------------------------------------------------------------------------------
F("misc", "docker compose full", f"version: '3'\nservices:\n  api:\n    environment:\n      DATABASE_URL: postgres://api:{_rand_pw(18)}@db/api\n      SECRET_KEY_BASE: {_hex(128)}")
F("misc", "terraform state fragment", json.dumps({"type": "aws_iam_access_key", "instances": [{"attributes": {"id": "AKIA" + _s(16, _UP), "secret": _b64(40), "user": "ci"}}]}, indent=2))
F("misc", "crontab with creds", f"0 3 * * * PGPASSWORD='{_pw()}' pg_dump -h db app > /backups/app.sql")
F("misc", "python traceback with url", f"sqlalchemy.exc.OperationalError: (psycopg.OperationalError) connection failed: postgresql://etl:{_pw()}@10.2.0.8:5432/dw")
F("misc", "log line with token", f"2026-12-04T10:22:31Z DEBUG request headers={{'Authorization': 'Bearer {_url(64)}'}}")
F("misc", "env dump", f"HOME=/home/ci\nPATH=/usr/bin\nCI_JOB_TOKEN={_url(40)}\nSHELL=/bin/bash")
F("misc", "ssh config with password comment", f"Host bastion\n  HostName 52.1.2.3\n  User ec2-user\n  # password {_pw()}")
F("misc", "jenkins credentials xml", f"<com.cloudbees.plugins.credentials.impl.UsernamePasswordCredentialsImpl>\n  <username>deploy</username>\n  <password>{_rand_pw(18)}</password>\n</com.cloudbees.plugins.credentials.impl.UsernamePasswordCredentialsImpl>")
F("misc", "postman env", json.dumps({"values": [{"key": "baseUrl", "value": "https://api.acme.io"}, {"key": "apiToken", "value": _s(40), "type": "secret"}]}))
F("misc", "insomnia", f"auth:\n  type: bearer\n  token: {_url(56)}")
F("misc", "vscode settings", json.dumps({"sqltools.connections": [{"name": "prod", "server": "db", "username": "app", "password": _pw()}]}, indent=2))
F("misc", "rabbitmq definitions", json.dumps({"users": [{"name": "app", "password": _rand_pw(20), "tags": ""}]}))
F("misc", "csv export", f"service,username,password\nvpn,jdoe,{_pw()}\nmail,jdoe,{_pw()}")
F("misc", "keychain dump", f"security find-generic-password -s 'acme-api' -w\n{_s(40)}")
F("misc", "airflow connection", f"AIRFLOW_CONN_WAREHOUSE='postgres://airflow:{_pw()}@warehouse:5432/dw'")
F("misc", "celery broker", f"CELERY_BROKER_URL = 'redis://:{_s(32)}@redis:6379/0'")
F("misc", "grafana ini", f"[security]\nadmin_user = admin\nadmin_password = {_pw()}")
F("misc", "pg hba plus", f"ALTER ROLE replicator WITH REPLICATION LOGIN PASSWORD '{_pw()}';")
F("misc", "mongo shell", f"mongosh \"mongodb://root:{_rand_pw(16)}@mongo-0.mongo:27017/admin\"")
F("misc", "sendgrid in nodemailer", f"auth: {{ user: 'apikey', pass: 'SG.{_url(22)}.{_url(43)}' }}")


# ================================ LOOK-ALIKES =====================================================

_LOOKS: list[tuple[str, str, str]] = [
    # hashes, ids, checksums
    ("ids", "commit sha prose", f"Fixed in {_hex(40)}; reverted in {_hex(40)}."),
    ("ids", "short shas", f"git log --oneline\n{_hex(7)} fix retry\n{_hex(7)} bump deps\n{_hex(7)} docs"),
    ("ids", "uuid list", f"tenant ids: {_uid()}, {_uid()}, {_uid()}"),
    ("ids", "request id", f"request_id={_uid()} status=500 path=/v1/orders"),
    ("ids", "sha256sum", f"{_hex(64)}  vault-mem-0.9.0.tar.gz"),
    ("ids", "sha512 checksum", f"SHA512 ({'release.zip'}) = {_hex(128)}"),
    ("ids", "md5 etag", f"ETag: \"{_hex(32)}\""),
    ("ids", "docker digest", f"image: ghcr.io/acme/api@sha256:{_hex(64)}"),
    ("ids", "npm integrity", f"\"integrity\": \"sha512-{_b64(86)}==\""),
    ("ids", "go sum", f"golang.org/x/net v0.31.0 h1:{_b64(43)}=\ngolang.org/x/net v0.31.0/go.mod h1:{_b64(43)}="),
    ("ids", "pip hash", f"requests==2.32.3 \\\n    --hash=sha256:{_hex(64)}"),
    ("ids", "cargo lock checksum", f"[[package]]\nname = \"serde\"\nversion = \"1.0.215\"\nchecksum = \"{_hex(64)}\""),
    ("ids", "sri", f"<script src=\"https://cdn.acme.io/lib.js\" integrity=\"sha384-{_b64(64)}\" crossorigin=\"anonymous\"></script>"),
    ("ids", "mongo objectid", f"db.orders.find({{_id: ObjectId(\"{_hex(24)}\")}})"),
    ("ids", "ulid", f"event {_s(26, '0123456789ABCDEFGHJKMNPQRSTVWXYZ')} processed"),
    ("ids", "ksuid", f"job id {_s(27)} finished in 3.2s"),
    ("ids", "nanoid", f"short link id: {_url(21)}"),
    ("ids", "stripe object ids", f"customer cus_{_s(14)} paid invoice in_{_s(24)} via pi_{_s(24)}"),
    ("ids", "stripe event id", f"webhook retried evt_{_s(24)} three times"),
    ("ids", "aws arn", f"arn:aws:iam::{_digits(12)}:role/ci-deployer"),
    ("ids", "aws resource ids", f"i-0{_hex(16)} in subnet-0{_hex(16)}, sg-0{_hex(16)}, ami-0{_hex(16)}"),
    ("ids", "aws account id", f"prod account {_digits(12)}, staging {_digits(12)}"),
    ("ids", "trace parent", f"traceparent: 00-{_hex(32)}-{_hex(16)}-01"),
    ("ids", "k8s uid", f"metadata:\n  uid: {_uid()}\n  resourceVersion: \"{_digits(7)}\""),
    ("ids", "container id", f"docker ps -q\n{_hex(12)}\n{_hex(12)}\ndocker inspect {_hex(64)}"),
    ("ids", "ipfs cid", f"pinned bafybei{_s(52, 'abcdefghijklmnopqrstuvwxyz234567')}"),
    ("ids", "magnet link", f"magnet:?xt=urn:btih:{_hex(40)}&dn=ubuntu-24.04-desktop-amd64.iso"),
    ("ids", "bitcoin txid", f"tx {_hex(64)} confirmed in block 870001"),
    ("ids", "eth tx hash", f"deploy tx: 0x{_hex(64)} (etherscan)"),
    ("ids", "eth address", f"send testnet ETH to 0x{_hex(40)}"),
    ("ids", "btc address", f"donations: bc1q{_s(38, 'qpzry9x8gf2tvdw0s3jn54khce6mua7l')}"),
    ("ids", "solana address", f"program id {_b58(44)}"),
    ("ids", "google doc id", f"https://docs.google.com/document/d/1{_url(43)}/edit"),
    ("ids", "google drive folder", f"https://drive.google.com/drive/folders/1{_url(32)}"),
    ("ids", "figma file url", f"https://www.figma.com/design/{_s(22)}/Checkout-v3?node-id=12-345"),
    ("ids", "notion page url", f"https://www.notion.so/acme/Onboarding-{_hex(32)}"),
    ("ids", "youtube id", f"talk recording: https://www.youtube.com/watch?v={_url(11)}"),
    ("ids", "slack ids", f"channel C0{_s(9, _UP)}, user U0{_s(9, _UP)}, ts 1733400000.{_digits(6)}"),
    ("ids", "sentry issue", f"https://acme.sentry.io/issues/{_digits(10)}/?project={_digits(7)}"),
    ("ids", "gpg fingerprint", f"key fingerprint: {' '.join(_hex(4).upper() for _ in range(10))}"),
    ("ids", "ssh fingerprint", f"ED25519 key fingerprint is SHA256:{_b64(43)}."),
    ("ids", "tls cert sha", f"SHA-256 Fingerprint: {':'.join(_hex(2).upper() for _ in range(32))}"),
    ("ids", "git tree object", f"100644 blob {_hex(40)}\tREADME.md\n040000 tree {_hex(40)}\tsrc"),
    ("ids", "lfs pointer", f"version https://git-lfs.github.com/spec/v1\noid sha256:{_hex(64)}\nsize 1048576"),
    ("ids", "build id", f"Build ID: {_hex(40)} (gnu)"),
    ("ids", "playwright trace", f"trace-{_hex(16)}.zip attached to run {_digits(10)}"),
    ("ids", "hash table in md", f"| file | sha256 |\n|---|---|\n| a.whl | {_hex(64)} |\n| b.whl | {_hex(64)} |"),
    ("ids", "content hash filenames", f"dist/assets/index-{_url(8)}.js\ndist/assets/vendor-{_url(8)}.css"),
    ("ids", "webpack chunk", f"main.{_hex(20)}.bundle.js 412 KiB"),
    ("ids", "terraform lock hashes", f"provider \"registry.terraform.io/hashicorp/aws\" {{\n  version = \"5.80.0\"\n  hashes = [\n    \"h1:{_b64(43)}=\",\n    \"zh:{_hex(64)}\",\n  ]\n}}"),
    ("ids", "uuid v7 ids", f"order {_hex(8)}-{_hex(4)}-7{_hex(3)}-a{_hex(3)}-{_hex(12)} created"),
    ("ids", "github run url", f"https://github.com/acme/api/actions/runs/{_digits(11)}/job/{_digits(11)}"),
    ("ids", "jira keys", "PLAT-1423 blocks PLAT-1430; see INC-77"),
    ("ids", "hex color palette", "palette: #1e293b #334155 #64748b #f8fafc #0ea5e9"),
    ("ids", "mac addresses", f"eth0 {':'.join(_hex(2) for _ in range(6))} wlan0 {':'.join(_hex(2) for _ in range(6))}"),
    ("ids", "ipv6", "fe80::1c2b:3dff:fe4a:5b6c%en0 and 2001:db8:85a3::8a2e:370:7334"),
    ("ids", "wasm hash", f"module hash blake3:{_hex(64)}"),
    ("ids", "ssm parameter path", "value comes from /prod/api/DB_PASSWORD in SSM Parameter Store"),
    ("ids", "gcp project ids", "projects: acme-prod-4821, acme-stage-1190; billing account 01A2B3-C4D5E6-F7A8B9"),
    ("ids", "base32 onion address", f"http://{_s(56, 'abcdefghijklmnopqrstuvwxyz234567')}.onion/"),
    # placeholders and redactions
    ("placeholder", "sk dots", "Set OPENAI_API_KEY=sk-... in your shell before running the eval."),
    ("placeholder", "angle brackets", "curl -H 'Authorization: Bearer <YOUR_TOKEN>' https://api.acme.io/v1/me"),
    ("placeholder", "xxxx key", "STRIPE_SECRET_KEY=sk_live_xxxxxxxxxxxxxxxxxxxxxxxx"),
    ("placeholder", "ghp x", "GH_TOKEN=ghp_XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX"),
    ("placeholder", "env var reference", "DB_PASSWORD=${DB_PASSWORD:?must be set}"),
    ("placeholder", "github secrets expr", "env:\n  NPM_TOKEN: ${{ secrets.NPM_TOKEN }}\n  AWS_SECRET_ACCESS_KEY: ${{ secrets.AWS_SECRET_ACCESS_KEY }}"),
    ("placeholder", "jinja template", "password: \"{{ vault_db_password }}\""),
    ("placeholder", "helm template", "password: {{ .Values.postgresql.auth.password | quote }}"),
    ("placeholder", "os environ", "api_key = os.environ[\"ANTHROPIC_API_KEY\"]"),
    ("placeholder", "process env", "const stripe = new Stripe(process.env.STRIPE_SECRET_KEY!);"),
    ("placeholder", "getenv go", "token := os.Getenv(\"GITHUB_TOKEN\")"),
    ("placeholder", "redacted stars", "password: ********"),
    ("placeholder", "redacted word", "Authorization: Bearer [REDACTED]"),
    ("placeholder", "redacted angle", "postgres://app:<redacted>@db:5432/app"),
    ("placeholder", "your key here", "api_key: your-api-key-here"),
    ("placeholder", "changeme placeholder brace", "ADMIN_PASSWORD=<set-in-1password>"),
    ("placeholder", "dollar var url", "postgres://$PGUSER:$PGPASSWORD@$PGHOST:5432/$PGDATABASE"),
    ("placeholder", "aws docs example", "aws_access_key_id = AKIAIOSFODNN7EXAMPLE\naws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"),
    ("placeholder", "key masked suffix", "The dashboard shows the key as sk-proj-...Qx7f; it was created Nov 3."),
    ("placeholder", "masked middle", "token ghp_****************************a9Zk was revoked"),
    ("placeholder", "op reference", "DB_PASSWORD=op://Engineering/postgres-prod/password"),
    ("placeholder", "vault path", "vault kv get -field=password secret/data/prod/db"),
    ("placeholder", "aws secretsmanager", "aws secretsmanager get-secret-value --secret-id prod/api/stripe --query SecretString"),
    ("placeholder", "sops encrypted", "password: ENC[AES256_GCM,data:" + _b64(24) + ",iv:" + _b64(43) + "=,tag:" + _b64(22) + "==,type:str]"),
    ("placeholder", "k8s secretKeyRef", "env:\n- name: DB_PASSWORD\n  valueFrom:\n    secretKeyRef:\n      name: db-creds\n      key: password"),
    ("placeholder", "compose secrets file", "secrets:\n  db_password:\n    file: ./secrets/db_password.txt"),
    ("placeholder", "password file flag", "mysql --defaults-extra-file=~/.my.cnf -e 'show databases'"),
    ("placeholder", "password stdin", "echo \"$CR_PAT\" | docker login ghcr.io -u USERNAME --password-stdin"),
    ("placeholder", "empty password", "password: \"\"\nusername: \"\""),
    ("placeholder", "null password", "{\"user\": \"guest\", \"password\": null}"),
    ("placeholder", "example dot com creds", "curl -u user:password https://example.com/api  # from the README"),
    ("placeholder", "xxx in url", "https://hooks.slack.com/services/TXXXXXXXX/BXXXXXXXX/XXXXXXXXXXXXXXXXXXXXXXXX"),
    ("placeholder", "dots token", "Bearer eyJhbGciOi... (truncated)"),
    ("placeholder", "terraform var ref", "password = var.db_password\nusername = var.db_username"),
    ("placeholder", "spring placeholder", "spring.datasource.password=${DB_PASSWORD}"),
    ("placeholder", "ansible vault ref", "ansible_become_pass: \"{{ vault_become_pass }}\""),
    ("placeholder", "arg without value", "mysql -u root -p   # prompts for the password"),
    ("placeholder", "dummy test key", "in tests we use api_key='test' and password='test'"),
    ("placeholder", "fake stripe test doc", "Use card 4242 4242 4242 4242 with any CVC in test mode."),
    ("placeholder", "x-api-key placeholder", "X-API-Key: {api_key}"),
    ("placeholder", "printf template", "Authorization: Bearer %s"),
    ("placeholder", "rust env", "let key = std::env::var(\"OPENAI_API_KEY\")?;"),
    ("placeholder", "keyring lookup", "password = keyring.get_password(\"acme\", \"deploy\")"),
    ("placeholder", "gh secret set no body", "gh secret set NPM_TOKEN < token.txt"),
    # public keys and certificates
    ("public", "ssh ed25519 pub", f"ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI{_b64(43)} jane@laptop"),
    ("public", "ssh rsa pub", f"ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABgQ{_b64(500)} ci@runner"),
    ("public", "authorized keys", f"# ~/.ssh/authorized_keys\nssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI{_b64(43)} sam\necdsa-sha2-nistp256 AAAAE2VjZHNhLXNoYTItbmlzdHAyNTYAAAAIbmlzdHAyNTYAAABBB{_b64(88)}= ops"),
    ("public", "public key pem", "-----BEGIN PUBLIC KEY-----\n" + _pem_body(294) + "\n-----END PUBLIC KEY-----"),
    ("public", "certificate pem", "-----BEGIN CERTIFICATE-----\n" + _pem_body(900) + "\n-----END CERTIFICATE-----"),
    ("public", "csr pem", "-----BEGIN CERTIFICATE REQUEST-----\n" + _pem_body(600) + "\n-----END CERTIFICATE REQUEST-----"),
    ("public", "pgp public block", "-----BEGIN PGP PUBLIC KEY BLOCK-----\n\nmDMEZ" + _pem_body(300) + "\n=" + _b64(4) + "\n-----END PGP PUBLIC KEY BLOCK-----"),
    ("public", "pgp signature", "-----BEGIN PGP SIGNATURE-----\n\niHUEARYKAB0WIQ" + _pem_body(90) + "\n=" + _b64(4) + "\n-----END PGP SIGNATURE-----"),
    ("public", "wireguard public only", f"[Peer]\nPublicKey = {_key44()}\nAllowedIPs = 10.8.0.0/24\nEndpoint = vpn.acme.io:51820"),
    ("public", "age recipient", f"age -r age1{_s(58, 'qpzry9x8gf2tvdw0s3jn54khce6mua7l')} -o backup.age backup.tar"),
    ("public", "nostr npub", f"follow me: npub1{_s(58, 'qpzry9x8gf2tvdw0s3jn54khce6mua7l')}"),
    ("public", "stripe publishable", f"STRIPE_PUBLISHABLE_KEY=pk_live_51{_s(97)}"),
    ("public", "mapbox public", f"mapboxgl.accessToken = 'pk.eyJ1IjoiYWNtZSIsImEiOiJ{_url(30)}.{_url(22)}';"),
    ("public", "posthog project key", f"posthog.init('phc_{_s(43)}', {{ api_host: 'https://eu.i.posthog.com' }})"),
    ("public", "sentry dsn public", f"SENTRY_DSN=https://{_hex(32)}@o{_digits(6)}.ingest.us.sentry.io/{_digits(7)}"),
    ("public", "jwks public", json.dumps({"keys": [{"kty": "RSA", "kid": "2026-11", "use": "sig", "n": _url(342), "e": "AQAB"}]})),
    ("public", "known hosts", f"github.com ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI{_b64(43)}"),
    ("public", "minisign public", f"minisign -Vm release.tar.gz -P RWQ{_b64(53)}"),
    ("public", "pgp key id", f"gpg --recv-keys {_hex(16).upper()}"),
    ("public", "dkim record", f"selector1._domainkey TXT \"v=DKIM1; k=rsa; p=MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA{_b64(300)}\""),
    ("public", "google site verification", f"TXT google-site-verification={_url(43)}"),
    ("public", "supabase anon key", f"NEXT_PUBLIC_SUPABASE_ANON_KEY={_jwt({'iss': 'supabase', 'ref': _s(20, _LOW), 'role': 'anon', 'iat': 1700000000, 'exp': 2000000000})}"),
    ("public", "recaptcha site key", f"data-sitekey=\"6L{_url(38)}\""),
    ("public", "algolia app id", f"ALGOLIA_APP_ID={_s(10, _UP)}"),
    ("public", "oauth client id", f"GOOGLE_CLIENT_ID={_digits(12)}-{_s(32, _LOW)}.apps.googleusercontent.com"),
    ("public", "twilio account sid", f"TWILIO_ACCOUNT_SID=AC{_hex(32)}"),
    ("public", "aws access key id redacted pair", "AKIA************MPLE (the old key, deleted)"),
    # encoded blobs that are not secrets
    ("blob", "png data url", "![logo](data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAABAAAAAQ" + _b64(400) + "=)"),
    ("blob", "svg data url", "background-image: url(\"data:image/svg+xml;base64," + _b('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><circle cx="5" cy="5" r="4" fill="#0ea5e9"/></svg>') + "\")"),
    ("blob", "font woff2", "src: url(data:font/woff2;base64,d09GMgABAAAAA" + _b64(300) + ") format('woff2');"),
    ("blob", "gzip base64 payload", f"the fixture is gzip+base64: H4sIAAAAAAAAA{_b64(200)}"),
    ("blob", "protobuf base64 sample", f"sample event (base64 protobuf): CgR0ZXN0{_b64(60)}"),
    ("blob", "base64 of json public", f"state param decodes to {_b(json.dumps({'return_to': '/settings', 'nonce': _hex(8)}))}"),
    ("blob", "minified js", "!function(e,t){\"object\"==typeof exports?module.exports=t():e.lib=t()}(this,function(){return{a:1}});"),
    ("blob", "wasm hex dump", "00000000: 0061 736d 0100 0000 0108 0260 017f 0060  .asm.......`...`"),
    ("blob", "random seed for tests", "random.seed(20261205); np.random.default_rng(42)"),
    ("blob", "hmac test vector", "RFC 4231 test case 1: key = 0x0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b, data = \"Hi There\""),
    ("blob", "sha256 abc vector", "sha256(\"abc\") = ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
    ("blob", "aes test key", "FIPS-197 AES-128 example key 000102030405060708090a0b0c0d0e0f, plaintext 00112233445566778899aabbccddeeff"),
    ("blob", "bcrypt explanation", "bcrypt hashes look like $2b$12$ followed by 53 chars (22 salt + 31 hash)."),
    ("blob", "uuencoded line", "begin 644 hello.txt\n,2&5L;&\\@=V]R;&0*\n`\nend"),
    ("blob", "base64 csv of numbers", f"chart data (base64 of csv): {_b('x,y' + chr(10) + chr(10).join(f'{i},{i * i}' for i in range(12)))}"),
    # variable names and talk about secrets
    ("talk", "password policy", "Passwords must be at least 12 characters and rotate every 90 days; no reuse of the last 5."),
    ("talk", "forgot password", "User forgot their password again; pointed them at the reset flow."),
    ("talk", "rotate key task", "TODO: rotate the Stripe secret key and the GitHub deploy token before the audit."),
    ("talk", "where the token lives", "The npm token lives in GitHub Actions secrets as NPM_TOKEN, never in this repo."),
    ("talk", "hashing design", "We hash passwords with argon2id (m=64MiB, t=3, p=1) and pepper them with a key from KMS."),
    ("talk", "variable names", "rename api_key -> apiKey, secret_token -> secretToken, db_password -> dbPassword"),
    ("talk", "password field schema", "CREATE TABLE users (id bigint, email text, password_hash text NOT NULL);"),
    ("talk", "password column ts", "interface LoginForm { username: string; password: string; remember: boolean }"),
    ("talk", "token count", "The prompt used 12,345 tokens; max_tokens is 4096 and the key insight is caching."),
    ("talk", "key of dict", "Look up the key 'user_id' in the dict; the secret to speed is a prebuilt index."),
    ("talk", "password manager advice", "Use the company's Bitwarden for shared passwords; the passphrase generator gives 5 words."),
    ("talk", "token bucket", "Rate limiter is a token bucket: 100 tokens, refill 10/s."),
    ("talk", "secret santa", "Secret Santa budget is $25; draw names on Friday."),
    ("talk", "keynote", "Keynote at 9:00, key takeaways in the doc; password-less login demo after lunch."),
    ("talk", "auth flow description", "OAuth flow: client gets code, exchanges it with client_secret at /token, receives access_token + refresh_token."),
    ("talk", "error message", "Error: password authentication failed for user \"app\" (check PGPASSWORD is exported)"),
    ("talk", "docs about jwt", "A JWT is three base64url parts separated by dots: header.payload.signature."),
    ("talk", "ssh key advice", "Generate with ssh-keygen -t ed25519 -C you@acme.io and add the .pub to GitHub."),
    ("talk", "password reset email", "Subject: Reset your password\nClick the link to choose a new password. The link expires in 1 hour."),
    ("talk", "pw abbreviation", "pw = pathway weight in the graph model; pw.sum() should be 1."),
    ("talk", "token in nlp", "tokenizer splits 'unbelievable' into tokens un, believ, able."),
    ("talk", "api key env names", "Needed env vars: OPENAI_API_KEY, ANTHROPIC_API_KEY, GROQ_API_KEY (values in 1Password)."),
    ("talk", "password flag docs", "--password <PASSWORD>  Password to use (default: read from $ACME_PASSWORD)"),
    ("talk", "german talk", "Das Passwort wird im Passwortmanager gespeichert, nicht hier."),
    ("talk", "french talk", "Le mot de passe doit être changé tous les 90 jours."),
    ("talk", "japanese talk", "パスワードはパスワードマネージャーに保存してください。"),
    ("talk", "seed phrase talk", "Never type your 24-word seed phrase into a website; the ledger shows it once."),
    ("talk", "english words list", "Words for the spelling game: apple banana cherry bridge castle dragon eagle forest garden harbor island jungle"),
    ("talk", "prose with common bip words", "We had an amazing autumn at the cabin: the canoe, the canyon and the coffee were all great, and the lake was calm."),
    ("talk", "pin discussion", "The card asks for a PIN after three contactless payments."),
    ("talk", "password hint", "password hint: the usual one with the year (not writing it here)"),
    ("talk", "secret in fiction", "In chapter 3 the secret is that the butler kept the key under the mat."),
    ("talk", "passphrase requirement", "passphrase: required, min 4 words (set it in the prompt, not here)"),
    ("talk", "login page copy", "Username: [          ]  Password: [          ]  [Sign in]"),
    ("talk", "commit message", "fix(auth): don't log the password field on failed login (#482)"),
    # code and config without secrets
    ("code", "python password param", "def login(username: str, password: str) -> Session:\n    return auth.check(username, password)"),
    ("code", "js password compare", "if (await bcrypt.compare(password, user.passwordHash)) { return ok(); }"),
    ("code", "password length check", "if len(password) < 12:\n    raise ValueError(\"password too short\")"),
    ("code", "token type enum", "class TokenType(Enum):\n    ACCESS = \"access\"\n    REFRESH = \"refresh\""),
    ("code", "secret key name const", "SECRET_KEY_ENV = \"DJANGO_SECRET_KEY\""),
    ("code", "api key header name", "API_KEY_HEADER = \"X-API-Key\""),
    ("code", "password regex", "PASSWORD_RE = re.compile(r\"^(?=.*[A-Z])(?=.*\\d)(?=.*[^\\w]).{12,}$\")"),
    ("code", "yaml password env ref", "database:\n  password: !env DB_PASSWORD\n  user: app"),
    ("code", "docker compose env file", "services:\n  db:\n    image: postgres:16\n    env_file: .env.db"),
    ("code", "token bucket code", "tokens = min(capacity, tokens + elapsed * rate)"),
    ("code", "sql password hash", "UPDATE users SET password_hash = crypt($1, gen_salt('bf')) WHERE id = $2;"),
    ("code", "nginx auth file", "auth_basic \"Restricted\";\nauth_basic_user_file /etc/nginx/.htpasswd;"),
    ("code", "python secrets module", "token = secrets.token_urlsafe(32)  # generated at runtime, never stored"),
    ("code", "test fixture password", "def test_login(client):\n    resp = client.post('/login', data={'username': 'alice', 'password': 'wrong'})\n    assert resp.status_code == 401"),
    ("code", "openssl genrsa", "openssl genrsa -out key.pem 4096 && openssl rsa -in key.pem -pubout -out pub.pem"),
    ("code", "pem header in code", "if text.startswith('-----BEGIN PRIVATE KEY-----'):\n    raise ValueError('refusing to log key material')"),
    ("code", "aws env names list", "for v in AWS_ACCESS_KEY_ID AWS_SECRET_ACCESS_KEY AWS_SESSION_TOKEN; do unset $v; done"),
    ("code", "curl with env token", "curl -H \"Authorization: Bearer $GITHUB_TOKEN\" https://api.github.com/user"),
    ("code", "connection string no password", "postgresql://app@localhost:5432/app?sslmode=disable"),
    ("code", "redis url no auth", "REDIS_URL=redis://localhost:6379/0"),
    ("code", "mongodb local", "mongodb://localhost:27017/test"),
    ("code", "url with user only", "git clone https://jane@bitbucket.org/acme/api.git"),
    ("code", "ssh url", "git@github.com:acme/infra.git"),
    ("code", "long camelcase identifier", "AbstractSingletonProxyFactoryBeanConfigurationManagerImplementation"),
    ("code", "k8s configmap", "apiVersion: v1\nkind: ConfigMap\ndata:\n  LOG_LEVEL: info\n  FEATURE_FLAGS: checkout_v2,fast_search"),
    ("code", "java keystore path", "-Djavax.net.ssl.keyStore=/etc/ssl/app.jks -Djavax.net.ssl.keyStorePassword=${KEYSTORE_PASS}"),
    ("code", "feature flag key", "ldClient.variation('new-checkout-flow', user, false)"),
    ("code", "cache key", f"cache_key = f\"user:{{uid}}:profile:v3\"  # e.g. user:{_digits(8)}:profile:v3"),
    ("code", "i18n key", "t('auth.password.reset.success')"),
    ("code", "regex for tokens", "GH_TOKEN_RE = r\"gh[pousr]_[A-Za-z0-9]{36}\""),
    ("logs", "pip install log", f"Successfully installed httpx-0.28.1 (wheel cache {_hex(64)})"),
    ("logs", "docker build log", f" => => writing image sha256:{_hex(64)}\n => => naming to docker.io/library/web:dev"),
    ("logs", "kubectl get pods", f"web-{_s(10, _LOW)}-{_s(5, _LOW)}   1/1   Running   0   2d"),
    ("logs", "git push log", f"To github.com:acme/web.git\n   {_hex(7)}..{_hex(7)}  main -> main"),
    ("logs", "gpg good sig", f"gpg: using RSA key {_hex(40).upper()}\ngpg: Good signature from \"Release Bot\""),
    ("logs", "terraform apply", f"aws_s3_bucket.logs: Creation complete after 2s [id=acme-logs-{_hex(8)}]"),
    ("logs", "nginx access log", f"10.0.0.5 - - [04/Dec/2026:10:00:00 +0000] \"GET /static/app.{_hex(8)}.js HTTP/1.1\" 200 5120"),
    ("logs", "ci cache restore", f"Cache restored from key: node-modules-{_hex(64)}"),
    ("logs", "cert serial", f"Serial Number: {':'.join(_hex(2) for _ in range(16))}"),
    ("logs", "auth failure log", "2026-12-04 WARN login failed for user=jane reason=bad_password attempts=3"),
    ("logs", "vault status", "Seal Type shamir\nInitialized true\nSealed false\nTotal Shares 5\nThreshold 3"),
    ("logs", "hf model revision", f"downloaded sentence-transformers/all-MiniLM-L6-v2 at revision {_hex(40)}"),
    ("logs", "etcd member ids", f"member {_hex(16)} is healthy: got healthy result from https://10.0.0.1:2379"),
    ("logs", "s3 ls output", f"2026-12-01 10:00:00   1048576 backups/db-{_hex(12)}.sql.gz"),
]
for _cls, _name, _body in _LOOKS:
    L(_cls, _name, _body)
