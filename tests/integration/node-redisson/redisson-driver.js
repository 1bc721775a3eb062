// A "Java Redisson client" for tests/integration/tst_redissonlua: it runs Redisson's own lock Lua
// texts (redisson-lua.js reads them from the Redisson 4.7.0 source) with the KEYS/ARGV Redisson
// passes, and behaves like Redisson around them (protocol doc §1.5, §2-§5, §14):
//   * a client id (random UUID) per client object, numeric thread ids, field "<clientId>:<threadId>";
//   * the watchdog: per client one LockTask and one ReadLockTask timer, every watchdogMs/3, renewing
//     its watchdog-managed locks with the batched renewal scripts, chunks of 100, grouped by hash
//     slot with --cluster (RenewalTask.execute); a 0 reply drops the name from renewal;
//   * the waiting algorithm of RedissonLock.lock(): try, subscribe (one subscription per client and
//     channel), retry, block on a semaphore min(ttl, remaining) or forever when ttl < 0, retry;
//     message "0" releases one permit, "1" wakes every thread waiting (LockPubSub.onMessage);
//     fair waiters listen on their own channel, read/write waiters on redisson_rwlock:{name};
//   * unlock with a fresh 32-hex request id and the latch key, then the fire-and-forget DEL of it.
//
// Usage: node redisson-driver.js PORT [--watchdog-ms N] [--fair-wait-ms N] [--publish-cmd publish|spublish]
//                                     [--cluster]
// (spublish makes waiters SSUBSCRIBE, as Redisson does on a Redis 7 cluster.)
//
// One command per line on stdin; answers on stdout, one line each, words separated by spaces:
//   lock|fairlock|readlock|writelock|fencedlock CLIENT NAME THREAD [leaseMs]
//        blocking lock(); prints "WAITING KIND NAME CLIENT THREAD ttl=N" once it has tried, subscribed
//        and retried without success, then "ACQUIRED KIND NAME CLIENT THREAD [token=N]" when it holds.
//   trylock|fairtrylock|readtrylock|writetrylock CLIENT NAME THREAD WAITMS [leaseMs]
//        tryLock(wait, lease): "TRYLOCK KIND NAME CLIENT THREAD true|false"
//   unlock|fairunlock|readunlock|writeunlock|fencedunlock CLIENT NAME THREAD
//        "UNLOCKED KIND NAME CLIENT THREAD result=0|1" or "ERR unlock ... IllegalMonitorStateException"
//   forceunlock|fairforceunlock|readforceunlock|writeforceunlock CLIENT NAME
//        "FORCEUNLOCKED KIND NAME result=true|false"
//   id CLIENT            "ID CLIENT <uuid>"
//   holds KIND CLIENT NAME THREAD   "HOLDS KIND NAME CLIENT THREAD <hold count>"
//   renewals CLIENT      "RENEWALS CLIENT <count of EVALs the watchdog ran> <names renewed>"
//   quit
// CLIENT is any word naming a client object (created on first use); errors: "ERR <cmd> <message>".
'use strict';
const crypto = require('crypto');
const readline = require('readline');
const Redis = require('ioredis');
const { loadScripts } = require('./redisson-lua');

const args = process.argv.slice(2);
const port = Number(args[0]);
const opt = (name, dflt) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : dflt;
};
const watchdogMs = Number(opt('--watchdog-ms', 30000));
const fairWaitMs = Number(opt('--fair-wait-ms', 300000));
const publishCmd = opt('--publish-cmd', 'publish');
const cluster = args.includes('--cluster');
const sharded = publishCmd === 'spublish';
const chunkSize = 100; // lockWatchdogBatchSize
// unlockInnerAsync: (timeout + retryDelay.calcDelay(retryAttempts)) * retryAttempts, defaults
// timeout 3000, retryAttempts 4, EqualJitter 1000..2000 → 16000..20000; take the middle.
const latchTimeoutMs = (3000 + 1500) * 4;

const { origin: scriptOrigin, scripts: S } = loadScripts();
const say = (line) => process.stdout.write(line + '\n');

