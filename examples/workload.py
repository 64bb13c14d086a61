"""workload.py - a real-program workload for `make demo` and the tests.

Builds ~50 MB of JSON from dicts and strings, parses it back, checks the
round trip, and does some dictionary and string work on the result, so
the interpreter makes millions of allocations of every size class (small
objects, growing lists and dicts, multi-megabyte strings).

Usage: python3 examples/workload.py [MEGABYTES]   (default 50)
Prints one line, "workload: records=N json_bytes=N words=N checksum=HEX",
identical on every run and under any malloc; exit status 0, or 1 if the
round trip lost data.
"""

import collections
import hashlib
import json
import random
import sys


def make_records(target_bytes, rng):
    """Yield dict records until roughly target_bytes of JSON are produced."""
    words = ["".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(2, 12)))
             for _ in range(5000)]
    # One long random word stream, sliced per record: one random call per
    # field instead of one per word keeps the run short (the allocator, not
    # the random module, is what is being exercised).
    stream = rng.choices(words, k=200000)
    produced = 0
    i = 0
    while produced < target_bytes:
        at = rng.randrange(len(stream) - 400)
        rec = {
            "id": i,
            "name": " ".join(stream[at:at + 1 + i % 4]).title(),
            "tags": stream[at + 7:at + 7 + i % 9],
            "score": round(rng.random() * 1000, 3),
            "attrs": {w: len(w) * i - at for w in stream[at + 20:at + 21 + i % 6]},
            "text": " ".join(stream[at + 30:at + 30 + 20 + (at * 7 + i) % 180]),
        }
        produced += 120 + len(rec["text"]) + 10 * len(rec["tags"]) + 20 * len(rec["attrs"])
        i += 1
        yield rec


def main(argv):
    """Run the workload; see the module docstring."""
    megabytes = int(argv[1]) if len(argv) > 1 else 50
    rng = random.Random(20240601)
    records = list(make_records(megabytes * 1000 * 1000, rng))
    blob = json.dumps(records, sort_keys=True)
    back = json.loads(blob)
    if back != records:
        print("workload: JSON round trip lost data", file=sys.stderr)
        return 1
    # Dictionary work: word frequencies and an index from tag to record ids.
    freq = collections.Counter()
    index = {}
    for rec in back:
        freq.update(rec["text"].split())
        for t in rec["tags"]:
            index.setdefault(t, []).append(rec["id"])
    # String work: rebuild, transform and join many short strings.
    top = sorted(freq.items(), key=lambda kv: (-kv[1], kv[0]))[:1000]
    summary = "\n".join("%s=%d:%s" % (w, n, w.upper()[::-1]) for w, n in top)
    digest = hashlib.sha256()
    digest.update(blob.encode())
    digest.update(summary.encode())
    for tag in sorted(index):
        digest.update(("%s:%d" % (tag, sum(index[tag]))).encode())
    nrecords, nbytes = len(records), len(blob)
    del records, back, blob
    print("workload: records=%d json_bytes=%d words=%d checksum=%s"
          % (nrecords, nbytes, len(freq), digest.hexdigest()[:32]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
