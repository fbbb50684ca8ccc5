/**
 * Every error name the interface answers with, grouped by the error body format it was named for: its HTTP
 * status(es) and, in the problem format, its `title`. `ApiError` takes only these names and only their
 * statuses, so a typo or a name without an entry does not compile. docs/api.md lists this catalogue
 * (`test/platform/error-catalogue.test.ts` regenerates the table and compares).
 *
 * A new name: add its line here (and run the test with PIXD_WRITE_DOCS=1 to rewrite docs/api.md's table).
 */

/** Any 4xx the framework answers by itself (413 body too large, 415 content type, …), besides 400. */
export const FRAMEWORK_4XX = 'framework 4xx';

export interface ErrorEntry {
  /** The status(es) the name is answered with; FRAMEWORK_4XX: 400, or the framework's own 4xx. */
  readonly status: number | readonly number[] | typeof FRAMEWORK_4XX;
  /** The problem object's `title`; without one the title is the name (as Bacen's unlisted names are). */
  readonly title?: string;
}

/**
 * The groups: `shared` names are raised by the platform for routes of any family (route not found, the request
 * guard, the rate limit, the database out of reach) and written in that route's format; every other group is
 * one body format, spoken by the route families docs/architecture.md lists for it.
 */
export const ERROR_CATALOGUE = {
  shared: {
    NaoEncontrado: { status: 404, title: 'Não Encontrado' },
    Unauthorized: { status: 401, title: 'Não autorizado' },
    AcessoNegado: { status: 403, title: 'Acesso Negado' },
    LimiteDeRequisicoes: { status: 429, title: 'Limite de requisições atingido' },
    servico_indisponivel: { status: 503 },
    erro_aplicacao: { status: 500 },
  },
  problem: {
    RequisicaoInvalida: { status: FRAMEWORK_4XX, title: 'Requisição inválida' },
    ServicoIndisponivel: { status: 503, title: 'Serviço Indisponível' },
    ErroInternoDoServidor: { status: 500, title: 'Erro Interno do Servidor' },
    ErroInterno: { status: 500, title: 'Erro interno.' },
    CobOperacaoInvalida: { status: 400, title: 'Cobrança inválida.' },
    CobConsultaInvalida: { status: 400, title: 'Consulta inválida.' },
    CobNaoEncontrado: { status: 404, title: 'Cobrança não encontrada.' },
    CobVOperacaoInvalida: { status: 400, title: 'Cobrança inválida.' },
    CobVConsultaInvalida: { status: 400, title: 'Consulta inválida.' },
    CobVNaoEncontrada: { status: 404, title: 'Cobrança com vencimento não encontrada.' },
    LoteCobVOperacaoInvalida: { status: 400, title: 'Lote de cobranças inválido.' },
    LoteCobVConsultaInvalida: { status: 400, title: 'Consulta inválida.' },
    PayloadLocationOperacaoInvalida: { status: 400, title: 'Location inválida.' },
    PayloadLocationConsultaInvalida: { status: 400, title: 'Consulta inválida.' },
    PayloadLocationNaoEncontrado: { status: 404, title: 'Location não encontrada.' },
    CobPayloadNaoEncontrado: { status: [404, 410], title: 'Payload não encontrado.' },
    CobPayloadOperacaoInvalida: { status: 400, title: 'Requisição de payload inválida.' },
    PixConsultaInvalida: { status: 400, title: 'Consulta inválida.' },
    PixDevolucaoInvalida: { status: 400, title: 'Devolução inválida.' },
    PixRecusado: { status: 400, title: 'Pix recusado.' },
    BoletoRecusado: { status: 400 },
    PixEnvioInvalido: { status: [400, 404, 409, 422, 429, 504] },
    PagamentoInvalido: { status: 400, title: 'Pagamento inválido.' },
    WebhookOperacaoInvalida: { status: 400, title: 'Webhook inválido.' },
    WebhookRecOperacaoInvalida: { status: 400, title: 'Webhook de recorrência inválido.' },
    WebhookCobROperacaoInvalida: { status: 400, title: 'Webhook de cobrança recorrente inválido.' },
    WebhookNaoEncontrado: { status: 404, title: 'Webhook não encontrado.' },
    WebhookConsultaInvalida: { status: 400, title: 'Consulta inválida.' },
    WebhookReenvioInvalido: { status: 400, title: 'Reenvio inválido.' },
    SplitConfigOperacaoInvalida: { status: 400, title: 'Configuração de split inválida.' },
    SplitVinculoInvalido: { status: 400, title: 'Vínculo de split inválido.' },
    SplitConsultaInvalida: { status: 400, title: 'Consulta inválida.' },
    SplitConfigNaoEncontrada: { status: 404, title: 'Configuração de split não encontrada.' },
    SplitVinculoNaoEncontrado: { status: 404, title: 'Vínculo de split não encontrado.' },
    ExtratoConciliacaoConsultaInvalida: { status: 400, title: 'Requisição de extrato inválida.' },
    AgendamentoInvalido: { status: 400, title: 'Agendamento inválido.' },
    RecOperacaoInvalida: { status: 400, title: 'Operação inválida.' },
    RecConsultaInvalida: { status: 400, title: 'Consulta inválida.' },
    RecNaoEncontrada: { status: 404, title: 'Recorrência não encontrada.' },
    RecPayloadNaoEncontrado: { status: 404 },
    RecPayloadOperacaoInvalida: { status: 400 },
    PayloadLocationRecNaoEncontrado: { status: 404, title: 'Location não encontrada.' },
    PayloadLocationRecConsultaInvalida: { status: 400, title: 'Consulta inválida.' },
    PayloadLocationRecOperacaoInvalida: { status: 400, title: 'Location inválida.' },
    CobROperacaoInvalida: { status: 400, title: 'Operação inválida.' },
    CobRConsultaInvalida: { status: 400, title: 'Consulta inválida.' },
    CobRNaoEncontrado: { status: 404, title: 'Cobrança recorrente não encontrada.' },
    SolicRecOperacaoInvalida: { status: 400, title: 'Operação inválida.' },
    SolicRecNaoEncontrada: { status: 404, title: 'Solicitação de recorrência não encontrada.' },
    InfracaoInvalida: { status: 400 },
    InfracaoConsultaInvalida: { status: 400 },
    BloqueioInvalido: { status: 400 },
    FalhaInvalida: { status: 400 },
    LimiteDeSessoes: { status: 429 },
    SessaoEncerrada: { status: 410 },
    EntregaNaoEncontrada: { status: 404 },
    ComprovanteConsultaInvalida: { status: 400 },
    ComprovanteNaoEncontrado: { status: 404 },
  },
  named: {
    json_invalido: { status: FRAMEWORK_4XX },
    chave_invalida: { status: 400 },
    endereco_invalido: { status: 400 },
    chave_nao_encontrada: { status: 404 },
    consulta_chave_tempo_esgotado: { status: 504 },
    limite_consultas_chave_atingido: { status: 429 },
    limite_criacao_chave_atingido: { status: 400 },
    qrcode_invalido: { status: 400 },
    qrcode_nao_suportado: { status: 400 },
    qrcode_assinatura_invalida: { status: 400 },
    qrcode_sem_valor: { status: 400 },
    qrcode_inacessivel: { status: 400 },
    cobranca_inexistente: { status: 400 },
    cobranca_expirada: { status: 400 },
    cobranca_paga: { status: 400 },
    cobranca_removida: { status: 400 },
    cobranca_propria: { status: 400 },
    chave_removida: { status: 400 },
    chave_propria: { status: 400 },
    chave_pagador_invalida: { status: 400 },
    documento_divergente: { status: 400 },
    titularidade_divergente: { status: 400 },
    conta_invalida: { status: 400 },
    conta_inexistente: { status: [400, 404] },
    conta_propria: { status: 400 },
    favorecido_invalido: { status: 400 },
    valor_invalido: { status: 400 },
    saldo_insuficiente: { status: 400 },
    webhook_nao_cadastrado: { status: 400 },
    id_envio_duplicado: { status: 409 },
    envio_recusado: { status: 400 },
    destino_externo_indisponivel: { status: 422 },
    url_cadastrada: { status: 409 },
    identificador_webhook: { status: 404 },
    conta_simplificada_invalida: { status: 400 },
    escopo_nao_permitido: { status: 400 },
    conta_simplificada_inexistente: { status: 404 },
    conta_simplificada_existente: { status: 409 },
    data_invalida: { status: 400 },
    url_webhook: { status: 400 },
    protocolo_da_url: { status: 400 },
    mtls_nao_configurado: { status: 400 },
    url_inacessivel: { status: 400 },
    limite_de_tempo_atingido_para_url: { status: 400 },
    url_falhou_com_erro: { status: 400 },
    url_destino_nao_permitido: { status: 400 },
    erro_de_codigo: { status: 400 },
    url_informada_nao_existe: { status: 400 },
    nao_autorizado: { status: 401 },
    usuario_invalido: { status: [400, 404, 409] },
    snapshot_invalido: { status: [400, 404, 409] },
    documento_invalido: { status: 400 },
    configuracao_invalida: { status: 400 },
    configuracao_nao_encontrada: { status: 404 },
    configuracao_ausente: { status: 422 },
    participante_invalido: { status: 400 },
    participante_nao_encontrado: { status: 404 },
    parametro_invalido: { status: 400 },
    adesao_invalida: { status: 400 },
    adesao_nao_encontrada: { status: 404 },
    adesao_nao_autorizada: { status: 422 },
    adesao_nao_revogavel: { status: 422 },
    pagamento_invalido: { status: 400 },
    pagamento_nao_encontrado: { status: 404 },
    pagamento_periodo_ocupado: { status: 422 },
    pagamento_nao_cancelavel: { status: 422 },
    pagamento_nao_devolvivel: { status: 422 },
    pagamento_limite_excedido: { status: 422 },
    parcela_nao_substituivel: { status: 422 },
    vinculo_invalido: { status: 400 },
    vinculo_nao_encontrado: { status: 404 },
    vinculo_nao_autorizado: { status: 422 },
    vinculo_nao_revogavel: { status: 422 },
    // Paying bills (docs/bill-payments.md).
    codigo_barras_invalido: { status: 400 },
    valor_divergente: { status: 422 },
    boleto_nao_pagavel: { status: 422 },
    valor_nao_suportado: { status: 422 },
    pagamento_duplicado: { status: 409 },
    pagamento_recusado: { status: 422 },
    webhook_nao_encontrado: { status: 404 },
    agendamento_invalido: { status: 400 },
    agendamento_nao_encontrado: { status: 404 },
    arquivo_nao_encontrado: { status: 404 },
  },
  wrapper: {
    'Validation Error': { status: FRAMEWORK_4XX },
    txid_duplicado: { status: 409 },
    documento_bloqueado: { status: 400 },
    NotFound: { status: 404 },
    Timeout: { status: 504 },
    RefundInvalid: { status: 400 },
    EntryInvalid: { status: 400 },
    EntryAlreadyExists: { status: 400 },
    EntryKeyOwnedByDifferentPerson: { status: 400 },
    EntryKeyInCustodyOfDifferentParticipant: { status: 400 },
    EntryLimitExceeded: { status: 400 },
  },
  billing: {
    validation_error: { status: FRAMEWORK_4XX },
    invalid_account: { status: 401 },
    charge_not_found: { status: 404 },
    checkout_not_found: { status: 404 },
    notification_not_found: { status: 404 },
    invalid_payee_code: { status: 400 },
    invalid_status_transition: { status: 400 },
    invalid_charge_status: { status: 400 },
    metadata_update_limit: { status: 429 },
    retry_not_card: { status: 400 },
    retry_recurrent: { status: 400 },
    invalid_card_data: { status: 400 },
    invalid_brand: { status: 400 },
    expired_card: { status: 400 },
    invalid_payment_token: { status: 400 },
    refund_not_card: { status: 400 },
    refund_marketplace: { status: 400 },
    refund_in_process: { status: 400 },
    refund_exceeds_remaining: { status: 400 },
    refund_window_expired: { status: 400 },
    partial_refund_daily_limit: { status: 400 },
    plan_not_found: { status: 404 },
    plan_has_subscriptions: { status: 400 },
    subscription_not_found: { status: 404 },
    invalid_subscription_status: { status: 400 },
    subscription_not_card: { status: 400 },
    link_not_found: { status: 404 },
    link_expired: { status: 400 },
    link_method_not_allowed: { status: 400 },
    not_banking_billet: { status: 400 },
    carnet_not_found: { status: 404 },
    parcel_not_found: { status: 404 },
    mail_not_configured: { status: 503 },
  },
  oauth: {
    invalid_request: { status: FRAMEWORK_4XX },
    invalid_client: { status: 401 },
    unsupported_grant_type: { status: 400 },
    too_many_requests: { status: 429 },
  },
  /** The console's HTML error pages (src/console/routes.ts) show the status and the message, not the name. */
  html: {
    csrf: { status: 403 },
    escopo: { status: 403 },
    segredo: { status: 401 },
    tentativas: { status: 429 },
    demo: { status: [403, 404] },
    contas: { status: 404 },
    conta: { status: 404 },
    tipo: { status: 404 },
    relatorio: { status: 409 },
  },
} as const satisfies Record<string, Record<string, ErrorEntry>>;

