#!/usr/bin/env python3
"""Writes a chat request log for the simulator's --workload log (one JSON object per line: arrival_ms,
output_tokens, session_id, body), shaped unlike the simulator's own chat generator: by default 12 system prompts of
800-3,500 tokens with zipf(0.8) popularity, sessions of 2-8 turns, user messages of 30-500 tokens, answers of
80-600 tokens carried into the next turn's body, and 5-40 s of reading and typing between turns. A replay keeps
each request's arrival time, so at a high --speedup a session's next turn may come before its last answer.

usage: chat_log.py [SEED] [SESSIONS] [SESSIONS_PER_SECOND] [--groups N] [--system-tokens LO-HI] [--turns LO-HI]
                   [--user-tokens LO-HI] [--answer-tokens LO-HI] > chat.jsonl
       (defaults 7, 800, 2.0, 12, 800-3500, 2-8, 30-500, 80-600; ranges are drawn uniformly per item)
"""
import argparse
import json
import random


def int_range(value):
    low, _, high = value.partition('-')
    try:
        low, high = int(low), int(high or low)
    except ValueError:
        low, high = 0, 0
    if not 0 < low <= high:
        raise argparse.ArgumentTypeError('expected LO-HI with 0 < LO <= HI, got ' + value)
    return low, high


options = argparse.ArgumentParser(usage=__doc__.split('usage: ')[1].split('\n')[0])
options.add_argument('seed', nargs='?', type=int, default=7)
options.add_argument('sessions', nargs='?', type=int, default=800)
options.add_argument('rate', nargs='?', type=float, default=2.0, help='sessions per second')
options.add_argument('--groups', type=int, default=12, help='system prompts, zipf(0.8) popularity')
options.add_argument('--system-tokens', type=int_range, default=(800, 3500))
options.add_argument('--turns', type=int_range, default=(2, 8))
options.add_argument('--user-tokens', type=int_range, default=(30, 500))
options.add_argument('--answer-tokens', type=int_range, default=(80, 600))
args = options.parse_args()
if args.groups < 1 or args.sessions < 1 or args.rate <= 0:
    options.error('--groups and SESSIONS must be at least 1 and SESSIONS_PER_SECOND above 0')
seed, sessions, rate = args.seed, args.sessions, args.rate

rng = random.Random(seed)
vocabulary = [''.join(rng.choice('abcdefghijklmnopqrstuvwxyz') for _ in range(rng.randint(2, 9)))
              for _ in range(5000)]


def text(r, tokens):
    """About `tokens` tokens (4 characters each) of words drawn with `r`."""
    words, length = [], 0
    while length < tokens * 4:
        word = r.choice(vocabulary)
        words.append(word)
        length += len(word) + 1
    return ' '.join(words)[:tokens * 4]


popularity = [1 / (g + 1) ** 0.8 for g in range(args.groups)]
system_prompts = [text(random.Random(1000 + g), rng.randint(*args.system_tokens)) for g in range(args.groups)]

rows = []
start = 0.0
for s in range(sessions):
    start += rng.expovariate(rate)
    group = rng.choices(range(args.groups), popularity)[0]
    r = random.Random(s * 7919 + 13)  # a session's text does not depend on the others'
    messages = [{"role": "system", "content": system_prompts[group]}]
    at = start
    for turn in range(r.randint(*args.turns)):
        messages.append({"role": "user", "content": text(r, r.randint(*args.user_tokens))})
        answer = r.randint(*args.answer_tokens)
        rows.append({"arrival_ms": round(at * 1000), "output_tokens": answer, "session_id": "s%d" % s,
                     "body": {"model": "m", "stream": True, "messages": list(messages)}})
        messages.append({"role": "assistant", "content": text(r, answer)})
        at += answer * 0.012 + r.uniform(5, 40)  # the answer streams at 12 ms a token, then the user reads and types

rows.sort(key=lambda row: row["arrival_ms"])
for row in rows:
    print(json.dumps(row))
