import fs from 'node:fs';
import { createHash } from 'node:crypto';
import path from 'node:path';
// Types only: a node loads the driver of the one engine it runs (each costs tens of milliseconds at start).
import type pg from 'pg';
import type { PGlite } from '@electric-sql/pglite';
import { isDatabaseUnavailable } from './errors.ts';
import {
  checkDeadline,
  DeadlineExceeded,
  deadlineRemainingMs,
  isStatementCancelled,
  outsideDeadline,
} from './deadline.ts';
import { retryingConflicts } from './conflict-retry.ts';
import { generationOf, parseDatabaseUrl, PrimaryRouter } from './hosts.ts';
import { lockDataDir } from './data-dir-lock.ts';
import { copyClusterTemplate, limitEmbeddedMemory } from './embedded-cluster.ts';
import { checkCluster, openVerifiedCluster } from './embedded-check.ts';
import { GROUP_COMMIT_CONNECTIONS, LIMITS } from '../limits.ts';

export interface QueryResult<R> {
  rows: R[];
  rowCount: number;
}

/** What services and stores see: a connection or an open transaction, never which engine is behind it. */
export interface Sql {
  query<R = Record<string, unknown>>(text: string, params?: unknown[]): Promise<QueryResult<R>>;
  /** Runs a script of several statements without parameters (migrations). */
  exec(script: string): Promise<void>;
  /**
   * Runs `work` atomically: inside the transaction already open, or in a new one. Lets a service issue a
   * single statement (atomic by itself, one round trip) on the common path and open a transaction only
   * when it needs several.
   */
  atomic<T>(work: (sql: Sql) => Promise<T>): Promise<T>;
  /** True inside a transaction: statements wait for its commit, so they cannot be coalesced with others'. */
  readonly inTransaction: boolean;
  /**
   * Once what was written through this Sql is committed (at once outside a transaction; never if the
   * transaction rolls back), tells the `channel`'s subscribers (`Database.subscribe`). The outbox uses it to
   * wake its workers when a transaction that enqueued jobs commits. `channel:detail` tells the subscribers of
   * `channel`, with the detail (the outbox: the topic, so only the workers that handle it claim).
   */
  notifyAfterCommit(channel: string): void;
  /**
   * Where group commits (group-commit.ts) run their statements, when the database has a place of its own for
   * them: on PostgreSQL, connections reserved for those keyed multi-row statements (`openPostgres`).
   * Undefined inside a transaction and on the embedded database.
   */
  readonly groupCommit?: Sql;
}

export interface Database extends Sql {
  readonly kind: 'pglite' | 'postgres';
  /** Runs `work` in one transaction: everything one request writes commits or rolls back together. */
  tx<T>(work: (sql: Sql) => Promise<T>): Promise<T>;
  subscribe(channel: string, listener: (detail?: string) => void): void;
  /** Runs `work` holding a session-level advisory lock (migrations, first-start bootstrap). */
  withAdvisoryLock<T>(lockId: number, work: (sql: Sql) => Promise<T>): Promise<T>;
  /**
   * How this open created the embedded cluster, for the first start's progress line: copied from the install
   * template, or by initdb when there is none for this tree. Undefined when nothing was created.
   */
  readonly createdCluster?: 'from the install template' | 'with initdb';
  close(): Promise<void>;
}

/** int8 holds cents and ids; every value we store fits a double exactly (checked by assertCents on write). */
const INT8_OID = 20;
const int8AsNumber = (v: string) => Number(v);

const statementNames = new Map<string, string>();

/** Subscribers per channel, and the notifications a transaction holds until it commits. */
class CommitNotifications {
  private readonly subscribers = new Map<string, ((detail?: string) => void)[]>();

  subscribe(channel: string, listener: (detail?: string) => void): void {
    this.subscribers.set(channel, [...(this.subscribers.get(channel) ?? []), listener]);
  }

  /** For one statement outside a transaction (`pending` undefined) or one transaction's held channels. */
  notify(channel: string, pending: Set<string> | undefined): void {
    if (pending) pending.add(channel);
    else this.publish([channel]);
  }

  publish(channels: Iterable<string>): void {
    for (const notified of channels) {
      const colon = notified.indexOf(':');
      const channel = colon < 0 ? notified : notified.slice(0, colon);
      const detail = colon < 0 ? undefined : notified.slice(colon + 1);
      // The subscribers' work is not the committing request's: it runs without that request's deadline.
      for (const listener of this.subscribers.get(channel) ?? []) outsideDeadline(() => listener(detail));
    }
  }
}

/**
 * Parameterised queries run as named prepared statements: PostgreSQL parses and plans each text once
 * per connection instead of on every call. The name is a hash of the text, so it can never be reused
 * for a different statement.
 */
function statementName(text: string): string {
  let name = statementNames.get(text);
  if (!name) {
    name = `s${createHash('sha1').update(text).digest('hex').slice(0, 20)}`;
    statementNames.set(text, name);
  }
  return name;
}

