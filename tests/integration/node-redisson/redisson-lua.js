// Redisson's own lock Lua texts, read at run time from a Redisson source tree, for
// tests/integration/node-redisson/redisson-driver.js (tst_redissonlua).
//
// Why read, not copy: the texts are Redisson's code (github.com/redisson/redisson, Apache License
// 2.0). LockScope keeps no copy of it in its repository; the protocol doc describes the scripts in
// pseudocode only. This module extracts each script verbatim from the Java source of the tag
// `redisson-4.7.0` (commit 0c286e86eb813a26222b3dc281f0ca368dd46561; the lock, renewal and pub/sub
// code is identical at master 66863978), by file, method and position, and checks each text
// against the SHA-1 it has in 4.7.0, so a different Redisson version is refused instead of
// silently tested.
//
// Where the source comes from: LOCKSCOPE_REDISSON_SRC is either a checkout (a directory holding
// redisson/src/main/java/org/redisson) or a git directory (bare clone / mirror), read with
// `git show LOCKSCOPE_REDISSON_REF:path` (default ref: redisson-4.7.0, else HEAD).
//
// Each entry below names the Java file, the method, the index of the script among the script
// literals of that method name in file order, and the KEYS/ARGV Redisson passes.
'use strict';
const crypto = require('crypto');
const fs = require('fs');
const path = require('path');
const { execFileSync } = require('child_process');

const JAVA = 'redisson/src/main/java/org/redisson/';

