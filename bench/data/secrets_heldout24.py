"""heldout24: a blind corpus of credential forms and look-alikes (issue 23 item 5).

Written on 2026-12-05 by the helper session blind24 WITHOUT reading the detector
(``vault_mem/**/secret*.py`` and what it imports), its tests or the earlier corpora under
``bench/data/``; measured once, untuned, on main at 3f436e7 before any fix it led to.

Every item is a memory an agent would really be asked to store (a chat, a coding session, a
curated note): ``key``, ``description``, ``body`` and ``meta`` (the frontmatter fields) go through
the write gate as they are. FORMS hold a credential and must be refused; LOOK_ALIKES hold none
(commit and object ids, UUIDs, checksums, public keys, placeholders, docs examples, hashes of
passwords, token names, redacted values, integrity hashes, colours, versions, public-by-design
keys) and must be stored. Every random value is drawn from one seeded ``random.Random`` with the
vendor's prefix, alphabet and length, so the file is reproducible and no value is a real one.

    python bench/bench_secrets.py --set heldout24 --misses
"""

from __future__ import annotations

import base64
import hashlib
import json
import string
import urllib.parse
import random

_R = random.Random(20261205_24)

HEX = "0123456789abcdef"
UHEX = "0123456789ABCDEF"
B62 = string.ascii_letters + string.digits
B64URL = B62 + "-_"
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


def _uuid() -> str:
    h = _hex(32)
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-{_R.choice('89ab')}{h[17:20]}-{h[20:]}"


def _digits(n: int) -> str:
    return str(_R.randrange(1, 10)) + _s(string.digits, n - 1)


def _jwt(payload: dict, alg: str = "HS256", sig_bytes: int = 32) -> str:
    head = _b64u(json.dumps({"alg": alg, "typ": "JWT"}, separators=(",", ":")).encode())
    body = _b64u(json.dumps(payload, separators=(",", ":")).encode())
    return f"{head}.{body}.{_b64u(_bytes(sig_bytes))}"


def _pw() -> str:
    """A password a person chose: two words, a symbol, digits, in a random shape."""
    words = ["falcon", "Harbor", "tulip", "Granite", "mango", "Velvet", "cobalt", "Juniper", "pixel",
             "Otter", "saffron", "Quartz", "ember", "Walnut", "breeze", "Marble", "lotus", "Nimbus"]
    a, b = _R.sample(words, 2)
    shape = _R.randrange(4)
    if shape == 0:
        return f"{a.capitalize()}{_R.choice('!#$%&*')}{b.lower()}{_digits(2)}"
    if shape == 1:
        return f"{a.lower()}-{b.lower()}-{_digits(_R.choice((2, 3, 4)))}"
    if shape == 2:
        return f"{a[:3]}{_digits(3)}{_R.choice('!?@#')}{b.upper()[:4]}"
    return _s(B62 + "!#%&*+=?", _R.choice((14, 16, 20)))


def _bech32_polymod(values: list[int]) -> int:
    gen = [0x3b6a57b2, 0x26508e6d, 0x1ea119fa, 0x3d4233dd, 0x2a1462b3]
    chk = 1
    for v in values:
        top = chk >> 25
        chk = (chk & 0x1ffffff) << 5 ^ v
        for i in range(5):
            chk ^= gen[i] if (top >> i) & 1 else 0
    return chk


def _bech32(hrp: str, data: bytes) -> str:
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
    return hrp + "1" + "".join(BECH32[d] for d in five + check)


def _b58check(payload: bytes) -> str:
    full = payload + hashlib.sha256(hashlib.sha256(payload).digest()).digest()[:4]
    n = int.from_bytes(full, "big")
    out = ""
    while n:
        n, r = divmod(n, 58)
        out = B58[r] + out
    return "1" * (len(full) - len(full.lstrip(b"\0"))) + out


