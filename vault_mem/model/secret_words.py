"""The words for a credential in the languages people write notes in: one table, read by the label
finders (:mod:`vault_mem.model.secret_names`).

A credential is named in the writer's language ("la clave de la API es X", "Ключ API: X",
"本番のトークン：X"). Each row below is a language and its words, in two kinds: ``PASSWORD``
words (a secret a person chose: judged as a password, words count after them) and ``SECRET``
words (a key, token or secret: only a value that looks made to be hard to guess counts after
them, since "key" names much else in every language). Words are written as people write them;
:func:`folded` gives each as the gate reads it after :func:`vault_mem.model.secret_text.normalise`
(Cyrillic and Greek letters drawn like Latin ones are folded: "пароль" is read as "пapoль"), so
no row has to spell that out. A word may carry the endings its language writes against it
(Turkish "şifresi", Swedish "lösenordet", Hungarian "jelszava") as a regex group.

Scripts written without spaces (Chinese, Japanese, Thai) are ``SCRIPT_*``: their words stand
against what comes before them ("OpenWeatherのAPIキー", "root密码"), so they need no separator.
"""

from __future__ import annotations

import re
import unicodedata

__all__ = ["PASSWORD", "SCRIPT_PASSWORD", "SCRIPT_SECRET", "SECRET", "alternatives", "folded", "stems"]

# language: words for "password" (regex alternatives; the endings in groups)
_PASSWORD_ROWS = {
    "German": r"passwort|kennwort",
    "Spanish": r"contrase[ñn]a",
    "French": r"mot de passe|motdepasse|mdp",  # (`mdp`, as French notes shorten it)
    "Portuguese": r"senha",
    "Dutch": r"wachtwoord",
    "Swedish": r"l[öo]senord(?:et)?",
    "Finnish": r"salasana(?:n)?",
    "Polish": r"has[łl]o",
    "Czech/Slovak": r"heslo",
    "Hungarian": r"jelsz[óo]|jelszav(?:a|unk)",
    "Turkish": r"[şs]ifre(?:si|niz|n)?|parola(?:s[ıi])?",
    "Danish": r"adgangskode(?:n)?",
    "Norwegian": r"passord(?:et)?",
    "Croatian/Serbian/Bosnian": r"lozinka|лозинка",
    "Slovenian": r"geslo",
    "Indonesian": r"kata ?sandi(?:nya)?",
    "Malay": r"kata laluan",
    "Swahili": r"nenosiri",
    "Romanian": r"parol[aă]",
    "Lithuanian/Latvian": r"slaptažodis|parole",
    "Estonian": r"parool",
    "Icelandic": r"lykilorð(?:ið|inu|sins|s)?",
    "Russian/Ukrainian/Bulgarian": r"пароль|пароля|паролата|парола",
    "Greek": r"κωδικός(?: πρόσβασης)?|συνθηματικό",
    "Hebrew": r"סיסמה|סיסמא",
    "Arabic": r"كلمة (?:المرور|السر)|الرمز السري|رمز سري",
    "Persian": r"رمز عبور|گذرواژه",
    "Urdu": r"پاس ورڈ",
    "Vietnamese": r"mật khẩu",
    "Hindi/Marathi/Nepali": r"पासवर्ड",
    "Bengali": r"পাসওয়ার্ড",
    "Tamil": r"கடவுச்சொல்",
    "Telugu": r"పాస్‌వర్డ్|పాస్వర్డ్",
    "Korean": r"비밀번호|비번|암호",  # (`비번`: as people shorten it)
    "Georgian": r"პაროლი",
    "Armenian": r"գաղտնաբառ(?:ը)?",  # (`-ը`: the definite ending)
    "Tagalog": r"kontrasenyas?",
    "Catalan/Galician": r"contrasenya|contrasinal",
    "Italian": r"parola d'ordine|parola chiave",
    "Basque": r"pasahitza?",
    "Afrikaans": r"wagwoord",
    "Welsh": r"cyfrinair",
    "Irish": r"pasfhocal",
    "Amharic": r"የይለፍ ቃል",
    "Mongolian": r"нууц үг",
    "Albanian": r"fjal[ëe]kalim(?:i)?",
    "Russian/Ukrainian written in Latin letters": r"parol'?|parolʹ",
    "Kazakh/Uzbek": r"құпия сөз(?:і)?|parolingiz",  # (`-і`: "its password")
    # (a Wi-Fi's "ango kii", 暗号キー, is its passphrase; "anshou bangou", 暗証番号, a PIN; each word's
    # stem, :func:`stems`, is long enough not to be in every text: not `ango` of "django", `to`, `api`)
    "Japanese written in Latin letters": r"pasuwaa?do|pasuwādo|angou ?kii|ango kii|angouka ?kii|anshou ?bangou|ansho bango",
    # an access code is a password by another name, in every language
    "Access code": (r"access[ _-]?code|code d'acc[èe]s|c[óo]digo de acce?sso?|zugangscode|codice (?:di |d')accesso"
                    r"|kod dost[ęe]pu|eri[şs]im kodu|m[ãa] truy c[ậa]p|toegangscode|kode akses|adgangskode"),
}
# language: words for "key", "token", "secret" (a value after them must look random)
_SECRET_ROWS = {
    "Spanish": r"clave|llave|secreto",
    "Portuguese": r"chave|segredo",
    "French": r"clé|jeton",
    "Italian": r"chiave|segreto",
    "German": r"schl[üu]ssel|schluessel|geheimnis"
              # (compounds that name an access key, written as one word)
              r"|zugangsschl[üu]ssel|zugriffsschl[üu]ssel|geheimschl[üu]ssel|zugangstoken|zugriffstoken",
    "Dutch": r"sleutel",
    "Swedish/Danish/Norwegian": r"nyckel(?:n)?|n[øo]gle(?:n)?|n[øo]kkel(?:en)?",
    "Finnish": r"avain|tunnus",
    "Polish": r"klucz(?:a)?",
    "Czech/Slovak": r"kl[íi][čc]|kľúč",
    "Hungarian": r"kulcs(?:a)?",
    "Romanian": r"cheie|cheia",
    "Turkish": r"anahtar(?:[ıi])?",
    "Indonesian/Malay": r"kunci",
    "Swahili": r"ufunguo",
    "Vietnamese": r"kh[óo]a|m[ãa] b[íi] m[ậa]t",
    "Russian/Ukrainian/Bulgarian/Serbian": r"ключ|ключа|токен|секрет|кључ",
    "Greek": r"κλειδί|μυστικό",
    "Hebrew": r"מפתח|טוקן",
    "Arabic": r"مفتاح|رمز الوصول",
    "Persian": r"کلید|توکن",
    "Hindi": r"कुंजी|टोकन",
    "Bengali": r"চাবি|টোকেন",
    "Korean": r"토큰|시크릿|api ?키|액세스 ?키",
    "Catalan": r"clau secreta",
    "Russian/Ukrainian written in Latin letters": r"klyuch|kliuch",
    "Japanese written in Latin letters": r"api kii|apikii|akusesu ?kii|himitsu ?kagi|tookun|tōkun|shiikuretto",
}
# scripts written without spaces: words for password, and for a token, a key or a secret
_SCRIPT_PASSWORD_WORDS = r"密码|密碼|口令|パスワード|暗証番号|รหัสผ่าน"
_SCRIPT_SECRET_WORDS = (r"トークン|シークレット|アクセスキー|apiキー|api キー|秘密鍵|鍵|密钥|密鑰|令牌|秘钥|访问码"
                        r"|โทเค็น|คีย์")


