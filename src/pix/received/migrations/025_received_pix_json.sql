-- Each received Pix's JSON text (Bacen `Pix`, as pixView and the response serializer write it), composed once
-- when the row is inserted rather than by every GET /v2/pix page: composing a hundred objects' text was most
-- of PostgreSQL's CPU on that route (docs/performance.md, session 9 round 2). Generated columns cover every
-- path that inserts a received Pix with no change to any of them, and no statement updates received_pix, so
-- the text can never go stale. Only `devolucoes` changes after insert (refunds are their own rows): the text
-- is stored as the part before it (`json_head`) and the part after it (`json_tail`), and the page puts the
-- refunds, composed per request, in between. Property order, omissions and texts are page-store.ts's.
--
-- A generated column needs an immutable expression. to_char and to_json are declared stable only because some
-- of their inputs depend on settings, and these calls use none of them: the timestamp is turned to UTC by an
-- explicit zone (not the session's TimeZone) before formatting; the format has only numeric fields (no `TM`
-- names, no locale); to_json of a text only quotes and escapes its characters (the encoding is the
-- database's, fixed at creation); the amount is integer arithmetic. So the same row always gives the same
-- text, which is what declaring these functions immutable promises. PL/pgSQL rather than SQL: its plans are
-- kept for the session, where a non-inlined SQL function is planned again by every insert statement.
--
-- The two column functions call only built-in functions (pg_catalog, found whatever the search_path), not
-- the helpers below: a PL/pgSQL body is resolved when it runs, and a restore (pg_dump runs it with an empty
-- search_path) recomputes the columns, which would not find an unqualified helper. So the amount and
-- timestamp texts are written out in them too; `formatAmount` and `toISOString` are what all three copy.

-- `formatAmount` over integer cents (the page's refunds).
create function pix_amount_text(cents bigint) returns text language plpgsql immutable strict parallel safe as $$
begin
  return case when cents < 0 then '-' else '' end || (abs(cents) / 100)::text || '.'
    || lpad((abs(cents) % 100)::text, 2, '0');
end $$;

-- `Date.prototype.toISOString`, which truncates to milliseconds as to_char's MS does (the page's refunds).
create function pix_iso_text(at timestamptz) returns text language plpgsql immutable strict parallel safe as $$
begin
  return to_char(at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"');
end $$;

-- `{"endToEndId":…,"valor":…,"horario":…,"pagador":{…}` (unclosed: `devolucoes` follows). An amount is
-- positive (received_pix's check), so no sign.
create function received_pix_json_head(end_to_end_id text, amount_cents bigint, received_at timestamptz,
  pagador_nome text, pagador_cpf text, pagador_cnpj text) returns text
language plpgsql immutable parallel safe as $$
begin
  return '{"endToEndId":' || to_json(end_to_end_id)::text
    || ',"valor":"' || (amount_cents / 100)::text || '.' || lpad((amount_cents % 100)::text, 2, '0')
    || '","horario":"' || to_char(received_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') || '"'
    || ',"pagador":{"nome":' || to_json(pagador_nome)::text
    || case when nullif(pagador_cpf, '') is not null then ',"cpf":' || to_json(pagador_cpf)::text
         when pagador_cnpj is not null then ',"cnpj":' || to_json(pagador_cnpj)::text else '' end || '}';
end $$;

-- The optional properties after `devolucoes`, each absent when null or empty, and the closing brace;
-- `componentesValor` has its nonzero components in the schema's order.
create function received_pix_json_tail(txid text, components jsonb, chave text, info_pagador text) returns text
language plpgsql immutable parallel safe as $$
declare
  members text[] := '{}';
  component text;
  cents bigint;
begin
  if components is not null then
    foreach component in array array['original', 'juros', 'multa', 'abatimento', 'desconto'] loop
      cents := (components->>component)::bigint;
      if cents <> 0 then
        members := members || ('"' || component || '":{"valor":"' || case when cents < 0 then '-' else '' end
          || (abs(cents) / 100)::text || '.'
          || lpad((abs(cents) % 100)::text, 2, '0') || '"}');
      end if;
    end loop;
  end if;
  return case when nullif(txid, '') is not null then ',"txid":' || to_json(txid)::text else '' end
    || case when components is not null then ',"componentesValor":{' || array_to_string(members, ',') || '}'
         else '' end
    || case when nullif(chave, '') is not null then ',"chave":' || to_json(chave)::text else '' end
    || case when nullif(info_pagador, '') is not null then ',"infoPagador":' || to_json(info_pagador)::text
         else '' end
    || '}';
end $$;

alter table received_pix
  add column json_head text not null generated always as (received_pix_json_head(end_to_end_id, amount_cents,
    received_at, pagador_nome, pagador_cpf, pagador_cnpj)) stored,
  add column json_tail text not null generated always as (received_pix_json_tail(txid, components, chave,
    info_pagador)) stored;
