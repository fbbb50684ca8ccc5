/**
 * The console's sandbox tools page (loaded by src/console/routes.ts in the sandbox only): pay a charge or a
 * BR Code as the fictitious payer (`POST /sandbox/pix/pay`'s `sandboxPay`, the same engine as every Pix)
 * and move the account's clock (`POST /sandbox/clock/advance`'s `advanceAccountClock`); open a MED
 * infraction (`POST /sandbox/infracoes`' `openInfraction`) and confirm an approved card charge
 * (`POST /sandbox/billing/charge/:id/settle`'s `settleNow`); set and clear faults on demand (faults/console.ts);
 * pay a boleto by its barcode (`POST /sandbox/boleto/pay`'s `sandboxPayBoleto`); read the billing e-mails.
 */
import { refusalText, type ConsoleTools } from '../console/kit.ts';
import { csrfField, html, when, brl } from '../console/render.ts';
import { AMOUNT_PATTERN } from '../platform/money.ts';
import { sandboxPay } from './pay.ts';
import { sandboxPayBoleto } from './boleto-pay.ts';
import { openInfraction } from '../pix/infractions/service.ts';
import { OpenRequest } from '../pix/infractions/schemas.ts';
import { settleNow } from '../billing/charges/service.ts';
import { mailOf } from '../billing/mail/store.ts';
import { LIMITS } from '../platform/limits.ts';
import { SANDBOX_AUTOPAY } from './settlement.ts';
import { FICTITIOUS_PAYER } from './spi-institution.ts';
import { CLOCK_ADVANCE_MAX_SECONDS, advanceAccountClock, resetAccountClock } from './clock.ts';
import { faultSection, registerFaultTools } from './faults/console.ts';

const PAGE = '/console/sandbox';
/** `POST /sandbox/infracoes`' own bound on `motivo`, from its schema. */
const MOTIVO_MAX_CHARS = OpenRequest.properties.motivo.maxLength as number;
const UNIT_SECONDS: Record<string, number> = { minutos: 60, horas: 3600, dias: 86_400 };

