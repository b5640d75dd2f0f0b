// Memory under one large upload: the service must stream it, so its peak RSS during a 50 MB upload
// stays near its idle RSS instead of growing by the file's size.
import { request } from 'node:http';
import { watchMemory } from './memory.js';
import { MULTIPART_CONTENT_TYPE, multipartPdfStream } from './multipart.js';

export interface BigUploadResult {
  bytes: number;
  status: number;
  seconds: number;
  idlePeakMb: number;
  uploadPeakMb: number;
  growthMb: number;
  rssSource: string;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function send(url: string, headers: Record<string, string>, bytes: number): Promise<number> {
  const { stream, length } = multipartPdfStream(bytes);
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method: 'POST', headers: { ...headers, 'content-type': MULTIPART_CONTENT_TYPE, 'content-length': String(length) } },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.setTimeout(120_000, () => req.destroy(new Error('the 50 MB upload timed out')));
    req.on('error', reject);
    stream.pipe(req);
  });
}

export async function measureBigUpload(
  url: string,
  headers: Record<string, string>,
  bytes: number,
  serverPid: number,
): Promise<BigUploadResult> {
  // Let the previous scenario's garbage settle, then take the idle peak over a quiet window.
  await sleep(3_000);
  const idle = watchMemory(serverPid);
  await sleep(3_000);
  const idleWindow = idle.close();
  const during = watchMemory(serverPid, 10);
  const started = performance.now();
  const status = await send(url, headers, bytes);
  const seconds = (performance.now() - started) / 1000;
  const uploadWindow = during.close();
  return {
    bytes,
    status,
    seconds,
    idlePeakMb: idleWindow.peakMb,
    uploadPeakMb: uploadWindow.peakMb,
    growthMb: uploadWindow.peakMb - idleWindow.peakMb,
    rssSource: uploadWindow.source,
  };
}
