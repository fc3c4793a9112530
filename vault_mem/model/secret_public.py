"""Values public by design: meant to ship in a page or an app, documented, or no credential at all.

- :func:`public_by_design`: publishable keys (Stripe ``pk_``, Mapbox ``pk.``, PostHog ``phc_``,
  LaunchDarkly ``mob-``, Datadog's ``pub`` client tokens), public keys (an elliptic-curve point,
  a signify public key, a DER ``SubjectPublicKeyInfo``: :func:`der_key`).
- :func:`in_web_config`: a web app's client config (Firebase's ``apiKey`` beside ``authDomain``).
- :func:`analytics_cookies`: a page's analytics and consent cookies (``_ga=GA1.2...``) in their
  public shapes.

Each finder asks these before it refuses a value; a new public format is a row here. Vendors'
documented sample keys and the jwt.io sample token are placeholders
(:func:`vault_mem.model.secret_values.documented_example`, :func:`~vault_mem.model.secret_values.sample_jwt`).
"""

from __future__ import annotations

import base64
import binascii
import re
from urllib.parse import unquote

from vault_mem.model.lazy_patterns import lazy
from vault_mem.model.secret_values import UUID

__all__ = ["PUBLIC_PREFIXES", "TAILSCALE_PUBLIC_KEYS", "analytics_cookies", "der_key", "in_web_config", "public_by_design"]

# Keys public by design, meant to ship in a web page or an app bundle: Stripe publishable keys,
# Mapbox public tokens (``pk.``), PostHog project keys (``phc_``), LaunchDarkly mobile keys,
# Supabase's publishable keys (``sb_publishable_``, 2025's successor of the anon JWT; its
# ``sb_secret_`` is a credential).
# Razorpay's ``rzp_live_``/``rzp_test_`` is the key *id* sent to every checkout page (its key
# secret has no prefix).
# Statsig's and others' ``client-`` keys go in the page too (their server keys are ``secret-``).
#: Tailscale's public keys by the name it writes before them (`nodekey:<hex>`, the machine's `mkey:`, the
#: disco key, the tailnet lock's `nlpub:`; `privkey:` and `nlpriv:` are secrets): the one list a value's
#: prefix (:data:`PUBLIC_PREFIXES`), a field's name (``secret_names.key_class``) and a word before a value
#: (``secret_judge.NEAR_STOP``) read
TAILSCALE_PUBLIC_KEYS = ("nodekey", "mkey", "discokey", "nlpub")
PUBLIC_PREFIXES = ("pk_live_", "pk_test_", "pk.", "phc_", "mob-", "rzp_live_", "rzp_test_", "client-", "sb_publishable_",
                   *(f"{name}:" for name in TAILSCALE_PUBLIC_KEYS))
# Datadog's RUM and browser-logs client tokens: ``pub`` and 32 hex, shipped in every page.
_PUBLIC_TOKEN = lazy(r"pub[0-9a-f]{32}")


# An elliptic-curve public key by its shape: an uncompressed point (0x04, then X and Y; a Web
# Push VAPID key, a P-256 JWK's point) as 65 bytes of base64url or 130 hex, a compressed one (0x02
# or 0x03, then X; secp256k1's, dotenvx's DOTENV_PUBLIC_KEY) as 66 hex. A private scalar is 32
# bytes: 43 base64url characters or 64 hex, never these lengths with this first byte.
_EC_POINT = lazy(r"B[A-P][A-Za-z0-9_-]{85}=?|04[0-9a-fA-F]{128}|0[23][0-9a-fA-F]{64}")

