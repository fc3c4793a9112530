"""Credentials given to a call or a command: arguments, flags, transcripts, files written.

- :func:`call_credentials`: a password among a sign-in call's or a constructor's literals.
- :func:`command_credentials`: a password given to a command after its user;
  :func:`flag_credentials` and :func:`positional_passwords`: after a flag or in a command's
  place for one (``-p``, ``/p:``, ``-storepass``, ``htpasswd -b``).
- :func:`protocol_logins`, :func:`keyword_credentials` and :func:`directive_logins`:
  ``USER``/``PASS`` and IMAP ``LOGIN`` transcripts, a command's keyword arguments, a
  config directive's user and password.
- :func:`written_credentials`: a value ``echo``'d into a file named for a key, secret or token, or
  into a command's flag for one; :func:`mail_pairs`: an e-mail address, a slash and a password.

Each finder yields ``(kind, start, end)``.
"""

from __future__ import annotations

import base64
import binascii
import itertools
import re
from collections.abc import Iterator

from vault_mem.model.lazy_patterns import lazy
from vault_mem.model.secret_judge import (
    judge, near_stop, paired_password, passphrase, password_shaped, quoted_words, strong_unlabelled, unquoted_argument,
    word_and_number,
)
from vault_mem.model.secret_names import DIGEST, Span
from vault_mem.model.secret_near import NAME_EQUALS
from vault_mem.model.secret_text import last_match_start, lines_holding
from vault_mem.model.secret_public import public_by_design
from vault_mem.model.secret_values import (
    UUID, credential_like, high_entropy, identifier_like, is_placeholder, looks_fake, random_hex,
    random_token,
)

__all__ = ["HOST_OR_MAIL", "call_credentials", "command_credentials", "directive_logins", "flag_credentials",
           "keyword_credentials", "mail_pairs", "positional_passwords", "protocol_logins",
           "written_credentials"]

# --- a user and a password passed to a call -------------------------------------------------

# A call named for signing in, or requests' `auth=(...)` tuple: `NetworkCredential("svc", "X")`,
# `PasswordAuthenticator('app', 'X')`, `authenticate("svc", "X")`, `DBI->connect(dsn, "u", "X")`
# (a database client's constructor or connect call takes host, user, password: PHP's `new mysqli(...)`,
# `mysqli_connect(...)`, `new PDO($dsn, "u", "X")`, `pg_connect` takes one string)
_CRED_CALL = lazy(r"(?:credentials?|authenticat[a-z]{0,8}|auth|login|logon|sign_?in|connect|mysqli|pdo)[a-z_]{0,20}"
                  # (or applied to its arguments with spaces: Haskell's and Elm's `basicAuth "u" "X"`)
                  r"(?:[ \t]{0,4}=?[ \t]{0,4}\(|[ \t]{1,4}(?=[\"']))")
_SPACED_ARG = lazy(r"[ \t]{0,4}(?P<q>[\"'])(?P<value>[^\"'\n]{0,200})(?P=q)(?P<sep>[ \t]|\)|$)", re.MULTILINE)
_CALL_WORDS = ("credential", "auth", "login", "logon", "signin", "sign_in", "connect", "mysqli", "pdo")
_LITERAL_ARG = lazy(r"[ \t]{0,4}(?:[A-Za-z_]\w{0,30}[ \t]{0,2}=[ \t]{0,2})?(?P<q>[\"'])(?P<value>[^\"'\n]{0,200})(?P=q)"
                    r"[ \t]{0,4}(?P<sep>[,)])")
HOST_OR_MAIL = lazy(r"[\w.+-]{1,64}@[\w-]{1,63}(?:\.[\w-]{1,63})+|[a-z0-9-]{1,63}(?:\.[a-z0-9-]{1,63})+(?::[0-9]{1,5})?")


def call_credentials(text: str, low: str) -> Iterator[Span]:
    """A password among the literal arguments of a call that signs in (``low``: ``text``
    lowercased): every literal after the first (the user or the data source) that looks made to
    be hard to guess, and is not a host name or an e-mail address. A ``connect`` needs three
    literals (source, user, password), since ``connect("db", "shop")`` names a database. Only the
    lines holding a call word and a quote are read (the pattern stays on one line). A function
    named so may take its literals with spaces (``basicAuth "u" "X"``); a constructor's literals
    hold a secret after the first with no sign-in word (:func:`_constructor_secrets`)."""
    parens = "(" in text and ('",' in text or "'," in text)  # (two literals at least)
    if parens:
        yield from _constructor_secrets(text, low)
    if "(" in text and ("sign" in low or "encode" in low or "hmac" in low):
        yield from _signing_keys(text, low)
    if parens or '" "' in text or "' '" in text:
        yield from _sign_in_calls(text, low)


def _sign_in_calls(text: str, low: str) -> Iterator[Span]:
    for start, end in lines_holding(low, _CALL_WORDS, ("\"", "'")):
        for m in _CRED_CALL.finditer(low, start, end):
            literals = []
            at = m.end()
            spaced = not m.group().endswith("(")
            while len(literals) < 5:
                arg = (_SPACED_ARG if spaced else _LITERAL_ARG).match(text, at, end)
                if not arg:
                    break
                literals.append(arg)
                at = arg.end()
                if arg.group("sep") in (")", ""):
                    break
            if len(literals) < (3 if m.group().startswith(("connect", "mysqli")) else 2):
                continue
            for arg in literals[1:]:
                value = arg.group("value")
                if (credential_like(value) and not is_placeholder(value, quoted=True)
                        and not HOST_OR_MAIL.fullmatch(value) and " " not in value):
                    yield "password passed to a sign-in call", arg.start("value"), arg.end("value")
                    break


