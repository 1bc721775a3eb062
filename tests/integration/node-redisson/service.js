// One "service" for tests/integration/tst_leasesafety: a process with ONE node-redisson client, so
// a test can freeze it (SIGSTOP), resume it (SIGCONT) or kill it (SIGKILL) as an operator's
// service would be. Usage: node service.js PORT WATCHDOG_MS [CONNECTION_NAME] (CLIENT SETNAME of its
// connections, as a service that sets Redisson's clientName). One command per line on stdin, one
// answer line each:
//   hold NAME THREAD              lock() with the watchdog (renews every WATCHDOG_MS/3)
//   hold-lease NAME THREAD MS     lock(MS ms): a fixed lease, no watchdog
//   wait NAME THREAD              prints "WAITING NAME", then lock() with the watchdog and
//                                 "ACQUIRED NAME <ms waited>"
//   release NAME THREAD           unlock()
//   reconnect                     close its command connection and open a new one at once (a
//                                 pool's churn: the same client, a new local port)
//   quit
// node-redisson writes the holder field "<client uuid>:<THREAD>" (Redisson's clientId:threadId).
'use strict';
const { Redisson, TimeUnit } = require('node-redisson');
const readline = require('readline');

const port = Number(process.argv[2]);
const watchdogMs = BigInt(process.argv[3] || 30000);
const connectionName = process.argv[4];
const options = { host: '127.0.0.1', port };
if (connectionName) options.connectionName = connectionName;
const client = new Redisson({ redis: { options }, lockWatchdogTimeout: watchdogMs });
const locks = new Map();
const lockOf = (name, thread) => {
  const key = `${name}|${thread}`;
  if (!locks.has(key)) locks.set(key, client.getLock(name, String(thread)));
  return locks.get(key);
};
const say = (line) => process.stdout.write(line + '\n');

async function run(words) {
  const [cmd, name, thread, ms] = words;
  switch (cmd) {
    case 'hold':
      await lockOf(name, thread).lock();
      return `OK ${cmd} ${name}`;
    case 'hold-lease':
      await lockOf(name, thread).lock(Number(ms), TimeUnit.MILLISECONDS);
      return `OK ${cmd} ${name}`;
    case 'wait': {
      const started = Date.now();
      say(`WAITING ${name}`);
      await lockOf(name, thread).lock();
      return `ACQUIRED ${name} ${Date.now() - started}`;
    }
    case 'release':
      await lockOf(name, thread).unlock();
      return `OK ${cmd} ${name}`;
    case 'reconnect': {
      const redis = client.redis;
      const back = new Promise((resolve) => redis.once('ready', resolve));
      redis.disconnect(true);
      await back;
      return `OK ${cmd}`;
    }
    case 'quit':
      await client.quit().catch(() => {});
      process.exit(0);
    default:
      return `ERR unknown command ${cmd}`;
  }
}

readline.createInterface({ input: process.stdin }).on('line', (line) => {
  const words = line.trim().split(/\s+/);
  if (!words[0]) return;
  run(words).then(say, (e) => say(`ERR ${words[0]} ${e && e.message}`));
});
say(`READY ${client.clientId || ''}`);
