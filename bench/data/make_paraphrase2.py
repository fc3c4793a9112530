"""Writes bench/data/paraphrase2.json: a second, independent paraphrase set (another person,
other memories), used only as a held-out check — tune on paraphrase.json and the development
split, report on both. Same format and the same kinds of question as make_paraphrase.py:
paraphrase questions that share no content word with their memory (checked below with the
project's own stopwords and stemmer), and near-miss questions about things close to stored
topics but never stored (expected: nothing). Written for vault-mem; no outside text.

    python bench/data/make_paraphrase2.py   # regenerates the JSON next to this file

Keys ending in -old are the previous state of a near-duplicate pair.
"""

import json
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from vault_mem.model.terms import query_terms, stem

# (key, type, description, body)
M = [
    ("editor-neovim", "preference", "Edits code in Neovim with a Lua config", "Moved from Emacs in 2024; lazy.nvim manages plugins."),
    ("editor-emacs-old", "preference", "Used Emacs with Doom for eight years", "Gave it up because startup got slow on the old laptop."),
    ("browser", "preference", "Main web browser is Firefox with uBlock Origin", ""),
    ("keyboard-layout", "preference", "Types in Dvorak on an HHKB", ""),
    ("tea-green", "preference", "Drinks sencha green tea through the working day", "Avoids coffee since it triggers migraines."),
    ("breakfast", "preference", "Eats porridge with blueberries most mornings", ""),
    ("diet-lactose", "fact", "Lactose intolerant; oat or soy milk only", ""),
    ("allergy-penicillin", "fact", "Allergic to penicillin", "Rash and swelling as a teenager; tell any doctor."),
    ("music-jazz", "preference", "Puts on Blue Note jazz records when writing", ""),
    ("instrument-cello", "fact", "Plays cello in an amateur orchestra", "Rehearsals on Wednesday nights in Ghent."),
    ("sport-swimming", "fact", "Swims 2 km at the municipal pool on Monday and Friday mornings", ""),
    ("sport-football-old", "fact", "Played five-a-side football until tearing an ankle ligament in 2022", ""),
    ("transport-cargo-bike", "fact", "Commutes on an electric cargo bike, an Urban Arrow", "Takes the kids to school in the box."),
    ("home-ghent", "fact", "Lives in Ghent, near Dampoort station", "Bought the house in 2021."),
    ("home-rotterdam-old", "fact", "Rented an apartment in Rotterdam before 2021", ""),
    ("spouse", "fact", "Married to Wout, a secondary school history teacher", ""),
    ("kids", "fact", "Two children: Fien, 9, and Jules, 6", ""),
    ("dog", "fact", "Owns a border collie called Pixel", "Needs two long walks a day along the river."),
    ("birthday", "fact", "Birthday falls on 2 February", ""),
    ("brother", "fact", "Older brother Matthias runs a bakery in Antwerp", ""),
    ("mother", "fact", "Mother lives alone in Leuven and needs help with groceries on Saturdays", ""),
    ("lang-dutch", "fact", "Speaks Dutch natively, fluent in English and French", ""),
    ("lang-japanese", "fact", "Studying Japanese on Duolingo and with a tutor, aiming for JLPT N4", ""),
    ("trip-japan", "fact", "Planning a family trip to Japan next April for cherry blossom season", "Tokyo, then Kyoto by Shinkansen."),
    ("trip-last", "fact", "Spent last August camping in the Ardennes", ""),
    ("book-current", "fact", "Reading Middlemarch by George Eliot at the moment", ""),
    ("tv-show", "fact", "Watching Severance with Wout on Sunday evenings", ""),
    ("sleep", "preference", "Asleep by 22:30, up at 6:15", ""),
    ("bees", "fact", "Keeps bees in two hives in the back garden", "Harvests honey each July."),
    ("car", "fact", "Family car is a second-hand Kia e-Niro", "Charges it overnight from the solar panels."),
    ("solar", "fact", "Roof has 12 solar panels with a home battery", ""),
    ("bank", "fact", "Banks with Argenta", ""),
    ("accountant", "fact", "Annelies De Smet does the household tax return", ""),
    ("dentist", "fact", "Sees the dentist at Tandartsenpraktijk Sint-Pieters twice a year", ""),
    ("volunteer-chess", "fact", "Coaches the under-10 chess club on Saturday mornings", ""),
    ("game-go", "fact", "Plays Go online on OGS, around 5 kyu", ""),
    ("podcast", "preference", "Listens to the Changelog podcast", ""),
    ("insurance", "fact", "Home insurance with Ethias, renews in October", ""),
    ("doctor", "fact", "GP is Dr Vermeulen at the Dampoort health centre", ""),
    ("school", "fact", "The kids attend Basisschool De Regenboog", ""),
    ("charity", "fact", "Gives monthly to Doctors Without Borders", ""),
    ("photography", "preference", "Shoots film photography on a Pentax K1000", ""),
    ("photo-editing", "preference", "Edits photos in darktable", ""),
    ("groceries", "fact", "Orders groceries from Colruyt Collect&Go on Thursdays", ""),
    ("recipe-waterzooi", "fact", "Makes waterzooi for family birthdays", ""),
    ("notes-app", "preference", "Personal notes go into Logseq", ""),
    ("password-manager", "preference", "Passwords live in 1Password, in a shared family vault", ""),
    # work
    ("employer", "fact", "Data platform engineer at Vlotter, a Belgian energy-trading company", "Started in March 2024."),
    ("employer-old", "fact", "Was a database administrator at a hospital group, AZ Noord, until 2024", ""),
    ("manager", "fact", "Reports to Karim Haddad, director of data", "One-to-one every other Thursday."),
    ("colleague-sofie", "fact", "Sofie Janssens owns the forecasting models", ""),
    ("colleague-bram", "fact", "Bram Peeters is the security officer; ask him before opening firewall ports", ""),
    ("colleague-lin", "fact", "Lin Zhao maintains the Kafka clusters", ""),
    ("work-schedule", "fact", "Works four days a week, Wednesdays off", ""),
    ("office", "fact", "Office is near Gent-Sint-Pieters; goes in on Tuesdays", ""),
    ("meetings", "preference", "Declines meetings after 15:00 to collect the kids", ""),
    # machines
    ("laptop", "fact", "Work laptop is a Framework 13 with Arch Linux", ""),
    ("laptop-old", "fact", "Previous work laptop was a Dell Latitude with Windows 10", ""),
    ("desktop", "fact", "Home desktop has a Ryzen 9 and an RTX 4070 for photo editing", ""),
    ("nas", "fact", "Home NAS is a Synology DS920+ with four 8 TB drives in SHR", "Backs up to Backblaze B2 nightly."),
    ("homelab", "fact", "Runs Proxmox on an old Intel NUC named pantry", "Hosts Home Assistant and Jellyfin VMs."),
    ("router", "fact", "Router is an OPNsense box on Protectli hardware", ""),
    ("phone", "fact", "Phone is an iPhone 13 mini", ""),
    ("phone-old", "fact", "Had a Fairphone 3 until the screen broke", ""),
    # decisions with reasons
    ("warehouse", "decision", "Picked ClickHouse as the analytics warehouse because meter readings arrive at millions of rows per hour",
     "Snowflake was priced out at this volume."),
    ("warehouse-old", "decision", "Analytics used to run on a single Postgres replica", "It fell over during month-end reporting."),
    ("orchestrator", "decision", "Pipelines are scheduled with Dagster rather than Airflow", "Asset-based lineage made backfills easier to reason about."),
    ("streaming", "decision", "Market prices stream through Kafka with Avro schemas", "The schema registry enforces backward compatibility."),
    ("file-format", "decision", "Raw files land in S3 as Parquet, partitioned by day", ""),
    ("dbt", "decision", "SQL transformations live in a dbt project, one model per mart", ""),
    ("iac", "decision", "Infrastructure is described in OpenTofu, not Terraform, after the licence change", ""),
    ("cloud", "fact", "Everything runs in AWS eu-west-1", ""),
    ("k8s", "fact", "Batch workloads run on EKS with Karpenter autoscaling", ""),
    ("python-version", "fact", "Data services target Python 3.12", ""),
    ("python-version-old", "fact", "Pipelines were on Python 3.9 until the 2025 upgrade", ""),
    ("packaging", "decision", "Python dependencies are managed with uv and a lockfile", ""),
    ("lint", "decision", "Ruff checks formatting and lint; the build fails on any warning", ""),
    ("testing", "decision", "Pipeline tests run against a throwaway ClickHouse in Docker, no mocks", ""),
    ("review", "decision", "Two approvals needed before a merge to main", ""),
    ("monitoring", "fact", "Metrics go to Prometheus and dashboards live in Grafana", ""),
    ("alerting", "fact", "Alerts route through Opsgenie to whoever is on call", ""),
    ("secrets", "decision", "Secrets are kept in AWS Secrets Manager and injected at deploy time", ""),
    ("retention", "decision", "Raw meter data is kept for seven years for the regulator", ""),
    ("pii", "decision", "Customer names and addresses are hashed before they reach the warehouse", ""),
    ("timezone", "decision", "All timestamps are stored in UTC; reports render in Europe/Brussels", ""),
    ("units", "decision", "Energy is stored in watt-hours as integers, never kWh floats", ""),
    ("table-naming", "decision", "Tables are named with a layer prefix: raw_, stg_, mart_", ""),
    ("adr", "decision", "Design docs are written as ADRs in the repository's docs/adr folder", ""),
    # runbooks
    ("runbook-backfill", "procedure", "To backfill a partition: launch the Dagster job with the partition key, then verify row counts", ""),
    ("runbook-kafka-lag", "procedure", "When consumer lag alerts fire, check the Kafka UI, then scale the consumer deployment", ""),
    ("runbook-clickhouse-disk", "procedure", "If ClickHouse disk passes 80%, drop expired partitions with the cleanup script", ""),
    ("runbook-deploy", "procedure", "Deploys go through Argo CD: merge to main, then sync the app in the Argo UI", ""),
    ("runbook-rollback", "procedure", "To roll back, revert the commit on main and let Argo CD resync", ""),
    ("runbook-cert", "procedure", "TLS certificates renew via cert-manager; if one expires, delete its secret to force reissue", ""),
    ("runbook-handover", "procedure", "On-call handover is Monday 10:00 with a written summary in the ops channel", ""),
    ("runbook-access", "procedure", "New joiners get warehouse access by a pull request to the IAM repo, approved by Bram", ""),
    ("runbook-nas-restore", "procedure", "To restore a file from the NAS, open Hyper Backup Explorer and pick the snapshot", ""),
    ("runbook-ha-update", "procedure", "Before updating Home Assistant, snapshot its VM in Proxmox", ""),
]

