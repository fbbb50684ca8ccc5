/**
 * What a start has opened so far (the database, timers, the listeners, the workers), closed in the reverse
 * order: by the service's `close()`, and by a start that fails halfway, so that a failed start leaves no port
 * bound, no database open and no timer running, and the process can exit (runtime.ts).
 */
export class Opened {
  private readonly closers: { what: string; close: () => unknown }[] = [];

  /** `close` undoes `what`; it runs after everything added later has been closed. */
  add(what: string, close: () => unknown): void {
    this.closers.push({ what, close });
  }

  /**
   * Closes everything, last opened first. A closer that fails does not stop the others; the first failure is
   * thrown once all have run (naming what failed to close).
   */
  async closeAll(): Promise<void> {
    let failure: Error | undefined;
    for (let next = this.closers.pop(); next; next = this.closers.pop()) {
      try {
        await next.close();
      } catch (error) {
        failure ??= new Error(`closing ${next.what} failed: ${(error as Error).message}`, { cause: error });
      }
    }
    if (failure) throw failure;
  }

  /**
   * For a start that failed with `error`: closes what it opened and gives back the error to throw, the start's
   * own (a failure to clean up is attached as its `cleanupError`, never hiding why the start failed).
   */
  async undo(error: unknown): Promise<unknown> {
    try {
      await this.closeAll();
    } catch (cleanupError) {
      if (error instanceof Error) Object.assign(error, { cleanupError });
    }
    return error;
  }
}
