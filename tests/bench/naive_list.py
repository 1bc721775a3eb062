#!/usr/bin/python3
"""The naive script an operator would write instead of `lockscope-cli list --json`: lockscope-bench's
peer column for the read path. SCAN ... TYPE hash COUNT 1000, then HGETALL + PTTL of every hash in
pipelines of 1000 (redis-py, no transaction), keeping hashes whose fields look like <uuid>:<thread>.
One JSON line per lock on stdout (name, holders, ttl), then nothing else.

    naive_list.py PORT
"""
import json
import re
import sys

import redis

HOLDER = re.compile(rb"^[0-9a-fA-F-]{36}:\d+$")


def main():
    r = redis.Redis(host="127.0.0.1", port=int(sys.argv[1]))
    out = sys.stdout
    names = []

    def flush():
        pipe = r.pipeline(transaction=False)
        for n in names:
            pipe.hgetall(n)
            pipe.pttl(n)
        replies = pipe.execute()
        for i, n in enumerate(names):
            fields, ttl = replies[2 * i], replies[2 * i + 1]
            if fields and all(HOLDER.match(f) for f in fields):
                holders = {f.decode(): int(v) for f, v in fields.items()}
                out.write(json.dumps({"name": n.decode(), "holders": holders, "ttl_ms": ttl}) + "\n")
        names.clear()

    for key in r.scan_iter(count=1000, _type="hash"):
        names.append(key)
        if len(names) >= 1000:
            flush()
    if names:
        flush()
    out.flush()


if __name__ == "__main__":
    main()