type Catalogue = typeof ERROR_CATALOGUE;
export type ErrorGroup = keyof Catalogue;
type EntryOf<N> = { [G in ErrorGroup]: N extends keyof Catalogue[G] ? Catalogue[G][N] : never }[ErrorGroup];

/** Every name in the catalogue: the only names `ApiError` takes. */
export type ErrorName = { [G in ErrorGroup]: keyof Catalogue[G] & string }[ErrorGroup];
/** The names of one group. */
export type GroupErrorName<G extends ErrorGroup> = keyof Catalogue[G] & string;

/** The statuses the catalogue allows for a name (distributes over a union of names). */
export type StatusOf<N extends ErrorName> = N extends ErrorName
  ? EntryOf<N>['status'] extends infer S
    ? S extends typeof FRAMEWORK_4XX
      ? number
      : S extends readonly (infer Each)[]
        ? Each
        : S
    : never
  : never;

/** The names answered with a given status (`invalid` takes the 400 ones, `notFound` the 404 ones). */
export type ErrorNameWithStatus<S extends number> = {
  [N in ErrorName]: S extends StatusOf<N> ? N : never;
}[ErrorName];

const entries = new Map<string, ErrorEntry & { group: ErrorGroup }>(
  Object.entries(ERROR_CATALOGUE).flatMap(([group, names]) =>
    Object.entries(names as Record<string, ErrorEntry>).map(([name, entry]) => [
      name,
      { ...entry, group: group as ErrorGroup },
    ]),
  ),
);

/** The catalogue entry of a name (every ErrorName has one). */
export const errorEntry = (name: ErrorName) => entries.get(name)!;

/** The problem object's title of a name. */
export const errorTitle = (name: ErrorName): string => errorEntry(name).title ?? name;
