"""Private keys and key material: PEM blocks and the formats that are not PEM, wallet keys.

- :func:`private_keys`: PEM, PGP and SSH2 private key blocks and any armour naming a key not said
  to be public.
- :func:`wallet_keys`: bech32 secret keys (``nsec1...``, a human-readable part naming a secret),
  BIP-32 extended private keys (``xprv``, ``tprv``, ``yprv``, ``zprv``) and WIF private keys (by
  their version byte and checksum).
- :func:`key_blocks`: private keys that are not PEM: PuTTY ``.ppk`` files, minisign and signify
  secret keys, age identities (any length, plugin identities too) and the private members of a
  JSON Web Key (``"d"``, ``"p"``, ``"k"``, ... beside ``"kty"``).
  Cardano ``.skey`` files (a ``cborHex`` under a ``...SigningKey...`` type) and Kerberos keytabs
  in base64 (``BQI...``: the file's ``0x0502`` magic) are key material too.
- :func:`der_private_keys`: a private key in base64 DER without its armour, by its ASN.1 start
  (a version number first: PKCS#1, PKCS#8, SEC1, PKCS#12); certificates and public keys pass.
- :func:`bearer_blobs`: macaroons and onion service keys.

Each yields spans in the text it is given.
"""

from __future__ import annotations

import base64
import binascii
import bisect
import hashlib
import re
from collections.abc import Iterator

from vault_mem.model.lazy_patterns import lazy
from vault_mem.model.secret_checks import SecretFinding
from vault_mem.model.secret_tokens import Span, Words
from vault_mem.model.secret_public import der_key
from vault_mem.model.secret_values import is_placeholder, random_hex, shannon_entropy

__all__ = ["bearer_blobs", "der_private_keys", "key_blocks", "private_keys", "wallet_keys"]

# --- wallet keys -----------------------------------------------------------------------------

# bech32 with a human-readable part that names a secret (Nostr's nsec1, a wallet's ...sec1, ...prv1)
_BECH32_SECRET_HRPS = ("sec", "secret", "priv", "prv", "sk")  # how the human-readable part ends
_BECH32_SECRET = lazy(rf"(?<![a-z0-9])[a-z]{{0,8}}(?:{'|'.join(_BECH32_SECRET_HRPS)})1"
                            r"[qpzry9x8gf2tvdw0s3jn54khce6mua7l]{50,}(?![a-z0-9])")
_BECH32_MARKS = tuple(hrp + "1" for hrp in _BECH32_SECRET_HRPS)
# BIP-32 extended private keys: base58 of 82 bytes, 111 characters
_XPRV = lazy(r"(?<![A-Za-z0-9])[xyztuvXYZUV]prv[1-9A-HJ-NP-Za-km-z]{100,112}(?![A-Za-z0-9])")


# A private key in Wallet Import Format: base58 of a version byte (0x80 main net, 0xef test net), 32
# key bytes, 0x01 for a compressed key, and a 4-byte checksum (the double SHA-256 of the rest)
_WIF = lazy(r"(?<![A-Za-z0-9])[59KLc][1-9A-HJ-NP-Za-km-z]{50,51}(?![A-Za-z0-9])")
_B58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"


def _valid_wif(run: str) -> bool:
    """Does ``run`` decode to a private key with the format's version byte and checksum? A random
    run of base58 passes it one time in four billion."""
    n = 0
    for c in run:
        n = n * 58 + _B58.index(c)
    size = 38 if len(run) == 52 else 37  # a compressed key's 0x01 and its checksum, or the checksum alone
    # a run whose number needs more bytes than its length allows is no key (and no OverflowError:
    # 51 characters of base58 reach 38 bytes)
    raw = n.to_bytes(size, "big") if n.bit_length() <= 8 * size else b""
    if len(raw) not in (37, 38) or raw[0] not in (0x80, 0xEF) or (len(raw) == 38 and raw[33] != 0x01):
        return False
    return hashlib.sha256(hashlib.sha256(raw[:-4]).digest()).digest()[:4] == raw[-4:]


