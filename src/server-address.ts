// The address the server last listened at, kept in DATA_DIR, so that `npm run demo` and the CLI's
// printed curl name the port the server really uses even when the CLI runs without its PORT.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const FILE = 'server-url';

/** Best effort: a read-only DATA_DIR only costs the CLI its hint. */
export function recordServerUrl(dataDir: string, url: string): void {
  try {
    writeFileSync(join(dataDir, FILE), `${url}\n`);
  } catch {
    // nothing to do: the CLI falls back to HOST and PORT
  }
}

/** The base URL the server last listened at under this DATA_DIR, if it recorded one. */
export function recordedServerUrl(dataDir: string): string | undefined {
  try {
    const url = readFileSync(join(dataDir, FILE), 'utf8').trim();
    return /^https?:\/\/[^\s/]+$/.test(url) ? url : undefined;
  } catch {
    return undefined;
  }
}
