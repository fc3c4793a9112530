"""Credentials in a field named for them: a sibling field, a column, an element, a header, a file.

- :func:`named_values`: the field beside the name (``<add key="ApiSecret" value="X"/>``, a
  Kubernetes ``- name:``/``value:`` entry, Terraform's ``variable`` default, a plist's
  ``<key>``/``<string>``, a call's ``"NAME", "X"`` pair, a resource typed or named for a
  credential and its generated ``result``).
- :func:`table_cells`: a credential column of a Markdown, org-mode, reStructuredText or HTML table;
  :func:`csv_exports`: of a CSV export with a header row.
- :func:`xml_elements`: an element named for a credential (namespaced ones too).
- :func:`header_lists` and :func:`request_headers`: random values in a ``*_HEADERS`` setting and in
  a request header of any name.
- :func:`credential_files`: cookie jars and quoted user lists.
- :func:`block_values`: the members of a block named for credentials (Consul's ``tokens { agent = X }``).
- :func:`settings_values`: a random token under a setting of any name (``FROB_ACCESS=X``, ``"authz": "X"``,
  ``<frobAccess>X</frobAccess>``, ``--using X``), unless the name's words say it holds an id, a digest or a
  public part.

The field's name is judged by :func:`vault_mem.model.secret_names.key_class` and its value by
:func:`vault_mem.model.secret_judge.judge`. Each finder yields ``(kind, start, end)``.
"""

from __future__ import annotations

import base64
import binascii
import itertools
import re
from collections.abc import Iterator
from urllib.parse import unquote

from vault_mem.model.lazy_patterns import lazy
from vault_mem.model.secret_judge import grants, judge, strong_unlabelled
from vault_mem.model.secret_names import Span, key_class, public_name
from vault_mem.model.secret_near import own_name, random_value, under_encrypted
from vault_mem.model.secret_text import lines_holding, long_words
from vault_mem.model.secret_public import analytics_cookies
from vault_mem.model.secret_tokens import base36_tail
from vault_mem.model.secret_values import (
    UUID, high_entropy, identifier_like, is_placeholder, is_wordy, looks_fake, random_hex, random_token, stored_not_secret,
)

__all__ = ["block_values", "credential_files", "csv_exports", "header_lists", "named_values", "request_headers",
           "settings_values", "table_cells", "xml_elements"]

# `<add key="ApiSecret" value="..."/>`, `{"name": "DB_PASSWORD", "value": "..."}`, a Kubernetes env
# entry (`- name: API_TOKEN` / `value: ...`): the label is one field's value, the secret the next's.
_NAME_VALUE = lazy(r"(?:key|name)[\"']?[ \t]{0,4}[=:][ \t]{0,4}[\"']?(?P<name>[\w.-]{1,64})[\"']?[ \t]{0,4},?"
                         r"(?:[ \t]{0,4}\r?\n[ \t]{0,24})?[ \t]{0,4}[\"']?value[\"']?[ \t]{0,4}[=:][ \t]{0,4}"
                         r"(?P<value>\"[^\"\n]{1,2000}\"|'[^'\n]{1,2000}'|[^\s\"'`,;}]{1,200})")
# A plist's `<key>password</key>` then `<string>X</string>`, a Java properties file in XML
# (`<entry key="db.password">X</entry>`), JSON's `"spring.datasource.password": {"value": "X"}`
# (Spring Boot's /actuator/env): the name, then its value in the next element or member.
_NAME_THEN_VALUE = lazy(r"<key>(?P<name>[\w .-]{1,64})</key>[ \t]{0,8}(?:\r?\n[ \t]{0,24})?<string>(?P<value>[^<>\n]{1,2000})</string>"
                        r"|<entry[ \t]{1,4}key=[\"'](?P<name2>[\w.-]{1,64})[\"']>(?P<value2>[^<>\n]{1,2000})</entry>"
                        # (other members may come first: Tink's `"keyData": {"typeUrl": ..., "value": X}`)
                        r"|\"(?P<name3>[\w.-]{1,64})\"[ \t]{0,4}:[ \t]{0,4}\{[^{}]{0,400}?\"value\"[ \t]{0,4}:[ \t]{0,4}"
                        r"\"(?P<value3>[^\"\n]{1,2000})\"")
# A call's two first literals, a name and its value: `SetEnvironmentVariable("NUGET_API_KEY", "X")`,
# `define('DB_PASSWORD', 'X')`, `Cookie("JSESSIONID", "X")`, `setItem("token", "X")`
_NAME_COMMA_VALUE = lazy(r"(?P<q>[\"'])(?P<name>[\w.-]{1,64})(?P=q)[ \t]{0,4},[ \t]{0,4}"
                         r"(?P<value>\"[^\"\n]{1,2000}\"|'[^'\n]{1,2000}')")


# A command's flag that names a value and the flag that gives it: Windows' `reg add <key> /v
# DefaultPassword /t REG_SZ /d X`, PowerShell's `Set-ItemProperty -Path ... -Name DefaultPassword -Value X`
_FLAG_NAME_VALUE = lazy(r"(?<![\w/-])(?i:/v|-name)[ \t]{1,4}[\"']?(?P<name>[\w.-]{1,64})[\"']?[^\n]{0,120}?[ \t](?i:/d|-value)[ \t]{1,4}"
                        r"(?P<value>\"[^\"\n]{1,200}\"|'[^'\n]{1,200}'|[^\s\"'`]{1,200})")
_PAIR_WORDS = ("pass", "pwd", "pw", "secret", "token", "key", "auth", "cred", "sess", "login")
# Terraform: `variable "db_password" {` then `default = "..."` inside the block.
_HCL_DEFAULT = lazy(r"variable[ \t]{1,4}\"(?P<name>[\w.-]{1,64})\"[ \t]{0,4}\{[^}]{0,200}?default[ \t]{0,4}=[ \t]{0,4}"
                          r"(?P<value>\"[^\"\n]{1,200}\")")