def wallet_keys(text: str) -> Iterator[Span]:
    """Wallet secret keys written in a format that says it: bech32 ``nsec1...``, BIP-32 ``xprv...``
    and a private key in Wallet Import Format (by its checksum)."""
    for m in _WIF.finditer(text) if len(text) >= 51 else ():
        if _valid_wif(m.group()) and not is_placeholder(m.group(), quoted=True):
            yield "wallet private key", m.start(), m.end()
    if any(mark in text for mark in _BECH32_MARKS):  # (a substring search, not a regex pass over every text)
        for m in _BECH32_SECRET.finditer(text):
            yield "wallet secret key", m.start(), m.end()
    if "prv" in text:
        for m in _XPRV.finditer(text):
            yield "wallet extended private key", m.start(), m.end()
    if "allet" in text or "ALLET" in text or "etaMask" in text or "etamask" in text:
        for m in _WALLET_HEX.finditer(text):
            if _wallet_key_said(text, m) and random_hex(m.group("key").removeprefix("0x"), min_len=64):
                yield "wallet private key", m.start("key"), m.end("key")
    if "accounts" in text:
        for m in _ACCOUNT_KEYS.finditer(text):
            key = m.group("key")
            if random_hex(key.removeprefix("0x"), min_len=64):
                yield "wallet private key", m.start("key"), m.end("key")


# 64 hex after a wallet's name and a sign, where the words of its clause name the private key
# ("MetaMask private key is <64 hex>", "wallet priv: ...") or its export ("metamask export for the
# test wallet: 0x<64 hex>"): an account's address is 40 hex, but a wallet's public key, a
# transaction's hash, an event's topic, a salt and a storage slot are 64 too ("Taproot wallet
# public key: <64 hex>", "funded the wallet: 0x<64 hex>", "Wallet event topic for key rotation:"),
# so "key" alone says nothing, the naming word counts only in the value's own clause ("Exported
# the payments CSV. Refund wallet: 0x..." is a refund's address), and no word of that clause may
# name one of those ("CREATE2 salt for the private wallet = 0x...")
_WALLET_HEX = lazy(r"(?i:wallet|metamask)(?P<between>[^\n:=]{0,60}?)(?:[ \t]{0,4}[:=][ \t]{0,4}|[ \t]{1,4}is[ \t]{1,4})"
                   r"[\"'`]?(?P<key>(?:0x)?[0-9a-fA-F]{64})(?![0-9a-zA-Z])")
_KEY_WORD = lazy(r"(?i)(?<![a-z])(?:(?:private|secret|priv)(?:[ _-]?key)?|privkey|export(?:ed|ing|s)?)(?![a-z])")
_NOT_A_KEY = lazy(r"(?i)(?<![a-z])(?:tx|txn|transactions?|blocks?|address(?:es)?|addr|receipts?|ids?|public(?:[ _-]?key)?"
                  r"|pub(?:[ _-]?key)?|topics?|events?|salt(?:ed)?|storage|slot)(?![a-z])|hash|digest")
# where the words naming the value stop: a sentence's or a clause's end, or a line's
_CLAUSE_END = lazy(r"[.!?;][ \t]|\n")


def _wallet_key_said(text: str, m: re.Match[str]) -> bool:
    """Do the words of the value's clause, up to 40 characters before the wallet's name, name its
    private key or its export, and none of them anything else 64 hex may be?"""
    start = max(0, m.start() - 40)
    end = m.start("between") + len(m.group("between"))
    for brk in _CLAUSE_END.finditer(text, start, end):
        start = brk.end()
    return _KEY_WORD.search(text, start, end) is not None and not _NOT_A_KEY.search(text, start, end)


# An Ethereum network's `accounts: ["<64 hex>", ...]` in a Hardhat or Truffle config: the list
# takes private keys (an account's address is 40 hex; a mnemonic is an object there)
_ACCOUNT_KEYS = lazy(r"(?<![\w-])[\"']?accounts[\"']?[ \t]{0,4}[:=][ \t]{0,4}\[[ \t\r\n]{0,40}"
                     r"(?:[\"'](?:0x)?[0-9a-fA-F]{64}[\"'][ \t]{0,4},[ \t\r\n]{0,40}){0,20}"
                     r"[\"'](?P<key>(?:0x)?[0-9a-fA-F]{64})[\"']")


# --- private keys that are not PEM ---------------------------------------------------------

_PUTTY = lazy(r"PuTTY-User-Key-File-[0-9]{1,2}:")
# Tor's onion-service key file (`hs_ed25519_secret_key`: its header, then the key's 64 bytes), as
# its text header and the key in base64 below it, or the whole file in base64 (the header's base64
# starts it); the header alone, with no key after it, is talk about the file
_TOR_SECRET = lazy(r"==[ \t]?(?:ed25519|curve25519|x25519)v1-secret:[ \t]?type[0-9][ \t]?==[ \t]{0,4}\r?\n?[ \t]{0,4}[A-Za-z0-9+/]{40,400}={0,2}"
                   r"|PT0gZWQyNTUxOXYxLXNlY3JldDog[A-Za-z0-9+/]{40,400}={0,2}")