# (question, expected key): no content word (stemmed, stopwords dropped) of the memory
Q = [
    ("which program do I write software in these days?", "editor-neovim"),
    ("what did I hack in for most of the past decade?", "editor-emacs-old"),
    ("what do I surf the internet with?", "browser"),
    ("which key arrangement do I use?", "keyboard-layout"),
    ("what hot beverage keeps me going at my desk?", "tea-green"),
    ("what do I have first thing after waking?", "breakfast"),
    ("can I have dairy?", "diet-lactose"),
    ("which antibiotic must a physician never give me?", "allergy-penicillin"),
    ("what sounds help me concentrate on an article?", "music-jazz"),
    ("which stringed thing do I perform with a group?", "instrument-cello"),
    ("when do I go for laps?", "sport-swimming"),
    ("what team game did I give up after getting hurt?", "sport-football-old"),
    ("how do I travel to my job?", "transport-cargo-bike"),
    ("which city do I reside in now?", "home-ghent"),
    ("where did I stay before buying?", "home-rotterdam-old"),
    ("who is my husband and what does he do?", "spouse"),
    ("how old are my son and daughter?", "kids"),
    ("what breed is our pet?", "dog"),
    ("when should people wish me many happy returns?", "birthday"),
    ("what does my sibling do for a living?", "brother"),
    ("how can I support mum?", "mother"),
    ("which tongues do I know well?", "lang-dutch"),
    ("what foreign language exam am I preparing?", "lang-japanese"),
    ("where are we going for a holiday in spring?", "trip-japan"),
    ("where did we pitch a tent a year ago?", "trip-last"),
    ("which novel am I partway through?", "book-current"),
    ("what series do we stream weekly?", "tv-show"),
    ("when do I go to bed?", "sleep"),
    ("do I produce anything sweet at home?", "bees"),
    ("what vehicle do we drive?", "car"),
    ("how is the house powered?", "solar"),
    ("where is my current account?", "bank"),
    ("who handles our yearly fiscal paperwork?", "accountant"),
    ("where do I get my teeth checked?", "dentist"),
    ("who do I teach at weekends?", "volunteer-chess"),
    ("which strategy board pastime do I enjoy on the internet?", "game-go"),
    ("which audio show is on my headphones?", "podcast"),
    ("who covers the house if there is a fire or burglary?", "insurance"),
    ("who is my family physician?", "doctor"),
    ("where do my son and daughter study?", "school"),
    ("which humanitarian organisation do I donate to?", "charity"),
    ("what analogue camera do I use?", "photography"),
    ("which software do I retouch pictures with?", "photo-editing"),
    ("which firm pays my salary?", "employer"),
    ("what job did I have previously?", "employer-old"),
    ("who is my boss?", "manager"),
    ("who is responsible for predicting demand?", "colleague-sofie"),
    ("who must sign off a network change?", "colleague-bram"),
    ("who looks after the message brokers?", "colleague-lin"),
    ("which weekday am I free from my job?", "work-schedule"),
    ("what computer do I use for my job?", "laptop"),
    ("what notebook did I have at the hospital?", "laptop-old"),
    ("which storage database did we choose for reporting and why?", "warehouse"),
    ("what did our dashboards query before the current store?", "warehouse-old"),
    ("what tool triggers our ETL jobs?", "orchestrator"),
    ("how do tariff updates flow between services?", "streaming"),
    ("how do we decide which interpreter release the code needs?", "python-version"),
    ("how do I undo a bad release?", "runbook-rollback"),
    ("how do I ship a new version?", "runbook-deploy"),
    ("the storage volume of our column store is nearly full, what now?", "runbook-clickhouse-disk"),
    ("a historical day of data is missing, how do I fill it?", "runbook-backfill"),
    ("how does a newcomer obtain permission to query the reporting store?", "runbook-access"),
    ("what precaution before upgrading the smart-house controller?", "runbook-ha-update"),
    ("how long do we hold on to readings?", "retention"),
    ("what clock do we record moments in?", "timezone"),
]

