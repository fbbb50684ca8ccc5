-- One simplified account per holder and integrator (docs/decisions.md, "One simplified account per CPF/CNPJ"):
-- the end client's CPF, and CNPJ when given, with unique indexes so two concurrent openings for the same holder
-- cannot both commit. Accounts opened before this migration keep their own document: the earliest per
-- (integrator, document) takes it, later duplicates stay (nothing is closed) but hold none, so the index builds.
alter table simplified_accounts add column cpf text, add column cnpj text;
with firsts as (
  select s.id, a.documento,
         row_number() over (partition by s.opener_account_id, a.documento order by s.created_at, s.id) as n
  from simplified_accounts s join accounts a on a.id = s.account_id
)
update simplified_accounts s
set cpf = case when length(f.documento) = 11 then f.documento end,
    cnpj = case when length(f.documento) = 14 then f.documento end
from firsts f
where f.id = s.id and f.n = 1;
create unique index simplified_accounts_opener_cpf on simplified_accounts (opener_account_id, cpf)
  where cpf is not null;
create unique index simplified_accounts_opener_cnpj on simplified_accounts (opener_account_id, cnpj)
  where cnpj is not null;
