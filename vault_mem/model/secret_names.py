"""What a label is: the words, key names and signs that name a value a credential.

The vocabulary every label finder reads (:mod:`vault_mem.model.secret_labels`,
:mod:`vault_mem.model.secret_near` and the finders of places): the credential words in English
and, from :mod:`vault_mem.model.secret_words`, in other languages (:func:`label_keywords` finds them
from the keyword outwards); the signs a label takes (``=``, ``:``, "is" in several languages,
CJK particles, ``to``) and the value patterns after them; the words of prose and of states
("expired", "required") that a value is not; and :func:`key_class`, which names the class of a
key name: ``password``, ``secret``, ``key`` or none (``api_key_env``, ``tokens``,
``password_file`` and public, lookup and cache keys name none). A new credential word or key
name is a row here (or in :mod:`vault_mem.model.secret_words`), not a new finder.
"""

from __future__ import annotations

import heapq
import re
from collections.abc import Iterator
from functools import lru_cache

from vault_mem.model import secret_words
from vault_mem.model.lazy_patterns import lazy
from vault_mem.model.secret_public import TAILSCALE_PUBLIC_KEYS
from vault_mem.model.secret_values import PASSWORD_SYMBOLS
from vault_mem.model.seed_words import BIP39_ENGLISH

__all__ = ["AND_PAIR", "APP_PASSWORD", "ASSIGN_TAIL", "assign_tail", "BARE_TOKEN", "CALL_END", "CJK_CHAR", "COMPOUND",
           "COPULA_WORD", "DASHED_VALUE", "DIGEST", "DIGIT_GROUPS", "FOREIGN_PASSWORD_LABEL", "FSTRING_FIELD",
           "GRANTING_KEY_END", "KEY_QUALIFIERS", "NEXT_LINE", "OWNER", "PAIR", "PAIR_AFTER_WORD", "SPACE_PAIR", "USER_SHAPE",
           "PASSWORD_KEYS", "PROSE_TAIL", "PUSH_WORDS", "PROSE_WORDS", "PUBLIC_KEY_NAMES", "QUOTED_WORDS",
           "SCRIPT_PASSWORD_END", "SEP", "SHORT_ID", "STATE_SUFFIXES", "STATE_WORDS", "Span", "WIFI",
           "WIFI_REACH", "WORD_RUN", "is_key_char", "is_sentence", "key_class", "label_keywords", "manager_label", "public_name",
           "snmp_community", "COMMENT_MARK", "below_mark", "LOCKING_KEY_END"]

Span = tuple[str, int, int]

# "password" in the languages people write notes in, as the text reads after normalisation
# (secret_text.normalise folds Cyrillic letters that look Latin: "пароль" is read as "пapoль").
# (with the endings a noun takes where it is written against it: Swedish "lösenordet", Turkish
# "şifresi", Indonesian "kata sandinya")
_FOREIGN_PASSWORD = rf"{secret_words.PASSWORD}|{secret_words.SCRIPT_PASSWORD}"
# a token, a key or a secret in another language ("la clave de la API", "Ключ API", "APIキー");
# in scripts written without spaces the word stands against what comes before it, no separator
_FOREIGN_SECRET = secret_words.SECRET
_SCRIPT_SECRET = secret_words.SCRIPT_SECRET
_SCRIPT_PASSWORD = secret_words.SCRIPT_PASSWORD
FOREIGN_PASSWORD_LABEL = lazy(rf"(?:{_FOREIGN_PASSWORD})")
# (an `id` after the word is read with it, so `SecretID`, `secret_id`, `JSESSIONID` are judged
# as names: key_class says which of them hold a secret and which name an id)
_END = r"(?:[_-]?id|_base)?(?![a-z0-9_.-])"
# A variable named for the credential and then for its environment or its place in a rotation
# (`DOTENV_PRIVATE_KEY_PRODUCTION`, `DB_PASSWORD_STAGING`, `API_TOKEN_2`): the credential word is
# the name's last but one part, so the English keywords may end in one of these (key_class drops it)
# (one of several numbered, `key1`, `password-2`, `DB_PASS_PART1`: a storage account's two keys, a
# credential kept in parts)
_QUALIFIER = (r"(?:_(?:prod|production|staging|stage|stg|dev|develop|development|test|testing|qa|uat|local|live"
              r"|sandbox|preview|primary|secondary|old|new|next|prev|previous|backup|main|default|ci|v?[0-9]{1,2}"
              r"|(?:part|half|piece)_?[0-9]{1,2})|-?[0-9]{1,2})")
