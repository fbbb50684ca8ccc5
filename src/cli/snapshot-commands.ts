/**
 * `pixd snapshot save|restore|delete <name>` and `pixd snapshot list` (sandbox): through the running node's
 * operator API, else on the database directly (src/sandbox/snapshot-store.ts says what a snapshot holds).
 */
import type { Config } from '../config.ts';
import { openDatabase } from '../platform/db/database.ts';
import { CliError, throughOperatorApi } from './operator-client.ts';

export type SnapshotAction = 'save' | 'restore' | 'delete' | 'list';

interface Info {
  name: string;
  createdAt: string;
  rows: number;
}

export async function snapshot(config: Config, action: SnapshotAction, name: string | undefined, json: boolean) {
  const input = name === undefined ? {} : { name };
  const answer =
    (await throughOperatorApi<unknown>(config, `/operator/snapshots/${action}`, input)) ??
    (await offline(config, action, name));
  if (json) return void process.stdout.write(`${JSON.stringify(answer, null, 2)}\n`);
  const info = answer as Info;
  const lines: Record<SnapshotAction, () => string> = {
    save: () => `saved snapshot ${info.name}: ${info.rows} rows as of ${info.createdAt}`,
    restore: () => `restored snapshot ${info.name} (taken ${info.createdAt})`,
    delete: () => `deleted snapshot ${info.name}`,
    list: () => {
      const { snapshots } = answer as { snapshots: Info[] };
      if (!snapshots.length) return 'no snapshots yet (pixd snapshot save <name>)';
      return snapshots.map((s) => `${s.name.padEnd(24)} ${s.createdAt}  ${s.rows} rows`).join('\n');
    },
  };
  process.stdout.write(`${lines[action]()}\n`);
}

/** No node runs on this data directory: the database is ours to open. */
async function offline(config: Config, action: SnapshotAction, name: string | undefined): Promise<unknown> {
  if (config.environment !== 'sandbox')
    throw new CliError("snapshots are a sandbox tool: back a production database up with PostgreSQL's own tools");
  const store = await import('../sandbox/snapshot-store.ts');
  const db = await openDatabase(config);
  try {
    if (action === 'list') return { snapshots: await store.listSnapshots(db) };
    if (name === undefined) throw new CliError(`pixd snapshot ${action} needs a name`);
    if (action === 'save') return await store.saveSnapshot(db, name, new Date());
    if (action === 'restore') return await store.restoreSnapshot(db, name);
    await store.deleteSnapshot(db, name);
    return { name };
  } catch (error) {
    if (error instanceof store.SnapshotError) throw new CliError(error.message);
    throw error;
  } finally {
    await db.close();
  }
}
