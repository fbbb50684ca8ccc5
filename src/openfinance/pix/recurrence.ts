/**
 * The dates of a recurring Pix (`pagamento.recorrencia`), as the SDK describes them: `diaria` every day from
 * `dataInicio`, `semanal` on `diaDaSemana` from `dataInicio`, `mensal` on `diaDoMes` from `dataInicio` (the
 * month's last day when it is shorter), each `quantidade` times; `personalizada` the `datas` given.
 */
import { fromEpochDay, toEpochDay, weekday } from '../../platform/calendar.ts';
import type { Recorrencia } from './schemas.ts';

const WEEKDAYS = ['DOMINGO', 'SEGUNDA_FEIRA', 'TERCA_FEIRA', 'QUARTA_FEIRA', 'QUINTA_FEIRA', 'SEXTA_FEIRA', 'SABADO'];

export type Dates = { dates: string[] } | { field: string; reason: string };

const need = (field: string): Dates => ({
  field: `pagamento.recorrencia.${field}`,
  reason: 'obrigatório para este tipo.',
});

function monthly(start: string, day: number, count: number): string[] {
  const [y, m] = start.split('-').map(Number);
  const dates: string[] = [];
  for (let i = 0; dates.length < count; i++) {
    const year = y + Math.floor((m - 1 + i) / 12);
    const month = ((m - 1 + i) % 12) + 1;
    const last = new Date(Date.UTC(year, month, 0)).getUTCDate();
    const date = `${year}-${String(month).padStart(2, '0')}-${String(Math.min(day, last)).padStart(2, '0')}`;
    if (date >= start) dates.push(date);
  }
  return dates;
}

export function parcelDates(r: Recorrencia): Dates {
  if (r.tipo === 'personalizada') {
    if (!r.datas) return need('datas');
    const dates = [...r.datas].sort();
    if (new Set(dates).size !== dates.length)
      return { field: 'pagamento.recorrencia.datas', reason: 'datas repetidas.' };
    return { dates };
  }
  if (r.dataInicio === undefined) return need('dataInicio');
  if (r.quantidade === undefined) return need('quantidade');
  const start = toEpochDay(r.dataInicio);
  const count = r.quantidade;
  if (r.tipo === 'diaria') return { dates: Array.from({ length: count }, (_, i) => fromEpochDay(start + i)) };
  if (r.tipo === 'semanal') {
    if (r.diaDaSemana === undefined) return need('diaDaSemana');
    const first = start + ((WEEKDAYS.indexOf(r.diaDaSemana) - weekday(start) + 7) % 7);
    return { dates: Array.from({ length: count }, (_, i) => fromEpochDay(first + 7 * i)) };
  }
  if (r.diaDoMes === undefined) return need('diaDoMes');
  return { dates: monthly(r.dataInicio, r.diaDoMes, count) };
}
