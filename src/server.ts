// The process: read the configuration, build the app, listen, and shut down gracefully.
import type { FastifyInstance } from 'fastify';
import { createDemoAccountOnFirstStart, demoInstructions } from './accounts/demo.js';
import { buildApp } from './app.js';
import { type Config, ConfigError, loadConfig, serviceBaseUrl } from './config.js';
import { databaseOpenProblem } from './db/open-configured.js';
import { recordServerUrl } from './server-address.js';

/** What a person starting the service needs first: where it answers, where its docs are. */
export function startupBanner(baseUrl: string): string {
  return [
    `Partner API listening on ${baseUrl}`,
    `  docs:     ${baseUrl}/docs`,
    `  OpenAPI:  ${baseUrl}/public/v1/openapi.json`,
    `  health:   ${baseUrl}/healthz`,
  ].join('\n');
}

/** On a start that creates no demo account: where a newcomer who lost the first key gets one. */
export function anotherKeyHint(config: Pick<Config, 'databaseUrl'>): string {
  return config.databaseUrl
    ? 'Need an API key? `npm run demo` creates a demo organization, seller and key (or `npm run admin -- mint-key`).'
    : 'Need an API key? Stop the server, then `npm run demo` (embedded PGlite admits one process at a time), or use the admin API (ADMIN_TOKEN).';
}

async function main() {
  let config: Config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      process.exit(78); // EX_CONFIG
    }
    throw err;
  }

  const app = await buildApp(config);
  handleShutdown(app, config);
  await app.listen({ port: config.port, host: config.host });
  // The port actually bound (PORT=0 picks a free one), for the banner and for `npm run demo`.
  const { port } = app.server.address() as { port: number };
  const baseUrl = serviceBaseUrl({ host: config.host, port });
  recordServerUrl(config.dataDir, baseUrl);
  process.stdout.write(`\n${startupBanner(baseUrl)}\n\n`);

  if (config.demoOnFirstStart) {
    const demo = await createDemoAccountOnFirstStart(app.ctx.db);
    if (demo) {
      // Printed to the terminal, never logged: the key must not reach log storage.
      process.stdout.write(`${demoInstructions(demo, baseUrl)}\n\n`);
    } else {
      // A later start: the demo key was printed once, on the first start. Say how to get another.
      process.stdout.write(`${anotherKeyHint(config)}\n\n`);
    }
  }
}

/**
 * SIGTERM / SIGINT: first a drain, during which /readyz answers 503 (the load balancer stops sending
 * new work) while the listener keeps serving and every response closes its connection; then the
 * listener closes and requests in flight, uploads included, get the grace period to finish. Exit 0
 * when everything finished, 1 when the grace ran out. A second signal cuts the drain short.
 */
function handleShutdown(app: FastifyInstance, config: Config) {
  let stopping: Promise<void> | undefined;
  let skipDrain: (() => void) | undefined;

  async function stop(signal: string) {
    const { drainSeconds, graceSeconds } = config.shutdown;
    app.ctx.lifecycle.draining = true;
    app.log.info({ signal, drainSeconds, graceSeconds }, 'shutting down: draining');
    await new Promise<void>((resolve) => {
      skipDrain = resolve;
      setTimeout(resolve, drainSeconds * 1000).unref();
    });
    app.log.info('shutting down: listener closed, finishing requests in flight');
    const grace = setTimeout(() => {
      app.log.error({ graceSeconds }, 'shutdown grace period over: closing remaining connections');
      app.server.closeAllConnections();
      process.exit(1);
    }, graceSeconds * 1000);
    grace.unref();
    await app.close();
    clearTimeout(grace);
    app.log.info('shut down');
    process.exit(0);
  }

  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.on(signal, () => {
      if (stopping) {
        skipDrain?.();
        return;
      }
      stopping = stop(signal).catch((err) => {
        app.log.error({ err }, 'shutdown failed');
        process.exit(1);
      });
    });
  }
  process.on('uncaughtException', (err) => {
    app.log.fatal({ err }, 'uncaught exception: exiting');
    process.exit(1);
  });
  process.on('unhandledRejection', (err) => {
    app.log.fatal({ err }, 'unhandled rejection: exiting');
    process.exit(1);
  });
}

main().catch((err) => {
  // A database that cannot be reached or opened is a setting to fix, not a crash: one clear line.
  const problem = databaseOpenProblem(err);
  if (problem) {
    console.error(`Cannot open the database: ${problem}`);
    process.exit(78); // EX_CONFIG: check DATABASE_URL
  }
  console.error(err);
  process.exit(1);
});
