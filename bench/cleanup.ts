// Undo actions registered as resources are created, run in reverse order exactly once, whatever
// ended the run: success, an error, the time limit, or Ctrl-C.

export type Log = (line: string) => void;

export const errorText = (err: unknown) => (err instanceof Error ? err.message : String(err)).split('\n').slice(0, 6).join('\n');

export class Cleanup {
  private readonly actions: { name: string; run: () => Promise<void> }[] = [];
  private done?: Promise<void>;

  constructor(private readonly log: Log) {}

  add(name: string, run: () => Promise<void>): void {
    this.actions.push({ name, run });
  }

  runAll(): Promise<void> {
    this.done ??= (async () => {
      for (const action of this.actions.reverse()) {
        await action.run().catch((err) => this.log(`cleanup: ${action.name} failed: ${errorText(err)}`));
      }
    })();
    return this.done;
  }
}
