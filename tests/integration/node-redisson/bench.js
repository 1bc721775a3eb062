// node-redisson peer for lockscope-bench (tests/bench): the same two client measurements as
// LockScope's LockClient, on the same redis-server, printed as one JSON line on stdout.
//   node bench.js PORT [PAIRS_MS] [HANDOFFS]
//   node bench.js PORT serve     (rounds on request, for interleaving with LockScope's rounds:
//                                 each stdin line `pairs MS` or `handoff N` is answered by one JSON
//                                 line on stdout; `quit` or end of input ends it)
// - pairs/s: one lock object, `await lock(); await unlock();` back to back (uncontended, watchdog
//   lease as lock() without arguments) for PAIRS_MS ms (default 5000).
// - hand-off: client A holds the lock, client B is blocked in lock(); A unlocks at t0 and B holds
//   at t1; t1 - t0 over HANDOFFS rounds (default 200), roles alternating. p50/p99 in ms.
'use strict';
const { Redisson } = require('node-redisson');

const port = Number(process.argv[2]);
const pairsMs = Number(process.argv[3] || 5000);
const handoffs = Number(process.argv[4] || 200);
const make = () => new Redisson({ redis: { options: { host: '127.0.0.1', port, connectionName: 'bench-node' } } });
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const nowMs = () => Number(process.hrtime.bigint()) / 1e6;
const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))];

async function pairsRound(lock, ms) {
  let n = 0;
  const start = nowMs();
  while (nowMs() - start < ms) {
    await lock.lock();
    await lock.unlock();
    ++n;
  }
  return n / ((nowMs() - start) / 1000);
}

async function pairs(client) {
  const lock = client.getLock('bench:node:pairs', '1');
  await lock.lock(); // warm-up: scripts loaded, connection up
  await lock.unlock();
  return pairsRound(lock, pairsMs);
}

async function handoff(a, b, handoffs) {
  const name = 'bench:node:handoff';
  const locks = [a.getLock(name, '1'), b.getLock(name, '2')];
  const samples = [];
  await locks[0].lock();
  for (let i = 0; i < handoffs; ++i) {
    const holder = locks[i % 2];
    const waiter = locks[(i + 1) % 2];
    let t1 = 0;
    const waited = waiter.lock().then(() => { t1 = nowMs(); });
    await sleep(15); // the waiter is subscribed and blocked
    const t0 = nowMs();
    await holder.unlock();
    await waited;
    samples.push(t1 - t0);
  }
  await locks[handoffs % 2].unlock();
  samples.sort((x, y) => x - y);
  return { p50: pct(samples, 0.5), p99: pct(samples, 0.99), n: samples.length };
}

async function serve(a, b) {
  const lock = a.getLock('bench:node:pairs', '1');
  await lock.lock(); // warm-up: scripts loaded, connection up
  await lock.unlock();
  const reply = (o) => process.stdout.write(JSON.stringify(Object.assign({ client: 'node-redisson' }, o)) + '\n');
  process.stdout.write(JSON.stringify({ client: 'node-redisson', ready: true }) + '\n');
  const lines = require('readline').createInterface({ input: process.stdin });
  for await (const line of lines) {
    const [verb, arg] = line.trim().split(/\s+/);
    try {
      if (verb === 'pairs') {
        reply({ pairs_per_s: await pairsRound(lock, Number(arg)) });
      } else if (verb === 'handoff') {
        const h = await handoff(a, b, Number(arg));
        reply({ handoff_p50_ms: h.p50, handoff_p99_ms: h.p99, handoffs: h.n });
      } else if (verb === 'quit') {
        break;
      } else {
        reply({ error: `unknown request '${line.trim()}'` });
      }
    } catch (e) {
      reply({ error: String(e && e.message) });
    }
  }
}

(async () => {
  const a = make();
  const b = make();
  try {
    if (process.argv[3] === 'serve') {
      await serve(a, b);
    } else {
      const pairsPerS = await pairs(a);
      const h = await handoff(a, b, handoffs);
      process.stdout.write(JSON.stringify({ client: 'node-redisson', pairs_per_s: pairsPerS, handoff_p50_ms: h.p50,
                                            handoff_p99_ms: h.p99, handoffs: h.n }) + '\n');
    }
  } catch (e) {
    process.stdout.write(JSON.stringify({ client: 'node-redisson', error: String(e && e.message) }) + '\n');
  }
  await Promise.all([a, b].map((c) => c.quit().catch(() => {})));
  process.exit(0);
})();
