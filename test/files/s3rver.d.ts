// s3rver ships no types; the little the tests use of it.
declare module 's3rver' {
  import type { Server } from 'node:http';
  export default class S3rver {
    constructor(options: { address?: string; port?: number; silent?: boolean; directory: string; configureBuckets?: { name: string }[] });
    run(): Promise<{ address: string; family: string; port: number }>;
    close(): Promise<void>;
    httpServer: Server;
  }
}