/**
 * `newService`: an embedded database may be made where a service lived and its cluster is gone (`pixd start
 * --reinitialize`); otherwise that is refused (embedded-check.ts).
 */
export async function openDatabase(options: {
  databaseUrl?: string;
  dataDir: string;
  newService?: boolean;
}): Promise<Database> {
  if (options.databaseUrl) return openPostgres(options.databaseUrl);
  const lock = lockDataDir(options.dataDir);
  try {
    const db = await openPglite(options.dataDir, options.newService === true);
    return {
      ...db,
      async close() {
        try {
          await db.close();
        } finally {
          lock.release();
        }
      },
    };
  } catch (error) {
    lock.release();
    throw error;
  }
}

/**
 * Settings of the connections that run group-commit statements. Each of those statements finds its rows by a
 * key (a primary or unique key, joined from the unnested batch) and is planned once per connection: a generic
 * plan, so a batch costs no planning. A generic plan is made from the table as it was then, and PostgreSQL
 * keeps it until the table's statistics change — never, where autovacuum is off, and not for the first minute
 * of a new database where it is on. A plan made while `charges` was ten rows reads it whole (a hash join over a
 * sequential scan, or the wrong index), and keeps doing so at a million: the cost of a payment then grows with
 * the history. Sequential scans, hash and merge joins are therefore priced out on these connections, so the
 * plan is the nested loop over key lookups at any table size (docs/architecture.md, "Group commit").
 */
const GROUP_COMMIT_SESSION = [
  'plan_cache_mode=force_generic_plan',
  'enable_seqscan=off',
  'enable_hashjoin=off',
  'enable_mergejoin=off',
]
  .map((setting) => `-c ${setting}`)
  .join(' ');

/** A pool whose clients keep an error listener for life, ready (its first connection made). */
async function openPool(pg: typeof import('pg').default, config: import('pg').PoolConfig): Promise<import('pg').Pool> {
  const pool = new pg.Pool(config);
  pool.on('error', () => {
    // An idle client lost its connection; the pool replaces it. Nothing was in flight on it.
  });
  // A client whose connection drops emits 'error', possibly more than once and possibly after it went
  // back to the pool; an unheard 'error' event ends the process. The statement in flight fails on its
  // own (and so fails only the request or job that ran it), so every client gets a listener for life.
  pool.on('connect', (client) => {
    client.on('error', () => undefined);
  });
  await pool.query('select 1');
  return pool;
}

/** Why a pooled connection is dropped on release: its host was found gone or demoted since it connected. */
const STALE_HOST = new Error('the connection is to a PostgreSQL host no longer the primary');

