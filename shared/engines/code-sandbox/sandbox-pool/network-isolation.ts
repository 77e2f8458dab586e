import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

/**
 * How sandbox processes are kept off the network at the OS level:
 * - `netns`: `unshare -n` (as root): a new network namespace with only a loopback that is down,
 *   so no address — the host's loopback, the LAN, cloud metadata — is reachable;
 * - `userns+netns`: `unshare -rn` for a non-root user where user namespaces are allowed (the
 *   same network namespace, inside a user namespace mapping the user to root there);
 * - `none`: neither works (macOS, Windows, containers without the capability): only the language
 *   level holds (the worker programs disarm node:net, dgram, tls, http(s), http2, dns and
 *   child_process: refuse-network-source.ts).
 */
export type NetworkIsolation = { kind: 'netns' | 'userns+netns'; prefix: readonly string[] } | { kind: 'none'; prefix: readonly string[] };

let detected: NetworkIsolation | undefined;

/** Detected once per process by trying each way with `true`; the result is cached. */
export function networkIsolation(): NetworkIsolation {
  if (detected) return detected;
  detected = { kind: 'none', prefix: [] };
  if (process.platform !== 'linux') return detected;
  const unshare = ['/usr/bin/unshare', '/bin/unshare'].find((p) => existsSync(p));
  if (!unshare) return detected;
  for (const [kind, flags] of [['netns', ['-n']], ['userns+netns', ['-r', '-n']]] as const) {
    const probe = spawnSync(unshare, [...flags, '--', '/bin/true'], { stdio: 'ignore', timeout: 5_000, env: {} });
    if (probe.status === 0) {
      detected = { kind, prefix: [unshare, ...flags, '--'] };
      break;
    }
  }
  return detected;
}
