-- pixd listen sessions (docs/webhooks.md, "Forwarding to localhost"; issue 29 item 11): the session and the
-- registrations it replaced, written before each is replaced, so that whatever ends the stream (the command
-- stopping, the node shutting down, the node killed) they are put back, by the node holding it or, once that
-- node is gone, by the next sandbox node that notices (at its start for a dead process of its host, or when the
-- lease has run out). Sandbox only: production never writes here.
create table listen_sessions (
  id uuid primary key,
  account_id bigint not null references accounts (id),
  -- The session's own address, which the replaced registrations point at while it lasts.
  webhook_url text not null,
  -- host:pid:random of the node holding the stream (src/platform/processes.ts).
  holder text not null,
  -- Renewed by the holder while the stream is open (wall time).
  alive_until timestamptz not null,
  -- [{kind: 'pix' | 'rec' | 'cobr', chave?, before: {webhook_url, skip_mtls, created_at} | null}] in the order replaced.
  replaced jsonb not null default '[]',
  opened_at timestamptz not null
);
create index listen_sessions_alive_until on listen_sessions (alive_until);