# near-miss: close to stored topics, never stored
N = [
    "which colour scheme does my Neovim use?",
    "what is Karim's phone number?",
    "what is Bram's email address?",
    "what is Pixel's vet called?",
    "when is Wout's birthday?",
    "which hotel are we staying at in Kyoto?",
    "what ClickHouse version runs in production?",
    "how many brokers does the Kafka cluster have?",
    "which Dagster version do we run?",
    "what is the Opsgenie API key?",
    "how much RAM does the NUC called pantry have?",
    "what is the Synology admin password?",
    "what was my five-a-side team called?",
    "what is Matthias's bakery called?",
    "who is my Go teacher?",
    "which Japanese textbook does my tutor use?",
    "what was my salary at AZ Noord?",
    "what did the last Kafka outage postmortem conclude?",
    "which AWS account id hosts production?",
    "how accurate are Sofie's forecasting models?",
    "which flight do we take to Tokyo?",
    "how much did the house in Ghent cost?",
    "what is the Wi-Fi password at home?",
    "which OPNsense plugins are installed on the router?",
    "what is the Grafana admin password?",
    "what is the S3 bucket name for the raw Parquet files?",
    "how many kilowatt-hours did the solar panels produce last month?",
    "what is the name of Fien's teacher?",
    "which piece is the orchestra rehearsing this season?",
    "what is Lin Zhao's home address?",
    "what is my best time for 2 km of swimming?",
]


def content(text: str) -> set[str]:
    return {stem(w) for w in query_terms(text)}


def main() -> None:
    memories = [{"key": k, "type": t, "description": d, "body": b, "created": "2025-09-01", "group": "kit"}
                for k, t, d, b in M]
    by_key = {m["key"]: m for m in memories}
    assert len(by_key) == len(memories), "duplicate key"
    queries = []
    for i, (q, key) in enumerate(Q):
        m = by_key[key]
        shared = content(q) & content(" ".join([m["description"], m["body"], re.sub(r"[-_]", " ", key)]))
        assert not shared, (q, key, shared)
        queries.append({"id": f"p{i}", "q": q, "relevant": [key], "category": "paraphrase", "group": "kit"})
    for i, q in enumerate(N):
        queries.append({"id": f"n{i}", "q": q, "relevant": [], "category": "near-miss", "group": "kit"})
    out = {"meta": {"name": "vault-mem paraphrase set 2 (held out)", "licence": "same as vault-mem",
                    "memories": len(memories), "paraphrase": len(Q), "near_miss": len(N)},
           "memories": memories, "queries": queries}
    Path(__file__).with_name("paraphrase2.json").write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