# A resource whose type names a credential, and its generated value (Terraform state's
# `"type": "random_password"` ... `"result": "X"`, a `tls_private_key`'s or `random_string`'s)
# (or named for one: a `random_string` resource named `api_secret`)
_TYPED_RESOURCE = lazy(r"\"(?:type|name)\"[ \t]{0,4}:[ \t]{0,4}\"(?P<type>[\w.-]{0,40}(?:password|secret|token|key)[\w.-]{0,20})\"")
_RESULT = lazy(r"\"(?:result|value|plaintext|secret)\"[ \t]{0,4}:[ \t]{0,4}\"(?P<value>[^\"\n]{6,400})\"")
_RESOURCE_REACH = 800
# A settings table's row updated by its name: `UPDATE settings SET value = 'X' WHERE key = 'smtp_password'`
# (the value before the name that says what it is, in the statement's WHERE)
_SQL_SETTING = lazy(r"(?i:\bset[ \t]{1,4}[\w.]{0,40}value[ \t]{0,4}=[ \t]{0,4})(?P<value>'[^'\n]{1,2000}')[^;\n]{0,200}?"
                    r"(?i:\bwhere[ \t])[^;\n]{0,100}?(?i:key|name|setting|option_name)[ \t]{0,4}=[ \t]{0,4}'(?P<name>[\w.-]{1,64})'")


def named_values(text: str, low: str) -> Iterator[Span]:
    """A value whose name is in the field beside it: judged as ``name=value`` would be (a call's
    literal pair as ``name("value")``: by the value's look); a generated value under a resource
    whose type names a credential (:data:`_TYPED_RESOURCE`); a settings row updated by its name
    (:data:`_SQL_SETTING`)."""
    if ('"type"' in text or '"name"' in text) and ('"result"' in text or '"value"' in text):
        for m in _TYPED_RESOURCE.finditer(text):
            res = _RESULT.search(text, m.end(), m.end() + _RESOURCE_REACH)
            cls = key_class(m.group("type").replace("-", "_")) or "secret"
            if res and "public" not in m.group("type").lower() and not is_placeholder(res.group("value"), quoted=True):
                value = res.group("value").replace("\\n", "\n")
                if judge("password" if cls == "password" else "key", "=", value, quoted=True, code=False, ends=True):
                    yield "generated credential in a state file", res.start("value"), res.end("value")
    if "value" in low or "default" in low:
        pairs = _NAME_VALUE.finditer(text) if "value" in low else iter(())
        blocks = _HCL_DEFAULT.finditer(text) if "variable" in low else iter(())
        for m in (*pairs, *blocks):
            name = m.group("name")
            if name == "value" and "apikey" in low[max(0, m.start() - 200):m.start()]:
                name = "apikey"  # Postman's API-key auth: `{"key": "value", "value": "<the key>"}`
            yield from _named(text, name, m.start("value"), m.group("value"), "=")
    if "where" in low and "value" in low:
        for m in _SQL_SETTING.finditer(text):
            yield from _named(text, m.group("name"), m.start("value"), m.group("value"), "=")
    if "</key>" in text or "</entry>" in text or '"value"' in text:
        for m in _NAME_THEN_VALUE.finditer(text):
            n = next(i for i in ("", "2", "3") if m.group("name" + i))
            if n == "3" and "public" in low[m.start():m.end() + 200]:
                continue  # a public key's data (`"typeUrl": "...EcdsaPublicKey"`, `ASYMMETRIC_PUBLIC`)
            yield from _named(text, m.group("name" + n).replace(" ", "_"), m.start("value" + n),
                              f'"{m.group("value" + n)}"', "=", offset=-1)
    for start, end in lines_holding(low, ("/d ", "-value "), ("/v ", "-name ")):
        for m in _FLAG_NAME_VALUE.finditer(text, start, end):
            yield from _named(text, m.group("name"), m.start("value"), m.group("value"), "=")
    # (only lines holding a credential word and a quoted pair: the pattern starts at any quote)
    pairs = '",' in text or "'," in text  # (a substring test first: most texts hold no quoted pair)
    for start, end in lines_holding(low, _PAIR_WORDS, ('",', "',")) if pairs else ():
        for m in _NAME_COMMA_VALUE.finditer(text, start, end):
            yield from _named(text, m.group("name"), m.start("value"), m.group("value"), "(")


def _named(text: str, name: str, at: int, raw: str, op: str, offset: int = 0) -> Iterator[Span]:
    """The finding for ``raw`` (at ``at``; quoted or not) as the value of ``name``, if it is one."""
    cls = key_class(name)
    if not cls or cls == "login":
        return
    quoted = raw[0] in "\"'"
    value = raw[1:-1] if quoted else raw
    # (a call's literal pair is judged by the value's look: `("passwd", "passphrase")` is a tuple of names)
    kind = judge(cls, op if quoted else ":", value, quoted=quoted, code=False, ends=op != "(")
    if not kind and cls == "key" and op != "(" and grants(name) and UUID.fullmatch(value) and not is_placeholder(value, quoted=True):
        kind = "secret assignment"  # a UUID given to a key named for what it grants (`- name: SAUCE_ACCESS_KEY`)
    if kind and not own_name(value, name):
        vstart = at + (1 if quoted else 0) + offset
        yield kind, vstart, vstart + len(value)


# --- values in a column or an element named for them ------------------------------------------

