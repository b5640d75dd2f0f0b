// The operator CLI: `npm run admin -- <command> [--flags] [--json]`. It opens the configured
// database itself (the server's environment: DATABASE_URL, or embedded PGlite under DATA_DIR),
// runs one command, and exits non-zero with a clear message on bad input. A minted key is printed
// once, to stdout, and never logged.
import { parseArgs } from 'node:util';
import { type Config, ConfigError, loadConfig } from '../config.js';
import { DataDirLockedError } from '../db/data-dir-lock.js';
import { databaseOpenProblem, openConfiguredDatabase } from '../db/open-configured.js';
import { ApiError } from '../http/errors.js';
import { vocabularyRepository } from '../vocabularies/repository.js';
import { aligned, commands, type Env, type Output, type Row, UsageError, type Values } from './commands.js';

function table(rows: Row[]): string {
  if (rows.length === 0) return '(none)';
  const columns = Object.keys(rows[0] as Row);
  const cells = rows.map((r) => columns.map((c) => String(r[c] ?? '')));
  const widths = columns.map((c, i) => Math.max(c.length, ...cells.map((row) => (row[i] as string).length)));
  const line = (values: string[]) =>
    values
      .map((v, i) => v.padEnd(widths[i] as number))
      .join('  ')
      .trimEnd();
  return [line(columns.map((c) => c.toUpperCase())), ...cells.map(line)].join('\n');
}

function help(): string {
  const width = Math.max(...Object.keys(commands).map((c) => c.length));
  return [
    'Usage: npm run admin -- <command> [--flags] [--json]',
    '',
    'Commands:',
    ...Object.entries(commands).map(
      ([name, c]) => `  ${name.padEnd(width)}  ${c.summary}${c.usage ? `\n  ${' '.repeat(width)}    ${c.usage}` : ''}`,
    ),
    `  ${'help'.padEnd(width)}  Show this help`,
    '',
    "Uses the server's configuration: DATABASE_URL (PostgreSQL) or embedded PGlite under DATA_DIR (default ./data).",
    '--json prints machine-readable output.',
  ].join('\n');
}

function render(output: Output, json: boolean): string {
  if (json) return JSON.stringify(output.json, null, 2);
  if (output.text) return output.text;
  if (output.table) return table(output.table);
  return aligned(output.fields ?? {}).join('\n');
}

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === 'help' || name === '--help' || name === '-h') {
    process.stdout.write(`${help()}\n`);
    return name ? 0 : 2;
  }
  const command = Object.hasOwn(commands, name) ? commands[name] : undefined;
  if (!command) {
    process.stderr.write(`error: unknown command '${name}'\n\n${help()}\n`);
    return 2;
  }

  const usage = (message: string) => {
    process.stderr.write(`error: ${message}\nusage: npm run admin -- ${name} ${command.usage}\n`);
    return 2;
  };

  let values: Values;
  let work: (env: Env) => Promise<Output>;
  try {
    ({ values } = parseArgs({
      args: rest,
      options: { ...command.options, json: { type: 'boolean' } },
      strict: true,
      allowPositionals: false,
    }));
    work = command.prepare(values);
  } catch (err) {
    // parseArgs' own errors (unknown flag, missing value) are usage errors too.
    return usage((err as Error).message);
  }

  let config: Config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      return 78;
    }
    throw err;
  }

  let database: Awaited<ReturnType<typeof openConfiguredDatabase>>;
  try {
    let told = false;
    database = await openConfiguredDatabase(config, {
      // One line, once: without it an unreachable PostgreSQL is a silent wait of DB_STARTUP_TIMEOUT_SECONDS.
      onWaiting: () => {
        if (told) return;
        told = true;
        process.stderr.write(
          `PostgreSQL at DATABASE_URL is unreachable; retrying for up to DB_STARTUP_TIMEOUT_SECONDS=${config.db.startupTimeoutSeconds} s...\n`,
        );
      },
    });
  } catch (err) {
    if (err instanceof DataDirLockedError) {
      process.stderr.write(`error: ${err.message}\n`);
      return 1;
    }
    // A setting to fix (unreachable, no such database, wrong credentials): one line and EX_CONFIG,
    // as the server does. The message of a connection failure never carries the URL (and its password).
    const problem = databaseOpenProblem(err);
    process.stderr.write(`error: cannot open the database: ${problem ?? (err as Error).message}\n`);
    return problem ? 78 : 1;
  }

  try {
    await vocabularyRepository(database.db).seedIfEmpty();
    const output = await work({ config, db: database.db });
    process.stdout.write(`${render(output, values.json === true)}\n`);
    return 0;
  } catch (err) {
    if (err instanceof UsageError) return usage(err.message);
    if (err instanceof ApiError) {
      process.stderr.write(`error: ${err.message}\n`);
      return 1;
    }
    throw err;
  } finally {
    await database.close();
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err) => {
    process.stderr.write(`error: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