_CAMEL_AUTH_END = lazy(r"(?<=[a-z0-9]{2})Auth(?:[_-]?[0-9]{1,2})?$")
# `nexusPass`, `smtpPass`: a camelCase name whose last word is "Pass" names whose password it is
# (the capital says a word starts there: not "bypass", "compass", "surpass")
_CAMEL_PASS_END = lazy(r"(?<=[a-z0-9])Pass(?:[_-]?[0-9]{1,2})?$")
_NUMBERED_END = lazy(r"(?<=[a-z])(?:[_-]?(?:part|half|piece)[_-]?|[_-]?v?)[0-9]{1,2}$")
_QUALIFIER_END = lazy(_QUALIFIER + "$")
# A name for what a credential holds (`keyData`, "Key Content" in netsh's report, `secret_value`,
# `keyMaterial`), or for its encoding (`db_pass_hex`, `secret_b64`): the credential itself, as much
# as its plain name is
_CONTENT = r"(?:[ _.-]?(?:data|material|content|value|bytes|hex|b64|base64|base32|encoded))"
_CONTENT_END = lazy(_CONTENT + "$")
# (with the short and misspelt forms people type in a hurry: `pword`, `pswd`, `pasword`, `passwrd`)
_ENGLISH = lazy(r"(?:pass(?:word|wd|phrase|code|[_-]phrase|wrd|owrd)?|pwd|pw|(?<![a-z0-9/])p/w|psk|pword|pswd|pasword|paswd|paswrd|secret|token|apikey|key|credentials?|creds?"
                      r"|auth|pat|session|sess|login|logon|wif|appid|encrypt|licen[cs]e|serial|seed"
                      # an auth token and an auth ident by their short names (SSSD's `ldap_default_authtok`,
                      # Yarn's `npmAuthIdent`, a user and a password joined)
                      r"|authtok|authident"
                      # SNMP's community string, its v1/v2c password ("the SNMP community string is X")
                      r"|(?:snmp[ _-]?)?community[ _-]?string|snmp[ _-]?community"
                      # a bare `community` (snmp_exporter's `auths:`, Telegraf's, a poller's YAML): a
                      # password only in a text about SNMP (see snmp_community)
                      r"|community"
                      # the secret half of an AK/SK pair (Volcengine's `--sk`, Huawei's `HUAWEICLOUD_SDK_SK`)
                      r"|(?<![a-z0-9])sk"
                      # a session cookie by its name (`.AspNetCore.Cookies`, `sid`, Google's `__Secure-3PSID`)
                      r"|cookies?|sid|[0-9]?psid|sapisid|apisid"
                      # a network named for its password ("the wifi is X", "guest wlan: X"; see key_class)
                      r"|wi-?fi|wlan|wireless|hotspot"
                      # plurals name a list of them (`api_tokens:`, "passwords for the lab: X and Y"):
                      # only the value-near-its-label rule reads after them (_PLURAL)
                      r"|(?:password|passphrase|secret|token|key|apikey)s)(?:[_-]?id|_base|" + _CONTENT + ")?" + _QUALIFIER
                      # (a dot ending its sentence is no dotted name's: "a stale client secret. Swapped it for X")
                      + "?(?![a-z0-9_-]|\\.(?![ \\t\\r\\n]|\\Z))")
_FOREIGN_WORDS = rf"{_FOREIGN_PASSWORD}|{_FOREIGN_SECRET}|{_SCRIPT_SECRET}"
# each foreign word and the stems that find it: a text is read for the words whose stems it holds
# only (one regex of all ~150 words costs ~10 ms on 4 KB of non-ASCII prose; of the few there, ~1)
_FOREIGN_ALTS = secret_words.alternatives(_FOREIGN_WORDS)
# Substrings one of which every foreign word above holds once normalised (a plain search each;
# a regex of all the words costs five times the English one at every position of every text).
_ALL_STEMS = secret_words.stems(_FOREIGN_WORDS)
_FOREIGN_STEMS = tuple(s for s in _ALL_STEMS if s.isascii())
_FOREIGN_SCRIPT_STEMS = tuple(s for s in _ALL_STEMS if not s.isascii())


def label_keywords(low: str) -> Iterator[re.Match[str]]:
    """Every credential keyword in ``low`` in order: the English ones, and the foreign ones when
    a stem of one is there."""
    english = _ENGLISH.finditer(low)
    for stem in _FOREIGN_STEMS if low.isascii() else _ALL_STEMS:
        if stem in low:  # (a plain loop: this runs on every text the gate reads)
            break
    else:
        return english
    present = tuple(alt for alt, stems in _FOREIGN_ALTS if any(s in low for s in stems))
    return heapq.merge(english, _foreign_keyword(present).finditer(low), key=lambda m: m.start())


@lru_cache(maxsize=256)
def _foreign_keyword(alternatives: tuple[str, ...]) -> re.Pattern[str]:
    """The regex of the foreign words ``alternatives`` (the ones a text's stems point to)."""
    return re.compile(rf"(?:{'|'.join(alternatives) or '(?!)'}){_END}")


# Bulgarian's "е" ("Паролата за сървъра е X"), folded to the Latin "e" as the gate reads it: counted
# only after a Cyrillic word (a letter no Latin one folds to within its last six), as Italian's and
# Portuguese's "e" is "and" ("la password e Nginx2 va riavviato", "a senha e Redis7cache")
_BULGARIAN_E = "e(?:" + "|".join(rf"(?<=[\u0400-\u04ff][^\W\d_]{{{k}}}[ \t]e)" for k in range(6)) + ")"
# "is" before a value, in English and the languages above ("la contraseña es X", "Kennwort ist X",
# "Das Passwort lautet X"): every one reads as the sign ``is``
# (Catalan's "és"; Greek's "είναι" as the gate reads it, its Latin look-alikes folded)
_COPULA = (r"(?:is|was|es|és|ist|lautet|est|era|war|é|è|är|er|je|jest|on|ni|adalah|là|este|ay|هي|هو|היא|הוא|"
           # Latvian "ir", Lithuanian "yra", Welsh "yw", Irish "ná" ("is é an pasfhocal ná X"), Bulgarian "е"
           r"ir|yra|yw|ná|" + _BULGARIAN_E + "|"
           + secret_words.folded("είναι") + ")")