#: matched against a line stripped of its blanks: blank runs side by side at its ends made a
#: long line of spaces cost time quadratic in its length (85 s for one 80 KB line)
# (any text table's rule: Markdown's `|---|---|`, org-mode's `|---+---|`, reStructuredText's grid
# `+----+----+` and its header rule `+====+====+`)
_TABLE_RULE = lazy(r"[|+]?[ \t]*:?(?:-{3,}|={3,}):?[ \t]*(?:[|+][ \t]*:?(?:-{3,}|={3,}):?[ \t]*)+[|+]?")
# An HTML table's rows and their cells (a header row of `<th>`, then rows of `<td>`)
_HTML_ROW = lazy(r"<tr(?:[ \t][^<>]{0,200})?>(?P<row>(?:(?!</?tr\b)[^\n]|\n){0,2000}?)</tr>", re.IGNORECASE)
_HTML_CELL = lazy(r"<t(?P<h>[hd])(?:[ \t][^<>]{0,200})?>[ \t\r\n]{0,8}(?P<cell>[^<>]{0,200}?)[ \t\r\n]{0,8}</t[hd]>",
                  re.IGNORECASE)
# `<password>X</password>` (Maven's settings.xml, .NET config): the element's name is the label
# (attributes allowed: FileZilla's `<Pass encoding="base64">` holds the password in base64)
_XML_ELEMENT = lazy(r"<(?P<name>(?:[A-Za-z][\w.-]{0,30}:)?[A-Za-z][\w.-]{0,63})(?:[ \t][^<>\n]{0,200})?>"
                   r"(?P<value>[^<>\s][^<>\n]{0,199})</(?P=name)>")
# a value in a child element that says only "the value" (Windows unattend.xml's
# `<AdministratorPassword><Value>X</Value>`): the parent's name labels it
_XML_PARENT_VALUE = lazy(r"<(?P<name>(?:[A-Za-z][\w.-]{0,30}:)?[A-Za-z][\w.-]{0,63})(?:[ \t][^<>\n]{0,200})?>[ \t\r\n]{0,200}"
                         r"<(?P<child>(?i:value|val|data|string|text))>(?P<value>[^<>\s][^<>\n]{0,199})</(?P=child)>")
# a value whose sibling element names it (Hadoop's and Hive's `<property><name>fs.s3a.secret.key</name>
# <value>X</value>`, a KeePass export's `<Key>Password</Key><Value>X</Value>`): the name's text labels it
_XML_NAMED_VALUE = lazy(r"<(?P<tag>(?i:name|key))>[ \t]{0,8}(?P<name>[A-Za-z][\w. -]{0,99}?)[ \t]{0,8}</(?P=tag)>[ \t\r\n]{0,200}"
                        r"(?:<(?P<doc>(?i:description))>[^<>]{0,400}</(?P=doc)>[ \t\r\n]{0,200})?"
                        r"<(?P<child>(?i:value|val))>(?P<value>[^<>\s][^<>\n]{0,199})</(?P=child)>")


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def _cells_at(line: str) -> list[tuple[str, int]]:
    """:func:`_cells` with where each cell's text starts in ``line``, found while splitting (a
    search for a cell's text would find an earlier cell holding the same, and scan a wide row
    once per cell)."""
    inner = line.strip()
    at = line.find(inner) if inner else 0
    core = inner.strip("|")
    at += len(inner) - len(inner.lstrip("|"))
    cells = []
    for part in core.split("|"):
        cell = part.strip()
        cells.append((cell, at + len(part) - len(part.lstrip())))
        at += len(part) + 1
    return cells


def _column_class(header: str) -> str | None:
    cls = key_class(header.strip("*_` ").lower().replace(" ", "_"))
    return cls if cls in ("password", "secret", "key") else None


def _table_cell(cls: str, value: str) -> bool:
    return bool(value) and " " not in value and judge(cls, "is", value, quoted=False, code=False, ends=True) is not None


def table_cells(text: str, low: str) -> Iterator[Span]:
    """A text table whose header names a credential column (``| user | password |`` in Markdown,
    org-mode or a reStructuredText grid; an HTML table's ``<th>``): each cell below is judged as
    the value of that label, so ``(ask Lea)`` and ``-`` pass; and a row of a settings table whose
    cell names a credential (``| DB_PASSWORD | X |``): the next cell is judged so."""
    if "<t" in low and "</t" in low:
        yield from _html_cells(text)
    if "|" not in text or ("---" not in text and "===" not in text):
        return
    lines = text.split("\n")
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line) + 1)
    i = 1
    while i < len(lines):
        if not ("|" in lines[i - 1] and _TABLE_RULE.fullmatch(lines[i].strip(" \t"))):
            i += 1
            continue
        columns = {n: cls for n, h in enumerate(_cells(lines[i - 1])) if (cls := _column_class(h))}
        i += 1
        while i < len(lines) and ("|" in lines[i] or _TABLE_RULE.fullmatch(lines[i].strip(" \t"))):
            cells = _cells_at(lines[i]) if "|" in lines[i] else []  # (a grid's rule between its rows)
            for n, cls in columns.items():
                cell, at = cells[n] if n < len(cells) else ("", 0)
                value = cell.strip("`")
                if _table_cell(cls, value):
                    at = offsets[i] + at + len(cell) - len(cell.lstrip("`"))
                    yield "credential in a table", at, at + len(value)
            # a settings table (`| name | value |`): a row whose cell names a credential holds
            # its value in the next cell, judged as that label's value
            for n in range(len(cells) - 1):
                cls = None if n + 1 in columns else _column_class(cells[n][0])
                cell, at = cells[n + 1]
                value = cell.strip("`")
                if cls and _table_cell(cls, value):
                    at = offsets[i] + at + len(cell) - len(cell.lstrip("`"))
                    yield "credential in a table", at, at + len(value)
            i += 1


def _html_cells(text: str) -> Iterator[Span]:
    """The cells below an HTML table's header cell that names a credential."""
    columns: dict[int, str] = {}
    for row in _HTML_ROW.finditer(text):
        cells = list(_HTML_CELL.finditer(text, row.start("row"), row.end("row")))
        if cells and all(c.group("h").lower() == "h" for c in cells):
            columns = {n: cls for n, c in enumerate(cells) if (cls := _column_class(c.group("cell")))}
            continue
        for n, cls in columns.items():
            if n < len(cells) and _table_cell(cls, cells[n].group("cell")):
                yield "credential in a table", cells[n].start("cell"), cells[n].end("cell")