# A call that signs or MACs with the key it is given: a JWT library's `jwt.sign(payload, 'X')`,
# `jwt.encode(payload, "X", algorithm="HS256")`, `JWT.encode(payload, 'X', 'HS256')`, an HMAC's
# `crypto.createHmac('sha256', 'X')`, `hmac.new(b"X", msg, sha256)`: its key argument (a JWT's and
# createHmac's second, an HMAC's first), a literal alone that looks made to be hard to guess, is the
# signing secret; a payload's strings (`{ sub: 'usr_X' }`) and an option's (`{ kid: 'X' }`,
# `algorithm='HS256'`) are ids and names, never the key
_SIGNING_CALL = lazy(r"(?<![\w])(?:(?P<jwt>(?:jwt|jws|jose|jsonwebtoken)[ \t]{0,2}(?:\.|::)[ \t]{0,2}(?:sign|encode))"
                     r"|(?P<create>createhmac)|hmac[ \t]{0,2}\.[ \t]{0,2}new|hmac)[ \t]{0,2}\(")
_KEY_LITERAL = lazy(r"[ \t]*b?(?P<q>[\"'`])(?P<value>[^\"'`\n]{8,200})(?P=q)[ \t]*")
# the key named as a keyword argument, wherever it stands (`jwt.encode(payload, key="X")`, `hmac.new(key=b"X")`)
_KEY_KEYWORD = lazy(r"[ \t]*(?i:key|secret|signing_key|secret_key)[ \t]*=[ \t]*b?(?P<q>[\"'`])(?P<value>[^\"'`\n]{8,200})(?P=q)[ \t]*")
_OPEN, _CLOSE = "([{", ")]}"


def _arguments(text: str, start: int, limit: int) -> list[tuple[int, int]]:
    """The spans of a call's top-level arguments from ``start`` (after its ``(``) to its ``)``,
    read within ``limit``: commas inside brackets and quotes part none."""
    args, depth, quote, at = [], 0, "", start
    for i in range(start, min(len(text), limit)):
        ch = text[i]
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "\"'`":
            quote = ch
        elif ch in _OPEN:
            depth += 1
        elif ch in _CLOSE:
            if depth == 0:
                args.append((at, i))
                return args
            depth -= 1
        elif ch == "," and depth == 0:
            args.append((at, i))
            at = i + 1
    return args


def _signing_keys(text: str, low: str) -> Iterator[Span]:
    for m in _SIGNING_CALL.finditer(low):
        args = _arguments(text, m.end(), m.end() + 300)
        index = 1 if m.group("jwt") or m.group("create") else 0
        arg = next((k for k in (_KEY_KEYWORD.fullmatch(text, a, b) for a, b in args) if k), None)
        if arg is None and len(args) > index:
            arg = _KEY_LITERAL.fullmatch(text, *args[index])
        if arg is None:
            continue
        value = arg.group("value")
        if " " in value or "{" in value:
            continue
        if (random_token(value, min_len=16) or (len(value) >= 16 and high_entropy(value)) or password_shaped(value)) \
                and not is_placeholder(value, quoted=True) and not looks_fake(value):
            yield "secret passed to a signing call", arg.start("value"), arg.end("value")


# A constructor given a service's literals positionally, one of them made to be hard to guess:
# `new Sequelize('shop', 'shop_app', 'X', {...})`, `new BraintreeGateway(Environment.PRODUCTION,
# "merchant", "public", "X")`: a client built with its account, its user and its secret
# (or a class's factory method, which takes them the same way: Ruby's `Net::SMTP.start(host, port,
# domain, 'user', 'X', :login)`, `Ftp.Connect("h", "u", "X")`, `Mysql::Client::open('h', 'u', 'X')`)
# (and Go's, called through its package: `gomail.NewDialer(host, port, "user", "X")`, `minio.New(...)`)
_CONSTRUCTOR = lazy(r"(?:(?<![\w.])new[ \t]{1,4}[A-Za-z_][\w.]{0,60}|(?<![\w.:])[A-Z][A-Za-z0-9]{2,60}"
                    r"|(?<![\w.:])[a-z][a-z0-9]{0,30}\.New(?:[A-Z][A-Za-z0-9]{0,60})?"
                    r"|(?<![\w.:])[A-Z][A-Za-z0-9]{1,60}(?:(?:::|\.)[A-Z][A-Za-z0-9]{0,60}){0,4}(?:::|\.)[A-Za-z_][a-z0-9_]{1,30}[!?]?)"
                    r"[ \t]{0,4}\(")
_CALL_LITERAL = lazy(r"(?P<q>[\"'])(?P<value>[^\"'\n]{1,200})(?P=q)")
_ARGS_REACH = 400


def _constructor_secrets(text: str, low: str) -> Iterator[Span]:
    """A literal after a constructor's first that is random hex of a key's length or no word
    could be, among one-word literals, with no word between naming it an id or a digest."""
    for m in _CONSTRUCTOR.finditer(text):
        stop = len(text)
        for ch in ")({":
            i = text.find(ch, m.end(), m.end() + _ARGS_REACH)
            stop = min(stop, i if i >= 0 else stop)
        stop = min(stop, m.end() + _ARGS_REACH)
        literals = list(_CALL_LITERAL.finditer(text, m.end(), stop))
        if len(literals) < 2 or not all(_PLAIN_ARG.fullmatch(a.group("value")) for a in literals):
            continue
        for arg in literals[1:]:
            value = arg.group("value")
            # (hex of a git object's length is a commit: `new Release("app", "2026.12.1", "<sha>")`)
            if ((random_hex(value, min_len=32) and len(value) != 40) or (len(value) >= 12 and strong_unlabelled(value))) \
                    and not HOST_OR_MAIL.fullmatch(value) and not is_placeholder(value, quoted=True) and not _encoded_text(value) \
                    and not near_stop(between := low[m.start():m.end()].replace(":", " ").replace(".", " ")
                                      + HOST_OR_MAIL.sub("", low[m.end():arg.start()]), 0, len(between)):
                # (`smtp.corp.example`: a host; the call's own name is read as words: `UUID.parse(`)
                yield "password passed to a sign-in call", arg.start("value"), arg.end("value")
                break