const SCRIPTS = {
  // RedissonLock.tryLockInnerAsync. KEYS [name]; ARGV [leaseMs, lockName]. nil = acquired, else PTTL.
  lockAcquire: { file: 'RedissonLock.java', method: 'tryLockInnerAsync', index: 0,
    sha1: '149c5a8bf18676fd99e9e6e24923bd64d9b62f94' },
  // RedissonLock.unlockInnerAsync. KEYS [name, redisson_lock__channel:{name}, latch];
  // ARGV [0, internalLockLeaseTime, lockName, publishCmd, latchTimeoutMs]. nil/0/1.
  lockUnlock: { file: 'RedissonLock.java', method: 'unlockInnerAsync', index: 0, sha1: '6866459238a13a701d42f4971f12d9f3a50e2442' },
  // RedissonLock.forceUnlockAsync. KEYS [name, channel]; ARGV [0, publishCmd]. 1/0.
  lockForceUnlock: { file: 'RedissonLock.java', method: 'forceUnlockAsync', index: 0, sha1: '605e338249a7a1d40df83b04f7658354f883b41b' },
  // renewal/LockTask.buildChunk. KEYS names (one slot in cluster mode); ARGV [leaseMs, lockName per key].
  renew: { file: 'renewal/LockTask.java', method: 'buildChunk', index: 0, sha1: '6a3d31570dc6f4b0bd32bcdc8e75667747c6f635' },
  // renewal/ReadLockTask.buildChunk. KEYS pairs (name, keyPrefix); ARGV [leaseMs, then per pair N, N lockNames].
  readRenew: { file: 'renewal/ReadLockTask.java', method: 'buildChunk', index: 0, sha1: '38d2b478dfbe264ab67c221b7e4be62245f00ba0' },
  // RedissonFairLock.acquireFailedAsync. KEYS [queue, timeout zset]; ARGV [lockName, waitMs].
  fairAcquireFailed: { file: 'RedissonFairLock.java', method: 'acquireFailedAsync', index: 0, sha1: 'd1ddef65ad80886b5d36e023c99930044ddd653a' },
  // RedissonFairLock.tryLockInnerAsync, EVAL_NULL_BOOLEAN. KEYS [name, queue, zset];
  // ARGV [leaseMs, lockName, nowMs, waitMs]. nil = acquired, 1 = not (never enqueues).
  fairTryAcquire: { file: 'RedissonFairLock.java', method: 'tryLockInnerAsync', index: 0, sha1: 'd20501c26a30adf6fb0fe9883bbbcc497e6157e2' },
  // RedissonFairLock.tryLockInnerAsync, EVAL_LONG. KEYS [name, queue, zset];
  // ARGV [leaseMs, lockName, waitMs, nowMs]. nil = acquired, else ms to wait (enqueues).
  fairAcquire: { file: 'RedissonFairLock.java', method: 'tryLockInnerAsync', index: 1, sha1: '8f6ed299ffd259f0539c20f89253998c0777ea75' },
  // RedissonFairLock.unlockInnerAsync. KEYS [name, queue, zset, redisson_lock__channel:{name}, latch];
  // ARGV [0, internalLockLeaseTime, lockName, nowMs, publishCmd, latchTimeoutMs].
  fairUnlock: { file: 'RedissonFairLock.java', method: 'unlockInnerAsync', index: 0, sha1: '367f80bd2e300e411fb0936d9b601e5bcb3fd4b6' },
  // RedissonFairLock.forceUnlockAsync. KEYS [name, queue, zset, channel]; ARGV [0, nowMs, publishCmd].
  fairForceUnlock: { file: 'RedissonFairLock.java', method: 'forceUnlockAsync', index: 0, sha1: '71ed11d4e4818119ac560b3d670a7f08256afc46' },
  // RedissonReadLock.tryLockInnerAsync. KEYS [name, timeoutPrefix]; ARGV [leaseMs, lockName, lockName:write].
  readAcquire: { file: 'RedissonReadLock.java', method: 'tryLockInnerAsync', index: 0, sha1: '95553a6ff11176c18e71344e89d116b06fd6f753' },
  // RedissonReadLock.unlockInnerAsync. KEYS [name, redisson_rwlock:{name}, timeoutPrefix, keyPrefix, latch];
  // ARGV [0, lockName, publishCmd, latchTimeoutMs].
  readUnlock: { file: 'RedissonReadLock.java', method: 'unlockInnerAsync', index: 0, sha1: '6e1b10e11ac0a3ed8e902562ecd32ce01b553039' },
  // RedissonReadLock.forceUnlockAsync. KEYS [name, channel]; ARGV [0, publishCmd].
  readForceUnlock: { file: 'RedissonReadLock.java', method: 'forceUnlockAsync', index: 0, sha1: '27dbe744e95c1d854a7f556cc6817030de2d0d01' },
  // RedissonWriteLock.tryLockInnerAsync. KEYS [name]; ARGV [leaseMs, lockName:write].
  writeAcquire: { file: 'RedissonWriteLock.java', method: 'tryLockInnerAsync', index: 0, sha1: '6306ba3bf1f563b284bed52d305fce615c6664d9' },
  // RedissonWriteLock.unlockInnerAsync. KEYS [name, redisson_rwlock:{name}, latch];
  // ARGV [1, internalLockLeaseTime, lockName:write, publishCmd, latchTimeoutMs].
  writeUnlock: { file: 'RedissonWriteLock.java', method: 'unlockInnerAsync', index: 0, sha1: '21f5fb0f8ddfa9be5c3e0c9757c128796add75c6' },
  // RedissonWriteLock.forceUnlockAsync. KEYS [name, channel]; ARGV [1, publishCmd].
  writeForceUnlock: { file: 'RedissonWriteLock.java', method: 'forceUnlockAsync', index: 0, sha1: '2e2cb2a3b13e2e80e4236ef6a25beaf365dba608' },
  // RedissonFencedLock.tryLockInnerAsync(lease, unit, threadId) (lockAndGetToken). KEYS [name,
  // redisson_lock_token:{name}]; ARGV [leaseMs, lockName]. {-1, token} = acquired, else {PTTL, -1}.
  fencedAcquireToken: { file: 'RedissonFencedLock.java', method: 'tryLockInnerAsync', index: 0, sha1: '49babb5a1e6a0c5f188c2ae62b93b51cdfd63e45' },
  // RedissonFencedLock.tryLockInnerAsync(wait, lease, unit, threadId, command) (lock()/tryLock()).
  // KEYS [name, token]; ARGV [leaseMs, lockName]. nil = acquired, else PTTL.
  fencedAcquire: { file: 'RedissonFencedLock.java', method: 'tryLockInnerAsync', index: 1, sha1: '46b5551ba403d6152a7a6eca122e08728d6c8c66' },
};

// --- a small Java lexer: string literals, '+', braces/parens, everything else; comments skipped.
function lexJava(text, from, to) {
  const tokens = [];
  let i = from;
  while (i < to) {
    const c = text[i];
    if (c === '/' && text[i + 1] === '/') { i = text.indexOf('\n', i); if (i < 0) i = to; continue; }
    if (c === '/' && text[i + 1] === '*') { i = text.indexOf('*/', i + 2) + 2; continue; }
    if (c === '"') {
      let s = '';
      i++;
      while (text[i] !== '"') {
        if (text[i] === '\\') {
          const e = text[i + 1];
          if (e === 'u') { s += String.fromCharCode(parseInt(text.substr(i + 2, 4), 16)); i += 6; continue; }
          s += { n: '\n', t: '\t', r: '\r', b: '\b', f: '\f', '0': '\0' }[e] ?? e;
          i += 2;
          continue;
        }
        s += text[i++];
      }
      i++;
      tokens.push({ t: 'str', v: s, at: i });
      continue;
    }
    if (c === "'") { const end = text.indexOf("'", i + (text[i + 1] === '\\' ? 3 : 2)); tokens.push({ t: 'x', v: text.slice(i, end + 1), at: end + 1 }); i = end + 1; continue; }
    if (/\s/.test(c)) { i++; continue; }
    tokens.push({ t: 'x', v: c, at: i + 1 });
    i++;
  }
  return tokens;
}

