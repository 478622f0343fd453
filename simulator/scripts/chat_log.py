#!/usr/bin/env python3
"""Writes a chat request log for the simulator's --workload log (one JSON object per line: arrival_ms,
output_tokens, session_id, body), shaped unlike the simulator's own chat generator: 12 system prompts of
800-3,500 tokens with zipf(0.8) popularity, sessions of 2-8 turns, user messages of 30-500 tokens, answers of
80-600 tokens carried into the next turn's body, and 5-40 s of reading and typing between turns. A replay keeps
each request's arrival time, so at a high --speedup a session's next turn may come before its last answer.

usage: chat_log.py [SEED] [SESSIONS] [SESSIONS_PER_SECOND] > chat.jsonl   (defaults 7, 800, 2.0)
"""
import json
import random
import sys

seed = int(sys.argv[1]) if len(sys.argv) > 1 else 7
sessions = int(sys.argv[2]) if len(sys.argv) > 2 else 800
rate = float(sys.argv[3]) if len(sys.argv) > 3 else 2.0

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


GROUPS = 12
popularity = [1 / (g + 1) ** 0.8 for g in range(GROUPS)]
system_prompts = [text(random.Random(1000 + g), rng.randint(800, 3500)) for g in range(GROUPS)]

rows = []
start = 0.0
for s in range(sessions):
    start += rng.expovariate(rate)
    group = rng.choices(range(GROUPS), popularity)[0]
    r = random.Random(s * 7919 + 13)  # a session's text does not depend on the others'
    messages = [{"role": "system", "content": system_prompts[group]}]
    at = start
    for turn in range(r.randint(2, 8)):
        messages.append({"role": "user", "content": text(r, r.randint(30, 500))})
        answer = r.randint(80, 600)
        rows.append({"arrival_ms": round(at * 1000), "output_tokens": answer, "session_id": "s%d" % s,
                     "body": {"model": "m", "stream": True, "messages": list(messages)}})
        messages.append({"role": "assistant", "content": text(r, answer)})
        at += answer * 0.012 + r.uniform(5, 40)  # the answer streams at 12 ms a token, then the user reads and types

rows.sort(key=lambda row: row["arrival_ms"])
for row in rows:
    print(json.dumps(row))