def _encoded_text(value: str) -> bool:
    """Is ``value`` padded base64 of printable text (``Base64.encode64("hi", "aGVsbG8gd29ybGQ=")``)?
    What it encodes is read as text on its own; the encoding is no secret."""
    if not value.endswith("=") or len(value) % 4:
        return False
    try:
        decoded = base64.b64decode(value, validate=True).decode("ascii")
    except (binascii.Error, ValueError):
        return False
    return decoded.isprintable()


_PLAIN_ARG = lazy(r"[\w.@+/=:!#%&*^~?-]{1,200}")  # one word each: names, ids, keys (no sentence, no template)


# --- a user and a password as a command's arguments, or a protocol's ---------------------------

# A command that names a user takes the password positionally: right after the user
# (`rabbitmqctl add_user deploy X`, `net user svc X /add`, `htpasswd -b file admin X`,
# `poetry config http-basic.corp deployer X`), anywhere on a line with a Windows `/user:` flag
# (`net use Z: \\fs\share X /user:CORP\svc`), or after `-p` once `-u` gave the user
# (`docker login -u ci -p X`, `altool -u me -p X`, `mysql -u root -pX`).
_USER_VERB = lazy(r"(?i:(?:[a-z0-9]+[_-])?(?:add|del|change|set|create|update|new)?[_-]?users?(?:[_-]?(?:add|mod|new|create|password))?"
                  # (a command named for passwords: htpasswd, mosquitto_passwd, change_password; not the word)
                  r"|[a-z0-9]{1,20}[_-]?passwd|(?:change|set|reset|update)[_-]password|http-basic(?:\.[\w-]{1,40})?|basic-auth)")
_USER_FLAG = lazy(r"(?i:-u|-U|--user(?:name)?|--login|--apple-id|--email|/u(?:ser)?:.{0,64})")
# (`-P` too once `-u` gave the user: mosquitto_pub's, sqlcmd's, ipmitool's; a port after it is no password)
_PASSWORD_FLAG = lazy(r"-[pP](?P<attached>.{0,200})")
_COMMAND_WORDS = ("user", "passwd", "password", "http-basic", "basic-auth", "-u", "/user:")
_SHELL_TOKEN = lazy(r"[^\s]+")


def _positional(token: str) -> bool:
    """Is ``token`` a command's positional argument (not a flag, a path, a share or a setting)?"""
    return not token.startswith(("-", "/", "\\", "\"", "'", "$", "%", "<", "|", ">", "&", "(")) and not NAME_EQUALS.match(token) \
        and not token.endswith(":") and "/" not in token and "\\" not in token and "`" not in token \
        and not HOST_OR_MAIL.fullmatch(token.rstrip(".,;)"))


def command_credentials(text: str, low: str) -> Iterator[Span]:
    """A password given to a command as an argument after the user it is for (see above): a
    value that looks like a password (after ``-p``), or no word or name could be (positional)."""
    for start, end in lines_holding(low, _COMMAND_WORDS):
        tokens = list(_SHELL_TOKEN.finditer(text, start, end))
        words = [t.group() for t in tokens]
        user_flag = -1
        for i, word in enumerate(words):
            if _USER_FLAG.fullmatch(word) and user_flag < 0:
                user_flag = i
                if word.lower().startswith(("/user:", "/u:")):
                    # Windows: the password is a positional argument anywhere on the line
                    for t in tokens[1:i]:
                        if _positional(t.group()) and password_shaped(t.group()):
                            yield "password given to a command", t.start(), t.end()
                            return
                continue
            flag = _PASSWORD_FLAG.fullmatch(word)
            if flag and user_flag >= 0:
                value, at = flag.group("attached"), tokens[i].start() + 2
                if not value and i + 1 < len(tokens):
                    value, at = words[i + 1], tokens[i + 1].start()
                value = value.strip("\"'")
                at += words[i + 1 if not flag.group("attached") else i].find(value) if value else 0
                if value and judge("password", "--", value, quoted=False, code=False, ends=True):
                    yield "password given to a command", at, at + len(value)
                    return
            if _USER_VERB.fullmatch(word) and i + 2 < len(words):
                j = i + 1
                while j < len(words) and (words[j].startswith("-") or "/" in words[j] or "\\" in words[j]):
                    j += 1  # flags and the file or share it works on (`htpasswd -b /etc/.htpasswd`)
                # (a command named for passwords, `htpasswd -b file ops X`, takes nothing but one
                # there: a person's `Juniper_4658` counts, as after a password's label)
                # (the password quoted, as a shell needs it quoted for its symbols: `add_user ops 'X!y'`;
                # quoted, it is one argument a person made, judged as a command named for passwords judges)
                pw = unquoted_argument(words, j + 1)
                named = "passw" in word.lower() or (j + 1 < len(words) and pw != words[j + 1])
                if j + 1 < len(words) and _positional(words[j]) and _positional(pw) \
                        and (strong_unlabelled(pw) or password_shaped(pw) or (named and word_and_number(pw, joined=True))) \
                        and pw != words[j]:
                    at = tokens[j + 1].start() + words[j + 1].find(pw)
                    yield "password given to a command", at, at + len(pw)
                    return