// Script literals (string literals joined by '+' that call redis) of every declaration of `method`.
function scriptsOfMethod(text, method) {
  const out = [];
  const all = lexJava(text, 0, text.length);
  // Find identifiers by scanning the raw text, then confirm a declaration: `name(...)` followed by
  // `{` (optionally after `throws X`), balanced with the lexer so braces in strings do not count.
  const re = new RegExp(`\\b${method}\\s*\\(`, 'g');
  let m;
  while ((m = re.exec(text))) {
    const startTok = all.findIndex((t) => t.at > m.index + m[0].length);
    let k = startTok, depth = 1;
    for (; k < all.length && depth > 0; k++) {
      if (all[k].v === '(' && all[k].t === 'x') depth++;
      else if (all[k].v === ')' && all[k].t === 'x') depth--;
    }
    // after the parameter list: a declaration has `{` before any `;`
    let j = k;
    while (j < all.length && all[j].t === 'x' && all[j].v !== '{' && all[j].v !== ';' && all[j].v !== '.'
           && all[j].v !== ')' && all[j].v !== ',' && all[j].v !== '+') j++;
    if (j >= all.length || all[j].v !== '{') continue;
    let b = 1, e = j + 1;
    for (; e < all.length && b > 0; e++) {
      if (all[e].t === 'x' && all[e].v === '{') b++;
      else if (all[e].t === 'x' && all[e].v === '}') b--;
    }
    for (let q = j + 1; q < e; q++) {
      if (all[q].t !== 'str') continue;
      let s = all[q].v;
      while (all[q + 1] && all[q + 1].v === '+' && all[q + 1].t === 'x' && all[q + 2] && all[q + 2].t === 'str') {
        s += all[q + 2].v;
        q += 2;
      }
      if (s.includes('redis.call')) out.push(s);
    }
    re.lastIndex = all[e - 1].at;
  }
  return out;
}