export const sandboxConsoleTools: ConsoleTools = {
  register(app, kit) {
    const { ctx } = kit;
    /** The sandbox's mailbox: the billing e-mails (boletos, carnês) the account sent, newest first. */
    const mailSection = async (accountId: number) => {
      const mail = await mailOf(ctx.db, accountId, LIMITS.consolePageSize);
      return html`<section aria-labelledby="mail"><h2 id="mail">E-mails enviados (caixa de saída do sandbox)</h2>${
        mail.length
          ? html`<ul>${mail.map(
              (
                m,
              ) => html`<li><details><summary>${when(m.created_at)} · para ${m.to_address} · ${m.subject}${m.status === 'sent' ? '' : ` · ${m.status}`}</summary>
<pre>${m.body}</pre></details></li>`,
            )}</ul>`
          : html`<p class="muted">Nenhum e-mail. <code>sendBilletEmail</code> e <code>sendCarnetEmail</code> aparecem aqui.</p>`
      }</section>`;
    };
    app.get(
      PAGE,
      kit.guarded(async (_request, reply, session) => {
        const now = kit.callerOf(session).now;
        const body = html`<section aria-labelledby="pay"><h2 id="pay">Pagar como o pagador fictício</h2>
<div class="rules"><p>Regras de valor do sandbox:</p><ul>
<li>Cobranças de ${brl(SANDBOX_AUTOPAY.minCents)} a ${brl(SANDBOX_AUTOPAY.maxCents)} são pagas sozinhas um instante depois de criadas.</li>
<li>Acima disso ficam ATIVA até você pagar aqui. Sem valor informado, paga-se o que a cobrança pede (com juros, multa e descontos da cobrança com vencimento).</li>
<li>Um BR Code estático com valor fixo só aceita esse valor; uma cobrança só aceita outro valor se permitir alteração.</li>
<li>Um boleto (código de barras ou linha digitável) é pago pelo valor do dia e creditado no dia útil seguinte, pelo relógio da conta que o emitiu; o QR Pix dele é pago na hora.</li></ul>
<p class="muted">Pagador: ${FICTITIOUS_PAYER.nome}, CPF ${FICTITIOUS_PAYER.cpf}.</p></div>
<form method="post" action="${PAGE}/pay" class="stack">${csrfField(session)}
<label for="target">txid da cobrança, BR Code (Pix Copia e Cola) ou linha digitável do boleto</label>
<textarea id="target" name="target" rows="3" required></textarea>
<label for="valor">Valor (opcional, ex.: 12.34)</label>
<input id="valor" name="valor" pattern="${AMOUNT_PATTERN}" inputmode="decimal">
<button type="submit" class="primary">Pagar</button></form></section>
<section aria-labelledby="clock"><h2 id="clock">Relógio da conta</h2>
<p>Agora, no relógio desta conta: ${when(now)}. Avançar move vencimentos, expirações e os trabalhos pendentes da conta.</p>
<form method="post" action="${PAGE}/clock" class="search">${csrfField(session)}
<label>Quanto <input name="amount" type="number" min="1" value="1" required></label>
<label>Unidade <select name="unit"><option>minutos</option><option>horas</option><option selected>dias</option></select></label>
<button type="submit">Avançar</button></form>
<form method="post" action="${PAGE}/clock/reset">${csrfField(session)}<button type="submit">Voltar ao tempo real</button></form></section>
<section aria-labelledby="med"><h2 id="med">Abrir uma infração (MED)</h2>
<p>O pagador contesta um Pix que esta conta recebeu: o valor fica bloqueado até a decisão (docs/infractions.md).</p>
<form method="post" action="${PAGE}/infraction" class="stack">${csrfField(session)}
<label for="e2e">endToEndId do Pix recebido</label><input id="e2e" name="endToEndId" required autocomplete="off">
<label for="motivo">Motivo</label><input id="motivo" name="motivo" required maxlength="${MOTIVO_MAX_CHARS}" value="Golpe relatado pelo pagador">
<button type="submit">Abrir infração</button></form></section>
<section aria-labelledby="card"><h2 id="card">Confirmar uma cobrança de cartão</h2>
<p>Uma cobrança de cartão aprovada é paga sozinha uma hora depois no relógio do sandbox; aqui, agora.</p>
<form method="post" action="${PAGE}/card-settle" class="search">${csrfField(session)}
<label>charge_id <input name="chargeId" type="number" min="1" required></label>
<button type="submit">Confirmar pagamento</button></form></section>
${await faultSection(kit, session, PAGE)}
${await mailSection(kit.callerOf(session).accountId)}`;
        return kit.render(reply, session, { title: 'Ferramentas do sandbox', section: 'sandbox' }, body);
      }, 'sandbox.write'),
    );

    app.post(
      `${PAGE}/pay`,
      kit.guarded(async (_request, reply, session, form) => {
        const target = String(form.target ?? '').trim();
        const isBrCode = target.startsWith('000201');
        try {
          // A boleto's barcode or linha digitável: paid as a bank would, credited the next business day.
          if (/^\d{44}$|^\d{47}$/.test(target.replace(/[\s.]/g, ''))) {
            const paid = await ctx.db.tx((sql) => sandboxPayBoleto(sql, ctx.clock, { codBarras: target }));
            return kit.done(reply, session, PAGE, {
              kind: 'ok',
              text: `Boleto pago: R$ ${paid.valor} a ${paid.beneficiario.nome}; crédito em ${paid.creditoEm}.`,
            });
          }
          const pix = await sandboxPay(ctx, session.current, {
            ...(isBrCode ? { pixCopiaECola: target } : { txid: target }),
            ...(form.valor ? { valor: form.valor } : {}),
          });
          return kit.done(reply, session, PAGE, {
            kind: 'ok',
            text: `Pago: ${pix.valor} (endToEndId ${pix.endToEndId}).`,
          });
        } catch (error) {
          return kit.done(reply, session, PAGE, { kind: 'bad', text: refusalText(error) });
        }
      }, 'sandbox.write'),
    );

    app.post(
      `${PAGE}/clock`,
      kit.guarded(async (_request, reply, session, form) => {
        const seconds = Number(form.amount) * (UNIT_SECONDS[String(form.unit)] ?? 0);
        if (!Number.isInteger(seconds) || seconds <= 0 || seconds > CLOCK_ADVANCE_MAX_SECONDS)
          return kit.done(reply, session, PAGE, { kind: 'bad', text: 'Avanço inválido (de 1 minuto a 5 anos).' });
        await advanceAccountClock(ctx.db, ctx.clock, session.current, seconds);
        return kit.done(reply, session, PAGE, { kind: 'ok', text: `Relógio avançado ${form.amount} ${form.unit}.` });
      }, 'sandbox.write'),
    );

    app.post(
      `${PAGE}/infraction`,
      kit.guarded(async (_request, reply, session, form) => {
        const motivo = String(form.motivo ?? '').trim();
        if (!motivo || motivo.length > MOTIVO_MAX_CHARS)
          return kit.done(reply, session, PAGE, {
            kind: 'bad',
            text: `Informe o motivo (até ${MOTIVO_MAX_CHARS} caracteres).`,
          });
        try {
          const opened = await ctx.db.tx((sql) =>
            openInfraction(sql, kit.callerOf(session), { endToEndId: String(form.endToEndId ?? '').trim(), motivo }),
          );
          return kit.done(reply, session, PAGE, {
            kind: 'ok',
            text: `Infração ${opened.idInfracao} aberta; ${opened.valor} bloqueado.`,
          });
        } catch (error) {
          return kit.done(reply, session, PAGE, { kind: 'bad', text: refusalText(error) });
        }
      }, 'sandbox.write'),
    );

    app.post(
      `${PAGE}/card-settle`,
      kit.guarded(async (_request, reply, session, form) => {
        const id = Number(form.chargeId);
        if (!Number.isSafeInteger(id) || id < 1)
          return kit.done(reply, session, PAGE, { kind: 'bad', text: 'Informe o charge_id (número).' });
        try {
          await ctx.db.tx((sql) => settleNow(sql, { ...kit.callerOf(session), pagesUrl: ctx.pages.url }, id));
          return kit.done(reply, session, PAGE, { kind: 'ok', text: `Cobrança de cartão ${id} paga.` });
        } catch (error) {
          return kit.done(reply, session, PAGE, { kind: 'bad', text: refusalText(error) });
        }
      }, 'charge.write'),
    );

    registerFaultTools(app, kit, PAGE);

    app.post(
      `${PAGE}/clock/reset`,
      kit.guarded(async (_request, reply, session) => {
        await resetAccountClock(ctx.db, ctx.clock, session.current);
        return kit.done(reply, session, PAGE, { kind: 'ok', text: 'Relógio de volta ao tempo real.' });
      }, 'sandbox.write'),
    );
  },
};