def xml_elements(text: str) -> Iterator[Span]:
    """``<password>X</password>``: an element named for a credential holding a literal, or whose
    parent or sibling element names one (see :data:`_XML_NAMED_VALUE`)."""
    if "</" not in text:
        return
    for m in itertools.chain(_XML_ELEMENT.finditer(text), _XML_PARENT_VALUE.finditer(text), _XML_NAMED_VALUE.finditer(text)):
        name = m.group("name").rsplit(":", 1)[-1]  # (`wsse:Password`: the local name)
        cls = key_class(name) or key_class(name.rsplit(".", 1)[-1].replace(" ", "_"))
        if cls in ("password", "secret", "key"):
            kind = judge(cls, "=", m.group("value"), quoted=True, code=False, ends=True)
            if kind:
                yield kind, m.start("value"), m.end("value")


# --- header lists and CSV exports ------------------------------------------------------------

# `OTEL_EXPORTER_OTLP_HEADERS=x-honeycomb-team=KEY,x-other=v`: headers as `name=value` pairs in one
# setting, where the header's name says nothing (any vendor's), so the value is judged by itself.
_HEADER_LIST = lazy(r"(?<![A-Za-z0-9])(?i:[a-z0-9_]{0,60}headers)[\"']?[ \t]{0,4}[=:][ \t]{0,4}[\"']?"
                    r"(?P<list>[^\s\"'`]{3,2000})")


def header_lists(text: str, low: str) -> Iterator[Span]:
    """A random value in a ``*_HEADERS`` setting's ``name=value,name2=value2`` list (URL-encoded
    as OpenTelemetry writes it: ``Authorization=Bearer%20X``)."""
    if "headers" not in low:
        return
    for m in _HEADER_LIST.finditer(text):
        at = m.start("list")
        for pair in m.group("list").split(","):
            name, sign, value = pair.partition("=")
            words = unquote(value).split()
            if sign and name and words and high_entropy(words[-1]) and not is_placeholder(words[-1], quoted=True):
                start = at + len(name) + 1
                yield "secret assignment", start, start + len(value)
            at += len(pair) + 1


# A request header given on a command line or in a client's pane (`-H 'Grpc-Metadata-macaroon: <hex>'`,
# `--header "X-Corp-Auth: X"`): whatever its name, a long random value is a credential unless the
# name says it is an id, a digest, a trace or a content's property (etag, request id, traceparent, ...)
_REQUEST_HEADER = lazy(r"(?:-H|--header)(?:[ \t]{1,4}|=)[\"'](?P<name>[A-Za-z][A-Za-z0-9_-]{1,60})[ \t]{0,4}:[ \t]{0,4}"
                       r"(?P<value>[^\"'\n]{1,4000})[\"']")
_NOT_SECRET_HEADER = lazy(r"(?i:match|etag|trace|span|request|correlation|(?<![a-z])id$|-id(?![a-z])|digest|sha|md5|checksum"
                          r"|signature|content|nonce|idempotency|range|accept|type|agent|encoding|version|length|date|cache"
                          r"|origin|referer|host|forwarded|baggage|sentry|b3|session-affinity|modified)")


def request_headers(text: str) -> Iterator[Span]:
    """A long random value in a request header of any name (see :data:`_REQUEST_HEADER`): the
    last word of the value, random letters and digits (20 or more), random hex (32 or more) or a
    high-entropy run (32 or more)."""
    if "-H" not in text and "--header" not in text:
        return
    for m in _REQUEST_HEADER.finditer(text):
        if _NOT_SECRET_HEADER.search(m.group("name")) or ("=" in m.group("value") and analytics_cookies(m.group("value"))):
            continue
        value = m.group("value").split()[-1] if m.group("value").split() else ""
        if (random_token(value, min_len=20) or random_hex(value, min_len=32) or (len(value) >= 32 and high_entropy(value))) \
                and not is_placeholder(value, quoted=True) and not looks_fake(value):
            at = m.start("value") + m.group("value").rfind(value)
            yield "secret in a request header", at, at + len(value)


_CSV_NAME = lazy(r"[a-z][a-z0-9_]{0,29}(?: [a-z0-9_]{1,20}){0,2}")  # a column's name, not prose
_CSV_PASSWORD = frozenset({"password", "passwd", "pass", "pwd", "login_password", "secret"})
_CSV_WORDS = ("pass", "pwd", "secret", "token", "key")


def _csv_class(cell: str) -> str | None:
    """The class of a column named for a credential: a password's, or a secret's or token's
    (``client_secret``, ``api_key``, ``access_token``; a random value only, judged as one)."""
    if cell in _CSV_PASSWORD:
        return "password"
    cls = key_class(cell.replace(" ", "_"))
    return cls if cls in ("password", "secret") else None


