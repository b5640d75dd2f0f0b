// Server memory as Linux reports it: VmRSS (now) and VmHWM (peak since start, or since the last
// reset through /proc/<pid>/clear_refs), sampled so a short peak between two reads is not lost.
import { readFileSync, writeFileSync } from 'node:fs';

const KB = 1024;

export function readMemoryKb(pid: number): { rss: number; hwm: number } | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? Number.NaN);
    return { rss: field('VmRSS'), hwm: field('VmHWM') };
  } catch {
    return undefined;
  }
}

/** Resets VmHWM to the current RSS (Linux >= 4.0). False where the kernel or permissions refuse. */
export function resetPeak(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

export interface MemoryWindow {
  /** Peak resident memory in MB over the window: VmHWM when it could be reset, else the highest sample. */
  peakMb: number;
  /** Resident memory in MB when the window opened. */
  startMb: number;
  source: 'VmHWM' | 'sampled VmRSS';
}

/** Opens a measurement window on `pid`: resets the peak, samples VmRSS, and reports the peak when closed. */
export function watchMemory(pid: number, intervalMs = 50): { close(): MemoryWindow } {
  const reset = resetPeak(pid);
  const start = readMemoryKb(pid);
  let sampled = start?.rss ?? 0;
  const timer = setInterval(() => {
    const now = readMemoryKb(pid);
    if (now && now.rss > sampled) sampled = now.rss;
  }, intervalMs);
  return {
    close() {
      clearInterval(timer);
      const end = readMemoryKb(pid);
      const peakKb = reset && end ? Math.max(end.hwm, sampled) : Math.max(sampled, end?.rss ?? 0);
      return { peakMb: peakKb / KB, startMb: (start?.rss ?? 0) / KB, source: reset ? 'VmHWM' : 'sampled VmRSS' };
    },
  };
}
