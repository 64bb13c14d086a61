#!/usr/bin/python3
"""py_workload.py — a python3 workload for tests/suites/40-programs.sh.

Dicts, string building and splitting, and a JSON round trip of ~50 MB,
all from a fixed seed.  Prints a few lines of results (sizes, sums and
SHA-256 digests) that are the same on every run and under any malloc.
No arguments; exit status 0, or 1 if the JSON round trip changed the data.
"""
import hashlib
import json
import random

rng = random.Random(7)

# Dicts: many inserts, overwrites and deletes, so tables grow and shrink.
d = {}
for i in range(400_000):
    d["k%d" % rng.randrange(200_000)] = i
for i in range(0, 200_000, 3):
    d.pop("k%d" % i, None)
print("dict", len(d), sum(d.values()) % 1_000_003)

# Strings: build, split, join, replace; many short-lived objects.
words = ["".join(rng.choices("abcdefgh", k=rng.randint(1, 9))) for _ in range(300_000)]
text = " ".join(words)
parts = text.replace("ab", "AB").split()
counts = {}
for w in parts:
    counts[w] = counts.get(w, 0) + 1
top = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:5]
print("strings", len(text), len(parts), top)

# JSON round trip of ~50 MB.
# Slices of `text` give each record a long string (cheap to make, so the
# time goes to the dicts and lists that json builds); tags and nested
# containers give many small blocks.
records = []
for i in range(150_000):
    at = rng.randrange(len(text) - 300)
    records.append({"id": i, "name": rng.choice(words), "score": rng.random(),
                    "text": text[at:at + 200],
                    "tags": rng.choices(words, k=rng.randint(0, 6)),
                    "nested": {"a": i * 3, "b": [i, -i, str(i)]}})
blob = json.dumps(records)
back = json.loads(blob)
if back != records:
    print("json round trip changed the data")
    raise SystemExit(1)
print("json", len(blob) // (1024 * 1024), "MiB",
      hashlib.sha256(blob.encode()).hexdigest())