# A password or token as the value of any command's flag for one, whatever the command: attached
# to `-p` (`7z x a.7z -pX`, `unrar x -pX`, `mysql -pX`), Windows' `/p:X` and `/password:X`
# (`xfreerdp /p:X`, `rdesktop`, `psexec`), or after `-p`/`-P` (`zip -P X`, `sshpass -p X`), or after a one-letter flag for a token, key, secret or
# auth (`influx ... -t X`, `-k X`, `-a X`: a long random token only), and a token as `-u`'s user
# with the password left empty (`curl -u <key>:`: an API key sent as basic auth's user).
# (`-u` with no space before it too: a user-and-password flag may start its line, `-u ops:X` noted alone)
_FLAG_WORDS = (" -p", "\t-p", " /p", " -t", " -k", " -a", " -s", "-u", " /pass", "\t/p", " --pass", " -x", " -c", " -w")
_ATTACHED_P = lazy(r"-p(?P<value>[^\s\-][^\s]{5,200})")
_WINDOWS_P = lazy(r"(?i:[/-](?:p|pw|pwd|pass|password|passwd)):(?P<value>[^\s]{1,200})")
_TOKEN_FLAG = lazy(r"-[tkasTKAS]")
_SPELLED_PASSWORD = lazy(r"(?i:[/-](?:password|passwd|pass|pwd))")
# the flags that take a user and a password in one argument: `curl -u ops:X`, `lftp -u ops,X`,
# Samba's `smbclient -U ops%X` (and `--user=ops%X`), HTTPie's `http -a ops:X`; this is their one home
_USER_PAIR_FLAGS = ("-u", "--user", "-U", "-a", "--auth", "--username")
_USER_PAIR_ATTACHED = lazy(r"(?P<flag>--user(?:name)?|--auth)=(?P<arg>[^\s]{2,300})")
# Commands whose every password flag takes a password a person made (`sshpass -p X`, `openssl enc -k X`,
# `openssl ... -pass pass:X`): there a person's `Juniper_4658` counts, as after a password's label
_PASSWORD_COMMANDS = lazy(r"sshpass|openssl|htpasswd|[a-z0-9_-]{0,20}passwd|7za?|zip|unzip|unrar|rar|gpg2?")
_OPENSSL_PASS = lazy(r"-(?:pass|passin|passout|k)")
# macOS keychain's `security add-generic-password ... -w X` (and add-internet-password): `-w` of
# those takes the password and nothing else (find-*-password's `-w` takes no value: it prints one),
# so any literal there is one, a letters-only random run too (atk28)
_KEYCHAIN_ADD = lazy(r"add-(?:generic|internet)-password")
_PATTERN = lazy(r"[\[\]{}()]|\.\*|\]#")  # a glob's or regex's (zsh's `#compdef -P pip[0-9.]#`), not a password's
# (the user may be empty before `:`, `curl -u :X`; the password may be quoted on its own, `lftp -u ops,'X'`)
_USER_AND_PASSWORD = lazy(r"(?:[\w.@\\-]{1,64}[,%]|[\w.@\\-]{0,64}:)[\"']?(?P<value>[^\s'\"]{6,200})[\"']?")
_KEY_AS_USER = lazy(r"(?P<value>[^\s:'\"]{16,200}):['\"]?")


# Commands whose one-letter flags other than `-p` take passphrases: net-snmp's v3 tools (`-A` the
# authentication passphrase, `-X` the privacy one), and its v1/v2c clients' `-c`, the community
# string that is their password (the daemons' `-c` names a config file: `snmpd`, `snmptrapd`);
# elsewhere `-A`, `-X` and `-c` are an agent, a method, a command or a count
_PASSPHRASE_FLAGS = ("-A", "-X")
_PASSPHRASE_COMMANDS = lazy(r"snmp[a-z]{0,12}")
_COMMUNITY_COMMANDS = lazy(r"snmp(?!d\Z|trapd\Z)[a-z]{0,12}")


def _command_named(tokens: list[re.Match[str]], i: int, command: re.Pattern[str],
                   first: dict[int, int] | None = None) -> bool:
    """Is a token before the ``i``-th one the name of a ``command`` (after `sudo`, a path)?
    ``first`` caches, per command pattern, the index of its first token on the line (a line of
    ten thousand flags is read once, not once per flag)."""
    if first is None:
        return any(command.fullmatch(t.group().rsplit("/", 1)[-1]) for t in tokens[:i])
    key = id(command)
    if key not in first:
        first[key] = next((n for n, t in enumerate(tokens) if command.fullmatch(t.group().rsplit("/", 1)[-1])), len(tokens))
    return first[key] < i


joined_words = passphrase  # (flag_credentials names a flag's kind `passphrase`)


def _user_pair(tokens: list[re.Match[str]], i: int) -> Span | None:
    """The password in the user-and-password argument of a flag for both at ``tokens[i]``
    (:data:`_USER_PAIR_FLAGS`, or attached: ``--user=ops%X``), judged by
    :func:`~vault_mem.model.secret_judge.paired_password`; None for any other token."""
    word = tokens[i].group()
    attached = _USER_PAIR_ATTACHED.fullmatch(word)
    if attached:
        arg, arg_start = attached.group("arg"), tokens[i].start() + attached.start("arg")
    elif word in _USER_PAIR_FLAGS and i + 1 < len(tokens):
        arg, arg_start = tokens[i + 1].group(), tokens[i + 1].start()
    else:
        return None
    lead = len(arg) - len(arg.lstrip("'\""))
    m = _USER_AND_PASSWORD.fullmatch(arg.strip("'\""))
    pw = m.group("value") if m else ""
    if not m or not paired_password(pw) or _PATTERN.search(pw):
        return None
    at = arg_start + lead + m.start("value")
    return "password given to a command", at, at + len(pw)


