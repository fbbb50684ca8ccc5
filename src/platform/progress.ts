/** The slow steps of a start (creating the database, migrating, issuing certificates), told as they finish. */

/** A step of the start that did work (created, applied, issued), with how long it took. */
export type Progress = (step: string, elapsedMs: number) => void;

/** Runs `work` and reports it when `describe` says it did something worth telling. */
export async function timed<T>(
  progress: Progress | undefined,
  work: () => Promise<T>,
  describe: (result: T) => string | undefined,
): Promise<T> {
  const started = performance.now();
  const result = await work();
  const step = describe(result);
  if (step && progress) progress(step, performance.now() - started);
  return result;
}
