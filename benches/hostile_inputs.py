#!/usr/bin/env python3
"""Writes the hostile inputs of benches/hostile.sh. Standard library only; deterministic.

    hostile_inputs.py long-names GRAPH OUT [--ops 10] [--bytes 65535] [--char x]
        GRAPH's operators (and extra ones up to --ops), every name --bytes bytes of UTF-8 without spaces.
    hostile_inputs.py big-uid GRAPH OUT_MANIFEST OUT_UIDS [--bytes 1048576]
        GRAPH's operators with one extra operator whose uid is --bytes long (its ID left to the uid's hash),
        and a uid list (`# sp-inspect/uids-v1`) holding that uid.
    hostile_inputs.py many-ops OUT --bytes N
        A valid graph manifest of many operators (uid, name, inputs) of exactly N bytes (JSON whitespace pads).
    hostile_inputs.py patch-names METADATA EXPECTED OUT [--bytes 65535]
        A copy of a format 5+ `_metadata` whose operator names are --bytes long. Operators are found by
        Flink's own reading of the file (the fixture's expected.json): each is written as
        writeUTF(name), writeUTF(uid or ""), 16-byte operator ID, and that byte string is searched for.
"""
import argparse
import json
import struct


def utf(s: bytes) -> bytes:
    assert len(s) <= 0xFFFF, len(s)
    return struct.pack(">H", len(s)) + s


def long_name(i: int, n: int, char: str) -> str:
    prefix = f"op{i}-"
    unit = char.encode()
    body = n - len(prefix)
    s = prefix + char * (body // len(unit)) + "x" * (body % len(unit))
    assert len(s.encode()) == n
    return s


def long_names(a):
    g = json.load(open(a.graph))
    ops = g["operators"]
    for i in range(len(ops), a.ops):
        ops.append({"uid": f"extra-{i}", "inputs": [ops[-1]["id"]] if "id" in ops[-1] else []})
    for i, op in enumerate(ops):
        op["name"] = long_name(i, a.bytes, a.char)
    json.dump(g, open(a.out, "w"), ensure_ascii=False)


def big_uid(a):
    g = json.load(open(a.graph))
    uid = "u" * a.bytes
    g["operators"].append({"uid": uid, "name": "big uid", "inputs": []})
    json.dump(g, open(a.out_manifest, "w"))
    with open(a.out_uids, "w") as f:
        f.write("# sp-inspect/uids-v1\n" + uid + "\n")


def many_ops(a):
    head = '{"schema":"sp-inspect/graph-v1","generator":"benches/hostile_inputs.py","operators":[\n'
    tail = "\n]}\n"
    parts, size, i = [], len(head) + len(tail), 0
    while True:
        op = {"uid": f"operator-uid-{i:07d}", "name": f"Map {i}: some operator name",
              "inputs": [], "parallelism": 4}
        text = json.dumps(op, separators=(",", ":"))
        extra = len(text) + (2 if parts else 0)
        if size + extra > a.bytes - 64:
            break
        parts.append(text)
        size += extra
        i += 1
    body = head + ",\n".join(parts) + tail
    pad = a.bytes - len(body.encode())
    assert pad >= 0
    with open(a.out, "w") as f:
        f.write(body + " " * pad)
    print(f"{a.out}: {i} operators, {a.bytes} bytes")


def patch_names(a):
    data = open(a.metadata, "rb").read()
    version = struct.unpack(">i", data[4:8])[0]
    assert version >= 5, "names are stored from format 5 on"
    ops = json.load(open(a.expected))["operators"]
    found = []
    for op in ops:
        key = utf((op["name"] or "").encode()) + utf((op["uid"] or "").encode()) + bytes.fromhex(op["id"])
        at = data.find(key)
        assert at > 0 and data.find(key, at + 1) < 0, f"operator {op['id']}: not found once"
        found.append((at, op))
    out, last = bytearray(), 0
    for i, (at, op) in enumerate(sorted(found, key=lambda x: x[0])):
        old = utf((op["name"] or "").encode())
        out += data[last:at] + utf(long_name(i, a.bytes, "x").encode())
        last = at + len(old)
    out += data[last:]
    open(a.out, "wb").write(out)
    print(f"{a.out}: {len(found)} operator names of {a.bytes} bytes, {len(out)} bytes")


p = argparse.ArgumentParser()
sub = p.add_subparsers(dest="cmd", required=True)
s = sub.add_parser("long-names"); s.add_argument("graph"); s.add_argument("out")
s.add_argument("--ops", type=int, default=10); s.add_argument("--bytes", type=int, default=65535)
s.add_argument("--char", default="x"); s.set_defaults(f=long_names)
s = sub.add_parser("big-uid"); s.add_argument("graph"); s.add_argument("out_manifest"); s.add_argument("out_uids")
s.add_argument("--bytes", type=int, default=1 << 20); s.set_defaults(f=big_uid)
s = sub.add_parser("many-ops"); s.add_argument("out"); s.add_argument("--bytes", type=int, required=True)
s.set_defaults(f=many_ops)
s = sub.add_parser("patch-names"); s.add_argument("metadata"); s.add_argument("expected"); s.add_argument("out")
s.add_argument("--bytes", type=int, default=65535); s.set_defaults(f=patch_names)
a = p.parse_args()
a.f(a)