def flag_credentials(text: str, low: str) -> Iterator[Span]:
    """A password or token given to a command's flag for one (see above): after ``-p`` or
    ``/p:`` a value that looks like a password, after ``-t``/``-k``/``-a``/``-s`` a long random
    token, after ``-u`` a random token with an empty password."""
    for start, end in lines_holding(low, _FLAG_WORDS):
        tokens = list(_SHELL_TOKEN.finditer(text, start, end))
        first: dict[int, int] = {}
        for i, t in enumerate(tokens):
            word = t.group()
            pair = _user_pair(tokens, i)
            if pair:
                yield pair
                continue
            if i == 0:
                continue  # (a flag follows a command's name; only a user and password pair is read alone)
            windows = _WINDOWS_P.fullmatch(word)
            m = _ATTACHED_P.fullmatch(word) or windows
            if m:
                raw = m.group("value")
                value = raw.strip("\"'")
                quoted = raw[:1] in ("'", '"') and raw[-1:] == raw[:1]
                # (`/p:` names a password whatever the command: a person's `Pelican@9430` counts there,
                # and a mixed run of letters and digits; so does `-p` attached to a command that takes
                # a password, `7z a -p'Word2024!'`)
                named = windows is not None or _command_named(tokens, i, _PASSWORD_COMMANDS, first)
                shaped = password_shaped(value) or (named and (word_and_number(value, joined=True) or joined_words(value) or (
                    len(value) >= 8 and credential_like(value) and not identifier_like(value)
                    and not is_placeholder(value, quoted=True))))
                # (a flag spelled out as a password's, `/password:X` (wmic, schtasks' `/rp`), names its
                # value as `password=X` does: any literal, not a variable, a prompt's `*` or a placeholder)
                shaped = shaped or bool(windows and _SPELLED_PASSWORD.fullmatch(word.split(":", 1)[0]) and len(value) >= 6
                                        and not value.startswith(("%", "$", "*", "<", "{")) and not is_placeholder(value, quoted=True))
                # (a quoted value is the password even with a `=` in it; `/p:Configuration=Release`
                # unquoted sets a property)
                if shaped and not (NAME_EQUALS.match(value) and not quoted) and not _PATTERN.search(value):
                    at = t.start() + word.find(value)
                    yield "password given to a command", at, at + len(value)
                continue
            if i + 1 >= len(tokens):
                continue
            nxt = tokens[i + 1].group()
            if word == "-w" and _command_named(tokens, i, _KEYCHAIN_ADD, first):
                value = nxt.strip("\"'")
                if len(value) >= 6 and (credential_like(value) or word_and_number(value, joined=True)) \
                        and not value.startswith(("$", "%", "<", "{", "-")) and not is_placeholder(value, quoted=True) \
                        and not _PATTERN.search(value):
                    at = tokens[i + 1].start() + nxt.find(value)
                    yield "password given to a command", at, at + len(value)
                continue
            passphrase = (word in _PASSPHRASE_FLAGS and _command_named(tokens, i, _PASSPHRASE_COMMANDS, first)) or (
                word == "-c" and _command_named(tokens, i, _COMMUNITY_COMMANDS, first))
            person = (word in ("-p", "-P", "--pass") or _OPENSSL_PASS.fullmatch(word) is not None) \
                and _command_named(tokens, i, _PASSWORD_COMMANDS, first)
            if word in ("-p", "-P", "--pass") or passphrase or person:
                value = nxt.strip("\"'")  # (`zip -P X`, `sshpass -p X`: a port or a path is no password)
                close = text.find(nxt[0], tokens[i + 1].start() + 1, end) if nxt[:1] in ("'", '"') and nxt[-1:] != nxt[:1] else -1
                if close > 0 and (person or passphrase):
                    # a passphrase of words quoted as one argument (`openssl enc -k 'Brine Ocelot Pluto 9'`)
                    words_value = text[tokens[i + 1].start() + 1:close]
                    if quoted_words(words_value):
                        yield "password given to a command", tokens[i + 1].start() + 1, close
                    continue
                if person and value.startswith("pass:"):
                    value = value[5:]  # openssl's `-pass pass:X`; `env:NAME` and `file:path` name where it lives
                # (snmp's `-A`/`-X` take nothing but a passphrase: any literal of its minimum length, 8)
                shaped = password_shaped(value) or (passphrase and len(value) >= 8 and credential_like(value)
                                                    and not is_placeholder(value, quoted=True))
                shaped = shaped or (person and word_and_number(value, joined=True))
                # (`minisign -Vm file -P <key>`, `signify -p <key>`: a public key, which verifies)
                if shaped and not _PATTERN.search(value) and not public_by_design(value):
                    at = tokens[i + 1].start() + nxt.find(value)
                    yield "password given to a command", at, at + len(value)
            elif _TOKEN_FLAG.fullmatch(word):
                value = nxt.strip("\"'")
                # (or a UUID after `-t`: the token of the CLIs whose tokens are UUIDs, Codecov's, Heroku's)
                if _random_flag_value(value) or (word == "-t" and UUID.fullmatch(value) is not None):
                    at = tokens[i + 1].start() + nxt.find(value)
                    yield "token given to a command", at, at + len(value)
            elif word in ("-u", "--user") and nxt.rstrip("'\"").endswith(":"):
                m = _KEY_AS_USER.fullmatch(nxt.strip("'\""))
                if m and _random_flag_value(m.group("value")):
                    at = tokens[i + 1].start() + nxt.find(m.group("value"))
                    yield "token given to a command", at, at + len(m.group("value"))


# Commands that take a password as a positional argument: `htpasswd -b[c] <file> <user> <password>`,
# `net use <drive> <share> <password> /user:<name>` (the arguments that are not flags, counted)
_POSITIONAL = lazy(r"(?<![\w-])(?:htpasswd[ \t]{1,4}-[a-zA-Z]{0,4}b[a-zA-Z]{0,4}(?:[ \t]{1,4}-[a-zA-Z]{1,4})*"
                   r"(?P<hargs>(?:[ \t]{1,4}[^\s-][^\s]{0,300}){3})"
                   r"|(?i:net)[ \t]{1,4}(?i:use)(?P<nargs>(?:[ \t]{1,4}[^\s/][^\s]{0,300}){2,3})(?=[ \t]{1,4}/(?i:user|u):))")