function readJava(src, ref, file) {
  const rel = JAVA + file;
  if (fs.existsSync(path.join(src, rel))) return fs.readFileSync(path.join(src, rel), 'utf8');
  const refs = ref ? [ref] : ['redisson-4.7.0', 'HEAD'];
  let lastError;
  for (const r of refs) {
    try {
      return execFileSync('git', ['--git-dir', src, 'show', `${r}:${rel}`], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    } catch (e) {
      lastError = e;
    }
  }
  throw new Error(`cannot read ${rel} from ${src}: ${lastError && lastError.message}`);
}

const sha1 = (s) => crypto.createHash('sha1').update(s, 'utf8').digest('hex');

/**
 * Loads every script of SCRIPTS from the Redisson source `src` (see the header). Returns
 * { name: luaText }. Throws when the source is missing or a text differs from Redisson 4.7.0.
 */
function loadRedissonScripts(src = process.env.LOCKSCOPE_REDISSON_SRC, ref = process.env.LOCKSCOPE_REDISSON_REF) {
  if (!src) throw new Error('LOCKSCOPE_REDISSON_SRC is not set');
  const files = new Map();
  const result = {};
  const mismatches = [];
  for (const [name, s] of Object.entries(SCRIPTS)) {
    if (!files.has(s.file)) files.set(s.file, readJava(src, ref, s.file));
    const found = scriptsOfMethod(files.get(s.file), s.method);
    const text = found[s.index];
    if (text === undefined) throw new Error(`${s.file} ${s.method}: no script #${s.index} (found ${found.length})`);
    if (s.sha1 && sha1(text) !== s.sha1) mismatches.push(`${name} (${s.file} ${s.method} #${s.index}): sha1 ${sha1(text)}, 4.7.0 has ${s.sha1}`);
    result[name] = text;
  }
  if (mismatches.length && !process.env.LOCKSCOPE_REDISSON_ANY_VERSION)
    throw new Error(`Redisson scripts differ from 4.7.0: ${mismatches.join('; ')}`);
  return result;
}

// --- Fallback when no Redisson source is at hand (a fresh machine, CI): LockScope's own
// transcriptions in resources/scripts, which take exactly Redisson's KEYS/ARGV and were checked
// against Redisson 4.7.0's texts by a differential test (README, "Redisson compatibility"), plus
// four short texts written here from the protocol doc's pseudocode for the calls LockScope has no
// script of its own for (§3.6, §4.6, §5.2). The test output says which set ran.
const OWN = path.join(__dirname, '..', '..', '..', 'resources', 'scripts');
const OWN_FILES = {
  lockAcquire: 'lock_acquire', lockUnlock: 'lock_unlock', lockForceUnlock: 'lock_force_unlock', renew: 'lock_renew',
  readRenew: 'rw_read_renew', fairAcquireFailed: 'fair_acquire_failed', fairTryAcquire: 'fair_try_acquire',
  fairAcquire: 'fair_acquire', fairUnlock: 'fair_unlock', readAcquire: 'rw_read_acquire', readUnlock: 'rw_read_unlock',
  writeAcquire: 'rw_write_acquire', writeUnlock: 'rw_write_unlock', fencedAcquireToken: 'fenced_acquire',
};
const OWN_TEXTS = {
  // §3.6 RedissonFairLock.forceUnlock: KEYS [name, queue, zset, channel]; ARGV [0, now, publishCmd].
  fairForceUnlock: `
while true do
  local head = redis.call('lindex', KEYS[2], 0)
  if head == false then break end
  local deadline = tonumber(redis.call('zscore', KEYS[3], head))
  if deadline ~= nil and deadline <= tonumber(ARGV[2]) then
    redis.call('zrem', KEYS[3], head); redis.call('lpop', KEYS[2])
  else break end
end
if redis.call('del', KEYS[1]) == 1 then
  local nextWaiter = redis.call('lindex', KEYS[2], 0)
  if nextWaiter ~= false then redis.call(ARGV[3], KEYS[4] .. ':' .. nextWaiter, ARGV[1]) end
  return 1
end
return 0`,
  // §4.6 read forceUnlock: KEYS [name, channel]; ARGV [0, publishCmd].
  readForceUnlock: `
if redis.call('hget', KEYS[1], 'mode') == 'read' then
  redis.call('del', KEYS[1]); redis.call(ARGV[2], KEYS[2], ARGV[1]); return 1
end
return 0`,
  // §4.6 write forceUnlock: KEYS [name, channel]; ARGV [1, publishCmd].
  writeForceUnlock: `
if redis.call('hget', KEYS[1], 'mode') == 'write' then
  redis.call('del', KEYS[1]); redis.call(ARGV[2], KEYS[2], ARGV[1]); return 1
end
return 0`,
  // §5.2 fenced lock()/tryLock() path: KEYS [name, token]; ARGV [lease, lockName]; nil or PTTL.
  fencedAcquire: `
if redis.call('exists', KEYS[1]) == 0 or redis.call('hexists', KEYS[1], ARGV[2]) == 1 then
  redis.call('incr', KEYS[2]); redis.call('hincrby', KEYS[1], ARGV[2], 1)
  redis.call('pexpire', KEYS[1], ARGV[1]); return nil
end
return redis.call('pttl', KEYS[1])`,
};

/** LockScope's transcriptions (see above), with the same names as SCRIPTS. */
function loadOwnScripts() {
  const result = {};
  for (const name of Object.keys(SCRIPTS)) {
    if (OWN_FILES[name]) result[name] = fs.readFileSync(path.join(OWN, OWN_FILES[name] + '.lua'), 'utf8');
    else if (OWN_TEXTS[name]) result[name] = OWN_TEXTS[name];
    else throw new Error(`no transcription of ${name}`);
  }
  return result;
}

/** Redisson's own texts when LOCKSCOPE_REDISSON_SRC names a Redisson source, else LockScope's
 *  transcriptions. Returns { origin: 'redisson-4.7.0' | 'lockscope-transcriptions', scripts }. */
function loadScripts() {
  const src = process.env.LOCKSCOPE_REDISSON_SRC;
  if (src && fs.existsSync(src)) return { origin: 'redisson-4.7.0', scripts: loadRedissonScripts(src) };
  return { origin: 'lockscope-transcriptions', scripts: loadOwnScripts() };
}

module.exports = { loadRedissonScripts, loadOwnScripts, loadScripts, SCRIPTS, sha1, scriptsOfMethod };

if (require.main === module) {
  // `node redisson-lua.js` prints each script's name, sha1 and text (a check of the extraction).
  const scripts = loadRedissonScripts();
  for (const [name, text] of Object.entries(scripts)) console.log(`-- ${name} ${sha1(text)}\n${text}\n`);
}