_PUTTY_PRIVATE = lazy(r"Private-Lines:[ \t]{0,8}[0-9]{1,4}[ \t]{0,8}\r?\n[ \t]{0,8}[A-Za-z0-9+/=]{16,}")
_SECRET_KEY_COMMENT = lazy(r"(?i:secret key)[^\n]{0,80}\r?\n[ \t]{0,8}([A-Za-z0-9+/]{40,}={0,2})")
# age's identities and any tool's of their form (`<TOOL>-SECRET-KEY-1` and bech32): the name says it
_AGE = lazy(r"(?<![A-Za-z0-9_-])(?:AGE-PLUGIN-[A-Z0-9]{1,30}|[A-Z][A-Z0-9]{0,15}(?:-[A-Z0-9]{1,15}){0,2}-SECRET-KEY)"
            r"-1[A-Za-z0-9]{20,}")
_JWK_PRIVATE = lazy(r"\"(?:d|p|q|dp|dq|qi|k)\"[ \t]{0,8}:[ \t]{0,8}\"([A-Za-z0-9_-]{16,})\"")


# A Cardano key file whose type names a signing key, a PaymentSigningKeyShelley_ed25519 for one:
# its `cborHex` is the key (a VerificationKey file's is public)
_SIGNING_KEY_FILE = lazy(r"\"type\"[ \t]{0,8}:[ \t]{0,8}\"[A-Za-z0-9_]{0,40}SigningKey[A-Za-z0-9_]{0,40}\"")
_CBOR_HEX = lazy(r"\"cborHex\"[ \t]{0,8}:[ \t]{0,8}\"(5820[0-9a-fA-F]{64,}|5840[0-9a-fA-F]{128,})\"")
# A Kerberos keytab in base64: the file starts with 0x0502 (base64 `BQI`), then an entry's length
# (0x05 0x02 and the first entry's size: base64 `BQI`..`BQL`, by the size's top bits)
_KEYTAB = lazy(r"(?<![A-Za-z0-9+/])BQ[IJKL][A-Za-z0-9+/]{60,}={0,2}")
_KEYTAB_REACH = 200
# A Java keystore in base64 (a CI variable that CI decodes into `release.jks`): JKS's magic 0xFEEDFEED
# or JCEKS's 0xCECECECE, then its version (1 or 2), as base64 `/u3+7QAAAA` or `zs7OzgAAAA` and `E`-`H`
# (version 1) or `I`-`L` (version 2; the letter's last bits are the next byte's).
# The store holds private keys (its password guards their entries only loosely); a truststore of
# certificates starts the same, so the name is read too: "trust" before it passes.
_KEYSTORE = lazy(r"(?<![A-Za-z0-9+/])(?:/u3\+7Q|zs7Ozg)AAAA[E-L][A-Za-z0-9+/]{40,}={0,2}")
_TRUSTSTORE = lazy(r"(?i:trust(?:store)?|cacerts)")
# .NET's `<RSAKeyValue>` (and `<DSAKeyValue>`) XML: `<Modulus>` and `<Exponent>` are the public key, the
# private exponent `<D>`, the primes `<P>`/`<Q>`, `<DP>`, `<DQ>`, `<InverseQ>` (DSA's `<X>`) the private one
_XML_PRIVATE = lazy(r"<(?P<tag>D|P|Q|DP|DQ|InverseQ|X)>[ \t\r\n]{0,4}(?P<value>[A-Za-z0-9+/]{16,4096}={0,2})[ \t\r\n]{0,4}</(?P=tag)>")


def _keytab(run: str) -> bool:
    try:
        raw = base64.b64decode(run + "=" * (-len(run) % 4))
    except (binascii.Error, ValueError):
        return False
    size = int.from_bytes(raw[2:6], "big", signed=True)
    return raw[:2] == b"\x05\x02" and 16 <= size <= len(raw) - 6


# An unarmoured private key in base64 DER (the armour lines lost in a paste, a key in a JSON
# field or after `NAME=`): what the blob is, read from its ASN.1 structure, is
# secret_values.der_key's (PKCS#1, PKCS#8, SEC1, PKCS#12 are private; public keys, certificates
# and requests pass, and a DKIM record's public key is no secret whatever its label).
_DER = lazy(r"M[A-Za-z0-9+/]{42,}")
_DER_SIGNS = "=:"  # (inside a word, the value starts after a name's sign: `SIGNING_KEY_DER=MII...`)


