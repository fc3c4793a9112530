"""heldout26: a blind corpus of credential forms and look-alikes (issue 23 item 5).

Written on 2026-12-05 by the helper session blind26 WITHOUT reading the detector
(``vault_mem/**/secret*.py``, ``vault_mem/model/policy.py`` and what they import), its tests or the
earlier corpora under ``bench/data/`` (heldout24 was read for the file's format only); measured
once, untuned, on main at de19e27 before any fix it led to.

Every item is a memory an agent would really be asked to store (a chat, a coding session, a
curated note): ``key``, ``description``, ``body`` and ``meta`` (the frontmatter fields) go through
the write gate as they are. FORMS hold a credential and must be refused: vendor tokens new in
2025-2026, assignments in many languages and config formats, connection strings, keys in query
strings, webhook URLs, private keys of every kind, cookies and session ids, OTP seeds and recovery
codes, seed phrases in several languages, passwords in prose (and not in English), command lines
that carry a password, auth headers, keys split across lines or fields. LOOK_ALIKES hold none
(commit and object ids, UUIDs, checksums, lockfile hashes, public keys and certificates,
placeholders and docs examples, base64 of ordinary text, versions, colours, public-by-design ids,
the words password/token/secret in ordinary sentences) and must be stored. Every random value is
drawn from one seeded ``random.Random`` with the vendor's prefix, alphabet and length, so the file
is reproducible and no value is a real one.

    python bench/bench_secrets.py --set heldout26 --misses
"""

from __future__ import annotations

import base64
import hashlib
import json
import random
import string
import urllib.parse

_R = random.Random(20261205_26)

HEX = "0123456789abcdef"
UHEX = "0123456789ABCDEF"
B62 = string.ascii_letters + string.digits
B64URL = B62 + "-_"
LOWER = string.ascii_lowercase
LOWER_NUM = string.ascii_lowercase + string.digits
UPPER_NUM = string.ascii_uppercase + string.digits
B32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
B58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
BECH32 = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"


def _s(alphabet: str, n: int) -> str:
    return "".join(_R.choice(alphabet) for _ in range(n))


def _hex(n: int) -> str:
    return _s(HEX, n)


def _bytes(n: int) -> bytes:
    return bytes(_R.randrange(256) for _ in range(n))


def _b64(n: int) -> str:
    """Standard base64 of ``n`` random bytes (padding kept)."""
    return base64.b64encode(_bytes(n)).decode()


