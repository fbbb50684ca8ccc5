-- Per-account sandbox clocks (issue 13, item 10). The sandbox clock used to be one service-wide offset
-- (service_state 'sandbox.clock_offset_ms'): any application moving it expired every tenant's charges.
-- Each account now has its own offset; an account that never moved its clock has no row (real time).
-- Production never writes this table.
create table sandbox_clocks (
  account_id bigint primary key references accounts (id),
  offset_ms bigint not null,
  updated_at timestamptz not null
);

-- The account whose time a job's `available_at` was computed on: jobs are stored in service time (wall
-- time), converted from the account's time when enqueued, and moving an account's clock shifts that
-- account's pending jobs by the same amount, so the claim stays a plain comparison with the service's now.
-- Null: the job is the service's own.
alter table outbox add column account_id bigint;

-- The service-wide offset a sandbox may have been moved by becomes every existing account's own, and the
-- pending jobs (stored on that service time) come back to wall time: nothing changes for anyone.
insert into sandbox_clocks (account_id, offset_ms, updated_at)
  select a.id, (s.value ->> 'offsetMs')::bigint, now()
    from accounts a, service_state s
   where s.name = 'sandbox.clock_offset_ms' and (s.value ->> 'offsetMs')::bigint <> 0;
update outbox
   set available_at = available_at - (select (value ->> 'offsetMs')::bigint from service_state
                                       where name = 'sandbox.clock_offset_ms') * interval '1 millisecond'
 where done_at is null
   and exists (select 1 from service_state
                where name = 'sandbox.clock_offset_ms' and (value ->> 'offsetMs')::bigint <> 0);
delete from service_state where name = 'sandbox.clock_offset_ms';