def csv_exports(text: str, low: str) -> Iterator[Span]:
    """The password column of a CSV export (a password manager's ``name,url,username,password``)
    or of a sheet copied as tab-separated values: a header row naming the column, then rows whose
    cell in it is judged as a password."""
    if ("," not in text and "\t" not in text) or not any(w in low for w in _CSV_WORDS):
        return
    lines = text.splitlines(keepends=True)
    offset, column, width, sep, cls = 0, -1, 0, ",", "password"
    for line in lines:
        if column < 0 and not any(w in line.lower() for w in _CSV_WORDS):
            offset += len(line)
            continue  # (only a header row starts a table: the other lines are not parsed)
        if column < 0:
            sep = "\t" if "\t" in line else ","
        import csv  # here: only a table's header row gets this far (~0.7 ms of every write's start)

        row = next(csv.reader([line], delimiter=sep), [])
        cells = [c.strip().strip("\"'").lower() for c in row]
        named = [_csv_class(c) for c in cells]
        if len(cells) >= 3 and any(named) and all(_CSV_NAME.fullmatch(c) for c in cells):
            # (a password column first; else a secret's or a token's: `client_secret`, `api_key`)
            column = next((i for i, c in enumerate(named) if c == "password"), None)
            column = next(i for i, c in enumerate(named) if c) if column is None else column
            width, cls = len(cells), named[column]
        elif column >= 0 and len(row) == width:
            value = row[column].strip()
            if value and judge(cls, "=", value, quoted=True, code=False, ends=True):
                start = line.find(value)
                yield f"{cls} assignment", offset + start, offset + start + len(value)
        elif not line.strip():
            column = -1
        offset += len(line)


# --- files of credentials: cookie jars, user lists ---------------------------------------------

# A Netscape cookie jar's line (curl's cookies.txt, a browser export, ``.gitcookies``): domain, a flag,
# path, secure, expiry, name, value, tab-separated; the value is a session's credential when random
_COOKIE_LINE = lazy(r"^(?:#HttpOnly_)?[^\s#][^\t\n]{0,252}\t(?i:true|false)\t[^\t\n]{1,200}\t(?i:true|false)\t[0-9]{1,12}"
                    r"\t(?P<name>[^\t\n]{1,200})\t(?P<value>[^\t\r\n]{8,4000})\r?$", re.MULTILINE)
# A user list of quoted pairs (pgbouncer's ``userlist.txt``: ``"user" "password"``), a line each
_QUOTED_PAIR = lazy(r"^[ \t]{0,8}\"(?P<user>[^\"\s]{1,64})\"[ \t]{1,8}\"(?P<value>[^\"\n]{4,200})\"[ \t]*\r?$", re.MULTILINE)
# ppp's ``chap-secrets`` and ``pap-secrets`` (``client server secret [addresses]``): the server a
# name or ``*``, the secret quoted, the addresses ``*`` or a list
_PPP_ROW = lazy(r"^[ \t]{0,8}\"?(?P<user>[^\"\s#]{1,64})\"?[ \t]{1,8}(?:\*|\"[^\"\s]{1,64}\")[ \t]{1,8}"
                r"\"(?P<value>[^\"\n]{4,200})\"(?:[ \t]{1,8}(?:\*|\"\*\"|-|[0-9a-fA-F.:/,]{1,64}))?[ \t]*\r?$", re.MULTILINE)


_COOKIE_MEMBER = lazy(r"[\"']?value[\"']?[ \t]{0,4}:[ \t]{0,4}[\"']?(?P<value>[^\"'\s,{}]{8,4000})")
_MEMBER_NAME = lazy(r"[{,\s][\"']?([A-Za-z]{1,20})[\"']?[ \t]{0,4}:")
_COOKIE_REACH = 1000  # an exported cookie's object, around its value
_COOKIE_ATTRIBUTES = frozenset({"path", "expires", "expirationDate", "httpOnly", "secure", "sameSite", "hostOnly",
                                "session", "storeId", "maxAge"})


def _object_around(text: str, start: int, end: int) -> tuple[int, int]:
    """The span of the object a member at ``start:end`` sits in: its braces (JSON, a JS literal),
    else its YAML list item (from the line that opens it with ``-`` to the next item or a blank
    line), within :data:`_COOKIE_REACH`; an empty span when neither holds it."""
    opened = text.rfind("{", max(0, start - _COOKIE_REACH), start)
    if opened >= 0 and text.find("}", opened, start) < 0:
        closed = text.find("}", end, end + _COOKIE_REACH)
        return (opened, closed) if closed >= 0 else (0, 0)
    last = None
    for last in _YAML_ITEM.finditer(text, max(0, start - _COOKIE_REACH), start):
        pass  # (the item that opens last before the member)
    if not last or text.find("\n\n", last.start(), start) >= 0:
        return 0, 0
    nxt = _YAML_ITEM.search(text, end, end + _COOKIE_REACH)
    blank = text.find("\n\n", end, end + _COOKIE_REACH)
    stops = [p for p in ((nxt.start() if nxt else -1), blank) if p >= 0]
    return last.start(), min(stops) if stops else min(len(text), end + _COOKIE_REACH)


# A cookie as a browser's developer tools copy its row: name, value, domain, path, then its expiry
# ("Session", a date or an epoch), tab-separated
_COOKIE_ROW = lazy(r"^(?P<name>[^\t\n]{1,200})\t(?P<value>[^\t\n]{8,4000})\t\.?[A-Za-z0-9-]{1,63}(?:\.[A-Za-z0-9-]{1,63})+"
                   r"\t/[^\t\n]{0,200}\t(?:Session|[0-9]{4}-[0-9]{2}-[0-9]{2}[^\t\n]{0,30}|[0-9]{9,13})(?:\t|\r?$)", re.MULTILINE)
_YAML_ITEM = lazy(r"(?m)^[ \t]{0,16}-[ \t]")


def _cookie_value(value: str) -> bool:
    """A cookie's value that is a session's credential: a random run in it, or random as a whole."""
    run = max(re.split(r"[^A-Za-z0-9_-]", value), key=len)
    return (random_token(run, min_len=16) or random_hex(run, min_len=32) or high_entropy(value)) \
        and not is_placeholder(value, quoted=True)