# (Windows takes the password anywhere among the arguments: after the user as well,
# `net use Z: \\fs\share /user:CORP\ana <password> /persistent:yes`)
_NET_USE_AFTER_USER = lazy(r"(?<![\w-])(?i:net)[ \t]{1,4}(?i:use)(?:[ \t]{1,4}[^\s/][^\s]{0,300}){1,2}[ \t]{1,4}/(?i:user|u):[^\s]{1,200}"
                           r"(?P<uargs>[ \t]{1,4}[^\s/][^\s]{0,300})")
# A command that stores a one-time-password secret takes it as its last argument, after the
# account's name: YubiKey's `ykman oath accounts add [options] <name> <secret>` (base32, or hex
# for HOTP), `oathtool [--totp|--hotp] <hex key>` (`-b` takes base32: secret_codes)
_OTP_COMMAND = lazy(r"(?<![\w-])(?:ykman(?:[ \t]{1,4}-[^\s]{1,40}(?:[ \t]{1,4}[^\s-][^\s]{0,60})?)?[ \t]{1,4}oath"
                    r"(?:[ \t]{1,4}accounts)?[ \t]{1,4}add|oathtool)(?P<args>(?:[ \t]{1,4}[^\s|;&<>]{1,300}){1,16})")
# ykman's options that take a value (`--oath-type HOTP`, `--counter 0`, `-i GitHub`)
_OTP_VALUED = frozenset(["-o", "--oath-type", "-c", "--counter", "-d", "--digits", "-a", "--algorithm", "-i", "--issuer",
                         "-p", "--period", "-P", "--password", "-s", "--window", "-N", "--now"])
_OTP_SECRET = lazy(r"[A-Za-z2-7]{16,128}={0,6}|[0-9a-fA-F]{20,128}")


def otp_arguments(text: str) -> Iterator[Span]:
    """The secret a one-time-password command is given as its last positional argument
    (:data:`_OTP_COMMAND`): base32 or hex of 16 characters or more, after the account's name
    (ykman) or alone (oathtool), not a placeholder."""
    if "ykman" not in text and "oathtool" not in text:
        return
    for m in _OTP_COMMAND.finditer(text):
        args = list(_SHELL_TOKEN.finditer(text, m.start("args"), m.end("args")))
        plain, skip = [], False
        for a in args:
            word = a.group()
            if skip:
                skip = False
            elif word.startswith("-"):
                skip = word in _OTP_VALUED and m.group().lstrip().startswith("ykman")
                if word == "-b" or word.startswith("--base32"):
                    plain = []  # (oathtool's base32 seed: read by secret_codes)
                    break
            else:
                plain.append(a)
        least = 2 if m.group().lstrip().startswith("ykman") else 1
        if len(plain) < least:
            continue
        last = plain[-1]
        value = last.group().strip("\"'")
        if _OTP_SECRET.fullmatch(value) and not is_placeholder(value, quoted=True) and not looks_fake(value) \
                and (high_entropy(value) or random_hex(value, min_len=20)):
            at = last.start() + last.group().find(value)
            yield "TOTP secret", at, at + len(value)


def positional_passwords(text: str) -> Iterator[Span]:
    """The password a command takes as a positional argument (see :data:`_POSITIONAL`): the last
    argument, a literal that is not a variable, a prompt's `*` or a placeholder."""
    yield from otp_arguments(text)
    if "htpasswd" not in text and "net use" not in text.lower():
        return
    for m in itertools.chain(_POSITIONAL.finditer(text), _NET_USE_AFTER_USER.finditer(text)):
        group = "uargs" if "uargs" in m.re.groupindex else "hargs" if m.group("hargs") else "nargs"
        args = list(_SHELL_TOKEN.finditer(text, m.start(group), m.end(group)))
        if group == "nargs" and (len(args) < 2 or not args[-2].group().startswith("\\\\")):
            continue  # `net use Z: \\host\share <password>`: the password after the share
        last = args[-1]
        value = last.group().strip("\"'")
        # (after the user, a person's words and number count: `/user:CORP\ana Winter.Grove.2026`)
        person = group == "uargs" and (word_and_number(value, joined=True) or passphrase(value) or credential_like(value))
        if len(value) >= 6 and not value.startswith(("$", "%", "*", "<", "{")) and not is_placeholder(value, quoted=True) \
                and (person or not looks_fake(value)):
            at = last.start() + last.group().find(value)
            yield "password given to a command", at, at + len(value)


def _random_flag_value(value: str) -> bool:
    """A token after a bare one-letter flag: random enough that no name, path or id could be it."""
    return (random_token(value, min_len=24) or random_hex(value, min_len=32) or (len(value) >= 32 and high_entropy(value)
            and not identifier_like(value))) and not DIGEST.fullmatch(value) and not is_placeholder(value, quoted=True) \
        and not looks_fake(value) and not value.lower().startswith(("sha", "md5", "0x")) and "/" not in value.rstrip("=")


# A value written into a file named for a credential (`echo 'X' > /etc/wireguard/private.key`,
# `printf %s X | sudo tee ~/.config/app/token`): the file's name labels what goes into it
_WRITTEN = lazy(r"(?<![\w-])(?:echo|printf)(?:[ \t]{1,4}-[a-z]{1,3})*(?:[ \t]{1,4}[\"']?%s(?:\\n)?[\"']?)?[ \t]{1,4}"
                r"(?P<q>[\"']?)(?P<value>[^\s\"'<>|;]{8,400})(?P=q)[ \t]{0,4}"
                r"(?:>{1,2}|\|[ \t]{0,4}(?:sudo[ \t]{1,4})?tee(?:[ \t]{1,4}-a)?)[ \t]{0,4}[\"']?(?P<path>[^\s\"';&|]{1,300})")