// --- RedissonObject.prefixName / suffixName, cluster slot (protocol doc §1.2, §7)
const prefixName = (prefix, name) => (name.includes('{') ? `${prefix}:${name}` : `${prefix}:{${name}}`);
const suffixName = (name, suffix) => (name.includes('{') ? `${name}:${suffix}` : `{${name}}:${suffix}`);
function crc16(buf) {
  let crc = 0;
  for (const b of buf) {
    crc ^= b << 8;
    for (let i = 0; i < 8; i++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc;
}
function calcSlot(key) {
  const s = key.indexOf('{');
  if (s >= 0) {
    const e = key.indexOf('}', s + 1);
    if (e > s + 1) key = key.slice(s + 1, e);
  }
  return crc16(Buffer.from(key, 'utf8')) % 16384;
}

const newConnection = () =>
  cluster ? new Redis.Cluster([{ host: '127.0.0.1', port }]) : new Redis({ host: '127.0.0.1', port });
const evalScript = (conn, script, keys, argv) => conn.eval(script, keys.length, ...keys, ...argv.map(String));

// --- RedissonLockEntry: a semaphore with 0 permits, plus the subscription refcount
class LockEntry {
  constructor() { this.permits = 0; this.waiters = []; this.refs = 0; }
  release() { // latch.release()
    const w = this.waiters.shift();
    if (w) w(true); else this.permits++;
  }
  releaseAll() { // latch.release(latch.getQueueLength())
    const ws = this.waiters.splice(0);
    for (const w of ws) w(true);
  }
  tryAcquire(ms) { // ms < 0 or undefined: acquireUninterruptibly()
    if (this.permits > 0) { this.permits--; return Promise.resolve(true); }
    return new Promise((resolve) => {
      let timer = null;
      const w = (v) => { if (timer) clearTimeout(timer); resolve(v); };
      this.waiters.push(w);
      if (ms !== undefined && ms >= 0)
        timer = setTimeout(() => {
          const i = this.waiters.indexOf(w);
          if (i >= 0) this.waiters.splice(i, 1);
          resolve(false);
        }, ms);
    });
  }
}

// --- renewal/LockTask and ReadLockTask: one per client, each with its own timer
class RenewalTask {
  constructor(client, read) { this.client = client; this.read = read; this.entries = new Map(); this.timer = null; }
  add(name, threadId, lockName, keyPrefix) {
    let e = this.entries.get(name);
    if (!e) { e = { queue: [], counter: new Map(), lockName: new Map(), keyPrefix: new Map() }; this.entries.set(name, e); }
    e.counter.set(threadId, (e.counter.get(threadId) || 0) + 1);
    e.queue.push(threadId);
    if (!e.lockName.has(threadId)) e.lockName.set(threadId, lockName);
    if (!e.keyPrefix.has(threadId)) e.keyPrefix.set(threadId, keyPrefix);
    if (!this.timer) this.schedule();
  }
  cancel(name, threadId) { // RenewalTask.cancelExpirationRenewal
    const e = this.entries.get(name);
    if (!e) return;
    if (threadId !== null) {
      const c = (e.counter.get(threadId) || 0) - 1;
      if (c <= 0) {
        e.counter.delete(threadId); e.lockName.delete(threadId); e.keyPrefix.delete(threadId);
        e.queue = e.queue.filter((t) => t !== threadId);
      } else e.counter.set(threadId, c);
    }
    if (threadId === null || e.queue.length === 0) this.entries.delete(name);
    if (this.entries.size === 0 && this.timer) { clearTimeout(this.timer); this.timer = null; }
  }
  schedule() {
    this.timer = setTimeout(() => this.run(), watchdogMs / 3);
  }
  async run() {
    try {
      const groups = new Map();
      for (const name of this.entries.keys()) {
        const slot = cluster ? calcSlot(name) : 0;
        if (!groups.has(slot)) groups.set(slot, []);
        groups.get(slot).push(name);
      }
      for (const names of groups.values())
        for (let i = 0; i < names.length; i += chunkSize) await this.renewChunk(names.slice(i, i + chunkSize));
    } catch (e) {
      say(`LOG renewal error client=${this.client.label} ${e.message}`);
    }
    if (this.entries.size > 0) this.schedule(); else this.timer = null;
  }
  async renewChunk(names) {
    const live = names.filter((n) => this.entries.has(n) && this.entries.get(n).queue.length > 0);
    if (!live.length) return;
    let keys, argv;
    const threadsOf = new Map();
    if (!this.read) { // LockTask.buildChunk
      keys = live;
      argv = [watchdogMs, ...live.map((n) => { const e = this.entries.get(n); return e.lockName.get(e.queue[0]); })];
    } else { // ReadLockTask.buildChunk
      keys = []; argv = [watchdogMs];
      for (const n of live) {
        const e = this.entries.get(n);
        keys.push(n, e.keyPrefix.get(e.queue[0]));
        const lockNames = [...e.lockName.values()];
        threadsOf.set(n, [...e.lockName.keys()]);
        argv.push(lockNames.length, ...lockNames);
      }
    }
    const result = await evalScript(this.client.conn, this.read ? S.readRenew : S.renew, keys, argv);
    this.client.renewalEvals++;
    live.forEach((n, i) => {
      if (result[i] === 1) { this.client.renewed.add(n); return; }
      if (this.read) for (const t of threadsOf.get(n) || []) this.cancel(n, t);
      else { const e = this.entries.get(n); if (e) this.cancel(n, e.queue[0]); }
    });
  }
}

// --- a RedissonClient
class Client {
  constructor(label) {
    this.label = label;
    this.id = crypto.randomUUID();
    this.conn = newConnection();
    this.sub = null;
    this.entries = new Map(); // channel -> LockEntry
    this.lockTask = new RenewalTask(this, false);
    this.readLockTask = new RenewalTask(this, true);
    this.renewalEvals = 0;
    this.renewed = new Set();
    this.leases = new Map(); // internalLockLeaseTime per lock object (kind|name)
  }
  subscriber() {
    if (!this.sub) {
      this.sub = newConnection();
      const onMessage = (channel, message) => {
        const e = this.entries.get(channel);
        if (!e) return;
        if (message === '0') e.release();
        else if (message === '1') e.releaseAll();
      };
      this.sub.on('message', onMessage);
      this.sub.on('smessage', onMessage);
    }
    return this.sub;
  }
  async subscribe(channel) { // LockPubSub.subscribe: one subscription per client and channel
    let e = this.entries.get(channel);
    if (!e) {
      e = new LockEntry();
      this.entries.set(channel, e);
      e.subscribed = sharded ? this.subscriber().ssubscribe(channel) : this.subscriber().subscribe(channel);
    }
    e.refs++;
    await e.subscribed;
    return e;
  }
  async unsubscribe(channel) {
    const e = this.entries.get(channel);
    if (!e || --e.refs > 0) return;
    this.entries.delete(channel);
    await (sharded ? this.sub.sunsubscribe(channel) : this.sub.unsubscribe(channel));
  }
  lockName(threadId) { return `${this.id}:${threadId}`; }
  async quit() {
    clearTimeout(this.lockTask.timer); clearTimeout(this.readLockTask.timer);
    await Promise.all([this.conn.quit().catch(() => {}), this.sub && this.sub.quit().catch(() => {})]);
  }
}

const clients = new Map();
const clientOf = (label) => {
  if (!clients.has(label)) clients.set(label, new Client(label));
  return clients.get(label);
};
const requestId = () => crypto.randomBytes(16).toString('hex'); // ServiceManager.generateId

// --- the lock kinds: acquire (EVAL_LONG shape: null = acquired, else ttl), channel, unlock, force
const KINDS = {
  lock: {
    channel: (c, name) => prefixName('redisson_lock__channel', name),
    acquire: (c, name, t, lease) => evalScript(c.conn, S.lockAcquire, [name], [lease, c.lockName(t)]),
    tryOnce: null,
    renew: (c, name, t) => c.lockTask.add(name, t, c.lockName(t)),
    cancelRenew: (c, name, t) => c.lockTask.cancel(name, t),
    unlock: (c, name, t, lease, rid) => evalScript(c.conn, S.lockUnlock,
      [name, prefixName('redisson_lock__channel', name), `${prefixName('redisson_unlock_latch', name)}:${rid}`],
      [0, lease, c.lockName(t), publishCmd, latchTimeoutMs]),
    force: (c, name) => evalScript(c.conn, S.lockForceUnlock, [name, prefixName('redisson_lock__channel', name)], [0, publishCmd]),
    holdField: (c, t) => c.lockName(t),
  },
  fair: {
    channel: (c, name, t) => `${prefixName('redisson_lock__channel', name)}:${c.lockName(t)}`,
    acquire: (c, name, t, lease, waitMs) => evalScript(c.conn, S.fairAcquire,
      [name, prefixName('redisson_lock_queue', name), prefixName('redisson_lock_timeout', name)],
      [lease, c.lockName(t), waitMs > 0 ? waitMs : fairWaitMs, Date.now()]),
    renew: (c, name, t) => c.lockTask.add(name, t, c.lockName(t)),
    cancelRenew: (c, name, t) => c.lockTask.cancel(name, t),
    acquireFailed: (c, name, t, waitMs) => evalScript(c.conn, S.fairAcquireFailed,
      [prefixName('redisson_lock_queue', name), prefixName('redisson_lock_timeout', name)],
      [c.lockName(t), waitMs > 0 ? waitMs : fairWaitMs]),
    unlock: (c, name, t, lease, rid) => evalScript(c.conn, S.fairUnlock,
      [name, prefixName('redisson_lock_queue', name), prefixName('redisson_lock_timeout', name),
        prefixName('redisson_lock__channel', name), `${prefixName('redisson_unlock_latch', name)}:${rid}`],
      [0, lease, c.lockName(t), Date.now(), publishCmd, latchTimeoutMs]),
    force: (c, name) => evalScript(c.conn, S.fairForceUnlock,
      [name, prefixName('redisson_lock_queue', name), prefixName('redisson_lock_timeout', name),
        prefixName('redisson_lock__channel', name)], [0, Date.now(), publishCmd]),
    holdField: (c, t) => c.lockName(t),
  },
  read: {
    channel: (c, name) => prefixName('redisson_rwlock', name),
    acquire: (c, name, t, lease) => evalScript(c.conn, S.readAcquire,
      [name, `${suffixName(name, c.lockName(t))}:rwlock_timeout`], [lease, c.lockName(t), `${c.lockName(t)}:write`]),
    renew: (c, name, t) => c.readLockTask.add(name, t, c.lockName(t), readKeyPrefix(c, name, t)),
    cancelRenew: (c, name, t) => { c.lockTask.cancel(name, t); c.readLockTask.cancel(name, t); },
    unlock: (c, name, t, lease, rid) => evalScript(c.conn, S.readUnlock,
      [name, prefixName('redisson_rwlock', name), `${suffixName(name, c.lockName(t))}:rwlock_timeout`,
        readKeyPrefix(c, name, t), `${prefixName('redisson_unlock_latch', name)}:${rid}`],
      [0, c.lockName(t), publishCmd, latchTimeoutMs]),
    force: (c, name) => evalScript(c.conn, S.readForceUnlock, [name, prefixName('redisson_rwlock', name)], [0, publishCmd]),
    holdField: (c, t) => c.lockName(t),
  },
  write: {
    channel: (c, name) => prefixName('redisson_rwlock', name),
    acquire: (c, name, t, lease) => evalScript(c.conn, S.writeAcquire, [name], [lease, `${c.lockName(t)}:write`]),
    renew: (c, name, t) => c.lockTask.add(name, t, `${c.lockName(t)}:write`),
    cancelRenew: (c, name, t) => c.lockTask.cancel(name, t),
    unlock: (c, name, t, lease, rid) => evalScript(c.conn, S.writeUnlock,
      [name, prefixName('redisson_rwlock', name), `${prefixName('redisson_unlock_latch', name)}:${rid}`],
      [1, lease, `${c.lockName(t)}:write`, publishCmd, latchTimeoutMs]),
    force: (c, name) => evalScript(c.conn, S.writeForceUnlock, [name, prefixName('redisson_rwlock', name)], [1, publishCmd]),
    holdField: (c, t) => `${c.lockName(t)}:write`,
  },
  fenced: {
    channel: (c, name) => prefixName('redisson_lock__channel', name),
    // lockAndGetToken: {-1, token} when acquired, else {PTTL, -1}
    acquire: async (c, name, t, lease) => {
      const [ttl, token] = await evalScript(c.conn, S.fencedAcquireToken,
        [name, prefixName('redisson_lock_token', name)], [lease, c.lockName(t)]);
      return ttl === -1 ? { token } : ttl;
    },
    renew: (c, name, t) => c.lockTask.add(name, t, c.lockName(t)),
    cancelRenew: (c, name, t) => c.lockTask.cancel(name, t),
    unlock: (...a) => KINDS.lock.unlock(...a),
    force: (...a) => KINDS.lock.force(...a),
    holdField: (c, t) => c.lockName(t),
  },
};
// RedissonReadLock.getKeyPrefix: the timeout prefix up to ":" + lockName
function readKeyPrefix(c, name, t) {
  return `${suffixName(name, c.lockName(t))}:rwlock_timeout`.split(`:${c.lockName(t)}`)[0];
}

// tryAcquire (RedissonLock.tryAcquireAsync): run the script; on success start renewal (lease <= 0)
// or remember the lease as internalLockLeaseTime. Returns null (acquired, or {token}) or the ttl.
async function tryAcquire(kind, c, name, t, leaseMs, waitMs) {
  const k = KINDS[kind];
  const lease = leaseMs > 0 ? leaseMs : watchdogMs;
  const r = await k.acquire(c, name, t, lease, waitMs);
  if (r === null || typeof r === 'object') {
    if (leaseMs > 0) c.leases.set(`${kind}|${name}`, leaseMs);
    else k.renew(c, name, t);
    return { acquired: true, token: r && r.token };
  }
  return { acquired: false, ttl: r };
}

// RedissonLock.lock(leaseTime): blocks until acquired.
async function lock(kind, c, name, t, leaseMs) {
  const tag = `${kind} ${name} ${c.label} ${t}`;
  let r = await tryAcquire(kind, c, name, t, leaseMs, -1);
  if (r.acquired) return `ACQUIRED ${tag}${r.token != null ? ` token=${r.token}` : ''}`;
  const channel = KINDS[kind].channel(c, name, t);
  const entry = await c.subscribe(channel);
  try {
    let announced = false;
    for (;;) {
      r = await tryAcquire(kind, c, name, t, leaseMs, -1);
      if (r.acquired) return `ACQUIRED ${tag}${r.token != null ? ` token=${r.token}` : ''}`;
      if (!announced) { say(`WAITING ${tag} ttl=${r.ttl}`); announced = true; }
      if (kind === 'fenced') // tryLockAndGetTokenAsync: timer of min(ttl, time); a negative ttl fires at once
        await entry.tryAcquire(Math.max(r.ttl, 10));
      else await entry.tryAcquire(r.ttl >= 0 ? r.ttl : undefined);
    }
  } finally {
    await c.unsubscribe(channel);
  }
}

// RedissonLock.tryLock(waitTime, leaseTime)
async function tryLock(kind, c, name, t, waitMs, leaseMs) {
  const k = KINDS[kind];
  const failed = async () => { if (k.acquireFailed) await k.acquireFailed(c, name, t, waitMs); return false; };
  let time = waitMs;
  let current = Date.now();
  let r = await tryAcquire(kind, c, name, t, leaseMs, waitMs);
  if (r.acquired) return true;
  time -= Date.now() - current;
  if (time <= 0) return failed();
  const channel = k.channel(c, name, t);
  current = Date.now();
  const entry = await c.subscribe(channel);
  try {
    time -= Date.now() - current;
    if (time <= 0) return failed();
    for (;;) {
      let now = Date.now();
      r = await tryAcquire(kind, c, name, t, leaseMs, waitMs);
      if (r.acquired) return true;
      time -= Date.now() - now;
      if (time <= 0) return failed();
      now = Date.now();
      await entry.tryAcquire(r.ttl >= 0 && r.ttl < time ? r.ttl : time);
      time -= Date.now() - now;
      if (time <= 0) return failed();
    }
  } finally {
    await c.unsubscribe(channel);
  }
}

// RedissonBaseLock.unlockAsync: script, cancel renewal, DEL latch, nil → IllegalMonitorStateException
async function unlock(kind, c, name, t) {
  const k = KINDS[kind];
  const rid = requestId();
  const lease = c.leases.get(`${kind}|${name}`) || watchdogMs;
  const res = await k.unlock(c, name, t, lease, rid);
  c.conn.del(`${prefixName('redisson_unlock_latch', name)}:${rid}`).catch(() => {});
  k.cancelRenew(c, name, t);
  if (res === null)
    throw new Error(`IllegalMonitorStateException: attempt to unlock lock, not locked by current thread by node id: ${c.id} thread-id: ${t}`);
  if (res === 1) c.leases.delete(`${kind}|${name}`); // cancelExpirationRenewal resets internalLockLeaseTime
  return res;
}

const kindOf = (cmd, suffix) => {
  const stem = cmd.slice(0, cmd.length - suffix.length);
  return stem === '' ? 'lock' : stem;
};

async function run(words) {
  const [cmd] = words;
  if (cmd === 'quit') {
    await Promise.all([...clients.values()].map((c) => c.quit()));
    process.exit(0);
  }
  if (cmd === 'id') return `ID ${words[1]} ${clientOf(words[1]).id}`;
  if (cmd === 'renewals') {
    const c = clientOf(words[1]);
    return `RENEWALS ${words[1]} ${c.renewalEvals} ${[...c.renewed].join(',')}`;
  }
  if (cmd === 'holds') {
    const [, kind, cl, name, t] = words;
    const c = clientOf(cl);
    const v = await c.conn.hget(name, KINDS[kind].holdField(c, t));
    return `HOLDS ${kind} ${name} ${cl} ${t} ${v || 0}`;
  }
  const [, cl, name, t, a, b] = words;
  const c = clientOf(cl);
  if (cmd.endsWith('forceunlock')) {
    const kind = kindOf(cmd, 'forceunlock');
    const res = await KINDS[kind].force(c, name);
    KINDS[kind].cancelRenew(c, name, null);
    return `FORCEUNLOCKED ${kind} ${name} result=${res === 1}`;
  }
  if (cmd.endsWith('trylock')) {
    const kind = kindOf(cmd, 'trylock');
    return `TRYLOCK ${kind} ${name} ${cl} ${t} ${await tryLock(kind, c, name, t, Number(a), Number(b || -1))}`;
  }
  if (cmd.endsWith('unlock')) {
    const kind = kindOf(cmd, 'unlock');
    return `UNLOCKED ${kind} ${name} ${cl} ${t} result=${await unlock(kind, c, name, t)}`;
  }
  if (cmd.endsWith('lock')) {
    const kind = kindOf(cmd, 'lock');
    if (!KINDS[kind]) throw new Error(`unknown kind ${kind}`);
    return lock(kind, c, name, t, Number(a || -1));
  }
  throw new Error('unknown command');
}

readline.createInterface({ input: process.stdin }).on('line', (line) => {
  const words = line.trim().split(/\s+/);
  if (!words[0]) return;
  run(words).then(say, (e) => say(`ERR ${words.slice(0, 3).join(' ')} ${e && e.message}`));
});
say(`READY watchdog=${watchdogMs} publish=${publishCmd} scripts=${scriptOrigin}`);
