/**
 * The settlement path of the answers to sends (docs/spi.md, "Throughput"): a pacs.002 answering one of this
 * node's pacs.008 is, nearly always, the first answer to a send still in processing. Those are decided on one
 * read of the message and its send and written by one statement (`writeSendAnswers`: the answer recorded, the
 * send concluded with its entry and webhook event), both shared by the answers that arrive while one is in
 * flight (group commit, src/platform/db/group-commit.ts) — the sandbox's institution delivers a pass's answers
 * at once — instead of a transaction of half a dozen round trips each (answers.ts `answerOutbound`).
 *
 * Undefined means "answer it on the locked path" (answerOutbound): no pacs.008 of a send has that id (a pacs.004's
 * answer, a stranger's), the send is no longer in processing, or one of its ledger accounts was never used.
 * The statement records an answer only on a message not yet answered, so a copy, or an answer racing the
 * deadline's (AB03), changes nothing: the first recorded wins, exactly as under the row lock.
 */
import { GroupCommit, perDatabase } from '../platform/db/group-commit.ts';
import { LIMITS } from '../platform/limits.ts';
import { sendConclusion } from '../pix/send/settlement.ts';
import { motivoOf, type OutboundAnswer } from './answers.ts';
import { readAnsweredSends, writeSendAnswers, type AnsweredSend, type SendAnswer } from './answer-store.ts';
import type { SpiNode } from './credit.ts';

const answeredSendReaderFor = perDatabase(
  (sql) =>
    new GroupCommit<string, AnsweredSend | undefined>({
      write: (refIds) => readAnsweredSends(sql, refIds),
      statementsInFlight: LIMITS.spiAnswerReadsInFlight,
      batchMax: LIMITS.spiAnswerBatchMax,
    }),
);

const sendAnswerWriterFor = perDatabase(
  (sql) =>
    new GroupCommit<SendAnswer, boolean>({
      write: (answers) => writeSendAnswers(sql, answers),
      statementsInFlight: LIMITS.spiAnswerStatementsInFlight,
      batchMax: LIMITS.spiAnswerBatchMax,
      // Two answers to one message never share a statement: the second finds the first recorded.
      keyOf: (answer) => answer.outboundId,
      lockOrder: (answer) => answer.outboundId,
    }),
);

/** The answer applied ('applied'), found already given ('already'), or undefined: the locked path's (above). */
export async function answerSendCoalesced(
  ctx: SpiNode,
  refId: string,
  answer: OutboundAnswer,
): Promise<'applied' | 'already' | undefined> {
  const found = await answeredSendReaderFor(ctx.db).submit(refId);
  if (!found) return undefined;
  if (found.answerStatus !== null) return 'already';
  if (found.sent.status !== 'EM_PROCESSAMENTO') return undefined;
  const at = ctx.clock.forAccount(found.sent.account_id).now();
  const outcome =
    answer.status === 'RJCT'
      ? { status: 'NAO_REALIZADO' as const, at, motivo: motivoOf(answer) }
      : { status: 'REALIZADO' as const, at, motivo: null };
  const conclusion = sendConclusion(found, outcome);
  const [fromId, toId] = conclusion.ledger.ids;
  if (fromId === null || toId === null) return undefined;
  const recorded = await sendAnswerWriterFor(ctx.db).submit({
    outboundId: found.outboundId,
    answerStatus: answer.status,
    sent: found.sent,
    outcome,
    conclusion: { ...conclusion, ledger: { ...conclusion.ledger, ids: [fromId, toId] } },
  });
  return recorded ? 'applied' : 'already';
}
