import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// The suite runs on embedded PGlite always, and a second time on PostgreSQL when
// TEST_DATABASE_URL is set (CI sets it, with TEST_REDIS_URL for the shared rate limiter).
const backends = ['pglite', ...(process.env.TEST_DATABASE_URL ? ['postgres'] : [])];

export default defineConfig({
  // The SDK's tests import its TypeScript source: no build step before `npm test`.
  resolve: { alias: { '@aviation-marketplace/partner-sdk': fileURLToPath(new URL('./packages/sdk/src/index.ts', import.meta.url)) } },
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    projects: backends.map((backend) => ({
      extends: true,
      test: { name: backend, include: ['test/**/*.test.ts'], env: { TEST_BACKEND: backend } },
    })),
  },
});