def der_private_keys(text: str, words: Words) -> Iterator[Span]:
    """A private key in base64 DER without its armour lines (see :data:`_DER`)."""
    for start, end in words:  # (a test of each word's first letter: a regex per word costs ten times this)
        at = start
        while at < end and text[at] in "\"'`([{=:,":
            at += 1
        starts = [at]
        for sign in _DER_SIGNS:
            inner = text.find(sign, at, end)
            while inner >= 0:
                starts.append(inner + 1 + (text[inner + 1:inner + 2] in ("\"", "'")))
                inner = text.find(sign, inner + 1, end)
        for at in starts:
            if text.startswith("M", at) and end - at >= 43 and der_key(text[at:at + 96]) == "private":
                run = _DER.match(text, at)
                if run:
                    yield "private key (base64 DER)", at, run.end()
                    break


# Bearer blobs known by their binary structure rather than a prefix:
# - a macaroon (LND's admin.macaroon, any service's): v2 in hex (`0201...`) or base64 (`AgE...`) is
#   the version byte 2, an optional location field (type 1, a length, the bytes) and then its
#   identifier field (type 2); v1 in base64 is text packets, four hex digits of length and
#   `location ` or `identifier `. Whoever holds one is its holder's caveats' bearer.
# - a Tor onion service's private key as ADD_ONION and its control port take it:
#   `ED25519-V3:<base64 of 64 bytes>`, `RSA1024:<base64 DER>`.
_MACAROON_HEX = lazy(r"0201[0-9a-fA-F]{60,}")
_MACAROON_B64 = lazy(r"(?:AgE|MDA)[A-Za-z0-9+/_-]{40,}={0,2}")
_ONION_KEY = lazy(r"(?:ED25519-V3:[A-Za-z0-9+/]{86}={0,2}|RSA1024:M[A-Za-z0-9+/]{100,}={0,2})(?![A-Za-z0-9+/=])")


def _macaroon(raw: bytes) -> bool:
    """Do ``raw``'s first bytes frame a macaroon, v2 binary or v1 text packets (see above)?"""
    if raw[:1] == b"\x02":
        at = 1
        if raw[at:at + 1] == b"\x01":  # the location: a one-byte length (a varint below 128)
            if at + 1 >= len(raw) or raw[at + 1] >= 0x80:
                return False
            at += 2 + raw[at + 1]
        return raw[at:at + 1] == b"\x02" and at + 1 < len(raw) and raw[at + 1] > 0  # the identifier, not empty
    head = raw[:15]
    return all(c in b"0123456789abcdef" for c in head[:4]) and (head[4:13] == b"location " or head[4:15] == b"identifier ")


def bearer_blobs(text: str, words: Words) -> Iterator[Span]:
    """Macaroons by their structure and Tor onion service keys by their form (see above)."""
    for start, end in words:
        at = start
        while at < end and not text[at].isalnum():
            at += 1
        begins = [at] + [sign + 1 for sign in (text.find(":", at, end), text.find("=", at, end)) if sign >= 0]
        for begin in begins:
            onion = _ONION_KEY.match(text, begin, end) if text.startswith(("ED25519-V3:", "RSA1024:"), begin) else None
            if onion:
                yield "onion service private key", onion.start(), onion.end()
                break
            hexed = _MACAROON_HEX.match(text, begin, end) if text.startswith("0201", begin) else None
            b64 = _MACAROON_B64.match(text, begin, end) if text.startswith(("AgE", "MDA"), begin) else None
            run = hexed or b64
            if run is None:
                continue
            try:
                raw = bytes.fromhex(run.group()[:64]) if hexed else base64.urlsafe_b64decode(
                    run.group()[:64].replace("+", "-").replace("/", "_"))
            except (binascii.Error, ValueError):
                continue
            if _macaroon(raw):
                yield "macaroon", run.start(), run.end()
                break


_PRIVATE_SPAN = 4 * 1024  # a .ppk's private lines follow its header within this (RSA-4096: ~1 KB)


