/**
 * The operator side of `pixd snapshot` while a sandbox node runs (the CLI opens the database itself when none
 * does): save, restore, list and delete, behind the operator secret like the rest of the operator API.
 * Mounted in the sandbox only: a production node's data is backed up with PostgreSQL's own tools.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { AppContext } from '../platform/context.ts';
import { ApiError } from '../platform/errors.ts';
import { operatorGuard } from '../operator/routes.ts';
import { loadAccountClocks } from './clock.ts';
import { faultBook } from './faults/book.ts';
import {
  deleteSnapshot,
  listSnapshots,
  restoreSnapshot,
  saveSnapshot,
  SNAPSHOT_NAME,
  SnapshotError,
} from './snapshot-store.ts';

const STATUS = { invalid: 400, missing: 404, exists: 409, incompatible: 409 } as const;
const named = {
  schema: {
    tags: ['Operator'],
    hide: true,
    body: Type.Object({ name: Type.String({ pattern: SNAPSHOT_NAME.source }) }, { additionalProperties: false }),
  },
};

/** A snapshot refused, in the operator API's error format; anything else goes on as it is. */
async function refusing<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof SnapshotError) throw new ApiError(STATUS[error.kind], 'snapshot_invalido', error.message);
    throw error;
  }
}

export const snapshotOperatorRoutes =
  (ctx: AppContext): FastifyPluginAsync =>
  async (base) => {
    const app = base.withTypeProvider<TypeBoxTypeProvider>();
    app.addHook('onRequest', operatorGuard(ctx));

    app.post('/operator/snapshots/save', named, async (request, reply) =>
      reply.status(201).send(await refusing(() => saveSnapshot(ctx.db, request.body.name, ctx.clock.now()))),
    );
    app.post('/operator/snapshots/restore', named, async (request) => {
      const restored = await refusing(() => restoreSnapshot(ctx.db, request.body.name));
      // This node's caches of account clocks and faults follow at once; other nodes within a second.
      await loadAccountClocks(ctx.db, ctx.clock);
      await faultBook(ctx).reload();
      return restored;
    });
    app.post('/operator/snapshots/delete', named, async (request) => {
      await refusing(() => deleteSnapshot(ctx.db, request.body.name));
      return { name: request.body.name };
    });
    app.post('/operator/snapshots/list', { schema: { tags: ['Operator'], hide: true } }, async () => ({
      snapshots: await listSnapshots(ctx.db),
    }));
  };