# The words that stand as a sign: "is", and "to" ("set the admin password to X", "changed to X"),
# which stays the sign ``to`` (only a value that looks like a credential follows it; see judged_value)
_SIGN_WORD = rf"(?:{_COPULA}|to)"
# the words that may stand between the sign word and the value ("is still X", "is now X")
COMPOUND = lazy(r"[^\W\d_]{2,20}(?:-[^\W\d_]{2,20}){1,2}")  # "WLAN-Passwort", "wi-fi-password"
# the words after a credential's label that say whose or which it is ("for", "of", "(", "on the"),
# and an account's name put after the noun, as Romance languages do ("le mot de passe root du
# serveur est X", "la contraseña admin es X", "a senha do sudo")
OWNER = lazy(r"[ \t]{1,4}(?:[(\[~/]|(?:for|of|on|to|at|in|from|with|im|am|für|vom|der|des|du|de|del|della|di|da|do|dla"
             r"|root|admin|administra(?:tor|teur|tore|dor)|superuser|sudo"
             r"|på|för|till|til|van|voor|akun|untuk|ของ|is|was|es|ist|lautet|est|è|é|är|er|on"
             # Czech and Slovak ("Heslo k serveru"), Greek ("του διακομιστή", its Latin look-alikes
             # folded as the gate reads it)
             r"|k|ke|ku|pro|na|za|" + "|".join(secret_words.folded(w) for w in ("του", "της", "των", "για", "στο", "στον")) +
             # Russian and Ukrainian ("пароль от сервера", "пароль до адмінки", "для", "від"), Vietnamese
             # ("mật khẩu của/cho", "mật khẩu quản trị": an account's name after the noun, as "root" above)
             "|" + "|".join(secret_words.folded(w) for w in ("от", "для", "до", "від", "к", "у", "в", "на")) +
             r"|của|cho|quản|admin|wifi|wi-fi" +
             # Afrikaans ("die wagwoord vir die bediener"), Bulgarian ("паролата за сървъра")
             r"|vir|die|" + secret_words.folded("за") +
             # Hebrew writes "to", "in" and "of" against the noun ("הסיסמה לשרת": the server's password)
             r")(?![^\W\d_])|(?:ל|ב|של)(?=[\u05d0-\u05ea]))", re.IGNORECASE)
_ADVERB = r"(?:still|now|currently|always|also|just|again|actually|apparently|probably|supposedly|reportedly|simply|officially|jetzt|noch|ahora|todav[ií]a|maintenant|toujours|ora|ancora|sekarang|nu|nog)"
# Japanese, Chinese and Korean mark "is" with a particle written against the label ("パスワードは X")
_CJK_COPULA = r"(?:は|是|为|為|는|은)"
# Thai writes "is" (คือ) against the words before it too, with no space: "รหัสผ่านเราเตอร์คือ X"
_THAI_COPULA = r"[\u0e00-\u0e7f]{0,30}?คือ"
COPULA_WORD = lazy(rf"{_COPULA}|{_CJK_COPULA}|{_THAI_COPULA}")
CJK_CHAR = lazy(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]")
# The conversions a literal is wrapped in where a string will not do (not a method of a variable:
# `password.encode("latin1")` passes an argument, not the value)
_CONVERSION = r"(?:\[\][a-z]{1,8}|bytes|str|String|Buffer\.from|Secret(?:Str|String|Bytes)?|Some|Optional\.of)"
_TYPED_SIGN = (r"|[ \t]{0,4}:?[ \t]{0,4}(?:&(?:'static[ \t]{1,2})?)?(?:str|string|String|SecretStr|SecretString|bytes|Text)\??"
               r"[ \t]{0,4}=[ \t]{0,8}"
               # Visual Basic's `Dim pwd As String = "X"`, `Const ApiKey As String = "X"`
               r"|[ \t]{1,4}(?:As|as|AS)[ \t]{1,4}(?:String|string|STRING)[ \t]{0,4}=[ \t]{0,8}")
#: a pronoun that takes up the label after a clause, and its "is" ("it's", "it is", "that's")
_RESUMED = r"(?:it['’]s|it[ \t]{1,2}is|that['’]s|that[ \t]{1,2}is)"
_VALUE = r"(?P<value>\"[^\"\n]{1,200}\"|'[^'\n]{1,200}'|`[^`\n]{1,200}`|[^\s\"'`,;]{1,200})"
# compiled at its first use, as the other tails (the text of a write rarely reaches it: ~1-3 ms
# of a one-shot write's start compiled it for nothing, issue 29); a match of it is told from a
# match of another tail by :func:`assign_tail`
ASSIGN_TAIL = lazy(r"[*_`'\"\]]{0,3}"
                         # a YAML block scalar (`k: >-`, the value on the next line), then signs
                         r"(?P<op>[ \t]{0,8}:[ \t]{0,4}[>|][-+]?[ \t]{0,4}\r?\n[ \t]{1,16}"
                         # a string type between the name and the sign (`password: str = "X"`,
                         # Bicep's `param adminPassword string = 'X'`, Rust's `KEY: &str = "X"`)
                         + _TYPED_SIGN +
                         # "is" written against the label ("Password's X, username is the usual")
                         r"|['’]s(?:[ \t]{1,4}" + _ADVERB + r")?[ \t]{1,8}"
                         r"|[ \t]{0,8}(?::=|=>|==|=|:|->|→|՝)[ \t]{0,24}|[ \t]{9,40}:[ \t]{1,8}|[ \t]{1,4}[-–—][ \t]{1,4}|[ \t]{1,8}" + _SIGN_WORD + r"(?:[ \t]{1,4}" + _ADVERB + r")?[ \t]{1,8}|[ \t]{0,2}" + _CJK_COPULA
                         + r"[ \t]{0,8}|" + _THAI_COPULA + r"[ \t]{0,8}"
                         # a call named for the credential, given a literal (`.bearer_auth("X")`)
                         + r"|[ \t]{0,4}\((?=[ \t]{0,4}[\"'`])[ \t]{0,4}"
                         # COBOL's picture clause between a data item and its value (`PIC X(16) VALUE 'X'`)
                         + r"|[ \t]{1,8}PIC(?:TURE)?[ \t]{1,4}[XA9](?:\([0-9]{1,4}\))?[ \t]{1,8}VALUE[ \t]{1,8}"
                         # a tuple's name and its literal (Erlang's `{db_password, "X"}`, `<<"X">>`; Elixir's
                         # `{:api_secret, "X"}`): only after a tuple's opening brace (see assignments)
                         + r"|[ \t]{0,2},[ \t]{0,8}(?:<<)?(?=[\"'])"
                         # a relative clause as the sign ("the admin account's password, which is X")
                         # or a pronoun's ("Reset the jenkins password, it's now X"), an adverb after it
                         + r"|[ \t]{0,2},[ \t]{1,4}(?:which[ \t]{1,4}(?:is|was)|" + _RESUMED + r")(?:[ \t]{1,4}" + _ADVERB + r")?[ \t]{1,8}"
                         + r"|[ \t]{1,8})"
                         # Markdown's bold closed after the colon (`**Password:** X`, `__pw:__ X`)
                         + r"(?:(?<=:)(?:\*\*|__)[ \t]{1,4})?"
                         # a literal wrapped in a conversion (`[]byte("X")`, `SecretStr("X")`)
                         + r"(?P<wrap>" + _CONVERSION + r"\([ \t]{0,4}(?=[\"'`]))?" + _VALUE)


