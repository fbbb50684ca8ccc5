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

create function pix_amount_text(cents bigint) returns text language plpgsql immutable strict parallel safe as $$
begin
  return case when cents < 0 then '-' else '' end || (abs(cents) / 100)::text || '.'
    || lpad((abs(cents) % 100)::text, 2, '0');
end $$;

-- `Date.prototype.toISOString`, which truncates to milliseconds as to_char's MS does.
create function pix_iso_text(at timestamptz) returns text language plpgsql immutable strict parallel safe as $$
begin
  return to_char(at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"');
end $$;

-- `{"endToEndId":…,"valor":…,"horario":…,"pagador":{…}` (unclosed: `devolucoes` follows).
create function received_pix_json_head(end_to_end_id text, amount_cents bigint, received_at timestamptz,
  pagador_nome text, pagador_cpf text, pagador_cnpj text) returns text
language plpgsql immutable parallel safe as $$
begin
  return '{"endToEndId":' || to_json(end_to_end_id)::text
    || ',"valor":"' || pix_amount_text(amount_cents) || '","horario":"' || pix_iso_text(received_at) || '"'
    || ',"pagador":{"nome":' || to_json(pagador_nome)::text
    || case when nullif(pagador_cpf, '') is not null then ',"cpf":' || to_json(pagador_cpf)::text
         when pagador_cnpj is not null then ',"cnpj":' || to_json(pagador_cnpj)::text else '' end || '}';
end $$;

-- The optional properties after `devolucoes`, each absent when null or empty, and the closing brace;
-- `componentesValor` has its nonzero components in the schema's order.
create function received_pix_json_tail(txid text, components jsonb, chave text, info_pagador text) returns text
language plpgsql immutable parallel safe as $$
begin
  return case when nullif(txid, '') is not null then ',"txid":' || to_json(txid)::text else '' end
    || case when components is not null then ',"componentesValor":{' || concat_ws(',',
         case when (components->>'original')::bigint <> 0
           then '"original":{"valor":"' || pix_amount_text((components->>'original')::bigint) || '"}' end,
         case when (components->>'juros')::bigint <> 0
           then '"juros":{"valor":"' || pix_amount_text((components->>'juros')::bigint) || '"}' end,
         case when (components->>'multa')::bigint <> 0
           then '"multa":{"valor":"' || pix_amount_text((components->>'multa')::bigint) || '"}' end,
         case when (components->>'abatimento')::bigint <> 0
           then '"abatimento":{"valor":"' || pix_amount_text((components->>'abatimento')::bigint) || '"}' end,
         case when (components->>'desconto')::bigint <> 0
           then '"desconto":{"valor":"' || pix_amount_text((components->>'desconto')::bigint) || '"}' end)
       || '}' else '' end
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
