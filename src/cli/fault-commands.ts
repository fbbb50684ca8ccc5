/**
 * `pixd fault`: the account's faults on demand from the terminal (sandbox, docs/faults.md), through the same
 * `/sandbox/falhas` routes as the API: set one kind, list them, clear one kind or all.
 */
import type { ApiClient } from './api-client.ts';
import { parseDuration } from './sandbox-commands.ts';

export const FAULT_KINDS_HELP: Record<string, string> = {
  chave: 'key lookups of sends by key: --resultado nao_encontrada | tempo_esgotado [--espera-ms N]',
  webhook: "delivery attempts to the account's webhooks fail: --status 400..599",
  devolucao: 'refunds of received Pix end NAO_REALIZADO [--motivo text]',
  cartao: 'card payments refused by the issuer: --codigo 1 | 2 | 3 | 05 | 51 | … [--motivo text]',
  envio: 'sends to other institutions rejected by the receiving one: --codigo AC03 | AC06 | AM02 | … [--motivo text]',
  instituicao: 'the receiving institution: --estado lenta [--atraso-ms N] | fora (use --durante for the period)',
  limite: 'rate-limited requests answer 429',
};

export interface FaultFlags {
  resultado?: string;
  esperaMs?: string;
  status?: string;
  codigo?: string;
  estado?: string;
  atrasoMs?: string;
  motivo?: string;
  vezes?: string;
  /** A duration as `pixd clock advance` takes it (90s, 5m, 1h). */
  durante?: string;
}

const describe = (fault: Record<string, unknown>) => {
  const limits = [
    fault.vezesRestantes !== undefined && `${fault.vezesRestantes} time(s) left`,
    fault.ate !== undefined && `until ${fault.ate}`,
  ].filter(Boolean);
  return `${fault.tipo} ${JSON.stringify(fault.parametros)}${limits.length ? ` (${limits.join(', ')})` : ' (until cleared)'}`;
};

/** The flags given, as the body of `PUT /sandbox/falhas/:tipo` (numbers where the API takes numbers). */
export function faultBody(flags: FaultFlags): Record<string, unknown> {
  const number = (text: string | undefined) => (text === undefined ? undefined : Number(text));
  const body = {
    resultado: flags.resultado,
    esperaMs: number(flags.esperaMs),
    status: number(flags.status),
    codigo: flags.codigo,
    estado: flags.estado,
    atrasoMs: number(flags.atrasoMs),
    motivo: flags.motivo,
    vezes: number(flags.vezes),
    segundos: flags.durante === undefined ? undefined : parseDuration(flags.durante),
  };
  return Object.fromEntries(Object.entries(body).filter(([, value]) => value !== undefined));
}

export async function faults(
  api: ApiClient,
  action: { set: string; flags: FaultFlags } | { clear?: string } | 'list',
): Promise<string> {
  if (action === 'list') {
    const { falhas } = (await api.pix('GET', '/sandbox/falhas')) as { falhas: Record<string, unknown>[] };
    return falhas.length ? falhas.map(describe).join('\n') : 'no faults in force';
  }
  if ('set' in action)
    return `fault set: ${describe(await api.pix('PUT', `/sandbox/falhas/${encodeURIComponent(action.set)}`, faultBody(action.flags)))}`;
  const path = action.clear ? `/sandbox/falhas/${encodeURIComponent(action.clear)}` : '/sandbox/falhas';
  const { removidas } = await api.pix('DELETE', path);
  return `${removidas} fault(s) cleared`;
}
