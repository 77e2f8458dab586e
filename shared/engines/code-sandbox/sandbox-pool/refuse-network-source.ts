/**
 * JavaScript run first in every sandbox process (both worker programs splice it in): the language
 * level of the network refusal, for platforms without a network namespace (network-isolation.ts)
 * and as a second layer where there is one. Node 20's permission model does
 * not cover sockets, so the builtin modules that open them or start processes are disarmed in
 * place: every later `require`/`import` of them (Pyodide's `useNodeSockFS` imports `node:net`)
 * gets the same, disarmed, module objects. Uses only `process.getBuiltinModule` (Node ≥ 20.16), so
 * it runs in a CommonJS and an ES module program alike.
 */
export const REFUSE_NETWORK_SOURCE = String.raw`
{
  const refuse = (what) => function refused() { throw new Error(what + ' is not available in a tracecheck sandbox (no network, no processes)'); };
  const disarm = (name, keys, protos) => {
    const mod = process.getBuiltinModule(name);
    for (const key of keys) if (typeof mod[key] === 'function') mod[key] = refuse('node:' + name + ' ' + key);
    for (const [cls, methods] of protos) if (mod[cls] && mod[cls].prototype) for (const m of methods) mod[cls].prototype[m] = refuse('node:' + name + ' ' + cls + '.' + m);
  };
  disarm('net', ['connect', 'createConnection', 'createServer'], [['Socket', ['connect']], ['Server', ['listen']]]);
  disarm('dgram', ['createSocket'], [['Socket', ['bind', 'connect', 'send']]]);
  disarm('tls', ['connect', 'createServer', 'createSecureContext'], [['TLSSocket', ['connect']]]);
  disarm('http', ['request', 'get', 'createServer'], []);
  disarm('https', ['request', 'get', 'createServer'], []);
  disarm('http2', ['connect', 'createServer', 'createSecureServer'], []);
  disarm('dns', ['lookup', 'lookupService', 'resolve', 'resolve4', 'resolve6', 'resolveAny'], []);
  disarm('child_process', ['spawn', 'spawnSync', 'exec', 'execSync', 'execFile', 'execFileSync', 'fork'], []);
  process.getBuiltinModule('module').syncBuiltinESMExports();
}
`;
