/**
 * Every limit the interface names, in one place. Units are in the names.
 * A limit here is enforced somewhere; grep for its name to find where.
 */
export const LIMITS = {
  /** Spec: Limits, request rate of the listed PUT/POST Pix endpoints, per application and endpoint. */
  rateLimitRequestsPerSecond: 500,
  /** Bacen automatic Pix: a recurring charge is sent from 10 to 2 days before its due date. */
  cobrCreateMinDaysBefore: 2,
  cobrCreateMaxDaysBefore: 10,
  /** Bacen automatic Pix, PERMITE_3R_7D: at most 3 retries within 7 days after the due date, one a day. */
  cobrRetriesMax: 3,
  cobrRetryWindowDays: 7,
  /** Open Finance automatic payments: how long an unused consent link stays usable (account clock). */
  ofConsentLinkTtlSeconds: 600,
  /** Enrolments per page of GET /v1/pagamentos-automaticos/adesao (keyset paging): the default and the most `porPagina` asks. */
  ofEnrolmentsPerPage: 100,
  /** Payments listed at most in one read of GET /v1/pagamentos-automaticos/pix. */
  ofPaymentsListedMax: 1000,
  /** Open Finance Pix payments (docs/open-finance-pix.md): a scheduled Pix is dated from tomorrow to this many days ahead. */
  ofScheduleMaxDays: 365,
  /** Parcels of one recurring Open Finance Pix (quantidade, or the dates of a personalised recurrence). */
  ofRecurringParcelsMax: 60,
  /** The last parcel of a recurring Open Finance Pix is at most this many days ahead. */
  ofRecurringHorizonDays: 730,
  /** Payments per page of the Open Finance Pix lists (`quantidade`): the default and the most. */
  ofPixPaymentsPerPage: 100,
  /** A biometric link (vínculo): valid this many days from its authorisation. */
  ofLinkValidityDays: 365,
  /** A biometric link's limits, shown to the payer on the page and enforced on each payment (sandbox values). */
  ofLinkTransactionLimitCents: 50_000,
  ofLinkDailyLimitCents: 100_000,
  /** The HMAC key of Open Finance callbacks (webhookSecurity.hash). */
  ofHmacKeyMaxChars: 256,
  /** The motivo an Open Finance payment refused by its payer's institution is recorded with, cut to this. */
  ofRefusalMotivoMaxChars: 400,
  tokenLifetimeSeconds: 3600,
  /** Verified access tokens remembered per node (TokenService), so a token's signature is checked once. */
  verifiedTokensCachedMax: 10_000,
  /** Normalised merchant names and cities remembered per node by the BR Code builder. */
  brCodeMerchantTextsCachedMax: 10_000,
  /**
   * Group commit of charge creation (`batcherFor`, src/pix/charges/create-batcher.ts): creates per statement at most, and statements in
   * flight per node. One in flight lets batches grow with load (bench machine, one session: 1 → 3,568–3,877
   * creates/s, 2 → 2,484–2,523; an earlier, noisier one: 4 → about 2,250; at 64 connections 2 raised PostgreSQL's
   * CPU per create from about 110 to 162 µs); an idle node writes each at once.
   */
  chargeCreateBatchMax: 100,
  chargeCreateStatementsInFlight: 1,
  /**
   * Group commit of settlements (`settlementBatcherFor`, the payment engine's settlement path): payments per
   * statement at most, and statements in flight per node (docs/performance.md, session 5).
   */
  settlementBatchMax: 100,
  settlementStatementsInFlight: 1,
  /** The settlement reads coalesced the same way (`settlementReaderFor`): read statements in flight per node. */
  settlementReadsInFlight: 1,
  /**
   * The settlement path of a Pix to a key (src/pix/payments/key-settlement.ts): read statements in flight per
   * node; and the SPI boundary's write of those payments with their messages' claims (src/spi/credit.ts).
   */
  keySettlementStatementsInFlight: 1,
  spiCreditStatementsInFlight: 1,
  /** The SPI boundary's write of payments of charges with their messages' claims (src/spi/credit.ts). */
  spiChargeCreditStatementsInFlight: 1,
  /**
   * The answers to sends (pacs.002 to this node's pacs.008, src/spi/answer-batch.ts): answers per statement at
   * most, and read and write statements in flight per node.
   */
  spiAnswerBatchMax: 100,
  spiAnswerReadsInFlight: 1,
  spiAnswerStatementsInFlight: 1,
  /** Keys whose settlement read a node keeps (`KeyReads`): about 300 bytes each. */
  keySettlementReadsKept: 10_000,
  /**
   * A transaction (or a statement on its own) that PostgreSQL refused with a deadlock (40P01) or a serialization
   * failure (40001) is run again at most this many times, after a random pause of up to
   * `conflictRetryJitterMaxMs` times the attempt number (src/platform/db/conflict-retry.ts): the two
   * transactions of a deadlock, retried at once, would meet again.
   */
  conflictRetriesMax: 5,
  conflictRetryJitterMaxMs: 25,
  /**
   * Every request's server-side deadline (src/platform/db/deadline.ts): a transaction not committed by then rolls
   * back and the request answers 503 with Retry-After. The default; PIXD_REQUEST_DEADLINE_MS overrides it
   * (config.requestDeadlineMs). Longer than a directory operation's timeout, which answers 504 on its own.
   */
  requestDeadlineMsDefault: 10_000,
  /** Connections one node holds to PostgreSQL for requests, transactions and jobs. */
  postgresConnections: 20,
  /**
   * DATABASE_URL with several hosts (src/platform/db/hosts.ts): how long a node waits for one host's answer while
   * it looks for the writable one, so a host that drops packets costs this, not the operating system's timeout.
   */
  postgresHostProbeTimeoutMs: 2_000,
  /** `pixd ledger verify` names at most this many ledger accounts whose posted total differs from its lines. */
  ledgerVerifyMismatchesListedMax: 100,
  /**
   * Bound of any integer or number in a request whose schema sets none (src/platform/request-guards.ts):
   * the largest integer a JSON number carries exactly, well inside PostgreSQL's bigint.
   */
  requestNumberMax: Number.MAX_SAFE_INTEGER,
  /** Bound of request integers stored in or compared with PostgreSQL `integer` columns (revisao, page numbers). */
  requestInt4Max: 2_147_483_647,
  /** A logged error's message and statement shape are cut at this many characters. */
  loggedErrorTextMaxChars: 300,
  /** An unknown path is named in its 404 only up to this many characters. */
  errorPathShownMaxChars: 100,
  /** An offending value is echoed in an error's violations only up to this many characters. */
  violationValueShownMaxChars: 100,
  /** Rate-limit windows one node keeps in memory before it drops those already closed. */
  rateLimitMemoryKeysMax: 100_000,
  /** Redis for rate limits: how long a connection or a command may take before the node limits on its own. */
  redisConnectTimeoutMs: 1_000,
  redisCommandTimeoutMs: 200,
  redisReconnectMaxDelayMs: 2_000,
  /** While Redis stays out of reach, the node says so in its log at most this often. */
  redisDownLogIntervalMs: 60_000,
  /**
   * Failed client authentications at the token endpoints, per client id and per source address, in a
   * window: past them the endpoint answers 429 with Retry-After without checking the secret, for that client
   * id from anywhere, or from that address for the client ids that failed there (platform/auth/failure-throttle.ts).
   */
  oauthFailuresPerClientMax: 10,
  oauthFailuresPerAddressMax: 30,
  oauthFailureWindowSeconds: 60,
  /**
   * Lease of a claimed outbox job (wall time), renewed every third of it while the job runs: a node that
   * dies mid-job loses its claims within this long (at once on a restart on the same host).
   */
  outboxLeaseMs: 9_000,
  /** The QR page (payer's browser) checks its charge's status this often while the QR is shown. */
  qrPageRefreshMs: 3_000,
  /**
   * A job whose handler threw (a bug, a URL no transport takes) runs again after this pause, doubled at each
   * attempt up to the maximum: retried rather than lost, but not every few seconds for ever.
   */
  outboxUnexpectedRetryFirstMs: 5_000,
  outboxUnexpectedRetryMaxMs: 3_600_000,
  /**
   * An e-mail the SMTP server did not take (down, refusing for now) is tried again after this pause, doubled
   * at each attempt up to the maximum, and marked failed after the last attempt (about a day of trying).
   */
  mailRetryFirstMs: 1_000,
  mailRetryMaxMs: 1_800_000,
  mailAttemptsMax: 60,
  /** One SMTP conversation (connect, greeting, each reply) waits at most this long before it counts as failed. */
  smtpTimeoutMs: 15_000,
  /** Bacen: paginacao.itensPorPagina is 1..1000, default 100. */
  pageSizeDefault: 100,
  pageSizeMax: 1000,
  /** Sent Pix (src/pix/send): idEnvio is 1 to 35 letters and digits (Efí), infoPagador at most 140 characters. */
  idEnvioMaxChars: 35,
  /**
   * Key lookups during sends (the Central Bank's DICT API, "Limitação de requisições", policies
   * ENTRIES_READ_USER_ANTISCAN and _V2): a bucket per key family and end user, of 100 tokens for a person (CPF) and
   * 1,000 for a company (CNPJ), refilled by 2 every 60 s; a key found takes 1, a key not found 20, a payment sent
   * gives 1 back; an empty bucket refuses the lookup.
   */
  keyLookupBucketPersonTokens: 100,
  keyLookupBucketCompanyTokens: 1000,
  keyLookupRefillTokens: 2,
  keyLookupRefillPeriodSeconds: 60,
  keyLookupFoundCost: 1,
  keyLookupNotFoundCost: 20,
  infoPagadorMaxChars: 140,
  /**
   * Sandbox rules of a Pix sent to another institution (the simulated one), as integrators know them: up to
   * 10.00 it is confirmed (webhook), up to 20.00 refused by the receiver (webhook), above it refused in the request.
   */
  sandboxSendConfirmedMaxCents: 1000,
  sandboxSendRefusedMaxCents: 2000,
  /** MED: days the receiver has to defend an infraction before it is decided on the service clock. */
  infractionDefenceDays: 7,
  txidMinChars: 26,
  txidMaxChars: 35,
  /** POST /v2/cob assigns txids of this length (within the 26..35 rule). */
  txidAssignedChars: 32,
  devedorNomeMaxChars: 200,
  solicitacaoPagadorMaxChars: 140,
  infoAdicionaisMaxItems: 50,
  infoAdicionalNomeMaxChars: 50,
  infoAdicionalValorMaxChars: 200,
  chaveMaxChars: 77,
  /** Bacen: valor.original is \d{1,10}\.\d{2}. */
  amountMaxIntegerDigits: 10,
  /** Default calendario.expiracao of an immediate charge (Bacen: 86400 s). */
  cobExpiracaoDefaultSeconds: 86400,
  cobExpiracaoMaxSeconds: 2147483647,
  /** Bodies past this are refused before parsing; a 1000-item batch fits comfortably. */
  bodyMaxBytes: 4 * 1024 * 1024,
  /** Bacen CobBaseCopiaCola: pixCopiaECola is at most 512 characters (POST /v2/gn/qrcodes/detalhar). */
  pixCopiaEColaMaxChars: 512,
  /** Static BR code infoAdicional (ID 26-02): what fits beside the GUI and the shortest key in the 99-char template. */
  staticInfoAdicionalMaxChars: 72,
  /** Side of the PNG QR images handed out (imagemQrcode), in pixels: readable on screens and on paper. */
  qrImageSidePixels: 300,
  /** SIGTERM: in-flight requests get this long to finish before the process exits anyway. */
  shutdownGraceMs: 10_000,
  /** Bacen DevolucaoId: [a-zA-Z0-9]{1,35}. */
  refundIdMaxChars: 35,
  refundDescricaoMaxChars: 140,
  /** Bacen CobDataDeVencimento: validadeAposVencimento defaults to 30 days and is an int32. */
  cobvValidadeAposVencimentoDefaultDays: 30,
  cobvValidadeAposVencimentoMaxDays: 2147483647,
  /** Bacen DadosComplementaresPessoa: logradouro and cidade at most 200 characters (uf 2, cep 8 by pattern). */
  devedorLogradouroMaxChars: 200,
  devedorCidadeMaxChars: 200,
  /** Bacen gives devedor.email no bound; 254 is the longest address SMTP can carry (RFC 5321). */
  devedorEmailMaxChars: 254,
  /** Bacen CobVValor: desconto.descontoDataFixa has 1 to 3 dated tiers. */
  cobvDescontoDataFixaMaxItems: 3,
  /**
   * Webhooks (docs/webhooks.md). Pix, recurrence and automatic-charge callbacks: the interface leaves the
   * SLA to the PSP; 10 s is long enough for a healthy receiver and short enough that a hung one is retried soon.
   */
  webhookDeliveryTimeoutMs: 10_000,
  /** Registration handshake: each of the two test calls (without, then with the client certificate). */
  webhookRegistrationTimeoutMs: 10_000,
  /** `pixd listen` sessions open at once per account on one node (each registers the account's webhooks). */
  listenSessionsPerAccount: 4,
  /** A blank line down an idle `pixd listen` stream this often, so no proxy or client drops it as dead. */
  listenHeartbeatMs: 15_000,
  /**
   * How long a `pixd listen` session outlives its node's last renewal (renewed every heartbeat): after that any
   * sandbox node puts back the registrations it replaced (a node killed on another host; this host's restart
   * does it at once).
   */
  listenSessionLeaseMs: 60_000,
  /** What a `pixd listen` answer may carry of the local receiver's body (it is stored with the attempt's outcome). */
  listenAnswerBodyMaxChars: 4096,
  /** Spec: account-opening callbacks time out after 60 seconds. */
  openingCallbackTimeoutMs: 60_000,
  /**
   * Pix, recurrence and automatic-charge callbacks: minutes after each failed attempt until the next (the
   * interface names none). 1 + 8 attempts over about 47 hours, then the delivery is given up.
   */
  webhookRetryScheduleMinutes: [1, 5, 15, 60, 180, 360, 720, 1440],
  /** Spec: account-opening retries at these minutes after the failure (attempts 1 to 10 after the first). */
  openingRetryScheduleMinutes: [5, 10, 20, 40, 80, 160, 320, 640, 1280, 52560],
  /** Spec: resend is available for at most 30 days after the transaction. */
  webhookResendWindowDays: 30,
  /** Spec: resend covers transactions from 27/12, 10:00 (Efí's 2023 launch, Brasília time, UTC-3). */
  webhookResendStartsAt: '2023-12-27T10:00:00-03:00',
  /** e2eids per resend request: one request covers a day of a busy key without becoming unbounded work. */
  webhookResendMaxE2eids: 1000,
  /** Webhook URLs: long enough for a path plus an hmac query parameter, short enough to index. */
  webhookUrlMaxChars: 2048,
  /** Concurrent keep-alive connections from one node to one receiver (per origin). */
  webhookSocketsPerDestination: 64,
  /**
   * Webhook calls in flight to one destination per node; past it, its further deliveries wait
   * `webhookBusyDestinationDeferMs` unsent, so a hanging receiver holds only its own slots.
   */
  webhookCallsInFlightPerDestination: 64,
  webhookBusyDestinationDeferMs: 1_000,
  /**
   * TCP connect plus TLS handshake of one webhook call: a receiver that accepts the connection and never
   * answers is given up after this, not after the whole delivery timeout (a healthy one handshakes in ms).
   * Not shorter: on a saturated node (2 s was tried) its own starved handshakes missed the deadline, and a
   * healthy receiver's delivery waited a retry step (a minute) or its destination was backed off.
   */
  webhookConnectTimeoutMs: 5_000,
  /**
   * A destination whose calls fail this many times in a row (unreachable, timeout, no answer, TLS, HTTP 5xx)
   * backs off: its deliveries are put back unsent and uncounted, holding no slot, until the back-off ends;
   * then one call at a time probes it until one succeeds.
   */
  webhookDestinationFailuresBeforeBackoff: 3,
  /** The back-off doubles from the first to the last with each further failure. */
  webhookDestinationBackoffMs: { first: 1_000, max: 60_000 },
  /**
   * What an attempt record keeps of the body sent and of the receiver's answer (the console shows both): the
   * first bytes only. The answer is read no further into memory than this; the rest is drained and counted.
   */
  webhookAttemptBodyBytes: 2048,
  /**
   * Attempt records (each up to about 4 KiB of bodies) older than this many days are deleted, unless their
   * delivery is still pending or retrying. The default; PIXD_WEBHOOK_ATTEMPT_RETENTION_DAYS overrides it
   * (config.webhookAttemptRetentionDays). 30: the resend window, within which a person still asks "did it go out?".
   */
  webhookAttemptRetentionDaysDefault: 30,
  /** The longest retention PIXD_WEBHOOK_ATTEMPT_RETENTION_DAYS takes (ten years). */
  webhookAttemptRetentionDaysMax: 3650,
  /**
   * Attempt records the retention job looks at per run, oldest first (one short statement): it runs again at
   * once while it finds old ones, else after `webhookAttemptRetentionIntervalMinutes`.
   */
  webhookAttemptRetentionBatch: 1000,
  webhookAttemptRetentionIntervalMinutes: 60,
  /** Sandbox deliveries inspection: at most this many recent deliveries per call. */
  webhookInspectionMaxItems: 200,
  /** Spec: Limits, batch size of PUT /v2/lotecobv/:id (also rule 1: a batch holds 1 to 1000 charges). */
  lotecobvItemsMin: 1,
  lotecobvItemsMax: 1000,
  /** Batch ids are integers (Bacen LoteCobVConsultado.id, int64); 15 digits stay exact in a JSON number. */
  lotecobvIdMaxDigits: 15,
  /** Bacen gives `descricao` of a batch no bound; 140 like the other free texts of a charge. */
  lotecobvDescricaoMaxChars: 140,
  /**
   * Batch items waiting for processing per account. Past it a new PUT/PATCH is 503 ServicoIndisponivel with
   * Retry-After: ten full batches (about ten seconds of work) queued is a client outrunning the service.
   */
  lotecobvPendingItemsMaxPerAccount: 10_000,
  /**
   * Attempts of a batch job before its waiting items are denied with ErroInternoDoServidor: a failure that
   * survives this many retries (5 s apart) is a fault, and the batch must not stay locked behind it.
   */
  lotecobvJobMaxAttempts: 5,
  /** GET /v2/lotecobv returns whole batches (up to 1000 items each): a page of 100 is already 100,000 items. */
  lotecobvPageSizeMax: 100,
  /**
   * Payment split (docs/split.md). Spec: at most 20 accounts per configuration, read as the beneficiaries
   * (`split.repasses`): "between the receiver and up to 20 other accounts".
   */
  splitRepassesMaxItems: 20,
  /** Configuration ids: caller-chosen on PUT, letters and digits like Bacen identifiers. */
  splitConfigIdMaxChars: 35,
  /** POST /v2/gn/split/config assigns ids of this length. */
  splitConfigIdAssignedChars: 32,
  splitDescricaoMaxChars: 140,
  /** favorecido.conta: the digits of an account number of this service. */
  splitContaMaxChars: 20,
  /** Percentage shares add up to exactly 100.00 %, counted in hundredths of a percent. */
  splitPercentTotalHundredths: 10_000,
  /**
   * Pix keys (docs/keys-settings.md). The interface does not give the number of random keys per account;
   * pixd applies the Pix regulation's limit per account (BCB Resolution 1/2020, DICT): 5 keys for a natural
   * person (CPF account), 20 for a legal person (CNPJ account), every key type counted, removed keys not.
   * POST /v2/gn/evp past it: limite_criacao_chave_atingido.
   */
  pixKeysMaxPerAccountNaturalPerson: 5,
  pixKeysMaxPerAccountLegalPerson: 20,
  /** Bank-data payments (settings receberSemChave) name the receiving account by its number: digits only. */
  contaMaxDigits: 20,
  /**
   * Card billing (docs/billing.md). Items and shippings per charge: Efí's documentation pages show no bound;
   * these keep one charge a reasonable document.
   */
  billingItemsMax: 100,
  billingShippingsMax: 10,
  billingNameMaxChars: 255,
  billingCustomIdMaxChars: 255,
  billingNotificationUrlMaxChars: 2048,
  /** Item value and shipping value bounds in cents (R$ 10 million keeps every sum a safe integer). */
  billingValueMaxCents: 1_000_000_000,
  billingItemAmountMax: 10_000,
  /** Card installments: 1 to 12; the first is interest-free, the others at this monthly rate (hundredths of a percent). */
  billingInstallmentsMax: 12,
  billingInstallmentInterestBasisPoints: 199,
  /** Percentages (marketplace shares, percentage discounts, fees) are hundredths of a percent: 10000 = 100 %. */
  billingPercentScale: 10_000,
  /** Card fee on the paid amount, hundredths of a percent (3.49 %), rounded half-up to the cent. */
  billingCardFeeBasisPoints: 349,
  /** An approved card charge is confirmed (paid) this long after approval, on the service clock. */
  billingCardSettlementDelaySeconds: 3600,
  /** A refund stays "in process" this long before it is done (service clock). */
  billingRefundProcessingSeconds: 60,
  /** Spec: partial refunds within 90 days, total within 360 days of payment confirmation. */
  billingPartialRefundWindowDays: 90,
  billingTotalRefundWindowDays: 360,
  /** Spec: at most one partial refund per charge per (Brasília) day. */
  billingPartialRefundsPerDay: 1,
  /** Payment tokens: single-use ones live an hour, reusable ones a year (the card's own expiry also applies). */
  billingSingleUseTokenLifetimeSeconds: 3600,
  billingReusableTokenLifetimeSeconds: 365 * 86400,
  /** RSA key the browser encrypts card data with: 3072 bits fits the card JSON (≤ 373 bytes in PKCS#1 v1.5). */
  billingCardKeyBits: 3072,
  /** Spec: notifications re-sent for up to 3 days until the token is queried. */
  billingNotificationWindowSeconds: 3 * 86400,
  /** Minutes between successive (re)sends of a notification not yet queried, cut at the 3-day window. */
  billingNotificationScheduleMinutes: [5, 15, 30, 60, 120, 240, 480, 720, 720, 720, 720],
  /** Spec: GET /v1/notification/:token covers changes of the last 6 months. */
  billingNotificationHistoryDays: 180,
  /** Plans and subscriptions (docs/billing.md, "Subscriptions"): Efí's pages name no bound; these keep rows small. */
  billingPlanIntervalMaxMonths: 24,
  billingPlanRepeatsMax: 120,
  billingPlanListMax: 100,
  billingSubscriptionHistoryMaxChars: 255,
  /** A boleto subscription's renewal is issued this many days before its due date (Efí's pages name none). */
  billingSubscriptionBilletLeadDays: 10,
  /**
   * Subscriptions one renewal transaction renews (docs/billing.md, "Renewals"): a day's 10,000 in 50 set-based
   * transactions of a handful of statements each, instead of 10,000 of ~17 (docs/performance.md).
   */
  billingRenewalBatchSize: 200,
  /** A day's renewal job hands its worker back after this long (then goes on at once): other jobs are not held up. */
  billingRenewalSliceMs: 2_000,
  /** Payment links: the latest expiry a link may have, counted from today on the account's clock. */
  billingLinkMaxDays: 365,
  /** Spec: notification URL updates, 7,500 per 24 hours (per account). */
  billingMetadataUpdatesPerWindow: 7500,
  billingMetadataUpdateWindowSeconds: 86400,
  /**
   * Boletos and carnês (docs/billing.md, "Boletos"), Efí's bounds: fine up to 10 % (hundredths of a percent),
   * interest per day up to 0.33 % (thousandths of a percent), per month up to 10 % (hundredths); a message of 80
   * characters; days after the due date the boleto is still payable (write-off), default that of a cobv.
   */
  boletoFineMaxHundredths: 1000,
  boletoDailyInterestMaxThousandths: 330,
  boletoMonthlyInterestMaxHundredths: 1000,
  boletoMessageMaxChars: 80,
  boletoDaysToWriteOffMax: 99,
  boletoDaysToWriteOffDefault: 30,
  /** Spec (Efí): a carnê has 1 to 12 parcels. */
  billingCarnetRepeatsMax: 12,
  /** GET /v1/charges: a page of at most this many charges (default 100), dates at most a year apart. */
  billingChargeListLimitMax: 1000,
  billingChargeListLimitDefault: 100,
  billingChargeListRangeMaxDays: 366,
  /** A balance sheet (defineBalanceSheetBillet): sections, rows per table and characters per cell. */
  boletoBalanceSheetRowsMax: 100,
  boletoBalanceSheetCellMaxChars: 200,
  /**
   * Reconciliation reports (docs/reports-schedules.md). Journal lines read per keyset page while a file is
   * generated: enough that round trips do not dominate, few enough that memory stays flat at any size.
   */
  reportBatchRows: 10_000,
  /** Report files are written to, and served from, chunks of about this many bytes. */
  reportChunkBytes: 1024 * 1024,
  /** Spec: the scheduled Pix list covers at most 31 days (fim - inicio). */
  scheduledPixListRangeMaxDays: 31,
  /** Spec (sample response): the scheduled Pix list shows 50 per page; at most pageSizeMax. */
  scheduledPixPageSizeDefault: 50,
  /** Pages count from 1; int32 like Bacen's paginaAtual, so page x limit stays an exact offset. */
  scheduledPixPageMax: 2_147_483_647,
  /** How far ahead a schedule may be created (the interface names no bound; a year covers yearly bills). */
  scheduledPixMaxAheadDays: 365,
  /** A scheduled Pix stays `waiting` (date arrived, being sent) this long before it is debited, service clock. */
  scheduledPixSendDelaySeconds: 5,
  scheduledPixReceiverNameMaxChars: 200,
  /** Bank data of a receiver (Bacen ContaBanco): agency up to 4 digits, account number up to 20. */
  bankAgencyMaxDigits: 4,
  bankAccountMaxDigits: 20,
  /**
   * Participant-side directory (docs/participants.md). A Pix to a participant's key waits this long (receiving
   * account's clock) for POST /v1/pix/confirm, then is rejected: the SPI gives the receiving participant seconds,
   * pixd gives a participant application a minute, since it answers from outside.
   */
  participantConfirmationTimeoutSeconds: 60,
  /** Spec: the error description of an RJCT confirmation. */
  pixConfirmErrorReasonMaxChars: 105,
  /** Confirmations in one POST /v1/pix/confirm (the interface says "several"; bounded so a call stays short). */
  pixConfirmItemsMax: 100,
  /**
   * A directory operation (POST /dict/entries, /dict/refunds) not finished within this many milliseconds answers
   * 504 (spec: timeout). The default; PIXD_DICT_TIMEOUT_MS overrides it (config.dictTimeoutMs).
   */
  dictOperationTimeoutMsDefault: 5_000,
  /** DICT field bounds (owner name and trade name, 140 and 140; an e-mail key, 77). */
  dictOwnerNameMaxChars: 140,
  dictEmailKeyMaxChars: 77,
  /** Special refund request details (DICT: 2000 characters). */
  dictRefundDetailsMaxChars: 2_000,
  /** Failed console sign-ins, per user name (the operator is one) and per source address: as the token endpoints'. */
  consoleSigninFailuresPerUserMax: 10,
  consoleSigninFailuresPerAddressMax: 30,
  consoleSigninFailureWindowSeconds: 60,
  /** Console (docs/console.md): a signed-in session lasts this long without use. */
  consoleSessionIdleSeconds: 8 * 3600,
  /**
   * A signed-out session stays refused this long past its idle time: a request that read it just before the
   * sign-out and answered just after gave its cookie a slightly later start.
   */
  consoleRevocationMarginSeconds: 3600,
  /** Expired revocations removed by each sign-out: the table stays about the sessions ended in the idle time. */
  consoleRevocationsPurgedPerSignout: 100,
  /** Console users (`pixd console-user create`): a name's length, and the accounts one user may be given. */
  consoleUserNameMaxChars: 64,
  consoleUserAccountsMax: 100,
  /** Console lists: rows per page (keyset paging, so a page costs the same whatever the account holds). */
  consolePageSize: 25,
  /** Console live updates: how often an open page's event stream looks for a change in its account. */
  consoleLivePollMs: 1_000,
  /** Console webhook page: deliveries shown, and request/response text shown before it is cut. */
  consoleDeliveriesShown: 50,
  consoleBodyShownMaxChars: 2_000,
  /**
   * Paying bills (docs/bill-payments.md): a payment's `descricao`; how far ahead a payment can be scheduled
   * (dataPagamento); the widest period GET /v1/resumo summarises.
   */
  billPaymentDescriptionMaxChars: 140,
  billPaymentScheduleMaxDays: 365,
  billPaymentSummaryRangeMaxDays: 366,
  /** SPI boundary (docs/spi.md): the largest message accepted (a pacs.008 is about 2 KiB). */
  spiMessageMaxBytes: 64 * 1024,
  /** Outbound SPI messages handed to the gateway per pull. */
  spiOutboundPullMax: 100,
  /**
   * A sent pacs.008 or pacs.004 without its pacs.002 this long after the gateway took it is answered by pixd as
   * the SPI does when the receiving participant does not answer in time: rejected (AB03), the hold released.
   */
  spiAnswerTimeoutMs: 60_000,
} as const;

/**
 * PostgreSQL connections a node reserves for group-commit statements (database.ts): one for each group commit's
 * statements in flight — charge creation, the settlement reads and writes, the recurring charges' settlement
 * reads and writes, the SPI boundary's reads of keys, writes of credits to keys and charges, and its reads and
 * writes of the answers to sends — so no batch waits for another's connection.
 */
export const GROUP_COMMIT_CONNECTIONS =
  LIMITS.chargeCreateStatementsInFlight +
  LIMITS.settlementReadsInFlight +
  LIMITS.settlementStatementsInFlight * 3 +
  LIMITS.keySettlementStatementsInFlight +
  LIMITS.spiCreditStatementsInFlight +
  LIMITS.spiChargeCreditStatementsInFlight +
  LIMITS.spiAnswerReadsInFlight +
  LIMITS.spiAnswerStatementsInFlight;