def _mnemonic(words: int) -> str:
    ent = _bytes(words * 4 // 3)
    bits = bin(int.from_bytes(ent, "big"))[2:].zfill(len(ent) * 8)
    cs = bin(hashlib.sha256(ent).digest()[0])[2:].zfill(8)[: len(ent) * 8 // 32]
    bits += cs
    return " ".join(_BIP39[int(bits[i:i + 11], 2)] for i in range(0, len(bits), 11))


def _wrap(text: str, width: int = 64) -> str:
    return "\n".join(text[i:i + width] for i in range(0, len(text), width))


def _pem(label: str, der: bytes) -> str:
    return f"-----BEGIN {label}-----\n{_wrap(base64.b64encode(der).decode())}\n-----END {label}-----"


def _sshstr(b: bytes) -> bytes:
    return len(b).to_bytes(4, "big") + b


def _openssh_ed25519(comment: str) -> str:
    pub = _bytes(32)
    pubblob = _sshstr(b"ssh-ed25519") + _sshstr(pub)
    check = _bytes(4)
    priv = check + check + _sshstr(b"ssh-ed25519") + _sshstr(pub) + _sshstr(_bytes(32) + pub) + _sshstr(comment.encode())
    priv += bytes(range(1, 1 + (-len(priv)) % 8))
    blob = (b"openssh-key-v1\0" + _sshstr(b"none") + _sshstr(b"none") + _sshstr(b"") + (1).to_bytes(4, "big")
            + _sshstr(pubblob) + _sshstr(priv))
    return ("-----BEGIN OPENSSH PRIVATE KEY-----\n" + _wrap(base64.b64encode(blob).decode(), 70)
            + "\n-----END OPENSSH PRIVATE KEY-----")


def _ssh_pub_ed25519(comment: str) -> str:
    return "ssh-ed25519 " + base64.b64encode(_sshstr(b"ssh-ed25519") + _sshstr(_bytes(32))).decode() + " " + comment


def _der_int(b: bytes) -> bytes:
    if b[0] & 0x80:
        b = b"\0" + b
    return b"\x02" + _der_len(len(b)) + b


def _der_len(n: int) -> bytes:
    if n < 128:
        return bytes([n])
    raw = n.to_bytes((n.bit_length() + 7) // 8, "big")
    return bytes([0x80 | len(raw)]) + raw


def _der_seq(*parts: bytes) -> bytes:
    body = b"".join(parts)
    return b"\x30" + _der_len(len(body)) + body


def _rsa_der() -> bytes:
    n = b"\xc1" + _bytes(255)
    return _der_seq(_der_int(b"\0"), _der_int(n), _der_int(b"\x01\x00\x01"), _der_int(b"\x5a" + _bytes(255)),
                    _der_int(b"\xe3" + _bytes(127)), _der_int(b"\xd9" + _bytes(127)), _der_int(b"\x41" + _bytes(127)),
                    _der_int(b"\x2b" + _bytes(127)), _der_int(b"\x77" + _bytes(127)))


def _ec_der() -> bytes:
    oid = bytes.fromhex("06082a8648ce3d030107")
    return _der_seq(_der_int(b"\x01"), b"\x04\x20" + _bytes(32), b"\xa0" + _der_len(len(oid)) + oid,
                    b"\xa1\x44\x03\x42\x00\x04" + _bytes(64))


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

# ============================================================================ FORMS
# --- database platforms (Supabase, Neon, PlanetScale, Turso, Upstash) ------------------------
_ref = _s(string.ascii_lowercase, 20)
_iat = 1764000000 + _R.randrange(10**6)
F("dbsaas", "supabase-service-role-env", "Supabase env for the web app (.env.local)",
  f"Local env for the Next.js app, copied from the Supabase dashboard:\n\n```\n"
  f"NEXT_PUBLIC_SUPABASE_URL=https://{_ref}.supabase.co\n"
  f"SUPABASE_SERVICE_ROLE_KEY={_jwt({'iss': 'supabase', 'ref': _ref, 'role': 'service_role', 'iat': _iat, 'exp': _iat + 315360000})}\n```\n"
  "Service role bypasses RLS, server-side only.", tags=("supabase", "env"))
F("dbsaas", "supabase-new-secret-key", "Supabase moved us to the new API keys",
  f"Supabase rotated the project to the new key system. Backend (edge functions + cron worker) now uses "
  f"sb_secret_{_s(B64URL, 22)}_{_s(B62, 8)} instead of the service_role JWT.", tags=("supabase",))
F("dbsaas", "supabase-access-token-cli", "How CI logs into the Supabase CLI",
  f"In the deploy job: `supabase login --token sbp_{_hex(40)}` then `supabase db push --linked`.",
  tags=("supabase", "ci"))
F("dbsaas", "neon-api-key", "Neon API key used by the branch-per-PR action",
  f"The GitHub Action `neondatabase/create-branch-action` needs NEON_API_KEY; ours is napi_{_s(LOWER_NUM, 64)} "
  "(org-level, made 2026-11-20).", tags=("neon", "ci"))
F("dbsaas", "neon-connection-string", "Neon pooled connection string for prod",
  f"postgresql://neondb_owner:npg_{_s(B62, 12)}@ep-{_R.choice(['quiet', 'bold', 'misty'])}-{_R.choice(['river', 'sun', 'field'])}-"
  f"{_s(LOWER_NUM, 8)}-pooler.eu-central-1.aws.neon.tech/neondb?sslmode=require&channel_binding=require",
  tags=("neon", "postgres"))
F("dbsaas", "planetscale-service-token", "PlanetScale service token for schema deploys",
  f"PLANETSCALE_SERVICE_TOKEN_ID={_s(LOWER_NUM, 12)}\nPLANETSCALE_SERVICE_TOKEN=pscale_tkn_{_s(B64URL, 43)}\n"
  "Scoped to the `shop` database, deploy requests only.", tags=("planetscale",))
F("dbsaas", "planetscale-password-url", "DATABASE_URL for the shop service (PlanetScale)",
  f"DATABASE_URL='mysql://{_s(LOWER_NUM, 12)}:pscale_pw_{_s(B64URL, 43)}@aws.connect.psdb.cloud/shop?sslaccept=strict'",
  tags=("planetscale", "mysql"))
F("dbsaas", "turso-auth-token", "Turso database for the edge cache",
  f"TURSO_DATABASE_URL=libsql://edge-cache-acme.aws-eu-west-1.turso.io\nTURSO_AUTH_TOKEN="
  f"{_jwt({'a': 'rw', 'iat': _iat, 'id': _uuid()}, alg='EdDSA', sig_bytes=64)}", tags=("turso",))
F("dbsaas", "upstash-rest-token", "Upstash Redis REST credentials (rate limiter)",
  f"UPSTASH_REDIS_REST_URL=\"https://{_R.choice(['able', 'crisp', 'witty'])}-{_R.choice(['lamb', 'hawk', 'moth'])}-{_digits(5)}.upstash.io\"\n"
  f"UPSTASH_REDIS_REST_TOKEN=\"A{_R.choice('XYZ')}{_s(B64URL, 4)}AAIjcD{_s(B62, 50)}\"", tags=("upstash", "redis"))

# --- developer platforms (Doppler, Pulumi, Vercel, Fly.io, Netlify, Terraform, Tailscale, Render)
F("devops", "doppler-service-token", "How the worker gets its secrets in prod",
  f"The systemd unit runs `doppler run --token dp.st.prd.{_s(B62, 43)} -- ./worker` (service token for config prd).",
  tags=("doppler",))
F("devops", "doppler-personal-token", "My Doppler personal token (for the laptop)",
  f"doppler personal token, if the CLI logs out again: dp.pt.{_s(B62, 43)}", tags=("doppler",))
F("devops", "pulumi-access-token", "Pulumi token for the infra repo",
  f"export PULUMI_ACCESS_TOKEN=pul-{_hex(40)}\npulumi stack select acme/prod", tags=("pulumi",))
F("devops", "vercel-token-env", "Vercel deploy token (GitHub Actions secret)",
  f"Set VERCEL_ORG_ID=team_{_s(B62, 24)} and VERCEL_PROJECT_ID=prj_{_s(B62, 28)} as variables, and "
  f"VERCEL_TOKEN={_s(B62, 24)} as the secret.", tags=("vercel", "ci"))
F("devops", "vercel-cli-token", "Manual prod deploy from the laptop",
  f"If the GitHub integration is down: `vercel deploy --prod --token {_s(B62, 24)} --scope acme`.", tags=("vercel",))
F("devops", "flyio-token", "Fly.io deploy token for the API app",
  f"FLY_API_TOKEN=\"FlyV1 fm2_{base64.b64encode(_bytes(180)).decode()},fm2_{base64.b64encode(_bytes(120)).decode()}\"",
  tags=("fly",))
F("devops", "netlify-token", "Netlify personal access token",
  f"netlify deploy --auth nfp_{_s(B62, 40)} --prod --dir=dist", tags=("netlify",))
F("devops", "terraformrc", "~/.terraformrc for HCP Terraform",
  f"```hcl\ncredentials \"app.terraform.io\" {{\n  token = \"{_s(B62, 14)}.atlasv1.{_s(B62, 67)}\"\n}}\n```",
  tags=("terraform",))
F("devops", "tailscale-authkey", "How new build runners join the tailnet",
  f"cloud-init runs `tailscale up --authkey=tskey-auth-k{_s(B62, 11)}CNTRL-{_s(B62, 33)} --advertise-tags=tag:ci`.",
  tags=("tailscale",))
F("devops", "render-api-key", "Render API key for the preview script",
  f"scripts/preview.sh calls the Render API with `Authorization: Bearer rnd_{_s(B62, 32)}`.", tags=("render",))
F("devops", "hashicorp-vault-token", "Root-ish Vault token for the migration",
  f"wget --header=\"X-Vault-Token: hvs.{_s(B64URL, 91)}\" https://vault.acme.internal:8200/v1/secret/data/app",
  tags=("vault",))

# --- observability (Sentry, Grafana, Datadog, New Relic, PostHog, Honeycomb) ------------------
F("observ", "sentryclirc", "sentry-cli config on the build box",
  f"~/.sentryclirc:\n\n```ini\n[auth]\ntoken=sntryu_{_hex(64)}\n\n[defaults]\norg=acme\nproject=web\n```",
  tags=("sentry",))
_sentry_payload = base64.b64encode(json.dumps({"iat": _iat + 0.5, "url": "https://sentry.io", "region_url": "https://us.sentry.io",
                                                "org": "acme"}, separators=(",", ":")).encode()).decode().rstrip("=")
F("observ", "sentry-org-token", "Sentry org auth token for source maps upload",
  f"SENTRY_AUTH_TOKEN=sntrys_{_sentry_payload}_{_s(B62, 43)}", tags=("sentry",))
F("observ", "grafana-sa-token", "Grafana service account token for dashboards-as-code",
  f"grizzly config set grafana.token glsa_{_s(B62, 32)}_{_hex(8)}", tags=("grafana",))
_glc = base64.b64encode(json.dumps({"o": _digits(6), "n": "stack-" + _digits(6) + "-alloy-write", "k": _s(B62, 24),
                                    "m": {"r": "prod-eu-west-2"}}, separators=(",", ":")).encode()).decode()
F("observ", "grafana-cloud-token", "Grafana Cloud access policy token (Alloy)",
  f"In config.alloy the basic_auth password is glc_{_glc} and the username is the stack's instance id.",
  tags=("grafana",))
F("observ", "datadog-keys", "Datadog keys for the terraform provider",
  f"```hcl\nprovider \"datadog\" {{\n  api_key = \"{_hex(32)}\"\n  app_key = \"{_hex(40)}\"\n  api_url = \"https://api.datadoghq.eu/\"\n}}\n```",
  tags=("datadog",))
F("observ", "newrelic-user-key", "New Relic user key for NerdGraph",
  f"NerdGraph calls need `API-Key: NRAK-{_s(UPPER_NUM, 27)}` (user key, not the license key).", tags=("newrelic",))
F("observ", "posthog-personal-key", "PostHog personal API key for the export script",
  f"export POSTHOG_PERSONAL_API_KEY=phx_{_s(B62, 47)}", tags=("posthog",))
F("observ", "honeycomb-header", "Sending OTLP to Honeycomb",
  f"OTEL_EXPORTER_OTLP_HEADERS=\"x-honeycomb-team={_s(B62, 22)}\"", tags=("honeycomb", "otel"))

# --- AI platforms ------------------------------------------------------------------------------
F("ai", "anthropic-key-env", "Anthropic key for the eval harness",
  f"ANTHROPIC_API_KEY=sk-ant-api03-{_s(B64URL, 93)}AA", tags=("anthropic",))
F("ai", "anthropic-admin-key", "Anthropic admin key (usage reports)",
  f"The admin key for the cost dashboard is sk-ant-admin01-{_s(B64URL, 93)}AA; only the finance script uses it.",
  tags=("anthropic",))
F("ai", "openai-project-key", "OpenAI key for the support bot project",
  f"OPENAI_API_KEY=\"sk-proj-{_s(B64URL, 74)}T3BlbkFJ{_s(B64URL, 74)}\"", tags=("openai",))
F("ai", "openai-svcacct-key", "OpenAI service account key (batch jobs)",
  f"batch runner: client = OpenAI(api_key=\"sk-svcacct-{_s(B64URL, 74)}T3BlbkFJ{_s(B64URL, 74)}\")", tags=("openai",))
F("ai", "huggingface-token", "HF token for gated Llama weights",
  f"huggingface-cli login --token hf_{_s(string.ascii_letters, 34)}", tags=("huggingface",))
F("ai", "replicate-token", "Replicate token for the image pipeline",
  f"REPLICATE_API_TOKEN=r8_{_s(B62, 37)}", tags=("replicate",))
F("ai", "groq-key", "Groq key for the fast classifier",
  f"user said: use my groq key gsk_{_s(B62, 52)} for the intent classifier until the org one exists",
  tags=("groq",))
F("ai", "openrouter-key", "OpenRouter key in the aider config",
  f"~/.aider.conf.yml\n\n```yaml\nopenrouter-api-key: sk-or-v1-{_hex(64)}\nmodel: openrouter/anthropic/claude-sonnet-4.5\n```",
  tags=("openrouter", "aider"))
F("ai", "langsmith-key", "LangSmith tracing env",
  f"LANGSMITH_TRACING=true\nLANGSMITH_API_KEY=lsv2_pt_{_hex(32)}_{_hex(10)}\nLANGSMITH_PROJECT=support-bot", tags=("langsmith",))
F("ai", "pinecone-key", "Pinecone key for the RAG index",
  f"pc = Pinecone(api_key=\"pcsk_{_s(B62, 5)}_{_s(B62, 63)}\")  # index: docs-v3", tags=("pinecone",))
F("ai", "xai-key", "xAI key for grok experiments",
  f"XAI_API_KEY=xai-{_s(B62, 80)}", tags=("xai",))

# --- data platforms (Databricks, Snowflake) -----------------------------------------------------
F("data", "databrickscfg", "~/.databrickscfg for the prod workspace",
  f"```ini\n[DEFAULT]\nhost  = https://adb-{_digits(16)}.{_R.randrange(1, 20)}.azuredatabricks.net\ntoken = dapi{_hex(32)}-2\n```",
  tags=("databricks",))
F("data", "databricks-token-prose", "Databricks token for the ETL job",
  f"dbx token for the nightly ETL job (expires in 90 days): dapi{_hex(32)}", tags=("databricks",))
F("data", "databricks-oauth-secret", "Databricks service principal OAuth secret",
  f"DATABRICKS_CLIENT_ID={_uuid()}\nDATABRICKS_CLIENT_SECRET=dose{_hex(32)}", tags=("databricks",))
F("data", "snowflake-connections-toml", "Snowflake CLI connection for prod",
  f"~/.snowflake/connections.toml\n\n```toml\n[prod]\naccount = \"{_s(string.ascii_lowercase, 2)}{_digits(5)}.eu-west-1\"\n"
  f"user = \"ETL_SVC\"\npassword = \"{_pw()}\"\nwarehouse = \"TRANSFORM_WH\"\nrole = \"TRANSFORMER\"\n```",
  tags=("snowflake",))
F("data", "snowsql-config", "snowsql config on the analytics VM",
  f"[connections.analytics]\naccountname = acme-analytics\nusername = looker_svc\npassword = {_pw()}\ndbname = MARTS",
  tags=("snowflake",))
F("data", "snowflake-key-passphrase", "Key-pair auth for the dbt Snowflake user",
  f"dbt profile uses private_key_path: ~/.ssh/snowflake_rsa_key.p8 and private_key_passphrase: '{_pw()}'",
  tags=("snowflake", "dbt"))

# --- messaging and email (Twilio, SendGrid, Mailgun, Postmark, Resend, Slack) -------------------
F("comms", "twilio-auth-token", "Twilio creds for SMS alerts",
  f"TWILIO_ACCOUNT_SID=AC{_hex(32)}\nTWILIO_AUTH_TOKEN={_hex(32)}\nTWILIO_FROM=+14155550123", tags=("twilio",))
F("comms", "twilio-api-key-secret", "Twilio API key for the voice service",
  f"We use an API key instead of the auth token: SID SK{_hex(32)}, secret {_s(B62, 32)}.", tags=("twilio",))
F("comms", "sendgrid-key", "SendGrid key for transactional mail",
  f"SENDGRID_API_KEY=SG.{_s(B64URL, 22)}.{_s(B64URL, 43)}", tags=("sendgrid",))
F("comms", "mailgun-curl", "Test a Mailgun send from the shell",
  f"curl -s --user 'api:key-{_hex(32)}' https://api.eu.mailgun.net/v3/mg.acme.io/messages -F from='ops@mg.acme.io' "
  "-F to=me@acme.io -F subject=test -F text=hi", tags=("mailgun",))
F("comms", "mailgun-new-key", "Mailgun sending key (new format)",
  f"MAILGUN_API_KEY={_hex(32)}-{_hex(8)}-{_hex(8)}\nMAILGUN_DOMAIN=mg.acme.io", tags=("mailgun",))
F("comms", "postmark-server-token", "Postmark server token for receipts",
  f"Requests to api.postmarkapp.com/email carry `X-Postmark-Server-Token: {_uuid()}` (server: Receipts).",
  tags=("postmark",))
F("comms", "resend-key", "Resend key for the newsletter",
  f"const resend = new Resend('re_{_s(B62, 8)}_{_s(B62, 24)}');", tags=("resend",))
F("comms", "slack-bot-token", "Slack bot token for the deploy notifier",
  f"SLACK_BOT_TOKEN=xoxb-{_digits(11)}-{_digits(13)}-{_s(B62, 24)}", tags=("slack",))
F("comms", "slack-app-token", "Slack socket-mode app token",
  f"socket mode needs the app-level token xapp-1-A{_s(UPPER_NUM, 10)}-{_digits(13)}-{_hex(64)}", tags=("slack",))

# --- commerce and payments (Shopify, Square, Plaid, Stripe) -------------------------------------
F("commerce", "shopify-admin-token", "Shopify admin API token (custom app)",
  f"X-Shopify-Access-Token: shpat_{_hex(32)} for acme-store.myshopify.com, scopes read_orders,write_products",
  tags=("shopify",))
F("commerce", "shopify-shared-secret", "Shopify app API secret for webhook HMAC",
  f"SHOPIFY_API_KEY={_hex(32)}\nSHOPIFY_API_SECRET=shpss_{_hex(32)}", tags=("shopify",))
F("commerce", "square-prod-token", "Square production access token",
  f"square prod access token (POS sync): EAAA{_s(B64URL, 60)}", tags=("square",))
F("commerce", "square-oauth-secret", "Square OAuth app secret",
  f"SQUARE_APPLICATION_ID=sq0idp-{_s(B64URL, 22)}\nSQUARE_APPLICATION_SECRET=sq0csp-{_s(B64URL, 43)}", tags=("square",))
F("commerce", "plaid-keys", "Plaid keys (production)",
  f"PLAID_CLIENT_ID={_hex(24)}\nPLAID_SECRET={_hex(30)}\nPLAID_ENV=production", tags=("plaid",))
F("commerce", "plaid-access-token", "Plaid access token for my checking account",
  f"The budget script stores my bank link as access-production-{_uuid()} (item for Chase checking).",
  tags=("plaid", "personal"))
F("commerce", "stripe-restricted-key", "Stripe restricted key for the reporting job",
  f"STRIPE_KEY=rk_live_51{_s(B62, 97)}", tags=("stripe",))
F("commerce", "stripe-webhook-secret", "Stripe webhook signing secret (prod endpoint)",
  f"endpoint we_{_s(B62, 24)} signs with whsec_{_s(B62, 32)}", tags=("stripe",))

# --- work tools (Atlassian, Bitbucket, Linear, Asana, Airtable, Notion, Trello, ClickUp) -----------
F("worktools", "atlassian-api-token", "Jira CLI config",
  f"~/.config/.jira/.config.yml\n\n```yaml\nserver: https://acme.atlassian.net\nlogin: dev@acme.io\n"
  f"api_token: ATATT3xFfGF0{_s(B64URL, 170)}={_hex(8).upper()}\n```", tags=("jira", "atlassian"))
F("worktools", "bitbucket-app-password-url", "Bitbucket remote for the legacy repo",
  f"git remote set-url origin https://ci-bot:ATBB{_s(B62, 32)}{_hex(8).upper()}@bitbucket.org/acme/legacy-billing.git",
  tags=("bitbucket",))
F("worktools", "bitbucket-app-password-prose", "Bitbucket app password for Sourcetree",
  f"Sourcetree wants the app password, not my Atlassian password: {_s(B62, 20)}", tags=("bitbucket",))
F("worktools", "linear-api-key", "Linear key for the triage bot",
  f"LINEAR_API_KEY=lin_api_{_s(B62, 40)}", tags=("linear",))
F("worktools", "asana-pat", "Asana PAT for the weekly report",
  f"asana personal access token: 2/{_digits(16)}/{_digits(16)}:{_hex(32)}", tags=("asana",))
F("worktools", "airtable-pat", "Airtable token for the CRM sync",
  f"Authorization: Bearer pat{_s(B62, 14)}.{_hex(64)}", tags=("airtable",))
F("worktools", "notion-token", "Notion integration secret for the docs importer",
  f"NOTION_TOKEN=ntn_{_digits(11)}{_s(B62, 35)}", tags=("notion",))
F("worktools", "trello-token", "Trello key and token for the butler script",
  f"trello key {_hex(32)} / token ATTA{_hex(64)}{_hex(8).upper()}", tags=("trello",))
F("worktools", "clickup-token", "ClickUp personal token",
  f"CLICKUP_TOKEN=pk_{_digits(8)}_{_s(UPPER_NUM, 32)}", tags=("clickup",))

# --- cloud (Azure, GCP, AWS session, Cloudflare) -------------------------------------------------
_sig = urllib.parse.quote(_b64(32), safe="")
F("cloud", "azure-sas-url", "SAS URL the backup job writes to",
  f"https://acmebackups.blob.core.windows.net/nightly?sv=2024-11-04&ss=b&srt=co&sp=rwdlacx&se=2027-01-31T17:00:00Z"
  f"&st=2026-12-01T09:00:00Z&spr=https&sig={_sig}", tags=("azure", "backup"))
F("cloud", "azure-storage-connstr", "Azure storage connection string (functions)",
  f"AzureWebJobsStorage=DefaultEndpointsProtocol=https;AccountName=acmefuncs01;AccountKey={_b64(64)};EndpointSuffix=core.windows.net",
  tags=("azure",))
F("cloud", "azure-servicebus-connstr", "Service Bus connection for the order events",
  f"Endpoint=sb://acme-orders.servicebus.windows.net/;SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey={_b64(32)}",
  tags=("azure", "servicebus"))
F("cloud", "azure-client-secret", "Service principal for the deploy pipeline",
  f"AZURE_CLIENT_ID={_uuid()}\nAZURE_TENANT_ID={_uuid()}\nAZURE_CLIENT_SECRET={_s(B62, 3)}8Q~{_s(B62 + '.~_-', 34)}",
  tags=("azure",))
_gcp_pem = _pem("PRIVATE KEY", _der_seq(_der_int(b"\0"), bytes.fromhex("300d06092a864886f70d0101010500"),
                                        b"\x04\x82\x04\xa8" + _rsa_der()[:1192]))
F("cloud", "gcp-sa-json", "Service account key for the BigQuery loader",
  "```json\n" + json.dumps({"type": "service_account", "project_id": "acme-analytics-prod", "private_key_id": _hex(40),
                            "private_key": _gcp_pem + "\n", "client_email": "bq-loader@acme-analytics-prod.iam.gserviceaccount.com",
                            "client_id": _digits(21), "token_uri": "https://oauth2.googleapis.com/token"}, indent=2) + "\n```",
  tags=("gcp",))
F("cloud", "gcp-sa-fields", "Which key the loader uses (GCP)",
  f"bq-loader@acme-analytics-prod.iam.gserviceaccount.com, \"private_key_id\": \"{_hex(40)}\", client_id {_digits(21)}; "
  "rotate before 2027-03.", tags=("gcp",))
F("cloud", "gcp-oauth-client-secret", "Google OAuth client for the admin login",
  f"GOOGLE_CLIENT_ID={_digits(12)}-{_s(LOWER_NUM, 32)}.apps.googleusercontent.com\nGOOGLE_CLIENT_SECRET=GOCSPX-{_s(B64URL, 28)}",
  tags=("gcp", "oauth"))
F("cloud", "gcp-server-api-key", "Server-side Maps key (geocoding worker)",
  f"The geocoding worker uses the unrestricted server key AIza{_s(B64URL, 35)} (do not ship to the browser).",
  tags=("gcp",))
F("cloud", "aws-session-credentials-file", "Temporary AWS creds from the SSO role",
  f"```ini\n[prod-admin]\naws_access_key_id = ASIA{_s(UPPER_NUM, 16)}\naws_secret_access_key = {_s(B62 + '+/', 40)}\n"
  f"aws_session_token = IQoJb3JpZ2luX2VjE{_s(B62 + '+/', 600)}==\n```", tags=("aws",))
F("cloud", "aws-sts-json", "Output of aws sts assume-role (for the migration)",
  json.dumps({"Credentials": {"AccessKeyId": "ASIA" + _s(UPPER_NUM, 16), "SecretAccessKey": _s(B62 + "+/", 40),
                              "SessionToken": "FwoGZXIvYXdzE" + _s(B62 + "+/", 300), "Expiration": "2026-12-05T11:02:44+00:00"},
              "AssumedRoleUser": {"Arn": "arn:aws:sts::123456789012:assumed-role/migrator/me"}}, indent=2), tags=("aws",))
F("cloud", "cloudflare-api-token", "wrangler token for the workers repo",
  f"CLOUDFLARE_ACCOUNT_ID={_hex(32)}\nCLOUDFLARE_API_TOKEN={_s(B64URL, 40)}", tags=("cloudflare",))
F("cloud", "cloudflare-global-key", "Purging the cache by hand",
  f"curl -X POST https://api.cloudflare.com/client/v4/zones/{_hex(32)}/purge_cache -H 'X-Auth-Email: ops@acme.io' "
  f"-H 'X-Auth-Key: {_hex(37)}' --data '{{\"purge_everything\":true}}'", tags=("cloudflare",))
_tunnel = base64.b64encode(json.dumps({"a": _hex(32), "t": _uuid(), "s": _b64(32)}, separators=(",", ":")).encode()).decode()
F("cloud", "cloudflare-tunnel-token", "Tunnel for the home lab",
  f"docker run cloudflare/cloudflared:latest tunnel --no-autoupdate run --token {_tunnel}", tags=("cloudflare", "homelab"))
F("cloud", "cloudflare-r2-keys", "R2 bucket keys for the asset uploader",
  f"R2 access key id {_hex(32)}\nR2 secret access key {_hex(64)}\nendpoint https://{_hex(32)}.r2.cloudflarestorage.com",
  tags=("cloudflare", "r2"))

# --- passwords in prose, several languages -------------------------------------------------------
F("prose", "en-nas", "NAS admin password changed",
  f"The NAS admin password is now {_pw()} (changed after the DSM 7.3 update).", tags=("homelab",))
F("prose", "fr-box", "Mot de passe de la box",
  f"Mot de passe de l'interface de la Freebox : {_pw()}", tags=("maison",))
F("prose", "de-wlan", "WLAN im Büro",
  f"Das WLAN-Passwort im Büro lautet {_pw()} — bitte nicht an Gäste weitergeben.", tags=("büro",))
F("prose", "es-router", "Contraseña del router",
  f"La contraseña del router de casa es {_pw()}", tags=("casa",))
F("prose", "pt-banco", "Senha do internet banking",
  f"senha do internet banking (Itaú): {_pw()}", tags=("banco",))
F("prose", "it-vpn", "Password VPN aziendale",
  f"La password della VPN aziendale è {_pw()}, scade a marzo.", tags=("lavoro",))
F("prose", "nl-backup", "Wachtwoord backup-schijf",
  f"wachtwoord voor de versleutelde backup-schijf: '{_pw()}'", tags=("backup",))
F("prose", "pl-root", "Hasło roota na serwerze",
  f"hasło do konta root na serwerze vps-01 to {_pw()}", tags=("serwer",))
F("prose", "ja-wifi", "社内Wi-Fi",
  f"社内Wi-Fiのパスワードは {_s(B62, 12)} です。", tags=("wifi",))
F("prose", "zh-server", "服务器root密码",
  f"测试服务器 root 密码：{_pw()}", tags=("服务器",))
F("prose", "ru-mail", "Пароль от почты",
  f"пароль от рабочей почты: {_pw()}", tags=("почта",))
F("prose", "tr-wifi", "Ev interneti şifresi",
  f"Modem arayüzü şifresi: {_pw()}", tags=("ev",))
F("prose", "en-lowercase-chat", "GitHub password (user asked to remember)",
  f"user: remember my github password in case i forget it, it's {_R.choice(['bluefinch', 'redkite', 'greyheron'])}{_digits(2)}{_R.choice(['tango', 'delta', 'oscar'])}",
  tags=("personal",), source="agent")
F("prose", "en-passphrase", "Master password for the password manager",
  f"My Bitwarden master password is \"{' '.join(_R.sample(['paper', 'lantern', 'orbit', 'cactus', 'violet', 'anchor', 'marble', 'drift'], 4))} {_digits(1)}\"",
  tags=("personal",))
F("prose", "en-keypad-code", "Garage keypad code",
  f"The garage door keypad code is {_digits(6)}, the gate one is the same plus #.", tags=("home",))

# --- credentials in URLs and DSNs ------------------------------------------------------------------
F("url", "rediss", "Redis for the job queue",
  f"REDIS_URL=rediss://default:{_s(B62, 32)}@eu1-crisp-lamb-{_digits(5)}.upstash.io:6379", tags=("redis",))
F("url", "amqps", "RabbitMQ for order events",
  f"amqps://svc_orders:{_pw()}@rabbit.internal.acme.io:5671/prod", tags=("rabbitmq",))
F("url", "mongodb-srv", "Atlas connection for the analytics service",
  f"mongodb+srv://analytics:{_s(B62, 16)}@cluster0.{_s(LOWER_NUM, 5)}.mongodb.net/?retryWrites=true&w=majority",
  tags=("mongodb",))
F("url", "pip-index-basic", "Private PyPI index in pip.conf",
  f"[global]\nindex-url = https://ci-bot:{_pw()}@nexus.corp.acme.io/repository/pypi-all/simple", tags=("pip",))
F("url", "gitlab-deploy-token", "Clone URL the build uses for infra",
  f"https://gitlab+deploy-token-{_digits(7)}:gldt-{_s(B64URL, 20)}@gitlab.com/acme/infra.git", tags=("gitlab",))
F("url", "ftp-backup", "FTP target for the camera backups",
  f"ftp://backup:{_pw()}@192.168.1.40/volume1/cams/", tags=("homelab",))
F("url", "smb-share", "Mount the finance share",
  f"smb://ACME;jdoe:{_pw()}@fs01.acme.local/finance", tags=("smb",))
F("url", "discord-webhook", "Discord webhook for build alerts",
  f"https://discord.com/api/webhooks/{_digits(19)}/{_s(B64URL, 68)}", tags=("discord",))
F("url", "telegram-bot-url", "Telegram bot alert endpoint",
  f"curl -s \"https://api.telegram.org/bot{_digits(10)}:AA{_s(B64URL, 33)}/sendMessage?chat_id=-100{_digits(10)}&text=disk+full\"",
  tags=("telegram",))
F("url", "jdbc-sqlserver", "ERP database JDBC URL",
  f"jdbc:sqlserver://erp-db01:1433;databaseName=ERP;user=sa;password={_pw()};encrypt=true;trustServerCertificate=true",
  tags=("sqlserver",))
F("url", "query-apikey", "Weather API call for the dashboard",
  f"https://api.openweathermap.org/data/3.0/onecall?lat=52.37&lon=4.89&appid={_hex(32)}&units=metric", tags=("weather",))
F("url", "urlencoded-password", "Postgres DSN with an escaped password",
  f"postgres://app:{urllib.parse.quote(_pw() + '@!', safe='')}@db.prod.acme.internal:5432/app", tags=("postgres",))

# --- commands ------------------------------------------------------------------------------------
F("cmd", "curl-bearer", "Calling the internal billing API",
  f"curl -H \"Authorization: Bearer {_s(B64URL, 48)}\" https://billing.internal.acme.io/v2/invoices?status=open",
  tags=("api",))
F("cmd", "httpie-header", "httpie call to the jobs API",
  f"http POST https://jobs.acme.io/v2/run X-API-Key:{_s(B62, 32)} name=reindex", tags=("api",))
F("cmd", "curl-user-pass", "Jenkins job trigger",
  f"curl -X POST -u deploy:{_hex(34)} https://jenkins.acme.io/job/web/buildWithParameters?ENV=prod", tags=("jenkins",))
F("cmd", "docker-login", "Log in to the GitLab registry",
  f"docker login registry.gitlab.com -u deploy-bot -p {_pw()}", tags=("docker",))
F("cmd", "pgpassword", "Connect to the reporting replica",
  f"PGPASSWORD='{_pw()}' psql -h replica.db.acme.internal -U reporting -d warehouse", tags=("postgres",))
F("cmd", "mysql-p", "MySQL root shell on the legacy box",
  f"mysql -h 10.0.3.12 -u root -p'{_pw()}' shop_legacy", tags=("mysql",))
F("cmd", "kubectl-literal", "Create the DB secret in the cluster",
  f"kubectl -n prod create secret generic orders-db --from-literal=username=orders --from-literal=password='{_pw()}'",
  tags=("k8s",))
F("cmd", "az-login-sp", "Log in as the deploy service principal",
  f"az login --service-principal -u {_uuid()} -p {_s(B62, 3)}8Q~{_s(B62 + '.~_-', 34)} --tenant {_uuid()}",
  tags=("azure",))
F("cmd", "npm-config-token", "Publish from the laptop",
  f"npm config set //registry.npmjs.org/:_authToken npm_{_s(B62, 36)}", tags=("npm",))
F("cmd", "sshpass", "Push config to the switch",
  f"sshpass -p '{_pw()}' ssh admin@10.0.0.2 'copy run start'", tags=("network",))
F("cmd", "gh-secret-set", "Set the deploy key in GitHub",
  f"gh secret set FLY_API_TOKEN --body \"fo1_{_s(B64URL, 43)}\"", tags=("github", "fly"))

# --- config files of many syntaxes ----------------------------------------------------------------
F("config", "netrc-heroku", "~/.netrc for the Heroku CLI",
  f"machine api.heroku.com\n  login me@acme.io\n  password {_uuid()}\nmachine git.heroku.com\n  login me@acme.io\n  password {_uuid()}",
  tags=("heroku",))
F("config", "pgpass", "~/.pgpass on the bastion",
  f"db.prod.acme.internal:5432:orders:orders_rw:{_pw()}", tags=("postgres",))
F("config", "compose-yaml", "docker-compose for the local stack",
  f"```yaml\nservices:\n  db:\n    image: postgres:17\n    environment:\n      POSTGRES_USER: app\n      POSTGRES_PASSWORD: {_pw()}\n```",
  tags=("docker",))
F("config", "smtp-toml", "SMTP settings for the alerting service",
  f"[smtp]\nhost = \"smtp.fastmail.com\"\nport = 465\nusername = \"alerts@acme.io\"\npassword = \"{_s(LOWER_NUM, 16)}\"",
  tags=("smtp",))
F("config", "rclone-b2", "rclone remote for B2 backups",
  f"[b2]\ntype = b2\naccount = 00{_hex(23)}\nkey = K00{_s(B62, 28)}\nhard_delete = true", tags=("rclone", "backblaze"))
F("config", "maven-settings", "Maven settings.xml server entry",
  f"<server>\n  <id>acme-releases</id>\n  <username>deployer</username>\n  <password>{_pw()}</password>\n</server>",
  tags=("maven",))
F("config", "spring-properties", "application-prod.properties",
  f"spring.datasource.url=jdbc:postgresql://db:5432/app\nspring.datasource.username=app\nspring.datasource.password={_pw()}",
  tags=("spring",))
F("config", "npmrc-auth", ".npmrc for the private registry",
  f"//npm.acme.io/:_auth={base64.b64encode(('ci:' + _pw()).encode()).decode()}\nalways-auth=true", tags=("npm",))
F("config", "docker-config-json", "~/.docker/config.json on the runner",
  json.dumps({"auths": {"ghcr.io": {"auth": base64.b64encode(("acme-bot:" + "ghp_" + _s(B62, 36)).encode()).decode()}}}, indent=2),
  tags=("docker",))
F("config", "kubeconfig-token", "kubeconfig user for the staging cluster",
  f"users:\n- name: staging-admin\n  user:\n    token: {_jwt({'iss': 'kubernetes/serviceaccount', 'sub': 'system:serviceaccount:kube-system:admin'}, alg='RS256', sig_bytes=256)}",
  tags=("k8s",))
F("config", "wp-config", "WordPress wp-config.php DB block",
  f"define( 'DB_NAME', 'wp_blog' );\ndefine( 'DB_USER', 'wp_blog' );\ndefine( 'DB_PASSWORD', '{_pw()}' );\ndefine( 'DB_HOST', 'localhost' );",
  tags=("wordpress",))
F("config", "rails-secret-key-base", "Rails prod secret for the legacy app",
  f"SECRET_KEY_BASE={_hex(128)}", tags=("rails",))
F("config", "django-settings", "Django settings on the old server",
  f"SECRET_KEY = '{_s(string.ascii_lowercase + string.digits + '!@#$%^&*(-_=+)', 50)}'\nDEBUG = False", tags=("django",))
F("config", "ini-ldap", "LDAP bind for the wiki",
  f"[ldap]\nurl = ldaps://ldap.acme.local\nbind_dn = cn=wiki,ou=svc,dc=acme,dc=local\nbind_pw = {_pw()}", tags=("ldap",))

# --- JWTs, cookies and session ids -----------------------------------------------------------------
F("session", "jwt-prose", "Bearer token copied from devtools",
  f"here's the bearer from devtools for reproducing the 403: {_jwt({'sub': _uuid(), 'email': 'me@acme.io', 'role': 'admin', 'exp': _iat + 86400})}",
  tags=("debug",), source="agent")
F("session", "cookie-header", "Cookie that reproduces the checkout bug",
  f"Cookie: sessionid={_s(LOWER_NUM, 32)}; csrftoken={_s(B62, 32)}", tags=("debug",))
F("session", "express-sid", "Session cookie for the admin panel",
  f"connect.sid=s%3A{_s(B64URL, 32)}.{urllib.parse.quote(_b64(32).rstrip('='), safe='')}", tags=("debug",))
F("session", "rails-session", "Rails session cookie (staging)",
  f"_shop_session={_b64(96)}--{_hex(40)}", tags=("rails",))
F("session", "oauth-response", "Tokens from the OAuth dance (for the integration test)",
  json.dumps({"access_token": _jwt({"sub": _digits(9), "scope": "read write", "exp": _iat + 3600}, alg="RS256", sig_bytes=256),
              "refresh_token": _s(B64URL, 64), "token_type": "Bearer", "expires_in": 3600}, indent=2), tags=("oauth",))
F("session", "phpsessid", "Logged-in session for scraping the old intranet",
  f"document.cookie = 'PHPSESSID={_s(LOWER_NUM, 26)}'", tags=("intranet",))

# --- one-time password seeds and recovery codes ---------------------------------------------------
F("otp", "otpauth-uri", "2FA for the shared ops account",
  f"otpauth://totp/GitHub:acme-ops?secret={_s(B32, 32)}&issuer=GitHub", tags=("2fa",))
F("otp", "totp-seed-grouped", "Root account MFA seed",
  f"AWS root MFA seed (manual entry): {' '.join(_s(B32, 4) for _ in range(16))}", tags=("aws", "2fa"))
F("otp", "github-recovery-codes", "GitHub recovery codes",
  "github-recovery-codes.txt:\n" + "\n".join(f"{_hex(5)}-{_hex(5)}" for _ in range(16)), tags=("2fa",))
F("otp", "google-backup-codes", "Google backup codes",
  "BACKUP VERIFICATION CODES\n" + "\n".join(f"{_digits(4)} {_s(string.digits, 4)}" for _ in range(10)), tags=("2fa",))
F("otp", "totp-lowercase-spaced", "2FA key for the bank",
  f"bank 2fa setup key, lowercase as shown: {' '.join(_s(B32.lower(), 4) for _ in range(8))}", tags=("2fa",))
F("otp", "onepassword-secret-key", "1Password Secret Key (emergency kit)",
  f"Secret Key: A3-{_s(UPPER_NUM, 6)}-{_s(UPPER_NUM, 6)}-{_s(UPPER_NUM, 5)}-{_s(UPPER_NUM, 5)}-{_s(UPPER_NUM, 5)}-{_s(UPPER_NUM, 5)}",
  tags=("1password",))
F("otp", "bitwarden-recovery", "Bitwarden two-step recovery code",
  f"bitwarden 2fa recovery code: {_s(B32, 32)}", tags=("bitwarden",))

# --- private keys of every kind --------------------------------------------------------------------
F("privkey", "openssh-ed25519", "Deploy key for the docs server",
  _openssh_ed25519("deploy@docs"), tags=("ssh",))
F("privkey", "rsa-pkcs1", "Old RSA key for the SFTP partner",
  _pem("RSA PRIVATE KEY", _rsa_der()), tags=("sftp",))
F("privkey", "pkcs8-encrypted", "Encrypted PKCS#8 key for the Snowflake user",
  _pem("ENCRYPTED PRIVATE KEY", bytes.fromhex("3082050e304006092a864886f70d01050d3033301b06092a864886f70d01050c300e0408") + _bytes(1250)),
  tags=("snowflake",))
F("privkey", "ec-key", "ES256 signing key for the license server",
  _pem("EC PRIVATE KEY", _ec_der()), tags=("license",))
F("privkey", "pgp-private-block", "My PGP secret key export",
  "-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n" + _wrap("lQdGBGc" + base64.b64encode(_bytes(900)).decode()) + "\n=" + _s(B62, 4)
  + "\n-----END PGP PRIVATE KEY BLOCK-----", tags=("pgp",))
F("privkey", "age-secret-key", "age key for the sops-encrypted secrets",
  f"# created: 2026-11-02T10:14:03+01:00\n# public key: {_bech32('age', _bytes(32))}\n"
  f"{_bech32('age-secret-key-', _bytes(32)).upper()}", tags=("age", "sops"))
F("privkey", "putty-ppk", "PuTTY key for the Windows jump host",
  "PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nComment: eddsa-key-20261104\nPublic-Lines: 2\n"
  + _wrap(base64.b64encode(_sshstr(b"ssh-ed25519") + _sshstr(_bytes(32))).decode()) + "\nPrivate-Lines: 1\n"
  + base64.b64encode(_sshstr(_bytes(32))).decode() + f"\nPrivate-MAC: {_hex(64)}", tags=("putty",))
F("privkey", "wireguard-private", "WireGuard config for the home VPN",
  f"[Interface]\nPrivateKey = {_b64(32)}\nAddress = 10.8.0.2/24\nDNS = 10.8.0.1\n\n[Peer]\nPublicKey = {_b64(32)}\n"
  "Endpoint = vpn.example-home.net:51820\nAllowedIPs = 0.0.0.0/0", tags=("wireguard",))
F("privkey", "minisign-secret", "minisign key that signs the releases",
  f"untrusted comment: minisign encrypted secret key\nRWRTY0Iy{base64.b64encode(_bytes(152)).decode()}", tags=("minisign",))
F("privkey", "jwk-private", "JWK for the token signer (staging)",
  json.dumps({"kty": "EC", "crv": "P-256", "kid": "stg-2026-11", "x": _b64u(_bytes(32)), "y": _b64u(_bytes(32)),
              "d": _b64u(_bytes(32))}), tags=("jwk",))
F("privkey", "pem-in-env-escaped", "Private key in the env of the GitHub App",
  "GITHUB_APP_PRIVATE_KEY=\"" + _pem("RSA PRIVATE KEY", _rsa_der()).replace("\n", "\\n") + "\"", tags=("github",))

# --- crypto wallets ---------------------------------------------------------------------------------
F("wallet", "bip39-12-labelled", "Ledger seed phrase",
  f"seed phrase for the ledger: {_mnemonic(12)}", tags=("crypto",))
F("wallet", "bip39-24-numbered", "Recovery words for the cold wallet",
  "\n".join(f"{i}. {w}" for i, w in enumerate(_mnemonic(24).split(), 1)), tags=("crypto",))
F("wallet", "bip39-12-unlabelled-lines", "metamask backup",
  "\n".join(_mnemonic(12).split()), tags=("crypto",))
F("wallet", "eth-private-key", "Deployer wallet for the testnet contracts",
  f"DEPLOYER_PRIVATE_KEY=0x{_hex(64)}", tags=("crypto", "hardhat"))
_wif = _b58check(b"\x80" + _bytes(32) + b"\x01")
F("wallet", "btc-wif", "Paper wallet key (compressed WIF)",
  f"paper wallet from 2017, WIF: {_wif}", tags=("crypto",))
F("wallet", "solana-keypair", "Solana deploy keypair (id.json)",
  json.dumps([_R.randrange(256) for _ in range(64)]), tags=("crypto", "solana"))
F("wallet", "nostr-nsec", "My nostr key",
  f"nostr: {_bech32('nsec', _bytes(32))}", tags=("nostr",))
F("wallet", "bip39-prose-sentence", "Seed words the user dictated",
  f"user dictated the recovery words for the old Trezor, in order: {', '.join(_mnemonic(12).split())}.", tags=("crypto",),
  source="agent")

# --- credentials split across lines or fields ------------------------------------------------------
F("split", "meta-key-id-body-secret", "AWS key for the backup bucket",
  f"secret: {_s(B62 + '+/', 40)}\n(region eu-west-1, bucket acme-backups)", tags=("aws",),
  aws_access_key_id="AKIA" + _s(UPPER_NUM, 16))
F("split", "meta-api-key-field", "Mistral for the summariser",
  "Summariser uses Mistral small; the key is in the api_key field of this note.", tags=("mistral",),
  api_key=_s(B62, 32))
_half = _s(B62, 40)
F("split", "token-in-two-halves", "Admin token for the staging console",
  f"token is long, pasted in two parts:\npart 1: {_half[:20]}\npart 2: {_half[20:]}", tags=("staging",))
F("split", "markdown-table", "Logins for the lab machines",
  f"| host | user | password |\n|---|---|---|\n| lab-01 | admin | {_pw()} |\n| lab-02 | admin | {_pw()} |", tags=("lab",))
F("split", "label-next-line", "Router login",
  f"- Username: admin\n- Password:\n  `{_pw()}`", tags=("home",))
F("split", "description-user-body-pw", "Staging Grafana login is admin / see body",
  f"{_pw()}", tags=("grafana",))
F("split", "wrapped-long-key", "Anthropic key wrapped by the chat window",
  "ANTHROPIC_API_KEY=\n" + _wrap(f"sk-ant-api03-{_s(B64URL, 93)}AA", 36), tags=("anthropic",))
F("split", "spaced-groups", "License server shared secret",
  f"license server shared secret (read out on the call): {' '.join(_s(UPPER_NUM, 5) for _ in range(8))}", tags=("license",))

# --- base64 and other wrappings -------------------------------------------------------------------
F("encoded", "basic-auth-header", "Authorization header for the legacy SOAP API",
  f"Authorization: Basic {base64.b64encode(('svc_soap:' + _pw()).encode()).decode()}", tags=("soap",))
F("encoded", "k8s-secret-data", "Kubernetes Secret for the payments service",
  f"```yaml\napiVersion: v1\nkind: Secret\nmetadata:\n  name: payments\ntype: Opaque\ndata:\n"
  f"  DB_PASSWORD: {base64.b64encode(_pw().encode()).decode()}\n  STRIPE_KEY: {base64.b64encode(('sk_live_51' + _s(B62, 97)).encode()).decode()}\n```",
  tags=("k8s",))
F("encoded", "base64-env-blob", "CI variable with the whole env, base64",
  "ENV_FILE_B64=" + base64.b64encode(
      f"DATABASE_URL=postgres://app:{_pw()}@db.acme.internal/app\nJWT_SECRET={_s(B62, 48)}\n".encode()).decode(), tags=("ci",))
F("encoded", "base64-sa-json", "GOOGLE_CREDENTIALS for terraform (base64)",
  "GOOGLE_CREDENTIALS=" + base64.b64encode(json.dumps({"type": "service_account", "project_id": "acme-infra",
                                                         "private_key_id": _hex(40), "private_key": _gcp_pem}).encode()).decode(),
  tags=("gcp", "terraform"))
F("encoded", "hex-hmac-key", "Webhook signing secret for the partner API",
  f"partner webhooks are signed HMAC-SHA256 with {_hex(64)} (shared on the call, 2026-11-30)", tags=("webhooks",))
F("encoded", "echo-base64-decode", "How to get the DB password on the box",
  f"echo '{base64.b64encode(_pw().encode()).decode()}' | base64 -d  # the orders DB password", tags=("postgres",))

# --- other vendors -------------------------------------------------------------------------------
F("vendor", "pypi-token", "PyPI upload token for vault-mem",
  f"[pypi]\nusername = __token__\npassword = pypi-AgEIcHlwaS5vcmc{_s(B64URL, 140)}", tags=("pypi",))
F("vendor", "digitalocean", "DigitalOcean token for doctl",
  f"doctl auth init -t dop_v1_{_hex(64)}", tags=("digitalocean",))
F("vendor", "postman", "Postman API key for the collection sync",
  f"POSTMAN_API_KEY=PMAK-{_hex(24)}-{_hex(34)}", tags=("postman",))
F("vendor", "contentful", "Contentful management token",
  f"contentful login --management-token CFPAT-{_s(B64URL, 43)}", tags=("contentful",))
_mbx = _b64u(json.dumps({"u": "acme-maps", "a": _s(LOWER_NUM, 25)}, separators=(",", ":")).encode())
F("vendor", "mapbox-secret", "Mapbox secret token for uploads",
  f"MAPBOX_UPLOAD_TOKEN=sk.{_mbx}.{_s(B64URL, 22)}", tags=("mapbox",))
_ops = _b64u(json.dumps({"signInAddress": "acme.1password.com", "userAuth": {"method": "SRPg-4096", "alg": "PBES2g-HS256",
                                                                             "iterations": 650000, "salt": _s(B64URL, 22)},
                         "email": f"{_s(LOWER_NUM, 13)}@1passwordserviceaccounts.com", "srpX": _hex(64),
                         "muk": {"alg": "A256GCM", "ext": True, "k": _s(B64URL, 43), "key_ops": ["encrypt", "decrypt"],
                                 "kty": "oct", "kid": "mp"}, "secretKey": "A3-" + _s(UPPER_NUM, 33), "deviceUuid": _s(LOWER_NUM, 26)},
                        separators=(",", ":")).encode())
F("vendor", "onepassword-service-account", "1Password service account for CI",
  f"OP_SERVICE_ACCOUNT_TOKEN=ops_{_ops}", tags=("1password", "ci"))
F("vendor", "buildkite", "Buildkite API token",
  f"export BUILDKITE_API_TOKEN=bkua_{_hex(40)}", tags=("buildkite",))
F("vendor", "gitlab-runner", "Runner registration",
  f"gitlab-runner register --url https://gitlab.com --token glrt-{_s(B64URL, 20)} --executor docker", tags=("gitlab",))
F("vendor", "cloudinary-url", "Cloudinary for the avatar uploads",
  f"CLOUDINARY_URL=cloudinary://{_digits(15)}:{_s(B64URL, 27)}@acme-media", tags=("cloudinary",))
F("vendor", "algolia-admin", "Algolia admin key (indexer only)",
  f"ALGOLIA_APP_ID={_s(UPPER_NUM, 10)}\nALGOLIA_ADMIN_API_KEY={_hex(32)}", tags=("algolia",))
F("vendor", "launchdarkly-sdk", "LaunchDarkly server SDK key",
  f"ld_client = ldclient.Client(Config('sdk-{_uuid()}'))", tags=("launchdarkly",))
F("vendor", "elevenlabs", "ElevenLabs key for the voice demo",
  f"ELEVENLABS_API_KEY=sk_{_hex(48)}", tags=("elevenlabs",))

# ============================================================================ LOOK-ALIKES
# --- ids: commits, objects, requests, resources ------------------------------------------------
L("ids", "commit-full", "Where the date-parsing regression came in",
  f"Bisected: the regression came in at {_hex(40)} (\"parse dates lazily\"); reverted in {_hex(7)}.", tags=("bisect",))
L("ids", "commit-list", "Commits to cherry-pick into release/4.2",
  "\n".join(f"- {_hex(40)} {m}" for m in ("fix null deref in exporter", "bump timeout for S3 uploads", "docs: retry flag")),
  tags=("release",))
L("ids", "tenant-uuid", "Our Azure tenant and subscription ids",
  f"tenant id {_uuid()}, subscription {_uuid()} (Pay-As-You-Go, prod)", tags=("azure",))
L("ids", "request-ids", "Support ticket for the failed payouts",
  f"Stripe support asked for request ids: req_{_s(B62, 14)}, req_{_s(B62, 14)}; payout po_{_s(B62, 24)}.", tags=("stripe",))
L("ids", "stripe-objects", "Test customer and price in Stripe",
  f"test customer cus_{_s(B62, 14)}, monthly price price_{_s(B62, 24)}, product prod_{_s(B62, 14)}", tags=("stripe",))
L("ids", "anthropic-message-id", "The response that hallucinated the flag",
  f"message id msg_01{_s(B62, 22)}, request-id req_011C{_s(B62, 20)}; model claude-sonnet-4-5", tags=("llm",))
L("ids", "openai-file-ids", "Files attached to the assistant",
  f"assistant asst_{_s(B62, 24)} uses file-{_s(B62, 22)} and vector store vs_{_s(B62, 24)}", tags=("openai",))
L("ids", "slack-ids", "Slack channel for deploy alerts",
  f"#deploys is C{_s(UPPER_NUM, 10)}, the bot user is U{_s(UPPER_NUM, 10)}", tags=("slack",))
L("ids", "container-ids", "Which container leaked memory",
  f"docker ps showed {_hex(12)} (api) and {_hex(12)} (worker); full id of the bad one: {_hex(64)}", tags=("docker",))
L("ids", "k8s-pods", "Pods that crash-looped",
  f"api-{_hex(10)}-{_s(LOWER_NUM, 5)} and worker-{_hex(10)}-{_s(LOWER_NUM, 5)} in ns prod, OOMKilled", tags=("k8s",))
L("ids", "arn-account", "The deploy role",
  "arn:aws:iam::123456789012:role/github-actions-deploy (trust policy limits it to acme/web on main)", tags=("aws",))
L("ids", "ulid-order", "Order that got charged twice",
  f"order 01J{_s('0123456789ABCDEFGHJKMNPQRSTVWXYZ', 23)} was charged twice; refund issued.", tags=("support",))
L("ids", "google-doc-url", "The design doc for the sync rewrite",
  f"https://docs.google.com/document/d/1{_s(B64URL, 43)}/edit", tags=("docs",))
L("ids", "figma-url", "Onboarding designs",
  f"https://www.figma.com/design/{_s(B62, 22)}/Onboarding-v3?node-id=12-{_digits(4)}", tags=("design",))
L("ids", "youtube-link", "Talk on CRDTs the user liked",
  f"https://www.youtube.com/watch?v={_s(B64URL, 11)} (Martin Kleppmann, 2024)", tags=("talks",))
L("ids", "gcp-client-id", "OAuth client id for the admin login (public)",
  f"GOOGLE_CLIENT_ID={_digits(12)}-{_s(LOWER_NUM, 32)}.apps.googleusercontent.com (the secret is in Doppler)",
  tags=("gcp",))

# --- checksums, digests, integrity hashes --------------------------------------------------------
L("hashes", "sha256sum", "Checksum of the release tarball",
  f"{_hex(64)}  vault-mem-0.9.0.tar.gz", tags=("release",))
L("hashes", "docker-digest", "Pin the base image by digest",
  f"FROM python:3.12-slim@sha256:{_hex(64)}", tags=("docker",))
L("hashes", "npm-integrity", "package-lock entry for left-pad",
  f"\"node_modules/left-pad\": {{\n  \"version\": \"1.3.0\",\n  \"resolved\": \"https://registry.npmjs.org/left-pad/-/left-pad-1.3.0.tgz\",\n"
  f"  \"integrity\": \"sha512-{_b64(64)}\"\n}}", tags=("npm",))
L("hashes", "pip-hash", "Hash-pinned requirement",
  f"requests==2.32.3 \\\n    --hash=sha256:{_hex(64)} \\\n    --hash=sha256:{_hex(64)}", tags=("pip",))
L("hashes", "go-sum", "go.sum line that changed",
  f"golang.org/x/net v0.31.0 h1:{_b64(32)}", tags=("go",))
L("hashes", "git-lfs-pointer", "LFS pointer for the model file",
  f"version https://git-lfs.github.com/spec/v1\noid sha256:{_hex(64)}\nsize {_digits(9)}", tags=("lfs",))
L("hashes", "nix-store", "Where nix put the toolchain",
  f"/nix/store/{_s('0123456789abcdfghijklmnpqrsvwxyz', 32)}-rust-1.83.0", tags=("nix",))
L("hashes", "ssh-host-fingerprint", "Host key fingerprint of the bastion",
  f"ED25519 key fingerprint is SHA256:{_b64(32).rstrip('=')}. Verified against the console.", tags=("ssh",))
L("hashes", "tls-fingerprint", "Pinned cert fingerprint for the MQTT broker",
  "SHA-256 fingerprint: " + ":".join(_hex(2).upper() for _ in range(32)), tags=("tls",))
L("hashes", "gpg-fingerprint", "The release signing key fingerprint",
  " ".join(_hex(4).upper() for _ in range(10)) + " (release@acme.io)", tags=("gpg",))
L("hashes", "bcrypt-hash", "Seeded admin user for the dev DB",
  f"dev seed inserts admin@acme.test with password_hash $2b$12${_s(B62 + './', 53)} (the password is in the seed README)",
  tags=("dev",))
L("hashes", "argon2-hash", "What the auth table stores",
  f"password column holds argon2id hashes like $argon2id$v=19$m=65536,t=3,p=4${_b64(16).rstrip('=')}${_b64(32).rstrip('=')}",
  tags=("auth",))
L("hashes", "ipfs-cid", "Where the dataset snapshot is pinned",
  f"ipfs://bafybei{_s('abcdefghijklmnopqrstuvwxyz234567', 52)}", tags=("ipfs",))
L("hashes", "sri-script", "CDN script with SRI",
  f"<script src=\"https://cdn.jsdelivr.net/npm/htmx.org@2.0.4/dist/htmx.min.js\" integrity=\"sha384-{_b64(48)}\" crossorigin=\"anonymous\"></script>",
  tags=("frontend",))

# --- public keys and public-by-design values -----------------------------------------------------
L("public", "ssh-authorized-key", "My laptop's SSH public key",
  _ssh_pub_ed25519("me@laptop-2026"), tags=("ssh",))
L("public", "age-recipient", "Recipients for sops",
  f"creation_rules:\n  - path_regex: secrets/.*\\.yaml$\n    age: {_bech32('age', _bytes(32))},{_bech32('age', _bytes(32))}", tags=("sops",))
L("public", "wireguard-peer-public", "Adding the phone as a WireGuard peer",
  f"[Peer]\n# phone\nPublicKey = {_b64(32)}\nAllowedIPs = 10.8.0.3/32", tags=("wireguard",))
L("public", "pem-public-key", "Cosign public key for verifying images",
  _pem("PUBLIC KEY", bytes.fromhex("3059301306072a8648ce3d020106082a8648ce3d03010703420004") + _bytes(64)), tags=("cosign",))
L("public", "certificate", "CA cert for the internal registry",
  _pem("CERTIFICATE", _der_seq(_bytes(700))), tags=("tls",))
L("public", "stripe-publishable", "Stripe publishable key for checkout.js",
  f"NEXT_PUBLIC_STRIPE_PUBLISHABLE_KEY=pk_live_51{_s(B62, 97)}", tags=("stripe",))
L("public", "supabase-publishable", "Supabase publishable key in the client",
  f"NEXT_PUBLIC_SUPABASE_PUBLISHABLE_KEY=sb_publishable_{_s(B64URL, 22)}_{_s(B62, 8)}", tags=("supabase",))
L("public", "posthog-project-key", "PostHog snippet for the marketing site",
  f"posthog.init('phc_{_s(B62, 43)}', {{ api_host: 'https://eu.i.posthog.com' }})", tags=("posthog",))
L("public", "sentry-dsn", "Sentry DSN for the browser SDK",
  f"Sentry.init({{ dsn: \"https://{_hex(32)}@o{_digits(6)}.ingest.us.sentry.io/{_digits(16)}\" }})", tags=("sentry",))
L("public", "eth-address", "Where to send the testnet ETH",
  f"my Sepolia address: 0x{_s(HEX + 'ABCDEF', 40)}", tags=("crypto",))
L("public", "btc-address", "Donation address on the blog",
  f"bitcoin: bc1q{_s(BECH32, 38)}", tags=("crypto",))
L("public", "tx-hash", "The contract deploy transaction",
  f"deployed at tx 0x{_hex(64)} (block {_digits(8)}), contract 0x{_hex(40)}", tags=("crypto",))

# --- placeholders, docs examples, redacted values, names without values ---------------------------
L("placeholder", "sk-dots", ".env.example for new contributors",
  "OPENAI_API_KEY=sk-...XXXX\nANTHROPIC_API_KEY=sk-ant-...\nDATABASE_URL=postgres://user:password@localhost:5432/app", tags=("onboarding",))
L("placeholder", "angle-brackets", "How to configure the CLI",
  "vault-mem config set embedder.api_key <YOUR_API_KEY>\nthen `export HF_TOKEN=<your-hf-token>`", tags=("docs",))
L("placeholder", "all-x", "Template for the Stripe env",
  "STRIPE_SECRET_KEY=sk_test_xxxxxxxxxxxxxxxxxxxxxxxx\nSTRIPE_WEBHOOK_SECRET=whsec_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", tags=("stripe",))
L("placeholder", "aws-docs-example", "AWS CLI profile format (from the docs)",
  "[default]\naws_access_key_id = AKIAIOSFODNN7EXAMPLE\naws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", tags=("aws",))
L("placeholder", "jwt-io-example", "Example JWT from jwt.io used in the parser tests",
  "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ"
  ".SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c", tags=("tests",))
L("placeholder", "env-interpolation", "Compose file reads secrets from the env",
  "environment:\n  POSTGRES_PASSWORD: ${POSTGRES_PASSWORD:?set it in .env}\n  API_TOKEN: \"{{ .Values.api.token }}\"", tags=("docker",))
L("placeholder", "token-names-only", "Secrets CI needs",
  "Repo secrets needed by deploy.yml: SENTRY_AUTH_TOKEN, VERCEL_TOKEN, NEON_API_KEY, DOPPLER_TOKEN, CLOUDFLARE_API_TOKEN.",
  tags=("ci",))
L("placeholder", "redacted-stars", "Prod DSN shape (redacted)",
  "DATABASE_URL=postgres://app:********@db.prod.acme.internal:5432/app", tags=("postgres",))
L("placeholder", "redacted-last4", "Which OpenAI key was revoked",
  "Revoked the key ending in …a91F (sk-proj-****a91F) after it showed up in a screenshot; the new one is in Doppler.",
  tags=("openai", "incident"))
L("placeholder", "password-manager-reference", "Where the prod DB password lives",
  "The prod DB password is in 1Password, vault 'Infra', item 'orders-db (prod)'. Never paste it in chat.", tags=("policy",))
L("placeholder", "password-policy", "Password policy for the admin panel",
  "Passwords: at least 14 characters, no reuse of the last 5, rotated every 90 days; the password field is 'passwd' in the API.",
  tags=("policy",))
L("placeholder", "changed-password", "User changed their GitHub password",
  "User changed their GitHub password today after the phishing mail; 2FA is on (TOTP in Aegis).", tags=("security",))
L("placeholder", "secret-env-code", "How the webhook handler verifies signatures",
  "```python\nsecret = os.environ[\"WEBHOOK_SECRET\"].encode()\nexpected = hmac.new(secret, body, hashlib.sha256).hexdigest()\n"
  "if not hmac.compare_digest(expected, request.headers[\"X-Signature\"]):\n    abort(401)\n```", tags=("webhooks",))
L("placeholder", "k8s-secret-ref", "Deployment reads the password from a Secret",
  "env:\n- name: DB_PASSWORD\n  valueFrom:\n    secretKeyRef:\n      name: orders-db\n      key: password", tags=("k8s",))
L("placeholder", "sops-encrypted", "sops-encrypted value in secrets.yaml (committed on purpose)",
  f"db_password: ENC[AES256_GCM,data:{_b64(18)},iv:{_b64(32)},tag:{_b64(16)},type:str]", tags=("sops",))
L("placeholder", "bip39-test-vector", "The BIP39 test mnemonic used in the wallet unit tests",
  "Tests use the well-known test vector 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon "
  "abandon about' (never funded).", tags=("tests",))
L("placeholder", "stripe-test-card", "Stripe test cards",
  "Use 4242 4242 4242 4242 with any future date and any CVC; 4000 0000 0000 9995 for a decline.", tags=("stripe",))
L("placeholder", "wifi-no-value", "Guest Wi-Fi",
  "Guest network is 'Vodafone-4F2A'; the password is on the sticker under the router.", tags=("home",))

# --- ordinary values that look random ------------------------------------------------------------
L("ordinary", "css-colours", "Brand palette",
  "--brand: #1F6FEB; --brand-dark: #0B3D91; --accent: #FF5733; --muted: #8B949E; --bg: #0D1117;", tags=("design",))
L("ordinary", "versions", "Toolchain versions on the build box",
  "python 3.12.7, node v22.11.0, pnpm 9.14.2, terraform 1.9.8, build 24.1.0+git.a1b2c3d, kernel 6.8.0-49-generic", tags=("build",))
L("ordinary", "grocery-bip39-words", "Shopping list",
  "Shopping list: apple, banana, butter, cheese, coffee, egg, garlic, lemon, milk, onion, pepper, rice.", tags=("home",))
L("ordinary", "data-uri-icon", "Favicon inlined in the email template",
  f"<img src=\"data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAABAAAAAQCAYAAAAf8/9hAAAA{_b64(90)}\" width=\"16\">",
  tags=("email",))
L("ordinary", "isbn-phone", "Book and contact for the reading group",
  "ISBN 978-0-13-468599-1; organiser's phone +31 6 1234 5678; meeting room B2.07", tags=("personal",))
L("ordinary", "random-slug-filenames", "Upload naming scheme",
  f"uploads are stored as <yyyy>/<mm>/<nanoid>.webp, e.g. 2026/11/{_s(B64URL, 21)}.webp", tags=("storage",))