def key_blocks(text: str) -> Iterator[Span]:
    """PuTTY keys, minisign/signify secret keys, age identities, private JWK members, Cardano
    signing key files, Kerberos keytabs and Java keystores in base64, Tor onion-service keys."""
    if "PuTTY-User-Key-File-" in text:
        for m in _PUTTY.finditer(text):
            body = _PUTTY_PRIVATE.search(text, m.end(), m.end() + _PRIVATE_SPAN)
            if body:
                yield "PuTTY private key", m.start(), body.end()
    low_has = "secret key" in text or "SECRET KEY" in text or "Secret Key" in text
    if low_has:
        for m in _SECRET_KEY_COMMENT.finditer(text):
            if shannon_entropy(m.group(1)) >= 4.0:
                yield "secret key block", m.start(1), m.end(1)
    if "AGE-PLUGIN-" in text or "-SECRET-KEY-1" in text:
        for m in _AGE.finditer(text):
            yield "age secret key" if m.group().startswith("AGE-") else "secret key", m.start(), m.end()
    if '"kty"' in text:
        for m in _JWK_PRIVATE.finditer(text):
            if not is_placeholder(m.group(1), quoted=True) and shannon_entropy(m.group(1)) >= 3.5:
                yield "JSON Web Key private part", m.start(1), m.end(1)
    if "SigningKey" in text and "cborHex" in text and _SIGNING_KEY_FILE.search(text):
        for m in _CBOR_HEX.finditer(text):
            yield "signing key file", m.start(1), m.end(1)
    if "BQ" in text:
        for m in _KEYTAB.finditer(text):
            # (a keytab's magic, and its first entry's size or the word "keytab" before it: a
            # hand-cut or redacted entry has a size no parser would take, the name still says it)
            if _keytab(m.group()) or "keytab" in text[max(0, m.start() - _KEYTAB_REACH):m.start()].lower():
                yield "Kerberos keytab", m.start(), m.end()
    if "AAAA" in text and ("/u3+7Q" in text or "zs7Ozg" in text):
        for m in _KEYSTORE.finditer(text):
            if not _TRUSTSTORE.search(text, max(0, m.start() - _KEYTAB_REACH), m.start()):
                yield "Java keystore", m.start(), m.end()
    if "v1-secret: type" in text or "PT0gZWQyNTUxOXYxLXNlY3JldDog" in text:
        for m in _TOR_SECRET.finditer(text):
            yield "Tor secret key", m.start(), m.end()
    if "<RSAKeyValue" in text or "<DSAKeyValue" in text:
        for m in _XML_PRIVATE.finditer(text):
            if shannon_entropy(m.group("value")) >= 4.0:
                yield ".NET XML private key", m.start("value"), m.end("value")


_PRIVATE_KEY = lazy(r"-{4,5} ?BEGIN[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)? ?-{4,5}")  # PEM, PGP, SSH2 (4 dashes)
_KEY_BODY = lazy(r"[A-Za-z0-9+/=]{20,}")
_KEY_END = lazy(r"-{4,5} ?END[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)? ?-{4,5}")
_MAX_KEY_CHARS = 64 * 1024  # larger than any armoured private key
# Any other armour that names a key (`-----BEGIN OpenVPN Static key V1-----`, a tool's `SECRET KEY`,
# `SYMMETRIC KEY`): a key that is not said to be public is a secret, whoever's format it is
# (certificates, signatures, messages and parameters name no key)
# (or a token, secret or credentials: `-----BEGIN ARGO TUNNEL TOKEN-----`, cloudflared's cert.pem)
_ARMOURED_KEY = lazy(r"-{5} ?BEGIN (?P<label>[A-Za-z0-9 -]{0,40}?(?i:key|token|secret|credentials?|password)(?![a-z])[A-Za-z0-9 -]{0,20}?) ?-{5}")


def private_keys(text: str) -> Iterator[SecretFinding]:
    """Armoured private key blocks, from BEGIN to END (or to the end of the key material), and
    armour of any other name that says it holds a key and not a public one."""
    if "BEGIN" in text:
        for m in _ARMOURED_KEY.finditer(text):
            label = m.group("label").upper()
            if "PRIVATE KEY" in label or "PUBLIC" in label or "PUB " in label + " ":
                continue
            body = _KEY_BODY.search(text, m.end(), m.end() + 400)
            if body and shannon_entropy(body.group()) >= 3.0:
                yield SecretFinding("secret key block", m.start(), body.end())
    if "PRIVATE KEY" not in text:
        return
    ends = [m.end() for m in _KEY_END.finditer(text)]
    for m in _PRIVATE_KEY.finditer(text):
        body = _KEY_BODY.search(text, m.end(), m.end() + 400)
        if not body:
            continue  # a header named in prose leaks nothing
        i = bisect.bisect_left(ends, m.end())
        end = ends[i] if i < len(ends) and ends[i] - m.start() <= _MAX_KEY_CHARS else body.end()
        yield SecretFinding("private key block", m.start(), end)