def assign_tail(match: re.Match[str]) -> bool:
    """Whether ``match`` is one of :data:`ASSIGN_TAIL` (a tail's match is one of it or of
    :data:`PROSE_TAIL` or :data:`NEXT_LINE`, each its own pattern text)."""
    return match.re.pattern == ASSIGN_TAIL.pattern


# Prose: "the token for staging is X", "pw for the router: X" (up to four words between).
# Words of any script, a parenthesis around one ("encryption key (AES-256): X") allowed, and an
# abbreviation inflected after a colon as Swedish and Finnish write it ("Lösenordet till NAS:en är X").
# (up to seven words, paths among them: "the root password on the old build box (10.0.3.14) is X",
# "the passphrase for ~/.ssh/id_work is X"; an adverb may
# follow the sign word: "is still X", "lautet jetzt X")
PROSE_TAIL = lazy(r"(?:[ \t]{1,4}[(\[]?(?:[^\W_]|[~/.](?=[\w/.]))[\w@/.+'’~-]{0,30}(?::[^\W\d_]{1,3}(?![\w:]))?[)\]]?){1,7}?"
                         r"(?P<op>[ \t]{0,4}(?::|->|→)[ \t]{1,8}"
                         # the clause ends and a pronoun gives the value ("my github password in case
                         # I forget it, it's X", "the wifi password - it's X"): ``it's`` is the sign
                         r"|(?:[ \t]{0,2}[,;]|[ \t]{1,4}[-–—])[ \t]{1,4}" + _RESUMED + r"(?:[ \t]{1,4}" + _ADVERB + r")?[ \t]{1,8}"
                         r"|[ \t]{1,4}[-–—][ \t]{1,4}|[ \t]{1,4}" + _SIGN_WORD
                         + r"(?:[ \t]{1,4}" + _ADVERB + r")?[ \t]{1,8})" + _VALUE)
#: The marks that start a commented-out line (shell, YAML, TOML, INI; C and JS; SQL and Lua) or a
#: quoted one (a mail's or a chat's reply): two lines that start with the same mark are read as
#: the two lines would be without it
COMMENT_MARK = r"#|//|;|--|>"
# The value alone on a line below its label line ("client secret for billing:", a blank line, X).
# (the value's line may start with a comment or quote mark, `# client secret:` then `# X`: the
# caller holds it to the label line's own mark, see below_mark)
NEXT_LINE = lazy(r"(?:[ \t]{1,4}[(\[]?[^\W_][\w@/.+-]{0,30}[)\]]?){0,8}?(?P<op>[ \t]{0,4}:)[ \t]{0,4}\r?\n"
                        r"(?:[ \t]{0,8}\r?\n){0,2}[ \t]{0,8}(?:(?P<mark>" + COMMENT_MARK + r")[ \t]{0,8})?"
                        r"(?P<value>[^\s\"'`]{8,200})[ \t]{0,4}(?=\r?\n|\Z)")


def below_mark(text: str, at: int, below: re.Match[str]) -> bool:
    """Does a :data:`NEXT_LINE` match ``below`` for the label at ``at`` keep to the label line's
    own mark: none on the value's line, or the one the label's line starts with?"""
    mark = below.group("mark")
    return not mark or text[text.rfind("\n", 0, at) + 1:at].lstrip(" \t").startswith(mark)
DIGIT_GROUPS = lazy(r"[0-9]{4,8}(?:[ \t]{1,2}[0-9]{4,8}){3,11}[ \t]{0,4}\.?[ \t]{0,4}(?=\r?\n|\Z)")
APP_PASSWORD = lazy(r"[a-z]{4}(?:[ -][a-z]{4}){3}(?![\w-])")
# A passphrase of words to the end of its line ("GPG passphrase: amber crisp lotus violin").
# (a number may stand among the words: "glacier harbor falcon orbit 99")
QUOTED_WORDS = lazy(r"[a-z]{3,12}(?:[ \t]{1,2}[a-z]{3,12}){2,7}(?:[ \t]{1,2}[0-9]{1,6})?"
                    r"|[a-z]{3,12}(?:[ \t]{1,2}(?:[a-z]{3,12}|[0-9]{1,6})){3,8}")