def folded(pattern: str) -> str:
    """``pattern`` as the gate reads its text: NFKC, Cyrillic and Greek look-alikes of Latin letters
    folded (:func:`vault_mem.model.secret_text.fold`), lowercased."""
    from vault_mem.model.secret_text import fold  # (secret_text imports nothing of the gate's rules)

    out, in_class = [], False
    for ch in unicodedata.normalize("NFKC", pattern):
        low, up = fold(ch).lower(), fold(ch.upper()).lower()
        in_class = (ch == "[") or (in_class and ch != "]")
        if low == up or len(low) != 1 or len(up) != 1:
            out.append(low)
        else:  # (a capital folds where its small letter does not: "Μυστικό" is read "muσtikό")
            out.append(low + up if in_class else f"[{low}{up}]")
    return "".join(out)


PASSWORD = folded("|".join(_PASSWORD_ROWS.values()))
SECRET = folded("|".join(_SECRET_ROWS.values()))
SCRIPT_PASSWORD = folded(_SCRIPT_PASSWORD_WORDS)
SCRIPT_SECRET = folded(_SCRIPT_SECRET_WORDS)


def stems(pattern: str) -> tuple[str, ...]:
    """Substrings one of which every word of ``pattern`` holds: each word's start up to its first
    optional part, a character class read as its first and as its last letter (``[şs]ifre`` gives
    ``şifre`` and ``sifre``). A plain search each is the gate's first test; a regex of all the words
    costs five times the English one at every position of every text."""
    out = []
    for alt in _top_level(pattern):
        for pick in (0, -1):
            word = _CLASS.sub(lambda m: m.group(1)[pick], alt)
            cut = min((i for i in (word.find("("), word.find("?"), word.find("|")) if i >= 0), default=len(word))
            stem = word[:cut - 1] if cut < len(word) and word[cut] == "?" else word[:cut]
            foreign = max(_NON_ASCII.findall(word.split("(", 1)[0]), key=len, default="")
            out.append(foreign[:8] if foreign else stem[:8])  # (`api ?키`: 키, not `api`)
    return tuple(dict.fromkeys(s for s in out if len(s) >= 2 or not s.isascii()))


_CLASS = re.compile(r"\[([^\]]+)\]")
_NON_ASCII = re.compile(r"[^\x00-\x7f]+")


def alternatives(pattern: str) -> list[tuple[str, tuple[str, ...]]]:
    """Each top-level alternative of ``pattern`` with its :func:`stems`."""
    return [(alt, stems(alt)) for alt in _top_level(pattern)]


def _top_level(pattern: str) -> list[str]:
    """The alternatives of ``pattern`` at its top level (alternatives inside groups stay whole)."""
    parts, depth, cur = [], 0, ""
    for ch in pattern:
        depth += ch in "([" and 1 or 0
        depth -= ch in ")]" and 1 or 0
        if ch == "|" and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    parts.append(cur)
    return parts
