// node-redisson driver for tests/integration/tst_noderedisson: an independent Redisson-compatible
// RLock client (protocol doc §12). Reads one command per line on stdin, answers one line each.
//   hold-reentrant NAME THREAD      lock() twice on one lock object (watchdog, hold count 2)
//   hold-lease NAME THREAD MS       lock(MS ms)
//   release NAME THREAD             unlock() once
//   wait NAME THREAD                lock() from a second client; prints "ACQUIRED NAME <ms waited>"
//   quit
// node-redisson writes the field "<client uuid>:<clientId>"; passing THREAD as clientId gives
// Redisson's "<uuid>:<threadId>" shape.
'use strict';
const { Redisson, TimeUnit } = require('node-redisson');
const readline = require('readline');

const port = Number(process.argv[2]);
const make = () => new Redisson({ redis: { options: { host: '127.0.0.1', port } } });
const clients = [make(), make()];
const locks = new Map();
const lockOf = (client, name, thread) => {
  const key = `${client}|${name}|${thread}`;
  if (!locks.has(key)) locks.set(key, clients[client].getLock(name, String(thread)));
  return locks.get(key);
};
const say = (line) => process.stdout.write(line + '\n');

async function run(words) {
  const [cmd, name, thread, ms] = words;
  switch (cmd) {
    case 'hold-reentrant': {
      const l = lockOf(0, name, thread);
      await l.lock();
      await l.lock();
      return `OK ${cmd} ${name}`;
    }
    case 'hold-lease':
      await lockOf(0, name, thread).lock(Number(ms), TimeUnit.MILLISECONDS);
      return `OK ${cmd} ${name}`;
    case 'release':
      await lockOf(0, name, thread).unlock();
      return `OK ${cmd} ${name}`;
    case 'wait': {
      const started = Date.now();
      say(`WAITING ${name}`);
      await lockOf(1, name, thread).lock(60000, TimeUnit.MILLISECONDS);
      return `ACQUIRED ${name} ${Date.now() - started}`;
    }
    case 'quit':
      await Promise.all(clients.map((c) => c.quit().catch(() => {})));
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
say('READY');
