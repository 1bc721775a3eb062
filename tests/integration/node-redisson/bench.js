// node-redisson peer for lockscope-bench (tests/bench): the same two client measurements as
// LockScope's LockClient, on the same redis-server, printed as one JSON line on stdout.
//   node bench.js PORT [PAIRS_MS] [HANDOFFS]
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

async function pairs(client) {
  const lock = client.getLock('bench:node:pairs', '1');
  await lock.lock(); // warm-up: scripts loaded, connection up
  await lock.unlock();
  let n = 0;
  const start = nowMs();
  while (nowMs() - start < pairsMs) {
    await lock.lock();
    await lock.unlock();
    ++n;
  }
  return n / ((nowMs() - start) / 1000);
}

async function handoff(a, b) {
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

(async () => {
  const a = make();
  const b = make();
  try {
    const pairsPerS = await pairs(a);
    const h = await handoff(a, b);
    process.stdout.write(JSON.stringify({ client: 'node-redisson', pairs_per_s: pairsPerS, handoff_p50_ms: h.p50,
                                          handoff_p99_ms: h.p99, handoffs: h.n }) + '\n');
  } catch (e) {
    process.stdout.write(JSON.stringify({ client: 'node-redisson', error: String(e && e.message) }) + '\n');
  }
  await Promise.all([a, b].map((c) => c.quit().catch(() => {})));
  process.exit(0);
})();
