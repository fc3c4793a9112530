"""SLIP-0039's word list (Shamir's Secret-Sharing for Mnemonic Codes: a wallet's seed cut into
shares of 20 or 33 words, any threshold of which restores it), as the specification publishes it
(1,024 words, 4 to 8 letters, each known by its first four letters; the list in the reference
implementation, ``shamir-mnemonic``, MIT), packed like :mod:`vault_mem.model.seed_words_other`."""

from __future__ import annotations

import base64
import zlib

__all__ = ["SLIP39_WORDS"]

_PACKED = (
    "eNotmVmCrCoQRLfi1lBRqWLwMWh5V/9OpP3RGQgUQ5JDQLvFrT6FZXJLWBHZI/4boQprmV0He7hCf1SovrXJre6kevX/Ddfpt35G"
    "03cKkqVm5IgqXy4v6nCVxXpu1WmW3QX67D4vDLpXT0tYJepS3dZViCFbxVkq3x9XJxddTch5SC7lKBEMPktedI7n4ZDVu5VhYy+I"
    "kUK2/rd7WHhy/0LewTn0UPhlKiMzfhqNAbKLTwtNhV4SY7D41ktVgXnol3cfJasaQ3L6aLdXj+5zZvr8C16qOp3WLQVJt1VaBry6"
    "1H2onDyaqD1IdbXfpX4n106/8DmWd3VjN8XaEi9f0RgY3Nt4FanydtUkU/609F/00+xdkqAFyQ+BpSQ1rLUUtR2MU1QvdcweNV5q"
    "jsU+s984ypnNI56SGSd8aQ8llv0Baz9Wp0I7yjnN0S1fyfz1/CJiIzZsDEmNQb+P7HkuHMxcsIy5VOshW5lLPxAjrw61ztUtPmqY"
    "itYPgVbGofZDGFiaflnLl5MHqK7CuwnHYksY624Q4mq9R5wl0B/WczILs0lRo64aZdT8dmtqehhoka4XzCxgPYtLKF9wjgZkVAKc"
    "uAxHTSF0LAHso+pXdbb2uqpz9dtQY92L5Mm6gEv9ut9L1QCyvsWHqEUsGJoWwIxyy+VgVp03haw1Ha7arIdH50g6afJDh4W8EWOe"
    "6YADJRaN69IcHX6LpD56l8cJmkkDSa4JZk0Xi4blmNW9NK02Ssf6HLNEs+UVTVpcs50X0/JScDcWWtKJisCarWfrA9tb5Gn2Paq2"
    "Wy77uOdC1+p0HK/zI/+pyq9BH8FOFMSTNVcNclGgvxvn5FfkWIJ9DRkN0CSfd3lj1s6ISKPaZw1F5zhqZB72I7NcHtkpS1pdwApW"
    "QgXaXi1+YZjfrMC3uu5m11Qz9kO7WQk2FqooRAQG2gSjI3WUAlbMAVIggqknmpHKKWDWGs0rgGmw5PAVTLLpiEEJiySAt6YzLPYV"
    "i9oaepg1AMav6hZsgvbtuCXYq3XrLkSvX3dvv76CduWvolUEt+eiVTCyLYsAhog+YT6r1I6XUzAXWQMzW31zZggUUGETvnt5O7cU"
    "3spTNgf2V5MK1IhS9VEWDEMqYkQSAsCKOSoKnLU1oGbknTt/00oELAbJwupaFehWy0lrDdgOMn+RRdPUwXqrvHklLJhzrYMwtmIG"
    "FkJXguc2rU82TyNeYg9IwpG2EiWpWI6CiOFkdxydRUBPfJlkoMRQz+jSmw8Winycy41crezfSE5h14ZA2zFIsnoLl7NRYtAYUZOg"
    "DSZXzIkriCZtjHT6qp6Jn8oHKGAF3mowF+xDW/SKbCgELHI0gnlSo69ad95M9T7vMm+fP0WV2KV99Wqn5PNFJjitQPMZXoZAoRXS"
    "mKV9WxE84ZxYpkIva1NbIwwKzJR0nBZd2GQcb8GbHWGCmLfmUnjCEjkX/4NgSLIvfS0emwXewEchjtVQ4dL//DK6YcXBVDicsqX/"
    "FdmG/53yJcDboNghJgaatfhf99bKjif/eOWPaSOeRznepnVsHILCOZj19VVRx7NhLVGdkqLI5kRikLuVu0xmcwo7yKBMv5Gpqw53"
    "c9jwhr9W5GsXW4jdPrMpHtQZNhV2qyd7aK4A89nwNA2Lg0mDZGiLSVskO0nid0jmAryT+AVyMQUOaYsFJodUBNzi2LZpw/34eakz"
    "POI1C6Rf8GsVlEABcRygj2zNRjc2JWstr7q/beCYZtdbxSb+Cu0gmlEITj2DPAaQebKhWjSLsrfkP5LwRixgOeO14o3gjGhYwA7x"
    "+z0A29zJrTJcUIkbiJz17lqxILw7c8Fd1s66wcAWAc4ROayPf114xzh1vnt0q4T0vytNsoo9anDRF857l+b2Em1CEpXZMQV2iWyn"
    "pNFjUAKmoly8i6pIxiip3xaSunoUjg059FPimqHRkn1IvRiNfg95MdnR3z5Smw7o8INMFngPmbe5hsoQCn5ziCshyoK8v4h/GvAg"
    "SSmTgxGFA8a+QNXFUwTleKMNIEH+0S6PMhdEDCJ7oERSdU0lC9tLfQ5y+nQMDuYYOnRkWKWSg5xvU40223qVlxFfmh5y5ToRBpwE"
    "/baHAgYbLPWifLkhwLRIi+ngkA+G/AYDUAsC3kyqFP6TDBaSKRASUFrI8k0BSwfYZtDnZ1hjejs3hQog2MjiDhG0SAGEv16Xs3BM"
    "oUQtSRk/tKjtER+jdeqeWS6Ru48z/vLxlT1//O2jKgv28BmsUqTlM5SOP1gAIr8eRUH8HPhOtkhdsdTt62FVEXjmorP9hjX7B8gq"
    "dxhgnr45bF6yTxg3FdHoFfKZyYlEwopgOhaNye1qqiYVyCP3DdImeLehIbAeVXu3ScDYoy4VbVJykwcpt0VJKQpQi5XyjrWR4Fhv"
    "VNjDIMAqmo/bwnL4rbJ25HIRVcc9QlLFk1EC+YVxIA/aA0r9++klk4rBbJu4RluBBEXdMaU7aKt1KEPNDzbPj2AAiIwvRaOISC10"
    "/KTc+NgPHshmm5JbDgUKrFC3RRVkn4Io4zauksgH+C2gXyYICSI7OaM4nIwANEMBB/pJDtZx2HdlfqTsIslz1dishS0G69vV4xcS"
    "t4/kHiwhwdptKr+qg1+N/SaflE4A2ZpCsFXWxchFMitPnmlXAdubcEwCBRlslVBw4XfhjZdG9RRbUiCyYzEp/Lz6/eycU5mDKsnz"
    "GAEgj00ltL9WywAs5F0nOcM4RnpvaHbRNs0Vpe8kb05DihgaE3IeTiu05QWvrY+mJQ+xx33KokXZzpjFZu4/2IunQNgXr2QTl1Jy"
    "9u9tOvubj6ELTwXTLAFNUZeHm+5UjEZhO0a3y/yR/5cZJ2C0MttyidmcedlkggRA7mLLVPTQYZkUIW6iHKoa+QmSbI5WSaEc2T9a"
    "h3ILG84SVVGFqE9XAhxupGskfED4lcJOPZGcYh3S4+k+GJd65UUcBOz6Op2EDULmjoLv219udmJJHAZQi9qe9H4+fPLtmVhB/9RV"
    "sAua7AWqxF65aJjLgPAhoNo9BtykH1Db5x77PqEYjy1JCFmAC51H6QUpWgg8TU6F2r74i24vMpYzcDlCRglC3BlObxkcitm1YkWy"
    "yThbE2QJuxuA3YK4LhYFGoPVuGZjck9FDB3IacxksYIYMqzPaUAulca2Kex2w6CQdMUHT13ORA+Nl1K4bNuk8WaQdKhgsfs3BVzW"
    "hg6XbbvqrElTcC6Nh+GQ5sHNdlkL9MDqk9gq+L71KK8p35xVDOscswjNm+ROMgIjDLt/AcwxTozuHPJv61DlM+djcQVWjsmwNApV"
    "Xkz0JOghiTN6VZHgYgZwoUWGWAvch0LWlQUkbgJcHNQpf70aYf9tEs95JinRzpxC1G6rt3cboZ5aJrFH7AvwdqGlUF6EFnXBiJra"
    "m6dVb8mSE3ijmI7CBrPgUL1xTJ1LMBBbAcznRTN11eW0lmHgLapSMC6hwlmUYCjoKbK+d2AN1Os7kjKstsIx2xBX8CjBG8OtBx4j"
    "2Q9UETQypxwlNQaBkF+WhZTOeUrtiwrnJFprHUwryj1THeo7bO5BVJyaHsua2yBhQJRVASwF2RE9tE1VvUD0Qc3Y9HoJ/c8K/k2P"
    "Squga7KGe3ok/MzpK5j9tqXg2W3B6HQJoMDu9FxwWq3CADrbCplBF3dNr+eILhhm4c2/nB5/EBVph+MiLiBjI9EP8tRC8PwT6e0u"
    "08St8Mt26OUWOaK6VL0F6nBuF9k+Z6GhQ7TdBVKRM5Q9K3sbmC4bYQ0hIgTJOiUu0eimF40mHiGZEFpdFMFsSU8mLSnuI7VVMtpX"
    "squ1WKRsCS7UsoIq8mSl/Cbb0stij7iNsH8rKkDr1qC1lDjMARq7ktClqSmMS2oGrNQkAzRhtGeHZo83SFao23QVaFmnYh5SeVpc"
    "GqFLBJKoKB3Ilw28x9/Ig6uiFahldtkD1kqhWrLQrduW1zVIt4dwAKV1hQKkLKyLK0CL9f5oBb3ttv5ovvEmQVBBvo1dKtQdxIxo"
    "5Bj2Q/VkATOKUTfbPZGoKq5RuJSL261rEB3ukJIt7f6TCuztSXNRoKNAjjpYxQPnFJVvTxN57jgJM3YL4w1cz2LfZjfcsr8SXTV6"
    "iQN+YeoK8kwKJiPrFAgDKKR7syySooK+GL3976H7l6J15TSRCt3cxGq6fylPJ7l9JfnR8e4IlP5Eatwp1Bt2P+zap4J4BtKCV38f"
    "L3vgHLg/zFaVxHXtuHrZBoKbtq2aDdq7YC9icb38UBCntHybYNvez/cdTi81bdOvqi7+Xa/k0T4V3LqCJ1JcUqzvEaeicEqQVfSD"
    "MmarHCZIcf2WLyHZxXN6CeOYY2e94memUrZH3I5ugtRYbLed7gXcFKgBnAUgNqCeN8gi6Yp54MUK8UDWg97Io4kbj3yjzGmcul/T"
    "68SAQ20TLLBmRZqhqDK9nYnDECR7UNIOLr2PV6Hlycu9r7uXHtyQBJg+KZPrOFmEXjmFOmWLI7SjdnUV1730MJMmpeQyWUbgstFF"
    "y67A+SiyXkHM7yJZikmAtihcJIms6D9dfBbp8tKDuEB2g9TBEf5EuQgriVh06zp1O/nE7a5nuu2Gbkj6AuYF0sCl0a654KZwcHtF"
    "RprDqjHIvFEXPk5OEfpWTLlRiT0D3qEpneN3x1qdWqGPd4kbQrcZY8oIm1WHcFf9R+rW+7qWW/VG/CiSPj6e0xM8p/uU3U3/oNL/"
    "A2YwsGc="
)

#: the words in the list's order (a word's index is its 10-bit value)
SLIP39_WORDS: tuple[str, ...] = tuple(zlib.decompress(base64.b64decode("".join(_PACKED))).decode().split())
