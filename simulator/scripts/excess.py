#!/usr/bin/env python3
"""Splits each router's mean TTFT above the lower bound into cache it missed and time it queued, from a run's
--requests CSV (the simulator writes each request's lone TTFT and its own bound in it):

  missed ms = mean of (TTFT alone on an idle instance holding what the chosen instance had cached) - bound TTFT
  queued ms = mean TTFT - mean of that lone TTFT

A router whose excess is mostly queued cannot gain much by caching more, and one near the bound's hits only by
queueing less. Then how much of it its choices cost by the lookahead reference's estimate (knowing every queue and
cache), request by request:

  regret ms = mean of (lookahead TTFT on the chosen instance - the least lookahead TTFT) at each arrival

usage: excess.py REQUESTS.csv
"""
import csv
import sys
from collections import defaultdict


def main(args):
    if len(args) != 1:
        sys.exit(__doc__)
    runs = defaultdict(list)
    with open(args[0], newline='') as f:
        for row in csv.DictReader(f):
            if row['lone_ttft_ms'] == '':
                sys.exit('no bound in this CSV (services of different speed have none)')
            runs[(row['rate'], row['router'])].append(row)
    print('| rate | router | hit % | bound hit % | TTFT mean ms | bound ms | missed ms | queued ms | regret ms |')
    print('|---|---|---:|---:|---:|---:|---:|---:|---:|')
    for (rate, router), rows in runs.items():
        n = len(rows)
        input_tokens = sum(int(r['input_tokens']) for r in rows)
        cached = sum(int(r['cached_tokens']) for r in rows)
        bound_cached = sum(int(r['bound_cached_tokens']) for r in rows)
        ttft = sum(float(r['ttft_ms']) for r in rows) / n
        lone = sum(float(r['lone_ttft_ms']) for r in rows) / n
        bound = sum(float(r['bound_ttft_ms']) for r in rows) / n
        regrets = [float(r['lookahead_regret_ms']) for r in rows if r.get('lookahead_regret_ms')]
        regret = f'{sum(regrets) / len(regrets):.1f}' if regrets else '-'
        print(f'| {rate} | {router} | {100 * cached / input_tokens:.1f} | {100 * bound_cached / input_tokens:.1f} '
              f'| {ttft:.1f} | {bound:.1f} | {lone - bound:.1f} | {ttft - lone:.1f} | {regret} |')


if __name__ == '__main__':
    main(sys.argv[1:])