# Cookies a page's scripts set for analytics, ad attribution and consent (Google Analytics' `_ga`,
# `_gid`, `_ga_<id>`, `__utma`; Google Ads' `_gcl_au`; Meta's `_fbp`; Matomo's `_pk_id.*`;
# Hotjar's `_hj*`; Clarity's `_clck`; Bing's `_uetsid`; HubSpot's `__hstc`; Segment's `ajs_*`;
# OneTrust's and Cookiebot's consent records): a visitor id, timestamps and counts, or the
# choices made, readable by every script on the page and sent to the vendor. Nothing signs in
# with them, so one under a "cookie" label is no session. Their values have public shapes: short
# fields between dots, `$`, `|` or `&` (`GA1.2.<random int>.<timestamp>`, `fb.1.<ms>.<int>`), a
# UUID, a 16-hex visitor id; a run longer than a UUID's 32 characters is no shape of theirs.
_ANALYTICS_COOKIE = lazy(r"(?:_ga(?:_[A-Za-z0-9]{4,16})?|_gid|_gat(?:_[\w-]{1,40})?|_gac_[\w-]{1,60}|_gcl_[a-z]{2,4}"
                         r"|__utm[a-z]|_fbp|_fbc|_pk_(?:id|ses|ref|cvar|hsr)(?:\.[\w-]{1,20}){0,2}|_hj[A-Za-z_0-9]{1,60}"
                         r"|_clck|_clsk|_uetsid|_uetvid|__hstc|__hssc|__hssrc|hubspotutk|ajs_(?:anonymous|user)_id|_ttp"
                         r"|_scid|_rdt_uuid|_pin_unauth|mp_[0-9a-f]{32}_mixpanel|optanonconsent|optanonalertboxclosed"
                         r"|cookieconsent|cookieconsent_status|euconsent(?:-v2)?)", re.IGNORECASE)
_COOKIE_PAIR = lazy(r"[ \t]*(?P<name>[^\s=;]{1,80})[ \t]*=(?P<value>[^;]*)")
_LONG_RUN = lazy(r"[A-Za-z0-9+/_-]{33}")


def analytics_cookies(value: str) -> bool:
    """Is ``value`` one cookie or several (``name=value``, joined by ``;``), each of them one a
    page's scripts set for analytics or consent, of its public shape (see above), not a session?"""
    pairs = value.strip().rstrip(";").split(";")
    return all((m := _COOKIE_PAIR.fullmatch(p)) is not None and _ANALYTICS_COOKIE.fullmatch(m.group("name")) is not None
               and _LONG_RUN.search(UUID.sub("", unquote(m.group("value")))) is None for p in pairs)


def public_by_design(value: str) -> bool:
    """Is ``value`` a key its vendor publishes to browsers and apps (see :data:`PUBLIC_PREFIXES`),
    an elliptic-curve public key by its shape (:data:`_EC_POINT`), or a public key or certificate
    in base64 DER by its ASN.1 structure (:func:`der_key`: a DKIM record's ``p=``)?"""
    return value.startswith(PUBLIC_PREFIXES) or _PUBLIC_TOKEN.fullmatch(value) is not None \
        or _EC_POINT.fullmatch(value) is not None or der_key(value) == "public" or _signify_public(value)


# A minisign or signify public key (`minisign -P X`, a release page's "verify with X"): base64 of 42
# bytes, `Ed` (the algorithm), an 8-byte key id and the 32-byte Ed25519 public key; 56 characters
# starting `RWQ`, `RWR` or `RWS`. A secret key is longer (104 bytes and more) and starts `RWRTY0Iy`
# (minisign, `EdScB2`) or `RWRCSw` (signify, `EdBK`).
_SIGNIFY_PUBLIC = lazy(r"RW[Q-T][A-Za-z0-9+/]{53}")


def _signify_public(value: str) -> bool:
    return _SIGNIFY_PUBLIC.fullmatch(value) is not None


# --- what a DER blob is -----------------------------------------------------------------------
# A key or certificate in base64 DER without its armour (a DKIM record's `p=`, a key in a JSON
# field or an env var) is an ASN.1 SEQUENCE (0x30: base64 `M`); its first members say what it is:
#   INTEGER 0, then an AlgorithmIdentifier SEQUENCE and an OCTET STRING: PKCS#8 PrivateKeyInfo
#   INTEGER 0, then INTEGER (the modulus; DSA's p): PKCS#1 RSAPrivateKey, a DSA private key
#   INTEGER 1, then OCTET STRING (SEC1 ECPrivateKey) or SEQUENCE (PKCS#8 v2 OneAsymmetricKey)
#   INTEGER 3, then SEQUENCE: a PKCS#12 bundle (its key inside)
#   SEQUENCE{AlgorithmIdentifier (an OID first), BIT STRING}: SubjectPublicKeyInfo, public
#   SEQUENCE{TBSCertificate ([0] version), ...}: a certificate, public
#   INTEGER of a modulus's length, then INTEGER: PKCS#1 RSAPublicKey, public
# An EncryptedPrivateKeyInfo (SEQUENCE{AlgorithmIdentifier, OCTET STRING}) is a ciphertext: neither.
_B64_RUN = lazy(r"[A-Za-z0-9+/]*")
# the password-based encryption OIDs (PKCS#5 1.2.840.113549.1.5.*, PKCS#12 1.2.840.113549.1.12.*)
_PBE_OIDS = (bytes.fromhex("2a864886f70d0105"), bytes.fromhex("2a864886f70d010c"))
_DER_READ = 96  # base64 characters decoded (72 bytes: past an EC key's AlgorithmIdentifier)


