#!/usr/bin/env python3
"""Checks that sp-inspect's `state --format json` of the generated savepoint says what the Kafka connector's own
serializers read (KafkaStateRead.java's JSON): every enumerator split and its status, every reader split per subtask,
every writer state and every pending committable, field by field. Prints the counts; exits 1 on any difference.

    compare.py FLINK_JSON SP_INSPECT_JSON
"""
import json
import sys

MARKERS = {-1: "latest", -2: "earliest", -3: "committed"}
NO_STOP = -(2**63)


def offset(v, stop=False):
    if stop and v == NO_STOP:
        return "none"
    if v in MARKERS:
        return MARKERS[v]
    return str(v)


def split_key(s):
    return (s["topic"], s["partition"], str(s["starting_offset"]), str(s["stopping_offset"]))


def flink_split(s):
    return (s["topic"], s["partition"], offset(s["starting_offset"]), offset(s["stopping_offset"], True))


flink = {o["id"]: o for o in json.load(open(sys.argv[1]))["operators"]}
sp = {o["id"]: o for o in json.load(open(sys.argv[2]))["operators"]}
counts = {}  # (operator name, what) -> number
errors = []


def count(op, what, n):
    counts[(op["name"], what)] = counts.get((op["name"], what), 0) + n


def check(what, a, b):
    if a != b:
        errors.append(f"{what}: Flink {len(a) if hasattr(a, '__len__') else a} vs sp-inspect "
                      f"{len(b) if hasattr(b, '__len__') else b}; first difference: "
                      f"{sorted(set(a) ^ set(b))[:3] if isinstance(a, (list, set)) else (a, b)}")


for oid, f in flink.items():
    s = sp.get(oid)
    if s is None:
        errors.append(f"operator {oid} missing in sp-inspect's output")
        continue
    c = f["coordinator"]
    if c and c["type"] == "kafka":
        e = s["coordinator"]["enumerator"]
        fp = sorted((p["topic"], p["partition"], p["status"].lower()) for p in c["partitions"])
        sparts = sorted(tuple(p) for p in e["partitions"])
        check(f"{f['name']}: enumerator partitions", fp, sparts)
        fs = sorted(flink_split(x) for x in c["splits"])
        ss = sorted(split_key(x) for x in e["splits"])
        check(f"{f['name']}: enumerator splits", fs, ss)
        count(f, "enumerator partitions", len(fp))
        count(f, "enumerator splits", len(fs))
    ssub = {t["index"]: t for t in s["subtasks"]}
    for t in f["subtasks"]:
        st = {x["name"]: x for x in ssub[t["index"]]["operator_states"]}
        for state in t["operator_states"]:
            mine = st[state["name"]]
            where = f"{f['name']} subtask {t['index']} {state['name']}"
            check(where + ": elements", state["elements"], mine["elements"])
            if state["name"] == "SourceReaderState" and "cluster_id" not in state["decoded"][0]:
                fs = [flink_split(x) for x in state["decoded"]]
                check(where, fs, [split_key(x) for x in mine["splits"]])
                count(f, "reader splits", len(fs))
            elif state["name"] == "writer_raw_states":
                for fw, sw in zip(state["decoded"], mine["sink"]):
                    check(where + ": prefix", fw["transactional_id_prefix"], sw["transactional_id_prefix"])
                    check(where + ": owned subtask", (fw["owned_subtask_id"], fw["total_owned_subtasks"], fw["ownership"]),
                          (sw["owned_subtask_id"], sw["owned_subtasks"], sw["ownership"]))
                    fpre = [(p["transactional_id"], p["checkpoint_id"]) for p in fw["precommitted"]]
                    check(where + ": precommitted", fpre, [tuple(p) for p in sw["precommitted"]])
                    count(f, "writer states", 1)
                    count(f, "precommitted transactions", len(fpre))
            elif state["name"] == "streaming_committer_raw_states":
                for fc, sc in zip(state["decoded"], mine["sink"]):
                    fk = [(ck["checkpoint_id"], k["subtask_id"], k["state"], k["transactional_id"], k["producer_id"], k["epoch"])
                          for ck in fc["checkpoints"] for k in ck["committables"]]
                    sk = [(ck["checkpoint_id"], k["subtask_id"], k["state"], k["committable"]["transactional_id"],
                           k["committable"]["producer_id"], k["committable"]["epoch"])
                          for ck in sc["checkpoints"] for k in ck["committables"]]
                    check(where + ": committables", sorted(fk), sorted(sk))
                    count(f, "pending committables", len(fk))

for (op, what), v in sorted(counts.items()):
    print(f"{op:>22}  {what:<26} {v:>6}")
if errors:
    print("DIFFERENCES:", *errors, sep="\n  ")
    sys.exit(1)
print("sp-inspect agrees with the connector's serializers on every element")