def _b64u(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def _b64t(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def _uuid() -> str:
    h = _hex(32)
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-{_R.choice('89ab')}{h[17:20]}-{h[20:]}"


def _digits(n: int) -> str:
    return str(_R.randrange(1, 10)) + _s(string.digits, n - 1)


def _jwt(payload: dict, alg: str = "HS256", sig_bytes: int = 32) -> str:
    head = _b64u(json.dumps({"alg": alg, "typ": "JWT"}, separators=(",", ":")).encode())
    body = _b64u(json.dumps(payload, separators=(",", ":")).encode())
    return f"{head}.{body}.{_b64u(_bytes(sig_bytes))}"


_WORDS = ["copper", "Lantern", "meadow", "Orbit", "pepper", "Glacier", "willow", "Tundra", "maple",
          "Cinder", "raven", "Sierra", "plum", "Harbor", "thistle", "Vortex", "amber", "Nectar", "fjord"]


def _pw() -> str:
    """A password a person chose, in one of several shapes."""
    a, b = _R.sample(_WORDS, 2)
    shape = _R.randrange(5)
    if shape == 0:
        return f"{a.capitalize()}{_R.choice('!#$%&*')}{b.lower()}{_digits(2)}"
    if shape == 1:
        return f"{a.lower()}.{b.lower()}.{_digits(_R.choice((2, 3, 4)))}"
    if shape == 2:
        return f"{a[:4]}{_digits(4)}{_R.choice('!?@#')}{b.upper()[:3]}"
    if shape == 3:
        return f"{b.capitalize()}{a.capitalize()}{_digits(4)}"
    return _s(B62 + "!#%&*+=?^", _R.choice((12, 16, 18, 24)))


def _bech32_polymod(values: list[int]) -> int:
    gen = [0x3b6a57b2, 0x26508e6d, 0x1ea119fa, 0x3d4233dd, 0x2a1462b3]
    chk = 1
    for v in values:
        top = chk >> 25
        chk = (chk & 0x1ffffff) << 5 ^ v
        for i in range(5):
            chk ^= gen[i] if (top >> i) & 1 else 0
    return chk


def _bech32(hrp: str, data: bytes, upper: bool = False) -> str:
    acc, bits, five = 0, 0, []
    for b in data:
        acc = (acc << 8) | b
        bits += 8
        while bits >= 5:
            bits -= 5
            five.append((acc >> bits) & 31)
    if bits:
        five.append((acc << (5 - bits)) & 31)
    expanded = [ord(c) >> 5 for c in hrp] + [0] + [ord(c) & 31 for c in hrp]
    poly = _bech32_polymod(expanded + five + [0] * 6) ^ 1
    check = [(poly >> 5 * (5 - i)) & 31 for i in range(6)]
    out = hrp + "1" + "".join(BECH32[d] for d in five + check)
    return out.upper() if upper else out


def _b58check(payload: bytes) -> str:
    full = payload + hashlib.sha256(hashlib.sha256(payload).digest()).digest()[:4]
    n = int.from_bytes(full, "big")
    out = ""
    while n:
        n, r = divmod(n, 58)
        out = B58[r] + out
    return "1" * (len(full) - len(full.lstrip(b"\0"))) + out


def _b58(n: int) -> str:
    data = _bytes(n)
    v = int.from_bytes(data, "big")
    out = ""
    while v:
        v, r = divmod(v, 58)
        out = B58[r] + out
    return out


def _mnemonic(words: int) -> str:
    ent = _bytes(words * 4 // 3)
    bits = bin(int.from_bytes(ent, "big"))[2:].zfill(len(ent) * 8)
    cs = bin(hashlib.sha256(ent).digest()[0])[2:].zfill(8)[: len(ent) * 8 // 32]
    bits += cs
    return " ".join(_BIP39[int(bits[i:i + 11], 2)] for i in range(0, len(bits), 11))


def _pick_words(words: list[str], n: int, sep: str = " ") -> str:
    return sep.join(_R.choice(words) for _ in range(n))


def _wrap(text: str, width: int = 64) -> str:
    return "\n".join(text[i:i + width] for i in range(0, len(text), width))


def _pem(label: str, der: bytes, width: int = 64) -> str:
    return f"-----BEGIN {label}-----\n{_wrap(base64.b64encode(der).decode(), width)}\n-----END {label}-----"


def _sshstr(b: bytes) -> bytes:
    return len(b).to_bytes(4, "big") + b


def _openssh_key(kind: bytes, pub: bytes, priv: bytes, comment: str) -> str:
    pubblob = _sshstr(kind) + _sshstr(pub)
    check = _bytes(4)
    inner = check + check + _sshstr(kind) + _sshstr(pub) + _sshstr(priv) + _sshstr(comment.encode())
    inner += bytes(range(1, 1 + (-len(inner)) % 8))
    blob = (b"openssh-key-v1\0" + _sshstr(b"none") + _sshstr(b"none") + _sshstr(b"") + (1).to_bytes(4, "big")
            + _sshstr(pubblob) + _sshstr(inner))
    return ("-----BEGIN OPENSSH PRIVATE KEY-----\n" + _wrap(base64.b64encode(blob).decode(), 70)
            + "\n-----END OPENSSH PRIVATE KEY-----")


def _ssh_pub(kind: str, n: int, comment: str) -> str:
    return f"{kind} " + base64.b64encode(_sshstr(kind.encode()) + _sshstr(_bytes(n))).decode() + f" {comment}"


def _der_len(n: int) -> bytes:
    if n < 128:
        return bytes([n])
    raw = n.to_bytes((n.bit_length() + 7) // 8, "big")
    return bytes([0x80 | len(raw)]) + raw


def _der_int(b: bytes) -> bytes:
    if b[0] & 0x80:
        b = b"\0" + b
    return b"\x02" + _der_len(len(b)) + b


def _der_seq(*parts: bytes) -> bytes:
    body = b"".join(parts)
    return b"\x30" + _der_len(len(body)) + body


def _der_oct(b: bytes) -> bytes:
    return b"\x04" + _der_len(len(b)) + b


def _rsa_der(bits: int = 2048) -> bytes:
    nb = bits // 8
    return _der_seq(_der_int(b"\0"), _der_int(b"\xc3" + _bytes(nb - 1)), _der_int(b"\x01\x00\x01"),
                    _der_int(b"\x4a" + _bytes(nb - 1)), _der_int(b"\xe1" + _bytes(nb // 2 - 1)),
                    _der_int(b"\xd7" + _bytes(nb // 2 - 1)), _der_int(b"\x31" + _bytes(nb // 2 - 1)),
                    _der_int(b"\x2c" + _bytes(nb // 2 - 1)), _der_int(b"\x66" + _bytes(nb // 2 - 1)))


def _pkcs8_ed25519() -> bytes:
    return _der_seq(_der_int(b"\0"), _der_seq(bytes.fromhex("06032b6570")), _der_oct(_der_oct(_bytes(32))))


def _pkcs8_rsa() -> bytes:
    alg = _der_seq(bytes.fromhex("06092a864886f70d0101010500"))
    return _der_seq(_der_int(b"\0"), alg, _der_oct(_rsa_der()))


def _ec_der() -> bytes:
    oid = bytes.fromhex("06082a8648ce3d030107")
    return _der_seq(_der_int(b"\x01"), _der_oct(_bytes(32)), b"\xa0" + _der_len(len(oid)) + oid,
                    b"\xa1\x44\x03\x42\x00\x04" + _bytes(64))


def _cert_der() -> bytes:
    """A certificate-shaped DER blob (public: what a look-alike carries)."""
    name = _der_seq(b"\x31\x15" + _der_seq(bytes.fromhex("0603550403") + b"\x0c\x0e" + b"api.acme.test"))
    return _der_seq(_der_seq(b"\xa0\x03\x02\x01\x02", _der_int(_bytes(16)), _der_seq(bytes.fromhex("06092a864886f70d01010b0500")),
                             name, name, _der_seq(_der_seq(bytes.fromhex("06092a864886f70d0101010500")),
                                                  b"\x03\x82\x01\x0f\x00" + _bytes(270))),
                    _der_seq(bytes.fromhex("06092a864886f70d01010b0500")), b"\x03\x82\x01\x01\x00" + _bytes(256))


FORMS: list[dict] = []
LOOK_ALIKES: list[dict] = []


def _key(text: str) -> str:
    out = "".join(c if c.isalnum() and c.isascii() else "-" for c in text.lower())
    while "--" in out:
        out = out.replace("--", "-")
    return out.strip("-")[:80] or "note"


def F(cls: str, name: str, description: str, body: str, *, key: str | None = None, tags=(), **meta) -> None:
    """One credential form: a memory that must be refused."""
    FORMS.append({"class": cls, "name": f"{cls}/{name}", "key": key or _key(name),
                  "description": description, "body": body,
                  "meta": {"source": meta.pop("source", "user"), "tags": list(tags), **meta}})


def L(cls: str, name: str, description: str, body: str, *, key: str | None = None, tags=(), **meta) -> None:
    """One look-alike: a memory holding no credential, which must be stored."""
    LOOK_ALIKES.append({"class": cls, "name": f"alike-{cls}/{name}", "key": key or _key(name),
                        "description": description, "body": body,
                        "meta": {"source": meta.pop("source", "user"), "tags": list(tags), **meta}})


_BIP39 = """\
abandon ability able about above absent absorb abstract absurd abuse access accident account accuse
achieve acid acoustic acquire across act action actor actress actual adapt add addict address adjust
admit adult advance advice aerobic affair afford afraid again age agent agree ahead aim air airport
aisle alarm album alcohol alert alien all alley allow almost alone alpha already also alter always
amateur amazing among amount amused analyst anchor ancient anger angle angry animal ankle announce
annual another answer antenna antique anxiety any apart apology appear apple approve april arch
arctic area arena argue arm armed armor army around arrange arrest arrive arrow art artefact artist
artwork ask aspect assault asset assist assume asthma athlete atom attack attend attitude attract
auction audit august aunt author auto autumn average avocado avoid awake aware away awesome awful
awkward axis baby bachelor bacon badge bag balance balcony ball bamboo banana banner bar barely
bargain barrel base basic basket battle beach bean beauty because become beef before begin behave
behind believe below belt bench benefit best betray better between beyond bicycle bid bike bind
biology bird birth bitter black blade blame blanket blast bleak bless blind blood blossom blouse
blue blur blush board boat body boil bomb bone bonus book boost border boring borrow boss bottom
bounce box boy bracket brain brand brass brave bread breeze brick bridge brief bright bring brisk
broccoli broken bronze broom brother brown brush bubble buddy budget buffalo build bulb bulk bullet
bundle bunker burden burger burst bus business busy butter buyer buzz cabbage cabin cable cactus
cage cake call calm camera camp can canal cancel candy cannon canoe canvas canyon capable capital
captain car carbon card cargo carpet carry cart case cash casino castle casual cat catalog catch
category cattle caught cause caution cave ceiling celery cement census century cereal certain chair
chalk champion change chaos chapter charge chase chat cheap check cheese chef cherry chest chicken
chief child chimney choice choose chronic chuckle chunk churn cigar cinnamon circle citizen city
civil claim clap clarify claw clay clean clerk clever click client cliff climb clinic clip clock
clog close cloth cloud clown club clump cluster clutch coach coast coconut code coffee coil coin
collect color column combine come comfort comic common company concert conduct confirm congress
connect consider control convince cook cool copper copy coral core corn correct cost cotton couch
country couple course cousin cover coyote crack cradle craft cram crane crash crater crawl crazy
cream credit creek crew cricket crime crisp critic crop cross crouch crowd crucial cruel cruise
crumble crunch crush cry crystal cube culture cup cupboard curious current curtain curve cushion
custom cute cycle dad damage damp dance danger daring dash daughter dawn day deal debate debris
decade december decide decline decorate decrease deer defense define defy degree delay deliver
demand demise denial dentist deny depart depend deposit depth deputy derive describe desert design
desk despair destroy detail detect develop device devote diagram dial diamond diary dice diesel diet
differ digital dignity dilemma dinner dinosaur direct dirt disagree discover disease dish dismiss
disorder display distance divert divide divorce dizzy doctor document dog doll dolphin domain donate
donkey donor door dose double dove draft dragon drama drastic draw dream dress drift drill drink
drip drive drop drum dry duck dumb dune during dust dutch duty dwarf dynamic eager eagle early earn
earth easily east easy echo ecology economy edge edit educate effort egg eight either elbow elder
electric elegant element elephant elevator elite else embark embody embrace emerge emotion employ
empower empty enable enact end endless endorse enemy energy enforce engage engine enhance enjoy
enlist enough enrich enroll ensure enter entire entry envelope episode equal equip era erase erode
erosion error erupt escape essay essence estate eternal ethics evidence evil evoke evolve exact
example excess exchange excite exclude excuse execute exercise exhaust exhibit exile exist exit
exotic expand expect expire explain expose express extend extra eye eyebrow fabric face faculty fade
faint faith fall false fame family famous fan fancy fantasy farm fashion fat fatal father fatigue
fault favorite feature february federal fee feed feel female fence festival fetch fever few fiber
fiction field figure file film filter final find fine finger finish fire firm first fiscal fish fit
fitness fix flag flame flash flat flavor flee flight flip float flock floor flower fluid flush fly
foam focus fog foil fold follow food foot force forest forget fork fortune forum forward fossil
foster found fox fragile frame frequent fresh friend fringe frog front frost frown frozen fruit fuel
fun funny furnace fury future gadget gain galaxy gallery game gap garage garbage garden garlic
garment gas gasp gate gather gauge gaze general genius genre gentle genuine gesture ghost giant gift
giggle ginger giraffe girl give glad glance glare glass glide glimpse globe gloom glory glove glow
glue goat goddess gold good goose gorilla gospel gossip govern gown grab grace grain grant grape
grass gravity great green grid grief grit grocery group grow grunt guard guess guide guilt guitar
gun gym habit hair half hammer hamster hand happy harbor hard harsh harvest hat have hawk hazard
head health heart heavy hedgehog height hello helmet help hen hero hidden high hill hint hip hire
history hobby hockey hold hole holiday hollow home honey hood hope horn horror horse hospital host
hotel hour hover hub huge human humble humor hundred hungry hunt hurdle hurry hurt husband hybrid
ice icon idea identify idle ignore ill illegal illness image imitate immense immune impact impose
improve impulse inch include income increase index indicate indoor industry infant inflict inform
inhale inherit initial inject injury inmate inner innocent input inquiry insane insect inside
inspire install intact interest into invest invite involve iron island isolate issue item ivory
jacket jaguar jar jazz jealous jeans jelly jewel job join joke journey joy judge juice jump jungle
junior junk just kangaroo keen keep ketchup key kick kid kidney kind kingdom kiss kit kitchen kite
kitten kiwi knee knife knock know lab label labor ladder lady lake lamp language laptop large later
latin laugh laundry lava law lawn lawsuit layer lazy leader leaf learn leave lecture left leg legal
legend leisure lemon lend length lens leopard lesson letter level liar liberty library license life
lift light like limb limit link lion liquid list little live lizard load loan lobster local lock
logic lonely long loop lottery loud lounge love loyal lucky luggage lumber lunar lunch luxury lyrics
machine mad magic magnet maid mail main major make mammal man manage mandate mango mansion manual
maple marble march margin marine market marriage mask mass master match material math matrix matter
maximum maze meadow mean measure meat mechanic medal media melody melt member memory mention menu
mercy merge merit merry mesh message metal method middle midnight milk million mimic mind minimum
minor minute miracle mirror misery miss mistake mix mixed mixture mobile model modify mom moment
monitor monkey monster month moon moral more morning mosquito mother motion motor mountain mouse
move movie much muffin mule multiply muscle museum mushroom music must mutual myself mystery myth
naive name napkin narrow nasty nation nature near neck need negative neglect neither nephew nerve
nest net network neutral never news next nice night noble noise nominee noodle normal north nose
notable note nothing notice novel now nuclear number nurse nut oak obey object oblige obscure
observe obtain obvious occur ocean october odor off offer office often oil okay old olive olympic
omit once one onion online only open opera opinion oppose option orange orbit orchard order ordinary
organ orient original orphan ostrich other outdoor outer output outside oval oven over own owner
oxygen oyster ozone pact paddle page pair palace palm panda panel panic panther paper parade parent
park parrot party pass patch path patient patrol pattern pause pave payment peace peanut pear
peasant pelican pen penalty pencil people pepper perfect permit person pet phone photo phrase
physical piano picnic picture piece pig pigeon pill pilot pink pioneer pipe pistol pitch pizza place
planet plastic plate play please pledge pluck plug plunge poem poet point polar pole police pond
pony pool popular portion position possible post potato pottery poverty powder power practice praise
predict prefer prepare present pretty prevent price pride primary print priority prison private
prize problem process produce profit program project promote proof property prosper protect proud
provide public pudding pull pulp pulse pumpkin punch pupil puppy purchase purity purpose purse push
put puzzle pyramid quality quantum quarter question quick quit quiz quote rabbit raccoon race rack
radar radio rail rain raise rally ramp ranch random range rapid rare rate rather raven raw razor
ready real reason rebel rebuild recall receive recipe record recycle reduce reflect reform refuse
region regret regular reject relax release relief rely remain remember remind remove render renew
rent reopen repair repeat replace report require rescue resemble resist resource response result
retire retreat return reunion reveal review reward rhythm rib ribbon rice rich ride ridge rifle
right rigid ring riot ripple risk ritual rival river road roast robot robust rocket romance roof
rookie room rose rotate rough round route royal rubber rude rug rule run runway rural sad saddle
sadness safe sail salad salmon salon salt salute same sample sand satisfy satoshi sauce sausage save
say scale scan scare scatter scene scheme school science scissors scorpion scout scrap screen script
scrub sea search season seat second secret section security seed seek segment select sell seminar
senior sense sentence series service session settle setup seven shadow shaft shallow share shed
shell sheriff shield shift shine ship shiver shock shoe shoot shop short shoulder shove shrimp shrug
shuffle shy sibling sick side siege sight sign silent silk silly silver similar simple since sing
siren sister situate six size skate sketch ski skill skin skirt skull slab slam sleep slender slice
slide slight slim slogan slot slow slush small smart smile smoke smooth snack snake snap sniff snow
soap soccer social sock soda soft solar soldier solid solution solve someone song soon sorry sort
soul sound soup source south space spare spatial spawn speak special speed spell spend sphere spice
spider spike spin spirit split spoil sponsor spoon sport spot spray spread spring spy square squeeze
squirrel stable stadium staff stage stairs stamp stand start state stay steak steel stem step stereo
stick still sting stock stomach stone stool story stove strategy street strike strong struggle
student stuff stumble style subject submit subway success such sudden suffer sugar suggest suit
summer sun sunny sunset super supply supreme sure surface surge surprise surround survey suspect
sustain swallow swamp swap swarm swear sweet swift swim swing switch sword symbol symptom syrup
system table tackle tag tail talent talk tank tape target task taste tattoo taxi teach team tell ten
tenant tennis tent term test text thank that theme then theory there they thing this thought three
thrive throw thumb thunder ticket tide tiger tilt timber time tiny tip tired tissue title toast
tobacco today toddler toe together toilet token tomato tomorrow tone tongue tonight tool tooth top
topic topple torch tornado tortoise toss total tourist toward tower town toy track trade traffic
tragic train transfer trap trash travel tray treat tree trend trial tribe trick trigger trim trip
trophy trouble truck true truly trumpet trust truth try tube tuition tumble tuna tunnel turkey turn
turtle twelve twenty twice twin twist two type typical ugly umbrella unable unaware uncle uncover
under undo unfair unfold unhappy uniform unique unit universe unknown unlock until unusual unveil
update upgrade uphold upon upper upset urban urge usage use used useful useless usual utility vacant
vacuum vague valid valley valve van vanish vapor various vast vault vehicle velvet vendor venture
venue verb verify version very vessel veteran viable vibrant vicious victory video view village
vintage violin virtual virus visa visit visual vital vivid vocal voice void volcano volume vote
voyage wage wagon wait walk wall walnut want warfare warm warrior wash wasp waste water wave way
wealth weapon wear weasel weather web wedding weekend weird welcome west wet whale what wheat wheel
when where whip whisper wide width wife wild will win window wine wing wink winner winter wire
wisdom wise wish witness wolf woman wonder wood wool word work world worry worth wrap wreck wrestle
wrist write wrong yard year yellow you young youth zebra zero zone zoo
""".split()

# First words of the Spanish, French, Italian, Japanese and Chinese (simplified) BIP-39 lists: a
# phrase drawn from them has a wallet's shape (no checksum is computed for these).
_BIP39_ES = """\
ábaco abdomen abeja abierto abogado abono aborto abrazo abrir abuelo abuso acabar academia acceso
acción aceite acelga acento aceptar ácido aclarar acné acoger acoso activo acto actriz actuar acudir
acuerdo acusar adicto admitir adoptar adorno aduana adulto aéreo afectar afición afinar afirmar ágil
agitar agonía agosto agotar agregar agrio agua agudo águila aguja ahogo ahorro aire aislar ajedrez
ajeno ajuste alacrán alambre alarma alba álbum alcalde aldea alegre alejar alerta aleta alfiler alga
algodón aliado aliento alivio alma almeja almíbar altar alteza altivo alto altura alumno alzar amable
""".split()
_BIP39_FR = """\
abaisser abandon abdiquer abeille abolir aborder aboutir aboyer abrasif abreuver abriter abroger
abrupt absence absolu absurde abusif abyssal académie acajou acarien accabler accepter acclamer
accolade accroche accuser acerbe achat acheter aciduler acier acompte acquérir acronyme acteur actif
actuel adepte adéquat adhésif adjectif adjuger admettre admirer adopter adorer adoucir adresse adroit
adulte adverbe aérer aéronef affaire affecter affiche affreux affubler agacer agencer agile agiter
agrafer agréable agrume aider aiguille ailier aimable aisance ajouter ajuster alarmer alchimie alerte
""".split()
_BIP39_IT = """\
abaco abbaglio abbinato abete abisso abolire abrasivo abrogato accadere accenno accusato acetone
achille acido acqua acre acrilico acrobata acuto adagio addebito addome adeguato aderire adipe
adottare adulare affabile affetto affisso affranto aforisma afoso africano agave agente agevole
aggancio agire agitare agonismo agricolo agrumeto aguzzo alabarda alato albatro alberato albo
albume alce alcolico alettone alfa algebra aliante alibi alimento allagato allegro allievo allodola
""".split()
_BIP39_JA = """\
あいこくしん あいさつ あいだ あおぞら あかちゃん あきる あけがた あける あこがれる あさい あさひ
あしあと あじわう あずかる あずき あそぶ あたえる あたためる あたりまえ あたる あつい あつかう
あっしゅく あつまり あつめる あてな あてはまる あひる あぶら あぶる あふれる あまい あまど
あまやかす あまり あみもの あめりか あやまる あゆむ あらいぐま あらし あらすじ あらためる
""".split()
_BIP39_ZH = """\
的 一 是 在 不 了 有 和 人 这 中 大 为 上 个 国 我 以 要 他 时 来 用 们 生 到 作 地 于 出 就 分 对 成
会 可 主 发 年 动 同 工 也 能 下 过 子 说 产 种 面 而 方 后 多 定 行 学 法 所 民 得 经 十 三 之 进 着
等 部 度 家 电 力 里 如 水 化 高 自 二 理 起 小 物 现 实 加 量 都 两 体 制 机 当 使 点 从 业 本 去 把
""".split()

# --- vendor tokens, many new in 2025-2026, each in the place a developer would paste it --------------
F("vendor", "openai-svcacct", "OpenAI service-account key for the eval runner",
  f"The eval runner uses its own service account now: OPENAI_API_KEY=sk-svcacct-{_s(B64URL, 74)}T3BlbkFJ{_s(B64URL, 74)}",
  tags=("openai",))
F("vendor", "openai-admin", "OpenAI admin key for usage exports",
  f"usage export cron: `curl https://api.openai.com/v1/organization/usage/completions -H \"Authorization: Bearer sk-admin-{_s(B64URL, 58)}T3BlbkFJ{_s(B64URL, 58)}\"`",
  tags=("openai", "billing"))
F("vendor", "anthropic-admin", "Anthropic admin API key (workspace management)",
  f"admin key for the workspace script: sk-ant-admin01-{_s(B64URL, 93)}AA", tags=("anthropic",))
F("vendor", "openrouter", "OpenRouter key used by the playground",
  f"playground/.env.local\nOPENROUTER_API_KEY=sk-or-v1-{_hex(64)}", tags=("llm",))
F("vendor", "xai", "xAI Grok key", f"grok-cli is configured with xai-{_s(B62, 80)}", tags=("llm",))
F("vendor", "groq", "Groq key for the fast summariser", f"summariser: GROQ_API_KEY=gsk_{_s(B62, 52)}", tags=("llm",))
F("vendor", "perplexity", "Perplexity key for the research agent", f"research agent → pplx-{_s(B62, 48)}", tags=("llm",))
F("vendor", "cerebras", "Cerebras inference key", f"cerebras: csk-{_s(LOWER_NUM, 48)}", tags=("llm",))
F("vendor", "fireworks", "Fireworks key", f"FIREWORKS_API_KEY: fw_{_s(B62, 24)}", tags=("llm",))
F("vendor", "tavily", "Tavily search key for the web tool", f"web_search tool: tvly-prod-{_s(B62, 32)}", tags=("tools",))
F("vendor", "firecrawl", "Firecrawl key", f"firecrawl scraper key fc-{_hex(32)}", tags=("tools",))
F("vendor", "e2b", "E2B sandbox key", f"code interpreter sandboxes: E2B_API_KEY=e2b_{_hex(40)}", tags=("tools",))
F("vendor", "browserbase", "Browserbase key", f"headless browsers run on Browserbase, key bb_live_{_s(B64URL, 27)}", tags=("tools",))
F("vendor", "langsmith", "LangSmith service key for tracing",
  f"LANGSMITH_TRACING=true\nLANGSMITH_API_KEY=lsv2_sk_{_hex(32)}_{_hex(10)}", tags=("observability",))
F("vendor", "pinecone", "Pinecone key for the RAG index", f"index: docs-prod, key pcsk_{_s(B62, 5)}_{_s(B62, 63)}", tags=("rag",))
F("vendor", "voyage", "Voyage embeddings key", f"embedder voyage-3-large, api key pa-{_s(B64URL, 43)}", tags=("rag",))
F("vendor", "elevenlabs", "ElevenLabs key for the narration job", f"xi-api-key: sk_{_hex(48)}", tags=("audio",))
F("vendor", "deepgram", "Deepgram key", f"transcription: Token {_hex(40)} (deepgram, project 'calls')", tags=("audio",))
F("vendor", "huggingface-fine", "HF fine-grained token for the model upload",
  f"`huggingface-cli login --token hf_{_s(B62, 34)}` then push the LoRA", tags=("ml",))
F("vendor", "replicate", "Replicate token", f"REPLICATE_API_TOKEN r8_{_s(B62, 37)}", tags=("ml",))
F("vendor", "modal", "Modal token id and secret",
  f"modal token set --token-id ak-{_s(B62, 22)} --token-secret as-{_s(B62, 22)}", tags=("ml",))
F("vendor", "github-fine-grained", "GitHub fine-grained PAT for the release bot",
  f"release bot PAT (expires 2027-03): github_pat_11{_s(UPPER_NUM, 20)}_{_s(B62, 59)}", tags=("github",))
F("vendor", "github-app-install", "GitHub App installation token seen in a CI log",
  f"the job printed GITHUB_TOKEN=ghs_{_s(B62, 36)} in the debug step, remember to scrub it", tags=("github", "ci"))
F("vendor", "gitlab-runner", "GitLab runner authentication token",
  f"[[runners]]\n  name = \"hetzner-arm\"\n  url = \"https://gitlab.com\"\n  token = \"glrt-t3_{_s(B64URL, 27)}\"", tags=("gitlab",))
F("vendor", "gitlab-deploy", "GitLab deploy token for the registry",
  f"registry pull: user gitlab+deploy-token-{_digits(7)}, token gldt-{_s(B64URL, 20)}", tags=("gitlab",))
F("vendor", "gitlab-feed", "GitLab feed token", f"RSS of the activity feed: feed_token=glft-{_s(B64URL, 20)}", tags=("gitlab",))
F("vendor", "docker-oat", "Docker organisation access token", f"docker login -u acmeorg --password-stdin <<< dckr_oat_{_s(B64URL, 32)}", tags=("docker",))
F("vendor", "figma", "Figma PAT for the icon export", f"icons export script reads FIGMA_TOKEN=figd_{_s(B64URL, 40)}", tags=("design",))
F("vendor", "notion", "Notion integration secret", f"the wiki sync integration: ntn_{_digits(11)}{_s(B62, 35)}", tags=("notion",))
F("vendor", "linear", "Linear API key", f"triage bot → Linear, key lin_api_{_s(B62, 40)}", tags=("linear",))
F("vendor", "atlassian", "Atlassian API token for Jira automation",
  f"jira: me@acme.io / ATATT3xFfGF0{_s(B64URL, 180)}={_s(UHEX, 8)}", tags=("jira",))
F("vendor", "okta-ssws", "Okta API token", f"Authorization: SSWS 00{_s(B64URL, 40)}", tags=("okta",))
F("vendor", "sentry-org", "Sentry org auth token for source maps",
  f"SENTRY_AUTH_TOKEN=sntrys_{_b64u(json.dumps({'iat': 1764900000, 'url': 'https://sentry.io', 'region_url': 'https://de.sentry.io', 'org': 'acme'}).encode())}_{_s(B64URL, 43)}",
  tags=("sentry",))
F("vendor", "sentry-user", "Sentry user token", f"my personal sentry token sntryu_{_hex(64)}", tags=("sentry",))
F("vendor", "grafana-sa", "Grafana service account token", f"grafana dashboards provisioner: glsa_{_s(B62, 32)}_{_hex(8)}", tags=("grafana",))
F("vendor", "grafana-cloud", "Grafana Cloud access policy token", f"alloy remote_write password: glc_{_b64u(_bytes(90))}", tags=("grafana",))
F("vendor", "newrelic", "New Relic user key", f"NEW_RELIC_API_KEY=NRAK-{_s(UPPER_NUM, 27)}", tags=("newrelic",))
F("vendor", "digitalocean", "DigitalOcean token for doctl", f"doctl auth init -t dop_v1_{_hex(64)}", tags=("do",))
F("vendor", "flyio", "Fly.io deploy token",
  f"FLY_API_TOKEN=\"FlyV1 fm2_{_b64u(_bytes(120))},fm2_{_b64u(_bytes(90))}\"", tags=("fly",))
F("vendor", "render", "Render API key", f"render deploy hook uses API key rnd_{_s(B62, 32)}", tags=("render",))
F("vendor", "heroku", "Heroku API key (new format)", f"heroku authorizations:create gave HRKU-AA{_s(B64URL, 58)}", tags=("heroku",))
F("vendor", "netlify", "Netlify personal token", f"netlify: nfp_{_s(B62, 36)}{_hex(4)}", tags=("netlify",))
F("vendor", "tailscale", "Tailscale auth key for new servers",
  f"tailscale up --authkey=tskey-auth-k{_s(B62, 13)}CNTRL-{_s(B62, 33)}", tags=("tailscale",))
F("vendor", "ngrok", "ngrok authtoken", f"ngrok config add-authtoken 2{_s(B62, 26)}_{_s(B62, 21)}", tags=("ngrok",))
F("vendor", "1password-sa", "1Password service account token for CI",
  f"OP_SERVICE_ACCOUNT_TOKEN=ops_{_b64u(json.dumps({'signInAddress': 'acme.1password.com', 'userAuth': {'method': 'SRPg-4096', 'alg': 'PBES2g-HS256', 'iterations': 650000, 'salt': _b64u(_bytes(16))}, 'email': 'ci@acme.1password.com', 'srpX': _hex(64), 'muk': {'alg': 'A256GCM', 'ext': True, 'k': _b64u(_bytes(32)), 'key_ops': ['encrypt', 'decrypt'], 'kty': 'oct', 'kid': 'mp'}, 'secretKey': 'A3-' + _s(UPPER_NUM, 6), 'throttleSecret': {'seed': _hex(64), 'uuid': _s(UPPER_NUM, 26)}, 'deviceUuid': _s(LOWER_NUM, 26)}).encode())}",
  tags=("1password", "ci"))
F("vendor", "vault-hvs", "HashiCorp Vault token", f"VAULT_ADDR=https://vault.acme.io:8200 VAULT_TOKEN=hvs.{_s(B64URL, 90)}", tags=("vault",))
F("vendor", "doppler", "Doppler service token", f"doppler run --token dp.st.prd.{_s(B62, 43)} -- ./server", tags=("doppler",))
F("vendor", "infisical", "Infisical machine identity client secret",
  f"INFISICAL_CLIENT_ID={_uuid()}\nINFISICAL_CLIENT_SECRET={_hex(64)}", tags=("infisical",))
F("vendor", "bitwarden-sm", "Bitwarden Secrets Manager access token",
  f"BWS_ACCESS_TOKEN=0.{_uuid()}.{_s(B62, 30)}:{_b64(16)}", tags=("bitwarden",))
F("vendor", "pulumi", "Pulumi access token", f"pulumi login with PULUMI_ACCESS_TOKEN=pul-{_hex(40)}", tags=("pulumi",))
F("vendor", "tfc", "Terraform Cloud team token",
  f"credentials \"app.terraform.io\" {{\n  token = \"{_s(B62, 14)}.atlasv1.{_s(B62, 67)}\"\n}}", tags=("terraform",))
F("vendor", "postman", "Postman API key", f"newman uses PMAK-{_hex(24)}-{_hex(34)}", tags=("postman",))
F("vendor", "shopify-admin", "Shopify custom app admin token", f"shop acme-store.myshopify.com, admin API token shpat_{_hex(32)}", tags=("shopify",))
F("vendor", "square", "Square production access token", f"Square prod: EAAA{_s(B64URL, 60)}", tags=("square",))
F("vendor", "resend", "Resend API key for transactional mail", f"RESEND_API_KEY=re_{_s(B62, 8)}_{_s(B62, 24)}", tags=("mail",))
F("vendor", "sendgrid", "SendGrid key", f"smtp relay password (apikey user): SG.{_s(B64URL, 22)}.{_s(B64URL, 43)}", tags=("mail",))
F("vendor", "mailgun", "Mailgun private key", f"mailgun domain mg.acme.io, private key {_hex(32)}-{_hex(8)}-{_hex(8)}", tags=("mail",))
F("vendor", "twilio", "Twilio account SID and auth token",
  f"TWILIO_ACCOUNT_SID=AC{_hex(32)}\nTWILIO_AUTH_TOKEN={_hex(32)}", tags=("twilio",))
F("vendor", "slack-app-level", "Slack app-level token for Socket Mode",
  f"SLACK_APP_TOKEN=xapp-1-A{_s(UPPER_NUM, 10)}-{_digits(13)}-{_hex(64)}", tags=("slack",))
F("vendor", "slack-rotating", "Slack rotating user token",
  f"token from the OAuth v2 exchange: xoxe.xoxp-1-Mi0yLTE{_s(B62, 140)}", tags=("slack",))
F("vendor", "discord-bot", "Discord bot token for the release announcer",
  f"DISCORD_TOKEN={_b64u(_digits(19).encode())}.{_s(B64URL, 6)}.{_s(B64URL, 38)}", tags=("discord",))
F("vendor", "telegram-bot", "Telegram bot for alerts", f"alerts bot @acme_alerts_bot token {_digits(10)}:AA{_s(B64URL, 33)}", tags=("telegram",))
F("vendor", "npm-granular", "npm granular access token for publishing",
  f"publish with NODE_AUTH_TOKEN=npm_{_s(B62, 36)}", tags=("npm",))
F("vendor", "pypi-trusted-fallback", "PyPI API token (fallback when trusted publishing breaks)",
  f"twine upload -u __token__ -p pypi-AgEIcHlwaS5vcmcCJ{_s(B64URL, 150)}", tags=("pypi",))
F("vendor", "rubygems", "RubyGems API key", f"GEM_HOST_API_KEY=rubygems_{_hex(48)}", tags=("ruby",))
F("vendor", "cratesio", "crates.io token", f"cargo login cio{_s(B62, 32)}", tags=("rust",))
F("vendor", "supabase-secret", "Supabase secret API key (new format)", f"server-side only: sb_secret_{_s(B64URL, 31)}", tags=("supabase",))
F("vendor", "supabase-pat", "Supabase personal access token for the CLI", f"supabase login --token sbp_{_hex(40)}", tags=("supabase",))
F("vendor", "neon", "Neon API key", f"neonctl --api-key napi_{_s(LOWER_NUM, 64)} branches list", tags=("neon",))
F("vendor", "planetscale", "PlanetScale service token",
  f"PLANETSCALE_SERVICE_TOKEN_ID={_s(LOWER_NUM, 12)}\nPLANETSCALE_SERVICE_TOKEN=pscale_tkn_{_s(B64URL, 43)}", tags=("db",))
F("vendor", "turso", "Turso database auth token",
  f"TURSO_AUTH_TOKEN={_jwt({'a': 'rw', 'iat': 1764900000, 'id': _uuid()}, alg='EdDSA', sig_bytes=64)}", tags=("db",))
F("vendor", "upstash-qstash", "QStash token and signing keys",
  f"QSTASH_TOKEN={_b64(60)}\nQSTASH_CURRENT_SIGNING_KEY=sig_{_s(B62, 28)}\nQSTASH_NEXT_SIGNING_KEY=sig_{_s(B62, 28)}", tags=("upstash",))
F("vendor", "convex-deploy", "Convex production deploy key",
  f"CONVEX_DEPLOY_KEY='prod:happy-otter-{_digits(3)}|{_b64u(_bytes(96))}'", tags=("convex",))
F("vendor", "clerk", "Clerk secret key", f"CLERK_SECRET_KEY=sk_live_{_s(B62, 40)}", tags=("auth",))
F("vendor", "posthog-personal", "PostHog personal API key", f"posthog query API: phx_{_s(B62, 47)}", tags=("analytics",))
F("vendor", "buildkite", "Buildkite user token", f"bk CLI configured with bkua_{_hex(40)}", tags=("ci",))
F("vendor", "circleci", "CircleCI personal token", f"CIRCLE_TOKEN=CCIPAT_{_s(B62, 22)}_{_hex(40)}", tags=("ci",))
F("vendor", "sourcegraph", "Sourcegraph access token", f"src login https://sourcegraph.acme.io --token sgp_{_hex(16)}_{_hex(40)}", tags=("search",))
F("vendor", "jfrog-ref", "JFrog reference token", f"artifactory identity token cmVmdGtuOjAxOjE3{_s(B62, 50)}", tags=("jfrog",))
F("vendor", "azure-ad-secret", "Entra ID app client secret",
  f"app registration 'orders-api' client secret (value, not the id): {_s(B62, 3)}8Q~{_s(B64URL + '.~', 37)}", tags=("azure",))
F("vendor", "azure-storage", "Azure storage connection string",
  f"DefaultEndpointsProtocol=https;AccountName=acmeprodlogs;AccountKey={_b64(64)};EndpointSuffix=core.windows.net", tags=("azure",))
F("vendor", "aws-sts", "Temporary AWS creds from sso",
  f"[sso-admin]\naws_access_key_id = ASIA{_s(UPPER_NUM, 16)}\naws_secret_access_key = {_s(B62 + '/+', 40)}\n"
  f"aws_session_token = IQoJb3JpZ2luX2VjE{_s(B62 + '/+', 300)}==", tags=("aws",))
F("vendor", "alibaba", "Alibaba Cloud AccessKey", f"aliyun configure: LTAI5t{_s(B62, 18)} / {_s(B62, 30)}", tags=("aliyun",))
F("vendor", "tencent", "Tencent Cloud SecretId/SecretKey", f"SecretId: AKID{_s(B62, 32)}\nSecretKey: {_s(B62, 32)}", tags=("tencent",))
F("vendor", "google-oauth-client", "Google OAuth client secret for the desktop app",
  f"client id {_digits(12)}-{_s(LOWER_NUM, 32)}.apps.googleusercontent.com, secret GOCSPX-{_s(B64URL, 28)}", tags=("google",))
F("vendor", "google-refresh", "Google refresh token for the calendar sync", f"refresh_token: 1//0g{_s(B64URL, 99)}", tags=("google",))
F("vendor", "google-access", "Google access token from gcloud", f"gcloud auth print-access-token → ya29.a0{_s(B64URL, 180)}", tags=("google",))
F("vendor", "mapbox-secret", "Mapbox secret token for tile uploads",
  f"MAPBOX_UPLOAD_TOKEN=sk.{_b64u(json.dumps({'u': 'acmemaps', 'a': _s(LOWER_NUM, 25)}).encode())}.{_s(B64URL, 22)}", tags=("maps",))
F("vendor", "x-bearer", "X (Twitter) API bearer token", f"X_BEARER=AAAAAAAAAAAAAAAAAAAAA{_s(B62, 20)}%3D{_s(B62, 50)}", tags=("social",))
F("vendor", "meta-graph", "Meta Graph API long-lived page token", f"page token (60 days): EAAG{_s(B62, 180)}", tags=("social",))
F("vendor", "coinbase-cdp", "Coinbase CDP API key",
  f"name: organizations/{_uuid()}/apiKeys/{_uuid()}\nprivateKey: \"-----BEGIN EC PRIVATE KEY-----\\n{base64.b64encode(_ec_der()).decode()}\\n-----END EC PRIVATE KEY-----\\n\"",
  tags=("crypto",))
F("vendor", "binance", "Binance API key pair", f"binance read-only: api {_s(B62, 64)}\nsecret {_s(B62, 64)}", tags=("crypto",))
F("vendor", "cloudflare-origin-ca", "Cloudflare Origin CA key", f"origin-ca-key v1.0-{_hex(24)}-{_hex(146)}", tags=("cloudflare",))
F("vendor", "contentful", "Contentful management token", f"CONTENTFUL_MANAGEMENT_TOKEN=CFPAT-{_s(B64URL, 43)}", tags=("cms",))
F("vendor", "airtable", "Airtable PAT", f"airtable base appX: pat{_s(B62, 14)}.{_hex(64)}", tags=("airtable",))
F("vendor", "dropbox", "Dropbox short-lived token", f"dropbox token sl.u.{_s(B64URL, 140)}", tags=("dropbox",))
F("vendor", "asana", "Asana PAT", f"asana: 2/{_digits(16)}/{_digits(16)}:{_hex(32)}", tags=("asana",))
F("vendor", "salesforce-session", "Salesforce session id from the CLI",
  f"sf org display → Access Token 00D{_s(B62, 12)}!AQ{_s(B64URL + '.', 110)}", tags=("salesforce",))
# --- generic assignments in languages and config formats (no vendor prefix) ----------------------
F("assign", "env-session-secret", "Session secret for the Express app", f"SESSION_SECRET={_b64(48)}", tags=("node",))
F("assign", "env-nextauth", "NextAuth secret", f".env.production\nNEXTAUTH_URL=https://app.acme.io\nNEXTAUTH_SECRET={_b64(32)}", tags=("next",))
F("assign", "laravel-app-key", "Laravel APP_KEY on prod", f"APP_ENV=production\nAPP_KEY=base64:{_b64(32)}", tags=("php",))
F("assign", "django-secret", "Django SECRET_KEY for staging",
  f"settings/staging.py:\nSECRET_KEY = \"{_s(LOWER_NUM + '!@#$%^&*(-_=+)', 50)}\"", tags=("django",))
F("assign", "rails-secret-base", "Rails secret_key_base", f"production:\n  secret_key_base: {_hex(128)}", tags=("rails",))
F("assign", "yaml-client-secret", "OIDC config for the admin panel",
  f"oidc:\n  issuer: https://id.acme.io\n  client_id: admin-panel\n  client_secret: {_s(B62, 40)}\n  scopes: [openid, email]",
  tags=("auth",))
F("assign", "toml-token", "Token in the tool's TOML config",
  f"[sync]\nendpoint = \"https://sync.acme.io\"\nauth_token = \"{_s(B64URL, 43)}\"", tags=("config",))
F("assign", "ini-db-password", "legacy app's config.ini",
  f"[database]\nhost = 10.20.0.4\nuser = billing\npassword = {_pw()}\nname = billing", tags=("legacy",))
F("assign", "json-apikey", "appsettings.Production.json",
  json.dumps({"Logging": {"LogLevel": {"Default": "Warning"}},
              "Payments": {"ApiKey": _s(B62, 32), "ApiSecret": _s(B64URL, 48)}}, indent=2), tags=("dotnet",))
F("assign", "hcl-provider", "Terraform provider block that still has the key inline",
  f"provider \"datadog\" {{\n  api_key = \"{_hex(32)}\"\n  app_key = \"{_hex(40)}\"\n  api_url = \"https://api.datadoghq.eu/\"\n}}",
  tags=("terraform",))
F("assign", "hcl-variable-default", "tfvars with the DB password",
  f"variable \"db_password\" {{\n  type      = string\n  sensitive = true\n  default   = \"{_pw()}\"\n}}", tags=("terraform",))
F("assign", "dockerfile-env", "Dockerfile of the scraper", f"FROM python:3.13-slim\nENV SCRAPER_API_KEY={_s(B62, 32)}\nCOPY . /app",
  tags=("docker",))
F("assign", "dockerfile-arg", "Build arg for the private registry",
  f"ARG PIP_INDEX_URL=https://__token__:{_s(B64URL, 40)}@pkgs.acme.io/simple/\nRUN pip install -r requirements.txt", tags=("docker",))
F("assign", "k8s-secret-data", "k8s Secret for the orders service",
  f"apiVersion: v1\nkind: Secret\nmetadata:\n  name: orders-db\ntype: Opaque\ndata:\n  username: {_b64t('orders')}\n  password: {_b64t(_pw())}",
  tags=("k8s",))
F("assign", "k8s-stringdata", "k8s Secret with stringData",
  f"kind: Secret\nmetadata: {{name: stripe}}\nstringData:\n  STRIPE_KEY: {_s(B62, 99)}", tags=("k8s",))
F("assign", "docker-config-auths", "~/.docker/config.json on the build box",
  json.dumps({"auths": {"registry.acme.io": {"auth": _b64t("ci-bot:" + _s(B62, 24))}}}, indent=2), tags=("docker",))
F("assign", "npmrc-authtoken", "project .npmrc for the private scope",
  f"@acme:registry=https://npm.pkg.github.com\n//npm.pkg.github.com/:_authToken={_s(B62, 40)}", tags=("npm",))
F("assign", "npmrc-auth-basic", ".npmrc for the Nexus mirror",
  f"registry=https://nexus.acme.io/repository/npm/\n_auth={_b64t('deploy:' + _pw())}\nalways-auth=true", tags=("npm",))
F("assign", "pypirc", "~/.pypirc for the internal index",
  f"[distutils]\nindex-servers = internal\n\n[internal]\nrepository = https://pypi.acme.io/\nusername = release\npassword = {_pw()}",
  tags=("python",))
F("assign", "gem-credentials", "~/.gem/credentials", f"---\n:rubygems_api_key: {_hex(48)}\n:github: Bearer {_s(B62, 40)}", tags=("ruby",))
F("assign", "cargo-credentials", "~/.cargo/credentials.toml for the company registry",
  f"[registries.acme]\ntoken = \"Bearer {_s(B62, 43)}\"", tags=("rust",))
F("assign", "maven-settings", "Maven settings.xml server entry",
  f"<server>\n  <id>acme-releases</id>\n  <username>deployer</username>\n  <password>{_pw()}</password>\n</server>", tags=("java",))
F("assign", "gradle-properties", "gradle.properties signing",
  f"signing.keyId={_s(UHEX, 8)}\nsigning.password={_pw()}\nossrhPassword={_s(B62, 20)}", tags=("java",))
F("assign", "android-keystore", "release signing config",
  f"signingConfigs {{ release {{ storeFile file('release.jks'); storePassword '{_pw()}'; keyAlias 'upload'; keyPassword '{_pw()}' }} }}",
  tags=("android",))
F("assign", "spring-properties", "application-prod.properties",
  f"spring.datasource.url=jdbc:postgresql://db:5432/shop\nspring.datasource.username=shop\nspring.datasource.password={_pw()}",
  tags=("java",))
F("assign", "dotnet-web-config", "web.config appSettings",
  f"<appSettings>\n  <add key=\"SmtpPassword\" value=\"{_pw()}\" />\n  <add key=\"ApiSecret\" value=\"{_s(B62, 32)}\" />\n</appSettings>",
  tags=("dotnet",))
F("assign", "go-const", "hard-coded key in the Go client (to remove)",
  f"```go\nconst signingSecret = \"{_s(B62, 40)}\"\n```", tags=("go",))
F("assign", "java-static", "Java constant in the legacy SDK",
  f"private static final String CLIENT_SECRET = \"{_s(B64URL, 43)}\";", tags=("java",))
F("assign", "rust-let", "test harness still holds the real token",
  f"let token = \"{_s(B62, 48)}\"; // staging, rotate after demo", tags=("rust",))
F("assign", "php-define", "WordPress wp-config salts",
  f"define('AUTH_KEY',         '{_s(B62 + '!@#$%^&*()-_[]{{}}<>~+=,.;:/?|', 64)}');\n"
  f"define('SECURE_AUTH_KEY',  '{_s(B62 + '!@#$%^&*()-_[]{{}}<>~+=,.;:/?|', 64)}');", tags=("php",))
F("assign", "swift-let", "iOS app config", f"enum Secrets {{ static let apiSecret = \"{_s(B62, 36)}\" }}", tags=("ios",))
F("assign", "powershell-env", "PowerShell profile", f"$env:ACME_API_KEY = \"{_s(B62, 40)}\"", tags=("windows",))
F("assign", "shell-export-lower", "shell rc line", f"export backup_encryption_passphrase='{_pw()} {_pw()}'", tags=("shell",))
F("assign", "systemd-env", "systemd unit drop-in",
  f"[Service]\nEnvironment=\"WORKER_TOKEN={_s(B64URL, 40)}\"\nEnvironment=LOG_LEVEL=info", tags=("systemd",))
F("assign", "gha-with", "workflow step with a literal token",
  f"- uses: actions/checkout@v4\n  with:\n    token: {_s(B62, 40)}\n    submodules: recursive", tags=("ci",))
F("assign", "kubeconfig-token", "kubeconfig user with a static token",
  f"users:\n- name: ci\n  user:\n    token: {_s(LOWER_NUM, 6)}.{_s(LOWER_NUM, 16)}", tags=("k8s",))
F("assign", "kubeconfig-client-key", "kubeconfig with client key data",
  f"users:\n- name: admin\n  user:\n    client-certificate-data: {_b64(600)[:120]}\n    client-key-data: {_b64t(_pem('RSA PRIVATE KEY', _rsa_der()))}",
  tags=("k8s",))
F("assign", "gcp-sa-json", "GCP service account for the exporter",
  json.dumps({"type": "service_account", "project_id": "acme-analytics", "private_key_id": _hex(40),
              "client_email": "exporter@acme-analytics.iam.gserviceaccount.com", "client_id": _digits(21)}, indent=2),
  tags=("gcp",))
F("assign", "mycnf", "~/.my.cnf on the db bastion", f"[client]\nuser=dba\npassword=\"{_pw()}\"\nhost=127.0.0.1", tags=("mysql",))
F("assign", "redis-conf", "redis.conf on the cache box", f"bind 0.0.0.0\nrequirepass {_s(B62, 32)}\nmaxmemory 2gb", tags=("redis",))
F("assign", "pgpass", "~/.pgpass for the replicas",
  f"replica1.acme.internal:5432:*:replicator:{_pw()}\nreplica2.acme.internal:5432:*:replicator:{_pw()}", tags=("postgres",))
F("assign", "netrc", "~/.netrc for the artifact server",
  f"machine artifacts.acme.io\n  login ci\n  password {_s(B62, 28)}", tags=("netrc",))
F("assign", "wpa-psk", "wpa_supplicant for the lab pi",
  f"network={{\n    ssid=\"acme-lab\"\n    psk=\"{_pw()}\"\n}}", tags=("pi",))
F("assign", "s3cfg", "~/.s3cfg for the Wasabi bucket",
  f"[default]\naccess_key = {_s(UPPER_NUM, 20)}\nsecret_key = {_s(B62 + '+/', 40)}\nhost_base = s3.eu-central-1.wasabisys.com", tags=("s3",))
F("assign", "ldap-bindpw", "sssd.conf bind password",
  f"ldap_default_bind_dn = cn=sssd,ou=svc,dc=acme,dc=io\nldap_default_authtok_type = password\nldap_default_authtok = {_pw()}",
  tags=("ldap",))
F("assign", "smtp-env", "mailer env", f"MAIL_HOST=smtp.fastmail.com\nMAIL_USERNAME=ops@acme.io\nMAIL_PASSWORD={_s(LOWER_NUM, 16)}",
  tags=("mail",))
F("assign", "encryption-key-hex", "field encryption key", f"FIELD_ENCRYPTION_KEY={_hex(64)}", tags=("crypto",))
F("assign", "hmac-key-yaml", "webhook verification config", f"webhooks:\n  github:\n    hmac_key: {_hex(40)}", tags=("webhooks",))
F("assign", "jwt-secret-camel", "JS config object",
  f"export default {{\n  port: 8080,\n  jwtSecret: '{_s(B62, 64)}',\n  corsOrigin: 'https://app.acme.io',\n}}", tags=("node",))
F("assign", "ansible-vars", "group_vars/db.yml (unencrypted, oops)",
  f"postgresql_users:\n  - name: app\n    password: {_pw()}\n    role_attr_flags: LOGIN", tags=("ansible",))
F("assign", "helm-values", "values-prod.yaml",
  f"redis:\n  auth:\n    enabled: true\n    password: \"{_s(B62, 24)}\"\nreplicaCount: 3", tags=("helm",))
F("assign", "xml-connection", "connectionStrings in app.config",
  f"<connectionStrings>\n  <add name=\"Main\" connectionString=\"Server=sql01;Database=Shop;User Id=shop_app;Password={_pw()};\" />\n</connectionStrings>",
  tags=("dotnet",))
F("assign", "kafka-jaas", "Kafka client SASL config",
  f"sasl.mechanism=SCRAM-SHA-512\nsasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username=\"orders\" password=\"{_s(B62, 32)}\";",
  tags=("kafka",))

# --- connection strings with the password inside -------------------------------------------------
F("url", "jdbc-query-password", "JDBC URL for the reporting job",
  f"jdbc:postgresql://reporting.db.acme.internal:5432/dw?user=report&password={_pw()}&ssl=true", tags=("jdbc",))
F("url", "jdbc-sqlserver", "SQL Server JDBC", f"jdbc:sqlserver://sql01.acme.local:1433;databaseName=erp;user=sa;password={_pw()};encrypt=true",
  tags=("jdbc",))
F("url", "jdbc-oracle-thin", "Oracle thin URL", f"jdbc:oracle:thin:hr/{_pw()}@//ora.acme.local:1521/ORCLPDB1", tags=("oracle",))
F("url", "odbc", "ODBC connection for Power BI gateway",
  f"Driver={{ODBC Driver 18 for SQL Server}};Server=tcp:acme.database.windows.net,1433;Database=bi;Uid=bi_reader;Pwd={{{_pw()}}};Encrypt=yes;",
  tags=("odbc",))
F("url", "mongodb-srv", "Atlas connection string",
  f"MONGODB_URI=mongodb+srv://app_rw:{_s(B62, 16)}@cluster0.{_s(LOWER_NUM, 5)}.mongodb.net/shop?retryWrites=true&w=majority", tags=("mongo",))
F("url", "rediss-upstash", "Upstash Redis URL",
  f"rediss://default:{_s(B62, 34)}@eu2-sunny-lark-{_digits(5)}.upstash.io:6379", tags=("redis",))
F("url", "redis-no-user", "Redis URL for the queue", f"REDIS_URL=redis://:{_s(B62, 24)}@10.0.3.7:6379/2", tags=("redis",))
F("url", "amqps", "RabbitMQ (CloudAMQP) URL",
  f"amqps://{_s(LOWER, 8)}:{_s(B64URL, 32)}@rattlesnake.rmq.cloudamqp.com/{_s(LOWER, 8)}", tags=("amqp",))
F("url", "postgres-percent", "Postgres DSN with an escaped password",
  f"postgresql://ledger:{urllib.parse.quote(_pw() + '@#/', safe='')}@db-ledger.acme.internal:5432/ledger?sslmode=verify-full",
  tags=("postgres",))
F("url", "mysql-dsn-go", "Go MySQL DSN", f"dsn := \"shop:{_pw()}@tcp(mysql.acme.local:3306)/shop?parseTime=true\"", tags=("go",))
F("url", "clickhouse", "ClickHouse Cloud URL", f"clickhouse://default:{_s(B62 + '~.', 16)}@abc{_s(LOWER_NUM, 6)}.eu-west-1.aws.clickhouse.cloud:9440/default?secure=true",
  tags=("clickhouse",))
F("url", "elastic", "Elasticsearch endpoint", f"ES_URL=https://elastic:{_s(B62, 24)}@search.acme.io:9243", tags=("elastic",))
F("url", "snowflake", "Snowflake SQLAlchemy URL", f"snowflake://etl_user:{_pw()}@acme-xy12345/ANALYTICS/PUBLIC?warehouse=ETL_WH", tags=("snowflake",))
F("url", "ftp", "FTP drop of the supplier", f"supplier feed: ftp://acme_in:{_pw()}@ftp.supplier.example.net/outgoing/", tags=("ftp",))
F("url", "proxy", "corporate proxy", f"export https_proxy=http://jdoe:{_pw()}@proxy.acme.corp:3128", tags=("proxy",))
F("url", "nats-token", "NATS with a token", f"nats://{_s(B62, 32)}@nats.acme.io:4222", tags=("nats",))
F("url", "smtp-url", "SMTP URL for the notifier", f"EMAIL_URL=smtp+tls://alerts%40acme.io:{_s(LOWER, 16)}@smtp.gmail.com:587", tags=("mail",))
F("url", "git-credentials", "~/.git-credentials line",
  f"https://jdoe:{_s(B62, 40)}@git.acme.io", tags=("git",))
F("url", "git-remote-oauth2", "remote of the infra repo", f"git remote set-url origin https://oauth2:{_s(B64URL, 26)}@gitlab.acme.io/infra/live.git",
  tags=("git",))

# --- keys in query strings --------------------------------------------------------------------------
F("query", "api-key-param", "weather API call used by the dashboard",
  f"https://api.weatherprovider.io/v3/forecast?lat=52.37&lon=4.89&api_key={_hex(32)}&units=metric", tags=("api",))
F("query", "access-token-param", "Graph call that works from the browser",
  f"GET https://graph.acme.io/v2/me/feed?fields=id,message&access_token={_s(B62, 120)}", tags=("api",))
F("query", "s3-presigned-sts", "presigned URL shared with the auditor",
  f"https://acme-exports.s3.eu-west-1.amazonaws.com/q3.csv?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=ASIA{_s(UPPER_NUM, 16)}%2F20261205%2Feu-west-1%2Fs3%2Faws4_request"
  f"&X-Amz-Date=20261205T101500Z&X-Amz-Expires=604800&X-Amz-Security-Token=IQoJb3JpZ2luX2VjE{urllib.parse.quote(_s(B62 + '/+', 200), safe='')}"
  f"&X-Amz-SignedHeaders=host&X-Amz-Signature={_hex(64)}", tags=("s3",))
F("query", "azure-sas", "SAS URL for the backup container",
  f"https://acmebackups.blob.core.windows.net/nightly?sv=2024-11-04&ss=b&srt=co&sp=rwdlac&se=2027-01-01T00:00:00Z&st=2026-12-01T00:00:00Z&spr=https&sig={urllib.parse.quote(_b64(32), safe='')}",
  tags=("azure",))
F("query", "token-and-user", "Grafana embed link", f"https://grafana.acme.io/d/abc/overview?orgId=1&auth_token={_s(B64URL, 32)}&kiosk", tags=("grafana",))
F("query", "ws-auth", "websocket URL for the live feed", f"wss://stream.acme.io/v1/ticks?auth={_s(B62, 40)}&symbols=BTC,ETH", tags=("ws",))
F("query", "apikey-camel", "RSS-to-JSON endpoint", f"curl 'https://api.feeds.io/convert?url=https%3A%2F%2Facme.io%2Ffeed&apiKey={_s(LOWER_NUM, 40)}'", tags=("api",))
F("query", "key-gcs-signed", "GCS signed URL for the dataset",
  f"https://storage.googleapis.com/acme-ds/train.parquet?X-Goog-Algorithm=GOOG4-RSA-SHA256&X-Goog-Credential=exporter%40acme.iam.gserviceaccount.com%2F20261205%2Fauto%2Fstorage%2Fgoog4_request&X-Goog-Date=20261205T100000Z&X-Goog-Expires=604800&X-Goog-SignedHeaders=host&X-Goog-Signature={_hex(512)}",
  tags=("gcs",))

# --- webhook URLs that carry their secret ---------------------------------------------------------
F("webhook", "slack", "Slack webhook for #deploys",
  f"https://hooks.slack.com/services/T{_s(UPPER_NUM, 10)}/B{_s(UPPER_NUM, 10)}/{_s(B62, 24)}", tags=("slack",))
F("webhook", "discord", "Discord webhook for #alerts",
  f"https://discord.com/api/webhooks/{_digits(19)}/{_s(B64URL, 68)}", tags=("discord",))
F("webhook", "teams", "Teams incoming webhook (Workflows)",
  f"https://prod-{_digits(2)}.westeurope.logic.azure.com:443/workflows/{_hex(32)}/triggers/manual/paths/invoke?api-version=2016-06-01&sp=%2Ftriggers%2Fmanual%2Frun&sv=1.0&sig={_s(B64URL, 43)}",
  tags=("teams",))
F("webhook", "google-chat", "Google Chat space webhook",
  f"https://chat.googleapis.com/v1/spaces/AAAA{_s(B64URL, 7)}/messages?key=AIzaSy{_s(B64URL, 33)}&token={_s(B64URL, 43)}%3D", tags=("gchat",))
F("webhook", "zapier", "Zapier catch hook", f"POST to https://hooks.zapier.com/hooks/catch/{_digits(8)}/{_s(LOWER_NUM, 7)}/ with the form JSON",
  tags=("zapier",))
F("webhook", "mattermost", "Mattermost incoming hook", f"https://chat.acme.io/hooks/{_s(LOWER_NUM, 26)}", tags=("mattermost",))
F("webhook", "telegram-sendmessage", "Telegram alert URL",
  f"curl 'https://api.telegram.org/bot{_digits(10)}:AA{_s(B64URL, 33)}/sendMessage?chat_id=-100{_digits(10)}&text=deploy+ok'",
  tags=("telegram",))
F("webhook", "stripe-whsec", "Stripe endpoint signing secret", f"checkout webhook signing secret: whsec_{_s(B62, 32)}", tags=("stripe",))
F("webhook", "github-hook-secret", "secret of the repo webhook",
  f"GitHub webhook for acme/api → https://ci.acme.io/hook, secret `{_hex(40)}` (set in the repo settings)", tags=("github",))
# --- private keys of every kind -------------------------------------------------------------------
F("privkey", "openssh-ed25519", "deploy key of the docs site",
  "deploy key (read/write) for acme/docs:\n" + _openssh_key(b"ssh-ed25519", _bytes(32), _bytes(64), "deploy@docs"), tags=("ssh",))
F("privkey", "rsa-pkcs1", "legacy SFTP key", _pem("RSA PRIVATE KEY", _rsa_der()), tags=("ssh",))
F("privkey", "pkcs8", "signing key of the license server", _pem("PRIVATE KEY", _pkcs8_rsa()), tags=("license",))
F("privkey", "pkcs8-encrypted", "encrypted key and its passphrase",
  _pem("ENCRYPTED PRIVATE KEY", _der_seq(_der_seq(bytes.fromhex("06092a864886f70d01050d")), _der_oct(_bytes(1200))))
  + f"\npassphrase: {_pw()}", tags=("tls",))
F("privkey", "ec", "webhook signer EC key", _pem("EC PRIVATE KEY", _ec_der()), tags=("tls",))
F("privkey", "pgp", "release signing key (armored export)",
  "-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n" + _wrap(base64.b64encode(b"\x95\x05\x86\x04" + _bytes(1400)).decode(), 64)
  + f"\n={_b64(3)}\n-----END PGP PRIVATE KEY BLOCK-----", tags=("gpg",))
F("privkey", "putty-v3", "PuTTY key for the Windows jump host",
  "PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nComment: ed25519-key-20261201\nPublic-Lines: 2\n"
  + _wrap(base64.b64encode(_sshstr(b"ssh-ed25519") + _sshstr(_bytes(32))).decode(), 64)
  + "\nPrivate-Lines: 1\n" + base64.b64encode(_sshstr(_bytes(32))).decode() + f"\nPrivate-MAC: {_hex(64)}", tags=("putty",))
F("privkey", "age", "age identity for the sops files",
  f"# created: 2026-11-30T09:12:44Z\n# public key: {_bech32('age', _bytes(32))}\n{_bech32('age-secret-key-', _bytes(32), upper=True)}",
  tags=("sops",))
F("privkey", "jwk-ec-d", "JWK the token service signs with",
  json.dumps({"kty": "EC", "crv": "P-256", "kid": "2026-11", "use": "sig", "x": _b64u(_bytes(32)), "y": _b64u(_bytes(32)),
              "d": _b64u(_bytes(32))}), tags=("jwt",))
F("privkey", "jwk-oct", "symmetric JWK", json.dumps({"kty": "oct", "kid": "hmac-1", "alg": "HS512", "k": _b64u(_bytes(64))}), tags=("jwt",))
F("privkey", "wireguard", "WireGuard config of the laptop",
  f"[Interface]\nPrivateKey = {_b64(32)}\nAddress = 10.8.0.3/24\n\n[Peer]\nPublicKey = {_b64(32)}\nEndpoint = vpn.acme.io:51820\nAllowedIPs = 0.0.0.0/0",
  tags=("vpn",))
F("privkey", "p12-base64", "iOS distribution certificate for fastlane",
  f"MATCH_PASSWORD={_pw()}\nDIST_CERT_P12_BASE64={base64.b64encode(bytes.fromhex('308209c1020103308209') + _bytes(1500)).decode()}",
  tags=("ios",))
F("privkey", "minisign", "minisign secret key of the updater",
  f"untrusted comment: minisign encrypted secret key\nRWRTY0Iy{_s(B62 + '+/', 204)}=", tags=("signing",))
F("privkey", "solana-keypair", "Solana devnet→mainnet deployer keypair",
  f"~/.config/solana/deployer.json: {json.dumps(list(_bytes(64)))}", tags=("crypto",))
F("privkey", "eth-hex", "hot wallet key of the faucet", f"FAUCET_PRIVATE_KEY=0x{_hex(64)}", tags=("crypto",))
F("privkey", "btc-wif", "paper wallet WIF", "WIF: " + _b58check(bytes([0x80]) + _bytes(32) + bytes([1])), tags=("crypto",))
F("privkey", "nostr-nsec", "nostr key of the bot account", f"bot npub is public, but its nsec is {_bech32('nsec', _bytes(32))}", tags=("nostr",))
F("privkey", "pem-flattened", "SSH key pasted without its line breaks",
  "-----BEGIN OPENSSH PRIVATE KEY----- " + _openssh_key(b"ssh-ed25519", _bytes(32), _bytes(64), "ci@runner").split("\n", 1)[1].replace("\n", " "),
  tags=("ssh",))
F("privkey", "pem-body-only", "the key body (headers stripped by the chat)",
  "the service key body, paste between BEGIN/END lines:\n" + _wrap(base64.b64encode(_pkcs8_ed25519() + _pkcs8_rsa()[:900]).decode()),
  tags=("tls",))
F("privkey", "gcp-private-key-json", "Firebase admin service account",
  json.dumps({"type": "service_account", "project_id": "acme-app", "private_key_id": _hex(40),
              "private_key": _pem("PRIVATE KEY", _pkcs8_rsa()) + "\n", "client_email": "firebase-adminsdk-x1@acme-app.iam.gserviceaccount.com"}),
  tags=("firebase",))
F("privkey", "dkim", "DKIM private key for mail.acme.io (opendkim)",
  "mail._domainkey private key:\n" + _pem("RSA PRIVATE KEY", _rsa_der(1024)), tags=("mail",))

# --- cookies and session ids ------------------------------------------------------------------------
F("session", "cookie-header", "cookie to replay the admin session in curl",
  f"curl -b 'sessionid={_s(LOWER_NUM, 32)}; csrftoken={_s(B62, 32)}' https://admin.acme.io/api/orders", tags=("debug",))
F("session", "nextauth-cookie", "session cookie from the browser",
  f"__Secure-next-auth.session-token={_s(B64URL, 40)}.{_s(B64URL, 300)}.{_s(B64URL, 22)}", tags=("debug",))
F("session", "connect-sid", "express session cookie", f"Cookie: connect.sid=s%3A{_s(B64URL, 32)}.{urllib.parse.quote(_b64(32), safe='')}", tags=("debug",))
F("session", "phpsessid-prose", "stuck session on the shop",
  f"logged in as the customer via PHPSESSID {_s(LOWER_NUM, 26)} to reproduce the cart bug", tags=("debug",))
F("session", "google-psid", "Google cookies for the Bard scraper",
  f"__Secure-1PSID=g.a000{_s(B64URL, 140)}0076\n__Secure-1PSIDTS=sidts-{_s(B64URL, 80)}", tags=("scraper",))
F("session", "cookies-txt", "cookies.txt for yt-dlp",
  f"# Netscape HTTP Cookie File\n.acme-video.com\tTRUE\t/\tTRUE\t1796000000\tauth_session\t{_hex(64)}", tags=("scraper",))
F("session", "set-cookie-rails", "Set-Cookie captured in the HAR",
  f"Set-Cookie: _shop_session={urllib.parse.quote(_b64(180), safe='')}--{_hex(40)}; path=/; secure; HttpOnly; SameSite=Lax",
  tags=("debug",))
F("session", "jsessionid-url", "URL with the session in it",
  f"https://portal.acme-bank.example/account;jsessionid={_s(UHEX, 32)}.node2?tab=statements", tags=("debug",))
F("session", "refresh-token-json", "tokens.json from the CLI's cache",
  json.dumps({"access_token": _s(B64URL, 64), "refresh_token": _s(B64URL, 64), "expires_in": 3600, "token_type": "Bearer"}),
  tags=("cli",))

# --- OTP seeds and recovery codes -----------------------------------------------------------------
F("otp", "otpauth", "TOTP for the shared ops account",
  f"otpauth://totp/AWS:ops@acme.io?secret={_s(B32, 32)}&issuer=AWS&algorithm=SHA1&digits=6&period=30", tags=("2fa",))
F("otp", "seed-spaced", "2FA seed for the registrar (type it into the app)",
  f"registrar 2FA setup key: {' '.join(_s(B32.lower()[:26] + '234567', 4) for _ in range(8))}", tags=("2fa",))
F("otp", "github-recovery", "GitHub recovery codes",
  "github-recovery-codes.txt\n" + "\n".join(f"{_s(HEX, 5)}-{_s(HEX, 5)}" for _ in range(16)), tags=("github",))
F("otp", "google-backup", "Google backup codes",
  "Backup codes for jdoe@acme.io\n" + "\n".join(f"{_s(string.digits, 4)} {_s(string.digits, 4)}" for _ in range(10)), tags=("google",))
F("otp", "1password-secret-key", "1Password Secret Key (emergency kit)",
  f"Emergency kit: Secret Key A3-{_s(UPPER_NUM, 6)}-{_s(UPPER_NUM, 6)}-{_s(UPPER_NUM, 5)}-{_s(UPPER_NUM, 5)}-{_s(UPPER_NUM, 5)}-{_s(UPPER_NUM, 5)}",
  tags=("1password",))
F("otp", "bitlocker", "BitLocker recovery key of the finance laptop",
  f"Recovery key ID {_s(UHEX, 8)}: " + "-".join(_s(string.digits, 6) for _ in range(8)), tags=("windows",))
F("otp", "apple-recovery-key", "Apple ID recovery key", "Apple recovery key: " + "-".join(_s(UPPER_NUM, 4) for _ in range(7)), tags=("apple",))
F("otp", "proton-recovery", "Proton recovery phrase", f"Proton account recovery phrase: {_mnemonic(12)}", tags=("proton",))
F("otp", "steam-guard-secret", "Steam Guard shared secret (for the idle bot)",
  json.dumps({"shared_secret": _b64(20), "identity_secret": _b64(20), "revocation_code": "R" + _s(string.digits, 5)}), tags=("gaming",))
F("otp", "hotp-counter", "YubiKey OATH-HOTP secret",
  f"ykman oath accounts add --oath-type HOTP --counter 0 vpn-hotp {_hex(40)}", tags=("yubikey",))

# --- seed phrases -----------------------------------------------------------------------------------
F("seed", "english-12-prose", "wallet backup", f"the backup words for the Ledger are {_mnemonic(12)}", tags=("crypto",))
F("seed", "english-24-numbered-columns", "seed card transcription",
  "\n".join(f"{i:>2}) {w:<10} {i + 12:>2}) {v}" for i, (w, v) in enumerate(zip(_mnemonic(24).split()[:12], _mnemonic(24).split()[12:]), 1)),
  tags=("crypto",))
F("seed", "english-comma", "MetaMask test→prod wallet", "phrase: " + ", ".join(_mnemonic(12).split()), tags=("crypto",))
F("seed", "english-18-no-label", "words for the treasury wallet", _mnemonic(18), tags=("crypto",))
F("seed", "english-upper", "seed on the steel plate", _mnemonic(24).upper(), tags=("crypto",))
F("seed", "spanish", "frase semilla de la cartera", f"frase de recuperación: {_pick_words(_BIP39_ES, 12)}", tags=("crypto",))
F("seed", "french", "phrase de récupération", f"les 24 mots : {_pick_words(_BIP39_FR, 24)}", tags=("crypto",))
F("seed", "italian", "frase mnemonica", f"parole del wallet: {_pick_words(_BIP39_IT, 12)}", tags=("crypto",))
F("seed", "japanese", "ウォレットの復元フレーズ", f"復元フレーズ：{_pick_words(_BIP39_JA, 12, chr(0x3000))}", tags=("crypto",))
F("seed", "chinese", "钱包助记词", f"助记词：{_pick_words(_BIP39_ZH, 12)}", tags=("crypto",))
F("seed", "split-halves", "seed words 1-12 (13-24 in the other note)",
  " ".join(f"{i}.{w}" for i, w in enumerate(_mnemonic(24).split()[:12], 1)), tags=("crypto",))
# --- passwords in prose, several phrasings and languages ----------------------------------------
F("prose", "my-password-colon", "NAS login", f"my password: {_s(LOWER, 22)}", tags=("home",))
F("prose", "pw-for", "router admin", f"pw for the router admin page is {_pw()}", tags=("home",))
F("prose", "login-slash", "staging admin user", f"staging admin login: admin / {_pw()}", tags=("staging",))
F("prose", "creds-comma", "vendor portal", f"creds for the Acme supplier portal - user jdoe@acme.io, pass {_pw()}", tags=("vendor",))
F("prose", "passphrase-quoted", "backup disk", f"The backup disk unlocks with the passphrase \"{_pw()} {_WORDS[3].lower()} {_digits(3)}\".",
  tags=("backup",))
F("prose", "reset-to", "after the reset", f"IT reset my VPN password to {_pw()} this morning; must change it at next login.", tags=("it",))
F("prose", "remember-that", "root on the old box", f"Remember that {_pw()} is the root password on build-02.", tags=("infra",))
F("prose", "wifi", "office Wi-Fi", f"Office Wi-Fi 'acme-staff' — key {_pw()}", tags=("office",))
F("prose", "pin", "bank card PIN (the user asked to remember it)", f"User's debit card PIN is {_s(string.digits, 4)}; the card ends in 4417.",
  tags=("personal",))
F("prose", "uses-as-password", "the user's habit", f"They use {_s(LOWER, 6)}{_digits(4)} as the password for the family Netflix account.",
  tags=("personal",))
F("prose", "password-equals-prose", "db note", f"Connected fine with user=report password={_pw()} against the replica.", tags=("db",))
F("prose", "german", "Zugang zum Kundenportal", f"Zugang Kundenportal: Benutzer m.schulz, Passwort: {_pw()}", tags=("de",))
F("prose", "french", "accès au serveur", f"Le mot de passe du serveur de recette est {_pw()} (compte deploy).", tags=("fr",))
F("prose", "spanish", "acceso al panel", f"La contraseña del panel de administración es {_pw()}", tags=("es",))
F("prose", "portuguese", "acesso ao roteador", f"senha do wi-fi da casa: {_pw()}", tags=("pt",))
F("prose", "dutch", "inlog leverancier", f"wachtwoord voor het leveranciersportaal is {_pw()}", tags=("nl",))
F("prose", "russian", "доступ к серверу", f"пароль от сервера: {_pw()}", tags=("ru",))
F("prose", "japanese", "サーバーのログイン", f"検証サーバーのパスワードは {_pw()} です", tags=("ja",))
F("prose", "chinese", "数据库密码", f"测试库的密码：{_pw()}", tags=("zh",))
F("prose", "polish", "hasło do VPN", f"hasło do VPN to {_pw()}", tags=("pl",))
F("prose", "turkish", "sunucu şifresi", f"sunucu şifresi: {_pw()}", tags=("tr",))
F("prose", "passphrase-words-only", "diceware passphrase of the password manager",
  f"master passphrase is {' '.join(_R.sample(_BIP39, 6))}", tags=("personal",))
F("prose", "secret-is", "shared secret with the partner", f"The shared HMAC secret we agreed with Partner X is {_s(B62, 32)}.", tags=("partner",))
F("prose", "api-key-sentence", "scraper key", f"I generated a new API key for the scraper: {_s(LOWER_NUM, 32)}. Use it from now on.", tags=("scraper",))
F("prose", "token-in-chat", "what the user pasted", f"here's the token you asked for {_s(B64URL, 40)} — it's for the staging API", tags=("chat",))

# --- command lines that carry a password ---------------------------------------------------------------
F("cli", "sshpass", "how to get on the lab box", f"sshpass -p '{_pw()}' ssh root@10.0.0.15", tags=("lab",))
F("cli", "mysql-p", "mysql one-liner", f"mysql -h db.acme.local -u root -p{_s(B62, 14)} shop < dump.sql", tags=("mysql",))
F("cli", "curl-u", "call the admin API", f"curl -u admin:{_pw()} https://jenkins.acme.io/job/deploy/build", tags=("jenkins",))
F("cli", "docker-login-p", "registry login", f"docker login -u ci -p {_s(B62, 32)} registry.acme.io", tags=("docker",))
F("cli", "sudo-S", "the script that restarts nginx", f"echo '{_pw()}' | sudo -S systemctl restart nginx", tags=("ops",))
F("cli", "net-use", "map the share on Windows", f"net use Z: \\\\fs01\\finance /user:ACME\\jdoe {_pw()}", tags=("windows",))
F("cli", "ansible-extra", "ad-hoc ansible run", f"ansible all -i hosts -m ping -e ansible_password={_pw()} -e ansible_user=admin", tags=("ansible",))
F("cli", "psql-pgpassword", "psql with env", f"PGPASSWORD={_pw()} psql -h 10.1.0.5 -U postgres -d ledger", tags=("postgres",))
F("cli", "openssl-pass", "unpack the key bundle", f"openssl pkcs12 -in bundle.p12 -nodes -passin pass:{_pw()} -out bundle.pem", tags=("tls",))
F("cli", "htpasswd-b", "create the basic-auth user", f"htpasswd -b -c /etc/nginx/.htpasswd grafana {_pw()}", tags=("nginx",))
F("cli", "rclone-obscure", "rclone remote on the NAS", f"rclone config create b2 b2 account {_s(LOWER_NUM, 25)} key K00{_s(B62, 28)}", tags=("backup",))
F("cli", "gh-auth-token", "log the CLI in on the new laptop", f"echo {_s(B62, 40)} | gh auth login --with-token", tags=("github",))

# --- credentials split across lines or fields ---------------------------------------------------------
F("split", "desc-and-body", "Prod Postgres password (user: app_rw)", f"{_pw()}", tags=("postgres",))
F("split", "meta-field", "Stripe key for the billing worker", "The key is in the frontmatter field `stripe_key`.",
  stripe_key=f"rk_live_{_s(B62, 99)}", tags=("stripe",))
F("split", "id-then-secret-lines", "OAuth app on the partner API",
  f"client id:\n  {_s(LOWER_NUM, 24)}\nclient secret:\n  {_s(B64URL, 48)}", tags=("oauth",))
F("split", "concatenated-string", "key split to dodge the scanner",
  f"```python\nKEY = \"sk-proj-\" + \"{_s(B64URL, 40)}\" + \"{_s(B64URL, 40)}\"\n```", tags=("python",))
F("split", "line-continuation", "shell with a long token", f"export API_TOKEN=\"{_s(B62, 30)}\\\n{_s(B62, 30)}\"", tags=("shell",))
F("split", "spaced-groups", "read out over the phone", f"the API key, in groups: {' '.join(_s(UPPER_NUM, 4) for _ in range(8))}", tags=("api",))
F("split", "user-in-desc-pass-in-body", "SFTP user 'acme_upload' at files.partner.example",
  f"password {_pw()}", tags=("sftp",))
F("split", "host-user-pass-yaml-list", "the three pieces for the Redis cluster",
  f"- host: redis-17.cloud.redislabs.com:17311\n- user: default\n- secret: {_s(B62, 32)}", tags=("redis",))
F("split", "json-split-parts", "token stored in two parts",
  json.dumps({"token_part1": _s(B62, 20), "token_part2": _s(B62, 20), "join": "part1+part2"}), tags=("config",))
F("split", "key-in-tag", "Slack bot note", "See the tag for the token.", tags=("slack", f"xoxb-{_digits(12)}-{_digits(13)}-{_s(B62, 24)}"))

# --- auth headers -----------------------------------------------------------------------------------
F("header", "basic", "Basic auth for the legacy API", f"Authorization: Basic {_b64t('svc_legacy:' + _pw())}", tags=("api",))
F("header", "bearer-opaque", "Bearer token for the partner API", f"-H 'Authorization: Bearer {_s(B62, 44)}'", tags=("api",))
F("header", "x-api-key", "x-api-key header", f"x-api-key: {_s(B62, 40)}", tags=("api",))
F("header", "token-scheme", "DRF token", f"Authorization: Token {_hex(40)}", tags=("django",))
F("header", "proxy-basic", "proxy auth header", f"Proxy-Authorization: Basic {_b64t('jdoe:' + _pw())}", tags=("proxy",))
F("header", "httpie", "HTTPie call", f"http POST :8000/api/jobs Authorization:'Bearer {_s(B64URL, 48)}' name=reindex", tags=("api",))
F("header", "fetch-headers", "fetch call in the widget",
  f"fetch(url, {{ headers: {{ 'X-Auth-Token': '{_uuid()}', 'Content-Type': 'application/json' }} }})", tags=("js",))
F("header", "supabase-service-role", "service role key in the edge function",
  f"apikey: {_jwt({'iss': 'supabase', 'ref': _s(LOWER, 20), 'role': 'service_role', 'iat': 1764900000, 'exp': 2080476000})}", tags=("supabase",))
F("header", "grpc-metadata", "gRPC call to the internal service",
  f"grpcurl -H 'authorization: bearer {_s(B62, 48)}' orders.internal:443 orders.v1.Orders/List", tags=("grpc",))

# --- JWTs and OAuth tokens ----------------------------------------------------------------------------
F("jwt", "azure-access", "access token copied from the browser",
  _jwt({"aud": "https://graph.microsoft.com", "iss": f"https://sts.windows.net/{_uuid()}/", "iat": 1764900000, "exp": 1764903600,
        "name": "Jane Doe", "scp": "User.Read Mail.Read", "upn": "jane@acme.io"}, alg="RS256", sig_bytes=256), tags=("azure",))
F("jwt", "firebase-refresh", "Firebase refresh token of the test user", f"refreshToken: AMf-vB{_s(B64URL, 250)}", tags=("firebase",))
F("jwt", "ms-refresh", "MS refresh token", f"refresh_token=0.A{_s(B64URL, 20)}.{_s(B64URL, 300)}", tags=("azure",))
F("jwt", "bare-jwt-prose", "token for the staging API (valid a year)",
  f"use this token for staging: {_jwt({'sub': 'svc-importer', 'scope': 'orders:write', 'iat': 1764900000, 'exp': 1796436000})}", tags=("api",))
F("jwt", "jwt-split-dots", "JWT pasted across lines",
  "\n".join(_jwt({"sub": "admin", "role": "admin", "iat": 1764900000}).split(".")), tags=("api",))
# === LOOK-ALIKES: nothing here is a credential ======================================================

# --- ids, hashes, checksums -------------------------------------------------------------------------
L("id", "commit-ids", "where the regression came in",
  f"bisect: good {_hex(40)}, bad {_hex(40)}; first bad commit {_hex(12)} (\"cache: drop the lock\")", tags=("git",))
L("id", "uuids", "request ids from the incident",
  f"failed requests: {_uuid()}, {_uuid()}, {_uuid()} (all from the eu-west pool)", tags=("incident",))
L("id", "sha256sum", "release checksums",
  f"{_hex(64)}  vault-mem-0.9.0-py3-none-any.whl\n{_hex(64)}  vault-mem-0.9.0.tar.gz", tags=("release",))
L("id", "sri-lockfile", "package-lock entry",
  f"\"node_modules/zod\": {{\n  \"version\": \"3.24.1\",\n  \"resolved\": \"https://registry.npmjs.org/zod/-/zod-3.24.1.tgz\",\n"
  f"  \"integrity\": \"sha512-{_b64(64)}\"\n}}", tags=("npm",))
L("id", "go-sum", "go.sum lines",
  f"github.com/spf13/cobra v1.8.1 h1:{_b64(32)}\ngithub.com/spf13/cobra v1.8.1/go.mod h1:{_b64(32)}", tags=("go",))
L("id", "pip-hashes", "requirements.txt with hashes",
  f"httpx==0.28.1 \\\n    --hash=sha256:{_hex(64)} \\\n    --hash=sha256:{_hex(64)}", tags=("python",))
L("id", "cargo-lock", "Cargo.lock entry",
  f"[[package]]\nname = \"serde\"\nversion = \"1.0.215\"\nsource = \"registry+https://github.com/rust-lang/crates.io-index\"\nchecksum = \"{_hex(64)}\"",
  tags=("rust",))
L("id", "image-digest", "pinned base image", f"FROM python:3.13-slim@sha256:{_hex(64)}", tags=("docker",))
L("id", "lfs-pointer", "git-lfs pointer of the model file", f"version https://git-lfs.github.com/spec/v1\noid sha256:{_hex(64)}\nsize 133466304",
  tags=("lfs",))
L("id", "magnet", "dataset torrent", f"magnet:?xt=urn:btih:{_hex(40)}&dn=commonvoice-nl-19.tar", tags=("data",))
L("id", "s3-etag", "ETag mismatch on upload", f"ETag \"{_hex(32)}-12\" vs local md5 {_hex(32)}", tags=("s3",))
L("id", "k8s-uid", "pod that kept restarting",
  f"pod orders-7d9f8b6c5-x2k4q uid {_uuid()} resourceVersion {_digits(9)} node ip-10-0-3-44", tags=("k8s",))
L("id", "tx-and-address", "refund transaction",
  f"refund sent from 0x{_hex(40)} in tx 0x{_hex(64)}; receiver bc1q{_s(BECH32, 38)}", tags=("crypto",))
L("id", "ipfs-cid", "pinned docs build", f"docs pinned as bafybei{_s('abcdefghijklmnopqrstuvwxyz234567', 52)} (old: Qm{_s(B58, 44)})", tags=("ipfs",))
L("id", "object-ids", "Stripe objects of the disputed order",
  f"customer cus_{_s(B62, 14)}, payment pi_{_s(B62, 24)}, charge ch_{_s(B62, 24)}, price price_{_s(B62, 24)}", tags=("stripe",))
L("id", "openai-ids", "assistant setup", f"assistant asst_{_s(B62, 24)}, vector store vs_{_s(B62, 24)}, file file-{_s(B62, 22)}, org org-{_s(B62, 24)}",
  tags=("openai",))
L("id", "cloud-ids", "Cloudflare and Azure ids for terraform imports",
  f"CLOUDFLARE_ZONE_ID={_hex(32)}\nCLOUDFLARE_ACCOUNT_ID={_hex(32)}\nAZURE_TENANT_ID={_uuid()}\nAZURE_SUBSCRIPTION_ID={_uuid()}", tags=("terraform",))
L("id", "gpg-fingerprint", "maintainer key to verify releases",
  "verify with gpg --recv-keys " + " ".join(_s(UHEX, 4) for _ in range(10)), tags=("release",))
L("id", "ssh-fingerprints", "host key fingerprints of the bastion",
  f"ED25519 SHA256:{_b64(32).rstrip('=')}\nRSA SHA256:{_b64(32).rstrip('=')}", tags=("ssh",))
L("id", "cert-serial", "cert that expires next week", f"serial {':'.join(_s(UHEX, 2) for _ in range(16))}, SHA-1 fingerprint {':'.join(_s(UHEX, 2) for _ in range(20))}",
  tags=("tls",))
L("id", "onion", "mirror of the docs over Tor", f"http://{_s('abcdefghijklmnopqrstuvwxyz234567', 56)}.onion/docs", tags=("tor",))
L("id", "trace-ids", "trace to look at", f"traceparent: 00-{_hex(32)}-{_hex(16)}-01", tags=("otel",))

# --- public keys and certificates --------------------------------------------------------------------
L("public", "authorized-keys", "keys allowed on the deploy user",
  _ssh_pub("ssh-ed25519", 32, "jdoe@laptop") + "\n" + _ssh_pub("ssh-rsa", 270, "ci@runner"), tags=("ssh",))
L("public", "known-hosts", "known_hosts entry for the git server", "git.acme.io " + _ssh_pub("ssh-ed25519", 32, "").strip(), tags=("ssh",))
L("public", "pgp-public", "release signing public key",
  "-----BEGIN PGP PUBLIC KEY BLOCK-----\n\n" + _wrap(base64.b64encode(b"\x99\x01\x0d\x04" + _bytes(500)).decode())
  + f"\n={_b64(3)}\n-----END PGP PUBLIC KEY BLOCK-----", tags=("gpg",))
L("public", "certificate", "the CA cert to trust on the runners", _pem("CERTIFICATE", _cert_der()), tags=("tls",))
L("public", "age-recipient", "age recipients for sops", f"creation_rules:\n  - age: {_bech32('age', _bytes(32))},{_bech32('age', _bytes(32))}", tags=("sops",))
L("public", "wireguard-peer", "peer block to add on the server",
  f"[Peer]\n# jdoe laptop\nPublicKey = {_b64(32)}\nAllowedIPs = 10.8.0.3/32", tags=("vpn",))
L("public", "jwks-public", "JWKS the gateway fetches",
  json.dumps({"keys": [{"kty": "RSA", "kid": "2026-11", "use": "sig", "alg": "RS256", "n": _b64u(_bytes(256)), "e": "AQAB"}]}), tags=("jwt",))
L("public", "publishable-keys", "client-side keys (public by design)",
  f"NEXT_PUBLIC_STRIPE_PUBLISHABLE_KEY=pk_live_{_s(B62, 99)}\nNEXT_PUBLIC_POSTHOG_KEY=phc_{_s(B62, 43)}", tags=("frontend",))
L("public", "npub", "bot's public nostr identity", f"follow the bot at {_bech32('npub', _bytes(32))}", tags=("nostr",))
L("public", "public-key-pem", "public key to verify license files",
  _pem("PUBLIC KEY", _der_seq(_der_seq(bytes.fromhex("06092a864886f70d0101010500")), b"\x03\x82\x01\x0f\x00" + _bytes(270))), tags=("license",))

# --- placeholders and documentation -----------------------------------------------------------------
L("placeholder", "angle", "how to set the token", "Set it with `export ACME_TOKEN=<your-token>` or put `token = \"<your-token>\"` in ~/.acme.toml.",
  tags=("docs",))
L("placeholder", "xxxx", "env template", "API_KEY=xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\nAPI_SECRET=xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx", tags=("docs",))
L("placeholder", "changeme", "dev compose defaults",
  "The local compose file uses POSTGRES_PASSWORD=changeme and MINIO_ROOT_PASSWORD=changeme; CI fails if either reaches prod.", tags=("docs",))
L("placeholder", "your-api-key-here", "snippet from the SDK README",
  "```python\nclient = Acme(api_key=\"YOUR_API_KEY_HERE\")\n```", tags=("docs",))
L("placeholder", "ci-interpolation", "workflow reads the secret",
  "env:\n  NPM_TOKEN: ${{ secrets.NPM_TOKEN }}\n  DATABASE_URL: ${{ vars.DATABASE_URL }}", tags=("ci",))
L("placeholder", "redacted", "log line with a redacted header", "Authorization: Bearer [REDACTED] (len 44) — 401 from the partner API", tags=("debug",))
L("placeholder", "stars-url", "connection string shape", "mongodb+srv://app_rw:****@cluster0.mongodb.net/shop", tags=("docs",))
L("placeholder", "password-prompt", "what the installer asks", "The installer prompts `Password:` twice; leave it empty to generate one.", tags=("docs",))
L("placeholder", "generate-secret", "how to make the session secret",
  "Generate SESSION_SECRET with `openssl rand -base64 48` and store it in the secret manager, never in .env.", tags=("docs",))
L("placeholder", "env-ref", "k8s env from a secret",
  "- name: REDIS_PASSWORD\n  valueFrom:\n    secretKeyRef: {name: redis, key: password}", tags=("k8s",))
L("placeholder", "dollar-var", "script reads it from the env", "curl -H \"Authorization: Bearer $ACME_TOKEN\" https://api.acme.io/v1/me", tags=("shell",))
L("placeholder", "example-ellipsis", "key shape in the docs", "Keys look like `sk-proj-…` (about 160 characters); GitHub's like `github_pat_…`.", tags=("docs",))

# --- ordinary values that look random -------------------------------------------------------------
L("ordinary", "base64-text", "fixture: base64 of the sample config",
  "`" + _b64t(json.dumps({"retries": 3, "timeout": 30, "region": "eu-west-1"})) + "` decodes to the sample config used by test_load",
  tags=("tests",))
L("ordinary", "base64-hello", "email header test", f"Subject: =?UTF-8?B?{_b64t('Weekly report: all systems normal')}?=", tags=("email",))
L("ordinary", "versions", "what runs in prod",
  "api 2.14.0-rc.3+build.8812, worker 2.13.7, postgres 17.2, redis 7.4.1, nginx 1.27.3, node v22.12.0", tags=("ops",))
L("ordinary", "colours", "chart palette", "series: #4E79A7 #F28E2B #E15759 #76B7B2 #59A14F #EDC948 #B07AA1 #FF9DA7; grid rgba(0,0,0,.08)", tags=("design",))
L("ordinary", "bip39-like-sentence", "retro notes",
  "We agree the bridge project was a success: the team will build a better design, focus on quality, and avoid the same delay.", tags=("retro",))
L("ordinary", "hash-of-test-password", "fixture user in the seed data",
  f"seed user alice, bcrypt hash $2b$12${_s(B62 + './', 53)} (the plaintext is not stored anywhere)", tags=("tests",))
L("ordinary", "random-filenames", "upload naming", f"example upload: uploads/2026/12/{_s(B64URL, 21)}.webp and thumbs/{_hex(16)}.jpg", tags=("storage",))
L("ordinary", "encrypted-sops", "encrypted value in secrets.enc.yaml",
  f"api_key: ENC[AES256_GCM,data:{_b64(30)},iv:{_b64(32)},tag:{_b64(16)},type:str]", tags=("sops",))
L("ordinary", "ansible-vault-blob", "ansible-vault encrypted var (committed on purpose)",
  "db_password: !vault |\n  $ANSIBLE_VAULT;1.1;AES256\n  " + "\n  ".join(_hex(80) for _ in range(4)), tags=("ansible",))
L("ordinary", "client-id-public", "Google sign-in client id (public)",
  f"GOOGLE_CLIENT_ID={_digits(12)}-{_s(LOWER_NUM, 32)}.apps.googleusercontent.com", tags=("auth",))
L("ordinary", "wasm-hash", "cache-busted assets", f"app.{_hex(8)}.js, vendor.{_hex(20)}.js, styles.{_hex(8)}.css", tags=("frontend",))

# --- the words password / token / secret in ordinary sentences ----------------------------------------
L("words", "token-bucket", "rate limiter design", "Use a token bucket per API key: 100 tokens, refill 10 tokens/s; the secret is keeping the bucket in Redis.",
  tags=("design",))
L("words", "password-reset-flow", "password reset flow",
  "Password reset: the link is valid for 30 minutes, the token is single-use, and the new password must differ from the last 5.", tags=("auth",))
L("words", "llm-tokens", "context budget", "max_tokens=4096 for answers; the 200k-token context fills up after ~40 files; tokenizer is o200k_base.", tags=("llm",))
L("words", "secret-santa", "team event", "Secret Santa on Dec 18: budget €20, names drawn Friday; keep your pick a secret!", tags=("team",))
L("words", "rotation-policy", "key rotation runbook",
  "Rotate the API key: create the new key, deploy it, watch errors for an hour, then revoke the old key. Tokens expire after 90 days.", tags=("runbook",))
L("words", "password-field-name", "form field naming", "The login form posts `username` and `password`; the API returns `access_token` and `refresh_token` fields.",
  tags=("api",))
L("words", "secret-manager-choice", "decision: secret manager", "Decision: secrets live in Doppler; CI gets a scoped service token at run time; nobody keeps secrets in .env files.",
  tags=("decision",))
L("words", "password-strength", "password rules", "Passwords need 12+ characters; we check them against the breached-password list (k-anonymity API).",
  tags=("auth",))
L("words", "forgot-password", "user forgot their password", "User forgot their email password again; they reset it via the recovery phone. No password was shared here.",
  tags=("personal",))