# A file named for a password or a token, a colon, and its content to the line's end, as `grep -H`,
# `head` or a note writes it ("password.txt: X", "~/.geth/pass.pwd: X"): the content is the value
# the file's name labels (a `.key` file holds a key block, judged by its armour)
_NAMED_FILE_LINE = lazy(r"^[ \t]{0,8}(?:[\w.~-]{0,64}/){0,8}(?P<name>[\w.-]{0,24}(?<![a-z])(?:password|passwd|passphrase|pass|pwd|pw"
                        r"|secret|token|api[_-]?key|pin)s?(?![a-z])[\w.-]{0,24}\.(?:txt|pwd|pw|pass|secret|token|dat|cred))"
                        r"[ \t]{0,2}:[ \t]{0,4}(?P<value>[^\s`'\"]{6,200})[ \t]*\r?$", re.MULTILINE | re.IGNORECASE)

# A file named for secrets (davfs2's `secrets`, `rsyncd.secrets`, ppp's `chap-secrets`) named on a line
# of its own, then its rows: each row's last field is the secret (`<url> <user> <password>`, rsyncd's `user:password`)
_SECRETS_FILE = lazy(r"^[ \t]{0,8}(?:[\w.~-]{0,64}/){0,8}[\w.-]{0,24}secrets(?:\.[a-z]{1,5})?[ \t]{0,2}:?[ \t]*\r?$",
                     re.MULTILINE | re.IGNORECASE)
_SECRETS_ROWS = 20

_FILE_ABOUT = frozenset(["policy", "policies", "rules", "requirements", "manager", "hash", "hashes", "hashing", "reset",
                         "hint", "hints", "example", "examples", "sample", "template", "length", "format", "expiry",
                         "rotation", "readme", "notes", "docs", "help", "changelog", "spec"])


def credential_files(text: str) -> Iterator[Span]:
    """A random value in a cookie jar's line, a password no word could be in a user list's
    quoted pair or a ppp secrets file's row, the last field of a secrets file's rows (a stored hash there is not one: secret_values.stored_not_secret), and a file
    named for a credential with its content (:data:`_NAMED_FILE_LINE`)."""
    if "." in text and ":" in text:
        for m in _NAMED_FILE_LINE.finditer(text):
            cls = "password" if m.group("name").lower().startswith(("pass", "pw", "pin")) or "pass" in m.group("name").lower() \
                else "secret"
            if _FILE_ABOUT.intersection(re.split(r"[._-]", m.group("name").lower())):
                continue  # `password_policy.txt`, `token-format.txt`: a file about the credential, not one
            if judge(cls, ":", m.group("value"), quoted=False, code=False, ends=True):
                yield "password assignment" if cls == "password" else "secret assignment", m.start("value"), m.end("value")
    if "secrets" in text.lower():
        for m in _SECRETS_FILE.finditer(text):
            at = m.end() + 1
            for _ in range(_SECRETS_ROWS):
                end = text.find("\n", at)
                end = len(text) if end < 0 else end
                row = text[at:end]
                if not row.strip():
                    break
                fields = row.split()
                if len(fields) == 1 and ":" in fields[0]:
                    fields = fields[0].split(":", 1)  # rsyncd's `user:password`
                value = fields[-1].strip("\"'")
                if 2 <= len(fields) <= 6 and not row.lstrip().startswith("#") and value != fields[-2].strip("\"'") \
                        and (strong_unlabelled(value) or random_token(value, min_len=16)) \
                        and not is_placeholder(value, quoted=True) and not stored_not_secret(value):
                    start = at + row.rfind(fields[-1])
                    yield "password in a secrets file", start, start + len(fields[-1])
                at = end + 1
    if "\t" in text and text.count("\t") >= 6:
        for m in _COOKIE_LINE.finditer(text):
            if _cookie_value(m.group("value")):
                yield "session cookie", m.start("value"), m.end("value")
    if text.count("\t") >= 4:
        for m in _COOKIE_ROW.finditer(text):
            if _cookie_value(m.group("value")):
                yield "session cookie", m.start("value"), m.end("value")
    if "domain" in text and "value" in text:
        # a cookie as an object (a browser extension's JSON export, Playwright's storage state in
        # JSON or YAML, Puppeteer's `setCookie({name, value, domain, path})`): its `value` member, its object
        # holding a `domain`, a `name` and a cookie's attribute (a DNS record's object, `name`,
        # `value` and `domain` alone, holds a verification token that is published)
        for m in _COOKIE_MEMBER.finditer(text):
            opened, closed = _object_around(text, m.start(), m.end())
            members = {k.group(1) for k in _MEMBER_NAME.finditer(text, opened, closed)}
            if "domain" in members and "name" in members and members & _COOKIE_ATTRIBUTES and _cookie_value(m.group("value")):
                yield "session cookie", m.start("value"), m.end("value")
    if text.count('"') >= 2:
        for m in _PPP_ROW.finditer(text):
            value = m.group("value")
            if value != m.group("user") and (strong_unlabelled(value) or random_token(value, min_len=12)) \
                    and not stored_not_secret(value) and not is_placeholder(value, quoted=True):
                yield "password in a user list", m.start("value"), m.end("value")
    if '" "' in text or '"\t"' in text:
        for m in _QUOTED_PAIR.finditer(text):
            value = m.group("value")
            if value != m.group("user") and (strong_unlabelled(value) or random_token(value, min_len=16)) \
                    and not stored_not_secret(value):
                yield "password in a user list", m.start("value"), m.end("value")


# A block named for credentials (HCL's `tokens { agent = "<uuid>" }` in Consul's `acl`, `secrets {`,
# `credentials = {`): each member's name says what the token is for, not that it is one, so the
# block's name labels them; a UUID (Consul's tokens are UUIDs), a random token or random hex counts.
# A member named for an id (`accessor_id`, `agent_id`) names the token, and passes.
_CRED_BLOCK = lazy(r"(?<![\w-])(?i:tokens|secrets|credentials|passwords|api[_-]?keys)[ \t]{0,4}(?:[=:][ \t]{0,4})?\{")
_BLOCK_MEMBER = lazy(r"(?P<name>[A-Za-z_][\w-]{0,40})[\"']?[ \t]{0,4}[=:][ \t]{0,4}[\"'](?P<value>[^\"'\s]{8,400})[\"']")
_BLOCK_REACH = 800
_ID_NAME = lazy(r"(?i:.*(?:[_-]id|accessor|name|path|ttl|type|policy|policies|role|file|url|host)s?)")


