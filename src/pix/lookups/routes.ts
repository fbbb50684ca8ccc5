/** `GET /v2/gn/chaves/balde`: the key-lookup buckets of the caller's account (named error format). */
import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../platform/context.ts';
import { callerOf } from '../shared/caller.ts';
import { BucketsView } from './schemas.ts';
import { readLookupBuckets } from './service.ts';

export const keyBucketRoutes =
  (ctx: AppContext): FastifyPluginAsync =>
  async (base) => {
    const app = base.withTypeProvider<TypeBoxTypeProvider>();
    app.get(
      '/v2/gn/chaves/balde',
      {
        config: { scope: 'gn.pix.send.read' },
        schema: {
          tags: ['Pix enviados'],
          summary: "The directory's token buckets for key lookups during sends (capacity, refill, tokens now)",
          response: { 200: BucketsView },
        },
      },
      async (request) => {
        const caller = callerOf(ctx, request);
        return readLookupBuckets(ctx.db, caller.accountId, caller.now);
      },
    );
  };