WORD_RUN = lazy(r"[a-z]{3,12}(?:[ \t]{1,2}[a-z]{3,12}){2,7}(?:[ \t]{1,2}[0-9]{1,6})?[ \t]{0,4}\.?[ \t]{0,4}(?=\r?\n|\Z)")
# Words of sentences, not of a random passphrase: "password: see the vault entry", "use any four words".
PROSE_WORDS = frozenset("""
the and for with from that this these those then than into onto over under your our their his her its you
they them are was were will would should could can may might must not all any each every some none one two three
four five six seven eight nine ten use used see set get ask check change changed rotate rotated stored kept lives
live saved found here there where when what which who why how via per only also just like same new old more most
less least very too same other another have has had been being does did done doing make made keep please note
characters chars words letters digits numbers symbols length least minimum maximum least at in on of to is be by
as or if it an a no yes ok need needs needed goes went sent send given give given ask asked team admin user users
""".split())
# The prose words a passphrase's word list holds too ("you", "like", "any", "also", "old": 52 of
# BIP-39's 2,048): four random words hold one of them one time in ten, so they make a sentence
# only as most of its words; the others ("the", "see", "with") make one alone.
_LIST_PROSE_WORDS = PROSE_WORDS & frozenset(BIP39_ENGLISH)


def is_sentence(said: list[str]) -> bool:
    """Are the words after a password label a sentence ("see the vault entry", "use any four
    words") rather than a passphrase ("ticket oppose like any")? A state word may be one of four
    random words ("correct horse battery staple"), not of three."""
    if any(w in PROSE_WORDS and w not in _LIST_PROSE_WORDS for w in said):
        return True
    if len(said) == 3 and any(w in STATE_WORDS for w in said):
        return True
    return 2 * sum(w in _LIST_PROSE_WORDS for w in said) > len(said)


PUBLIC_KEY_NAMES = ("public", "pub", "primary", "foreign", "partition", "sort", "cache", "idempot",
                     "dedup", "lookup", "fingerprint", "checksum", "hash", "host", "ssh", "authorized",
                     "gpg", "pgp", "publishable", "object", "routing", "index", "unique", "row", "verif",
                     # (a search-only key goes in the page that searches: Algolia's, Typesense's)
                     "search_only", "searchonly", "search-only")
# Words before "key" that make a bare "key <value>" in prose a credential's label.
KEY_QUALIFIERS = ("api", "access", "secret", "private", "auth", "encryption", "decryption", "signing", "wifi", "wi-fi",
                  "wpa", "wpa2", "wlan", "network", "license", "licence", "activation",
                  "master", "hmac", "aes", "unseal", "wallet", "deploy", "service", "bot",
                  "integration", "admin", "write", "ingest", "instrumentation", "management", "subscription")
# A value after a spaced dash: one token of key characters, not starting with a digit.
DASHED_VALUE = lazy(rf"[A-Za-z{re.escape(PASSWORD_SYMBOLS)}_][A-Za-z0-9{re.escape(PASSWORD_SYMBOLS)}_.-]{{7,199}}")
PASSWORD_KEYS = ("wifi", "wi-fi", "wpa", "wpa2", "wlan", "network")
# a text about a wireless network above a bare "key" (netsh's "Key Content", a router's "Key:"): its password
WIFI = lazy(r"(?<![a-z])(?:wpa2?|wpa3|wlan|ssid|wi-?fi|wireless)(?![a-z])")
WIFI_REACH = 600
SEP = lazy(r"[-_.]")
PAIR = lazy(r"[ \t]{1,4}/[ \t]{1,4}(?P<pw>[^\s\"'`,;]{1,200})")  # after `creds: user`
AND_PAIR = lazy(r"[ \t]{1,4}(?i:and|&|with)[ \t]{1,4}(?P<pw>[^\s\"'`,;]{1,200})")  # "login is admin and X"
# "creds: deploy X" / "credentials for the NAS: admin X": the user, one space, and a password that
# ends the line (judged strictly by the caller: no slash says which part is the password)
SPACE_PAIR = lazy(r"[ \t]{1,4}(?P<pw>[^\s\"'`,;]{6,200}?)[.,;]?[ \t]*(?=\r?\n|\Z)")
USER_SHAPE = lazy(r"[a-z][a-z0-9._@-]{1,40}")
PAIR_AFTER_WORD = lazy(r"[ \t]{1,4}[^\s/]{1,64}[ \t]{1,4}/[ \t]{1,4}(?P<pw>[^\s\"'`,;]{1,200})")
# An f-string's replacement field: a name, then a conversion or a format spec (`{password!r}`, `{pw:>8}`)
CALL_END = lazy(r"[ \t]{0,4}\)")  # the call's only argument ends here
FSTRING_FIELD = lazy(r"[A-Za-z_][\w.]{0,60}(?:![rsa](?::[^{}]{0,20})?|:[^{}]{0,20})")
BARE_TOKEN = lazy(r"[A-Za-z0-9_+/=.~!-]+")  # (`!`: a Salesforce session id is `<org id>!<token>`)
# Without a sign, upper-case hex and hex of a digest's length are fingerprints and digests.
# Ten capitals and digits or fewer after a flag or a bare label: an id (App Store Connect's and
# Apple's key and team ids, `--apiKey 2X9R4HUZ3L`, name the key whose .p8 file holds the secret);
# a token is longer, and a short one assigned with a sign or quotes is still judged.
SHORT_ID = lazy(r"[A-Z0-9]{6,10}")
DIGEST = lazy(r"[0-9A-F]{16,}|[0-9a-f]{40}|[0-9a-f]{64}|[0-9a-f]{128}")
# Words a sentence ends on after "password is": states, not passwords.
STATE_WORDS = frozenset(["wrong", "weak", "strong", "empty", "blank", "missing", "invalid", "correct", "incorrect", "expired", "needed", "required", "mandatory", "optional", "unknown", "unchanged", "reset", "same", "different", "secure", "insecure", "stored", "hidden", "long", "short", "simple", "complex", "known", "unique", "forgotten", "locked", "unlocked", "rotated", "revoked", "disabled", "enabled", "compromised", "leaked", "shared", "saved", "encrypted", "hashed", "mandatory", "sensitive", "important", "protected", "temporary", "permanent", "generated", "random"])
STATE_SUFFIXES = ("ed", "ing", "able", "ible", "ive", "ful", "less", "ous", "ly", "tion", "ment", "ness")