def block_values(text: str) -> Iterator[Span]:
    """A member of a block named for credentials whose value is a UUID, a random token or random hex."""
    if "{" not in text:
        return
    scanned = 0
    for m in _CRED_BLOCK.finditer(text):
        if m.start() < scanned:
            continue  # (inside the block read last: each character is read once)
        close = text.find("}", m.end(), m.end() + _BLOCK_REACH)
        end = close if close >= 0 else min(len(text), m.end() + _BLOCK_REACH)
        scanned = end
        for member in _BLOCK_MEMBER.finditer(text, m.end(), end):
            value = member.group("value")
            if _ID_NAME.fullmatch(member.group("name")) or is_placeholder(value, quoted=True) or looks_fake(value):
                continue
            if UUID.fullmatch(value) or random_token(value, min_len=20) or random_hex(value, min_len=32):
                yield "token in a credentials block", member.start("value"), member.end("value")


# --- a random value under a setting of any name -------------------------------------------------

# A setting's line whose value ends it: `NAME=X`, `name: X`, `name = "X"`, `export NAME=X`, `- NAME=X`
# (a compose file's list), `$env:NAME = "X"`; a member of an object, `"name": "X"`, `apiKey: 'X'`,
# `'name' => 'X'`; an element, `<name>X</name>`. (The value's characters: a token's, base64's.)
_SETTING_VALUE = r"(?P<value>[A-Za-z0-9_+/-]{24,400}={0,2})"
_SETTING_LINE = lazy(r"^[ \t]{0,24}(?:-[ \t]{1,4}|export[ \t]{1,4}|set[ \t]{1,4}(?:-[gx]{1,2}[ \t]{1,4})?|\$env:)?"
                     r"(?P<q1>[\"']?)(?P<name>[A-Za-z_][\w.-]{0,63})(?P=q1)[ \t]{0,4}(?::=|=|:)[ \t]{0,4}(?:![\w!]{1,20}[ \t]{1,4})?"
                     rf"(?P<q>[\"']?){_SETTING_VALUE}(?P=q)[ \t]{{0,4}}[,;]?[ \t]{{0,4}}(?:#[^\n]{{0,200}})?\r?$", re.MULTILINE)
_SETTING_MEMBER = lazy(r"(?<![\w.$-])(?P<q1>[\"']?)(?P<name>[A-Za-z_][\w.-]{0,63})(?P=q1)[ \t]{0,4}(?::|=>|=)[ \t]{0,4}"
                       rf"(?P<q>[\"']){_SETTING_VALUE}(?P=q)")
# `NAME=X` inside a line (`docker run -e FROB_ACCESS=X`, `--from-literal=access=X`, `--set access=X`,
# systemd's `Environment="FROB_ACCESS=X"`); not a URL's query (`?ved=X`, `&gclid=X`: a page's
# tracking ids), and a command that sets a variable (`setx NAME X`, `launchctl setenv NAME X`,
# fish's `set -gx NAME X`)
# (a name of three characters or more: a record's one-letter tags, DKIM's `p=`, are a format's, not a setting's)
_SETTING_INLINE = lazy(r"(?<![\w.$%{/?&=-])(?P<name>[A-Za-z_][\w.-]{2,63})=(?P<q>[\"']?)"
                       rf"{_SETTING_VALUE}(?P=q)(?![\w+/=.@:-])")
_SETTING_COMMAND = lazy(r"(?<![\w-])(?:setx|setenv|set[ \t]{1,4}-[gxUlu]{1,3})[ \t]{1,4}(?P<name>[A-Za-z_][\w.-]{0,63})[ \t]{1,4}"
                        rf"(?P<q>[\"']?){_SETTING_VALUE}(?P=q)(?![\w+/=.@:-])")
# a command's option of any name, `--using X`, `--frob-access=X` (one letter's, `-u X`, says too little)
_SETTING_FLAG = lazy(r"(?<![\w-])--(?P<name>[A-Za-z][\w-]{1,40})(?:=|[ \t]{1,4})"
                     rf"(?P<q>[\"']?){_SETTING_VALUE}(?P=q)(?![\w+/=.@:-])")
_SETTING_ELEMENT = lazy(rf"<(?P<name>[A-Za-z_][\w.-]{{0,63}})(?:[ \t][^<>\n]{{0,200}})?>{_SETTING_VALUE}</(?P=name)>")
# the name a `value` member stands beside (a HAR's `{"name": "x-amz-cf-id", "value": X}`, a
# Kubernetes env entry's `- name: FROB` above `value: X`)
_SIBLING_NAME = lazy(r"(?<![\w-])[\"']?(?:name|key)[\"']?[ \t]{0,4}[:=][ \t]{0,4}[\"']?(?P<name>[\w.-]{1,64})")
_JOINED_NAME = lazy(r"[_.-]|[a-z][A-Z]|^[A-Z0-9]+$")  # words joined, as a setting's name is (`QUIX_GRANT`, `quixGrant`)
_SIBLING_REACH = 200
# a base58 address: Bitcoin's legacy one (`1...`, `3...`), Solana's (32 bytes, 43 or 44 characters),
# and an extended public key (`xpub`, `zpub`, `tpub`)
# a value's own prefix word (`price_<random>`: Stripe's price id), judged as a name is
_VALUE_PREFIX = lazy(r"([A-Za-z]{2,12})[_-]")
_PUBLIC_NEAR = lazy(r"(?i:public)")
# the first bytes of a file that names its kind (PNG, GIF, JPEG, WebP's RIFF, PDF)
_FILE_MAGIC = (b"\x89PNG", b"GIF8", b"\xff\xd8\xff", b"RIFF", b"%PDF")
_BASE36 = lazy(r"[a-z0-9]+")
_BASE58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
_BASE58_PUBLIC = lazy(r"[13][1-9A-HJ-NP-Za-km-z]{24,34}|[a-zA-Z]pub[1-9A-HJ-NP-Za-km-z]{100,112}")
_BASE58_RUN = lazy(r"[1-9A-HJ-NP-Za-km-z]{43,44}")


