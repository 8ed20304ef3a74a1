#!/usr/bin/env python3
# Check the fsaio trace dumped by init.sh: per-request event sequences.
import re, sys, collections
lines = open(sys.argv[1], errors='replace').read().split('=== TRACE BEGIN')[1].split('=== TRACE END')[0].splitlines()
ev_re = re.compile(r'^\s*(\S+)-(\d+)\s+\[\d+\]\s+\S+\s+([\d.]+): (fsaio_\w+): (.*)$')
state = {}   # req -> list of events in current life
errs = collections.Counter(); seqs = collections.Counter(); n = 0
def fields(s): return dict(kv.split('=', 1) for kv in s.split() if '=' in kv)
for l in lines:
    m = ev_re.match(l)
    if not m: continue
    comm, pid, ts, ev, rest = m.groups(); f = fields(rest); n += 1
    if ev == 'fsaio_wait_bit': seqs['wait_bit'] += 1; continue
    req = f['req']
    life = state.setdefault(req, [])
    if ev == 'fsaio_submit':
        if life: errs['submit while in flight'] += 1
        life[:] = [('submit', pid)]; continue
    if not life: errs[ev + ' without submit'] += 1; continue
    last = life[-1][0]
    name = ev[6:]
    ok = {'retry': ('submit', 'resume'), 'wake': ('retry',), 'resume': ('wake', 'punt'),
          'punt': ('submit', 'resume'), 'complete': ('submit', 'resume', 'punt')}[name]
    if last not in ok:
        errs[f'{name} after {last}'] += 1
    if name == 'resume' and last == 'punt' and life[-1][2] != '0': errs['resume after in-worker punt'] += 1
    if name == 'resume' and f['same_mm'] != '1' and f['mm'] != '0000000000000000': errs['resume not in submitter mm'] += 1
    life.append((name, pid, f.get('in_worker', '')))
    if name == 'complete':
        seqs[' '.join(x[0] for x in life)[:80]] += 1
        del state[req]
print('events', n, 'in flight at end', len(state))
for k, v in seqs.most_common(12): print(f'{v:5d}  {k}')
print('ERRORS:', dict(errs) if errs else 'none')
