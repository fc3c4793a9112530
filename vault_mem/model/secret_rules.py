r"""The provider formats the secret gate knows, as data: one row per credential format.

A row is ``Rule(name, pattern, example, check, ...)``. ``name`` is the kind a refusal names,
``pattern`` a regular expression (compiled once by :mod:`vault_mem.model.secret_checks`), ``example``
a template of a value the rule must catch (``tests/test_secrets.py`` expands and checks every
row's example, and that no look-alike trips any row). A new format is one row here plus a look-alike
in the test corpus if it has a harmless cousin.

Example templates keep this file free of anything a git host's secret scanner would flag:
``<a36>`` stands for 36 random letters and digits (``A`` upper case and digits, ``l`` lower case
and digits, ``h`` lower-case hex, ``H`` upper-case hex, ``d`` digits, ``b`` base64, ``u``
base64url), ``<=text>`` for the base64 of ``text`` and ``<~text>`` for its unpadded base64url.
:func:`expand_example` fills them in from a generator seeded with the rule's name.

Pattern rules (what keeps a megabyte of near matches linear):
- Start with a literal, and check the character before it with a look-behind placed after the
  first character (``g(?<![A-Za-z0-9_]g)hp_``, written ``_start(r"ghp_", _WORD)``): the engine then
  skips between occurrences of the literal instead of trying every position.
- Every repeat is one character class; a repeat that a later part of the pattern can fail after
  is bounded (``{0,60}?``), never ``.*``.
- ``lower=True`` rules run on the ASCII-lowercased text (write them in lower case); ``markers``
  lets a rule be skipped unless one of its markers occurs; without them, the literal the pattern
  starts with is the marker (``hooks\.slack\.com/`` gives ``hooks.slack.com/``), so a text
  without it costs one substring search, not a regex pass.

``check`` names a test the match must also pass (see ``secret_checks.CHECKS``): ``not_fake`` (default:
no ``EXAMPLE``/``xxxxx``/words-only placeholders), ``has_digit``, ``digit_or_letters`` (a digit, or a tail of random letters of both cases), ``jwt`` (the first part is a
JSON header with ``alg``), ``value`` (group 1 is a literal, not a ``$VAR`` or placeholder),
``literal`` (group 1 also looks made to be hard to guess), ``token`` (literal, or a UUID),
``password`` (group 1 is a literal after an explicit password keyword: words count,
``marmalade-engine-river``), ``numeric_id`` (the first part is the base64 of a number: Discord),
``basic_auth`` (group 1 is base64 of ``user:password``) and ``mixed`` (upper and lower case, digits and high entropy, for prefixes short enough to occur by
chance).
"""

from __future__ import annotations

import re
import string
from dataclasses import dataclass

from vault_mem.model.lazy_patterns import lazy

__all__ = ["RULES", "Rule", "expand_example"]


@dataclass(frozen=True, slots=True)
class Rule:
    """One credential format: its name, its pattern, an example template and how to vet a match."""

    name: str
    pattern: str
    example: str
    check: str = "not_fake"
    group: int = 0  # the part of the match that is the secret
    lower: bool = False  # match against the ASCII-lowercased text
    markers: tuple[str, ...] = ()  # skip unless one of these occurs in the (lowercased if lower) text


_B = r"(?![A-Za-z0-9_-])"  # the token ends here
_WORD = "A-Za-z0-9_"  # (a token a `-` may stand before: `--token=ghp_...`)
_LOWER = "a-z0-9_-"  # (a ``lower=True`` rule's text has no capitals)


def _start(pattern: str, before: str = "A-Za-z0-9_-") -> str:
    """``pattern`` matched only where a token starts: no character of ``before`` right before it,
    checked by a look-behind after the first character (``g(?<![A-Za-z0-9_-]g)lpat-``), so the
    engine skips between occurrences of that character (see "Pattern rules" above)."""
    return f"{pattern[0]}(?<![{before}]{pattern[0]}){pattern[1:]}"


_H = "<h32>"

