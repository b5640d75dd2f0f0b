// The process: read the configuration, build the app, listen, and shut down gracefully.
import closeWithGrace from 'close-with-grace';
import { createDemoAccount, demoInstructions, isFirstStart } from './accounts/demo.js';
import { buildApp } from './app.js';
import { ConfigError, loadConfig } from './config.js';

async function main() {
  let config: ReturnType<typeof loadConfig>;
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
  const firstStart = config.demoOnFirstStart && (await isFirstStart(app.ctx.db));

  closeWithGrace({ delay: 10_000 }, async ({ signal, err }) => {
    if (err) app.log.error({ err }, 'shutting down after an error');
    else app.log.info({ signal }, 'shutting down');
    await app.close();
  });

  await app.listen({ port: config.port, host: config.host });

  if (firstStart) {
    const demo = await createDemoAccount(app.ctx.db);
    const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
    // Printed to the terminal, never logged: the key must not reach log storage.
    process.stdout.write(`\n${demoInstructions(demo, `http://${host}:${config.port}`)}\n\n`);
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