async function openPostgres(url: string): Promise<Database> {
  const { default: pg } = await import('pg');
  pg.types.setTypeParser(INT8_OID, int8AsNumber);
  const target = parseDatabaseUrl(url);
  const router = new PrimaryRouter(pg, target, LIMITS.postgresHostProbeTimeoutMs);
  const routing: import('pg').PoolConfig = {
    connectionString: target.urlFor(target.hosts[0]),
    ...(router.routed && { Client: router.clientClass() }),
  };
  // Both pools' first connections at once: a start waits for one round of connection set-up, not two.
  const opened = await Promise.allSettled([
    openPool(pg, { ...routing, max: LIMITS.postgresConnections }),
    openPool(pg, { ...routing, max: GROUP_COMMIT_CONNECTIONS, options: GROUP_COMMIT_SESSION }),
  ]);
  const failed = opened.find((result) => result.status === 'rejected');
  if (failed) {
    await Promise.all(opened.map((result) => result.status === 'fulfilled' && result.value.end()));
    throw failed.reason;
  }
  const [pool, groupCommitPool] = opened.map((result) => (result as PromiseFulfilledResult<pg.Pool>).value);
  const withClientOf =
    (from: pg.Pool) =>
    async <T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> => {
      const client = await from.connect();
      let broken: Error | undefined;
      try {
        return await work(client);
      } catch (error) {
        // Released with an error, the pool destroys the client instead of handing a dead connection on.
        if (isDatabaseUnavailable(error)) {
          broken = error as Error;
          router.lost(generationOf(client));
        }
        throw error;
      } finally {
        // A connection to a host since lost (a failover) is dropped too, even if this statement went through.
        client.release(broken ?? (generationOf(client) === router.generation ? undefined : STALE_HOST));
      }
    };
  const withClient = withClientOf(pool);
  const run = async (client: pg.PoolClient, text: string, params?: unknown[]) => {
    const result = params?.length
      ? await client.query({ name: statementName(text), text, values: params })
      : await client.query(text);
    return { rows: result.rows, rowCount: result.rowCount ?? 0 };
  };
  // Outside a transaction each statement checks a client out through `withClient` too, so a statement
  // that found its connection dead gets that client destroyed rather than reused.
  const notifications = new CommitNotifications();
  // A statement on its own is atomic: one a deadlock or a serialization failure refused wrote nothing, and is
  // run again (conflict-retry.ts). Inside a transaction the whole transaction is (`tx`).
  const asSql = (client: pg.PoolClient | undefined, atomic: Sql['atomic'], pending?: Set<string>): Sql => ({
    atomic,
    inTransaction: pending !== undefined,
    notifyAfterCommit: (channel) => notifications.notify(channel, pending),
    query: async (text, params) => {
      if (!client) return retryingConflicts(() => withClient((c) => run(c, text, params)));
      checkDeadline();
      return run(client, text, params);
    },
    async exec(script) {
      await (client ? client.query(script) : withClient((c) => c.query(script)));
    },
  });
  const transactionOn = async <T>(client: pg.PoolClient, work: (sql: Sql) => Promise<T>): Promise<T> => {
    const pending = new Set<string>();
    const sql: Sql = asSql(client, (inner) => inner(sql), pending);
    // Under a request's deadline (deadline.ts) every statement is bounded by the time left, set with `begin`
    // in one round trip; a transaction whose deadline passed before its commit rolls back.
    const remainingMs = deadlineRemainingMs();
    if (remainingMs === 0) throw new DeadlineExceeded();
    await client.query(
      remainingMs === undefined ? 'begin' : `begin; set local statement_timeout = ${Math.ceil(remainingMs)}`,
    );
    try {
      const result = await work(sql);
      checkDeadline();
      await client.query('commit');
      notifications.publish(pending);
      return result;
    } catch (error) {
      await client.query('rollback').catch(() => undefined);
      if (remainingMs !== undefined && isStatementCancelled(error)) throw new DeadlineExceeded();
      throw error;
    }
  };
  const tx = <T>(work: (sql: Sql) => Promise<T>): Promise<T> =>
    retryingConflicts(() => withClient((client) => transactionOn(client, work)));
  const onGroupCommitConnections = withClientOf(groupCommitPool);
  const groupCommit: Sql = {
    ...asSql(undefined, tx),
    query: (text, params) => retryingConflicts(() => onGroupCommitConnections((c) => run(c, text, params))),
  };
  return {
    kind: 'postgres',
    ...asSql(undefined, tx),
    groupCommit,
    tx,
    subscribe: (channel, listener) => notifications.subscribe(channel, listener),
    withAdvisoryLock: (lockId, work) =>
      withClient(async (client) => {
        await client.query('select pg_advisory_lock($1)', [lockId]);
        try {
          return await work(asSql(client, (inner) => transactionOn(client, inner)));
        } finally {
          await client.query('select pg_advisory_unlock($1)', [lockId]);
        }
      }),
    close: async () => {
      await Promise.all([pool.end(), groupCommitPool.end()]);
    },
  };
}

/** The embedded cluster's directory inside a data directory. */
const clusterDir = (dataDir: string) => path.join(dataDir, 'pgdata');

async function openPglite(dataDir: string, newService: boolean): Promise<Database> {
  const dir = clusterDir(dataDir);
  const createdCluster =
    checkCluster(dataDir, dir, newService) === 'present'
      ? undefined
      : copyClusterTemplate(dir)
        ? ('from the install template' as const)
        : ('with initdb' as const);
  fs.mkdirSync(dir, { recursive: true });
  const { PGlite } = await import('@electric-sql/pglite');
  const db = await openVerifiedCluster(dir, (onStderr) =>
    PGlite.create(dir, { parsers: { [INT8_OID]: int8AsNumber }, onStderr }),
  );
  await limitEmbeddedMemory(db);
  const notifications = new CommitNotifications();
  const asSql = (q: Pick<PGlite, 'query' | 'exec'>, atomic: Sql['atomic'], pending?: Set<string>): Sql => ({
    atomic,
    inTransaction: pending !== undefined,
    notifyAfterCommit: (channel) => notifications.notify(channel, pending),
    async query(text, params) {
      const result = await q.query(text, params as unknown[]);
      return { rows: result.rows as never[], rowCount: result.affectedRows ?? result.rows.length };
    },
    async exec(script) {
      await q.exec(script);
    },
  });
  // PGlite serialises transactions itself: one process, one connection.
  const tx = async <T>(work: (sql: Sql) => Promise<T>): Promise<T> => {
    const pending = new Set<string>();
    checkDeadline();
    const result = await db.transaction(async (open) => {
      const sql: Sql = asSql(open, (inner) => inner(sql), pending);
      const done = await work(sql);
      // As on PostgreSQL: a transaction whose request ran out of time rolls back (deadline.ts).
      checkDeadline();
      return done;
    });
    notifications.publish(pending);
    return result;
  };
  return {
    kind: 'pglite',
    createdCluster,
    ...asSql(db, tx),
    tx,
    subscribe: (channel, listener) => notifications.subscribe(channel, listener),
    withAdvisoryLock: async (lockId, work) => {
      await db.query('select pg_advisory_lock($1)', [lockId]);
      try {
        return await work(asSql(db, tx));
      } finally {
        await db.query('select pg_advisory_unlock($1)', [lockId]);
      }
    },
    close: () => db.close(),
  };
}