_FILE_WORDS = lazy(r"(?i:key|secret|token|pass|pwd|cred|psk|auth|cookie)")
_PUBLIC_FILE = lazy(r"(?i:pub|public|cert|\.crt|\.pem\.pub|known_hosts|authorized)")


# ... or handed to a command's flag for one through a pipe or a process substitution
# (`echo X | docker login --password-stdin`, `--vault-password-file <(echo X)`, restic's
# `--password-command "echo X"`)
_ECHOED = lazy(r"(?<![\w-])(?:echo|printf)(?:[ \t]{1,4}-[a-z]{1,3})*(?:[ \t]{1,4}[\"']?%s(?:\\n)?[\"']?)?[ \t]{1,4}"
               r"(?P<q>[\"']?)(?P<value>[^\s\"'<>|;()]{8,400})(?P=q)[ \t]{0,4}(?P<to>\||\)|;|[\"'](?=[ \t]|$))")
# (or a subcommand that stores what it reads as a secret: `wrangler secret put NAME`, `docker
# secret create NAME -`, `supabase secrets set`, `firebase functions:secrets:set NAME`)
_CREDENTIAL_FLAG = lazy(r"(?i:--?[\w-]{0,30}(?:pass|secret|token|key|cred)[\w-]{0,30}|chpasswd|passwd"
                        r"|(?<![\w-])secrets?(?:[ \t]{1,4}|:)(?:put|set|add|create)(?![\w-]))")


def _written_value(value: str) -> bool:
    # (the file's or the flag's name says what the value is, as a user's name before it does:
    # a person's words and number count, `lantern.cinder75$`, as in paired_password)
    return (random_token(value, min_len=16) or random_hex(value, min_len=32) or (len(value) >= 20 and high_entropy(value))
            or password_shaped(value) or paired_password(value)) and not is_placeholder(value, quoted=True) \
        and not looks_fake(value)


# a command that reads a password from its input: `passwd`'s family, `--password-stdin`, `--stdin`
_STDIN_READER = lazy(r"(?i:(?<![\w-])(?:smbpasswd|chpasswd|passwd|htpasswd|pdbedit|saslpasswd2)(?![\w-])"
                     r"|--[\w-]{0,30}(?:pass|secret|token)[\w-]{0,30}-stdin(?![\w-])|--stdin(?![\w-]))")
_GROUP_REACH = 200


def _piped_group_to_reader(text: str, at: int, after: int, start: int, end: int) -> bool:
    """Whether the ``echo`` at ``at`` (its ``;`` ending at ``after``) stands in a ``( … )`` group
    whose ``)`` is piped into a command that reads a password (each search within a reach)."""
    opened = text.rfind("(", max(start, at - _GROUP_REACH), at)
    if opened < 0 or ")" in text[opened:at]:
        return False
    closed = text.find(")", after, min(end, after + _GROUP_REACH))
    if closed < 0:
        return False
    pipe = _GROUP_PIPE.match(text, closed + 1, end)
    if pipe is None:
        return False
    stop = _COMMAND_END.search(text, pipe.end(), min(end, pipe.end() + _GROUP_REACH))
    return _STDIN_READER.search(text, pipe.end(), stop.start() if stop else min(end, pipe.end() + _GROUP_REACH)) is not None


_GROUP_PIPE = lazy(r"[ \t]{0,4}\|(?!\|)")
_COMMAND_END = lazy(r"\||;|&&")


def written_credentials(text: str, low: str) -> Iterator[Span]:
    """A value ``echo``'d or ``printf``'d into a file whose name says it holds a key, a secret, a
    token or a password, or into a command's flag for one: random, or a person's password
    (:func:`password_shaped`)."""
    for start, end in lines_holding(low, ("echo", "printf"), (">", "tee", "|", "<(", "\"echo", "'echo")):
        last_flag: int | None = None  # where the line's last credential flag starts, found once per line
        for m in _WRITTEN.finditer(text, start, end):
            name = m.group("path").rstrip("/").rsplit("/", 1)[-1]
            value = m.group("value")
            if not _FILE_WORDS.search(name) or _PUBLIC_FILE.search(name) or value.startswith(("$", "-", "/")):
                continue
            if _written_value(value):
                yield "secret written to a key file", m.start("value"), m.end("value")
        for m in _ECHOED.finditer(text, start, end):
            value = m.group("value")
            # (a pipe hands it to the flag after it; a process substitution to the flag before it)
            if m.group("to") == ";":
                # a group's `(echo X; echo X) | smbpasswd -s`: only a group piped to a command that
                # reads a password from its input (`(echo startjob42; date) | ./tool --api-key-file k`
                # hands the tool no key)
                flag = _piped_group_to_reader(text, m.start(), m.end(), start, end)
            elif m.group("to") == "|":
                # a flag anywhere after the pipe on the line: found once per line (a search to the
                # line's end from each pipe took time quadratic in a long line of pipes)
                if last_flag is None:
                    last_flag = last_match_start(_CREDENTIAL_FLAG, text, start, end)
                flag = last_flag >= m.end()
            else:
                flag = _CREDENTIAL_FLAG.search(text, max(start, m.start() - 80), m.start()) is not None
            if flag and not value.startswith(("$", "-", "/")) and _written_value(value):
                yield "secret handed to a command", m.start("value"), m.end("value")


# An account's e-mail address, a slash and its password ("Netflix: ana@mail.example / X"): a login
# written as a pair, wherever it stands
_MAIL_PAIR = lazy(r"[\w.+-]{1,64}@[\w-]{1,63}(?:\.[\w-]{1,63})+[ \t]{0,4}(?:/|\||::)[ \t]{0,4}(?P<pw>[^\s\"'`,;|]{6,200})")


