// A TCP proxy the tests control, between the service and PostgreSQL, Redis or S3. Faults are
// injected here, never by stopping the machine's shared servers:
// - blackhole(): bytes stop flowing both ways on every connection, old and new, with no reset;
//   new connections are accepted and then hear nothing (what a dropped route looks like);
// - reset(): every open connection is cut with a TCP reset (a crash, a failover, a pooler restart);
// - restore(): traffic flows again; connections cut meanwhile stay cut.
import net from 'node:net';

export interface FaultProxy {
  host: string;
  port: number;
  blackhole(): void;
  reset(): void;
  restore(): void;
  /** Connections currently open through the proxy. */
  readonly connections: number;
  close(): Promise<void>;
}

export async function startFaultProxy(target: { host: string; port: number }): Promise<FaultProxy> {
  let holed = false;
  const pairs = new Set<{ client: net.Socket; upstream: net.Socket }>();

  const server = net.createServer((client) => {
    const upstream = net.connect(target.port, target.host);
    const pair = { client, upstream };
    pairs.add(pair);
    const forward = (from: net.Socket, to: net.Socket) =>
      from.on('data', (chunk) => {
        if (!holed && !to.destroyed) to.write(chunk);
      });
    forward(client, upstream);
    forward(upstream, client);
    const end = () => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    for (const socket of [client, upstream]) {
      socket.on('error', end);
      socket.on('close', end);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;

  return {
    host: '127.0.0.1',
    port,
    blackhole() {
      holed = true;
    },
    reset() {
      for (const { client, upstream } of pairs) {
        client.resetAndDestroy();
        upstream.destroy();
      }
      pairs.clear();
    },
    restore() {
      holed = false;
    },
    get connections() {
      return pairs.size;
    },
    async close() {
      for (const { client, upstream } of pairs) {
        client.destroy();
        upstream.destroy();
      }
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The same URL with its host and port replaced by the proxy's. */
export function throughProxy(url: string, proxy: FaultProxy): string {
  const u = new URL(url);
  u.hostname = proxy.host;
  u.port = String(proxy.port);
  return u.toString();
}
