#!/usr/bin/env python3
"""Where a router's cache hits go on a trace of block hashes (the Mooncake format: one JSON object per line with
"hash_ids"), from the simulator's per-request CSV (--requests).

  python3 simulator/scripts/prefix_anatomy.py TRACE.jsonl REQUESTS.csv [--limit N]

A request continues the earlier one the CSV's "continues" column names (the simulator's Workload.previousTurns: the
latest earlier request sharing more than its first block), sharing their common leading blocks. Per rate and router,
of those requests: how many went to their
predecessor's instance and found the shared prefix there (kept), went there and found it gone (lost: evicted), and
how many went elsewhere (moved), with the shared tokens they did not find cached; and of the lost ones, how many the
router's decision counted as cached (the CSV's counted_cached_tokens; "-" for a router that does not report it).
"""
import argparse
import collections
import csv
import json

BLOCK_TOKENS = 512


def shared_blocks(ids, earlier):
    """How many leading blocks two requests' hash ids have in common."""
    n = 0
    for a, b in zip(ids, earlier):
        if a != b:
            break
        n += 1
    return n


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('trace')
    parser.add_argument('requests')
    parser.add_argument('--limit', type=int, default=0, help='the first N trace lines, as the run\'s --limit')
    args = parser.parse_args()
    with open(args.trace) as f:
        trace = [json.loads(line)['hash_ids'] for line in f if line.strip()]
    if args.limit > 0:
        trace = trace[:args.limit]

    runs = collections.defaultdict(dict)
    with open(args.requests) as f:
        for row in csv.DictReader(f):
            runs[(row['rate'], row['router'])][int(row['request'])] = row

    print('| rate | router | hit % | continuing | kept | lost | of those, counted as cached | moved |')
    print('|---|---|---:|---:|---:|---:|---:|---:|')
    for (rate, router), rows in runs.items():
        prompt = sum(int(r['input_tokens']) for r in rows.values())
        cached = sum(int(r['cached_tokens']) for r in rows.values())
        count = collections.Counter()
        missed = collections.Counter()
        counted_lost = 0
        reports = any(r.get('counted_cached_tokens') for r in rows.values())
        for i, row in rows.items():
            j = int(row['continues']) if row['continues'] else None
            if j is None or j not in rows:
                continue
            blocks = shared_blocks(trace[i], trace[j])
            shared = min(blocks * BLOCK_TOKENS, int(row['input_tokens']))
            lost = shared - min(int(row['cached_tokens']), shared)
            if row['backend'] != rows[j]['backend']:
                kind = 'moved'
            elif lost <= BLOCK_TOKENS:
                kind = 'kept'
            else:
                kind = 'lost'
                if reports and int(row['counted_cached_tokens'] or 0) >= shared - BLOCK_TOKENS:
                    counted_lost += 1
            count[kind] += 1
            missed[kind] += lost

        def cell(kind):
            return f'{count[kind]} ({missed[kind]:,} tok)' if kind != 'kept' else str(count[kind])

        print(f'| {rate} | {router} | {100 * cached / max(1, prompt):.2f} | {sum(count.values())} | {cell("kept")} '
              f'| {cell("lost")} | {counted_lost if reports else "-"} | {cell("moved")} |')


if __name__ == '__main__':
    main()