def _der_head(raw: bytes, at: int) -> tuple[int, int, int] | None:
    """(tag, start of contents, length) of the DER element at ``at``, or None past ``raw``."""
    if at + 2 > len(raw):
        return None
    tag, size = raw[at], raw[at + 1]
    if size < 0x80:
        return tag, at + 2, size
    n = size & 0x7F
    if not 1 <= n <= 3 or at + 2 + n > len(raw):
        return None
    return tag, at + 2 + n, int.from_bytes(raw[at + 2:at + 2 + n], "big")


def der_key(value: str) -> str | None:
    """``"private"`` or ``"public"`` when ``value`` starts with the base64 of a DER key or
    certificate of that kind (see the table above), else None. Reads the first
    :data:`_DER_READ` characters only."""
    if not value.startswith("M") or len(value) < 43:
        return None
    run = _B64_RUN.match(value, 0, _DER_READ).group()
    try:
        raw = base64.b64decode(run[:len(run) - len(run) % 4])
    except (binascii.Error, ValueError):
        return None
    outer = _der_head(raw, 0)
    first = _der_head(raw, outer[1]) if outer and outer[0] == 0x30 else None
    if first is None:
        return None
    tag, at, size = first
    after = _der_head(raw, at + size)
    if tag == 0x02 and size == 1:
        version, nxt = raw[at], (after[0] if after else None)
        if version == 0 and nxt == 0x30:
            # (PKCS#8: the OCTET STRING after the algorithm; past what was read, the version says enough)
            behind = _der_head(raw, after[1] + after[2])
            return "private" if behind is None or behind[0] == 0x04 else None
        if (version, nxt) in ((0, 0x02), (1, 0x04), (1, 0x30), (3, 0x30)):
            return "private"
        return None
    if tag == 0x02 and size >= 64 and (after is None or after[0] == 0x02):
        return "public"  # (RSAPublicKey: the modulus, then the exponent, past what was read)
    if tag == 0x30:
        inner = _der_head(raw, at)
        if inner and inner[0] == 0x06 and (after is None or after[0] == 0x03) \
                and not raw[inner[1]:inner[1] + inner[2]].startswith(_PBE_OIDS):
            return "public"  # SubjectPublicKeyInfo (DSA's parameters run past what was read)
        if inner and inner[0] == 0xA0 and size >= 64:
            return "public"  # a certificate: its TBSCertificate starts with [0] version
    return None


#: what a Firebase web config (``authDomain`` ...) or an app's ``google-services.json``
#: (``project_number`` ...) holds beside its ``apiKey``/``current_key`` and ``appId``
_WEB_CONFIG = ("authDomain", "firebaseapp.com", "messagingSenderId", "storageBucket", "storage_bucket",
               "projectId", "project_number", "mobilesdk_app_id", "measurementId")
_WEB_CONFIG_REACH = 400
#: the value is a config object's own ``apiKey``/``appId``/``current_key`` member, not a key
#: merely written near one
_CONFIG_MEMBER = lazy(r"""["']?(?:apiKey|appId|current_key|mobilesdk_app_id)["']?\s*[:=]\s*["']?\Z""")


def in_web_config(text: str, start: int, end: int) -> bool:
    """Is ``text[start:end]`` the ``apiKey``/``appId`` member of a Firebase web or app config
    (named so right before it, two of the config's other members within reach)? These ship in
    every page and app by design (their safety is in the key's restrictions); a key written
    near a config, or under another name, is judged as any."""
    if _CONFIG_MEMBER.search(text[max(0, start - 40):start]) is None:
        return False
    near = text[max(0, start - _WEB_CONFIG_REACH):end + _WEB_CONFIG_REACH]
    return sum(w in near for w in _WEB_CONFIG) >= 2