def mail_pairs(text: str) -> Iterator[Span]:
    """The password after an e-mail address and a slash, when it looks like a password by itself."""
    for start, end in lines_holding(text, ("@",), ("/", "|", "::")):
        for m in _MAIL_PAIR.finditer(text, start, end):
            pw = m.group("pw").rstrip(".,;:!?)")
            if password_shaped(pw) and "@" not in pw:
                yield "password after its login", m.start("pw"), m.start("pw") + len(pw)


# FTP's and POP3's `USER name` then `PASS X`, IMAP's `a1 LOGIN name X`: a protocol's sign-in, as a
# transcript, a packet capture or a debug log shows it
_PROTOCOL_PASS = lazy(r"^[ \t]{0,8}(?:[<>]{1,2}[ \t]{0,2})?USER[ \t]{1,4}[^\s]{1,64}[ \t]*\r?\n(?:[^\n]{0,200}\n){0,3}?"
                      r"[ \t]{0,8}(?:[<>]{1,2}[ \t]{0,2})?PASS[ \t]{1,4}(?P<value>[^\s]{4,200})[ \t]*\r?$", re.MULTILINE)
_IMAP_LOGIN = lazy(r"^[ \t]{0,8}(?:[<>]{1,2}[ \t]{0,2})?[A-Za-z0-9.]{1,12}[ \t]{1,4}LOGIN[ \t]{1,4}[^\s]{1,64}[ \t]{1,4}"
                   r"(?P<value>[^\s]{4,200})[ \t]*\r?$", re.MULTILINE)

# Redis's `AUTH [user] X` as typed at redis-cli's prompt or in a transcript (`> AUTH default X`,
# `127.0.0.1:6379> auth X`): the command's capitals, or any case after the prompt. A mechanism's
# name in capitals (SMTP's `AUTH LOGIN`, `AUTH CRAM-MD5`) is no password
# Only at redis-cli's own prompt (`host:port>`) or in a text that runs redis-cli is any value the password;
# after a bare `>` (a quote in Markdown) or none, AUTH is also a line of a table ("AUTH keycloak-22",
# "AUTH v2.3.1", "AUTH team-identity"): there the value must look like a credential by itself
_REDIS_AUTH = lazy(r"^[ \t]{0,8}(?:(?P<prompt>(?:[\w.-]{1,64}:\d{1,5}(?:\[\d{1,2}\])?)?>)[ \t]{0,2}(?i:auth)|AUTH)"
                   r"(?:[ \t]{1,4}[\w.@-]{1,64})?[ \t]{1,4}(?P<value>[^\s]{4,200})[ \t]*\r?$", re.MULTILINE)
_MECHANISM = lazy(r"[A-Z0-9-]{2,20}")

# A server's config directive that takes a user and a password in the clear: HAProxy's `stats auth
# user:X` and a userlist's `user name insecure-password X` (its `password` takes a hash: passes)
_DIRECTIVE_LOGIN = lazy(r"^[ \t]{0,24}(?:stats[ \t]{1,4}auth[ \t]{1,4}[^\s:]{1,64}:|user[ \t]{1,4}[^\s]{1,64}[ \t]{1,4}insecure-password[ \t]{1,4})"
                        r"(?P<value>[^\s]{1,200})", re.MULTILINE)


# A command whose arguments are keyword/value pairs, a network's password among them: NetworkManager's
# `nmcli dev wifi connect SSID password X`, `nmcli con modify c wifi-sec.psk X`, wpa_cli's `set_network 0
# psk` with the value quoted twice. Any literal of 8 characters or more counts there (WPA's shortest).
_KEYWORD_COMMAND = lazy(r"^[ \t$#>]{0,8}(?:sudo[ \t]{1,4})?(?:nmcli|wpa_cli)(?=[ \t])[^\n]{0,400}?(?<![\w.-])"
                        r"(?:password|psk|wifi-sec\.psk|802-1x\.password|wep-key0)[ \t]{1,4}['\"]{0,2}"
                        r"(?P<value>[^\s\"']{8,200})['\"]{0,2}(?![^\s])", re.MULTILINE)


def keyword_credentials(text: str) -> Iterator[Span]:
    """A network's password as a keyword argument's value (see :data:`_KEYWORD_COMMAND`)."""
    if "nmcli" in text or "wpa_cli" in text:
        for m in _KEYWORD_COMMAND.finditer(text):
            value = m.group("value")
            if not is_placeholder(value, quoted=True):
                yield "password given to a command", m.start("value"), m.end("value")


def directive_logins(text: str) -> Iterator[Span]:
    """The password of a server's user given in a config directive (see :data:`_DIRECTIVE_LOGIN`)."""
    if "stats" in text or "insecure-password" in text:
        for m in _DIRECTIVE_LOGIN.finditer(text):
            value = m.group("value").strip("\"'")
            if len(value) >= 4 and not is_placeholder(value, quoted=True):
                yield "password in a config directive", m.start("value"), m.end("value")


def protocol_logins(text: str) -> Iterator[Span]:
    """The password of a protocol's sign-in in a transcript (``USER`` then ``PASS``; IMAP ``LOGIN``;
    Redis ``AUTH``)."""
    for pattern, word in ((_PROTOCOL_PASS, "PASS "), (_IMAP_LOGIN, " LOGIN "), (_REDIS_AUTH, "uth ")):
        if word in text or (word == "uth " and "UTH " in text):
            for m in pattern.finditer(text):
                value = m.group("value").strip("\"")
                if word == "uth " and not (":" in (m.group("prompt") or "") or "redis-cli" in text.lower()) \
                        and not credential_like(value):
                    continue
                if not is_placeholder(value, quoted=True) and not value.isdigit() and not _MECHANISM.fullmatch(value) \
                        and not (word == "uth " and value.isalpha() and (value.islower() or value.istitle())):
                    # (after Redis's AUTH a word is a log's: "AUTH failed", "AUTH token expired")
                    yield "password in a sign-in transcript", m.start("value"), m.end("value")