# Order is priority: where two findings overlap, the earlier row names the kind.
RULES: tuple[Rule, ...] = (
    Rule("AWS access key", r"A(?<![A-Za-z0-9]A)(?:KIA|SIA|BIA|CCA)[A-Z0-9]{16}(?![A-Za-z0-9])", "AKIA<A16>",
         markers=("AKIA", "ASIA", "ABIA", "ACCA")),
    Rule("AWS secret key", r"s(?<![a-z0-9]s)ecret_?access_?key[\"']?[ \t]{0,8}[:=][ \t]{0,8}[\"']?"
         r"([a-z0-9/+]{40})(?![a-z0-9/+=])", "aws_secret_access_key = <b40>", group=1, lower=True),
    Rule("GitHub token", _start(r"g(?:h[pousr]_[A-Za-z0-9]{36,251}|ithub_pat_[A-Za-z0-9_]{22,255})"
         r"(?![A-Za-z0-9_])", _WORD), "ghp_<a36>", markers=("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_")),
    Rule("GitLab token", _start(r"gl(?:pat|rt|dt|ptt|ft|soat|cbt|imt|agent|oas|ffct)-[A-Za-z0-9_-]{20,}"),
         "glpat-<u20>"),
    Rule("GitLab token", _start(r"GR1348941[A-Za-z0-9_-]{20,}"), "GR1348941<u20>"),
    Rule("Slack token", _start(r"x(?:ox(?:[abposr]|e\.xox[bp]|e)|app)-[A-Za-z0-9-]{10,}"),
         "xoxb-<d12>-<d13>-<a24>", "has_digit", markers=("xox", "xapp-")),
    Rule("Slack webhook", r"hooks\.slack\.com/(?:services/T[A-Z0-9_]{6,}/B[A-Z0-9_]{6,}/[A-Za-z0-9]{16,}"
         r"|(?:workflows|triggers)/T[A-Z0-9]{6,}/[A-Za-z0-9/]{16,})", "https://hooks.slack.com/services/T<A8>/B<A8>/<a24>"),
    # Zapier's catch hook: `/hooks/catch/<account>/<key>/`, the key 5-10 lower-case letters and digits
    Rule("Zapier webhook", r"hooks\.zapier\.com/hooks/catch/[0-9]{4,12}/[a-z0-9]{5,12}(?![A-Za-z0-9_-])",
         "https://hooks.zapier.com/hooks/catch/<d7>/<l7>/", "has_digit"),
    # Braintree's access token: `access_token$<environment>$<merchant id>$<32 hex>`
    Rule("Braintree access token", _start(r"access_token\$(?:production|sandbox|development|qa)\$[a-z0-9]{10,20}\$[0-9a-f]{32}")
         + _B, "access_token$production$<l16>$" + _H),
    Rule("Anthropic API key", _start(r"sk-ant-[A-Za-z0-9_-]{20,}"), "sk-ant-api03-<u93>AA"),
    Rule("OpenAI API key", _start(r"sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}"), "sk-proj-<u64>",
         "has_digit"),
    Rule("Hugging Face token", _start(r"hf_[A-Za-z0-9]{30,}(?![A-Za-z0-9_])", _WORD), "hf_<a34>", "digit_or_letters"),
    # 1Password's Secret Key (its Emergency Kit's "Secret Key"/"account key"): `A3-`, the account's six
    # characters, then 26 in groups of 6 and 5
    Rule("1Password secret key", _start(r"A3-[A-Z0-9]{6}-[A-Z0-9]{6}(?:-[A-Z0-9]{5}){4}(?![A-Za-z0-9_-])"),
         "A3-<A6>-<A6>-<A5>-<A5>-<A5>-<A5>", "has_digit"),
    Rule("Google API key", _start(r"AIza[A-Za-z0-9_-]{35}") + _B, "AIza<u35>", "not_web_config"),
    Rule("Google OAuth client secret", _start(r"GOCSPX-[A-Za-z0-9_-]{28}") + _B, "GOCSPX-<u28>"),
    Rule("Google OAuth token", _start(r"ya29\.[A-Za-z0-9_-]{30,}"), "ya29.<u60>", "has_digit"),
    Rule("Stripe key", r"(?<![A-Za-z0-9_])(?:(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}|whsec_[A-Za-z0-9]{24,})",
         "sk_live_<a24>", markers=("_live_", "_test_", "whsec_")),
    Rule("npm token", _start(r"npm_[A-Za-z0-9]{36}(?![A-Za-z0-9_])", _WORD), "npm_<a36>", "has_digit"),
    Rule("PyPI token", _start(r"pypi-AgE[A-Za-z0-9_-]{50,}"), "pypi-AgEIcHlwaS5vcmc<u70>"),
    Rule("HashiCorp Vault token", r"h(?<![A-Za-z0-9_.-]h)v[sbr]\.[A-Za-z0-9_-]{24,}", "hvs.<u90>", "has_digit"),
    Rule("HashiCorp Vault token", r"s(?<![A-Za-z0-9_./-]s)\.[A-Za-z0-9]{24}(?![A-Za-z0-9_./-])", "s.<a24>", "mixed"),
    Rule("Shopify token", _start(r"shp(?:at|ss|ca|pa)_[a-fA-F0-9]{32}(?![A-Za-z0-9_])", _WORD), "shpat_" + _H),
    Rule("Twilio API key", _start(r"SK[0-9a-f]{32}(?![A-Za-z0-9_])", _WORD), "SK" + _H),
    # the account SID then the token: `AC...:token` (basic auth) or `Client("AC...", "token")`
    Rule("Twilio auth token", _start(r"ac[0-9a-f]{32}(?::|[\"']?[ \t]{0,4},[ \t]{0,4}[\"'])([0-9a-f]{32})(?![0-9a-z])", _WORD),
         "AC<h32>:<h32>", group=1, lower=True),
    Rule("Twilio auth token", r"twilio[^\n]{0,60}?(?<![0-9a-z_])([0-9a-f]{32})(?![0-9a-z_])",
         "TWILIO_AUTH_TOKEN=<h32>", "has_digit", 1, lower=True),
    Rule("SendGrid API key", _start(r"SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}") + _B, "SG.<u22>.<u43>"),
    Rule("Discord bot token", r"[MNO](?<![A-Za-z0-9_-][MNO])[A-Za-z0-9_-]{23,27}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,38}" + _B,
         "<~123456789012345678>.<u6>.<u38>", "numeric_id"),
    Rule("Discord webhook", _start(r"discord(?:app)?\.com/api/webhooks/[0-9]{5,20}/[A-Za-z0-9_-]{60,68}"),
         "https://discord.com/api/webhooks/<d18>/<u68>"),
    Rule("Telegram bot token", r"[0-9](?<![0-9][0-9])[0-9]{7,9}:AA[A-Za-z0-9_-]{33}" + _B, "<d10>:AA<u33>",
         markers=(":AA",)),
    Rule("Azure SAS signature", r"[?&]sig=([A-Za-z0-9%+/]{30,}(?:%3[dD]|=){0,2})", "?sv=2022-11-02&sig=<a40>%3D",
         "value", 1, markers=("sig=",)),
    Rule("Azure storage account key", r"a(?<![a-z0-9_]a)ccountkey=([a-z0-9+/]{40,100}={0,2})",
         "AccountKey=<b86>==", "value", 1, lower=True),
    Rule("DigitalOcean token", _start(r"do[opr]_v1_[a-f0-9]{64}(?![A-Za-z0-9_])", _WORD), "dop_v1_<h64>"),
    Rule("Mailgun API key", _start(r"key-[0-9a-f]{32}(?![A-Za-z0-9_-])"), "key-" + _H, "has_digit"),
    Rule("Heroku API key", _start(r"hrku-[a-z0-9_-]{60}(?![a-z0-9_-])"), "HRKU-<u60>", lower=True),
    Rule("Heroku API key", r"heroku[_ -]?(?:api[_ -]?)?(?:key|token)[^\n]{0,12}?([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}"
         r"-[0-9a-f]{4}-[0-9a-f]{12})", "HEROKU_API_KEY=<h8>-<h4>-<h4>-<h4>-<h12>", group=1, lower=True),
    Rule("Databricks token", _start(r"dapi[a-f0-9]{32}(?:-[0-9])?(?![A-Za-z0-9_])"), "dapi" + _H, "has_digit"),
    Rule("Postman API key", _start(r"PMAK-[a-f0-9]{24}-[a-f0-9]{34}") + _B, "PMAK-<h24>-<h34>"),
    Rule("Linear API key", _start(r"lin_api_[A-Za-z0-9]{40}") + _B, "lin_api_<a40>"),
    # Asana's personal access tokens: a version, the user's and the app's numeric ids, 32 hex
    # (`1/<user>:<hex>`, `2/<user>/<app>:<hex>`); a task's URL path has no `:<hex>` after its ids
    Rule("Asana token", r"[12](?<![A-Za-z0-9_/.:-][12])/[0-9]{10,20}(?:/[0-9]{10,20})?:[0-9a-f]{32}(?![0-9A-Za-z])",
         "2/<d16>/<d16>:<h32>", markers=("/",)),
    Rule("Grafana token", _start(r"gl(?:sa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}|c_[A-Za-z0-9+/]{32,400}={0,2})"),
         "glsa_<a32>_<h8>"),
    # a service token may carry its config's name: dp.st.<config>.<secret>
    Rule("Doppler token", _start(r"dp\.(?:pt|st|sa|ct|scim|audit)\.(?:[a-z0-9_-]{1,40}\.)?[A-Za-z0-9]{40,44}") + _B,
         "dp.pt.<a43>"),
    # Rancher's API key: `token-<5>:<54>`, the bearer its UI prints once (`rancher login --token`)
    Rule("Rancher API token", _start(r"token-[a-z0-9]{5}:[a-z0-9]{54}") + _B, "token-<l5>:<l54>", check="has_digit"),
    Rule("LaunchDarkly SDK key", _start(r"sdk-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}") + _B,
         "sdk-<h8>-<h4>-<h4>-<h4>-<h12>"),
    Rule("New Relic key", _start(r"NR(?:AK|II|JS|AA)-[A-Z0-9]{27}") + _B, "NRAK-<A27>"),
    # Plaid's access and processor tokens: the environment, then a UUID (its sandbox's, test data
    # the docs print, pass; its short-lived `link-` and `public-` tokens open nothing alone)
    Rule("Plaid access token", r"(?:a(?<![A-Za-z0-9_-]a)ccess|p(?<![A-Za-z0-9_-]p)rocessor)-(?:production|development)"
         r"-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}" + _B,
         "access-production-<h8>-<h4>-<h4>-<h4>-<h12>", markers=("-production-", "-development-")),
    Rule("Sentry token", _start(r"sntry[us]_[A-Za-z0-9+/=_]{40,}"), "sntrys_<b80>"),
    Rule("Supabase token", _start(r"sb(?:p|_secret)_[A-Za-z0-9_-]{32,}"), "sbp_<h40>", "has_digit"),
    Rule("Square token", _start(r"sq0(?:atp|csp)-[A-Za-z0-9_-]{22,43}") + _B, "sq0csp-<u43>"),
    Rule("Groq API key", _start(r"gsk_[A-Za-z0-9]{48,}") + _B, "gsk_<a52>", "has_digit"),
    Rule("Replicate API token", _start(r"r8_[A-Za-z0-9]{37}") + _B, "r8_<a37>", "has_digit"),
    Rule("Bitbucket app password", _start(r"ATBB[A-Za-z0-9_=.-]{28,40}") + _B, "ATBB<a32>", "mixed"),
    Rule("Fireworks API key", _start(r"fw_[A-Za-z0-9]{24,}") + _B, "fw_<a24>", "mixed"),
    Rule("Square access token", _start(r"EAAA[A-Za-z0-9_-]{60}") + _B, "EAAA<u60>", "mixed"),
    # a Meta (Facebook, Instagram, WhatsApp) Graph API access token: `EAA` and a letter, then ~150-250
    Rule("Meta access token", _start(r"EAA[B-Z][A-Za-z0-9]{90,400}(?![A-Za-z0-9])"), "EAAG<a180>", "mixed"),
    # HubSpot's private app token: `pat-`, its data centre (`na1`, `eu1`), a UUID
    Rule("HubSpot private app token", _start(r"pat-(?:na|eu|ap)[0-9]{1,2}-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
         + _B, "pat-na1-<h8>-<h4>-<h4>-<h4>-<h12>"),
    # Flutterwave's secret key (its public key, `FLWPUBK-`, is published in pages)
    Rule("Flutterwave secret key", _start(r"FLWSECK(?:_TEST)?-[0-9a-f]{32}-X") + _B, "FLWSECK-<h32>-X"),
    Rule("Fly.io token", _start(r"FlyV1[ \t]{1,4}fm[12][ar]?_[A-Za-z0-9+/=_-]{40,}"), "FlyV1 fm2_<b120>"),
    Rule("Atlassian API token", _start(r"ATATT3[A-Za-z0-9_=-]{100,}"), "ATATT3<u186>"),
    Rule("age secret key", _start(r"AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}"), "AGE-SECRET-KEY-1"
         + "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L" * 2 + "QPZRY9X8GF2T"),
    # a signed token, or an encrypted one (JWE: five parts, the second empty with direct
    # encryption, as next-auth's session cookie is)
    Rule("JWT", _start(r"ey[A-Za-z0-9_-]{8,}\.(?:[A-Za-z0-9_-]{2,}|[A-Za-z0-9_-]{0,1000}\.[A-Za-z0-9_-]{8,}"
         r"\.[A-Za-z0-9_-]{16,})\.[A-Za-z0-9_-]{8,}"), '<~{"alg":"HS256","typ":"JWT"}>.<~{"sub":"42"}>.<u43>', "jwt"),
    # PASETO (a JWT's successor): `v1`-`v4`, `local` (encrypted) or `public` (signed), then the
    # base64url payload; whoever holds one is signed in as its subject, as with a JWT
    Rule("PASETO token", _start(r"v[1-4]\.(?:local|public)\.[A-Za-z0-9_-]{40,}") + _B, "v4.local.<u120>"),
    Rule("kubeconfig client key", _start(r"client-key-data:[ \t]{0,8}[\"']?([a-z0-9+/]{20,}={0,2})", _LOWER),
         "client-key-data: <b64>", group=1, lower=True),
    Rule("registry auth", r"\"(?:auth|identitytoken)\"[ \t]{0,8}:[ \t]{0,8}\"([A-Za-z0-9+/]{8,}={0,2})\"",
         '{"auths": {"ghcr.io": {"auth": "<=deploy:<a20>>"}}}', "basic_auth", 1, markers=('"auth"', '"identitytoken"')),
    Rule("netrc password", _start(r"machine[ \t]{1,8}[^\s]{1,253}(?:\s{1,16}(?:login|account)[ \t]{1,8}"
         r"[^\s]{1,128}){0,2}\s{1,16}password[ \t]{1,8}([^\s]{1,200})", _LOWER), "machine ci.corp login bot password <a16>",
         "password", 1, lower=True),
    Rule("password on a command line", _start(r"sshpass[ \t]{1,8}-p[ \t]{0,8}[\"']?([^\s\"']{1,200})", _LOWER),
         "sshpass -p <a12> ssh deploy@host", "value", 1),
    Rule("password on a command line", _start(r"ssh-keygen[ \t][^\n]{0,200}?(?<=[ \t])-[NP][ \t]{0,8}"
         r"[\"']?([^\s\"']{1,200})"), "ssh-keygen -t ed25519 -N <a14> -f deploy", "value", 1),
    Rule("password on a command line", _start(r"redis-cli[ \t][^\n]{0,200}?(?<=[ \t])-a[ \t]{1,8}"
         r"[\"']?([^\s\"']{1,200})"), "redis-cli -h cache -a <a24> info", "value", 1),
    Rule("password on a command line", _start(r"ldap(?:search|modify|add|delete|compare|passwd|whoami|modrdn)"
         r"[ \t][^\n]{0,300}?(?<=[ \t])-w[ \t]{1,8}[\"']?([^\s\"']{1,200})"), "ldapsearch -D cn=admin -w <a14> -b dc=corp",
         "value", 1),
    Rule("password on a command line", _start(r"convertto-securestring[ \t]{1,8}(?:-string[ \t]{1,8})?[\"']"
         r"([^\"'\n]{4,200})[\"'][^\n]{0,60}?-asplaintext", _LOWER), 'ConvertTo-SecureString "<a14>" -AsPlainText -Force',
         "password", 1, lower=True),  # (any literal made a SecureString is one: words too)
    # a Spring (or Quarkus, Micronaut) property placeholder's default, for a property named for a
    # secret: `@Value("${payments.secret:X}")` gives X when the property is unset (`${X:-d}` is a shell's)
    Rule("secret in a placeholder's default", r"\$\{(?i:[a-z0-9_.-]{0,80}(?:secret|password|passwd|token|api[_.-]?key"
         r"|private[_.-]?key)[a-z0-9_.-]{0,20}):([^\s}:\"'$-][^\s}\"'$]{11,199})\}",
         '@Value("${payments.secret:<a32>}")', "literal", 1, markers=("${",)),
    Rule("password on a command line", _start(r"net[ \t]{1,8}use[ \t][^\n]{0,200}?/user:[^\s]{1,100}[ \t]{1,8}"
         # (a lone `*` asks for the password; one that starts with `*` is one)
         r"([^\s/\"'][^\s\"']{3,199})"), "net use Z: \\\\fs01\\share /user:CORP\\svc <a14>", "literal", 1),
    Rule("password on a command line", _start(r"mysql(?:dump|admin|import|check|sh)?[ \t][^\n]{0,200}?"
         r"(?<=[ \t])-p[\"']?([^\s\"']{1,200})"), "mysql -u root -p<a12> shop", "value", 1),
    Rule("authorization header", r"b(?<![a-z]b)(?:earer|asic)[ \t]{1,8}([a-z0-9._~+/-]{16,}=*)",
         "Authorization: Bearer <u40>", "literal", 1, lower=True, markers=("bearer", "basic")),
    # before the header of any scheme, so a token known by its scheme is named for it
    Rule("Okta API token", _start(r"ssws[ \t]{1,8}([a-z0-9_-]{30,})", _LOWER), "Authorization: SSWS 00<u40>", "literal", 1,
         lower=True),
    # a vendor's scheme named for what it carries, then the token, as a header's value is written
    # (`GenieKey <uuid>`, `'ServiceToken <token>'`), with or without the header's name
    Rule("authorization header", r"(?<![A-Za-z0-9_.-])([A-Z][a-z]{1,12}(?:Key|Token|Auth))[ \t]{1,4}"
         r"([A-Za-z0-9._~+/-]{20,}=*)(?![A-Za-z0-9._~+/=-])", "GenieKey <h8>-<h4>-4<h3>-a<h3>-<h12>", "scheme_token", 2,
         markers=("Key ", "Token ", "Auth ")),
    Rule("authorization header", _start(r"authorization[\"']?[ \t]{0,4}[:=][ \t]{0,4}[\"']?"
         r"[a-z][a-z0-9_-]{1,24}[ \t]{1,8}([a-z0-9._~+/-]{16,}=*)", _LOWER), "Authorization: Splunk <h40>", "token", 1,
         lower=True),
    Rule("netrc password", _start(r"default(?:\s{1,16}(?:login|account)[ \t]{1,8}[^\s]{1,128}){1,2}\s{1,16}"
         r"password[ \t]{1,8}([^\s]{1,200})", _LOWER), "default login anonymous password <a14>", "password", 1,
         lower=True),
    Rule("Dynatrace token", _start(r"dt0c01\.[A-Z0-9]{24}\.[A-Z0-9]{64}") + _B, "dt0c01.<A24>.<A64>"),
    # (a user and a password in one argument, `curl -u ops:X`, `lftp -u ops,X`, Samba's `-U ops%X`:
    # secret_commands.flag_credentials, the one home of a command's flags)
    # OpenLDAP's tools take the bind password after `-w` (`ldapsearch -D <dn> -w X`)
    Rule("password on a command line", _start(r"ldap[a-z]{2,12}[ \t][^\n]{0,300}?(?<=[ \t])-w[ \t]{1,8}[\"']?"
         r"([^\s\"'`]{4,200})"), "ldapsearch -x -D cn=admin,dc=corp -w <a12> -b dc=corp", "password", 1),
    # a Wi-Fi network's QR code as text (`WIFI:S:<ssid>;T:WPA;P:<password>;;`): its `P:` field
    Rule("Wi-Fi password", _start(r"WIFI:(?:[A-Z]{1,2}:[^;\n]{0,64};){0,4}?P:([^;\s]{1,63});"),
         "WIFI:S:Office;T:WPA;P:<a14>;;", "password", 1),
    Rule("password on a command line", _start(r"-p[ \t]{1,8}[\"']?([A-Za-z0-9][^\s\"'`/.:]{7,199})(?=[\"']?(?:\s|$))"),
         "docker login -u ci -p <a20> registry.corp", "literal", 1, markers=("-p",)),
    # tools whose positional argument is the credential (no flag or label names it): `snyk auth X`,
    # `wandb login X`, `b2 account authorize <id> X`, `mc alias set <name> <url> <access> X`,
    # `hdbuserstore SET <key> <host> <user> X`, `bundle config <host> <user>:X` and its variable
    # `BUNDLE_<HOST>=<user>:X` (one row: each row
    # costs every text a marker test)
    Rule("secret on a command line", r"(?<![a-z0-9_-])(?:snyk[ \t]{1,4}auth|wandb[ \t]{1,4}login(?:[ \t]{1,4}--?[a-z-]{2,20})*"
         r"|b2[ \t]{1,4}(?:account[ \t]{1,4}authorize|authorize[-_]account)[ \t]{1,4}[^\s]{8,64}"
         r"|mc[ \t]{1,4}(?:alias[ \t]{1,4}set|config[ \t]{1,4}host[ \t]{1,4}add)(?:[ \t]{1,4}[^\s]{1,300}){3}"
         r"|hdbuserstore(?:[ \t]{1,4}-[a-z]{1,4})*[ \t]{1,4}set(?:[ \t]{1,4}[^\s]{1,300}){3}"
         r"|bundle[ \t]{1,4}config(?:[ \t]{1,4}(?:set|--?local|--?global))*[ \t]{1,4}[a-z0-9.-]{1,100}\.[a-z]{2,}/?"
         r"[ \t]{1,4}[\"']?[^\s:\"']{1,128}:"
         r"|bundle_[a-z0-9_]{2,100}__[a-z]{2,10}[ \t]{0,4}[=:][ \t]{0,4}[\"']?[^\s:\"']{1,128}:)"
         r"[ \t]{0,4}[\"']?([^\s\"'-][^\s\"']{3,199})",
         "snyk auth <h8>-<h4>-<h4>-<h4>-<h12>", "token", 1, lower=True,
         markers=("snyk", "wandb", "b2 ", "mc ", "hdbuserstore", "bundle")),
    # network gear: a type-0 (plain) or type-7 (reversible) password, an SNMP community (IOS's
    # `snmp-server community X`, Junos' `set snmp community X`), a TACACS+ or RADIUS server's key
    # (`tacacs-server host 10.0.0.5 key 7 X`, `radius-server key 0 X`)
    Rule("password assignment", r"(?<![a-z0-9_-])(?:password[ \t]{1,4}[07]|secret[ \t]{1,4}[07]|key-string[ \t]{1,4}7"
         r"|(?:tacacs|radius)(?:-server)?(?:[ \t]{1,4}(?:host|server)[ \t]{1,4}[^\s]{1,100})?[ \t]{1,4}key[ \t]{1,4}[07]"
         r"|snmp(?:-server)?[ \t]{1,4}community|r[ow]community6?"
         # net-snmp's snmpd.conf maps a community to a security name: `com2sec NAME SOURCE COMMUNITY`
         r"|com2sec6?(?:[ \t]{1,4}-cn[ \t]{1,4}[^\s]{1,64})?[ \t]{1,4}[^\s]{1,64}[ \t]{1,4}[^\s]{1,100})[ \t]{1,4}([^\s]{4,200})",
         "username netops privilege 15 password 0 <a12>", "literal", 1, lower=True,
         markers=("password 0", "password 7", "secret 0", "secret 7", "key-string 7", "community", "key 7", "key 0",
                  "com2sec")),
    # SQL: `CREATE USER ... IDENTIFIED BY 'X'` (MySQL, Oracle), and MySQL 5's and Oracle's `GRANT ... TO
    # user IDENTIFIED BY 'X'`, which makes the user as it grants; `BY PASSWORD '*HASH'` is a hash; Oracle's
    # database link signs in to the other database as `CONNECT TO user IDENTIFIED BY X`
    Rule("password assignment", r"(?:(?:create|alter)[ \t]{1,4}(?:user|role|(?:shared[ \t]{1,4})?(?:public[ \t]{1,4})?database[ \t]{1,4}link)|grant)"
         r"[ \t][^\n;]{1,200}?[ \t]identified[ \t]{1,4}"
         r"(?:with[ \t]{1,4}[a-z0-9_]{1,40}[ \t]{1,4})?by[ \t]{1,4}(?!password[ \t]|values[ \t])[\"']?([^\s'\";]{4,200})",
         "alter user etl identified by '<a16>';", "password", 1, lower=True, markers=("identified by", "identified with")),
    # Redis' ACL (`user app on >X ~app:* +@all`, `ACL SETUSER app on >X`): `>` adds a password in clear
    # (`#<sha256>` adds its hash, `nopass` none)
    Rule("password assignment", r"(?<![\w-])(?:user|setuser)[ \t]{1,4}[^\s>]{1,64}(?:[ \t]{1,4}(?:on|off|reset|resetpass|resetkeys"
         r"|resetchannels|nopass|allkeys|allcommands|allchannels|nocommands|~[^\s>]{1,100}|%[^\s>]{1,100}|[+-]@?[^\s>]{1,100}"
         r"|&[^\s>]{1,100}|#[0-9a-f]{64}))*[ \t]{1,4}>([^\s]{4,200})",
         "user app on ><a16> ~app:* +@all", "password", 1, lower=True, markers=(" >",)),
    # an expect script answering a password prompt: `expect "assword:"` then `send "X\r"`
    Rule("password assignment", r"expect[ \t]{1,4}(?:-[a-z]{1,10}[ \t]{1,4})?[\"'{]?[^\n]{0,40}?(?i:assword|passphrase|pin)[^\n]{0,40}"
         r"\r?\n[ \t]{0,16}send[ \t]{1,4}(?:--[ \t]{1,4})?[\"{]([^\"\n{}\\]{4,200})(?:\\r|\\n)?[\"}]",
         'expect "Password:"\nsend "<a12>\\r"', "password", 1, markers=("send ",)),
    # a password typed by a tool that types for you (`xdotool type --delay 50 'X'`, `ydotool type`, `wtype`):
    # one word (typed text has spaces), a credential's look
    Rule("password assignment", r"(?<![\w-])(?:xdotool|ydotool|wtype)[ \t]{1,4}(?:type[ \t]{1,4})?(?:--?[\w-]{1,20}(?:[ \t]{1,4}[0-9]{1,5})?"
         r"[ \t]{1,4}){0,4}['\"]([^'\"\s]{6,200})['\"]",
         "xdotool type --delay 40 '<a14>'", "literal", 1, markers=("xdotool", "ydotool", "wtype")),
    # a TLS key log (SSLKEYLOGFILE, NSS's format): the session's secrets by the client random, which
    # decrypt the captured traffic (Wireshark reads it); the first hex is the client random, the second the secret
    Rule("TLS session secret", r"(?<![A-Za-z0-9_])(?:CLIENT_RANDOM|[A-Z_]{0,30}(?:TRAFFIC|EXPORTER)_SECRET(?:_[0-9])?)[ \t]{1,4}"
         r"[0-9a-fA-F]{64}[ \t]{1,4}([0-9a-fA-F]{64,96})(?![0-9a-fA-F])",
         "CLIENT_RANDOM <h64> <h96>", "value", 1, markers=("CLIENT_RANDOM", "_SECRET")),
    # AWS CDK's `SecretValue.unsafePlainText('X')`: a secret written into the template
    Rule("password assignment", _start(r"unsafePlainText\([ \t]{0,4}[\"'`]([^\"'`\n]{4,200})[\"'`]", _WORD),
         "SecretValue.unsafePlainText('<a16>')", "value", 1),
    # an API client made with its key as the only argument (Cohere's ClientV2, a Go NewClient)
    # (no dots: a host name; not a name made of words: a project id, `storage.Client("data-eu1")`)
    Rule("API key given to a client", r"Client(?:V[0-9])?\([ \t]{0,4}(?:api_key[ \t]{0,2}=[ \t]{0,2})?[\"']"
         r"([A-Za-z0-9_-]{20,200})[\"']", 'co = cohere.ClientV2("<a40>")', "random_name", 1),
    # sqlcmd, bcp: `-P` is the password; in other tools it takes `name=value` options or a profile
    Rule("password on a command line", _start(r"-P[ \t]{1,8}[\"']?([A-Za-z0-9][^\s\"'`/.:=,]{7,199})(?=[\"']?(?:\s|$))"),
         "sqlcmd -S db -U sa -P <a14>", "literal", 1, markers=("-P",)),
    # NuGet's API keys (`dotnet nuget push -k X`): `oy2` and 43 lower-case letters and digits
    Rule("NuGet API key", _start(r"oy2[a-z0-9]{43}", _WORD) + _B, "dotnet nuget push a.nupkg -k oy2<l43>", "has_digit"),
    # a cookie handed to curl (`-b "name=value"`, `--cookie`), or set by a response's header
    # (`Set-Cookie: name=value; Path=/`): the value, when random
    Rule("session cookie", _start(r"curl[ \t][^\n]{0,300}?(?<=[ \t])-b[ \t]{1,8}[\"']?[^=\s\"';]{1,64}="
         r"([^\s\"';]{16,4000})"), 'curl -b "sid=<a32>" https://app.example', "entropy", 1),
    Rule("session cookie", _start(r"set-cookie[\"']?[ \t]{0,4}:[ \t]{0,4}[^=\s\"';]{1,64}=([^\s\"';]{16,4000})", _LOWER),
         "Set-Cookie: sid=<a32>; Path=/; HttpOnly", "entropy", 1, lower=True),
    # a signed session cookie (Express's `connect.sid`, cookie-signature): `s:` then the session
    # id, a dot and the HMAC, URL-encoded or not
    Rule("signed session cookie", _start(r"s(?:%3[Aa]|:)([A-Za-z0-9_-]{24,64}\.[A-Za-z0-9+/]{27,60}(?:%2[BbFf][A-Za-z0-9+/]{0,20}){0,4})", _WORD)
         + _B, "connect.sid=s%3A<a32>.<a43>", "mixed", 1, markers=("s%3a", "s%3A", "s:")),
    # a sealed session cookie (@hapi/iron, as Kibana and hapi apps set it): `Fe26.2*`, then the
    # password id, salt, IV, ciphertext, expiry, HMAC salt and HMAC, separated by `*`
    Rule("sealed session cookie", _start(r"Fe26\.2\*[A-Za-z0-9_-]{0,64}\*[A-Za-z0-9]{16,128}\*[A-Za-z0-9_-]{16,64}\*[A-Za-z0-9_-]{20,}", _WORD),
         "sid=Fe26.2**<h64>*<a22>*<u80>**<h64>*<u43>", "mixed", markers=("Fe26.2*",)),
    # WordPress's login cookies: `wordpress_logged_in_` or `wordpress_sec_`, the site's hash, then
    # `user|expiry|token|hmac` (the `|` URL-encoded or not)
    Rule("WordPress login cookie", _start(r"wordpress_(?:logged_in|sec)_[0-9a-f]{32}=([^\s;|%]{1,60}(?:%7[Cc]|\|)[0-9]{9,11}"
         r"(?:%7[Cc]|\|)[A-Za-z0-9]{20,64}(?:%7[Cc]|\|)[0-9a-f]{32,64})", _WORD), "wordpress_logged_in_<h32>=ops%7C1765400000%7C<a43>%7C<h64>",
         "value", 1),
    # Twitch chat's IRC password: `oauth:` and the 30-character user access token
    Rule("Twitch OAuth token", _start(r"oauth:([a-z0-9]{30})", _WORD) + _B, "PASS oauth:<l30>", "has_digit", 1),
)

_ALPHABETS = {
    "a": string.ascii_letters + string.digits,
    "A": string.ascii_uppercase + string.digits,
    "l": string.ascii_lowercase + string.digits,
    "h": "0123456789abcdef",
    "H": "0123456789ABCDEF",
    "d": string.digits,
    "b": string.ascii_letters + string.digits + "+/",
    "u": string.ascii_letters + string.digits + "-_",
}
_RANDOM = lazy(r"<([aAlhHdbu])([0-9]{1,4})>")
_ENCODED = lazy(r"<([=~])([^<>]*)>")


def expand_example(template: str, *, seed: str = "") -> str:
    """A concrete value for an example template (see the module docstring), the same every run."""
    # here, not at the top: the tests and the benches expand examples, a write never does, and
    # every write imports this module (random: ~0.8 ms of a one-shot write's start, issue 29)
    import base64
    import random

    rng = random.Random(seed or template)

    def fill(m: re.Match[str]) -> str:
        alphabet, n = _ALPHABETS[m.group(1)], int(m.group(2))
        while True:  # mixed alphabets get a digit and a letter, like real keys
            s = "".join(rng.choice(alphabet) for _ in range(n))
            if n < 4 or not any(c.isalpha() for c in alphabet) or not any(c.isdigit() for c in alphabet):
                return s
            if any(c.isdigit() for c in s) and any(c.isalpha() for c in s):
                return s

    def encode(m: re.Match[str]) -> str:
        raw = m.group(2).encode()
        if m.group(1) == "=":
            return base64.b64encode(raw).decode()
        return base64.urlsafe_b64encode(raw).decode().rstrip("=")

    return _ENCODED.sub(encode, _RANDOM.sub(fill, template))