# The words of a setting's name that say its value is an id, a digest, a public part or a thing's
# name, not a secret (`ARTIFACT_SUM`, `requestId`, `integrity`, `VAPID_PUBLIC_KEY`, `x-amz-cf-id`,
# `cursor`, `imageTag`): :func:`public_name` reads a name as its words, so an unknown vendor's
# setting (`FROB_ACCESS`, `"authz"`, `HOOK_SIGNING`, `APP_PEPPER`) is judged by its value alone.
# A word that says what kind of value it is counts anywhere in the name (`HASH_OF_BUILD`,
# `publicKeyPem`); a thing's noun only as the name's last word, what the value is (`requestId`,
# `FROB_TENANT`), not as its owner (`APP_PEPPER`, `USER_SIGNING` are the app's and the user's)
_PUBLIC_KIND_WORDS = frozenset("""
id ids uid uuid guid ulid oid identifier hash hashes hashed digest checksum crc sha sha1 sha256 sha384 sha512 md5 etag
integrity fingerprint thumbprint fpr nonce salt iv cursor commit trace correlation request req challenge verification
verify site public pub publishable anon anonymous example sample dummy fake mock fixture encrypted ciphertext cipher enc
sealed secure vault kms modulus exponent sitekey pubkey publickey next prev continuation cursor page marker sync match
""".split())
_PUBLIC_LAST_WORDS = _PUBLIC_KIND_WORDS | frozenset("""
sum ref rev revision version ver build tag image ray span state offset
address addr signature sig data name slug path file url uri host domain email user username account project proj org
team tenant bucket region zone price product plan sku order invoice customer video playlist channel message thread doc
document sheet folder object blob upload download link txid tx transaction block chain wallet xpub npub cid ipfs seq
sequence serial number num client app application instance node device machine cluster repo branch run job task peer
pipeline workflow deployment release artifact package pkg mirror cache kid alg x5t test sid model repository dataset
""".split())
# (words after the one that says what the value is: `CHECKSUM_VALUE`, `etag_header`, `build_id_str`)
_TRAILING_WORDS = frozenset("value val str string hex b64 base64 field param header prod dev staging".split())
# (JSON Web Keys' public members; a one-letter name is judged by its value: a tunnel token's `"s"`)
_PUBLIC_LETTERS = frozenset("nexy")
_NAME_WORD = lazy(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")


def public_name(name: str) -> bool:
    """Does a setting's ``name`` say its value is public, an id or a digest (a word of
    :data:`_PUBLIC_KIND_WORDS` anywhere, of :data:`_PUBLIC_LAST_WORDS` last), or is it a JWK's
    public member? A name with no such word says nothing."""
    if name in _PUBLIC_LETTERS:
        return True
    words = [w.lower() for w in _NAME_WORD.findall(name) if not w.isdigit()]
    while len(words) > 1 and words[-1] in _TRAILING_WORDS:
        words.pop()
    return not words or words[-1] in _PUBLIC_LAST_WORDS or any(w in _PUBLIC_KIND_WORDS for w in words)


def is_key_char(ch: str) -> bool:
    return ch.isascii() and (ch.isalnum() or ch in "_.-")


# The name endings key_class reads (compiled at first use, like every pattern of the gate)
_PASS_END = lazy(r"[_.-]pass$")
# `adminpass`, `requirepass` (redis.conf), `smtppass`: a word that says whose password, run
# together with "pass" (not "bypass", "compass", "surpass")
_WHOSE_PASS = lazy(r"(?:^|[_.-])(?:admin|root|db|user|mail|smtp|imap|pop|ftp|sftp|ssh|require|master|store|key|app|api"
                   r"|web|sql|ldap|bind|proxy|redis|vnc|rcon|wifi|login|sasl|sa"
                   # (Java's and TLS stores': Tomcat's `keystorePass`, `truststorePass`, `pfxPass`)
                   r"|keystore|truststore|trust|pfx|p12|jks|cert|ssl|tls|signing|sudo|vpn)pass$|(?:^|[_.-])masterauth$")
_COMMUNITY_END = lazy(r"community[ _-]?strings?$|snmp[ _-]?community$")
# A setting named `community` alone (`community: X`, `ro_community = X`, `readCommunity`) is SNMP's
# v1/v2c password where the text is about SNMP, and a forum's or a project's link elsewhere
_COMMUNITY_NAME = lazy(r"(?:[a-z0-9]{0,12}[_.-]?)?community")
_SNMP = lazy(r"(?<![a-z])snmp")
# What may stand before a config file's key on its line: indentation, a YAML list's dash, a flow
# mapping's brace, a quote (`"community": X`); the bare word `community` elsewhere is prose's
# (a compound, `roCommunity`, `ro_community`, is a setting's name wherever it stands)
_CONFIG_KEY_LEAD = lazy(r"[ \t]{0,16}(?:-[ \t]{1,4})?[{\[]?[ \t]{0,4}[\"']?")
SNMP_REACH = 600


def snmp_community(name: str, low: str, start: int) -> bool:
    """Is ``name`` (at ``start`` in ``low``, the text lowercased) a setting named for a community
    where SNMP is named within :data:`SNMP_REACH` characters of it? (the bare word only as a config
    file's key, first on its line: :data:`_CONFIG_KEY_LEAD`)
    Judged then as a password a person chose (``community: public`` is SNMP's default, no secret)."""
    if not _COMMUNITY_NAME.fullmatch(name.lower()):
        return False
    if name.lower() == "community" and not _CONFIG_KEY_LEAD.fullmatch(low, low.rfind("\n", 0, start) + 1, start):
        return False  # "the LibreNMS community: X", "labels each device with community: X": prose's word
    return _SNMP.search(low, max(0, start - SNMP_REACH), min(len(low), start + SNMP_REACH)) is not None
_PSK_END = lazy(r"(?:^|[_.-])psk$")
_SK_END = lazy(r"(?:^|[_.-])sk$")
#: The words that make a token a device's address for push messages (FCM's registration token, APNs'
#: device token): such a name is no credential's (:func:`key_class`), nor a bare "token" after them
#: (``secret_judge.address_word_before``); what its value may be is ``secret_values.push_address``,
#: and ``secret_labels.push_addresses`` judges a value of another shape under it.
PUSH_WORDS = ("device", "push", "fcm", "apns", "gcm")
_NOT_A_CREDENTIAL = lazy(r"(?:next|prev|previous|continuation|pagination|cursor|resume|sync)[_.-]?(?:page[_.-]?)?token$"
                         r"|^(?:[a-z0-9_.]{0,40}[_.])?(?:invalid|expired|missing|bad|wrong|revoked|unknown|malformed)[_-]?"
                         r"(?:token|password|passwd|secret|credentials?|api[_-]?key|key|auth)$|^auth0$"
                         # a device's address for push messages (FCM's registration token, APNs' device token)
                         rf"|(?:{'|'.join(PUSH_WORDS)})[_-]?token$"
                         # a shared link's own key, which the link is made to hand out (Dropbox's `rlkey=`, Drive's `resourcekey=`)
                         r"|^(?:rlkey|resourcekey)$"
                         # a secret's digest or mask by its name (detect-secrets' `hashed_secret`, `password_hash`)
                         r"|^(?:hashed|hash|salted|masked|redacted|obfuscated)[_-]?(?:secret|password|passwd|token|key|credentials?)$"
                         rf"|^(?:{'|'.join(TAILSCALE_PUBLIC_KEYS)})$")  # (Tailscale's public keys, `nodekey:<hex>`)
#: Password managers whose names hold a password word: after such a name comes an item's name
#: ("stored in 1Password: \"AWS prod\"", "Proton Pass: ops/db"), judged as a network's word is: one
#: word (:func:`key_class`) or more (:func:`manager_label`, for ``secret_labels.assignments``)
_MANAGERS = ("1password", "lastpass", "keepass", "keepassxc", "nordpass", "proton pass", "password manager")
_MANAGER_NAME = lazy("|".join(m for m in _MANAGERS if " " not in m))
_MANAGER_PHRASE = lazy("(?<![a-z0-9])(?:" + "|".join(m.replace(" ", r"[ \t]") for m in _MANAGERS if " " in m)
                       + ")(?![a-z0-9])")


def manager_label(low: str, start: int, end: int) -> bool:
    """Is the label ``low[start:end]`` a word of a password manager's name of two words or more
    ("Proton Pass:", "Google Password Manager:")? ``low``: the text lowercased."""
    return any(m.start() <= start and end <= m.end()
               for m in _MANAGER_PHRASE.finditer(low, max(0, start - 24), min(len(low), end + 24)))
_PW_END = lazy(r"(?:^|[_.-]|bind|root|admin|master|ldap|db|smtp|mail|ftp|vnc)pw$")  # `bindpw`, `rootpw` (ldap.conf, slapd.conf): whose pw
_FOREIGN_END = lazy(rf"[_.-](?:{_FOREIGN_PASSWORD})$")
# a CJK or Thai word for password or token written against the word before it ("root密码")
SCRIPT_PASSWORD_END = lazy(rf"(?:{_SCRIPT_PASSWORD})$")
_SCRIPT_SECRET_END = lazy(rf"(?:{_SCRIPT_SECRET})$")
_SCRIPT_KEY_END = lazy(r"(?:キー|키)$")
_FOREIGN_SECRET_NAME = lazy(rf"(?:^|[_.\s-])(?:{_FOREIGN_SECRET})$|(?:{_SCRIPT_SECRET})$")
_SECRET_ID = lazy(r"(?:^|[_.-])secret[_-]?id$")  # Consul's SecretID, Vault AppRole's secret_id (not "Secret ID")
# JSESSIONID, PHPSESSID, sessionid: a session cookie; and `SESS`, `app_sess` (the short name a framework gives one)
_SESSION_ID = lazy(r"(?:session|sess)[_-]?id$|(?:^|[_.-])sess$")
# a session cookie's name (`.AspNetCore.Cookies`, `connect.sid`, Google's `SAPISID`, `__Secure-3PSID`);
# not a bare "SID" (Twilio's Account SID, a Windows SID: ids) nor a network's SSID
_COOKIE_NAME = lazy(r"(?:^|[.])[a-z]{0,20}cookies?$|[.]sid$|^(?:__secure-|__host-)?[0-9]?(?:psid|sapisid|apisid|papisid)$")
_AUTH_PAT_END = lazy(r"(?:^|[_.-])(?:auth|pat)$")
_SITE_KEY_END = lazy(r"(?:^|[_.-])site[_-]?key$")
# a key named for what it grants (an API's, an account's access, an integration's or a service's
# use, writes to an ingest endpoint, a licence): a credential whatever its value's shape; not a key
# named for what it indexes (`CORRELATION_KEY`, `PARTITION_KEY`, `CACHE_KEY`)
GRANTING_KEY_END = lazy(r"(?:api|access|private|master|integration|service|admin|write|ingest|ingestion|instrumentation"
                        r"|management|subscription|license|licence|enterprise|sdk|server|signing|auth)[_.-]?key$")
#: a key named for what it locks or opens (`ENCRYPTION_KEY`, `backup_encryption_key`, `masterKey`,
#: `WALLET_KEY`, `unseal_key`): a person may choose it as a password, so such a value counts under
#: it as after a password's name (see ``secret_labels.assignments``), beside a random one
LOCKING_KEY_END = lazy(r"(?:encryption|decryption|encrypt|decrypt|crypt|cipher|master|signing|wallet|unseal|keystore"
                       r"|keychain|vault|backup|disk|volume|archive|zip)[_.-]?key$")
_SECRET_KEY_NAME = lazy(r"secret|api[_-]?key$|(?:^|[_.-])auth[_.-]?key$")


def key_class(name: str) -> str | None:
    """'password', 'secret' or 'key' (high-entropy values only) for an assignment's key name."""
    if _CAMEL_AUTH_END.search(name):
        # `pmaAuth-1` (phpMyAdmin's cookie), `sessAuth`: a camelCase name ending in Auth holds an
        # authenticator when its value is random (`requireAuth: true`, `useAuth = isProd` pass)
        return "key"
    if _CAMEL_PASS_END.search(name):
        return "password"
    low = name.lower().lstrip("-")
    if _NOT_A_CREDENTIAL.search(low):
        # a listing's cursor (`next_page_token`, `NextToken`: where it resumes; a `PAGE_TOKEN` is Facebook's credential), an error's name
        # (`InvalidToken:`, `expired_password` in a stack trace), the vendor Auth0, a device's push
        # address (`device_token`, `fcm_token`), a shared link's key, a secret's hash by its name: none holds one
        return None
    if _MANAGER_NAME.fullmatch(low):
        # a password manager's name ("stored in 1Password: \"AWS prod\"", "KeePass: ops.kdbx") names where
        # one lives: judged as a network's word is, a password only when no item's name could be it
        return "network"
    if "_" in low.rstrip("_").rsplit("_", 1)[0]:
        low = _QUALIFIER_END.sub("", low)  # `DB_PASSWORD_STAGING`: the password's name, for one environment
    content = _CONTENT_END.search(low)
    if content and content.start() > 0:
        return key_class(low[:content.start()])  # `keyData`, "Key Content": what the key holds is the key
    low = _NUMBERED_END.sub("", low)  # `key1`, `DB_PASS_PART1`: one of several, named as they all are
    if "public" in low:
        return None  # publicKeyToken and public_key are shared by design
    if low.endswith(("password", "passwd", "passphrase", "pass_phrase", "pass-phrase", "passcode", "pwd", "pword", "pswd",
                     "pasword", "paswd", "paswrd", "passwrd", "passowrd", "p/w")) \
            or _PASS_END.search(low) or _WHOSE_PASS.search(low) or low.endswith(("authtok", "authident")) \
            or _COMMUNITY_END.search(low):
        return "password"  # (`PWD=/home/x`, the shell's directory, is a path: a placeholder)
    if _SK_END.search(low):
        # `--sk X`, `SK=X`, `OBS_SK`: the secret key of a cloud's AK/SK pair, counted with a random
        # value only (a DynamoDB sort key, `SK: ORDER#2026-12-04`, names a row)
        return "key"
    if _PSK_END.search(low):
        return "password"  # a Wi-Fi pre-shared key (wpa_supplicant `psk=`, `WIFI_PSK`): the network's password
    if name.startswith("-") and low.endswith("pass"):
        return "password"  # a command's flag: keytool -storepass, -keypass, --db-pass
    if low == "pass" and name != "PASS":
        return "password"  # `pass: X` in a login block; `PASS: test-name` is a test log
    if _PW_END.search(low):
        return "password"
    if FOREIGN_PASSWORD_LABEL.fullmatch(low) or _FOREIGN_END.search(low) or SCRIPT_PASSWORD_END.search(low):
        return "password"  # a whole word: "Passwort", "db_senha", "root密码"; not "enclave"
    if _FOREIGN_SECRET_NAME.search(low):
        return "secret"  # "clave", "api-schlüssel", "ключ", "APIキー": a value after it must look random
    if low in ("login", "logon"):
        return "login"  # counts only with "user / password" after it (see judged_value)
    if low in ("wifi", "wi-fi", "wlan", "wireless", "hotspot"):
        return "network"  # "the wifi is X": a password only when no network's name could be it (see judge)
    if low.endswith(("secret", "token", "apikey", "credential", "credentials", "secret_key_base", "creds")) \
            or _SECRET_ID.search(low) or _SCRIPT_SECRET_END.search(low):
        return "secret"
    if _AUTH_PAT_END.search(low):
        return "secret"  # npm's _auth, GH_PAT; not oauth or compat
    # (a seed's name, `node_key_seed`, `wallet_seed`: random bytes a key is made from; a number
    # for a random generator, `seed: 42`, is no high-entropy value)
    if low.endswith(("private_key_id", "session", "wif", "appid", "encrypt", "license", "licence", "serial", "seed")) \
            or _SESSION_ID.search(low) or _COOKIE_NAME.search(low) \
            or _SCRIPT_KEY_END.search(low):
        return "key"  # a session cookie is a credential when its value is random
    if low.endswith("key"):
        # (a routing key is a queue's topic name, `orders.created`, or an alerting service's
        # integration secret, PagerDuty's: the "key" class judges it by its value, random or not)
        # (the word right before "key" says what it is: `GEM_HOST_API_KEY` is an API key whatever
        # names its host, `SSH_PRIVATE_KEY` a private one; `SSH_HOST_KEY` a public one)
        granted = GRANTING_KEY_END.search(low)
        if not granted and (any(w in low for w in PUBLIC_KEY_NAMES if w != "routing") or _SITE_KEY_END.search(low)):
            # (a CAPTCHA's site key, reCAPTCHA's or Turnstile's, goes in every page; its secret does not)
            return None  # public keys, fingerprints and lookup keys are meant to be shared
        return "secret" if _SECRET_KEY_NAME.search(low) else "key"
    return None