def _base58_address(value: str) -> bool:
    """A Bitcoin or Solana address or an extended public key by its base58 shape (a random token
    of 43 or 44 characters is base58 by chance once in 15, and of those a 32-byte number less often)."""
    if _BASE58_PUBLIC.fullmatch(value):
        return True
    if not _BASE58_RUN.fullmatch(value):
        return False
    n = 0
    for c in value:
        n = n * 58 + _BASE58.index(c)
    return n < 1 << 256


def settings_values(text: str) -> Iterator[Span]:
    """A random token (upper and lower case and digits, high entropy, no name's words: what
    :func:`~vault_mem.model.secret_near.random_value` reads before a label) as a setting's value,
    under a name no credential word names: an unknown vendor's setting (``FROB_ACCESS=X``,
    ``HOOK_SIGNING=X``, ``{"authz": "X"}``) is judged by its value, as no rule can list every
    vendor's names. A name whose words say what else it holds passes (:func:`public_name`: an
    id, a digest, a public part, a thing's name), and so do names a credential word names (their
    rule, :func:`vault_mem.model.secret_labels.assignments`, judges them), base58 addresses,
    extended public keys, base64 of text and SOPS or sealed ciphertext. Only lines holding a word
    of 24 characters or more are read."""
    seen = -1
    for start, end in long_words(text, 24):
        if start < seen:
            continue
        line_start = text.rfind("\n", 0, start) + 1
        line_end = text.find("\n", end)
        line_end = len(text) if line_end < 0 else line_end
        seen = line_end
        found = [m for m in (_SETTING_LINE.match(text, line_start, line_end),) if m]
        if "<" in text[line_start:line_end]:
            found.extend(_SETTING_ELEMENT.finditer(text, line_start, line_end))
        if not found:
            found.extend(_SETTING_MEMBER.finditer(text, line_start, line_end))
        if "--" in text[line_start:line_end]:
            found.extend(_SETTING_FLAG.finditer(text, line_start, line_end))
        if not found:
            found.extend(_SETTING_INLINE.finditer(text, line_start, line_end))
            found.extend(_SETTING_COMMAND.finditer(text, line_start, line_end))
        for m in found:
            name, value = m.group("name"), m.group("value").rstrip("=")
            if name.lower() in ("value", "val"):
                sibling = None
                for sibling in _SIBLING_NAME.finditer(text, max(0, m.start() - _SIBLING_REACH), m.start()):
                    pass  # (the nearest before the value, else the first after it: SQL's `WHERE name = 'X'`)
                sibling = sibling or _SIBLING_NAME.search(text, m.end(), m.end() + _SIBLING_REACH)
                if sibling and not _JOINED_NAME.search(sibling.group("name")):
                    continue  # a thing's name of one plain word (`{"name": "web", "value": X}`), no setting's
                name = sibling.group("name") if sibling else name
                if _PUBLIC_NEAR.search(text, max(0, m.start() - _SIBLING_REACH), m.end() + _SIBLING_REACH):
                    continue  # a public key's member (`"typeUrl": "...Ed25519PublicKey", "value": X`)
            prefix = _VALUE_PREFIX.match(value)
            # (padded base64: a leading `/` is one of its characters, no path's)
            core = value[1:] if value[:1] == "/" and m.group("value")[-1] == "=" else value
            if key_class(name) or public_name(name) or (prefix and public_name(prefix.group(1))) or not _random_setting(core) \
                    or _base58_address(value) or _decodes_to_text(value) or under_encrypted(text, m.start()):
                continue
            yield "random value in a setting", m.start("value"), m.start("value") + len(value)


def _random_setting(value: str) -> bool:
    """A random token by :func:`~vault_mem.model.secret_near.random_value`'s strictest reading (both
    cases and digits), or 32 lower-case letters and digits or more mixed as a random draw mixes
    them (base36, :func:`~vault_mem.model.secret_tokens.base36_tail`: not hex, no slug of words)."""
    if "/" in value and any(identifier_like(part) or is_wordy(part) for part in value.split("/") if part):
        return False  # a path of names (`HuggingFaceH4/zephyr-7b-beta`, a model's or a repository's), no base64
    if random_value(value, "before"):
        return True
    return len(value) >= 32 and _BASE36.fullmatch(value) is not None and base36_tail(value) and random_value(value, "password") \
        and not is_wordy(value)


def _decodes_to_text(value: str) -> bool:
    """Is ``value`` base64 of printable text (a setting's JSON, a fixture's sentence) or of a file
    that says what it is (an image's or a PDF's magic)? The decoded text is read by the gate again
    (``secret_text.encoded_runs``); the run itself is no key."""
    body = value.replace("-", "+").replace("_", "/")
    try:
        raw = base64.b64decode(body + "=" * (-len(body) % 4), validate=True)
    except (binascii.Error, ValueError):
        # a file's run cut short or edited in a note still starts with its magic (a PNG's
        # `iVBORw0KGgo...` pasted in part): its head decodes alone
        try:
            head = base64.b64decode(body[:16], validate=True)
        except (binascii.Error, ValueError):
            return False
        return head.startswith(_FILE_MAGIC)
    return raw.startswith(_FILE_MAGIC) or (len(raw) >= 12 and sum(32 <= b < 127 or b in (9, 10, 13) for b in raw) >= 0.95 * len(raw))
