/**
 * The SPI simulator: the sandbox's other institution as a process of its own (`pixd spi-simulator --connect
 * <node>`), talking to a node's SPI boundary exactly as an institution's gateway does (docs/spi.md), with the
 * gateway's client certificate from the node's data directory. So a production-mode node can be run end to end.
 *
 *   outbound  it pulls the node's queue, answers each pacs.008 with a pacs.002 by the sandbox's amount rules
 *             and each pacs.004 with ACSP (`otherInstitutionAnswer`, the sandbox institution's in the node too,
 *             spi-institution.ts), then acknowledges what it took
 *   inbound   it is the payer's institution: a JSON line on standard input `{"pagar": {chave, valor, txid?, idRec?,
 *             endToEndId?}}` becomes a pacs.008 to the node; `{"entregar": "<xml>"}` delivers a message as it is
 *             (a duplicate, an old answer); each command's result is one line `{"resposta": {status, xml}}`
 *
 * Every message it sends or receives is printed as a line `{"mensagem": {direcao, xml}}` for whoever checks them.
 */
import fs from 'node:fs';
import https from 'node:https';
import path from 'node:path';
import readline from 'node:readline';
import { spiGatewayFile } from '../platform/bootstrap.ts';
import { parseAmount } from '../platform/money.ts';
import { parseSpiMessage } from '../spi/messages.ts';
import { otherInstitutionAnswer, payerCreditTransfer } from './spi-institution.ts';

/** How often the simulator looks at the node's outbound queue. */
export const SPI_SIMULATOR_POLL_MS = 100;

interface Answer {
  status: number;
  body: string;
}

export interface SimulatorOptions {
  /** The node's HTTPS origin. */
  url: string;
  /** The node's data directory: its CA and the SPI gateway's certificate. */
  dataDir: string;
  out?: (line: object) => void;
}

export class SpiSimulator {
  private readonly agent: https.Agent;
  private readonly out: (line: object) => void;
  private timer: NodeJS.Timeout | undefined;
  private polling: Promise<void> | undefined;
  private stopped = false;

  constructor(private readonly options: SimulatorOptions) {
    const pem = fs.readFileSync(spiGatewayFile(options.dataDir), 'utf8');
    this.agent = new https.Agent({
      cert: pem,
      key: pem,
      ca: fs.readFileSync(path.join(options.dataDir, 'ca.pem')),
      keepAlive: true,
    });
    this.out = options.out ?? ((line) => process.stdout.write(`${JSON.stringify(line)}\n`));
  }

  private request(method: string, route: string, body?: string, type = 'application/xml'): Promise<Answer> {
    return new Promise((resolve, reject) => {
      const req = https.request(
        new URL(route, this.options.url),
        { method, agent: this.agent, headers: body === undefined ? {} : { 'content-type': type } },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (chunk) => {
            text += chunk;
          });
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  }

  /** Delivers one message to the node and prints both it and the answer. */
  async deliver(xml: string): Promise<Answer> {
    this.out({ mensagem: { direcao: 'enviada', xml } });
    const answer = await this.request('POST', '/spi/mensagens', xml);
    if (answer.body.startsWith('<')) this.out({ mensagem: { direcao: 'recebida', xml: answer.body } });
    return answer;
  }

  /** The fictitious payer pays a key (a charge's txid, a recurrence's attempt) from its institution. */
  pay(order: { chave: string; valor: string; txid?: string; idRec?: string; endToEndId?: string }): Promise<Answer> {
    const { chave, valor, ...ids } = order;
    // An attempt of a recurring charge (its idRec) is initiated by the payer's institution: automatic Pix.
    const initiation = ids.idRec ? ('AUTO' as const) : undefined;
    return this.deliver(
      payerCreditTransfer(
        { creditor: { chave }, amountCents: parseAmount(valor), ...ids, ...(initiation && { initiation }) },
        new Date(),
      ),
    );
  }

  /** One pull: every pending message answered, then acknowledged. */
  async poll(): Promise<number> {
    const pulled = await this.request('GET', '/spi/saida');
    if (pulled.status !== 200) throw new Error(`GET /spi/saida: ${pulled.status} ${pulled.body}`);
    const { mensagens } = JSON.parse(pulled.body) as { mensagens: { id: number; xml: string }[] };
    for (const { xml } of mensagens) {
      this.out({ mensagem: { direcao: 'recebida', xml } });
      const answer = otherInstitutionAnswer(parseSpiMessage(xml), new Date());
      if (answer) await this.deliver(answer);
    }
    if (mensagens.length)
      await this.request(
        'POST',
        '/spi/saida/confirmar',
        JSON.stringify({ ids: mensagens.map((m) => m.id) }),
        'application/json',
      );
    return mensagens.length;
  }

  start(): void {
    const tick = () => {
      this.polling = this.poll()
        .catch((error: Error) => this.out({ erro: error.message }))
        .then(() => {
          if (!this.stopped) this.timer = setTimeout(tick, SPI_SIMULATOR_POLL_MS);
        });
    };
    tick();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.polling;
    this.agent.destroy();
  }
}

/** `pixd spi-simulator`: polls until stdin closes, answering each command on standard input. */
export async function runSpiSimulator(options: SimulatorOptions): Promise<void> {
  const simulator = new SpiSimulator(options);
  simulator.start();
  const out = options.out ?? ((line: object) => process.stdout.write(`${JSON.stringify(line)}\n`));
  out({ pronto: options.url });
  for await (const line of readline.createInterface({ input: process.stdin })) {
    if (!line.trim()) continue;
    try {
      const command = JSON.parse(line) as { pagar?: Parameters<SpiSimulator['pay']>[0]; entregar?: string };
      const answer = command.pagar
        ? await simulator.pay(command.pagar)
        : await simulator.deliver(command.entregar ?? '');
      out({ resposta: { status: answer.status, xml: answer.body } });
    } catch (error) {
      out({ erro: (error as Error).message });
    }
  }
  await simulator.stop();
}
