// Run in every test worker before its file (vitest.config.mjs setupFiles), and imported by
// tests/browser/chat.mjs: libsignal-node (Baileys' own Signal layer, which the server suites run
// beside ours) prints each session it opens, closes or drops with console.info/warn, the session's
// private keys included. Test keys, but no log should carry keys: those calls, and only those, are
// dropped.
const SESSION_LOG = /^(Closing session|Opening session|Removing old closed session|Session already (closed|open))\b/;
for (const level of ['info', 'warn']) {
  const print = console[level];
  console[level] = (...args) => {
    if (typeof args[0] === 'string' && SESSION_LOG.test(args[0])) return;
    print.apply(console, args);
  };
}
