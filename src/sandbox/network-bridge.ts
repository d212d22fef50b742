/**
 * The inside half of the sandbox's network (the outside half is network-proxy.ts). The sandbox's
 * network namespace has only its own loopback; the proxy's Unix socket is bind-mounted in, and
 * `bridgeCommand` is the sh snippet run before the command:
 *   1. start socat in the background, listening on 127.0.0.1:<port> and relaying each connection
 *      to the socket (it forks per connection, and dies with the sandbox's PID namespace);
 *   2. wait, with sh builtins only and a bounded number of reads of /proc/net/tcp, until that port
 *      is in LISTEN state, so the command's first request does not race socat's start;
 *   3. if socat exited or never listened, say so on stderr and exit 125 before the command runs.
 * `proxyEnvironment` is what points the command's tools at that port.
 */

/** A port inside the sandbox's own network namespace, so any free one does; this one is rarely used. */
export const DEFAULT_BRIDGE_PORT = 3128;

/** Reads of /proc/net/tcp before giving up: socat listens within a few ms; this bounds a wedged start. */
const WAIT_ROUNDS = 20_000;

/**
 * socat reads `,` `:` `!` and spaces in an address as syntax, and the path is also quoted for sh,
 * so the socket path is held to plain characters (the controller chooses it).
 */
const SAFE_PATH = /^\/[A-Za-z0-9._/-]+$/;

export function bridgeCommand(socketPath: string, port: number): string {
  if (!SAFE_PATH.test(socketPath))
    throw new Error(
      `network bridge: the proxy socket path must be absolute and contain only letters, digits and . _ / -, got ${JSON.stringify(socketPath)}`,
    );
  assertPort(port);
  // /proc/net/tcp shows the local address as hex IPv4 (little-endian) : hex port; 0A is LISTEN.
  const local = `0100007F:${port.toString(16).toUpperCase().padStart(4, '0')}`;
  return [
    `socat TCP-LISTEN:${port},bind=127.0.0.1,fork,reuseaddr 'UNIX-CONNECT:${socketPath}' </dev/null >/dev/null 2>&1 &`,
    `__ci_agent_socat=$! __ci_agent_round=0 __ci_agent_up=`,
    `while [ -z "$__ci_agent_up" ] && [ "$__ci_agent_round" -lt ${WAIT_ROUNDS} ] && kill -0 "$__ci_agent_socat" 2>/dev/null; do`,
    `  while read -r __ci_agent_sl __ci_agent_local __ci_agent_remote __ci_agent_state __ci_agent_rest; do`,
    `    [ "$__ci_agent_local" = ${local} ] && [ "$__ci_agent_state" = 0A ] && __ci_agent_up=1 && break`,
    `  done </proc/net/tcp`,
    `  __ci_agent_round=$((__ci_agent_round + 1))`,
    `done`,
    `if [ -z "$__ci_agent_up" ]; then echo "ci-agent sandbox: the network bridge (socat on 127.0.0.1:${port}) did not start; is socat installed?" >&2; exit 125; fi`,
    `unset __ci_agent_socat __ci_agent_round __ci_agent_up __ci_agent_sl __ci_agent_local __ci_agent_remote __ci_agent_state __ci_agent_rest`,
  ].join('\n');
}

/**
 * The variables that send the command's HTTP clients through the bridge. curl and git (libcurl)
 * read the lower-case http_proxy (libcurl ignores upper-case HTTP_PROXY) and either case of
 * HTTPS_PROXY and ALL_PROXY; npm 11 (@npmcli/agent) reads them case-insensitively; Node 24's fetch
 * and http read them only with NODE_USE_ENV_PROXY=1. NO_PROXY keeps the sandbox's own loopback
 * (a test server the command starts) direct.
 */
export function proxyEnvironment(port: number): Record<string, string> {
  assertPort(port);
  const url = `http://127.0.0.1:${port}`;
  const noProxy = 'localhost,127.0.0.1,::1';
  return {
    HTTP_PROXY: url,
    HTTPS_PROXY: url,
    ALL_PROXY: url,
    http_proxy: url,
    https_proxy: url,
    all_proxy: url,
    NO_PROXY: noProxy,
    no_proxy: noProxy,
    NODE_USE_ENV_PROXY: '1',
  };
}

function assertPort(port: number): void {
  if (!Number.isInteger(port) || port < 1 || port > 65_535)
    throw new Error(`network bridge: port must be an integer from 1 to 65535, got ${port}`);
}
